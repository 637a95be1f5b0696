// timer.cuh: the median time of a kernel launch over 15, by CUDA events,
// after one warm-up launch (in ms)
#include <cuda_runtime.h>

template <class F>
static float median_ms(F launch)
{
	enum { R = 15 };
	float t[R];
	cudaEvent_t a, b;
	cudaEventCreate(&a);
	cudaEventCreate(&b);
	launch();
	for (int r = 0; r < R; r++) {
		cudaEventRecord(a);
		launch();
		cudaEventRecord(b);
		cudaEventSynchronize(b);
		cudaEventElapsedTime(&t[r], a, b);
	}
	for (int i = 1; i < R; i++)   /* insertion sort: 15 values */
		for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
			float x = t[j];
			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	return t[R / 2];
}
