// Draws n normal samples on the GPU and prints their mean and variance
// (0 and 1 within sampling noise, with or without the fast profile).
#include <cstdio>
#include <cstdlib>
#include "rng/boxmuller.h"
#include "stats.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
	float *h = (float *)malloc(n * sizeof *h), *d;
	srand(42);
	for (int i = 0; i < n; i++)
		h[i] = (rand() + 1.0f) / (RAND_MAX + 2.0f);
	if (cudaMalloc(&d, n * sizeof *d) != cudaSuccess) {
		fprintf(stderr, "boxmuller: no CUDA device\n");
		return 1;
	}
	cudaMemcpy(d, h, n * sizeof *d, cudaMemcpyHostToDevice);
	boxmuller(d, n, argc > 2);
	double mean, var;
	moments(d, n, &mean, &var);
	printf("mean %.4f variance %.4f\n", mean, var);
	cudaFree(d);
	free(h);
	return 0;
}
