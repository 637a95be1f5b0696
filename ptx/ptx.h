/* ptx.h: the PTX library. Owned by the PTX-library work (issue 3);
 * this placeholder only lets the tree build until it lands. */
#ifndef MPCC_PTX_H
#define MPCC_PTX_H
#include "common/util.h"
#endif
