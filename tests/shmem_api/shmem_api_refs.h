/* The OpenSHMEM 1.5 API as the specification writes it, referenced once each: every routine is
 * assigned to a pointer of the specification's exact type (a missing or misspelt routine, or a
 * signature that differs, fails the build), and every type-generic interface is called for each
 * type it takes. Included by shmem_api_compile_c.c (C11) and shmem_api_compile_cxx.cc (C++);
 * compiled, never run. Each routine's profiling name (pshmem_) is referenced the same way. The type
 * tables below are this file's own copy of the specification's, not shmem.h's, so that a type the
 * header forgets is caught. */
#ifndef SYMH_SHMEM_API_REFS_H
#define SYMH_SHMEM_API_REFS_H

#ifdef __cplusplus
#include <complex>
#endif
#include <shmem.h>

#ifndef SYMH_SHMEM_H
#error "this test must include symheap's shmem.h (the project's include directory first)"
#endif

/* One routine: R NAME PARAMS, and its profiling name pNAME (OpenSHMEM 1.5's profiling
 * interface: pshmem_put for shmem_put, p_my_pe for _my_pe) with the same type. */
#define REF(R, NAME, PARAMS)                 \
    {                                        \
        R(*volatile ref_) PARAMS = NAME;     \
        R(*volatile pref_) PARAMS = p##NAME; \
        (void)ref_;                          \
        (void)pref_;                         \
    }

/* Table 5 (standard RMA types). */
#define SPEC_RMA_TYPES(X)            \
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
#define SPEC_RMA_SIZES(X) X(8) X(16) X(32) X(64) X(128)
/* Tables 6-8 (AMO types). */
#define SPEC_AMO_BITWISE_TYPES(X)    \
    X(uint, unsigned int)            \
    X(ulong, unsigned long)          \
    X(ulonglong, unsigned long long) \
    X(int32, int32_t)                \
    X(int64, int64_t)                \
    X(uint32, uint32_t)              \
    X(uint64, uint64_t)
#define SPEC_AMO_STANDARD_TYPES(X) \
    X(int, int)                    \
    X(long, long)                  \
    X(longlong, long long)         \
    SPEC_AMO_BITWISE_TYPES(X)      \
    X(size, size_t)                \
    X(ptrdiff, ptrdiff_t)
#define SPEC_AMO_EXTENDED_TYPES(X) \
    SPEC_AMO_STANDARD_TYPES(X)     \
    X(float, float)                \
    X(double, double)
/* Point-to-point synchronization types (short and ushort deprecated, still part of the API). */
#define SPEC_P2P_TYPES(X)            \
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
/* Reduction types (Table 10). */
#define SPEC_REDUCE_BITWISE_TYPES(X) \
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
#define SPEC_REDUCE_MINMAX_TYPES(X)  \
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
/* The complex types of sum and prod: C's, and std::complex in C++ (which has no _Complex). */
#ifdef __cplusplus
#define SPEC_COMPLEX_TYPES(X)         \
    X(complexd, std::complex<double>) \
    X(complexf, std::complex<float>)
#else
#define SPEC_COMPLEX_TYPES(X)    \
    X(complexd, double _Complex) \
    X(complexf, float _Complex)
#endif

/* ---- the typed routines, plain and context forms ----------------------------------------------
 */
#define REF_RMA(NAME, TYPE)                                                                   \
    REF(void, shmem_##NAME##_put, (TYPE *, const TYPE *, size_t, int))                        \
    REF(void, shmem_ctx_##NAME##_put, (shmem_ctx_t, TYPE *, const TYPE *, size_t, int))       \
    REF(void, shmem_##NAME##_get, (TYPE *, const TYPE *, size_t, int))                        \
    REF(void, shmem_ctx_##NAME##_get, (shmem_ctx_t, TYPE *, const TYPE *, size_t, int))       \
    REF(void, shmem_##NAME##_put_nbi, (TYPE *, const TYPE *, size_t, int))                    \
    REF(void, shmem_ctx_##NAME##_put_nbi, (shmem_ctx_t, TYPE *, const TYPE *, size_t, int))   \
    REF(void, shmem_##NAME##_get_nbi, (TYPE *, const TYPE *, size_t, int))                    \
    REF(void, shmem_ctx_##NAME##_get_nbi, (shmem_ctx_t, TYPE *, const TYPE *, size_t, int))   \
    REF(void, shmem_##NAME##_p, (TYPE *, TYPE, int))                                          \
    REF(void, shmem_ctx_##NAME##_p, (shmem_ctx_t, TYPE *, TYPE, int))                         \
    REF(TYPE, shmem_##NAME##_g, (const TYPE *, int))                                          \
    REF(TYPE, shmem_ctx_##NAME##_g, (shmem_ctx_t, const TYPE *, int))                         \
    REF(void, shmem_##NAME##_iput, (TYPE *, const TYPE *, ptrdiff_t, ptrdiff_t, size_t, int)) \
    REF(void, shmem_ctx_##NAME##_iput,                                                        \
        (shmem_ctx_t, TYPE *, const TYPE *, ptrdiff_t, ptrdiff_t, size_t, int))               \
    REF(void, shmem_##NAME##_iget, (TYPE *, const TYPE *, ptrdiff_t, ptrdiff_t, size_t, int)) \
    REF(void, shmem_ctx_##NAME##_iget,                                                        \
        (shmem_ctx_t, TYPE *, const TYPE *, ptrdiff_t, ptrdiff_t, size_t, int))               \
    REF(void, shmem_##NAME##_put_signal,                                                      \
        (TYPE *, const TYPE *, size_t, uint64_t *, uint64_t, int, int))                       \
    REF(void, shmem_ctx_##NAME##_put_signal,                                                  \
        (shmem_ctx_t, TYPE *, const TYPE *, size_t, uint64_t *, uint64_t, int, int))          \
    REF(void, shmem_##NAME##_put_signal_nbi,                                                  \
        (TYPE *, const TYPE *, size_t, uint64_t *, uint64_t, int, int))                       \
    REF(void, shmem_ctx_##NAME##_put_signal_nbi,                                              \
        (shmem_ctx_t, TYPE *, const TYPE *, size_t, uint64_t *, uint64_t, int, int))          \
    REF(int, shmem_##NAME##_broadcast, (shmem_team_t, TYPE *, const TYPE *, size_t, int))     \
    REF(int, shmem_##NAME##_collect, (shmem_team_t, TYPE *, const TYPE *, size_t))            \
    REF(int, shmem_##NAME##_fcollect, (shmem_team_t, TYPE *, const TYPE *, size_t))           \
    REF(int, shmem_##NAME##_alltoall, (shmem_team_t, TYPE *, const TYPE *, size_t))           \
    REF(int, shmem_##NAME##_alltoalls,                                                        \
        (shmem_team_t, TYPE *, const TYPE *, ptrdiff_t, ptrdiff_t, size_t))

#define REF_SIZED(BITS)                                                                    \
    REF(void, shmem_put##BITS, (void *, const void *, size_t, int))                        \
    REF(void, shmem_ctx_put##BITS, (shmem_ctx_t, void *, const void *, size_t, int))       \
    REF(void, shmem_get##BITS, (void *, const void *, size_t, int))                        \
    REF(void, shmem_ctx_get##BITS, (shmem_ctx_t, void *, const void *, size_t, int))       \
    REF(void, shmem_put##BITS##_nbi, (void *, const void *, size_t, int))                  \
    REF(void, shmem_ctx_put##BITS##_nbi, (shmem_ctx_t, void *, const void *, size_t, int)) \
    REF(void, shmem_get##BITS##_nbi, (void *, const void *, size_t, int))                  \
    REF(void, shmem_ctx_get##BITS##_nbi, (shmem_ctx_t, void *, const void *, size_t, int)) \
    REF(void, shmem_iput##BITS, (void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int)) \
    REF(void, shmem_ctx_iput##BITS,                                                        \
        (shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int))            \
    REF(void, shmem_iget##BITS, (void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int)) \
    REF(void, shmem_ctx_iget##BITS,                                                        \
        (shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int))            \
    REF(void, shmem_put##BITS##_signal,                                                    \
        (void *, const void *, size_t, uint64_t *, uint64_t, int, int))                    \
    REF(void, shmem_ctx_put##BITS##_signal,                                                \
        (shmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t, int, int))       \
    REF(void, shmem_put##BITS##_signal_nbi,                                                \
        (void *, const void *, size_t, uint64_t *, uint64_t, int, int))                    \
    REF(void, shmem_ctx_put##BITS##_signal_nbi,                                            \
        (shmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t, int, int))

#define REF_AMO_EXTENDED(NAME, TYPE)                                                         \
    REF(TYPE, shmem_##NAME##_atomic_fetch, (const TYPE *, int))                              \
    REF(TYPE, shmem_ctx_##NAME##_atomic_fetch, (shmem_ctx_t, const TYPE *, int))             \
    REF(void, shmem_##NAME##_atomic_set, (TYPE *, TYPE, int))                                \
    REF(void, shmem_ctx_##NAME##_atomic_set, (shmem_ctx_t, TYPE *, TYPE, int))               \
    REF(TYPE, shmem_##NAME##_atomic_swap, (TYPE *, TYPE, int))                               \
    REF(TYPE, shmem_ctx_##NAME##_atomic_swap, (shmem_ctx_t, TYPE *, TYPE, int))              \
    REF(void, shmem_##NAME##_atomic_fetch_nbi, (TYPE *, const TYPE *, int))                  \
    REF(void, shmem_ctx_##NAME##_atomic_fetch_nbi, (shmem_ctx_t, TYPE *, const TYPE *, int)) \
    REF(void, shmem_##NAME##_atomic_swap_nbi, (TYPE *, TYPE *, TYPE, int))                   \
    REF(void, shmem_ctx_##NAME##_atomic_swap_nbi, (shmem_ctx_t, TYPE *, TYPE *, TYPE, int))
#define REF_AMO_STANDARD(NAME, TYPE)                                                          \
    REF(TYPE, shmem_##NAME##_atomic_compare_swap, (TYPE *, TYPE, TYPE, int))                  \
    REF(TYPE, shmem_ctx_##NAME##_atomic_compare_swap, (shmem_ctx_t, TYPE *, TYPE, TYPE, int)) \
    REF(TYPE, shmem_##NAME##_atomic_fetch_inc, (TYPE *, int))                                 \
    REF(TYPE, shmem_ctx_##NAME##_atomic_fetch_inc, (shmem_ctx_t, TYPE *, int))                \
    REF(void, shmem_##NAME##_atomic_inc, (TYPE *, int))                                       \
    REF(void, shmem_ctx_##NAME##_atomic_inc, (shmem_ctx_t, TYPE *, int))                      \
    REF(TYPE, shmem_##NAME##_atomic_fetch_add, (TYPE *, TYPE, int))                           \
    REF(TYPE, shmem_ctx_##NAME##_atomic_fetch_add, (shmem_ctx_t, TYPE *, TYPE, int))          \
    REF(void, shmem_##NAME##_atomic_add, (TYPE *, TYPE, int))                                 \
    REF(void, shmem_ctx_##NAME##_atomic_add, (shmem_ctx_t, TYPE *, TYPE, int))                \
    REF(void, shmem_##NAME##_atomic_compare_swap_nbi, (TYPE *, TYPE *, TYPE, TYPE, int))      \
    REF(void, shmem_ctx_##NAME##_atomic_compare_swap_nbi,                                     \
        (shmem_ctx_t, TYPE *, TYPE *, TYPE, TYPE, int))                                       \
    REF(void, shmem_##NAME##_atomic_fetch_inc_nbi, (TYPE *, TYPE *, int))                     \
    REF(void, shmem_ctx_##NAME##_atomic_fetch_inc_nbi, (shmem_ctx_t, TYPE *, TYPE *, int))    \
    REF(void, shmem_##NAME##_atomic_fetch_add_nbi, (TYPE *, TYPE *, TYPE, int))               \
    REF(void, shmem_ctx_##NAME##_atomic_fetch_add_nbi, (shmem_ctx_t, TYPE *, TYPE *, TYPE, int))
#define REF_AMO_BITWISE_OP(NAME, TYPE, OP)                                            \
    REF(TYPE, shmem_##NAME##_atomic_fetch_##OP, (TYPE *, TYPE, int))                  \
    REF(TYPE, shmem_ctx_##NAME##_atomic_fetch_##OP, (shmem_ctx_t, TYPE *, TYPE, int)) \
    REF(void, shmem_##NAME##_atomic_##OP, (TYPE *, TYPE, int))                        \
    REF(void, shmem_ctx_##NAME##_atomic_##OP, (shmem_ctx_t, TYPE *, TYPE, int))       \
    REF(void, shmem_##NAME##_atomic_fetch_##OP##_nbi, (TYPE *, TYPE *, TYPE, int))    \
    REF(void, shmem_ctx_##NAME##_atomic_fetch_##OP##_nbi, (shmem_ctx_t, TYPE *, TYPE *, TYPE, int))
#define REF_AMO_BITWISE(NAME, TYPE)     \
    REF_AMO_BITWISE_OP(NAME, TYPE, and) \
    REF_AMO_BITWISE_OP(NAME, TYPE, or)  \
    REF_AMO_BITWISE_OP(NAME, TYPE, xor)

#define REF_P2P(NAME, TYPE)                                                                       \
    REF(void, shmem_##NAME##_wait_until, (TYPE *, int, TYPE))                                     \
    REF(int, shmem_##NAME##_test, (TYPE *, int, TYPE))                                            \
    REF(void, shmem_##NAME##_wait_until_all, (TYPE *, size_t, const int *, int, TYPE))            \
    REF(size_t, shmem_##NAME##_wait_until_any, (TYPE *, size_t, const int *, int, TYPE))          \
    REF(size_t, shmem_##NAME##_wait_until_some,                                                   \
        (TYPE *, size_t, size_t *, const int *, int, TYPE))                                       \
    REF(void, shmem_##NAME##_wait_until_all_vector, (TYPE *, size_t, const int *, int, TYPE *))   \
    REF(size_t, shmem_##NAME##_wait_until_any_vector, (TYPE *, size_t, const int *, int, TYPE *)) \
    REF(size_t, shmem_##NAME##_wait_until_some_vector,                                            \
        (TYPE *, size_t, size_t *, const int *, int, TYPE *))                                     \
    REF(int, shmem_##NAME##_test_all, (TYPE *, size_t, const int *, int, TYPE))                   \
    REF(size_t, shmem_##NAME##_test_any, (TYPE *, size_t, const int *, int, TYPE))                \
    REF(size_t, shmem_##NAME##_test_some, (TYPE *, size_t, size_t *, const int *, int, TYPE))     \
    REF(int, shmem_##NAME##_test_all_vector, (TYPE *, size_t, const int *, int, TYPE *))          \
    REF(size_t, shmem_##NAME##_test_any_vector, (TYPE *, size_t, const int *, int, TYPE *))       \
    REF(size_t, shmem_##NAME##_test_some_vector,                                                  \
        (TYPE *, size_t, size_t *, const int *, int, TYPE *))

#define REF_REDUCE_OP(NAME, TYPE, OP) \
    REF(int, shmem_##NAME##_##OP##_reduce, (shmem_team_t, TYPE *, const TYPE *, size_t))
#define REF_REDUCE_BITWISE(NAME, TYPE) \
    REF_REDUCE_OP(NAME, TYPE, and) REF_REDUCE_OP(NAME, TYPE, or) REF_REDUCE_OP(NAME, TYPE, xor)
#define REF_REDUCE_ARITH(NAME, TYPE) REF_REDUCE_OP(NAME, TYPE, sum) REF_REDUCE_OP(NAME, TYPE, prod)
#define REF_REDUCE_MINMAX(NAME, TYPE) \
    REF_REDUCE_OP(NAME, TYPE, max) REF_REDUCE_OP(NAME, TYPE, min) REF_REDUCE_ARITH(NAME, TYPE)

/* Deprecated typed routines. */
#define REF_TO_ALL_OP(NAME, TYPE, OP)       \
    REF(void, shmem_##NAME##_##OP##_to_all, \
        (TYPE *, const TYPE *, int, int, int, int, TYPE *, long *))
#define REF_TO_ALL_BITWISE(NAME, TYPE) \
    REF_TO_ALL_OP(NAME, TYPE, and) REF_TO_ALL_OP(NAME, TYPE, or) REF_TO_ALL_OP(NAME, TYPE, xor)
#define REF_TO_ALL_ARITH(NAME, TYPE) REF_TO_ALL_OP(NAME, TYPE, sum) REF_TO_ALL_OP(NAME, TYPE, prod)
#define REF_TO_ALL_MINMAX(NAME, TYPE) \
    REF_TO_ALL_OP(NAME, TYPE, max) REF_TO_ALL_OP(NAME, TYPE, min) REF_TO_ALL_ARITH(NAME, TYPE)
#define SPEC_TO_ALL_INT_TYPES(X)   X(short, short) X(int, int) X(long, long) X(longlong, long long)
#define SPEC_TO_ALL_FLOAT_TYPES(X) X(float, float) X(double, double) X(longdouble, long double)
#define REF_OLD_AMO_EXTENDED(NAME, TYPE)                 \
    REF(TYPE, shmem_##NAME##_fetch, (const TYPE *, int)) \
    REF(void, shmem_##NAME##_set, (TYPE *, TYPE, int))   \
    REF(TYPE, shmem_##NAME##_swap, (TYPE *, TYPE, int))
#define REF_OLD_AMO(NAME, TYPE)                                \
    REF(TYPE, shmem_##NAME##_cswap, (TYPE *, TYPE, TYPE, int)) \
    REF(TYPE, shmem_##NAME##_finc, (TYPE *, int))              \
    REF(void, shmem_##NAME##_inc, (TYPE *, int))               \
    REF(TYPE, shmem_##NAME##_fadd, (TYPE *, TYPE, int))        \
    REF(void, shmem_##NAME##_add, (TYPE *, TYPE, int))
#define SPEC_OLD_AMO_TYPES(X)    X(int, int) X(long, long) X(longlong, long long)
#define REF_OLD_WAIT(NAME, TYPE) REF(void, shmem_##NAME##_wait, (TYPE *, TYPE))

static inline void shmem_api_refs(void)
{
    /* Constants and types. */
    static const long constants[] = { SHMEM_MAJOR_VERSION,
                                      SHMEM_MINOR_VERSION,
                                      SHMEM_MAX_NAME_LEN,
                                      SHMEM_THREAD_SINGLE,
                                      SHMEM_THREAD_FUNNELED,
                                      SHMEM_THREAD_SERIALIZED,
                                      SHMEM_THREAD_MULTIPLE,
                                      SHMEM_CMP_EQ,
                                      SHMEM_CMP_NE,
                                      SHMEM_CMP_GT,
                                      SHMEM_CMP_GE,
                                      SHMEM_CMP_LT,
                                      SHMEM_CMP_LE,
                                      SHMEM_SIGNAL_SET,
                                      SHMEM_SIGNAL_ADD,
                                      SHMEM_CTX_SERIALIZED,
                                      SHMEM_CTX_PRIVATE,
                                      SHMEM_CTX_NOSTORE,
                                      SHMEM_TEAM_NUM_CONTEXTS,
                                      SHMEM_SYNC_VALUE,
                                      SHMEM_SYNC_SIZE,
                                      SHMEM_BCAST_SYNC_SIZE,
                                      SHMEM_REDUCE_SYNC_SIZE,
                                      SHMEM_BARRIER_SYNC_SIZE,
                                      SHMEM_COLLECT_SYNC_SIZE,
                                      SHMEM_ALLTOALL_SYNC_SIZE,
                                      SHMEM_ALLTOALLS_SYNC_SIZE,
                                      SHMEM_REDUCE_MIN_WRKDATA_SIZE,
                                      SHMEM_MALLOC_ATOMICS_REMOTE,
                                      SHMEM_MALLOC_SIGNAL_REMOTE,
                                      _SHMEM_MAJOR_VERSION,
                                      _SHMEM_MINOR_VERSION,
                                      _SHMEM_MAX_NAME_LEN,
                                      _SHMEM_SYNC_VALUE,
                                      _SHMEM_BARRIER_SYNC_SIZE,
                                      _SHMEM_BCAST_SYNC_SIZE,
                                      _SHMEM_COLLECT_SYNC_SIZE,
                                      _SHMEM_REDUCE_SYNC_SIZE,
                                      _SHMEM_REDUCE_MIN_WRKDATA_SIZE,
                                      _SHMEM_CMP_EQ,
                                      _SHMEM_CMP_NE,
                                      _SHMEM_CMP_GT,
                                      _SHMEM_CMP_GE,
                                      _SHMEM_CMP_LT,
                                      _SHMEM_CMP_LE };
    static const char *const strings[] = { SHMEM_VENDOR_STRING, _SHMEM_VENDOR_STRING };
    shmem_ctx_t ctxs[] = { SHMEM_CTX_DEFAULT, SHMEM_CTX_INVALID };
    shmem_team_t teams[] = { SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED, SHMEM_TEAM_INVALID };
    shmem_team_config_t config;
    config.num_contexts = 0;
    (void)constants;
    (void)strings;
    (void)ctxs;
    (void)teams;
    (void)config;

    /* Library setup, exit and query. */
    REF(void, shmem_init, (void))
    REF(int, shmem_init_thread, (int, int *))
    REF(void, shmem_query_thread, (int *))
    REF(void, shmem_finalize, (void))
    REF(void, shmem_global_exit, (int))
    REF(int, shmem_my_pe, (void))
    REF(int, shmem_n_pes, (void))
    REF(int, shmem_pe_accessible, (int))
    REF(int, shmem_addr_accessible, (const void *, int))
    REF(void *, shmem_ptr, (const void *, int))
    REF(void *, shmem_team_ptr, (shmem_team_t, const void *, int))
    REF(void, shmem_info_get_version, (int *, int *))
    REF(void, shmem_info_get_name, (char *))
    REF(void, shmem_pcontrol, (int, ...))
    REF(void, start_pes, (int))
    REF(int, _my_pe, (void))
    REF(int, _num_pes, (void))

    /* Memory management. */
    REF(void *, shmem_malloc, (size_t))
    REF(void, shmem_free, (void *))
    REF(void *, shmem_realloc, (void *, size_t))
    REF(void *, shmem_align, (size_t, size_t))
    REF(void *, shmem_malloc_with_hints, (size_t, long))
    REF(void *, shmem_calloc, (size_t, size_t))
    REF(void *, shmalloc, (size_t))
    REF(void, shfree, (void *))
    REF(void *, shrealloc, (void *, size_t))
    REF(void *, shmemalign, (size_t, size_t))

    /* Teams and contexts. */
    REF(int, shmem_team_my_pe, (shmem_team_t))
    REF(int, shmem_team_n_pes, (shmem_team_t))
    REF(int, shmem_team_get_config, (shmem_team_t, long, shmem_team_config_t *))
    REF(int, shmem_team_translate_pe, (shmem_team_t, int, shmem_team_t))
    REF(int, shmem_team_split_strided,
        (shmem_team_t, int, int, int, const shmem_team_config_t *, long, shmem_team_t *))
    REF(int, shmem_team_split_2d,
        (shmem_team_t, int, const shmem_team_config_t *, long, shmem_team_t *,
         const shmem_team_config_t *, long, shmem_team_t *))
    REF(void, shmem_team_destroy, (shmem_team_t))
    REF(int, shmem_ctx_create, (long, shmem_ctx_t *))
    REF(int, shmem_team_create_ctx, (shmem_team_t, long, shmem_ctx_t *))
    REF(void, shmem_ctx_destroy, (shmem_ctx_t))
    REF(int, shmem_ctx_get_team, (shmem_ctx_t, shmem_team_t *))

    /* RMA, signals and team collectives, typed. */
    SPEC_RMA_TYPES(REF_RMA)
    SPEC_RMA_SIZES(REF_SIZED)
    REF(void, shmem_putmem, (void *, const void *, size_t, int))
    REF(void, shmem_ctx_putmem, (shmem_ctx_t, void *, const void *, size_t, int))
    REF(void, shmem_getmem, (void *, const void *, size_t, int))
    REF(void, shmem_ctx_getmem, (shmem_ctx_t, void *, const void *, size_t, int))
    REF(void, shmem_putmem_nbi, (void *, const void *, size_t, int))
    REF(void, shmem_ctx_putmem_nbi, (shmem_ctx_t, void *, const void *, size_t, int))
    REF(void, shmem_getmem_nbi, (void *, const void *, size_t, int))
    REF(void, shmem_ctx_getmem_nbi, (shmem_ctx_t, void *, const void *, size_t, int))
    REF(void, shmem_putmem_signal, (void *, const void *, size_t, uint64_t *, uint64_t, int, int))
    REF(void, shmem_ctx_putmem_signal,
        (shmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t, int, int))
    REF(void, shmem_putmem_signal_nbi,
        (void *, const void *, size_t, uint64_t *, uint64_t, int, int))
    REF(void, shmem_ctx_putmem_signal_nbi,
        (shmem_ctx_t, void *, const void *, size_t, uint64_t *, uint64_t, int, int))
    REF(uint64_t, shmem_signal_fetch, (const uint64_t *))
    REF(uint64_t, shmem_signal_wait_until, (uint64_t *, int, uint64_t))

    /* Atomics. */
    SPEC_AMO_EXTENDED_TYPES(REF_AMO_EXTENDED)
    SPEC_AMO_STANDARD_TYPES(REF_AMO_STANDARD)
    SPEC_AMO_BITWISE_TYPES(REF_AMO_BITWISE)

    /* Collectives. */
    REF(void, shmem_barrier_all, (void))
    REF(void, shmem_sync_all, (void))
    REF(int, shmem_team_sync, (shmem_team_t))
    REF(int, shmem_broadcastmem, (shmem_team_t, void *, const void *, size_t, int))
    REF(int, shmem_collectmem, (shmem_team_t, void *, const void *, size_t))
    REF(int, shmem_fcollectmem, (shmem_team_t, void *, const void *, size_t))
    REF(int, shmem_alltoallmem, (shmem_team_t, void *, const void *, size_t))
    REF(int, shmem_alltoallsmem, (shmem_team_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t))
    SPEC_REDUCE_BITWISE_TYPES(REF_REDUCE_BITWISE)
    SPEC_REDUCE_MINMAX_TYPES(REF_REDUCE_MINMAX)
    SPEC_COMPLEX_TYPES(REF_REDUCE_ARITH)

    /* Point-to-point synchronization. */
    SPEC_P2P_TYPES(REF_P2P)

    /* Memory ordering and locks. */
    REF(void, shmem_fence, (void))
    REF(void, shmem_ctx_fence, (shmem_ctx_t))
    REF(void, shmem_quiet, (void))
    REF(void, shmem_ctx_quiet, (shmem_ctx_t))
    REF(void, shmem_set_lock, (long *))
    REF(void, shmem_clear_lock, (long *))
    REF(int, shmem_test_lock, (long *))

    /* Deprecated (Annex F). */
    REF(void, shmem_barrier, (int, int, int, long *))
    REF(void, shmem_broadcast32, (void *, const void *, size_t, int, int, int, int, long *))
    REF(void, shmem_broadcast64, (void *, const void *, size_t, int, int, int, int, long *))
    REF(void, shmem_collect32, (void *, const void *, size_t, int, int, int, long *))
    REF(void, shmem_collect64, (void *, const void *, size_t, int, int, int, long *))
    REF(void, shmem_fcollect32, (void *, const void *, size_t, int, int, int, long *))
    REF(void, shmem_fcollect64, (void *, const void *, size_t, int, int, int, long *))
    REF(void, shmem_alltoall32, (void *, const void *, size_t, int, int, int, long *))
    REF(void, shmem_alltoall64, (void *, const void *, size_t, int, int, int, long *))
    REF(void, shmem_alltoalls32,
        (void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int, int, int, long *))
    REF(void, shmem_alltoalls64,
        (void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int, int, int, long *))
    SPEC_TO_ALL_INT_TYPES(REF_TO_ALL_BITWISE)
    SPEC_TO_ALL_INT_TYPES(REF_TO_ALL_MINMAX)
    SPEC_TO_ALL_FLOAT_TYPES(REF_TO_ALL_MINMAX)
    SPEC_COMPLEX_TYPES(REF_TO_ALL_ARITH)
    SPEC_OLD_AMO_TYPES(REF_OLD_AMO)
    SPEC_OLD_AMO_TYPES(REF_OLD_AMO_EXTENDED)
    REF_OLD_AMO_EXTENDED(float, float)
    REF_OLD_AMO_EXTENDED(double, double)
    SPEC_TO_ALL_INT_TYPES(REF_OLD_WAIT)
    REF(void, shmem_clear_cache_inv, (void))
    REF(void, shmem_set_cache_inv, (void))
    REF(void, shmem_clear_cache_line_inv, (void *))
    REF(void, shmem_set_cache_line_inv, (void *))
    REF(void, shmem_udcflush, (void))
    REF(void, shmem_udcflush_line, (void *))
}

/* ---- the type-generic interfaces, called once per type (never run) ----------------------------
 */
#define CALL_RMA(NAME, TYPE)                                              \
    {                                                                     \
        static TYPE d[4], s[4];                                           \
        static uint64_t sig;                                              \
        static const TYPE *cs = s;                                        \
        TYPE v;                                                           \
        shmem_put(d, s, 1, 0);                                            \
        shmem_put(ctx, d, cs, 1, 0);                                      \
        shmem_get(d, cs, 1, 0);                                           \
        shmem_get(ctx, d, s, 1, 0);                                       \
        shmem_put_nbi(d, s, 1, 0);                                        \
        shmem_put_nbi(ctx, d, s, 1, 0);                                   \
        shmem_get_nbi(d, s, 1, 0);                                        \
        shmem_get_nbi(ctx, d, s, 1, 0);                                   \
        shmem_iput(d, s, 1, 1, 1, 0);                                     \
        shmem_iput(ctx, d, s, 1, 1, 1, 0);                                \
        shmem_iget(d, s, 1, 1, 1, 0);                                     \
        shmem_iget(ctx, d, s, 1, 1, 1, 0);                                \
        shmem_p(d, s[0], 0);                                              \
        shmem_p(ctx, d, s[0], 0);                                         \
        v = shmem_g(cs, 0);                                               \
        v = shmem_g(ctx, s, 0);                                           \
        (void)v;                                                          \
        shmem_put_signal(d, s, 1, &sig, 1, SHMEM_SIGNAL_SET, 0);          \
        shmem_put_signal(ctx, d, s, 1, &sig, 1, SHMEM_SIGNAL_ADD, 0);     \
        shmem_put_signal_nbi(d, s, 1, &sig, 1, SHMEM_SIGNAL_SET, 0);      \
        shmem_put_signal_nbi(ctx, d, s, 1, &sig, 1, SHMEM_SIGNAL_ADD, 0); \
        rc |= shmem_broadcast(SHMEM_TEAM_WORLD, d, s, 1, 0);              \
        rc |= shmem_collect(SHMEM_TEAM_WORLD, d, s, 1);                   \
        rc |= shmem_fcollect(SHMEM_TEAM_WORLD, d, s, 1);                  \
        rc |= shmem_alltoall(SHMEM_TEAM_WORLD, d, s, 1);                  \
        rc |= shmem_alltoalls(SHMEM_TEAM_WORLD, d, s, 1, 1, 1);           \
    }
#define CALL_AMO_EXTENDED(NAME, TYPE)             \
    {                                             \
        static TYPE d, f;                         \
        TYPE v = shmem_atomic_fetch(&d, 0);       \
        v = shmem_atomic_fetch(ctx, &d, 0);       \
        shmem_atomic_set(&d, v, 0);               \
        shmem_atomic_set(ctx, &d, v, 0);          \
        v = shmem_atomic_swap(&d, v, 0);          \
        v = shmem_atomic_swap(ctx, &d, v, 0);     \
        shmem_atomic_fetch_nbi(&f, &d, 0);        \
        shmem_atomic_fetch_nbi(ctx, &f, &d, 0);   \
        shmem_atomic_swap_nbi(&f, &d, v, 0);      \
        shmem_atomic_swap_nbi(ctx, &f, &d, v, 0); \
    }
#define CALL_AMO_STANDARD(NAME, TYPE)                        \
    {                                                        \
        static TYPE d, f;                                    \
        TYPE v = shmem_atomic_compare_swap(&d, 0, 1, 0);     \
        v = shmem_atomic_compare_swap(ctx, &d, 0, 1, 0);     \
        v = shmem_atomic_fetch_inc(&d, 0);                   \
        v = shmem_atomic_fetch_inc(ctx, &d, 0);              \
        shmem_atomic_inc(&d, 0);                             \
        shmem_atomic_inc(ctx, &d, 0);                        \
        v = shmem_atomic_fetch_add(&d, v, 0);                \
        v = shmem_atomic_fetch_add(ctx, &d, v, 0);           \
        shmem_atomic_add(&d, v, 0);                          \
        shmem_atomic_add(ctx, &d, v, 0);                     \
        shmem_atomic_compare_swap_nbi(&f, &d, 0, 1, 0);      \
        shmem_atomic_compare_swap_nbi(ctx, &f, &d, 0, 1, 0); \
        shmem_atomic_fetch_inc_nbi(&f, &d, 0);               \
        shmem_atomic_fetch_inc_nbi(ctx, &f, &d, 0);          \
        shmem_atomic_fetch_add_nbi(&f, &d, 1, 0);            \
        shmem_atomic_fetch_add_nbi(ctx, &f, &d, 1, 0);       \
    }
#define CALL_AMO_BITWISE(NAME, TYPE)                   \
    {                                                  \
        static TYPE d, f;                              \
        TYPE v = shmem_atomic_fetch_and(&d, 1, 0);     \
        v = shmem_atomic_fetch_and(ctx, &d, v, 0);     \
        v = shmem_atomic_fetch_or(&d, v, 0);           \
        v = shmem_atomic_fetch_or(ctx, &d, v, 0);      \
        v = shmem_atomic_fetch_xor(&d, v, 0);          \
        v = shmem_atomic_fetch_xor(ctx, &d, v, 0);     \
        shmem_atomic_and(&d, v, 0);                    \
        shmem_atomic_and(ctx, &d, v, 0);               \
        shmem_atomic_or(&d, v, 0);                     \
        shmem_atomic_or(ctx, &d, v, 0);                \
        shmem_atomic_xor(&d, v, 0);                    \
        shmem_atomic_xor(ctx, &d, v, 0);               \
        shmem_atomic_fetch_and_nbi(&f, &d, v, 0);      \
        shmem_atomic_fetch_and_nbi(ctx, &f, &d, v, 0); \
        shmem_atomic_fetch_or_nbi(&f, &d, v, 0);       \
        shmem_atomic_fetch_or_nbi(ctx, &f, &d, v, 0);  \
        shmem_atomic_fetch_xor_nbi(&f, &d, v, 0);      \
        shmem_atomic_fetch_xor_nbi(ctx, &f, &d, v, 0); \
    }
#define CALL_P2P(NAME, TYPE)                                                      \
    {                                                                             \
        static TYPE iv[2], cmps[2];                                               \
        size_t idx[2], n;                                                         \
        int t;                                                                    \
        shmem_wait_until(iv, SHMEM_CMP_EQ, 0);                                    \
        t = shmem_test(iv, SHMEM_CMP_NE, 0);                                      \
        shmem_wait_until_all(iv, 2, status, SHMEM_CMP_EQ, 0);                     \
        n = shmem_wait_until_any(iv, 2, status, SHMEM_CMP_EQ, 0);                 \
        n = shmem_wait_until_some(iv, 2, idx, status, SHMEM_CMP_EQ, 0);           \
        shmem_wait_until_all_vector(iv, 2, status, SHMEM_CMP_EQ, cmps);           \
        n = shmem_wait_until_any_vector(iv, 2, status, SHMEM_CMP_EQ, cmps);       \
        n = shmem_wait_until_some_vector(iv, 2, idx, status, SHMEM_CMP_EQ, cmps); \
        t = shmem_test_all(iv, 2, status, SHMEM_CMP_EQ, 0);                       \
        n = shmem_test_any(iv, 2, status, SHMEM_CMP_EQ, 0);                       \
        n = shmem_test_some(iv, 2, idx, status, SHMEM_CMP_EQ, 0);                 \
        t = shmem_test_all_vector(iv, 2, status, SHMEM_CMP_EQ, cmps);             \
        n = shmem_test_any_vector(iv, 2, status, SHMEM_CMP_EQ, cmps);             \
        n = shmem_test_some_vector(iv, 2, idx, status, SHMEM_CMP_EQ, cmps);       \
        (void)t;                                                                  \
        (void)n;                                                                  \
    }
#define CALL_REDUCE_OP(TYPE, OP)                              \
    {                                                         \
        static TYPE d[2], s[2];                               \
        rc |= shmem_##OP##_reduce(SHMEM_TEAM_WORLD, d, s, 2); \
    }
#define CALL_REDUCE_BITWISE(NAME, TYPE) \
    CALL_REDUCE_OP(TYPE, and) CALL_REDUCE_OP(TYPE, or) CALL_REDUCE_OP(TYPE, xor)
#define CALL_REDUCE_ARITH(NAME, TYPE) CALL_REDUCE_OP(TYPE, sum) CALL_REDUCE_OP(TYPE, prod)
#define CALL_REDUCE_MINMAX(NAME, TYPE) \
    CALL_REDUCE_OP(TYPE, max) CALL_REDUCE_OP(TYPE, min) CALL_REDUCE_ARITH(NAME, TYPE)
/* The deprecated generic names. */
#define CALL_OLD_AMO_EXTENDED(NAME, TYPE) \
    {                                     \
        static TYPE d;                    \
        TYPE v = shmem_fetch(&d, 0);      \
        shmem_set(&d, v, 0);              \
        v = shmem_swap(&d, v, 0);         \
        (void)v;                          \
    }
#define CALL_OLD_AMO(NAME, TYPE)           \
    {                                      \
        static TYPE d;                     \
        TYPE v = shmem_cswap(&d, 0, 1, 0); \
        v = shmem_finc(&d, 0);             \
        shmem_inc(&d, 0);                  \
        v = shmem_fadd(&d, v, 0);          \
        shmem_add(&d, v, 0);               \
    }
#define CALL_OLD_WAIT(NAME, TYPE) \
    {                             \
        static TYPE iv;           \
        shmem_wait(&iv, 0);       \
    }

static inline int shmem_api_generics(shmem_ctx_t ctx)
{
    static const int status[2] = { 0, 0 };
    static long psync[SHMEM_SYNC_SIZE];
    int rc = 0;
    /* Every type of each table, the typedefs included: a generic that leaves out a type the
     * specification lists for it (int32_t in the bitwise AMOs, say) fails here. */
    SPEC_RMA_TYPES(CALL_RMA)
    SPEC_AMO_EXTENDED_TYPES(CALL_AMO_EXTENDED)
    SPEC_AMO_STANDARD_TYPES(CALL_AMO_STANDARD)
    SPEC_AMO_BITWISE_TYPES(CALL_AMO_BITWISE)
    SPEC_P2P_TYPES(CALL_P2P)
    SPEC_REDUCE_BITWISE_TYPES(CALL_REDUCE_BITWISE)
    SPEC_REDUCE_MINMAX_TYPES(CALL_REDUCE_MINMAX)
    SPEC_COMPLEX_TYPES(CALL_REDUCE_ARITH)
    SPEC_OLD_AMO_TYPES(CALL_OLD_AMO)
    SPEC_OLD_AMO_TYPES(CALL_OLD_AMO_EXTENDED)
    CALL_OLD_AMO_EXTENDED(float, float)
    CALL_OLD_AMO_EXTENDED(double, double)
    SPEC_TO_ALL_INT_TYPES(CALL_OLD_WAIT)
    /* shmem_sync: the team form and the deprecated active-set form. */
    rc |= shmem_sync(SHMEM_TEAM_WORLD);
    shmem_sync(0, 0, 2, psync);
    return rc;
}

#endif /* SYMH_SHMEM_API_REFS_H */
