/* <mpp/shmem.h>: the path OpenSHMEM 1.5 Annex F keeps for older programs; symheap's <shmem.h>. */
#include "../shmem.h"
