/* A profiling library as OpenSHMEM 1.5's profiling interface foresees one (docs/openshmem.md
 * "Profiling"): it defines some shmem_ routines, counts each call and forwards it to the
 * library's pshmem_ routine. Built only for tests, as a shared library that profile.c links
 * before libsymheap, so its shmem_ definitions win over libsymheap's weak ones. */
#include <shmem.h>
#include <string.h>

#include "profile_wrap.h"

static long profile_counts[PROFILE_COUNT];

long profile_count(int which)
{
    return which >= 0 && which < PROFILE_COUNT ? profile_counts[which] : -1;
}

void *shmem_malloc(size_t size)
{
    profile_counts[PROFILE_MALLOC]++;
    return pshmem_malloc(size);
}

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    profile_counts[PROFILE_PUTMEM]++;
    pshmem_putmem(dest, source, nelems, pe);
}

int shmem_int_atomic_fetch_add(int *dest, int value, int pe)
{
    profile_counts[PROFILE_INT_FETCH_ADD]++;
    return pshmem_int_atomic_fetch_add(dest, value, pe);
}

void shmem_barrier_all(void)
{
    profile_counts[PROFILE_BARRIER_ALL]++;
    pshmem_barrier_all();
}

int shmem_long_sum_reduce(shmem_team_t team, long *dest, const long *source, size_t nreduce)
{
    profile_counts[PROFILE_LONG_SUM_REDUCE]++;
    return pshmem_long_sum_reduce(team, dest, source, nreduce);
}

void shmem_pcontrol(int level, ...)
{
    profile_counts[PROFILE_PCONTROL]++;
    pshmem_pcontrol(level);
}
