// inline asm: PTX written by people, with braces, local regs and predicates
__global__ void asmk(int n, const float *x, float *y, unsigned *lane)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float r;
	asm("{\n\t.reg .f32 t;\n\tmul.f32 t, %1, %1;\n\tadd.f32 %0, t, %1;\n\t}" : "=f"(r) : "f"(x[i]));
	unsigned l, w;
	asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
	asm volatile("mov.u32 %0, %%warpid;" : "=r"(w));
	asm("{\n\t.reg .pred p;\n\tsetp.gt.f32 p, %1, 0f00000000;\n\tselp.f32 %0, %1, 0f3F800000, p;\n\t}"
	    : "=f"(r) : "f"(r));
	y[i] = r;
	lane[i] = l | (w << 8);
}
