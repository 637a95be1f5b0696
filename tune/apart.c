/* apart.c: what the commands allow side by side: builds and runs of
 * several trials at once need each trial in a directory of its own
 * ($MPCC_TUNE_DIR in --build, --run, --output, --binary). */
#include "tune/tune.h"

#include <string.h>

int
apart(const struct tuner *tu)
{
	return tu->o->run && strstr(tu->o->run, "MPCC_TUNE_DIR") &&
	       (strstr(tu->o->build, "MPCC_TUNE_DIR") || tu->o->binary) &&
	       (!tu->o->output || !strcmp(tu->o->output, "stdout") || strstr(tu->o->output, "MPCC_TUNE_DIR"));
}

int
buildsapart(const struct tuner *tu)
{
	return tu->o->build && strstr(tu->o->build, "MPCC_TUNE_DIR") &&
	       (!tu->o->binary || strstr(tu->o->binary, "MPCC_TUNE_DIR"));
}
