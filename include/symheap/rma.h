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

/* The OpenSHMEM 1.5 type tables as X-macros: X(TYPENAME, TYPE) once per type. */
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

/* Standard AMO types: every atomic operation except the bitwise ones. */
#define SYMH_AMO_STANDARD_TYPES(X)   \
    X(int, int)                      \
    X(long, long)                    \
    X(longlong, long long)           \
    X(uint, unsigned int)            \
    X(ulong, unsigned long)          \
    X(ulonglong, unsigned long long) \
    X(int32, int32_t)                \
    X(int64, int64_t)                \
    X(uint32, uint32_t)              \
    X(uint64, uint64_t)              \
    X(size, size_t)                  \
    X(ptrdiff, ptrdiff_t)

/* Extended AMO types beyond the standard ones: fetch, set and swap only. */
#define SYMH_AMO_EXTENDED_TYPES(X) \
    X(float, float)                \
    X(double, double)

/* Bitwise AMO types: fetch_and/or/xor and and/or/xor. */
#define SYMH_AMO_BITWISE_TYPES(X)    \
    X(uint, unsigned int)            \
    X(ulong, unsigned long)          \
    X(ulonglong, unsigned long long) \
    X(int32, int32_t)                \
    X(int64, int64_t)                \
    X(uint32, uint32_t)              \
    X(uint64, uint64_t)

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

/* ---- atomics ------------------------------------------------------------------------------ */
#define SYMH_AMO_DECLARE_FETCH_SET_SWAP(P, CP, NAME, TYPE)                                  \
    SYMH_API TYPE P##_##NAME##_atomic_fetch(SYMH_UNPAREN_ CP const TYPE *source, int pe);   \
    SYMH_API void P##_##NAME##_atomic_set(SYMH_UNPAREN_ CP TYPE *dest, TYPE value, int pe); \
    SYMH_API TYPE P##_##NAME##_atomic_swap(SYMH_UNPAREN_ CP TYPE *dest, TYPE value, int pe);
#define SYMH_AMO_DECLARE_STANDARD(P, CP, NAME, TYPE)                                              \
    SYMH_AMO_DECLARE_FETCH_SET_SWAP(P, CP, NAME, TYPE)                                            \
    SYMH_API TYPE P##_##NAME##_atomic_compare_swap(SYMH_UNPAREN_ CP TYPE *dest, TYPE cond,        \
                                                   TYPE value, int pe);                           \
    SYMH_API TYPE P##_##NAME##_atomic_fetch_inc(SYMH_UNPAREN_ CP TYPE *dest, int pe);             \
    SYMH_API void P##_##NAME##_atomic_inc(SYMH_UNPAREN_ CP TYPE *dest, int pe);                   \
    SYMH_API TYPE P##_##NAME##_atomic_fetch_add(SYMH_UNPAREN_ CP TYPE *dest, TYPE value, int pe); \
    SYMH_API void P##_##NAME##_atomic_add(SYMH_UNPAREN_ CP TYPE *dest, TYPE value, int pe);
#define SYMH_AMO_DECLARE_BITWISE(P, CP, NAME, TYPE)                                               \
    SYMH_API TYPE P##_##NAME##_atomic_fetch_and(SYMH_UNPAREN_ CP TYPE *dest, TYPE value, int pe); \
    SYMH_API TYPE P##_##NAME##_atomic_fetch_or(SYMH_UNPAREN_ CP TYPE *dest, TYPE value, int pe);  \
    SYMH_API TYPE P##_##NAME##_atomic_fetch_xor(SYMH_UNPAREN_ CP TYPE *dest, TYPE value, int pe); \
    SYMH_API void P##_##NAME##_atomic_and(SYMH_UNPAREN_ CP TYPE *dest, TYPE value, int pe);       \
    SYMH_API void P##_##NAME##_atomic_or(SYMH_UNPAREN_ CP TYPE *dest, TYPE value, int pe);        \
    SYMH_API void P##_##NAME##_atomic_xor(SYMH_UNPAREN_ CP TYPE *dest, TYPE value, int pe);
/* A failed atomic returns 0 (and sets symh_last_error()). */
#define SYMH_AMO_DECLARE_STANDARD_FORMS(NAME, TYPE) \
    SYMH_CTX_FORMS_(SYMH_AMO_DECLARE_STANDARD, NAME, TYPE)
#define SYMH_AMO_DECLARE_EXTENDED_FORMS(NAME, TYPE) \
    SYMH_CTX_FORMS_(SYMH_AMO_DECLARE_FETCH_SET_SWAP, NAME, TYPE)
#define SYMH_AMO_DECLARE_BITWISE_FORMS(NAME, TYPE) \
    SYMH_CTX_FORMS_(SYMH_AMO_DECLARE_BITWISE, NAME, TYPE)
SYMH_AMO_STANDARD_TYPES(SYMH_AMO_DECLARE_STANDARD_FORMS)
SYMH_AMO_EXTENDED_TYPES(SYMH_AMO_DECLARE_EXTENDED_FORMS)
SYMH_AMO_BITWISE_TYPES(SYMH_AMO_DECLARE_BITWISE_FORMS)
#undef SYMH_AMO_DECLARE_STANDARD_FORMS
#undef SYMH_AMO_DECLARE_EXTENDED_FORMS
#undef SYMH_AMO_DECLARE_BITWISE_FORMS
#undef SYMH_AMO_DECLARE_FETCH_SET_SWAP
#undef SYMH_AMO_DECLARE_STANDARD
#undef SYMH_AMO_DECLARE_BITWISE

/* The non-blocking fetching atomics: the old value lands in the local `fetch` (any memory) by
 * the next symh_quiet. symheap completes them in the call, so `fetch` holds it on return already
 * (docs/rma.md "Non-blocking atomics"); a failed one writes nothing to `fetch`. */
#define SYMH_AMO_DECLARE_FETCH_SWAP_NBI(P, CP, NAME, TYPE)                                        \
    SYMH_API void P##_##NAME##_atomic_fetch_nbi(SYMH_UNPAREN_ CP TYPE *fetch, const TYPE *source, \
                                                int pe);                                          \
    SYMH_API void P##_##NAME##_atomic_swap_nbi(SYMH_UNPAREN_ CP TYPE *fetch, TYPE *dest,          \
                                               TYPE value, int pe);
#define SYMH_AMO_DECLARE_STANDARD_NBI(P, CP, NAME, TYPE)                                         \
    SYMH_AMO_DECLARE_FETCH_SWAP_NBI(P, CP, NAME, TYPE)                                           \
    SYMH_API void P##_##NAME##_atomic_compare_swap_nbi(SYMH_UNPAREN_ CP TYPE *fetch, TYPE *dest, \
                                                       TYPE cond, TYPE value, int pe);           \
    SYMH_API void P##_##NAME##_atomic_fetch_inc_nbi(SYMH_UNPAREN_ CP TYPE *fetch, TYPE *dest,    \
                                                    int pe);                                     \
    SYMH_API void P##_##NAME##_atomic_fetch_add_nbi(SYMH_UNPAREN_ CP TYPE *fetch, TYPE *dest,    \
                                                    TYPE value, int pe);
#define SYMH_AMO_DECLARE_BITWISE_NBI(P, CP, NAME, TYPE)                                       \
    SYMH_API void P##_##NAME##_atomic_fetch_and_nbi(SYMH_UNPAREN_ CP TYPE *fetch, TYPE *dest, \
                                                    TYPE value, int pe);                      \
    SYMH_API void P##_##NAME##_atomic_fetch_or_nbi(SYMH_UNPAREN_ CP TYPE *fetch, TYPE *dest,  \
                                                   TYPE value, int pe);                       \
    SYMH_API void P##_##NAME##_atomic_fetch_xor_nbi(SYMH_UNPAREN_ CP TYPE *fetch, TYPE *dest, \
                                                    TYPE value, int pe);
#define SYMH_AMO_DECLARE_STANDARD_NBI_FORMS(NAME, TYPE) \
    SYMH_CTX_FORMS_(SYMH_AMO_DECLARE_STANDARD_NBI, NAME, TYPE)
#define SYMH_AMO_DECLARE_EXTENDED_NBI_FORMS(NAME, TYPE) \
    SYMH_CTX_FORMS_(SYMH_AMO_DECLARE_FETCH_SWAP_NBI, NAME, TYPE)
#define SYMH_AMO_DECLARE_BITWISE_NBI_FORMS(NAME, TYPE) \
    SYMH_CTX_FORMS_(SYMH_AMO_DECLARE_BITWISE_NBI, NAME, TYPE)
SYMH_AMO_STANDARD_TYPES(SYMH_AMO_DECLARE_STANDARD_NBI_FORMS)
SYMH_AMO_EXTENDED_TYPES(SYMH_AMO_DECLARE_EXTENDED_NBI_FORMS)
SYMH_AMO_BITWISE_TYPES(SYMH_AMO_DECLARE_BITWISE_NBI_FORMS)
#undef SYMH_AMO_DECLARE_STANDARD_NBI_FORMS
#undef SYMH_AMO_DECLARE_EXTENDED_NBI_FORMS
#undef SYMH_AMO_DECLARE_BITWISE_NBI_FORMS
#undef SYMH_AMO_DECLARE_FETCH_SWAP_NBI
#undef SYMH_AMO_DECLARE_STANDARD_NBI
#undef SYMH_AMO_DECLARE_BITWISE_NBI

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
