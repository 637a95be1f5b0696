#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>
#include <map>
__global__ void step(double *x, const double *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = sqrt(x[i] * y[i] + 1.0) / (y[i] + 2.0) + exp(-x[i]);
}
int main(int argc, char **argv)
{
	std::string cfg = argc > 1 ? argv[1] : "n=1024 iters=10 name=run-1";
	std::regex kv("([a-z]+)=([A-Za-z0-9-]+)");
	std::map<std::string, std::string> opt;
	for (auto it = std::sregex_iterator(cfg.begin(), cfg.end(), kv); it != std::sregex_iterator(); ++it)
		opt[(*it)[1]] = (*it)[2];
	int n = std::stoi(opt["n"]), iters = std::stoi(opt["iters"]);
	std::vector<double> h(n, 1.0);
	double *x, *y;
	cudaMalloc(&x, n * sizeof(double));
	cudaMalloc(&y, n * sizeof(double));
	cudaMemcpy(x, h.data(), n * sizeof(double), cudaMemcpyHostToDevice);
	cudaMemcpy(y, h.data(), n * sizeof(double), cudaMemcpyHostToDevice);
	for (int k = 0; k < iters; k++)
		step<<<(n + 255) / 256, 256>>>(x, y, n);
	cudaMemcpy(h.data(), x, n * sizeof(double), cudaMemcpyDeviceToHost);
	std::ostringstream out;
	out << opt["name"] << ": x[0] = " << h[0];
	if (std::regex_search(out.str(), std::regex("x\\[0\\] = [0-9.]+")))
		std::cout << out.str() << std::endl;
	return 0;
}
