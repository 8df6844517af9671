/* symheap public header: one-sided RMA (put/get, typed, strided, non-blocking), ordering (fence,
 * quiet), atomics, point-to-point synchronization (wait_until/test) and the pointer queries
 * (symh_ptr, symh_addr_accessible, symh_pe_accessible). The typed families are declared from
 * the X-macro type lists below, which users may apply to their own generic code. */
#ifndef SYMHEAP_RMA_H
#define SYMHEAP_RMA_H

#include <stddef.h>
#include <stdint.h>

#include <symheap/ctx.h>
#include <symheap/defs.h>

SYMH_BEGIN_C_DECLS

/* Comparisons of symh_TYPENAME_wait_until and symh_TYPENAME_test (values pinned). */
#define SYMH_CMP_EQ 0
#define SYMH_CMP_NE 1
#define SYMH_CMP_GT 2
#define SYMH_CMP_GE 3
#define SYMH_CMP_LT 4
#define SYMH_CMP_LE 5

/* The OpenSHMEM 1.5 type tables as X-macros: X(TYPENAME, TYPE) once per type (each list names
 * the smaller lists it contains). The _A forms pass one more argument through,
 * X(TYPENAME, TYPE, A), for tables that nest them. */
#define SYMH_TYPE_(NAME, TYPE, X) X(NAME, TYPE)
#define SYMH_RMA_TYPES_A(X, A)    \
    X(float, float, A)            \
    X(double, double, A)          \
    X(longdouble, long double, A) \
    X(char, char, A)              \
    X(schar, signed char, A)      \
    X(uchar, unsigned char, A)    \
    X(int8, int8_t, A)            \
    X(int16, int16_t, A)          \
    X(uint8, uint8_t, A)          \
    X(uint16, uint16_t, A)        \
    SYMH_P2P_TYPES_A(X, A)
#define SYMH_RMA_TYPES(X) SYMH_RMA_TYPES_A(SYMH_TYPE_, X)

/* Bitwise AMO types: fetch_and/or/xor and and/or/xor. */
#define SYMH_AMO_BITWISE_TYPES_A(X, A)  \
    X(uint, unsigned int, A)            \
    X(ulong, unsigned long, A)          \
    X(ulonglong, unsigned long long, A) \
    X(int32, int32_t, A)                \
    X(int64, int64_t, A)                \
    X(uint32, uint32_t, A)              \
    X(uint64, uint64_t, A)
#define SYMH_AMO_BITWISE_TYPES(X) SYMH_AMO_BITWISE_TYPES_A(SYMH_TYPE_, X)

/* Standard AMO types: every atomic operation except the bitwise ones (the bitwise types and
 * these). */
#define SYMH_AMO_STANDARD_TYPES_A(X, A) \
    X(int, int, A)                      \
    X(long, long, A)                    \
    X(longlong, long long, A)           \
    SYMH_AMO_BITWISE_TYPES_A(X, A)      \
    X(size, size_t, A)                  \
    X(ptrdiff, ptrdiff_t, A)
#define SYMH_AMO_STANDARD_TYPES(X) SYMH_AMO_STANDARD_TYPES_A(SYMH_TYPE_, X)

/* Extended AMO types beyond the standard ones: fetch, set and swap only. */
#define SYMH_AMO_EXTENDED_TYPES_A(X, A) \
    X(float, float, A)                  \
    X(double, double, A)
#define SYMH_AMO_EXTENDED_TYPES(X) SYMH_AMO_EXTENDED_TYPES_A(SYMH_TYPE_, X)

/* Point-to-point synchronization types: wait_until and test (the standard AMO types and these). */
#define SYMH_P2P_TYPES_A(X, A)   \
    X(short, short, A)           \
    X(ushort, unsigned short, A) \
    SYMH_AMO_STANDARD_TYPES_A(X, A)
#define SYMH_P2P_TYPES(X) SYMH_P2P_TYPES_A(SYMH_TYPE_, X)

/* The sized RMA forms (symh_put8 .. symh_put128 and the rest): X(BITS) once per element size. */
#define SYMH_RMA_SIZES_A(X, A) \
    X(8, void, A) X(16, void, A) X(32, void, A) X(64, void, A) X(128, void, A)
#define SYMH_RMA_SIZES(X)           SYMH_RMA_SIZES_A(SYMH_SIZE_, X)
#define SYMH_SIZE_(BITS, UNUSED, X) X(BITS)

/* Each family below is declared twice from one X-macro, DECL(P, CP, NAME, TYPE): the plain form
 * (P symh, CP ()) and the context form (P symh_ctx, CP (symh_ctx_t ctx,): the context first;
 * symheap/ctx.h). The point-to-point waits have no context form. */
#define SYMH_UNPAREN_(...) __VA_ARGS__
#define SYMH_CTX_FORMS_(DECL, NAME, TYPE) \
    DECL(symh, (), NAME, TYPE) DECL(symh_ctx, (symh_ctx_t ctx, ), NAME, TYPE)

/* The routine tables: one per family, the one source of its routines. ROUTINES(X, P, CP, CA,
 * NAME, TYPE) is X(P, CP, CA, NAME, TYPE, KIND, OP, R, S, PARAMS, ARGS) once per routine of the
 * family over element type TYPE (TYPENAME NAME): the routine P_NAME_S returns R and takes CP
 * (the context parameter, or nothing) then PARAMS; CA and ARGS name them as arguments (all four
 * in parentheses); KIND and OP say what it does (the atomics: for the library's definitions,
 * src/transport/tl_amo.c; the others: VALUE when it returns one, else VOID). symheap's
 * declarations below and <shmem.h>'s OpenSHMEM names (shmem_, pshmem_, C++ overloads) are
 * expanded from the same tables. SYMH_TABLE_FORMS_(NAME, TYPE, (X, PFX, CTX_T, ROUTINES)) expands
 * a table in both forms, prefix PFX (symh: symh_TYPENAME_S, and symh_ctx_TYPENAME_S with the
 * context of type CTX_T first); SYMH_TABLE_PLAIN_ in the plain form only. */
#define SYMH_TABLE_FORMS_(NAME, TYPE, A) SYMH_TABLE_FORMS_I_(NAME, TYPE, SYMH_UNPAREN_ A)
#define SYMH_TABLE_FORMS_I_(...)         SYMH_TABLE_FORMS_II_(__VA_ARGS__)
#define SYMH_TABLE_FORMS_II_(NAME, TYPE, X, PFX, CTX_T, ROUTINES) \
    ROUTINES(X, PFX, (), (), NAME, TYPE)                          \
    ROUTINES(X, PFX##_ctx, (CTX_T ctx, ), (ctx, ), NAME, TYPE)
#define SYMH_TABLE_PLAIN_(NAME, TYPE, A) SYMH_TABLE_PLAIN_I_(NAME, TYPE, SYMH_UNPAREN_ A)
#define SYMH_TABLE_PLAIN_I_(...)         SYMH_TABLE_PLAIN_II_(__VA_ARGS__)
#define SYMH_TABLE_PLAIN_II_(NAME, TYPE, X, PFX, CTX_T, ROUTINES) \
    ROUTINES(X, PFX, (), (), NAME, TYPE)
/* The declaration of one routine of a table. */
#define SYMH_ROUTINE_DECLARE_(P, CP, CA, NAME, TYPE, KIND, OP, R, S, PARAMS, ARGS) \
    SYMH_API R P##_##NAME##S(SYMH_UNPAREN_ CP SYMH_UNPAREN_ PARAMS);

/* ---- RMA ---------------------------------------------------------------------------------
 * `dest` (put) and `source` (get) are symmetric addresses; the other side is any local memory.
 * A misuse (PE out of range, an address outside the symmetric heap, a range running past its
 * end, a typed address not aligned for its type, a PE with no route) logs one line, performs
 * nothing and sets symh_last_error(). Zero-length calls are no-ops, even with NULL pointers. */
#define SYMH_RMA_MOVES_(X, P, CP, CA, NAME, TYPE, PUT, GET)                                 \
    X(P, CP, CA, NAME, TYPE, VOID, put, void, PUT,                                          \
      (TYPE * dest, const TYPE *source, size_t nelems, int pe), (dest, source, nelems, pe)) \
    X(P, CP, CA, NAME, TYPE, VOID, get, void, GET,                                          \
      (TYPE * dest, const TYPE *source, size_t nelems, int pe), (dest, source, nelems, pe)) \
    X(P, CP, CA, NAME, TYPE, VOID, put, void, PUT##_nbi,                                    \
      (TYPE * dest, const TYPE *source, size_t nelems, int pe), (dest, source, nelems, pe)) \
    X(P, CP, CA, NAME, TYPE, VOID, get, void, GET##_nbi,                                    \
      (TYPE * dest, const TYPE *source, size_t nelems, int pe), (dest, source, nelems, pe))
/* Strides of iput/iget count elements and must be positive. */
#define SYMH_RMA_STRIDED_(X, P, CP, CA, NAME, TYPE, IPUT, IGET)                               \
    X(P, CP, CA, NAME, TYPE, VOID, iput, void, IPUT,                                          \
      (TYPE * dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
      (dest, source, dst, sst, nelems, pe))                                                   \
    X(P, CP, CA, NAME, TYPE, VOID, iget, void, IGET,                                          \
      (TYPE * dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
      (dest, source, dst, sst, nelems, pe))
/* The typed routines, over SYMH_RMA_TYPES. */
#define SYMH_RMA_ROUTINES(X, P, CP, CA, NAME, TYPE)                                          \
    SYMH_RMA_MOVES_(X, P, CP, CA, NAME, TYPE, _put, _get)                                    \
    X(P, CP, CA, NAME, TYPE, VOID, p, void, _p, (TYPE * dest, TYPE value, int pe),           \
      (dest, value, pe))                                                                     \
    X(P, CP, CA, NAME, TYPE, VALUE, g, TYPE, _g, (const TYPE *source, int pe), (source, pe)) \
    SYMH_RMA_STRIDED_(X, P, CP, CA, NAME, TYPE, _iput, _iget)
/* putmem, getmem and their _nbi forms (no TYPENAME). */
#define SYMH_RMA_MEM_ROUTINES(X, P, CP, CA, NAME, TYPE) \
    SYMH_RMA_MOVES_(X, P, CP, CA, , void, putmem, getmem)
/* The sized forms (NAME the size in bits) move nelems elements of BITS / 8 bytes, with no
 * alignment required. */
#define SYMH_RMA_SIZED_ROUTINES(X, P, CP, CA, NAME, TYPE)       \
    SYMH_RMA_MOVES_(X, P, CP, CA, , void, put##NAME, get##NAME) \
    SYMH_RMA_STRIDED_(X, P, CP, CA, , void, iput##NAME, iget##NAME)
/* X once per RMA routine: the typed, mem and sized forms. */
#define SYMH_RMA_FOR_EACH(X, PFX, CTX_T)                                    \
    SYMH_TABLE_FORMS_(, void, (X, PFX, CTX_T, SYMH_RMA_MEM_ROUTINES))       \
    SYMH_RMA_TYPES_A(SYMH_TABLE_FORMS_, (X, PFX, CTX_T, SYMH_RMA_ROUTINES)) \
    SYMH_RMA_SIZES_A(SYMH_TABLE_FORMS_, (X, PFX, CTX_T, SYMH_RMA_SIZED_ROUTINES))
SYMH_RMA_FOR_EACH(SYMH_ROUTINE_DECLARE_, symh, symh_ctx_t)

/* Orders this PE's puts and AMOs to each PE (fence) or completes all of them (quiet). */
SYMH_API void symh_fence(void);
SYMH_API void symh_quiet(void);

/* ---- atomics ------------------------------------------------------------------------------
 * The tables of the three families (see "The routine tables" above), also the source of the
 * library's definitions and of their shmem_/pshmem_ aliases (src/transport/tl_amo.c). A failed
 * atomic returns 0 (and sets symh_last_error()).
 * The non-blocking fetching atomics (_nbi): the old value lands in the local `fetch` (any memory)
 * by the next symh_quiet. symheap completes them in the call, so `fetch` holds it on return
 * already (docs/rma.md "Non-blocking atomics"); a failed one writes nothing to `fetch`. */
#define SYMH_AMO_FETCH_SET_SWAP_ROUTINES(X, P, CP, CA, NAME, TYPE)                              \
    X(P, CP, CA, NAME, TYPE, FETCH, fetch, TYPE, _atomic_fetch, (const TYPE *source, int pe),   \
      (source, pe))                                                                             \
    X(P, CP, CA, NAME, TYPE, SET, set, void, _atomic_set, (TYPE * dest, TYPE value, int pe),    \
      (dest, value, pe))                                                                        \
    X(P, CP, CA, NAME, TYPE, SWAP, swap, TYPE, _atomic_swap, (TYPE * dest, TYPE value, int pe), \
      (dest, value, pe))                                                                        \
    X(P, CP, CA, NAME, TYPE, FETCH_NBI, fetch, void, _atomic_fetch_nbi,                         \
      (TYPE * fetch, const TYPE *source, int pe), (fetch, source, pe))                          \
    X(P, CP, CA, NAME, TYPE, SWAP_NBI, swap, void, _atomic_swap_nbi,                            \
      (TYPE * fetch, TYPE * dest, TYPE value, int pe), (fetch, dest, value, pe))
#define SYMH_AMO_STANDARD_ROUTINES(X, P, CP, CA, NAME, TYPE)                                      \
    SYMH_AMO_FETCH_SET_SWAP_ROUTINES(X, P, CP, CA, NAME, TYPE)                                    \
    X(P, CP, CA, NAME, TYPE, CSWAP, cswap, TYPE, _atomic_compare_swap,                            \
      (TYPE * dest, TYPE cond, TYPE value, int pe), (dest, cond, value, pe))                      \
    X(P, CP, CA, NAME, TYPE, FINC, add, TYPE, _atomic_fetch_inc, (TYPE * dest, int pe),           \
      (dest, pe))                                                                                 \
    X(P, CP, CA, NAME, TYPE, INC, add, void, _atomic_inc, (TYPE * dest, int pe), (dest, pe))      \
    X(P, CP, CA, NAME, TYPE, FETCH_RMW, add, TYPE, _atomic_fetch_add,                             \
      (TYPE * dest, TYPE value, int pe), (dest, value, pe))                                       \
    X(P, CP, CA, NAME, TYPE, RMW, add, void, _atomic_add, (TYPE * dest, TYPE value, int pe),      \
      (dest, value, pe))                                                                          \
    X(P, CP, CA, NAME, TYPE, CSWAP_NBI, cswap, void, _atomic_compare_swap_nbi,                    \
      (TYPE * fetch, TYPE * dest, TYPE cond, TYPE value, int pe), (fetch, dest, cond, value, pe)) \
    X(P, CP, CA, NAME, TYPE, FINC_NBI, add, void, _atomic_fetch_inc_nbi,                          \
      (TYPE * fetch, TYPE * dest, int pe), (fetch, dest, pe))                                     \
    X(P, CP, CA, NAME, TYPE, FETCH_RMW_NBI, add, void, _atomic_fetch_add_nbi,                     \
      (TYPE * fetch, TYPE * dest, TYPE value, int pe), (fetch, dest, value, pe))
#define SYMH_AMO_BITWISE_ROUTINE_(X, P, CP, CA, NAME, TYPE, OP)                              \
    X(P, CP, CA, NAME, TYPE, FETCH_RMW, OP, TYPE, _atomic_fetch_##OP,                        \
      (TYPE * dest, TYPE value, int pe), (dest, value, pe))                                  \
    X(P, CP, CA, NAME, TYPE, RMW, OP, void, _atomic_##OP, (TYPE * dest, TYPE value, int pe), \
      (dest, value, pe))                                                                     \
    X(P, CP, CA, NAME, TYPE, FETCH_RMW_NBI, OP, void, _atomic_fetch_##OP##_nbi,              \
      (TYPE * fetch, TYPE * dest, TYPE value, int pe), (fetch, dest, value, pe))
#define SYMH_AMO_BITWISE_ROUTINES(X, P, CP, CA, NAME, TYPE)  \
    SYMH_AMO_BITWISE_ROUTINE_(X, P, CP, CA, NAME, TYPE, and) \
    SYMH_AMO_BITWISE_ROUTINE_(X, P, CP, CA, NAME, TYPE, or)  \
    SYMH_AMO_BITWISE_ROUTINE_(X, P, CP, CA, NAME, TYPE, xor)

/* X once per atomic routine of OpenSHMEM 1.5: each table over its types, in both forms. */
#define SYMH_AMO_FOR_EACH(X, PFX, CTX_T)                                                      \
    SYMH_AMO_STANDARD_TYPES_A(SYMH_TABLE_FORMS_, (X, PFX, CTX_T, SYMH_AMO_STANDARD_ROUTINES)) \
    SYMH_AMO_EXTENDED_TYPES_A(SYMH_TABLE_FORMS_,                                              \
                              (X, PFX, CTX_T, SYMH_AMO_FETCH_SET_SWAP_ROUTINES))              \
    SYMH_AMO_BITWISE_TYPES_A(SYMH_TABLE_FORMS_, (X, PFX, CTX_T, SYMH_AMO_BITWISE_ROUTINES))
SYMH_AMO_FOR_EACH(SYMH_ROUTINE_DECLARE_, symh, symh_ctx_t)

/* For the library's definitions of the tables' routines (src/transport/tl_amo.c,
 * src/collectives/coll_ops.c): OpenSHMEM's names of symh_N (N given without the prefix), weak
 * shmem_N over strong pshmem_N (OpenSHMEM 1.5's profiling interface), as aliases of the same
 * code, so an OpenSHMEM call costs what the symh_ one does. <shmem.h> declares them. */
#define SYMH_SHMEM_ALIASES_symh(N)                                                      \
    extern SYMH_API __typeof__(symh_##N) pshmem_##N __attribute__((alias("symh_" #N))); \
    extern SYMH_API __typeof__(symh_##N) shmem_##N __attribute__((weak, alias("symh_" #N)));
#define SYMH_SHMEM_ALIASES_symh_ctx(N) SYMH_SHMEM_ALIASES_symh(ctx_##N)

/* ---- point-to-point synchronization ---------------------------------------------------------
 * `ivar` is a symmetric address on this PE. wait_until spins briefly, then yields the core.
 * test returns 1 when the comparison holds, else 0 (also on misuse). */
/* The array forms over `nelems` symmetric variables ivars[0 .. nelems - 1] of this PE. `status`
 * (local, may be NULL) excludes element i where status[i] is nonzero. The _vector forms compare
 * ivars[i] with cmp_values[i] (local). `indices` (local) has room for nelems entries.
 * wait_until_all: until every included element compares true (at once if none is included).
 * wait_until_any: until one does; returns its index, or SIZE_MAX when none is included.
 * wait_until_some: until at least one does; writes the indices of all that do, in ascending
 *   order, and returns their count (0 when none is included).
 * test_all: 1 when every included element compares true, else 0; test_any: the index of one
 *   that does, or SIZE_MAX; test_some: as wait_until_some without waiting (0 when none does).
 * A misuse logs one line and returns as from no match (0, SIZE_MAX, 0; wait_until_all returns). */
#define SYMH_P2P_ARRAYS_(X, P, CP, CA, NAME, TYPE, SUF, CMP_PARAM, CMP_ARG)                   \
    X(P, CP, CA, NAME, TYPE, VOID, , void, _wait_until_all##SUF,                              \
      (TYPE * ivars, size_t nelems, const int *status, int cmp, CMP_PARAM),                   \
      (ivars, nelems, status, cmp, CMP_ARG))                                                  \
    X(P, CP, CA, NAME, TYPE, VALUE, , size_t, _wait_until_any##SUF,                           \
      (TYPE * ivars, size_t nelems, const int *status, int cmp, CMP_PARAM),                   \
      (ivars, nelems, status, cmp, CMP_ARG))                                                  \
    X(P, CP, CA, NAME, TYPE, VALUE, , size_t, _wait_until_some##SUF,                          \
      (TYPE * ivars, size_t nelems, size_t * indices, const int *status, int cmp, CMP_PARAM), \
      (ivars, nelems, indices, status, cmp, CMP_ARG))                                         \
    X(P, CP, CA, NAME, TYPE, VALUE, , int, _test_all##SUF,                                    \
      (TYPE * ivars, size_t nelems, const int *status, int cmp, CMP_PARAM),                   \
      (ivars, nelems, status, cmp, CMP_ARG))                                                  \
    X(P, CP, CA, NAME, TYPE, VALUE, , size_t, _test_any##SUF,                                 \
      (TYPE * ivars, size_t nelems, const int *status, int cmp, CMP_PARAM),                   \
      (ivars, nelems, status, cmp, CMP_ARG))                                                  \
    X(P, CP, CA, NAME, TYPE, VALUE, , size_t, _test_some##SUF,                                \
      (TYPE * ivars, size_t nelems, size_t * indices, const int *status, int cmp, CMP_PARAM), \
      (ivars, nelems, indices, status, cmp, CMP_ARG))
#define SYMH_P2P_ROUTINES(X, P, CP, CA, NAME, TYPE)                                             \
    X(P, CP, CA, NAME, TYPE, VOID, , void, _wait_until, (TYPE * ivar, int cmp, TYPE cmp_value), \
      (ivar, cmp, cmp_value))                                                                   \
    X(P, CP, CA, NAME, TYPE, VALUE, , int, _test, (TYPE * ivar, int cmp, TYPE cmp_value),       \
      (ivar, cmp, cmp_value))                                                                   \
    SYMH_P2P_ARRAYS_(X, P, CP, CA, NAME, TYPE, , TYPE cmp_value, cmp_value)                     \
    SYMH_P2P_ARRAYS_(X, P, CP, CA, NAME, TYPE, _vector, TYPE *cmp_values, cmp_values)
/* X once per point-to-point routine (no context form). */
#define SYMH_P2P_FOR_EACH(X, PFX) \
    SYMH_P2P_TYPES_A(SYMH_TABLE_PLAIN_, (X, PFX, ~, SYMH_P2P_ROUTINES))
SYMH_P2P_FOR_EACH(SYMH_ROUTINE_DECLARE_, symh)

/* ---- pointer queries ---------------------------------------------------------------------- */
/* 1 when `pe` can be reached by RMA from this PE (always for this PE itself), else 0. */
SYMH_API int symh_pe_accessible(int pe);
/* 1 when `addr` is a symmetric address and `pe` is accessible, else 0. */
SYMH_API int symh_addr_accessible(const void *addr, int pe);
/* The load/store address of symmetric `dest` on `pe`, or NULL when `pe` is not reachable by
 * load/store (symh_last_error() SYMH_ERR_UNSUPPORTED, nothing logged) or the arguments are
 * invalid (logged). */
SYMH_API void *symh_ptr(const void *dest, int pe);

SYMH_END_C_DECLS

#endif /* SYMHEAP_RMA_H */
