// host.cu: k.cu's kernel 'hot' in a program whose host code takes the host
// compiler seconds (<regex>, <iostream>), as real programs' host code does:
// what a trial's build costs against a full build. The program is built,
// not run (fake.sh reads its PTX).
#include <iostream>
#include <map>
#include <regex>
#include <string>

__global__ void hot(int n, const double *x, double *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 1.0 / sqrt(x[i] + 2.0) + x[i] / (x[i] + 3.0);
}

int main(int argc, char **argv)
{
	std::string cfg = argc > 1 ? argv[1] : "n=1024";
	std::regex kv("([a-z]+)=([0-9]+)");
	std::map<std::string, int> opt;
	for (auto it = std::sregex_iterator(cfg.begin(), cfg.end(), kv); it != std::sregex_iterator(); ++it)
		opt[(*it)[1]] = std::stoi((*it)[2]);
	int n = opt["n"];
	double *x, *y;
	cudaMalloc(&x, n * sizeof(double));
	cudaMalloc(&y, n * sizeof(double));
	hot<<<(n + 255) / 256, 256>>>(n, x, y);
	std::cout << "n = " << n << std::endl;
	return cudaDeviceSynchronize() != cudaSuccess;
}
