/* shmem: the active set (PE_start, logPE_stride, PE_size) of the deprecated OpenSHMEM
 * collectives, and the barrier over it on the caller's pSync (shmem_active_set.c). */
#ifndef SYMH_SHMEM_SET_H
#define SYMH_SHMEM_SET_H

typedef struct {
    int start;  /* world number of the set's first PE */
    int stride; /* 1 << logPE_stride */
    int size;   /* PEs in the set */
    int me;     /* this PE's index in the set */
} symh_shmem_set_t;

/* World number of the set's PE `index`. */
static inline int symh_shmem_set_pe(const symh_shmem_set_t *set, int index)
{
    return set->start + index * set->stride;
}

/* Checks symheap is up, the set fits the world and holds this PE, and pSync is not NULL; on
 * failure logs one line naming `func` and the argument, sets symh_last_error() and returns the
 * status (the caller returns at once: PEs outside a set must not take part). */
int symh_shmem_set_init(const char *func, int PE_start, int logPE_stride, int PE_size,
                        const long *pSync, symh_shmem_set_t *set);

/* The barrier over the set's members on pSync[0] (quiet first, as shmem_barrier). pSync[0] is
 * 0 again on return on every member; the same pSync may serve the next barrier at once. */
void symh_shmem_set_barrier(const symh_shmem_set_t *set, long *pSync);

#endif /* SYMH_SHMEM_SET_H */
