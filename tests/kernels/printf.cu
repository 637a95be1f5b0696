// device printf: a call to vprintf through a .callprototype, a string constant
#include <cstdio>

__global__ void hello(const float *x)
{
	if (threadIdx.x == 0)
		printf("block %d x=%f\n", blockIdx.x, x[blockIdx.x]);
}
