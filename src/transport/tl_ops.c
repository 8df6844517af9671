/* transport: the ops tables of IPC (load/store through mapped windows) and none (typed stubs),
 * the one table of transports (tl.h), and the ops of a route. */
#include "transport/tl.h"

#include <stdint.h>
#include <string.h>

#include <symheap/status.h>

#include "transport/tl_data.h"
#include "transport/tl_ipc.h"
#include "transport/tl_nic.h"
#include "transport/tl_route.h"

/* ---- IPC: the same load/store the inline data path does, for callers outside it ---------- */

/* Where [addr, addr + bytes) of this PE is mapped for `pe` (`target`: as the caller resolved
 * it, or NULL), or NULL: a global is at its offset from that PE's own segment, the rest at its
 * window offset. */
static char *symh_tl_ipc_addr(const void *addr, size_t bytes, int pe,
                              const symh_space_target_t *target)
{
    symh_space_target_t found;
    char *base;

    if (target == NULL) {
        if (!symh_space_resolve(addr, bytes, &found))
            return NULL;
        target = &found;
    }
    base =
        target->kind == SYMH_SPACE_GLOBALS ? symh_tl_ipc_peer_data(pe) : symh_tl_ipc_peer_base(pe);
    return base == NULL ? NULL : base + target->offset;
}

static int symh_tl_ipc_put(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes,
                           int pe, const symh_tl_local_t *local, const symh_space_target_t *target)
{
    char *remote = symh_tl_ipc_addr(dest, bytes, pe, target);

    (void)chan, (void)local;
    if (remote == NULL)
        return SYMH_ERR_UNSUPPORTED;
    return symh_tl_ipc_copy(remote, source, bytes);
}

static int symh_tl_ipc_get(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes,
                           int pe, const symh_tl_local_t *local, const symh_space_target_t *target)
{
    const char *remote = symh_tl_ipc_addr(source, bytes, pe, target);

    (void)chan, (void)local;
    if (remote == NULL)
        return SYMH_ERR_UNSUPPORTED;
    return symh_tl_ipc_copy(dest, remote, bytes);
}

/* A strided transfer's element `first` as a put or get (the RMA data path copies mapped peers'
 * elements itself: this serves callers outside it). */
static int symh_tl_ipc_strided(symh_tl_chan_t *chan, const symh_tl_strided_t *x, size_t first,
                               size_t *posted)
{
    char *dest = x->dest + first * x->dest_step;
    const char *source = x->source + first * x->source_step;

    *posted = 1;
    return x->is_put ? symh_tl_ipc_put(chan, dest, source, x->size, x->pe, &x->local, NULL)
                     : symh_tl_ipc_get(chan, dest, source, x->size, x->pe, &x->local, NULL);
}

#define SYMH_TL_IPC_AMO(WORD)                                                                    \
    static int symh_tl_ipc_amo_##WORD(symh_tl_amo_op_t op, WORD *remote, const void *value,      \
                                      const void *cond, void *fetched)                           \
    {                                                                                            \
        WORD v = 0, c = 0, old = 0;                                                              \
                                                                                                 \
        if (value != NULL)                                                                       \
            memcpy(&v, value, sizeof(v));                                                        \
        if (cond != NULL)                                                                        \
            memcpy(&c, cond, sizeof(c));                                                         \
        switch (op) {                                                                            \
        case SYMH_TL_AMO_FETCH:                                                                  \
            old = __atomic_load_n(remote, __ATOMIC_SEQ_CST);                                     \
            break;                                                                               \
        case SYMH_TL_AMO_SET:                                                                    \
            __atomic_store_n(remote, v, __ATOMIC_SEQ_CST);                                       \
            break;                                                                               \
        case SYMH_TL_AMO_SWAP:                                                                   \
            old = __atomic_exchange_n(remote, v, __ATOMIC_SEQ_CST);                              \
            break;                                                                               \
        case SYMH_TL_AMO_CSWAP:                                                                  \
            old = c;                                                                             \
            __atomic_compare_exchange_n(remote, &old, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            break;                                                                               \
        case SYMH_TL_AMO_ADD:                                                                    \
            old = __atomic_fetch_add(remote, v, __ATOMIC_SEQ_CST);                               \
            break;                                                                               \
        case SYMH_TL_AMO_AND:                                                                    \
            old = __atomic_fetch_and(remote, v, __ATOMIC_SEQ_CST);                               \
            break;                                                                               \
        case SYMH_TL_AMO_OR:                                                                     \
            old = __atomic_fetch_or(remote, v, __ATOMIC_SEQ_CST);                                \
            break;                                                                               \
        case SYMH_TL_AMO_XOR:                                                                    \
            old = __atomic_fetch_xor(remote, v, __ATOMIC_SEQ_CST);                               \
            break;                                                                               \
        default:                                                                                 \
            return SYMH_ERR_INVALID_ARG;                                                         \
        }                                                                                        \
        if (fetched != NULL)                                                                     \
            memcpy(fetched, &old, sizeof(old));                                                  \
        return SYMH_OK;                                                                          \
    }
SYMH_TL_IPC_AMO(uint32_t)
SYMH_TL_IPC_AMO(uint64_t)
#undef SYMH_TL_IPC_AMO

static int symh_tl_ipc_amo(symh_tl_chan_t *chan, symh_tl_amo_op_t op, void *dest, size_t size,
                           const void *value, const void *cond, void *fetched, int pe)
{
    char *remote = symh_tl_ipc_addr(dest, size, pe, NULL);

    (void)chan;
    if (remote == NULL)
        return SYMH_ERR_UNSUPPORTED;
    if (size == 4)
        return symh_tl_ipc_amo_uint32_t(op, (uint32_t *)remote, value, cond, fetched);
    if (size == 8)
        return symh_tl_ipc_amo_uint64_t(op, (uint64_t *)remote, value, cond, fetched);
    return SYMH_ERR_INVALID_ARG;
}

/* Stores to coherent shared memory are complete when issued; a full fence orders them. */
static int symh_tl_ipc_fence(symh_tl_chan_t *chan)
{
    (void)chan;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return SYMH_OK;
}

static int symh_tl_ipc_progress(void)
{
    return SYMH_OK;
}

/* Every load/store transfer completed in its call. */
static int symh_tl_ipc_wait_local(symh_tl_chan_t *chan)
{
    (void)chan;
    return SYMH_OK;
}

/* A load/store transfer is complete when the call returns, so the _nbi forms are the same. */
const symh_tl_ops_t symh_tl_ipc_ops = {
    .name = "ipc",
    .caps = SYMH_TL_CAP_LOADSTORE,
    .put = symh_tl_ipc_put,
    .get = symh_tl_ipc_get,
    .put_nbi = symh_tl_ipc_put,
    .get_nbi = symh_tl_ipc_get,
    .strided_nbi = symh_tl_ipc_strided,
    .wait_local = symh_tl_ipc_wait_local,
    .amo = symh_tl_ipc_amo,
    .fence = symh_tl_ipc_fence,
    .quiet = symh_tl_ipc_fence,
    .progress = symh_tl_ipc_progress,
};

/* ---- none: typed stubs for peers no built-in transport reaches ---------------------------- */

static int symh_tl_none_xfer(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes,
                             int pe, const symh_tl_local_t *local,
                             const symh_space_target_t *target)
{
    (void)chan, (void)dest, (void)source, (void)bytes, (void)pe, (void)local, (void)target;
    return SYMH_ERR_UNSUPPORTED;
}

static int symh_tl_none_strided(symh_tl_chan_t *chan, const symh_tl_strided_t *x, size_t first,
                                size_t *posted)
{
    (void)chan, (void)x, (void)first;
    *posted = 1;
    return SYMH_ERR_UNSUPPORTED;
}

static int symh_tl_none_amo(symh_tl_chan_t *chan, symh_tl_amo_op_t op, void *dest, size_t size,
                            const void *value, const void *cond, void *fetched, int pe)
{
    (void)chan, (void)op, (void)dest, (void)size, (void)value, (void)cond, (void)fetched, (void)pe;
    return SYMH_ERR_UNSUPPORTED;
}

/* Nothing is ever outstanding on a transport that carries nothing. */
static int symh_tl_none_sync(symh_tl_chan_t *chan)
{
    (void)chan;
    return SYMH_OK;
}

static int symh_tl_none_progress(void)
{
    return SYMH_OK;
}

const symh_tl_ops_t symh_tl_none_ops = {
    .name = "none",
    .caps = 0,
    .put = symh_tl_none_xfer,
    .get = symh_tl_none_xfer,
    .put_nbi = symh_tl_none_xfer,
    .get_nbi = symh_tl_none_xfer,
    .strided_nbi = symh_tl_none_strided,
    .wait_local = symh_tl_none_sync,
    .amo = symh_tl_none_amo,
    .fence = symh_tl_none_sync,
    .quiet = symh_tl_none_sync,
    .progress = symh_tl_none_progress,
};

/* The one table of transports (docs/conventions.md: listed explicitly, no self-registration). */
#ifdef SYMH_HAVE_UCX
#define SYMH_TL_UCX_ENTRY                                        \
    {                                                            \
        SYMH_TL_UCX, "ucx", &symh_tl_ucx.ops, &symh_tl_ucx, 1, 1 \
    }
#else
#define SYMH_TL_UCX_ENTRY                                 \
    {                                                     \
        SYMH_TL_UCX, "ucx", &symh_tl_none_ops, NULL, 1, 0 \
    }
#endif
#ifdef SYMH_HAVE_OFI
#define SYMH_TL_OFI_ENTRY                                        \
    {                                                            \
        SYMH_TL_OFI, "ofi", &symh_tl_ofi.ops, &symh_tl_ofi, 1, 1 \
    }
#else
#define SYMH_TL_OFI_ENTRY                                 \
    {                                                     \
        SYMH_TL_OFI, "ofi", &symh_tl_none_ops, NULL, 1, 0 \
    }
#endif

const symh_tl_entry_t symh_tl_table[SYMH_TL_COUNT] = {
    [SYMH_TL_NONE] = { SYMH_TL_NONE, "none", &symh_tl_none_ops, NULL, 0, 0 },
    [SYMH_TL_SELF] = { SYMH_TL_SELF, "self", &symh_tl_ipc_ops, NULL, 0, 1 },
    [SYMH_TL_IPC] = { SYMH_TL_IPC, "ipc", &symh_tl_ipc_ops, NULL, 0, 1 },
    [SYMH_TL_UCX] = SYMH_TL_UCX_ENTRY,
    [SYMH_TL_OFI] = SYMH_TL_OFI_ENTRY,
};

#undef SYMH_TL_UCX_ENTRY
#undef SYMH_TL_OFI_ENTRY
