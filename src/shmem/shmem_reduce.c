/* shmem: the deprecated OpenSHMEM active-set reductions shmem_TYPENAME_OP_to_all.
 *
 * Pull, not push: pWrk (at least nreduce / 2 + 1 elements) cannot hold the members'
 * contributions, but source is symmetric, so after a barrier over the set (source ready
 * everywhere) each member reads every member's source with symh_getmem, chunk by chunk, and
 * folds them in set order into its dest: every member combines in the same order and gets the
 * same bits. A second barrier keeps every source (and an in-place dest) unchanged until the last
 * member has read it; in place, the result waits in a local buffer until then. Cost: 2 barriers
 * and PE_size reads of nreduce elements per member; pWrk is not used; pSync[0] carries both
 * barriers (shmem_active_set.c) and is 0 again on return. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <symheap.h>

#include "core/core_log.h"
#include "core/core_status.h"
#include <shmem.h>
#include "shmem/shmem_set.h"

typedef void (*symh_shmem_fold_func_t)(void *acc, const void *in, size_t n);

typedef struct {
    const char *name;            /* the routine, for its log lines */
    size_t width;                /* bytes of an element */
    symh_shmem_fold_func_t fold; /* acc[k] = acc[k] OP in[k] */
} symh_shmem_reduce_op_t;

/* Elements read from a peer at once; long double alignment for every type. */
#define SYMH_SHMEM_REDUCE_CHUNK_BYTES 8192

static void symh_shmem_reduce(const symh_shmem_reduce_op_t *op, void *dest, const void *source,
                              int nreduce, int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    long double chunk[SYMH_SHMEM_REDUCE_CHUNK_BYTES / sizeof(long double)];
    size_t per_chunk = sizeof(chunk) / op->width, n, done, bytes;
    symh_shmem_set_t set;
    char *acc, *tmp = NULL;
    int i;

    if (symh_shmem_set_init(op->name, PE_start, logPE_stride, PE_size, pSync, &set) != SYMH_OK)
        return;
    if (nreduce < 0) {
        symh_error("%s: nreduce %d is negative", op->name, nreduce);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    if (nreduce == 0)
        return;
    n = (size_t)nreduce;
    bytes = n * op->width;
    if (dest != source && (char *)dest < (const char *)source + bytes &&
        (const char *)source < (char *)dest + bytes) {
        symh_error("%s: dest %p and source %p overlap (they may be the same array, nothing else)",
                   op->name, dest, source);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    acc = dest;
    if (dest == source) {
        tmp = malloc(bytes);
        if (tmp == NULL)
            symh_error("%s: no memory for the %zu-byte in-place result; dest is left unchanged",
                       op->name, bytes);
        acc = tmp;
    }
    /* Every member takes part in both barriers, whatever happened locally. */
    symh_shmem_set_barrier(&set, pSync);
    for (done = 0; acc != NULL && done < n; done += per_chunk) {
        size_t count = n - done < per_chunk ? n - done : per_chunk;
        size_t at = done * op->width;

        symh_getmem(acc + at, (const char *)source + at, count * op->width,
                    symh_shmem_set_pe(&set, 0));
        for (i = 1; i < set.size; ++i) {
            symh_getmem(chunk, (const char *)source + at, count * op->width,
                        symh_shmem_set_pe(&set, i));
            op->fold(acc + at, chunk, count);
        }
    }
    symh_shmem_set_barrier(&set, pSync);
    if (dest == source) {
        if (tmp == NULL) {
            symh_status_set(SYMH_ERR_NO_MEMORY);
            return;
        }
        memcpy(dest, tmp, bytes);
        free(tmp);
    }
    symh_status_set(SYMH_OK);
}

/* Each _to_all routine of the reduction table (SYMH_SHMEM_TO_ALL_FOR_EACH, <shmem.h>). */
#define SYMH_SHMEM_TO_ALL_DEFINE(NAME, TYPE, OP)                                                   \
    static void symh_shmem_fold_##NAME##_##OP(void *acc, const void *in, size_t n)                 \
    {                                                                                              \
        TYPE *a = (TYPE *)acc;                                                                     \
        const TYPE *b = (const TYPE *)in;                                                          \
        size_t k;                                                                                  \
                                                                                                   \
        for (k = 0; k < n; ++k)                                                                    \
            a[k] = (TYPE)SYMH_REDUCE_OP_##OP(a[k], b[k]);                                          \
    }                                                                                              \
    void pshmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce, int PE_start,  \
                                       int logPE_stride, int PE_size, TYPE *pWrk, long *pSync)     \
    {                                                                                              \
        static const symh_shmem_reduce_op_t op = { "shmem_" #NAME "_" #OP "_to_all", sizeof(TYPE), \
                                                   symh_shmem_fold_##NAME##_##OP };                \
                                                                                                   \
        (void)pWrk;                                                                                \
        symh_shmem_reduce(&op, dest, source, nreduce, PE_start, logPE_stride, PE_size, pSync);     \
    }                                                                                              \
    SYMH_SHMEM_WEAK_(shmem_##NAME##_##OP##_to_all);
SYMH_SHMEM_TO_ALL_FOR_EACH(SYMH_SHMEM_TO_ALL_DEFINE)
