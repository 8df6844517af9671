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

/* The OpenSHMEM 1.5 type tables as X-macros: X(TYPENAME, TYPE) once per type. The _A forms
 * pass one more argument through, X(TYPENAME, TYPE, A), for tables that nest them. */
#define SYMH_TYPE_(NAME, TYPE, X) X(NAME, TYPE)
#define SYMH_RMA_TYPES(X)            \
    X(float, float)                  \
    X(double, double)                \
    X(longdouble, long double)       \
    X(char, char)                    \
    X(schar, signed char)            \
    X(short, short)                  \
    X(int, int)                      \
    X(long, long)                    \
    X(longlong, long long)           \
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
    X(ptrdiff, ptrdiff_t)

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

/* Point-to-point synchronization types: wait_until and test. */
#define SYMH_P2P_TYPES(X)            \
    X(short, short)                  \
    X(int, int)                      \
    X(long, long)                    \
    X(longlong, long long)           \
    X(ushort, unsigned short)        \
    X(uint, unsigned int)            \
    X(ulong, unsigned long)          \
    X(ulonglong, unsigned long long) \
    X(int32, int32_t)                \
    X(int64, int64_t)                \
    X(uint32, uint32_t)              \
    X(uint64, uint64_t)              \
    X(size, size_t)                  \
    X(ptrdiff, ptrdiff_t)

/* The sized RMA forms (symh_put8 .. symh_put128 and the rest): X(BITS) once per element size. */
#define SYMH_RMA_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* Each family below is declared twice from one X-macro, DECL(P, CP, NAME, TYPE): the plain form
 * (P symh, CP ()) and the context form (P symh_ctx, CP (symh_ctx_t ctx,): the context first;
 * symheap/ctx.h). The point-to-point waits have no context form. */
#define SYMH_UNPAREN_(...) __VA_ARGS__
#define SYMH_CTX_FORMS_(DECL, NAME, TYPE) \
    DECL(symh, (), NAME, TYPE) DECL(symh_ctx, (symh_ctx_t ctx, ), NAME, TYPE)

/* ---- RMA ---------------------------------------------------------------------------------
 * `dest` (put) and `source` (get) are symmetric addresses; the other side is any local memory.
 * A misuse (PE out of range, an address outside the symmetric heap, a range running past its
 * end, a typed address not aligned for its type, a PE with no route) logs one line, performs
 * nothing and sets symh_last_error(). Zero-length calls are no-ops, even with NULL pointers. */
#define SYMH_RMA_MEM_DECLARE(P, CP, NAME, TYPE)                                                  \
    SYMH_API void P##_putmem(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems,     \
                             int pe);                                                            \
    SYMH_API void P##_getmem(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems,     \
                             int pe);                                                            \
    SYMH_API void P##_putmem_nbi(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems, \
                                 int pe);                                                        \
    SYMH_API void P##_getmem_nbi(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems, \
                                 int pe);
SYMH_CTX_FORMS_(SYMH_RMA_MEM_DECLARE, mem, void)
#undef SYMH_RMA_MEM_DECLARE

/* Strides of iput/iget count elements and must be positive. */
#define SYMH_RMA_DECLARE(P, CP, NAME, TYPE)                                                        \
    SYMH_API void P##_##NAME##_put(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source, size_t nelems, \
                                   int pe);                                                        \
    SYMH_API void P##_##NAME##_get(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source, size_t nelems, \
                                   int pe);                                                        \
    SYMH_API void P##_##NAME##_put_nbi(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source,            \
                                       size_t nelems, int pe);                                     \
    SYMH_API void P##_##NAME##_get_nbi(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source,            \
                                       size_t nelems, int pe);                                     \
    SYMH_API void P##_##NAME##_p(SYMH_UNPAREN_ CP TYPE *dest, TYPE value, int pe);                 \
    SYMH_API TYPE P##_##NAME##_g(SYMH_UNPAREN_ CP const TYPE *source, int pe);                     \
    SYMH_API void P##_##NAME##_iput(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source,               \
                                    ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);          \
    SYMH_API void P##_##NAME##_iget(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source,               \
                                    ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
#define SYMH_RMA_DECLARE_FORMS(NAME, TYPE) SYMH_CTX_FORMS_(SYMH_RMA_DECLARE, NAME, TYPE)
SYMH_RMA_TYPES(SYMH_RMA_DECLARE_FORMS)
#undef SYMH_RMA_DECLARE_FORMS
#undef SYMH_RMA_DECLARE

/* The sized forms move nelems elements of BITS / 8 bytes, with no alignment required. */
#define SYMH_RMA_SIZED_DECLARE(P, CP, BITS, UNUSED)                                              \
    SYMH_API void P##_put##BITS(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems,  \
                                int pe);                                                         \
    SYMH_API void P##_get##BITS(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems,  \
                                int pe);                                                         \
    SYMH_API void P##_put##BITS##_nbi(SYMH_UNPAREN_ CP void *dest, const void *source,           \
                                      size_t nelems, int pe);                                    \
    SYMH_API void P##_get##BITS##_nbi(SYMH_UNPAREN_ CP void *dest, const void *source,           \
                                      size_t nelems, int pe);                                    \
    SYMH_API void P##_iput##BITS(SYMH_UNPAREN_ CP void *dest, const void *source, ptrdiff_t dst, \
                                 ptrdiff_t sst, size_t nelems, int pe);                          \
    SYMH_API void P##_iget##BITS(SYMH_UNPAREN_ CP void *dest, const void *source, ptrdiff_t dst, \
                                 ptrdiff_t sst, size_t nelems, int pe);
#define SYMH_RMA_SIZED_DECLARE_FORMS(BITS) SYMH_CTX_FORMS_(SYMH_RMA_SIZED_DECLARE, BITS, void)
SYMH_RMA_SIZES(SYMH_RMA_SIZED_DECLARE_FORMS)
#undef SYMH_RMA_SIZED_DECLARE_FORMS
#undef SYMH_RMA_SIZED_DECLARE

/* Orders this PE's puts and AMOs to each PE (fence) or completes all of them (quiet). */
SYMH_API void symh_fence(void);
SYMH_API void symh_quiet(void);

/* ---- atomics ------------------------------------------------------------------------------
 * One table per family, the one source of every atomic routine: ROUTINES(X, P, CP, CA, NAME, TYPE)
 * is X(P, CP, CA, NAME, TYPE, KIND, OP, R, S, PARAMS, ARGS) once per routine of the family over
 * element type TYPE (TYPENAME NAME): the routine P_NAME_S returns R and takes CP (the context
 * parameter, or nothing) then PARAMS; CA and ARGS name them as arguments; KIND and OP say what it
 * does (the library's definitions, src/transport/tl_amo.c). symheap's declarations below, the
 * library's definitions and <shmem.h>'s OpenSHMEM names (shmem_, pshmem_, C++ overloads) are all
 * expanded from these tables. A failed atomic returns 0 (and sets symh_last_error()).
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

/* The families: each table with its types, in both forms, prefix PFX (symh: symh_TYPENAME_S and
 * symh_ctx_TYPENAME_S, the context of type CTX_T first). SYMH_AMO_FOR_EACH(X, PFX, CTX_T) is X
 * (as in the tables) once per atomic routine of OpenSHMEM 1.5. */
#define SYMH_AMO_FOR_EACH(X, PFX, CTX_T)                                                          \
    SYMH_AMO_STANDARD_TYPES_A(SYMH_AMO_FORMS_, (X, PFX, CTX_T, SYMH_AMO_STANDARD_ROUTINES))       \
    SYMH_AMO_EXTENDED_TYPES_A(SYMH_AMO_FORMS_, (X, PFX, CTX_T, SYMH_AMO_FETCH_SET_SWAP_ROUTINES)) \
    SYMH_AMO_BITWISE_TYPES_A(SYMH_AMO_FORMS_, (X, PFX, CTX_T, SYMH_AMO_BITWISE_ROUTINES))
#define SYMH_AMO_FORMS_(NAME, TYPE, A) SYMH_AMO_FORMS_I_(NAME, TYPE, SYMH_UNPAREN_ A)
#define SYMH_AMO_FORMS_I_(...)         SYMH_AMO_FORMS_II_(__VA_ARGS__)
#define SYMH_AMO_FORMS_II_(NAME, TYPE, X, PFX, CTX_T, ROUTINES) \
    ROUTINES(X, PFX, (), (), NAME, TYPE)                        \
    ROUTINES(X, PFX##_ctx, (CTX_T ctx, ), (ctx, ), NAME, TYPE)

/* The declaration of one routine of a table. */
#define SYMH_ROUTINE_DECLARE_(P, CP, CA, NAME, TYPE, KIND, OP, R, S, PARAMS, ARGS) \
    SYMH_API R P##_##NAME##S(SYMH_UNPAREN_ CP SYMH_UNPAREN_ PARAMS);
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
#define SYMH_P2P_DECLARE(NAME, TYPE)                                             \
    SYMH_API void symh_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value); \
    SYMH_API int symh_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value);
SYMH_P2P_TYPES(SYMH_P2P_DECLARE)
#undef SYMH_P2P_DECLARE

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
#define SYMH_P2P_ARRAY_DECLARE(NAME, TYPE)                                                         \
    SYMH_API void symh_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status,      \
                                               int cmp, TYPE cmp_value);                           \
    SYMH_API size_t symh_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status,    \
                                                 int cmp, TYPE cmp_value);                         \
    SYMH_API size_t symh_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices,     \
                                                  const int *status, int cmp, TYPE cmp_value);     \
    SYMH_API void symh_##NAME##_wait_until_all_vector(                                             \
        TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values);                 \
    SYMH_API size_t symh_##NAME##_wait_until_any_vector(                                           \
        TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values);                 \
    SYMH_API size_t symh_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems,               \
                                                         size_t *indices, const int *status,       \
                                                         int cmp, TYPE *cmp_values);               \
    SYMH_API int symh_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp,    \
                                        TYPE cmp_value);                                           \
    SYMH_API size_t symh_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                           TYPE cmp_value);                                        \
    SYMH_API size_t symh_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,           \
                                            const int *status, int cmp, TYPE cmp_value);           \
    SYMH_API int symh_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status,      \
                                               int cmp, TYPE *cmp_values);                         \
    SYMH_API size_t symh_##NAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status,   \
                                                  int cmp, TYPE *cmp_values);                      \
    SYMH_API size_t symh_##NAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices,    \
                                                   const int *status, int cmp, TYPE *cmp_values);
SYMH_P2P_TYPES(SYMH_P2P_ARRAY_DECLARE)
#undef SYMH_P2P_ARRAY_DECLARE

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
