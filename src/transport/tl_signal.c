/* transport: put-with-signal and symh_signal_fetch (docs/signals.md). The data goes first, then
 * the signal word is updated, and whoever sees the new signal sees the data:
 * - a load/store-mapped PE: the copy, then a release store (SET) or an atomic add (ADD) on the
 *   mapped word, after a full fence when the copy may have used non-temporal stores; while a NIC
 *   transport is active the signal is an atomic through it, as every atomic of the job is;
 * - a NIC-routed PE: one message where the route has put_signal (UCX, SET, data in the heap up
 *   to SYMH_TL_SIGNAL_MESSAGE_MAX bytes), else the put, the NIC's fence (which orders the put
 *   before what follows to that PE) and the signal as an atomic. */
#include <stdint.h>

#include <symheap/rma.h>
#include <symheap/signal.h>

#include "transport/tl_amo.h"
#include "transport/tl_ctx.h"
#include "transport/tl_ipc.h"
#include "transport/tl_nic.h"
#include "transport/tl_rma.h"

/* Copies from this size on may use non-temporal stores (glibc's memcpy above its threshold, at
 * least 16 KiB), which a release store does not order: a full fence before the signal. */
#define SYMH_TL_SIGNAL_NT_BYTES 16384
/* The largest put-with-signal sent as the route's one message (an eager active message whose
 * data the target copies); above it the put, fence and atomic move the data zero-copy. */
#define SYMH_TL_SIGNAL_MESSAGE_MAX 65536

static int symh_tl_signal_op_ok(const char *func, int sig_op)
{
    if (__builtin_expect(sig_op == SYMH_SIGNAL_SET || sig_op == SYMH_SIGNAL_ADD, 1))
        return 1;
    symh_error("%s: sig_op %d is not SYMH_SIGNAL_SET (%d) or SYMH_SIGNAL_ADD (%d)", func, sig_op,
               SYMH_SIGNAL_SET, SYMH_SIGNAL_ADD);
    symh_status_set(SYMH_ERR_INVALID_ARG);
    return 0;
}

/* Every put-with-signal: `access` is the data's (its function names every line). */
static void symh_tl_signal_put(const symh_tl_rma_access_t *access, symh_ctx_t ctx, void *dest,
                               const void *source, size_t nelems, uint64_t *sig_addr,
                               uint64_t signal, int sig_op, int pe)
{
    const symh_tl_rma_access_t sig = { access->func, "sig_addr", sizeof(uint64_t),
                                       _Alignof(uint64_t), SYMH_TL_RMA_BLOCKING };
    size_t bytes = nelems * access->elem_size;
    char *data = NULL, *word;
    /* symh_tl_rma_resolve writes a target only where it did not map the range through the heap
     * step, so a mapped side is the heap; with no data, only the signal decides where the
     * message may go. */
    symh_space_target_t sig_at = { .kind = SYMH_SPACE_HEAP }, data_at = { .kind = SYMH_SPACE_HEAP };
    const symh_tl_ops_t *ops;
    symh_log_context_t log;
    symh_tl_chan_t *chan;
    int status;

    SYMH_TL_RMA_CHECK_UP_IN(access->func, );
    if (!symh_tl_ctx_enter(access->func, ctx, &pe, &chan))
        return;
    if (!symh_tl_signal_op_ok(access->func, sig_op))
        return;
    if (nelems > 0 && source == NULL) {
        symh_error("%s: source is NULL", access->func);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    /* Both checked before anything moves: a refused signal sends no data. */
    if (!symh_tl_rma_resolve(&sig, sig_addr, 1, pe, &sig_at, &word))
        return;
    if (nelems > 0 && !symh_tl_rma_resolve(access, dest, nelems, pe, &data_at, &data))
        return;
    if (word != NULL && (nelems == 0 || data != NULL)) { /* mapped: the data by copy */
        status = nelems > 0 ? symh_tl_ipc_copy(data, source, bytes) : SYMH_OK;
        if (status != SYMH_OK) {
            symh_status_set(status);
            return;
        }
        if (bytes >= SYMH_TL_SIGNAL_NT_BYTES || symh_tl_rma.amo_ops != NULL)
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (symh_tl_rma.amo_ops == NULL) {
            if (sig_op == SYMH_SIGNAL_SET)
                __atomic_store_n((uint64_t *)(void *)word, signal, __ATOMIC_RELEASE);
            else
                (void)__atomic_fetch_add((uint64_t *)(void *)word, signal, __ATOMIC_SEQ_CST);
            symh_status_set(SYMH_OK);
            return;
        }
    } else {
        ops = symh_tl_ops_of(pe);
        /* Both ends in this PE's heap: what the route's one-message put_signal reaches (UCX's key
         * slot 0 holds the internal area and the heap; a symmetric region takes the general
         * path). */
        if (sig_op == SYMH_SIGNAL_SET && ops->put_signal != NULL &&
            bytes <= SYMH_TL_SIGNAL_MESSAGE_MAX && sig_at.kind == SYMH_SPACE_HEAP &&
            data_at.kind == SYMH_SPACE_HEAP) {
            symh_tl_rma_ops_begin(&log, access->func, pe);
            symh_tl_rma_ops_done(&log, ops,
                                 ops->put_signal(chan, dest, source, bytes, sig_addr, signal, pe));
            return;
        }
        if (nelems > 0) {
            symh_status_set(SYMH_OK);
            symh_tl_rma_ops_xfer(access, chan, dest, source, bytes, pe, &data_at);
            if (symh_last_error() != SYMH_OK)
                return;
        }
        status = symh_tl_nic_fence(chan);
        if (status != SYMH_OK) {
            symh_error("%s: the NIC transport's fence before the signal failed: %s", access->func,
                       symh_status_string(status));
            symh_status_set(status);
            return;
        }
    }
    (void)symh_tl_amo_word(&sig, chan,
                           sig_op == SYMH_SIGNAL_SET ? SYMH_TL_AMO_SET : SYMH_TL_AMO_ADD, sig_addr,
                           &signal, NULL, NULL, pe);
}

/* Each entry point is defined twice, plain and with a context (SYMH_TL_CTX_FORMS, tl_ctx.h). */
/* The two entry points of one data access (elem_size bytes, align), blocking and nbi. */
#define SYMH_TL_SIGNAL_PAIR(FN, C, elem_size, align, TYPE, CP)                                   \
    void FN(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr,  \
            uint64_t signal, int sig_op, int pe)                                                 \
    {                                                                                            \
        SYMH_TL_RMA_ACCESS(access, "dest", elem_size, align,                                     \
                           SYMH_TL_RMA_PUT | SYMH_TL_RMA_BLOCKING);                              \
        symh_tl_signal_put(&access, C, dest, source, nelems, sig_addr, signal, sig_op, pe);      \
    }                                                                                            \
    void FN##_nbi(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source, size_t nelems,                \
                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)                       \
    {                                                                                            \
        SYMH_TL_RMA_ACCESS(access, "dest", elem_size, align, SYMH_TL_RMA_PUT | SYMH_TL_RMA_NBI); \
        symh_tl_signal_put(&access, C, dest, source, nelems, sig_addr, signal, sig_op, pe);      \
    }

#define SYMH_TL_SIGNAL_MEM_DEFINE(P, CP, C, NAME, TYPE) \
    SYMH_TL_SIGNAL_PAIR(P##_putmem_signal, C, 1, 1, void, CP)
SYMH_TL_CTX_FORMS(SYMH_TL_SIGNAL_MEM_DEFINE, mem, void)
#undef SYMH_TL_SIGNAL_MEM_DEFINE

#define SYMH_TL_SIGNAL_DEFINE(P, CP, C, NAME, TYPE) \
    SYMH_TL_SIGNAL_PAIR(P##_##NAME##_put_signal, C, sizeof(TYPE), _Alignof(TYPE), TYPE, CP)
#define SYMH_TL_SIGNAL_DEFINE_FORMS(NAME, TYPE) SYMH_TL_CTX_FORMS(SYMH_TL_SIGNAL_DEFINE, NAME, TYPE)
SYMH_RMA_TYPES(SYMH_TL_SIGNAL_DEFINE_FORMS)
#undef SYMH_TL_SIGNAL_DEFINE_FORMS
#undef SYMH_TL_SIGNAL_DEFINE

#define SYMH_TL_SIGNAL_SIZED_DEFINE(P, CP, C, BITS, UNUSED) \
    SYMH_TL_SIGNAL_PAIR(P##_put##BITS##_signal, C, (BITS) / 8, 1, void, CP)
#define SYMH_TL_SIGNAL_SIZED_DEFINE_FORMS(BITS) \
    SYMH_TL_CTX_FORMS(SYMH_TL_SIGNAL_SIZED_DEFINE, BITS, void)
SYMH_RMA_SIZES(SYMH_TL_SIGNAL_SIZED_DEFINE_FORMS)
#undef SYMH_TL_SIGNAL_SIZED_DEFINE_FORMS
#undef SYMH_TL_SIGNAL_SIZED_DEFINE

uint64_t symh_signal_fetch(const uint64_t *sig_addr)
{
    SYMH_TL_RMA_ACCESS(access, "sig_addr", sizeof(uint64_t), _Alignof(uint64_t),
                       SYMH_TL_RMA_BLOCKING);
    const uint64_t *local;

    SYMH_TL_RMA_CHECK_UP(0);
    local = (const uint64_t *)symh_tl_rma_xlate(&access, sig_addr, 1, symh_tl_rma.my_pe);
    if (local == NULL)
        return 0;
    if (symh_tl_nic != NULL) /* a NIC-delivered signal may need this PE's progress */
        symh_tl_nic_progress();
    symh_status_set(SYMH_OK);
    return __atomic_load_n(local, __ATOMIC_ACQUIRE);
}
