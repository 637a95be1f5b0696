// float math functions: the SFU transform's targets (sin exp log sqrt div)
__global__ void mathmix(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	float r = sinf(v) + cosf(v) * expf(-v);
	r += logf(1.0f + v * v) / (1.0f + sqrtf(fabsf(v)));
	r += powf(fabsf(v), 0.3f) + tanhf(v) + rsqrtf(1.0f + v * v);
	y[i] = r / v;
}
