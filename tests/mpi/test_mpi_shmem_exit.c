/* A program written for OpenSHMEM 1.0: start_pes, a barrier, and an exit without finalizing
 * (src/shmem/shmem_init.c finalizes at exit). CTest runs it under mpiexec: it passes when the
 * job ends with status 0, and, with SHMEM_INFO, VERSION and DEBUG set, when PE 0 prints what they
 * ask for. */
#include <symheap.h>

#include "shmem/shmem_compat.h"

int main(void)
{
    long *psync;

    start_pes(0);
    psync = symh_calloc(SYMH_SHMEM_BARRIER_SYNC_WORDS, sizeof(long));
    if (!symh_initialized() || psync == NULL)
        return 1;
    shmem_barrier(0, 0, symh_n_pes(), psync);
    return psync[0] == 0 ? 0 : 1;
}
