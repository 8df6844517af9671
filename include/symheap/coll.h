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

/* The typed routines: a routine table (<symheap/rma.h> "The routine tables"; KIND for the
 * library's definitions, src/collectives/coll_ops.c) over SYMH_RMA_TYPES, plain form only. */
#define SYMH_COLL_ROUTINE_(X, P, CP, CA, NAME, TYPE, KIND, S)             \
    X(P, CP, CA, NAME, TYPE, KIND, , int, S,                              \
      (symh_team_t team, TYPE * dest, const TYPE *source, size_t nelems), \
      (team, dest, source, nelems))
#define SYMH_COLL_ROUTINES(X, P, CP, CA, NAME, TYPE)                                    \
    X(P, CP, CA, NAME, TYPE, BROADCAST, , int, _broadcast,                              \
      (symh_team_t team, TYPE * dest, const TYPE *source, size_t nelems, int PE_root),  \
      (team, dest, source, nelems, PE_root))                                            \
    SYMH_COLL_ROUTINE_(X, P, CP, CA, NAME, TYPE, COLLECT, _collect)                     \
    SYMH_COLL_ROUTINE_(X, P, CP, CA, NAME, TYPE, FCOLLECT, _fcollect)                   \
    SYMH_COLL_ROUTINE_(X, P, CP, CA, NAME, TYPE, ALLTOALL, _alltoall)                   \
    X(P, CP, CA, NAME, TYPE, ALLTOALLS, , int, _alltoalls,                              \
      (symh_team_t team, TYPE * dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, \
       size_t nelems),                                                                  \
      (team, dest, source, dst, sst, nelems))
#define SYMH_COLL_FOR_EACH(X, PFX) \
    SYMH_RMA_TYPES_A(SYMH_TABLE_PLAIN_, (X, PFX, ~, SYMH_COLL_ROUTINES))
SYMH_COLL_FOR_EACH(SYMH_ROUTINE_DECLARE_, symh)

/* ---- reductions ------------------------------------------------------------------------------
 * symh_TYPENAME_OP_reduce: dest[k] = source[k] of team PE 0 OP ... OP source[k] of the last PE,
 * for k < nreduce, on every member; every member gets the same bits (one order of combining for
 * all: team order, or node by node on a team across nodes).
 * dest and source may be the same object (in place) but must not overlap otherwise. The types of
 * each operation are OpenSHMEM 1.5's (the lists below). */

/* and, or, xor */
#define SYMH_REDUCE_BITWISE_TYPES_A(X, A) \
    X(uchar, unsigned char, A)            \
    X(ushort, unsigned short, A)          \
    X(int8, int8_t, A)                    \
    X(int16, int16_t, A)                  \
    X(uint8, uint8_t, A)                  \
    X(uint16, uint16_t, A)                \
    SYMH_AMO_BITWISE_TYPES_A(X, A)        \
    X(size, size_t, A)
#define SYMH_REDUCE_BITWISE_TYPES(X) SYMH_REDUCE_BITWISE_TYPES_A(SYMH_TYPE_, X)

/* max, min; and sum, prod (which add the complex types below in C): the standard RMA types */
#define SYMH_REDUCE_MINMAX_TYPES_A(X, A) SYMH_RMA_TYPES_A(X, A)
#define SYMH_REDUCE_MINMAX_TYPES(X)      SYMH_REDUCE_MINMAX_TYPES_A(SYMH_TYPE_, X)

/* sum and prod only. */
#define SYMH_REDUCE_COMPLEX_TYPES_A(X, A) \
    X(complexd, SYMH_COMPLEXD, A)         \
    X(complexf, SYMH_COMPLEXF, A)
#define SYMH_REDUCE_COMPLEX_TYPES(X) SYMH_REDUCE_COMPLEX_TYPES_A(SYMH_TYPE_, X)

/* The operations of each type list: X(OP) */
#define SYMH_REDUCE_BITWISE_OPS(X) X(and) X(or) X(xor)
#define SYMH_REDUCE_MINMAX_OPS(X)  X(max) X(min)
#define SYMH_REDUCE_ARITH_OPS(X)   X(sum) X(prod)

/* Each operation as a C expression. */
#define SYMH_REDUCE_OP_and(a, b)  ((a) & (b))
#define SYMH_REDUCE_OP_or(a, b)   ((a) | (b))
#define SYMH_REDUCE_OP_xor(a, b)  ((a) ^ (b))
#define SYMH_REDUCE_OP_max(a, b)  ((a) > (b) ? (a) : (b))
#define SYMH_REDUCE_OP_min(a, b)  ((a) < (b) ? (a) : (b))
#define SYMH_REDUCE_OP_sum(a, b)  ((a) + (b))
#define SYMH_REDUCE_OP_prod(a, b) ((a) * (b))

/* The one table of the reductions: X(NAME, TYPE, OP) once per operation of each type, for the
 * type lists given (symheap's: SYMH_REDUCE_FOR_EACH; <shmem.h>'s deprecated _to_all routines
 * take fewer types). symheap's declarations below, the library's definitions
 * (src/collectives/coll_ops.c, src/shmem/shmem_reduce.c) and <shmem.h>'s are expanded from it. */
#define SYMH_REDUCE_TABLE(X, BITWISE_TYPES_A, MINMAX_TYPES_A, COMPLEX_TYPES_A) \
    BITWISE_TYPES_A(SYMH_REDUCE_EACH_BITWISE_, X)                              \
    MINMAX_TYPES_A(SYMH_REDUCE_EACH_MINMAX_, X)                                \
    COMPLEX_TYPES_A(SYMH_REDUCE_EACH_ARITH_, X)
#define SYMH_REDUCE_EACH_BITWISE_(NAME, TYPE, X) \
    X(NAME, TYPE, and) X(NAME, TYPE, or) X(NAME, TYPE, xor)
#define SYMH_REDUCE_EACH_ARITH_(NAME, TYPE, X) X(NAME, TYPE, sum) X(NAME, TYPE, prod)
#define SYMH_REDUCE_EACH_MINMAX_(NAME, TYPE, X) \
    X(NAME, TYPE, max) X(NAME, TYPE, min) SYMH_REDUCE_EACH_ARITH_(NAME, TYPE, X)
#define SYMH_REDUCE_FOR_EACH(X)                                                   \
    SYMH_REDUCE_TABLE(X, SYMH_REDUCE_BITWISE_TYPES_A, SYMH_REDUCE_MINMAX_TYPES_A, \
                      SYMH_REDUCE_COMPLEX_TYPES_A)

#define SYMH_REDUCE_DECLARE_OP(NAME, TYPE, OP)                                                 \
    SYMH_API int symh_##NAME##_##OP##_reduce(symh_team_t team, TYPE *dest, const TYPE *source, \
                                             size_t nreduce);
SYMH_REDUCE_FOR_EACH(SYMH_REDUCE_DECLARE_OP)
#undef SYMH_REDUCE_DECLARE_OP

SYMH_END_C_DECLS

#endif /* SYMHEAP_COLL_H */
