/* r-link.c: the installed form of the runtime, libmpccrt.a, links into a
 * position-independent executable with the wrap list, and adds no name to
 * the program but its __wrap_ functions: this program has its own rt,
 * reads() and kern_find(), as the runtime's sources call theirs, and
 * still gets its clone launched. */
#include "tests/runtime/program.h"
#include "tests/unit/test.h"

int rt = 7;   /* the runtime's state has this name inside it */

int
reads(int x)
{
	return x + rt;
}

void *
kern_find(const void *p)
{
	return (void *)p;
}

TEST(the_library_links_into_a_pie_beside_names_of_its_own)
{
	program();
	double v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, *d;
	cudaMalloc((void **)&d, sizeof v);
	cudaMemcpy(d, v, sizeof v, cudaMemcpyHostToDevice);
	CHECK(scale(d, 2, 8) == cudaSuccess);
	CHECK(fake_count("launch scale_mpcc_store") == 1);
	cudaMemcpy(v, d, sizeof v, cudaMemcpyDeviceToHost);
	CHECK(v[7] == 16 && reads(1) == 8 && kern_find(v) == v);
}

int
main(void)
{
	RUN(the_library_links_into_a_pie_beside_names_of_its_own);
	return DONE();
}
