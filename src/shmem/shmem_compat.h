/* shmem: the OpenSHMEM 1.5 routines with logic of their own (start_pes, shmem_align,
 * shmem_info_get_version, the deprecated active-set collectives), as <shmem.h> declares them. */
#ifndef SYMH_SHMEM_COMPAT_H
#define SYMH_SHMEM_COMPAT_H

#include <stddef.h>

#include <symheap/defs.h>

SYMH_BEGIN_C_DECLS

/* The pSync words each active-set routine uses (docs/openshmem-compat.md): <shmem.h>'s
 * SHMEM_*_SYNC_SIZE must be at least these. Every word starts and ends at SHMEM_SYNC_VALUE (0). */
#define SYMH_SHMEM_BARRIER_SYNC_WORDS  1
#define SYMH_SHMEM_BCAST_SYNC_WORDS    1
#define SYMH_SHMEM_COLLECT_SYNC_WORDS  2
#define SYMH_SHMEM_ALLTOALL_SYNC_WORDS 1
#define SYMH_SHMEM_REDUCE_SYNC_WORDS   1

SYMH_API void start_pes(int npes);
SYMH_API void *shmem_align(size_t alignment, size_t size);
SYMH_API void shmem_info_get_version(int *major, int *minor);

SYMH_API void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);

#define SYMH_SHMEM_ACTIVE_SET_DECLARE(BITS)                                                        \
    SYMH_API void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems,             \
                                        int PE_root, int PE_start, int logPE_stride, int PE_size,  \
                                        long *pSync);                                              \
    SYMH_API void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start, \
                                      int logPE_stride, int PE_size, long *pSync);                 \
    SYMH_API void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems,              \
                                       int PE_start, int logPE_stride, int PE_size, long *pSync);  \
    SYMH_API void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems,              \
                                       int PE_start, int logPE_stride, int PE_size, long *pSync);  \
    SYMH_API void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst,             \
                                        ptrdiff_t sst, size_t nelems, int PE_start,                \
                                        int logPE_stride, int PE_size, long *pSync);
SYMH_SHMEM_ACTIVE_SET_DECLARE(32)
SYMH_SHMEM_ACTIVE_SET_DECLARE(64)
#undef SYMH_SHMEM_ACTIVE_SET_DECLARE

/* The types of each reduction: X(TYPENAME, TYPE) */
#define SYMH_SHMEM_TO_ALL_BITWISE_TYPES(X) \
    X(short, short)                        \
    X(int, int)                            \
    X(long, long)                          \
    X(longlong, long long)
#define SYMH_SHMEM_TO_ALL_MINMAX_TYPES(X) \
    SYMH_SHMEM_TO_ALL_BITWISE_TYPES(X)    \
    X(float, float)                       \
    X(double, double)                     \
    X(longdouble, long double)
#define SYMH_SHMEM_TO_ALL_COMPLEX_TYPES(X) \
    X(complexd, double _Complex)           \
    X(complexf, float _Complex)

#define SYMH_SHMEM_TO_ALL_DECLARE(NAME, TYPE, OP)                                           \
    SYMH_API void shmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce, \
                                               int PE_start, int logPE_stride, int PE_size, \
                                               TYPE *pWrk, long *pSync);
#define SYMH_SHMEM_TO_ALL_DECLARE_BITWISE(NAME, TYPE) \
    SYMH_SHMEM_TO_ALL_DECLARE(NAME, TYPE, and)        \
    SYMH_SHMEM_TO_ALL_DECLARE(NAME, TYPE, or)         \
    SYMH_SHMEM_TO_ALL_DECLARE(NAME, TYPE, xor)
#define SYMH_SHMEM_TO_ALL_DECLARE_MINMAX(NAME, TYPE) \
    SYMH_SHMEM_TO_ALL_DECLARE(NAME, TYPE, max)       \
    SYMH_SHMEM_TO_ALL_DECLARE(NAME, TYPE, min)       \
    SYMH_SHMEM_TO_ALL_DECLARE(NAME, TYPE, sum)       \
    SYMH_SHMEM_TO_ALL_DECLARE(NAME, TYPE, prod)
#define SYMH_SHMEM_TO_ALL_DECLARE_ARITH(NAME, TYPE) \
    SYMH_SHMEM_TO_ALL_DECLARE(NAME, TYPE, sum)      \
    SYMH_SHMEM_TO_ALL_DECLARE(NAME, TYPE, prod)
SYMH_SHMEM_TO_ALL_BITWISE_TYPES(SYMH_SHMEM_TO_ALL_DECLARE_BITWISE)
SYMH_SHMEM_TO_ALL_MINMAX_TYPES(SYMH_SHMEM_TO_ALL_DECLARE_MINMAX)
#ifndef __cplusplus
SYMH_SHMEM_TO_ALL_COMPLEX_TYPES(SYMH_SHMEM_TO_ALL_DECLARE_ARITH)
#endif
#undef SYMH_SHMEM_TO_ALL_DECLARE_BITWISE
#undef SYMH_SHMEM_TO_ALL_DECLARE_MINMAX
#undef SYMH_SHMEM_TO_ALL_DECLARE_ARITH
#undef SYMH_SHMEM_TO_ALL_DECLARE

SYMH_END_C_DECLS

#endif /* SYMH_SHMEM_COMPAT_H */
