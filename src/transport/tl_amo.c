/* transport: the atomic memory operations, as CPU atomic instructions (GCC/C11 __atomic
 * builtins) on the peer's mapped address. Every AMO type is 4 or 8 bytes, lock-free on x86-64
 * (checked below), so PEs in different processes update the same shared word atomically; a
 * type that needed libatomic's lock would only be atomic within one process. The non-blocking
 * fetching atomics and the routines built on atomics (signals, locks) share one out-of-line
 * word atomic (symh_tl_amo_word, tl_amo.h). */
#include <stdint.h>

#include <symheap/rma.h>

#include "transport/tl_amo.h"
#include "transport/tl_ctx.h"
#include "transport/tl_rma.h"

#define SYMH_TL_AMO_LOCK_FREE(NAME, TYPE)                      \
    _Static_assert(__atomic_always_lock_free(sizeof(TYPE), 0), \
                   "symh_" #NAME " atomics need lock-free " #TYPE);
SYMH_AMO_STANDARD_TYPES(SYMH_TL_AMO_LOCK_FREE)
SYMH_AMO_EXTENDED_TYPES(SYMH_TL_AMO_LOCK_FREE)
SYMH_AMO_BITWISE_TYPES(SYMH_TL_AMO_LOCK_FREE)
#undef SYMH_TL_AMO_LOCK_FREE

/* The mapped address of one TYPE on `pe` (of context C's numbering) into `remote`; for a PE that
 * is not mapped, or any PE while a NIC transport is active (all atomics of the job on one path),
 * the AMO `OP` goes through the ops table of its route on the context's channel (operands by
 * address; the old value lands in `fetched`) and the calling AMO returns `done`; a refused access
 * returns `retval`. Sequentially consistent ordering costs nothing extra on x86-64 for
 * read-modify-write (LOCK-prefixed anyway) and keeps AMOs ordered with each other, as lock idioms
 * built on them expect. */
#define SYMH_TL_AMO_TARGET(remote, C, TYPE, arg, addr, pe, retval, OP, value, cond, fetched, done) \
    do {                                                                                           \
        SYMH_TL_RMA_ACCESS(access_, arg, sizeof(TYPE), _Alignof(TYPE), SYMH_TL_RMA_BLOCKING);      \
        symh_tl_chan_t *chan_;                                                                     \
        char *mapped_;                                                                             \
                                                                                                   \
        SYMH_TL_RMA_CHECK_UP(retval);                                                              \
        if (!symh_tl_ctx_enter(__func__, C, &pe, &chan_))                                          \
            return retval;                                                                         \
        if (!symh_tl_rma_target(&access_, addr, 1, pe, &mapped_))                                  \
            return retval;                                                                         \
        if (mapped_ == NULL || symh_tl_rma.amo_ops != NULL) {                                      \
            const symh_tl_ops_t *ops_ =                                                            \
                symh_tl_rma.amo_ops != NULL ? symh_tl_rma.amo_ops : symh_tl_ops_of(pe);            \
            symh_log_context_t log_;                                                               \
                                                                                                   \
            symh_tl_rma_ops_begin(&log_, __func__, pe);                                            \
            symh_tl_rma_ops_done(                                                                  \
                &log_, ops_,                                                                       \
                ops_->amo(chan_, OP, (void *)(addr), sizeof(TYPE), value, cond, fetched, pe));     \
            return done;                                                                           \
        }                                                                                          \
        remote = (TYPE *)mapped_;                                                                  \
    } while (0)

/* ---- one word, out of line (tl_amo.h) ---------------------------------------------------- */

int symh_tl_amo_word(const symh_tl_rma_access_t *access, symh_tl_chan_t *chan, symh_tl_amo_op_t op,
                     void *addr, const void *value, const void *cond, void *fetched, int pe)
{
    const symh_tl_ops_t *ops;
    symh_log_context_t log;
    char *mapped;
    int status;

    SYMH_TL_RMA_CHECK_UP_IN(access->func, SYMH_ERR_NOT_INITIALIZED);
    if (!symh_tl_rma_target(access, addr, 1, pe, &mapped))
        return symh_last_error();
    /* The job's NIC route while one is active; else the mapped word through the IPC ops' CPU
     * atomics, or the PE's own route. */
    ops = symh_tl_rma.amo_ops != NULL ? symh_tl_rma.amo_ops
          : mapped != NULL            ? &symh_tl_ipc_ops
                                      : symh_tl_ops_of(pe);
    symh_tl_rma_ops_begin(&log, access->func, pe);
    status = ops->amo(chan, op, addr, access->elem_size, value, cond, fetched, pe);
    symh_tl_rma_ops_done(&log, ops, status);
    return status;
}

/* ---- the non-blocking fetching atomics ---------------------------------------------------
 * Each completes in the call (the old value is in *fetch on return), which the specification
 * allows: completion by the next quiet is the latest, not the only, point. */

/* Whether a non-blocking fetching atomic may go on: symheap is up, `fetch` is not NULL and the
 * context is valid (its channel into *chan, *pe into the world's numbering). */
static int symh_tl_amo_nbi_ok(const char *func, symh_ctx_t ctx, const void *fetch, int *pe,
                              symh_tl_chan_t **chan)
{
    SYMH_TL_RMA_CHECK_UP_IN(func, 0);
    if (!symh_tl_ctx_enter(func, ctx, pe, chan))
        return 0;
    if (__builtin_expect(fetch != NULL, 1))
        return 1;
    symh_error("%s: fetch is NULL", func);
    symh_status_set(SYMH_ERR_INVALID_ARG);
    return 0;
}

#define SYMH_TL_AMO_NBI(C, TYPE, arg, addr, OPCODE, value, cond)                                   \
    {                                                                                              \
        SYMH_TL_RMA_ACCESS(access, arg, sizeof(TYPE), _Alignof(TYPE), SYMH_TL_RMA_BLOCKING);       \
        symh_tl_chan_t *chan;                                                                      \
                                                                                                   \
        if (symh_tl_amo_nbi_ok(__func__, C, fetch, &pe, &chan))                                    \
            (void)symh_tl_amo_word(&access, chan, OPCODE, (void *)(addr), value, cond, fetch, pe); \
    }

/* ---- the public atomics ------------------------------------------------------------------
 * Every routine of the tables of <symheap/rma.h> (SYMH_AMO_FOR_EACH), plain and with a context,
 * each with its OpenSHMEM names as aliases (weak shmem_, strong pshmem_). The body of each KIND:
 * BODY_KIND(C, TYPE, OP) with C the context; fetch, set and swap use the generic builtins, which
 * take float and double as well. The argument names are the tables'. */
#define SYMH_TL_AMO_OPCODE_add SYMH_TL_AMO_ADD
#define SYMH_TL_AMO_OPCODE_and SYMH_TL_AMO_AND
#define SYMH_TL_AMO_OPCODE_or  SYMH_TL_AMO_OR
#define SYMH_TL_AMO_OPCODE_xor SYMH_TL_AMO_XOR

#define SYMH_TL_AMO_BODY_FETCH(C, TYPE, OP)                                                   \
    {                                                                                         \
        TYPE *remote, result = 0;                                                             \
                                                                                              \
        SYMH_TL_AMO_TARGET(remote, C, TYPE, "source", source, pe, 0, SYMH_TL_AMO_FETCH, NULL, \
                           NULL, &result, result);                                            \
        __atomic_load(remote, &result, __ATOMIC_SEQ_CST);                                     \
        symh_status_set(SYMH_OK);                                                             \
        return result;                                                                        \
    }
#define SYMH_TL_AMO_BODY_SET(C, TYPE, OP)                                                      \
    {                                                                                          \
        TYPE *remote;                                                                          \
                                                                                               \
        SYMH_TL_AMO_TARGET(remote, C, TYPE, "dest", dest, pe, , SYMH_TL_AMO_SET, &value, NULL, \
                           NULL, );                                                            \
        __atomic_store(remote, &value, __ATOMIC_SEQ_CST);                                      \
        symh_status_set(SYMH_OK);                                                              \
    }
#define SYMH_TL_AMO_BODY_SWAP(C, TYPE, OP)                                                       \
    {                                                                                            \
        TYPE *remote, result = 0;                                                                \
                                                                                                 \
        SYMH_TL_AMO_TARGET(remote, C, TYPE, "dest", dest, pe, 0, SYMH_TL_AMO_SWAP, &value, NULL, \
                           &result, result);                                                     \
        __atomic_exchange(remote, &value, &result, __ATOMIC_SEQ_CST);                            \
        symh_status_set(SYMH_OK);                                                                \
        return result;                                                                           \
    }
/* On failure the builtin writes the value it found into `cond`; on success that is `cond`
 * itself: either way `cond` ends up holding the old value. */
#define SYMH_TL_AMO_BODY_CSWAP(C, TYPE, OP)                                                        \
    {                                                                                              \
        TYPE *remote, result = 0;                                                                  \
                                                                                                   \
        SYMH_TL_AMO_TARGET(remote, C, TYPE, "dest", dest, pe, 0, SYMH_TL_AMO_CSWAP, &value, &cond, \
                           &result, result);                                                       \
        __atomic_compare_exchange_n(remote, &cond, value, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);  \
        symh_status_set(SYMH_OK);                                                                  \
        return cond;                                                                               \
    }
#define SYMH_TL_AMO_BODY_FINC(C, TYPE, OP)      \
    {                                           \
        TYPE value = 1;                         \
        SYMH_TL_AMO_BODY_FETCH_RMW(C, TYPE, OP) \
    }
#define SYMH_TL_AMO_BODY_INC(C, TYPE, OP) \
    {                                     \
        TYPE value = 1;                   \
        SYMH_TL_AMO_BODY_RMW(C, TYPE, OP) \
    }
/* One read-modify-write returning the old value (FETCH_RMW) or nothing (RMW). */
#define SYMH_TL_AMO_BODY_FETCH_RMW(C, TYPE, OP)                                                   \
    {                                                                                             \
        TYPE *remote, result = 0;                                                                 \
                                                                                                  \
        SYMH_TL_AMO_TARGET(remote, C, TYPE, "dest", dest, pe, 0, SYMH_TL_AMO_OPCODE_##OP, &value, \
                           NULL, &result, result);                                                \
        result = __atomic_fetch_##OP(remote, value, __ATOMIC_SEQ_CST);                            \
        symh_status_set(SYMH_OK);                                                                 \
        return result;                                                                            \
    }
#define SYMH_TL_AMO_BODY_RMW(C, TYPE, OP)                                                        \
    {                                                                                            \
        TYPE *remote;                                                                            \
                                                                                                 \
        SYMH_TL_AMO_TARGET(remote, C, TYPE, "dest", dest, pe, , SYMH_TL_AMO_OPCODE_##OP, &value, \
                           NULL, NULL, );                                                        \
        (void)__atomic_fetch_##OP(remote, value, __ATOMIC_SEQ_CST);                              \
        symh_status_set(SYMH_OK);                                                                \
    }
#define SYMH_TL_AMO_BODY_FETCH_NBI(C, TYPE, OP) \
    SYMH_TL_AMO_NBI(C, TYPE, "source", source, SYMH_TL_AMO_FETCH, NULL, NULL)
#define SYMH_TL_AMO_BODY_SWAP_NBI(C, TYPE, OP) \
    SYMH_TL_AMO_NBI(C, TYPE, "dest", dest, SYMH_TL_AMO_SWAP, &value, NULL)
#define SYMH_TL_AMO_BODY_CSWAP_NBI(C, TYPE, OP) \
    SYMH_TL_AMO_NBI(C, TYPE, "dest", dest, SYMH_TL_AMO_CSWAP, &value, &cond)
#define SYMH_TL_AMO_BODY_FINC_NBI(C, TYPE, OP)      \
    {                                               \
        TYPE value = 1;                             \
        SYMH_TL_AMO_BODY_FETCH_RMW_NBI(C, TYPE, OP) \
    }
#define SYMH_TL_AMO_BODY_FETCH_RMW_NBI(C, TYPE, OP) \
    SYMH_TL_AMO_NBI(C, TYPE, "dest", dest, SYMH_TL_AMO_OPCODE_##OP, &value, NULL)

/* The context of a routine from its context argument list CA: (ctx, ) or the default one. */
#define SYMH_TL_AMO_CTX_(...)      SYMH_TL_AMO_CTX_I_(__VA_ARGS__ SYMH_CTX_DEFAULT, ~)
#define SYMH_TL_AMO_CTX_I_(C, ...) C
#define SYMH_TL_AMO_DEFINE(P, CP, CA, NAME, TYPE, KIND, OP, R, S, PARAMS, ARGS) \
    R P##_##NAME##S(SYMH_UNPAREN_ CP SYMH_UNPAREN_ PARAMS)                      \
        SYMH_TL_AMO_BODY_##KIND(SYMH_TL_AMO_CTX_ CA, TYPE, OP) SYMH_SHMEM_ALIASES_##P(NAME##S)
SYMH_AMO_FOR_EACH(SYMH_TL_AMO_DEFINE, symh, symh_ctx_t)
