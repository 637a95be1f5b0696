/* placeholder until the driver lands */
#include "common/util.h"
