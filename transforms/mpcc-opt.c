/* placeholder until the PTX library lands */
#include "transforms/pass.h"
#include <stdio.h>

int
main(void)
{
	progname = "mpcc-opt";
	die("not built yet");
}
