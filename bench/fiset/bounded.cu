/* bounded: held.cu's kernel under __launch_bounds__(64, 16), which leaves
 * it 64 registers a thread: ptxas spills what does not fit, and the f32
 * form spills less */
#define NAME bounded
#define BOUNDS __launch_bounds__(64, 16)
#include "held.cu"
