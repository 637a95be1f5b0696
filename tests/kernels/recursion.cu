// a recursive device function: call stack, local memory
__device__ int fib(int k)
{
	return k < 2 ? k : fib(k - 1) + fib(k - 2);
}

__global__ void fibs(int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = fib(i % 20);
}
