/* osh_consumer: an OpenSHMEM program built with oshcc (or, as C++, oshc++) against an installed
 * symheap (tests/install). It must get symheap's <shmem.h>, not another OpenSHMEM's that sits on
 * the MPI compiler's include path (Debian's Open MPI ships OSHMEM's). Prints
 * "shmem consumer: PE i of n, <vendor string>" after a put around the ring. With
 * -DOSH_CONSUMER_MPP it includes the older path <mpp/shmem.h>, which must be symheap's too. */
#ifdef OSH_CONSUMER_MPP
#include <mpp/shmem.h>
#else
#include <shmem.h>
#endif
#include <stdio.h>
#include <string.h>

#if !defined(SYMH_SHMEM_H) || !defined(SYMHEAP_NUMVERSION)
#error "<shmem.h> is not symheap's (another OpenSHMEM's header came first on the include path)"
#endif
#if SHMEM_MAJOR_VERSION != 1 || SHMEM_MINOR_VERSION != 5
#error "symheap's <shmem.h> should say OpenSHMEM 1.5"
#endif

static long ring = -1;

int main(void)
{
    int me, npes;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_long_p(&ring, me, (me + 1) % npes);
    shmem_barrier_all();
    if (ring != (me + npes - 1) % npes) {
        fprintf(stderr, "shmem consumer: PE %d got %ld from its left neighbour\n", me, ring);
        return 1;
    }
    if (strstr(SHMEM_VENDOR_STRING, "symheap") == NULL) {
        fprintf(stderr, "shmem consumer: vendor string '%s'\n", SHMEM_VENDOR_STRING);
        return 1;
    }
    printf("shmem consumer: PE %d of %d, %s\n", me, npes, SHMEM_VENDOR_STRING);
    shmem_finalize();
    return 0;
}
