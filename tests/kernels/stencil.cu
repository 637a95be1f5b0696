// 2D five-point stencil in double, boundary checks
__global__ void stencil(int nx, int ny, const double *u, double *v, double c)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1)
		return;
	int i = y * nx + x;
	v[i] = u[i] + c * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.0 * u[i]);
}
