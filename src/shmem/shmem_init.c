/* shmem: OpenSHMEM's start_pes, shmem_align and shmem_info_get_version, whose rules differ from
 * their symh_ counterparts (docs/openshmem-compat.md). */
#include <stdlib.h>

#include <symheap.h>

#include "core/core_log.h"
#include "core/core_status.h"
#include <shmem.h>

/* Programs written for start_pes (OpenSHMEM 1.0) never finalize: the library did it at exit.
 * symheap must, or MPI sees a process end without MPI_Finalize and fails the job. Registered
 * after symh_init, so it runs before the bootstrap's own exit handler that finalizes MPI. */
static void symh_shmem_exit_finalize(void)
{
    if (symh_initialized())
        symh_finalize();
}

void pstart_pes(int npes)
{
    static int exit_registered;

    (void)npes; /* the specification: the number of PEs is the launcher's, npes is ignored */
    if (symh_initialized()) {
        symh_status_set(SYMH_OK);
        return;
    }
    /* On failure symh_init has said why; every later call says symheap is not initialized. */
    if (symh_init() != SYMH_OK)
        return;
    if (!exit_registered && atexit(symh_shmem_exit_finalize) == 0)
        exit_registered = 1;
}
SYMH_SHMEM_WEAK_(start_pes);

void *pshmem_align(size_t alignment, size_t size)
{
    /* OpenSHMEM takes any power of two; the default alignment (128 bytes) satisfies one below
     * sizeof(void *), which symh_align refuses. The rest, size 0 and bad alignments included,
     * is symh_align's: every PE enters its barrier and gets the same answer. */
    if (alignment != 0 && (alignment & (alignment - 1)) == 0 && alignment < sizeof(void *))
        alignment = sizeof(void *);
    return symh_align(alignment, size);
}
SYMH_SHMEM_WEAK_(shmem_align);

void pshmem_info_get_version(int *major, int *minor)
{
    if (major == NULL || minor == NULL) {
        symh_error("shmem_info_get_version: %s is NULL", major == NULL ? "major" : "minor");
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    *major = 1; /* the specification's version, not symheap's (symh_info_get_version) */
    *minor = 5;
    symh_status_set(SYMH_OK);
}
SYMH_SHMEM_WEAK_(shmem_info_get_version);
