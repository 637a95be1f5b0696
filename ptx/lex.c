/* placeholder until the PTX library lands */
#include "ptx/ptx.h"
