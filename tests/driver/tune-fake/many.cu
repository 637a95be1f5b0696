// many.cu: twelve independent groups of f64 arithmetic, each on its own
// input and stored on its own: fiset finds twelve sets, more than
// mpcc-tune's log names one by one.
#define SET(k) { double p = a[(k) * n + i]; x[(k) * n + i] = (p * ((k) + 1.5) + 2.0) * p + 3.0; }

__global__ void many(int n, const double *a, double *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		SET(0) SET(1) SET(2) SET(3) SET(4) SET(5)
		SET(6) SET(7) SET(8) SET(9) SET(10) SET(11)
	}
}
