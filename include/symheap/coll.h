/* symheap public header: the collective routines over teams (OpenSHMEM 1.5 "Collective Routines"
 * under the symh_ prefix; docs/collectives.md). Every routine is collective over `team`: each
 * member calls it with the same team, sizes, root and operation; `dest` and `source` are
 * symmetric. They return SYMH_OK or a negative status (OpenSHMEM: zero on success). A count of
 * zero moves nothing and returns SYMH_OK. With SYMH_CHECK_COLLECTIVES=1 the members first agree
 * on the arguments: a mismatch returns SYMH_ERR_MISMATCH on every member, with one line naming the
 * argument and the PEs. */
#ifndef SYMHEAP_COLL_H
#define SYMHEAP_COLL_H

#include <stddef.h>
#include <stdint.h>

#include <symheap/defs.h>
#include <symheap/rma.h>
#include <symheap/team.h>

/* The complex types of the sum and prod reductions: C's _Complex, and in C++ (which has no
 * _Complex) std::complex, which the C++ standard lays out as an array of two, real part first,
 * as C lays out _Complex: the same routines take either. */
#ifdef __cplusplus
#include <complex>
#define SYMH_COMPLEXD std::complex<double>
#define SYMH_COMPLEXF std::complex<float>
#else
#define SYMH_COMPLEXD double _Complex
#define SYMH_COMPLEXF float _Complex
#endif

SYMH_BEGIN_C_DECLS

/* ---- broadcast, collect, fcollect, alltoall, alltoalls (the standard RMA types) -------------
 * broadcast: `nelems` elements of `source` on team PE PE_root to `dest` on every member, the root
 *   included (source and dest may be the same object on the root).
 * collect: each member's `nelems` (which may differ) concatenated in team order into every dest.
 * fcollect: the same with one `nelems` for all.
 * alltoall: block j of `nelems` elements of PE i's source goes to block i of PE j's dest.
 * alltoalls: the same with element strides: source[sst * (j * nelems + k)] of PE i goes to
 *   dest[dst * (i * nelems + k)] of PE j (dst, sst >= 1).
 * Except where said, source and dest must not overlap. The *mem forms count bytes. */
SYMH_API int symh_broadcastmem(symh_team_t team, void *dest, const void *source, size_t nelems,
                               int PE_root);
SYMH_API int symh_collectmem(symh_team_t team, void *dest, const void *source, size_t nelems);
SYMH_API int symh_fcollectmem(symh_team_t team, void *dest, const void *source, size_t nelems);
SYMH_API int symh_alltoallmem(symh_team_t team, void *dest, const void *source, size_t nelems);
SYMH_API int symh_alltoallsmem(symh_team_t team, void *dest, const void *source, ptrdiff_t dst,
                               ptrdiff_t sst, size_t nelems);

#define SYMH_COLL_DECLARE(NAME, TYPE)                                                      \
    SYMH_API int symh_##NAME##_broadcast(symh_team_t team, TYPE *dest, const TYPE *source, \
                                         size_t nelems, int PE_root);                      \
    SYMH_API int symh_##NAME##_collect(symh_team_t team, TYPE *dest, const TYPE *source,   \
                                       size_t nelems);                                     \
    SYMH_API int symh_##NAME##_fcollect(symh_team_t team, TYPE *dest, const TYPE *source,  \
                                        size_t nelems);                                    \
    SYMH_API int symh_##NAME##_alltoall(symh_team_t team, TYPE *dest, const TYPE *source,  \
                                        size_t nelems);                                    \
    SYMH_API int symh_##NAME##_alltoalls(symh_team_t team, TYPE *dest, const TYPE *source, \
                                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
SYMH_RMA_TYPES(SYMH_COLL_DECLARE)
#undef SYMH_COLL_DECLARE

/* ---- reductions ------------------------------------------------------------------------------
 * symh_TYPENAME_OP_reduce: dest[k] = source[k] of team PE 0 OP ... OP source[k] of the last PE,
 * for k < nreduce, on every member; every member gets the same bits (one order of combining for
 * all: team order, or node by node on a team across nodes).
 * dest and source may be the same object (in place) but must not overlap otherwise. The types of
 * each operation are OpenSHMEM 1.5's (the lists below). */

/* and, or, xor */
#define SYMH_REDUCE_BITWISE_TYPES(X) \
    X(uchar, unsigned char)          \
    X(ushort, unsigned short)        \
    X(uint, unsigned int)            \
    X(ulong, unsigned long)          \
    X(ulonglong, unsigned long long) \
    X(int8, int8_t)                  \
    X(int16, int16_t)                \
    X(int32, int32_t)                \
    X(int64, int64_t)                \
    X(uint8, uint8_t)                \
    X(uint16, uint16_t)              \
    X(uint32, uint32_t)              \
    X(uint64, uint64_t)              \
    X(size, size_t)

/* max, min; and sum, prod (which add the complex types below in C) */
#define SYMH_REDUCE_MINMAX_TYPES(X)  \
    X(char, char)                    \
    X(schar, signed char)            \
    X(short, short)                  \
    X(int, int)                      \
    X(long, long)                    \
    X(longlong, long long)           \
    X(ptrdiff, ptrdiff_t)            \
    X(uchar, unsigned char)          \
    X(ushort, unsigned short)        \
    X(uint, unsigned int)            \
    X(ulong, unsigned long)          \
    X(ulonglong, unsigned long long) \
    X(int8, int8_t)                  \
    X(int16, int16_t)                \
    X(int32, int32_t)                \
    X(int64, int64_t)                \
    X(uint8, uint8_t)                \
    X(uint16, uint16_t)              \
    X(uint32, uint32_t)              \
    X(uint64, uint64_t)              \
    X(size, size_t)                  \
    X(float, float)                  \
    X(double, double)                \
    X(longdouble, long double)

/* sum and prod only. */
#define SYMH_REDUCE_COMPLEX_TYPES(X) \
    X(complexd, SYMH_COMPLEXD)       \
    X(complexf, SYMH_COMPLEXF)

/* The operations of each type list: X(OP) */
#define SYMH_REDUCE_BITWISE_OPS(X) X(and) X(or) X(xor)
#define SYMH_REDUCE_MINMAX_OPS(X)  X(max) X(min)
#define SYMH_REDUCE_ARITH_OPS(X)   X(sum) X(prod)

#define SYMH_REDUCE_DECLARE_OP(NAME, TYPE, OP)                                                 \
    SYMH_API int symh_##NAME##_##OP##_reduce(symh_team_t team, TYPE *dest, const TYPE *source, \
                                             size_t nreduce);
#define SYMH_REDUCE_DECLARE_BITWISE(NAME, TYPE) \
    SYMH_REDUCE_DECLARE_OP(NAME, TYPE, and)     \
    SYMH_REDUCE_DECLARE_OP(NAME, TYPE, or)      \
    SYMH_REDUCE_DECLARE_OP(NAME, TYPE, xor)
#define SYMH_REDUCE_DECLARE_MINMAX(NAME, TYPE) \
    SYMH_REDUCE_DECLARE_OP(NAME, TYPE, max)    \
    SYMH_REDUCE_DECLARE_OP(NAME, TYPE, min)    \
    SYMH_REDUCE_DECLARE_OP(NAME, TYPE, sum)    \
    SYMH_REDUCE_DECLARE_OP(NAME, TYPE, prod)
#define SYMH_REDUCE_DECLARE_ARITH(NAME, TYPE) \
    SYMH_REDUCE_DECLARE_OP(NAME, TYPE, sum)   \
    SYMH_REDUCE_DECLARE_OP(NAME, TYPE, prod)
SYMH_REDUCE_BITWISE_TYPES(SYMH_REDUCE_DECLARE_BITWISE)
SYMH_REDUCE_MINMAX_TYPES(SYMH_REDUCE_DECLARE_MINMAX)
SYMH_REDUCE_COMPLEX_TYPES(SYMH_REDUCE_DECLARE_ARITH)
#undef SYMH_REDUCE_DECLARE_BITWISE
#undef SYMH_REDUCE_DECLARE_MINMAX
#undef SYMH_REDUCE_DECLARE_ARITH
#undef SYMH_REDUCE_DECLARE_OP

SYMH_END_C_DECLS

#endif /* SYMHEAP_COLL_H */
