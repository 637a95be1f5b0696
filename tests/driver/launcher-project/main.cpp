#include <cstdio>
int run_saxpy(int n, float a, const float *x, float *y);
int run_boxmuller(int n, float *x);

int main()
{
	float x[256], y[256];
	for (int i = 0; i < 256; i++)
		x[i] = (i + 1) / 257.0f, y[i] = 1;
	if (run_saxpy(256, 2.0f, x, y) != 0 || run_boxmuller(256, x) != 0) {
		std::printf("no CUDA device: linked, not run\n");
		return 0;
	}
	std::printf("y[255] = %g, x[0] = %g\n", y[255], x[0]);
	return 0;
}
