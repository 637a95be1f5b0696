/* placeholder until the driver lands */
#include "common/util.h"
int main(void) { die("not built yet"); }
