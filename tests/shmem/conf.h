/* Shared checks of the OpenSHMEM conformance programs (docs/openshmem-conformance.md).
 * Plain C11 over <shmem.h> only: the programs build unchanged against symheap's <shmem.h> and
 * any other OpenSHMEM implementation. A failed check prints the program, the line, the PE and
 * the values, then ends the whole job with shmem_global_exit(1), so no PE waits forever for a
 * peer that stopped. */
#ifndef SHMEM_CONF_H
#define SHMEM_CONF_H

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

/* The parts that need routines new in OpenSHMEM 1.5 (teams, team collectives, signals, the
 * array waits, non-blocking fetching atomics, malloc_with_hints) run where the implementation
 * says it implements 1.5. symheap's <shmem.h> does; Open MPI 4.1's OSHMEM says 1.4 and lacks
 * them, so they are compiled out there (and only there). */
#if defined(CONF_PRETEND_14) /* the harness check (run_conf_check.sh): an implementation of 1.4 */
#define CONF_HAVE_15 0
#elif SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5)
#define CONF_HAVE_15 1
#else
#define CONF_HAVE_15 0
#endif
/* symheap implements 1.5: its <shmem.h> saying otherwise would compile these parts out and let
 * the programs pass without them. */
#if defined(SYMHEAP_NUMVERSION) && !CONF_HAVE_15 && !defined(CONF_PRETEND_14)
#error "symheap's <shmem.h> says an OpenSHMEM version before 1.5"
#endif
/* A program made only of 1.5 parts, built against an older implementation: it says so and exits
 * with this status, which run_conf.sh counts as a failure (a program that checked nothing). */
#define CONF_EXIT_NOT_APPLICABLE 77

static const char *conf_program = "?";

static inline void conf_fail(const char *file, int line, const char *what, long long got,
                             long long want)
{
    printf("FAIL %s (%s:%d) on PE %d of %d: %s: got %lld, expected %lld\n", conf_program, file,
           line, shmem_my_pe(), shmem_n_pes(), what, got, want);
    fflush(stdout);
    shmem_global_exit(1);
    exit(1);
}

/* CHECK(cond): a condition; CHECK_EQ(got, want): integers (printed on failure). */
#define CHECK(cond)                                     \
    do {                                                \
        if (!(cond))                                    \
            conf_fail(__FILE__, __LINE__, #cond, 0, 1); \
    } while (0)
#define CHECK_EQ(got, want)                                                     \
    do {                                                                        \
        long long conf_g_ = (long long)(got), conf_w_ = (long long)(want);      \
        if (conf_g_ != conf_w_)                                                 \
            conf_fail(__FILE__, __LINE__, #got " == " #want, conf_g_, conf_w_); \
    } while (0)

/* The program's last words on PE 0 (every PE reached the end without a failed check). */
static inline void conf_done(void)
{
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        printf("PASS %s at %d PEs\n", conf_program, shmem_n_pes());
    shmem_finalize();
}

#endif
