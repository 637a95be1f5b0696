// element-wise polynomial in f32: the half2 pairing's candidate
__global__ void poly4(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = ((0.25f * v + 0.5f) * v - 1.5f) * v + 2.0f;
	}
}
