/* OpenSHMEM 1.5 for C and C++ over symheap's symh_ API (docs/openshmem.md): every routine, type
 * and constant of the specification, each routine exported by libsymheap with its profiling
 * name (pshmem_*, OpenSHMEM 1.5's profiling interface: weak shmem_X over strong pshmem_X), the
 * C11 type-generic interfaces (_Generic) and, in C++, overloads of the same names. The typed
 * families are declared from the tables of <symheap/rma.h> and <symheap/coll.h> and the rows
 * below, from which libsymheap also defines them (as aliases of the symh_ code where the
 * signature is the same, src/transport/tl_amo.c and src/collectives/coll_ops.c; else a thin
 * definition, src/shmem/shmem_api.c). */
#ifndef SYMH_SHMEM_H
#define SYMH_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include <symheap.h>

/* ---- constants ------------------------------------------------------------------------------ */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN  SYMH_MAX_NAME_LEN
/* What shmem_info_get_name writes. */
#define SHMEM_VENDOR_STRING SYMH_VENDOR_STRING " " SYMH_VERSION_STRING
/* The vendor macro: defined by symheap's <shmem.h> alone, so that bindings and build systems which
 * tell implementations apart by a macro (OSHMEM_MAJOR_VERSION for Open MPI's, OSHMPI_NUMVERSION for
 * OSHMPI's) can recognise symheap, and compare versions in #if (docs/openshmem.md "Telling
 * symheap apart"). major * 10000 + minor * 100 + patch. */
#define SYMHEAP_NUMVERSION \
    (SYMH_VERSION_MAJOR * 10000 + SYMH_VERSION_MINOR * 100 + SYMH_VERSION_PATCH)

#define SHMEM_THREAD_SINGLE     SYMH_THREAD_SINGLE
#define SHMEM_THREAD_FUNNELED   SYMH_THREAD_FUNNELED
#define SHMEM_THREAD_SERIALIZED SYMH_THREAD_SERIALIZED
#define SHMEM_THREAD_MULTIPLE   SYMH_THREAD_MULTIPLE

#define SHMEM_CMP_EQ SYMH_CMP_EQ
#define SHMEM_CMP_NE SYMH_CMP_NE
#define SHMEM_CMP_GT SYMH_CMP_GT
#define SHMEM_CMP_GE SYMH_CMP_GE
#define SHMEM_CMP_LT SYMH_CMP_LT
#define SHMEM_CMP_LE SYMH_CMP_LE

#define SHMEM_SIGNAL_SET SYMH_SIGNAL_SET
#define SHMEM_SIGNAL_ADD SYMH_SIGNAL_ADD

#define SHMEM_CTX_SERIALIZED SYMH_CTX_SERIALIZED
#define SHMEM_CTX_PRIVATE    SYMH_CTX_PRIVATE
#define SHMEM_CTX_NOSTORE    SYMH_CTX_NOSTORE
#define SHMEM_CTX_DEFAULT    SYMH_CTX_DEFAULT
#define SHMEM_CTX_INVALID    SYMH_CTX_INVALID

#define SHMEM_TEAM_WORLD        SYMH_TEAM_WORLD
#define SHMEM_TEAM_SHARED       SYMH_TEAM_SHARED
#define SHMEM_TEAM_INVALID      SYMH_TEAM_INVALID
#define SHMEM_TEAM_NUM_CONTEXTS SYMH_TEAM_NUM_CONTEXTS

#define SHMEM_MALLOC_ATOMICS_REMOTE SYMH_MALLOC_ATOMICS_REMOTE
#define SHMEM_MALLOC_SIGNAL_REMOTE  SYMH_MALLOC_SIGNAL_REMOTE

/* The work arrays of the deprecated active-set collectives (src/shmem/). Their routines use the
 * first two words of pSync and no pWrk, so these only have to be sizes a program can allocate;
 * each is at least what OpenSHMEM implementations commonly use. */
#define SHMEM_SYNC_VALUE              0L
#define SHMEM_SYNC_SIZE               64
#define SHMEM_BARRIER_SYNC_SIZE       SHMEM_SYNC_SIZE
#define SHMEM_BCAST_SYNC_SIZE         SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE       SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE        SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE      SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE     SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 16

/* Deprecated spellings (OpenSHMEM 1.5 Annex F). */
#define _SHMEM_MAJOR_VERSION           SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION           SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN            SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING           SHMEM_VENDOR_STRING
#define _SHMEM_SYNC_VALUE              SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE       SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE         SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE       SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE        SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_CMP_EQ                  SHMEM_CMP_EQ
#define _SHMEM_CMP_NE                  SHMEM_CMP_NE
#define _SHMEM_CMP_GT                  SHMEM_CMP_GT
#define _SHMEM_CMP_GE                  SHMEM_CMP_GE
#define _SHMEM_CMP_LT                  SHMEM_CMP_LT
#define _SHMEM_CMP_LE                  SHMEM_CMP_LE

SYMH_BEGIN_C_DECLS

/* ---- types ---------------------------------------------------------------------------------- */
typedef symh_ctx_t shmem_ctx_t;
typedef symh_team_t shmem_team_t;
typedef symh_team_config_t shmem_team_config_t;

/* ---- how every routine is declared, and defined in libsymheap ---------------------------------
 * OpenSHMEM 1.5's profiling interface: libsymheap exports each routine N twice, strong pN
 * (pshmem_putmem, pstart_pes, p_my_pe) and weak N, so that a profiling library can define N, do
 * its work and call pN (docs/openshmem.md "Profiling"). A routine with exactly the signature of
 * its symh_ routine is an alias of that code (no call in between: SYMH_SHMEM_ALIASES_symh,
 * <symheap/rma.h>, where the library defines it); the others are thin definitions in
 * src/shmem/shmem_api.c, expanded from the same rows as their declarations here:
 * X(R, RET, N, PARAMS, TARGET, ARGS) is routine N returning R, defined as { RET TARGET ARGS; }
 * (RET `return`, or nothing for void). */
#if defined(SYMH_SHMEM_DEFINE_FORWARDERS) /* src/shmem/shmem_api.c only */
#define SYMH_SHMEM_ROUTINE_(R, RET, N, PARAMS, TARGET, ARGS) \
    SYMH_SHMEM_DECLARE_(R, N, PARAMS)                        \
    SYMH_API R p##N PARAMS                                   \
    {                                                        \
        RET TARGET ARGS;                                     \
    }                                                        \
    SYMH_SHMEM_WEAK_(N);
#define SYMH_SHMEM_ALIASED_(R, RET, N, PARAMS, TARGET, ARGS)
#else
#define SYMH_SHMEM_ROUTINE_(R, RET, N, PARAMS, TARGET, ARGS) SYMH_SHMEM_DECLARE_(R, N, PARAMS)
#define SYMH_SHMEM_ALIASED_(R, RET, N, PARAMS, TARGET, ARGS) SYMH_SHMEM_DECLARE_(R, N, PARAMS)
#endif
#define SYMH_SHMEM_DECLARE_(R, N, PARAMS) \
    SYMH_API R N PARAMS;                  \
    SYMH_API R p##N PARAMS;
/* For the library's definitions of pN: weak N, an alias of pN. */
#define SYMH_SHMEM_WEAK_(N) extern SYMH_API __typeof__(p##N) N __attribute__((weak, alias("p" #N)))

/* ---- the routines libsymheap defines with logic of their own (src/shmem/) -------------------- */
/* OpenSHMEM's alignment rule (any power of two), unlike symh_align's. */
SYMH_SHMEM_DECLARE_(void *, shmem_align, (size_t alignment, size_t size))
/* The specification's version (1.5), not symheap's (symh_info_get_version). */
SYMH_SHMEM_DECLARE_(void, shmem_info_get_version, (int *major, int *minor))
/* Does nothing (symheap has no profiling levels of its own); there for profiling libraries. */
SYMH_SHMEM_DECLARE_(void, shmem_pcontrol, (int level, ...))
/* Deprecated. */
SYMH_SHMEM_DECLARE_(void, start_pes, (int npes))
SYMH_SHMEM_DECLARE_(void, shmem_barrier, (int PE_start, int logPE_stride, int PE_size, long *pSync))
/* The active-set collectives over elements of BITS bits (32, 64). */
#define SYMH_SHMEM_ACTIVE_SET_DECLARE_(BITS)                                                       \
    SYMH_SHMEM_DECLARE_(void, shmem_broadcast##BITS,                                               \
                        (void *dest, const void *source, size_t nelems, int PE_root, int PE_start, \
                         int logPE_stride, int PE_size, long *pSync))                              \
    SYMH_SHMEM_DECLARE_(void, shmem_collect##BITS,                                                 \
                        (void *dest, const void *source, size_t nelems, int PE_start,              \
                         int logPE_stride, int PE_size, long *pSync))                              \
    SYMH_SHMEM_DECLARE_(void, shmem_fcollect##BITS,                                                \
                        (void *dest, const void *source, size_t nelems, int PE_start,              \
                         int logPE_stride, int PE_size, long *pSync))                              \
    SYMH_SHMEM_DECLARE_(void, shmem_alltoall##BITS,                                                \
                        (void *dest, const void *source, size_t nelems, int PE_start,              \
                         int logPE_stride, int PE_size, long *pSync))                              \
    SYMH_SHMEM_DECLARE_(void, shmem_alltoalls##BITS,                                               \
                        (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,             \
                         size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync))
SYMH_SHMEM_ACTIVE_SET_DECLARE_(32)
SYMH_SHMEM_ACTIVE_SET_DECLARE_(64)
#undef SYMH_SHMEM_ACTIVE_SET_DECLARE_

/* The active-set reductions shmem_TYPENAME_OP_to_all: the reduction table of <symheap/coll.h>
 * over these types (the complex types std::complex in C++). */
#define SYMH_SHMEM_TO_ALL_BITWISE_TYPES_A(X, A) \
    X(short, short, A)                          \
    X(int, int, A)                              \
    X(long, long, A)                            \
    X(longlong, long long, A)
#define SYMH_SHMEM_TO_ALL_MINMAX_TYPES_A(X, A) \
    SYMH_SHMEM_TO_ALL_BITWISE_TYPES_A(X, A)    \
    X(float, float, A)                         \
    X(double, double, A)                       \
    X(longdouble, long double, A)
#define SYMH_SHMEM_TO_ALL_COMPLEX_TYPES_A(X, A) \
    X(complexd, SYMH_COMPLEXD, A)               \
    X(complexf, SYMH_COMPLEXF, A)
/* X(NAME, TYPE, OP) once per _to_all routine. */
#define SYMH_SHMEM_TO_ALL_FOR_EACH(X)                                                         \
    SYMH_REDUCE_TABLE(X, SYMH_SHMEM_TO_ALL_BITWISE_TYPES_A, SYMH_SHMEM_TO_ALL_MINMAX_TYPES_A, \
                      SYMH_SHMEM_TO_ALL_COMPLEX_TYPES_A)
#define SYMH_SHMEM_TO_ALL_DECLARE_(NAME, TYPE, OP)                                   \
    SYMH_SHMEM_DECLARE_(void, shmem_##NAME##_##OP##_to_all,                          \
                        (TYPE * dest, const TYPE *source, int nreduce, int PE_start, \
                         int logPE_stride, int PE_size, TYPE *pWrk, long *pSync))
SYMH_SHMEM_TO_ALL_FOR_EACH(SYMH_SHMEM_TO_ALL_DECLARE_)
#undef SYMH_SHMEM_TO_ALL_DECLARE_

/* ---- the routines of no family: X(R, RET, N, PARAMS, TARGET, ARGS) ---------------------------
 * symh_init's status is dropped: OpenSHMEM's shmem_init returns nothing (a failure is logged).
 * The cache routines of Annex F: symheap's memory is cache coherent, there is nothing to do. */
#define SYMH_SHMEM_ROUTINES(X)                                                                    \
    /* library setup, exit and query */                                                           \
    X(void, , shmem_init, (void), (void)symh_init, ())                                            \
    X(int, return, shmem_init_thread, (int requested, int *provided), symh_init_thread,           \
      (requested, provided))                                                                      \
    X(void, , shmem_query_thread, (int *provided), symh_query_thread, (provided))                 \
    X(void, , shmem_finalize, (void), symh_finalize, ())                                          \
    X(void, , shmem_global_exit, (int status), symh_global_exit, (status))                        \
    X(int, return, shmem_my_pe, (void), symh_my_pe, ())                                           \
    X(int, return, shmem_n_pes, (void), symh_n_pes, ())                                           \
    X(int, return, shmem_pe_accessible, (int pe), symh_pe_accessible, (pe))                       \
    X(int, return, shmem_addr_accessible, (const void *addr, int pe), symh_addr_accessible,       \
      (addr, pe))                                                                                 \
    X(void *, return, shmem_ptr, (const void *dest, int pe), symh_ptr, (dest, pe))                \
    X(void *, return, shmem_team_ptr, (shmem_team_t team, const void *dest, int pe),              \
      symh_team_ptr, (team, dest, pe))                                                            \
    X(void, , shmem_info_get_name, (char *name), symh_info_get_name, (name))                      \
    /* memory management */                                                                       \
    X(void *, return, shmem_malloc, (size_t size), symh_malloc, (size))                           \
    X(void *, return, shmem_calloc, (size_t count, size_t size), symh_calloc, (count, size))      \
    X(void *, return, shmem_realloc, (void *ptr, size_t size), symh_realloc, (ptr, size))         \
    X(void, , shmem_free, (void *ptr), symh_free, (ptr))                                          \
    X(void *, return, shmem_malloc_with_hints, (size_t size, long hints), symh_malloc_with_hints, \
      (size, hints))                                                                              \
    /* teams */                                                                                   \
    X(int, return, shmem_team_my_pe, (shmem_team_t team), symh_team_my_pe, (team))                \
    X(int, return, shmem_team_n_pes, (shmem_team_t team), symh_team_n_pes, (team))                \
    X(int, return, shmem_team_get_config,                                                         \
      (shmem_team_t team, long config_mask, shmem_team_config_t *config), symh_team_get_config,   \
      (team, config_mask, config))                                                                \
    X(int, return, shmem_team_translate_pe,                                                       \
      (shmem_team_t src_team, int src_pe, shmem_team_t dest_team), symh_team_translate_pe,        \
      (src_team, src_pe, dest_team))                                                              \
    X(int, return, shmem_team_split_strided,                                                      \
      (shmem_team_t parent_team, int start, int stride, int size,                                 \
       const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team),              \
      symh_team_split_strided, (parent_team, start, stride, size, config, config_mask, new_team)) \
    X(int, return, shmem_team_split_2d,                                                           \
      (shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,             \
       long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,        \
       long yaxis_mask, shmem_team_t *yaxis_team),                                                \
      symh_team_split_2d,                                                                         \
      (parent_team, xrange, xaxis_config, xaxis_mask, xaxis_team, yaxis_config, yaxis_mask,       \
       yaxis_team))                                                                               \
    X(void, , shmem_team_destroy, (shmem_team_t team), symh_team_destroy, (team))                 \
    /* communication contexts */                                                                  \
    X(int, return, shmem_ctx_create, (long options, shmem_ctx_t *ctx), symh_ctx_create,           \
      (options, ctx))                                                                             \
    X(int, return, shmem_team_create_ctx, (shmem_team_t team, long options, shmem_ctx_t *ctx),    \
      symh_team_create_ctx, (team, options, ctx))                                                 \
    X(void, , shmem_ctx_destroy, (shmem_ctx_t ctx), symh_ctx_destroy, (ctx))                      \
    X(int, return, shmem_ctx_get_team, (shmem_ctx_t ctx, shmem_team_t * team), symh_ctx_get_team, \
      (ctx, team))                                                                                \
    /* signals */                                                                                 \
    X(uint64_t, return, shmem_signal_fetch, (const uint64_t *sig_addr), symh_signal_fetch,        \
      (sig_addr))                                                                                 \
    X(uint64_t, return, shmem_signal_wait_until,                                                  \
      (uint64_t * sig_addr, int cmp, uint64_t cmp_value), symh_signal_wait_until,                 \
      (sig_addr, cmp, cmp_value))                                                                 \
    /* memory ordering */                                                                         \
    X(void, , shmem_fence, (void), symh_fence, ())                                                \
    X(void, , shmem_quiet, (void), symh_quiet, ())                                                \
    X(void, , shmem_ctx_fence, (shmem_ctx_t ctx), symh_ctx_fence, (ctx))                          \
    X(void, , shmem_ctx_quiet, (shmem_ctx_t ctx), symh_ctx_quiet, (ctx))                          \
    /* collectives over teams */                                                                  \
    X(void, , shmem_barrier_all, (void), symh_barrier_all, ())                                    \
    X(void, , shmem_sync_all, (void), symh_sync_all, ())                                          \
    X(int, return, shmem_team_sync, (shmem_team_t team), symh_team_sync, (team))                  \
    X(int, return, shmem_broadcastmem,                                                            \
      (shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root),            \
      symh_broadcastmem, (team, dest, source, nelems, PE_root))                                   \
    X(int, return, shmem_collectmem,                                                              \
      (shmem_team_t team, void *dest, const void *source, size_t nelems), symh_collectmem,        \
      (team, dest, source, nelems))                                                               \
    X(int, return, shmem_fcollectmem,                                                             \
      (shmem_team_t team, void *dest, const void *source, size_t nelems), symh_fcollectmem,       \
      (team, dest, source, nelems))                                                               \
    X(int, return, shmem_alltoallmem,                                                             \
      (shmem_team_t team, void *dest, const void *source, size_t nelems), symh_alltoallmem,       \
      (team, dest, source, nelems))                                                               \
    X(int, return, shmem_alltoallsmem,                                                            \
      (shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,           \
       size_t nelems),                                                                            \
      symh_alltoallsmem, (team, dest, source, dst, sst, nelems))                                  \
    /* distributed locking */                                                                     \
    X(void, , shmem_set_lock, (long *lock), symh_set_lock, (lock))                                \
    X(void, , shmem_clear_lock, (long *lock), symh_clear_lock, (lock))                            \
    X(int, return, shmem_test_lock, (long *lock), symh_test_lock, (lock))                         \
    /* deprecated (OpenSHMEM 1.5 Annex F), still supported */                                     \
    X(int, return, _my_pe, (void), symh_my_pe, ())                                                \
    X(int, return, _num_pes, (void), symh_n_pes, ())                                              \
    X(void *, return, shmalloc, (size_t size), symh_malloc, (size))                               \
    X(void, , shfree, (void *ptr), symh_free, (ptr))                                              \
    X(void *, return, shrealloc, (void *ptr, size_t size), symh_realloc, (ptr, size))             \
    X(void *, return, shmemalign, (size_t alignment, size_t size), pshmem_align,                  \
      (alignment, size))                                                                          \
    X(void, , shmem_clear_cache_inv, (void), (void)0, )                                           \
    X(void, , shmem_set_cache_inv, (void), (void)0, )                                             \
    X(void, , shmem_clear_cache_line_inv, (void *dest), (void), (dest))                           \
    X(void, , shmem_set_cache_line_inv, (void *dest), (void), (dest))                             \
    X(void, , shmem_udcflush, (void), (void)0, )                                                  \
    X(void, , shmem_udcflush_line, (void *dest), (void), (dest))
SYMH_SHMEM_ROUTINES(SYMH_SHMEM_ROUTINE_)

/* ---- how the typed families are generated ----------------------------------------------------
 * DEF(E, P, SP, CP, CA, NAME, TYPE) generates one family for one type: each routine as
 * E(R, RET, P, NAME, S, PARAMS, TARGET, ARGS), named P_NAME_S (shmem_long_put,
 * shmem_ctx_long_put) and forwarding to TARGET (symh_long_put); CP is the context parameter and
 * CA the context argument (both empty in the plain form). E is SYMH_SHMEM_T_ (the routine
 * itself, as above) or, in C++, SYMH_SHMEM_G_ (the overload of the generic name, shmem_put, that
 * calls it). */
#define SYMH_SHMEM_T_(R, RET, P, NAME, S, PARAMS, TARGET, ARGS) \
    SYMH_SHMEM_ROUTINE_(R, RET, P##_##NAME##S, PARAMS, TARGET, ARGS)
#define SYMH_SHMEM_G_(R, RET, P, NAME, S, PARAMS, TARGET, ARGS) \
    static inline R shmem##S PARAMS                             \
    {                                                           \
        return P##_##NAME##S ARGS;                              \
    }
#define SYMH_SHMEM_FORMS_(DEF, E, NAME, TYPE) \
    DEF(E, shmem, symh, (), (), NAME, TYPE)   \
    DEF(E, shmem_ctx, symh_ctx, (shmem_ctx_t ctx, ), (ctx, ), NAME, TYPE)

/* ---- the routine tables of <symheap/rma.h>: RMA, point-to-point, atomics ---------------------
 * Each row X(P, CP, CA, NAME, TYPE, KIND, OP, R, S, PARAMS, ARGS) over prefix shmem: routine
 * P_NAME_S over its symh_ twin (SYMH_SHMEM_SYMH_P(NAME S)), `return` when KIND is VALUE. */
#define SYMH_SHMEM_SYMH_shmem(N)     symh_##N
#define SYMH_SHMEM_SYMH_shmem_ctx(N) symh_ctx_##N
#define SYMH_SHMEM_RET_VOID
#define SYMH_SHMEM_RET_VALUE return
#define SYMH_SHMEM_TABLE_(P, CP, CA, NAME, TYPE, KIND, OP, R, S, PARAMS, ARGS)                 \
    SYMH_SHMEM_ROUTINE_(R, SYMH_SHMEM_RET_##KIND, P##_##NAME##S,                               \
                        (SYMH_UNPAREN_ CP SYMH_UNPAREN_ PARAMS), SYMH_SHMEM_SYMH_##P(NAME##S), \
                        (SYMH_UNPAREN_ CA SYMH_UNPAREN_ ARGS))
SYMH_RMA_FOR_EACH(SYMH_SHMEM_TABLE_, shmem, shmem_ctx_t)
SYMH_P2P_FOR_EACH(SYMH_SHMEM_TABLE_, shmem)

/* ---- signaling operations -------------------------------------------------------------------- */
#define SYMH_SHMEM_SIGNAL_ONE_(E, P, SP, CP, CA, NAME, TYPE, S)                             \
    E(void, , P, NAME, S,                                                                   \
      (SYMH_UNPAREN_ CP TYPE * dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, \
       uint64_t signal, int sig_op, int pe),                                                \
      SP##_##NAME##S, (SYMH_UNPAREN_ CA dest, source, nelems, sig_addr, signal, sig_op, pe))
#define SYMH_SHMEM_SIGNAL_DEF_(E, P, SP, CP, CA, NAME, TYPE)          \
    SYMH_SHMEM_SIGNAL_ONE_(E, P, SP, CP, CA, NAME, TYPE, _put_signal) \
    SYMH_SHMEM_SIGNAL_ONE_(E, P, SP, CP, CA, NAME, TYPE, _put_signal_nbi)
#define SYMH_SHMEM_SIGNAL_T_(NAME, TYPE) \
    SYMH_SHMEM_FORMS_(SYMH_SHMEM_SIGNAL_DEF_, SYMH_SHMEM_T_, NAME, TYPE)
SYMH_RMA_TYPES(SYMH_SHMEM_SIGNAL_T_)
#undef SYMH_SHMEM_SIGNAL_T_
#define SYMH_SHMEM_SIGNAL_MEM_DEF_(E, P, SP, CP, CA, UNUSED, TYPE)  \
    SYMH_SHMEM_SIGNAL_ONE_(E, P, SP, CP, CA, putmem, void, _signal) \
    SYMH_SHMEM_SIGNAL_ONE_(E, P, SP, CP, CA, putmem, void, _signal_nbi)
SYMH_SHMEM_FORMS_(SYMH_SHMEM_SIGNAL_MEM_DEF_, SYMH_SHMEM_T_, mem, void)
#undef SYMH_SHMEM_SIGNAL_MEM_DEF_
#define SYMH_SHMEM_SIGNAL_SIZED_DEF_(E, P, SP, CP, CA, BITS, UNUSED)   \
    SYMH_SHMEM_SIGNAL_ONE_(E, P, SP, CP, CA, put##BITS, void, _signal) \
    SYMH_SHMEM_SIGNAL_ONE_(E, P, SP, CP, CA, put##BITS, void, _signal_nbi)
#define SYMH_SHMEM_SIGNAL_SIZED_T_(BITS) \
    SYMH_SHMEM_FORMS_(SYMH_SHMEM_SIGNAL_SIZED_DEF_, SYMH_SHMEM_T_, BITS, void)
SYMH_RMA_SIZES(SYMH_SHMEM_SIGNAL_SIZED_T_)
#undef SYMH_SHMEM_SIGNAL_SIZED_T_
#undef SYMH_SHMEM_SIGNAL_SIZED_DEF_

/* The atomics and the typed team collectives (<symheap/coll.h>): aliases of their symh_ code
 * (src/transport/tl_amo.c, src/collectives/coll_ops.c). */
#define SYMH_SHMEM_ALIASED_ROW_(P, CP, CA, NAME, TYPE, KIND, OP, R, S, PARAMS, ARGS) \
    SYMH_SHMEM_ALIASED_(R, , P##_##NAME##S, (SYMH_UNPAREN_ CP SYMH_UNPAREN_ PARAMS), , )
SYMH_AMO_FOR_EACH(SYMH_SHMEM_ALIASED_ROW_, shmem, shmem_ctx_t)
SYMH_COLL_FOR_EACH(SYMH_SHMEM_ALIASED_ROW_, shmem)

/* ---- collectives over teams ------------------------------------------------------------------ */
#define SYMH_SHMEM_ALIASED_T_(R, RET, P, NAME, S, PARAMS, TARGET, ARGS) \
    SYMH_SHMEM_ALIASED_(R, RET, P##_##NAME##S, PARAMS, TARGET, ARGS)
/* Reductions shmem_TYPENAME_OP_reduce: the reduction table of <symheap/coll.h>. */
#define SYMH_SHMEM_REDUCE_(E, NAME, TYPE, OP)                               \
    E(int, return, shmem, NAME, _##OP##_reduce,                             \
      (shmem_team_t team, TYPE * dest, const TYPE *source, size_t nreduce), \
      symh_##NAME##_##OP##_reduce, (team, dest, source, nreduce))
#define SYMH_SHMEM_REDUCE_T_(NAME, TYPE, OP) \
    SYMH_SHMEM_REDUCE_(SYMH_SHMEM_ALIASED_T_, NAME, TYPE, OP)
SYMH_REDUCE_FOR_EACH(SYMH_SHMEM_REDUCE_T_)
#undef SYMH_SHMEM_REDUCE_T_

/* The atomics before 1.4 names: shmem_TYPENAME_fetch/set/swap (int, long, longlong, float,
 * double) and cswap/finc/inc/fadd/add (int, long, longlong). */
#define SYMH_SHMEM_OLD_AMO_TYPES(X) \
    X(int, int)                     \
    X(long, long)                   \
    X(longlong, long long)
#define SYMH_SHMEM_OLD_AMO_EXTENDED_TYPES(X) \
    SYMH_SHMEM_OLD_AMO_TYPES(X)              \
    X(float, float)                          \
    X(double, double)
#define SYMH_SHMEM_OLD_AMO_ONE_(E, NAME, R, S, NEW, PARAMS, ARGS) \
    E(R, return, shmem, NAME, S, PARAMS, symh_##NAME##NEW, ARGS)
#define SYMH_SHMEM_OLD_AMO_VOID_(E, NAME, S, NEW, PARAMS, ARGS) \
    E(void, , shmem, NAME, S, PARAMS, symh_##NAME##NEW, ARGS)
#define SYMH_SHMEM_OLD_AMO_EXTENDED_DEF_(E, NAME, TYPE)                                            \
    SYMH_SHMEM_OLD_AMO_ONE_(E, NAME, TYPE, _fetch, _atomic_fetch, (const TYPE *source, int pe),    \
                            (source, pe))                                                          \
    SYMH_SHMEM_OLD_AMO_VOID_(E, NAME, _set, _atomic_set, (TYPE * dest, TYPE value, int pe),        \
                             (dest, value, pe))                                                    \
    SYMH_SHMEM_OLD_AMO_ONE_(E, NAME, TYPE, _swap, _atomic_swap, (TYPE * dest, TYPE value, int pe), \
                            (dest, value, pe))
#define SYMH_SHMEM_OLD_AMO_DEF_(E, NAME, TYPE)                                                     \
    SYMH_SHMEM_OLD_AMO_ONE_(E, NAME, TYPE, _cswap, _atomic_compare_swap,                           \
                            (TYPE * dest, TYPE cond, TYPE value, int pe), (dest, cond, value, pe)) \
    SYMH_SHMEM_OLD_AMO_ONE_(E, NAME, TYPE, _finc, _atomic_fetch_inc, (TYPE * dest, int pe),        \
                            (dest, pe))                                                            \
    SYMH_SHMEM_OLD_AMO_VOID_(E, NAME, _inc, _atomic_inc, (TYPE * dest, int pe), (dest, pe))        \
    SYMH_SHMEM_OLD_AMO_ONE_(E, NAME, TYPE, _fadd, _atomic_fetch_add,                               \
                            (TYPE * dest, TYPE value, int pe), (dest, value, pe))                  \
    SYMH_SHMEM_OLD_AMO_VOID_(E, NAME, _add, _atomic_add, (TYPE * dest, TYPE value, int pe),        \
                             (dest, value, pe))
#define SYMH_SHMEM_OLD_AMO_T_(NAME, TYPE) SYMH_SHMEM_OLD_AMO_DEF_(SYMH_SHMEM_T_, NAME, TYPE)
#define SYMH_SHMEM_OLD_AMO_EXTENDED_T_(NAME, TYPE) \
    SYMH_SHMEM_OLD_AMO_EXTENDED_DEF_(SYMH_SHMEM_T_, NAME, TYPE)
SYMH_SHMEM_OLD_AMO_TYPES(SYMH_SHMEM_OLD_AMO_T_)
SYMH_SHMEM_OLD_AMO_EXTENDED_TYPES(SYMH_SHMEM_OLD_AMO_EXTENDED_T_)
#undef SYMH_SHMEM_OLD_AMO_T_
#undef SYMH_SHMEM_OLD_AMO_EXTENDED_T_

/* shmem_TYPENAME_wait (short, int, long, longlong): wait until *ivar != cmp_value. */
#define SYMH_SHMEM_OLD_WAIT_TYPES(X) \
    X(short, short)                  \
    X(int, int)                      \
    X(long, long)                    \
    X(longlong, long long)
#define SYMH_SHMEM_OLD_WAIT_DEF_(E, NAME, TYPE)                                            \
    E(void, , shmem, NAME, _wait, (TYPE * ivar, TYPE cmp_value), symh_##NAME##_wait_until, \
      (ivar, SYMH_CMP_NE, cmp_value))
#define SYMH_SHMEM_OLD_WAIT_T_(NAME, TYPE) SYMH_SHMEM_OLD_WAIT_DEF_(SYMH_SHMEM_T_, NAME, TYPE)
SYMH_SHMEM_OLD_WAIT_TYPES(SYMH_SHMEM_OLD_WAIT_T_)
#undef SYMH_SHMEM_OLD_WAIT_T_

/* The C11 interfaces' answer to an argument of a type they do not take: a call to this
 * function (declared, never defined) is "too many arguments to function". */
void symh_shmem_generic_type_not_supported(void);

SYMH_END_C_DECLS

/* ---- the type-generic interfaces ---------------------------------------------------------------
 * The types of each generic list are those of the corresponding X-macro list above, each type
 * once (_Generic and overloading take a type once): a typedef (int8_t .. uint64_t, size_t,
 * ptrdiff_t) is left out where the list already names the type it stands for, and kept where it
 * does not (the bitwise lists name no signed type but their int32_t and int64_t, and int8_t ..
 * int64_t of the bitwise reductions). On the LP64 targets symheap builds for, int8_t .. int64_t
 * are signed char, short, int and long, and uint8_t .. uint64_t, size_t and ptrdiff_t their
 * unsigned and signed twins. X(NAME, TYPE, A, B) passes two arguments through. */
#define SYMH_SHMEM_GEN_INT_TYPES(X, A, B) \
    X(int, int, A, B)                     \
    X(long, long, A, B)                   \
    X(longlong, long long, A, B)
#define SYMH_SHMEM_GEN_AMO_UNSIGNED_TYPES(X, A, B) \
    X(uint, unsigned int, A, B)                    \
    X(ulong, unsigned long, A, B)                  \
    X(ulonglong, unsigned long long, A, B)
#define SYMH_SHMEM_GEN_UNSIGNED_TYPES(X, A, B) \
    X(uchar, unsigned char, A, B)              \
    X(ushort, unsigned short, A, B)            \
    SYMH_SHMEM_GEN_AMO_UNSIGNED_TYPES(X, A, B)
#define SYMH_SHMEM_GEN_RMA_TYPES(X, A, B) \
    X(float, float, A, B)                 \
    X(double, double, A, B)               \
    X(longdouble, long double, A, B)      \
    X(char, char, A, B)                   \
    X(schar, signed char, A, B)           \
    X(short, short, A, B)                 \
    SYMH_SHMEM_GEN_INT_TYPES(X, A, B)     \
    SYMH_SHMEM_GEN_UNSIGNED_TYPES(X, A, B)
#define SYMH_SHMEM_GEN_AMO_BITWISE_TYPES(X, A, B) \
    SYMH_SHMEM_GEN_AMO_UNSIGNED_TYPES(X, A, B)    \
    X(int32, int32_t, A, B)                       \
    X(int64, int64_t, A, B)
#define SYMH_SHMEM_GEN_AMO_STANDARD_TYPES(X, A, B) \
    SYMH_SHMEM_GEN_INT_TYPES(X, A, B)              \
    SYMH_SHMEM_GEN_AMO_UNSIGNED_TYPES(X, A, B)
#define SYMH_SHMEM_GEN_AMO_FLOAT_TYPES(X, A, B) \
    X(float, float, A, B)                       \
    X(double, double, A, B)
#define SYMH_SHMEM_GEN_AMO_EXTENDED_TYPES(X, A, B) \
    SYMH_SHMEM_GEN_AMO_STANDARD_TYPES(X, A, B)     \
    SYMH_SHMEM_GEN_AMO_FLOAT_TYPES(X, A, B)
#define SYMH_SHMEM_GEN_P2P_TYPES(X, A, B) \
    X(short, short, A, B)                 \
    SYMH_SHMEM_GEN_INT_TYPES(X, A, B)     \
    X(ushort, unsigned short, A, B)       \
    SYMH_SHMEM_GEN_AMO_UNSIGNED_TYPES(X, A, B)
#define SYMH_SHMEM_GEN_REDUCE_BITWISE_TYPES(X, A, B) \
    SYMH_SHMEM_GEN_UNSIGNED_TYPES(X, A, B)           \
    X(int8, int8_t, A, B)                            \
    X(int16, int16_t, A, B)                          \
    X(int32, int32_t, A, B)                          \
    X(int64, int64_t, A, B)
/* max, min, sum, prod: the standard RMA types. */
#define SYMH_SHMEM_GEN_REDUCE_MINMAX_TYPES(X, A, B) SYMH_SHMEM_GEN_RMA_TYPES(X, A, B)
/* sum and prod only (std::complex in C++). */
#define SYMH_SHMEM_GEN_REDUCE_COMPLEX_TYPES(X, A, B) \
    X(complexd, SYMH_COMPLEXD, A, B)                 \
    X(complexf, SYMH_COMPLEXF, A, B)
#define SYMH_SHMEM_GEN_OLD_AMO_TYPES(X, A, B) SYMH_SHMEM_GEN_INT_TYPES(X, A, B)
#define SYMH_SHMEM_GEN_OLD_AMO_FLOAT_TYPES(X, A, B) \
    X(float, float, A, B)                           \
    X(double, double, A, B)
#define SYMH_SHMEM_GEN_OLD_AMO_EXTENDED_TYPES(X, A, B) \
    SYMH_SHMEM_GEN_OLD_AMO_TYPES(X, A, B)              \
    SYMH_SHMEM_GEN_OLD_AMO_FLOAT_TYPES(X, A, B)

#if defined(__cplusplus)
/* C++: overloads of the generic names, generated by the same DEF macros and tables as the typed
 * routines (E SYMH_SHMEM_G_); each calls its typed routine, so a profiling library sees it. */
#define SYMH_SHMEM_CXX_CTX_(NAME, TYPE, DEF, UNUSED) \
    SYMH_SHMEM_FORMS_(DEF, SYMH_SHMEM_G_, NAME, TYPE)
#define SYMH_SHMEM_CXX_ONE_(NAME, TYPE, DEF, UNUSED) DEF(SYMH_SHMEM_G_, NAME, TYPE)
#define SYMH_SHMEM_CXX_ROW_(P, CP, CA, NAME, TYPE, KIND, OP, R, S, PARAMS, ARGS)    \
    SYMH_SHMEM_G_(R, return, P, NAME, S, (SYMH_UNPAREN_ CP SYMH_UNPAREN_ PARAMS), , \
                  (SYMH_UNPAREN_ CA SYMH_UNPAREN_ ARGS))
#define SYMH_SHMEM_CXX_FAMILY_(NAME, TYPE, ROUTINES, UNUSED) \
    ROUTINES(SYMH_SHMEM_CXX_ROW_, shmem, (), (), NAME, TYPE) \
    ROUTINES(SYMH_SHMEM_CXX_ROW_, shmem_ctx, (shmem_ctx_t ctx, ), (ctx, ), NAME, TYPE)
#define SYMH_SHMEM_CXX_PLAIN_FAMILY_(NAME, TYPE, ROUTINES, UNUSED) \
    ROUTINES(SYMH_SHMEM_CXX_ROW_, shmem, (), (), NAME, TYPE)
#define SYMH_SHMEM_CXX_REDUCE_(NAME, TYPE, OP) SYMH_SHMEM_REDUCE_(SYMH_SHMEM_G_, NAME, TYPE, OP)
#define SYMH_SHMEM_CXX_REDUCE_EACH_(NAME, TYPE, EACH, UNUSED) \
    EACH(NAME, TYPE, SYMH_SHMEM_CXX_REDUCE_)
extern "C++" {
SYMH_SHMEM_GEN_RMA_TYPES(SYMH_SHMEM_CXX_FAMILY_, SYMH_RMA_ROUTINES, ~)
SYMH_SHMEM_GEN_RMA_TYPES(SYMH_SHMEM_CXX_CTX_, SYMH_SHMEM_SIGNAL_DEF_, ~)
SYMH_SHMEM_GEN_AMO_STANDARD_TYPES(SYMH_SHMEM_CXX_FAMILY_, SYMH_AMO_STANDARD_ROUTINES, ~)
SYMH_SHMEM_GEN_AMO_FLOAT_TYPES(SYMH_SHMEM_CXX_FAMILY_, SYMH_AMO_FETCH_SET_SWAP_ROUTINES, ~)
SYMH_SHMEM_GEN_AMO_BITWISE_TYPES(SYMH_SHMEM_CXX_FAMILY_, SYMH_AMO_BITWISE_ROUTINES, ~)
SYMH_SHMEM_GEN_RMA_TYPES(SYMH_SHMEM_CXX_PLAIN_FAMILY_, SYMH_COLL_ROUTINES, ~)
SYMH_SHMEM_GEN_REDUCE_BITWISE_TYPES(SYMH_SHMEM_CXX_REDUCE_EACH_, SYMH_REDUCE_EACH_BITWISE_, ~)
SYMH_SHMEM_GEN_REDUCE_MINMAX_TYPES(SYMH_SHMEM_CXX_REDUCE_EACH_, SYMH_REDUCE_EACH_MINMAX_, ~)
SYMH_SHMEM_GEN_REDUCE_COMPLEX_TYPES(SYMH_SHMEM_CXX_REDUCE_EACH_, SYMH_REDUCE_EACH_ARITH_, ~)
SYMH_SHMEM_GEN_P2P_TYPES(SYMH_SHMEM_CXX_PLAIN_FAMILY_, SYMH_P2P_ROUTINES, ~)
SYMH_SHMEM_GEN_OLD_AMO_TYPES(SYMH_SHMEM_CXX_ONE_, SYMH_SHMEM_OLD_AMO_DEF_, ~)
SYMH_SHMEM_GEN_OLD_AMO_EXTENDED_TYPES(SYMH_SHMEM_CXX_ONE_, SYMH_SHMEM_OLD_AMO_EXTENDED_DEF_, ~)
#define SYMH_SHMEM_CXX_OLD_WAIT_(NAME, TYPE)                  \
    static inline void shmem_wait(TYPE *ivar, TYPE cmp_value) \
    {                                                         \
        shmem_##NAME##_wait(ivar, cmp_value);                 \
    }
SYMH_SHMEM_OLD_WAIT_TYPES(SYMH_SHMEM_CXX_OLD_WAIT_)
#undef SYMH_SHMEM_CXX_OLD_WAIT_
/* shmem_sync: the team form, and the deprecated active-set form (a barrier satisfies it). */
static inline int shmem_sync(shmem_team_t team)
{
    return shmem_team_sync(team);
}
static inline void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    shmem_barrier(PE_start, logPE_stride, PE_size, pSync);
}
}
#undef SYMH_SHMEM_CXX_CTX_
#undef SYMH_SHMEM_CXX_ONE_
#undef SYMH_SHMEM_CXX_ROW_
#undef SYMH_SHMEM_CXX_FAMILY_
#undef SYMH_SHMEM_CXX_PLAIN_FAMILY_
#undef SYMH_SHMEM_CXX_REDUCE_
#undef SYMH_SHMEM_CXX_REDUCE_EACH_

#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* C11: _Generic over the pointer argument that carries the type (the destination, or the source
 * of g and fetch), `TYPE *`, `const TYPE *` and `volatile TYPE *` alike (programs written for
 * OpenSHMEM before 1.4 wait on volatile variables: the call then warns that the qualifier is
 * discarded, as the typed routine would, instead of failing to select). The routines with a
 * context form choose it when the first argument is a shmem_ctx_t. */
#define SYMH_SHMEM_ARG0_(...)           SYMH_SHMEM_ARG0_I_(__VA_ARGS__, 0)
#define SYMH_SHMEM_ARG0_I_(A0, ...)     A0
#define SYMH_SHMEM_ARG1_(...)           SYMH_SHMEM_ARG1_I_(__VA_ARGS__, 0, 0)
#define SYMH_SHMEM_ARG1_I_(A0, A1, ...) A1
#define SYMH_SHMEM_ASSOC_(NAME, TYPE, P, S) \
    TYPE * : P##NAME##S, const TYPE * : P##NAME##S, volatile TYPE * : P##NAME##S,
#define SYMH_SHMEM_SELECT_(LIST, P, S, ARG) \
    _Generic((ARG), LIST(SYMH_SHMEM_ASSOC_, P, S) default : symh_shmem_generic_type_not_supported)
#define SYMH_SHMEM_CTX_SELECT_(LIST, S, ...)                                                   \
    _Generic((SYMH_SHMEM_ARG0_(__VA_ARGS__)), shmem_ctx_t                                      \
             : SYMH_SHMEM_SELECT_(LIST, shmem_ctx_, S, SYMH_SHMEM_ARG1_(__VA_ARGS__)), default \
             : SYMH_SHMEM_SELECT_(LIST, shmem_, S, SYMH_SHMEM_ARG0_(__VA_ARGS__)))

#define SYMH_SHMEM_RMA_GEN_(S, ...) \
    SYMH_SHMEM_CTX_SELECT_(SYMH_SHMEM_GEN_RMA_TYPES, S, __VA_ARGS__)(__VA_ARGS__)
#define shmem_put(...)            SYMH_SHMEM_RMA_GEN_(_put, __VA_ARGS__)
#define shmem_get(...)            SYMH_SHMEM_RMA_GEN_(_get, __VA_ARGS__)
#define shmem_put_nbi(...)        SYMH_SHMEM_RMA_GEN_(_put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...)        SYMH_SHMEM_RMA_GEN_(_get_nbi, __VA_ARGS__)
#define shmem_iput(...)           SYMH_SHMEM_RMA_GEN_(_iput, __VA_ARGS__)
#define shmem_iget(...)           SYMH_SHMEM_RMA_GEN_(_iget, __VA_ARGS__)
#define shmem_p(...)              SYMH_SHMEM_RMA_GEN_(_p, __VA_ARGS__)
#define shmem_g(...)              SYMH_SHMEM_RMA_GEN_(_g, __VA_ARGS__)
#define shmem_put_signal(...)     SYMH_SHMEM_RMA_GEN_(_put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SYMH_SHMEM_RMA_GEN_(_put_signal_nbi, __VA_ARGS__)

#define SYMH_SHMEM_AMO_STANDARD_GEN_(S, ...) \
    SYMH_SHMEM_CTX_SELECT_(SYMH_SHMEM_GEN_AMO_STANDARD_TYPES, S, __VA_ARGS__)(__VA_ARGS__)
#define SYMH_SHMEM_AMO_EXTENDED_GEN_(S, ...) \
    SYMH_SHMEM_CTX_SELECT_(SYMH_SHMEM_GEN_AMO_EXTENDED_TYPES, S, __VA_ARGS__)(__VA_ARGS__)
#define SYMH_SHMEM_AMO_BITWISE_GEN_(S, ...) \
    SYMH_SHMEM_CTX_SELECT_(SYMH_SHMEM_GEN_AMO_BITWISE_TYPES, S, __VA_ARGS__)(__VA_ARGS__)
#define shmem_atomic_fetch(...)     SYMH_SHMEM_AMO_EXTENDED_GEN_(_atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...)       SYMH_SHMEM_AMO_EXTENDED_GEN_(_atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...)      SYMH_SHMEM_AMO_EXTENDED_GEN_(_atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) SYMH_SHMEM_AMO_EXTENDED_GEN_(_atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)  SYMH_SHMEM_AMO_EXTENDED_GEN_(_atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) \
    SYMH_SHMEM_AMO_STANDARD_GEN_(_atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SYMH_SHMEM_AMO_STANDARD_GEN_(_atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...)       SYMH_SHMEM_AMO_STANDARD_GEN_(_atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) SYMH_SHMEM_AMO_STANDARD_GEN_(_atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...)       SYMH_SHMEM_AMO_STANDARD_GEN_(_atomic_add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) \
    SYMH_SHMEM_AMO_STANDARD_GEN_(_atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) \
    SYMH_SHMEM_AMO_STANDARD_GEN_(_atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) \
    SYMH_SHMEM_AMO_STANDARD_GEN_(_atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) SYMH_SHMEM_AMO_BITWISE_GEN_(_atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...)  SYMH_SHMEM_AMO_BITWISE_GEN_(_atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SYMH_SHMEM_AMO_BITWISE_GEN_(_atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_and(...)       SYMH_SHMEM_AMO_BITWISE_GEN_(_atomic_and, __VA_ARGS__)
#define shmem_atomic_or(...)        SYMH_SHMEM_AMO_BITWISE_GEN_(_atomic_or, __VA_ARGS__)
#define shmem_atomic_xor(...)       SYMH_SHMEM_AMO_BITWISE_GEN_(_atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) \
    SYMH_SHMEM_AMO_BITWISE_GEN_(_atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) \
    SYMH_SHMEM_AMO_BITWISE_GEN_(_atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) \
    SYMH_SHMEM_AMO_BITWISE_GEN_(_atomic_fetch_xor_nbi, __VA_ARGS__)

/* Collectives: the team first, the type from dest. */
#define SYMH_SHMEM_TEAM_GEN_(LIST, S, ...) \
    SYMH_SHMEM_SELECT_(LIST, shmem_, S, SYMH_SHMEM_ARG1_(__VA_ARGS__))(__VA_ARGS__)
#define shmem_broadcast(...) SYMH_SHMEM_TEAM_GEN_(SYMH_SHMEM_GEN_RMA_TYPES, _broadcast, __VA_ARGS__)
#define shmem_collect(...)   SYMH_SHMEM_TEAM_GEN_(SYMH_SHMEM_GEN_RMA_TYPES, _collect, __VA_ARGS__)
#define shmem_fcollect(...)  SYMH_SHMEM_TEAM_GEN_(SYMH_SHMEM_GEN_RMA_TYPES, _fcollect, __VA_ARGS__)
#define shmem_alltoall(...)  SYMH_SHMEM_TEAM_GEN_(SYMH_SHMEM_GEN_RMA_TYPES, _alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) SYMH_SHMEM_TEAM_GEN_(SYMH_SHMEM_GEN_RMA_TYPES, _alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) \
    SYMH_SHMEM_TEAM_GEN_(SYMH_SHMEM_GEN_REDUCE_BITWISE_TYPES, _and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) \
    SYMH_SHMEM_TEAM_GEN_(SYMH_SHMEM_GEN_REDUCE_BITWISE_TYPES, _or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) \
    SYMH_SHMEM_TEAM_GEN_(SYMH_SHMEM_GEN_REDUCE_BITWISE_TYPES, _xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) \
    SYMH_SHMEM_TEAM_GEN_(SYMH_SHMEM_GEN_REDUCE_MINMAX_TYPES, _max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) \
    SYMH_SHMEM_TEAM_GEN_(SYMH_SHMEM_GEN_REDUCE_MINMAX_TYPES, _min_reduce, __VA_ARGS__)
/* sum and prod take the complex types too. */
#define SYMH_SHMEM_GEN_REDUCE_ARITH_TYPES(X, A, B) \
    SYMH_SHMEM_GEN_REDUCE_MINMAX_TYPES(X, A, B)    \
    SYMH_SHMEM_GEN_REDUCE_COMPLEX_TYPES(X, A, B)
#define shmem_sum_reduce(...) \
    SYMH_SHMEM_TEAM_GEN_(SYMH_SHMEM_GEN_REDUCE_ARITH_TYPES, _sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) \
    SYMH_SHMEM_TEAM_GEN_(SYMH_SHMEM_GEN_REDUCE_ARITH_TYPES, _prod_reduce, __VA_ARGS__)
/* shmem_sync: the team form, or the deprecated active-set form (a barrier satisfies it). */
#define shmem_sync(...)                                    \
    _Generic((SYMH_SHMEM_ARG0_(__VA_ARGS__)), shmem_team_t \
             : shmem_team_sync, default                    \
             : shmem_barrier)(__VA_ARGS__)

/* Point-to-point synchronization: the type from ivar(s). */
#define SYMH_SHMEM_P2P_GEN_(S, ...)                                                        \
    SYMH_SHMEM_SELECT_(SYMH_SHMEM_GEN_P2P_TYPES, shmem_, S, SYMH_SHMEM_ARG0_(__VA_ARGS__)) \
    (__VA_ARGS__)
#define shmem_wait_until(...)             SYMH_SHMEM_P2P_GEN_(_wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...)         SYMH_SHMEM_P2P_GEN_(_wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...)         SYMH_SHMEM_P2P_GEN_(_wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...)        SYMH_SHMEM_P2P_GEN_(_wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...)  SYMH_SHMEM_P2P_GEN_(_wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...)  SYMH_SHMEM_P2P_GEN_(_wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) SYMH_SHMEM_P2P_GEN_(_wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...)                   SYMH_SHMEM_P2P_GEN_(_test, __VA_ARGS__)
#define shmem_test_all(...)               SYMH_SHMEM_P2P_GEN_(_test_all, __VA_ARGS__)
#define shmem_test_any(...)               SYMH_SHMEM_P2P_GEN_(_test_any, __VA_ARGS__)
#define shmem_test_some(...)              SYMH_SHMEM_P2P_GEN_(_test_some, __VA_ARGS__)
#define shmem_test_all_vector(...)        SYMH_SHMEM_P2P_GEN_(_test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...)        SYMH_SHMEM_P2P_GEN_(_test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...)       SYMH_SHMEM_P2P_GEN_(_test_some_vector, __VA_ARGS__)

/* Deprecated generic names. */
#define SYMH_SHMEM_OLD_GEN_(LIST, S, ...) \
    SYMH_SHMEM_SELECT_(LIST, shmem_, S, SYMH_SHMEM_ARG0_(__VA_ARGS__))(__VA_ARGS__)
#define shmem_fetch(...) \
    SYMH_SHMEM_OLD_GEN_(SYMH_SHMEM_GEN_OLD_AMO_EXTENDED_TYPES, _fetch, __VA_ARGS__)
#define shmem_set(...) SYMH_SHMEM_OLD_GEN_(SYMH_SHMEM_GEN_OLD_AMO_EXTENDED_TYPES, _set, __VA_ARGS__)
#define shmem_swap(...) \
    SYMH_SHMEM_OLD_GEN_(SYMH_SHMEM_GEN_OLD_AMO_EXTENDED_TYPES, _swap, __VA_ARGS__)
#define shmem_cswap(...) SYMH_SHMEM_OLD_GEN_(SYMH_SHMEM_GEN_OLD_AMO_TYPES, _cswap, __VA_ARGS__)
#define shmem_finc(...)  SYMH_SHMEM_OLD_GEN_(SYMH_SHMEM_GEN_OLD_AMO_TYPES, _finc, __VA_ARGS__)
#define shmem_inc(...)   SYMH_SHMEM_OLD_GEN_(SYMH_SHMEM_GEN_OLD_AMO_TYPES, _inc, __VA_ARGS__)
#define shmem_fadd(...)  SYMH_SHMEM_OLD_GEN_(SYMH_SHMEM_GEN_OLD_AMO_TYPES, _fadd, __VA_ARGS__)
#define shmem_add(...)   SYMH_SHMEM_OLD_GEN_(SYMH_SHMEM_GEN_OLD_AMO_TYPES, _add, __VA_ARGS__)
#define SYMH_SHMEM_GEN_OLD_WAIT_TYPES(X, A, B) \
    X(short, short, A, B)                      \
    X(int, int, A, B)                          \
    X(long, long, A, B)                        \
    X(longlong, long long, A, B)
#define shmem_wait(...) SYMH_SHMEM_OLD_GEN_(SYMH_SHMEM_GEN_OLD_WAIT_TYPES, _wait, __VA_ARGS__)
#endif /* C11 / C++ */

#endif /* SYMH_SHMEM_H */
