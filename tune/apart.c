/* apart.c: what the commands allow side by side: builds and runs of
 * several trials at once need each trial in a directory of its own
 * ($MPCC_TUNE_DIR in --build, --run, --output, --binary). */
#include "tune/tune.h"

#include <string.h>

int
apart(const struct tuner *tu)
{
	return tu->run && strstr(tu->run, "MPCC_TUNE_DIR") &&
	       (strstr(tu->build, "MPCC_TUNE_DIR") || tu->binary) &&
	       (!tu->output || !strcmp(tu->output, "stdout") || strstr(tu->output, "MPCC_TUNE_DIR"));
}

int
buildsapart(const struct tuner *tu)
{
	return tu->build && strstr(tu->build, "MPCC_TUNE_DIR") &&
	       (!tu->binary || strstr(tu->binary, "MPCC_TUNE_DIR"));
}
