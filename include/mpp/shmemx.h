/* <mpp/shmemx.h>: the path OpenSHMEM 1.5 Annex F keeps for older programs; symheap's <shmemx.h>. */
#include "../shmemx.h"
