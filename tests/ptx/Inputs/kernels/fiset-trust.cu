// Two kernels of the same shape, a polynomial of one loaded value: with 120
// steps the model predicts lowering about 5% faster, with 200 about 44%.
#define POLY(name, D)                                                          \
  extern "C" __global__ void name(const double *k, const double *c,           \
                                  double *w, int n) {                          \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (i >= n) return;                                                        \
    double x = k[i], y = c[i], p = x;                                          \
    _Pragma("unroll") for (int d = 0; d < D; d++) p = p * x + y;              \
    w[i] = p;                                                                  \
  }
POLY(poly120, 120)
POLY(poly200, 200)
