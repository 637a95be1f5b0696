// store-other.cu: a kernel of another translation unit, built by plain
// nvcc: the runtime has no line for it and must give it every array in
// its original form
__global__ void scale_k(double *y, double a, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] *= a;
}
void scale_elsewhere(double *y, double a, int n, cudaStream_t s) {
	scale_k<<<(n + 255) / 256, 256, 0, s>>>(y, a, n);
}
