// structs passed by value, float4 vector loads and stores
struct Params {
	float scale, bias;
	int n;
	float4 w;
};

__global__ void affine4(Params p, const float4 *x, float4 *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.n) {
		float4 v = x[i];
		y[i] = make_float4(v.x * p.scale * p.w.x + p.bias, v.y * p.scale * p.w.y + p.bias,
		                   v.z * p.scale * p.w.z + p.bias, v.w * p.scale * p.w.w + p.bias);
	}
}
