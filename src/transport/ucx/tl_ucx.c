/* transport: the UCX NIC transport (tl_nic.h). One UCP context and one worker per PE, an endpoint
 * to every PE routed through the NIC (this PE included: it carries this PE's atomics), the window
 * [internal | heap] mapped as key slot 0 and each symmetric region as its own slot. Every call
 * waits on its request by driving the worker; targets that need progress of their own (tcp, the
 * software-emulated atomics) get it from the wait loops of symheap (ops.progress). */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <symheap/ctx.h>
#include <symheap/status.h>

#include <ucp/api/ucp.h>

#include "bootstrap/boot.h"
#include "core/core_fault.h"
#include "core/core_log.h"
#include "core/core_wait.h"
#include "transport/tl_nic.h"

/* Polls of the worker without progress before a wait loop yields the core (symheap's wait
 * policy, core_wait.h: jobs oversubscribe cores; a peer that must progress us needs the CPU). */
#define SYMH_TL_UCX_SPIN 64
/* How long fini waits for its endpoints to close (see symh_tl_ucx_close_eps). */
#define SYMH_TL_UCX_CLOSE_TIMEOUT_NS (1000000000ull)

/* A channel (tl.h): a worker with an endpoint to every routed PE's default worker and every live
 * key slot's remote keys unpacked for those endpoints. The default channel's worker is the one
 * peers connect to (the only one that receives, the put_signal handler's); a context's channel
 * only sends, and its waits drive the default worker too, so that a PE blocked in a context still
 * serves the peers whose operations need its progress (tcp). */
typedef struct symh_tl_ucx_chan {
    ucp_worker_h worker;
    ucp_ep_h *eps;     /* n_pes entries, NULL where not routed */
    ucp_rkey_h *rkeys; /* n_slots * n_pes entries: [slot * n_pes + pe] */
    long nbi_pending;  /* put_nbi/get_nbi requests whose callback has not come yet */
    int nbi_status;    /* SYMH_ERR_TRANSPORT when a put_nbi/get_nbi failed since the last quiet */
    struct symh_tl_ucx_chan *next; /* the contexts' channels */
} symh_tl_ucx_chan_t;

static struct {
    ucp_context_h context;
    symh_tl_ucx_chan_t def; /* the default channel (NULL as a symh_tl_chan_t) */
    ucp_mem_h *memhs;       /* n_slots entries: this PE's mapping of each slot */
    int n_pes;
    int n_slots;
    int my_pe;
    int thread_multiple;
    char *base; /* key slot 0 here: [base, base + length) (internal area and heap) */
    size_t length;
    /* What a context's channel needs to join later: every PE's worker address, and each live
     * slot's packed keys (n_slots entries: n_pes keys `key_stride` bytes apart, NULL when the slot
     * is not live). The channel list and the rkeys of its members change under chan_lock. */
    void *addresses;
    size_t address_stride;
    void **keys;
    size_t *key_stride;
    symh_tl_ucx_chan_t *chans;
    pthread_mutex_t chan_lock;
} symh_ucx = { .chan_lock = PTHREAD_MUTEX_INITIALIZER };

/* The active message of put_signal (symh_tl_ucx_put_signal): its id, and its header, offsets in
 * key slot 0 (the same on every PE). */
#define SYMH_TL_UCX_AM_PUT_SIGNAL 1
typedef struct {
    uint64_t dest;   /* offset of the data's destination */
    uint64_t signal; /* offset of the signal word */
    uint64_t value;
    uint64_t bytes;
} symh_tl_ucx_put_signal_t;

static uint64_t symh_tl_ucx_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

static int symh_tl_ucx_fail(const char *call, ucs_status_t status)
{
    symh_error("UCX: %s failed: %s", call, ucs_status_string(status));
    return SYMH_ERR_TRANSPORT;
}

/* One round of a wait loop: drives the worker; a round that found nothing to do takes a step of
 * the wait policy (pause, later yield). `what` names the wait in the hang watch's line (NULL: a
 * wait bounded by a deadline of its own, which says nothing). */
static void symh_tl_ucx_poll(symh_tl_ucx_chan_t *ch, symh_wait_t *w, const char *what)
{
    unsigned progressed = ucp_worker_progress(ch->worker);

    if (ch != &symh_ucx.def)
        progressed += ucp_worker_progress(symh_ucx.def.worker);
    if (progressed != 0)
        return; /* progress: poll again at once */
    if (symh_unlikely(symh_wait_step(w)) && what != NULL) {
        symh_error("UCX: %s on PE %d has waited %.0f s for its peers (SYMH_HANG_TIMEOUT)", what,
                   symh_ucx.my_pe, symh_wait_seconds(w));
        symh_wait_hang_reported();
    }
}

/* Drives the worker until `request` (what an _nbx call returned) completes, then frees it. An
 * operation that completed at once still drives the worker once: a PE that polls a word with
 * atomics or gets on itself must keep serving the peers whose operations need its progress
 * (software-emulated RMA and atomics), or a lock built on them never gets released. */
static int symh_tl_ucx_wait(symh_tl_ucx_chan_t *ch, ucs_status_ptr_t request, const char *call)
{
    ++symh_tl_nic_counts.waits;
    if (request == NULL) {
        ucp_worker_progress(symh_ucx.def.worker);
        return SYMH_OK;
    }
    if (UCS_PTR_IS_ERR(request))
        return symh_tl_ucx_fail(call, UCS_PTR_STATUS(request));
    ucs_status_t status;
    symh_wait_t w;
    symh_wait_start(&w, SYMH_TL_UCX_SPIN);
    while ((status = ucp_request_check_status(request)) == UCS_INPROGRESS)
        symh_tl_ucx_poll(ch, &w, call);
    ucp_request_free(request);
    if (status != UCS_OK)
        return symh_tl_ucx_fail(call, status);
    return SYMH_OK;
}

/* ucp_mem_map of [addr, addr + length) and its packed key. */
static int symh_tl_ucx_map(void *addr, size_t length, ucp_mem_h *memh, void **packed,
                           size_t *packed_size)
{
    ucp_mem_map_params_t params = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
        .address = addr,
        .length = length,
    };
    ucs_status_t status = ucp_mem_map(symh_ucx.context, &params, memh);
    if (status != UCS_OK) {
        *memh = NULL;
        return symh_tl_ucx_fail("ucp_mem_map", status);
    }
    status = ucp_rkey_pack(symh_ucx.context, *memh, packed, packed_size);
    if (status != UCS_OK) {
        ucp_mem_unmap(symh_ucx.context, *memh);
        *memh = NULL;
        return symh_tl_ucx_fail("ucp_rkey_pack", status);
    }
    return SYMH_OK;
}

/* Collective: maps [addr, addr + length) (status OK only), exchanges its key and unpacks every
 * routed PE's into `slot`. */
/* Unpacks `slot`'s keys (`all`, n_pes keys `stride` bytes apart) for every endpoint of `ch`. */
static int symh_tl_ucx_unpack_slot(symh_tl_ucx_chan_t *ch, int slot, const void *all, size_t stride)
{
    for (int pe = 0; pe < symh_ucx.n_pes; pe++) {
        ucp_rkey_h *rkey = &ch->rkeys[(size_t)slot * symh_ucx.n_pes + pe];
        if (ch->eps[pe] == NULL)
            continue;
        ucs_status_t st =
            ucp_ep_rkey_unpack(ch->eps[pe], (const char *)all + (size_t)pe * stride, rkey);
        if (st != UCS_OK) {
            *rkey = NULL;
            return symh_tl_ucx_fail("ucp_ep_rkey_unpack", st);
        }
    }
    return SYMH_OK;
}

/* Destroys `slot`'s remote keys of `ch`. */
static void symh_tl_ucx_drop_slot(symh_tl_ucx_chan_t *ch, int slot)
{
    for (int pe = 0; pe < symh_ucx.n_pes; pe++) {
        ucp_rkey_h *rkey = &ch->rkeys[(size_t)slot * symh_ucx.n_pes + pe];
        if (*rkey != NULL) {
            ucp_rkey_destroy(*rkey);
            *rkey = NULL;
        }
    }
}

/* Collective: maps [addr, addr + length) (status OK only), exchanges its key and unpacks every
 * routed PE's into `slot` of the default channel and of every context's; the packed keys are kept
 * for channels made later. */
static int symh_tl_ucx_map_slot(int slot, void *addr, size_t length, int status)
{
    void *packed = NULL;
    size_t packed_size = 0;
    if (status == SYMH_OK)
        status = symh_tl_ucx_map(addr, length, &symh_ucx.memhs[slot], &packed, &packed_size);
    void *all = NULL;
    size_t stride = 0;
    int rc =
        symh_boot_exchange(status, packed, packed_size, "ucx: the key exchange", &all, &stride);
    if (packed != NULL)
        ucp_rkey_buffer_release(packed);
    pthread_mutex_lock(&symh_ucx.chan_lock);
    if (rc == SYMH_OK)
        rc = symh_tl_ucx_unpack_slot(&symh_ucx.def, slot, all, stride);
    for (symh_tl_ucx_chan_t *ch = symh_ucx.chans; ch != NULL && rc == SYMH_OK; ch = ch->next)
        rc = symh_tl_ucx_unpack_slot(ch, slot, all, stride);
    if (rc == SYMH_OK) {
        symh_ucx.keys[slot] = all;
        symh_ucx.key_stride[slot] = stride;
        all = NULL;
    }
    pthread_mutex_unlock(&symh_ucx.chan_lock);
    free(all);
    return symh_boot_agree(rc, NULL);
}
static void symh_tl_ucx_unmap_symm(int slot)
{
    if (symh_ucx.def.rkeys == NULL || slot < 0 || slot >= symh_ucx.n_slots)
        return;
    pthread_mutex_lock(&symh_ucx.chan_lock);
    symh_tl_ucx_drop_slot(&symh_ucx.def, slot);
    for (symh_tl_ucx_chan_t *ch = symh_ucx.chans; ch != NULL; ch = ch->next)
        symh_tl_ucx_drop_slot(ch, slot);
    if (symh_ucx.keys != NULL) {
        free(symh_ucx.keys[slot]);
        symh_ucx.keys[slot] = NULL;
    }
    pthread_mutex_unlock(&symh_ucx.chan_lock);
    if (symh_ucx.memhs[slot] != NULL) {
        ucs_status_t status = ucp_mem_unmap(symh_ucx.context, symh_ucx.memhs[slot]);
        if (status != UCS_OK)
            symh_tl_ucx_fail("ucp_mem_unmap", status);
        symh_ucx.memhs[slot] = NULL;
    }
}
/* Closes every endpoint. UCP allows UCP_EP_CLOSE_FLAG_FORCE only with UCP_ERR_HANDLING_MODE_PEER
 * (UCS_ERR_INVALID_PARAM otherwise), so the endpoints are flushed and closed: fini comes after a
 * quiet everywhere, so that completes locally; should a flush still wait on a peer that is gone,
 * the wait gives up after SYMH_TL_UCX_CLOSE_TIMEOUT_NS and ucp_worker_destroy discards what is
 * left. */
static void symh_tl_ucx_close_eps(symh_tl_ucx_chan_t *ch)
{
    ucp_request_param_t param = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = 0 };
    void **requests = calloc((size_t)symh_ucx.n_pes, sizeof(*requests));
    int pending = 0;
    for (int pe = 0; pe < symh_ucx.n_pes; pe++) {
        if (ch->eps[pe] == NULL)
            continue;
        ucs_status_ptr_t request = ucp_ep_close_nbx(ch->eps[pe], &param);
        ch->eps[pe] = NULL;
        if (UCS_PTR_IS_ERR(request)) {
            /* An endpoint whose peer already left (tcp: "Endpoint timeout", "Connection reset"):
             * nothing is lost at this point, so it is no error. */
            symh_debug("UCX: ucp_ep_close_nbx to PE %d: %s", pe,
                       ucs_status_string(UCS_PTR_STATUS(request)));
        } else if (request != NULL && requests != NULL) {
            requests[pe] = request;
            pending++;
        } else if (request != NULL) {
            ucp_request_free(request); /* no memory to track it: ucp_worker_destroy ends it */
        }
    }
    uint64_t deadline = symh_tl_ucx_now_ns() + SYMH_TL_UCX_CLOSE_TIMEOUT_NS;
    symh_wait_t w;
    symh_wait_start(&w, SYMH_TL_UCX_SPIN);
    while (pending > 0) {
        for (int pe = 0; pe < symh_ucx.n_pes; pe++) {
            if (requests[pe] == NULL)
                continue;
            ucs_status_t status = ucp_request_check_status(requests[pe]);
            if (status == UCS_INPROGRESS)
                continue;
            if (status != UCS_OK)
                symh_debug("UCX: closing the endpoint to PE %d: %s", pe, ucs_status_string(status));
            ucp_request_free(requests[pe]);
            requests[pe] = NULL;
            pending--;
        }
        if (pending == 0)
            break;
        if (symh_tl_ucx_now_ns() > deadline) {
            symh_debug("UCX: %d endpoints did not close in time; discarding them", pending);
            for (int pe = 0; pe < symh_ucx.n_pes; pe++) {
                if (requests[pe] != NULL)
                    ucp_request_free(requests[pe]);
            }
            break;
        }
        symh_tl_ucx_poll(ch, &w, NULL);
    }
    free(requests);
}

/* A channel's remote keys destroyed and endpoints closed, each close (a flush) waited for while
 * this PE's workers progress; the worker stays. */
static void symh_tl_ucx_chan_close(symh_tl_ucx_chan_t *ch)
{
    if (ch->rkeys != NULL) {
        for (int slot = 0; slot < symh_ucx.n_slots; slot++)
            symh_tl_ucx_drop_slot(ch, slot);
    }
    if (ch->eps != NULL && ch->worker != NULL)
        symh_tl_ucx_close_eps(ch);
}

/* symh_finalize's close (tl_nic.h): every channel closed (symh_tl_ucx_chan_close). Peers do the
 * same at the same time and then wait in a barrier that keeps progressing, so a flush to a peer
 * completes before that peer's worker goes: no "Endpoint timeout" at finalize across hosts. fini
 * then finds nothing left to close. */
static void symh_tl_ucx_close(void)
{
    for (symh_tl_ucx_chan_t *ch = symh_ucx.chans; ch != NULL; ch = ch->next)
        symh_tl_ucx_chan_close(ch);
    symh_tl_ucx_chan_close(&symh_ucx.def);
}

/* Closes a channel's endpoints, then destroys its keys and its worker (a context's channel, or the
 * default one at fini). */
static void symh_tl_ucx_chan_free(symh_tl_ucx_chan_t *ch)
{
    symh_tl_ucx_chan_close(ch);
    free(ch->eps);
    free(ch->rkeys);
    ch->eps = NULL;
    ch->rkeys = NULL;
    if (ch->worker != NULL)
        ucp_worker_destroy(ch->worker);
    ch->worker = NULL;
}

static void symh_tl_ucx_fini(void)
{
    /* Contexts are destroyed before (symh_tl_ctx_fini); a channel still listed is freed too. */
    while (symh_ucx.chans != NULL) {
        symh_tl_ucx_chan_t *ch = symh_ucx.chans;
        symh_ucx.chans = ch->next;
        symh_tl_ucx_chan_free(ch);
        free(ch);
    }
    if (symh_ucx.def.rkeys != NULL) {
        for (int slot = 0; slot < symh_ucx.n_slots; slot++)
            symh_tl_ucx_unmap_symm(slot);
    }
    symh_tl_ucx_chan_free(&symh_ucx.def);
    free(symh_ucx.memhs);
    symh_ucx.memhs = NULL;
    if (symh_ucx.keys != NULL) {
        for (int slot = 0; slot < symh_ucx.n_slots; slot++)
            free(symh_ucx.keys[slot]);
    }
    free(symh_ucx.keys);
    free(symh_ucx.key_stride);
    free(symh_ucx.addresses);
    symh_ucx.keys = NULL;
    symh_ucx.key_stride = NULL;
    symh_ucx.addresses = NULL;
    if (symh_ucx.context != NULL)
        ucp_cleanup(symh_ucx.context);
    symh_ucx.context = NULL;
    symh_ucx.n_slots = 0;
    symh_ucx.n_pes = 0;
}
/* Whether [offset, offset + bytes) lies in key slot 0 here. */
static int symh_tl_ucx_in_slot0(uint64_t offset, uint64_t bytes)
{
    return offset <= symh_ucx.length && bytes <= symh_ucx.length - offset;
}

/* A put_signal arriving (in this PE's ucp_worker_progress): the data, then the signal with
 * release order, so whoever sees the signal sees the data. Eager only (the sender says so), so
 * the data is here in full. A header that does not fit key slot 0 is refused with one line (a
 * peer of this job sent it, but nothing outside the slot is written). */
static ucs_status_t symh_tl_ucx_am_put_signal(void *arg, const void *header, size_t header_length,
                                              void *data, size_t length,
                                              const ucp_am_recv_param_t *param)
{
    symh_tl_ucx_put_signal_t h;
    (void)arg;
    if (header_length != sizeof(h) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0) {
        symh_error("UCX: a put_signal message of the wrong form (header %zu bytes) dropped",
                   header_length);
        return UCS_OK;
    }
    memcpy(&h, header, sizeof(h));
    if (h.bytes != length || !symh_tl_ucx_in_slot0(h.dest, h.bytes) ||
        !symh_tl_ucx_in_slot0(h.signal, sizeof(uint64_t)) || h.signal % sizeof(uint64_t) != 0) {
        symh_error("UCX: a put_signal of %zu bytes to offset %" PRIu64 ", signal %" PRIu64
                   ", outside this PE's window; dropped",
                   length, h.dest, h.signal);
        return UCS_OK;
    }
    if (length > 0)
        memcpy(symh_ucx.base + h.dest, data, length);
    __atomic_store_n((uint64_t *)(void *)(symh_ucx.base + h.signal), h.value, __ATOMIC_RELEASE);
    return UCS_OK;
}

/* The local steps of init before the address exchange: context, worker, our address. */
static int symh_tl_ucx_open(int thread_multiple, ucp_address_t **address, size_t *address_size)
{
    ucp_config_t *config;
    ucs_status_t status = ucp_config_read(NULL, NULL, &config);
    if (status != UCS_OK)
        return symh_tl_ucx_fail("ucp_config_read", status);
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_REQUEST_SIZE |
                      UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM,
        .request_size = 0,
        .mt_workers_shared = thread_multiple ? 1 : 0,
    };
    status = ucp_init(&params, config, &symh_ucx.context);
    ucp_config_release(config);
    if (status != UCS_OK) {
        symh_ucx.context = NULL;
        return symh_tl_ucx_fail("ucp_init", status);
    }
    ucp_worker_params_t worker_params = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = thread_multiple ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SINGLE,
    };
    status = ucp_worker_create(symh_ucx.context, &worker_params, &symh_ucx.def.worker);
    if (status != UCS_OK) {
        symh_ucx.def.worker = NULL;
        return symh_tl_ucx_fail("ucp_worker_create", status);
    }
    if (thread_multiple) {
        ucp_worker_attr_t attr = { .field_mask = UCP_WORKER_ATTR_FIELD_THREAD_MODE };
        status = ucp_worker_query(symh_ucx.def.worker, &attr);
        if (status != UCS_OK)
            return symh_tl_ucx_fail("ucp_worker_query", status);
        if (attr.thread_mode != UCS_THREAD_MODE_MULTI) {
            symh_error("UCX: ucp_worker_create gave no UCS_THREAD_MODE_MULTI worker");
            return SYMH_ERR_TRANSPORT;
        }
    }
    ucp_am_handler_param_t am = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB,
        .id = SYMH_TL_UCX_AM_PUT_SIGNAL,
        .cb = symh_tl_ucx_am_put_signal,
    };
    status = ucp_worker_set_am_recv_handler(symh_ucx.def.worker, &am);
    if (status != UCS_OK)
        return symh_tl_ucx_fail("ucp_worker_set_am_recv_handler", status);
    status = ucp_worker_get_address(symh_ucx.def.worker, address, address_size);
    if (status != UCS_OK) {
        *address = NULL;
        return symh_tl_ucx_fail("ucp_worker_get_address", status);
    }
    return SYMH_OK;
}

/* Endpoints from `ch`'s worker to every routed PE's default worker. */
static int symh_tl_ucx_connect(symh_tl_ucx_chan_t *ch, const char *addresses, size_t stride)
{
    for (int pe = 0; pe < symh_ucx.n_pes; pe++) {
        if (!symh_tl_nic_routed(pe))
            continue;
        ucp_ep_params_t params = {
            .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
            .address = (const ucp_address_t *)(addresses + (size_t)pe * stride),
            .err_mode = UCP_ERR_HANDLING_MODE_NONE,
        };
        ucs_status_t status = ucp_ep_create(ch->worker, &params, &ch->eps[pe]);
        if (status != UCS_OK) {
            ch->eps[pe] = NULL;
            symh_error("UCX: ucp_ep_create to PE %d failed: %s", pe, ucs_status_string(status));
            return SYMH_ERR_TRANSPORT;
        }
    }
    return SYMH_OK;
}

static int symh_tl_ucx_init(void *base, size_t length, int thread_multiple)
{
    if (symh_ucx.context != NULL) {
        symh_error("UCX: transport already started");
        return SYMH_ERR_INVALID_ARG;
    }
    symh_ucx.my_pe = symh_boot_info.my_pe;
    symh_ucx.n_pes = symh_boot_info.n_pes;
    symh_ucx.n_slots = symh_tl_nic_n_slots;
    symh_ucx.def.nbi_status = SYMH_OK;
    symh_ucx.def.nbi_pending = 0;
    symh_ucx.thread_multiple = thread_multiple;
    symh_ucx.base = base;
    symh_ucx.length = length;
    /* A PE that fails a step below still takes part in every exchange after it (carrying the
     * failure), so all PEs leave init together. */
    int status = SYMH_OK;
    if (symh_ucx.n_slots < 1) {
        symh_error("UCX: no key slots (symh_tl_nic_n_slots = %d)", symh_ucx.n_slots);
        status = SYMH_ERR_INVALID_ARG;
        symh_ucx.n_slots = 0;
    }
    if (status == SYMH_OK) {
        symh_ucx.def.eps =
            symh_fault_calloc((size_t)symh_ucx.n_pes, sizeof(*symh_ucx.def.eps), "ucx: tables");
        symh_ucx.def.rkeys =
            calloc((size_t)symh_ucx.n_slots * (size_t)symh_ucx.n_pes, sizeof(*symh_ucx.def.rkeys));
        symh_ucx.memhs = calloc((size_t)symh_ucx.n_slots, sizeof(*symh_ucx.memhs));
        symh_ucx.keys = calloc((size_t)symh_ucx.n_slots, sizeof(*symh_ucx.keys));
        symh_ucx.key_stride = calloc((size_t)symh_ucx.n_slots, sizeof(*symh_ucx.key_stride));
        if (symh_ucx.def.eps == NULL || symh_ucx.def.rkeys == NULL || symh_ucx.memhs == NULL ||
            symh_ucx.keys == NULL || symh_ucx.key_stride == NULL) {
            symh_error("UCX: out of memory for %d PEs and %d key slots", symh_ucx.n_pes,
                       symh_ucx.n_slots);
            status = SYMH_ERR_NO_MEMORY;
        }
    }
    ucp_address_t *address = NULL;
    size_t address_size = 0;
    if (status == SYMH_OK)
        status = symh_tl_ucx_open(thread_multiple, &address, &address_size);
    if (status == SYMH_OK && symh_fault_hit("ucx: open")) {
        symh_error("UCX: opening the worker failed (fault injection)");
        status = SYMH_ERR_TRANSPORT;
    }

    void *addresses = NULL;
    size_t stride = 0;
    status = symh_boot_exchange(status, address, address_size, "ucx: the address exchange",
                                &addresses, &stride);
    if (address != NULL)
        ucp_worker_release_address(symh_ucx.def.worker, address);
    if (status == SYMH_OK)
        status = symh_tl_ucx_connect(&symh_ucx.def, addresses, stride);
    if (status == SYMH_OK && symh_fault_hit("ucx: connect")) {
        symh_error("UCX: connecting failed (fault injection)");
        status = SYMH_ERR_TRANSPORT;
    }
    symh_ucx.addresses = addresses; /* for the contexts' channels */
    symh_ucx.address_stride = stride;

    /* The slot exchange carries this status (a PE that failed only takes part) and agrees. */
    status = symh_tl_ucx_map_slot(SYMH_TL_NIC_HEAP_SLOT, base, length, status);
    if (status != SYMH_OK) {
        symh_tl_ucx_fini();
        return status;
    }
    symh_debug("UCX: started (%d PEs, %d key slots, window %p + %zu)", symh_ucx.n_pes,
               symh_ucx.n_slots, base, length);
    return SYMH_OK;
}

static int symh_tl_ucx_map_symm(int slot, void *addr, size_t length, int status)
{
    /* An invalid call still takes part in the exchange (as a failed PE). */
    if (status == SYMH_OK && (symh_ucx.context == NULL || slot < 1 || slot >= symh_ucx.n_slots)) {
        symh_error("UCX: map_symm of invalid slot %d (%d slots)", slot, symh_ucx.n_slots);
        status = SYMH_ERR_INVALID_ARG;
    }
    if (status == SYMH_OK && symh_ucx.memhs[slot] != NULL) {
        symh_warn("UCX: slot %d still mapped; unmapping it first", slot);
        symh_tl_ucx_unmap_symm(slot);
    }
    int rc = symh_tl_ucx_map_slot(slot, addr, length, status);
    if (rc != SYMH_OK)
        symh_tl_ucx_unmap_symm(slot);
    return rc;
}

/* The handle is the UCP memory handle itself. The registry owns it: it unmaps every handle
 * it still holds before the transport stops (symh_reg_fini). */
static int symh_tl_ucx_map_local(void *addr, size_t length, void **handle)
{
    ucp_mem_map_params_t params = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
        .address = addr,
        .length = length,
    };
    ucp_mem_h memh = NULL;
    ucs_status_t status = ucp_mem_map(symh_ucx.context, &params, &memh);

    *handle = NULL;
    if (status != UCS_OK)
        return symh_tl_ucx_fail("ucp_mem_map", status);
    *handle = memh;
    return SYMH_OK;
}

static void symh_tl_ucx_unmap_local(void *handle)
{
    if (handle == NULL)
        return;
    ucs_status_t status = ucp_mem_unmap(symh_ucx.context, handle);
    if (status != UCS_OK)
        symh_tl_ucx_fail("ucp_mem_unmap", status);
}

/* The channel a symh_tl_chan_t names (NULL: the default one). */
static symh_tl_ucx_chan_t *symh_tl_ucx_chan(symh_tl_chan_t *chan)
{
    return chan != NULL ? (symh_tl_ucx_chan_t *)(void *)chan : &symh_ucx.def;
}

/* The endpoint of `ch`, remote address and key for `bytes` at this PE's symmetric `addr` on
 * `pe` (`target`: the range as the dispatch resolved it, or NULL: resolved here). */
static int symh_tl_ucx_remote(symh_tl_ucx_chan_t *ch, const void *addr, size_t bytes, int pe,
                              const symh_space_target_t *target, ucp_ep_h *ep, uint64_t *remote,
                              ucp_rkey_h *rkey)
{
    if (symh_ucx.context == NULL || pe < 0 || pe >= symh_ucx.n_pes || ch->eps == NULL ||
        ch->eps[pe] == NULL) {
        symh_error("UCX: no endpoint to PE %d", pe);
        return SYMH_ERR_INVALID_ARG;
    }
    int slot = symh_tl_nic_target(addr, bytes, pe, target, remote);
    if (slot < 0 || slot >= symh_ucx.n_slots ||
        ch->rkeys[(size_t)slot * symh_ucx.n_pes + pe] == NULL) {
        symh_error("UCX: %p + %zu on PE %d has no remote key (slot %d)", addr, bytes, pe, slot);
        return SYMH_ERR_INVALID_ARG;
    }
    *ep = ch->eps[pe];
    *rkey = ch->rkeys[(size_t)slot * symh_ucx.n_pes + pe];
    return SYMH_OK;
}

/* Completion of a put_nbi/get_nbi request that did not finish at once: counts it done, keeps a
 * failure for the next quiet and releases it (ucp_request_free before completion would silence
 * this callback, and UCP 1.13's worker flush does not wait for such requests). */
static void symh_tl_ucx_nbi_done(void *request, ucs_status_t status, void *user_data)
{
    symh_tl_ucx_chan_t *ch = user_data;
    if (status != UCS_OK) {
        symh_error("UCX: a non-blocking put/get failed: %s", ucs_status_string(status));
        __atomic_store_n(&ch->nbi_status, SYMH_ERR_TRANSPORT, __ATOMIC_RELAXED);
    }
    ucp_request_free(request);
    __atomic_sub_fetch(&ch->nbi_pending, 1, __ATOMIC_RELEASE);
}

/* An nbi request completes on its own (symh_tl_ucx_nbi_done); quiet waits for the count. */
static int symh_tl_ucx_nbi(symh_tl_ucx_chan_t *ch, ucs_status_ptr_t request, const char *call)
{
    if (UCS_PTR_IS_ERR(request))
        return symh_tl_ucx_fail(call, UCS_PTR_STATUS(request));
    if (request != NULL)
        __atomic_add_fetch(&ch->nbi_pending, 1, __ATOMIC_RELAXED);
    return SYMH_OK;
}

/* The memory handle of the local side the dispatch found (tl.h): its key slot's mapping (the
 * heap, a global, a symmetric region) or the registry's handle (map_local: a registered buffer or
 * a device allocation); NULL for memory symheap does not know, or when nothing was found (the
 * collectives' own words). */
static ucp_mem_h symh_tl_ucx_local_memh(const symh_tl_local_t *local)
{
    if (local == NULL)
        return NULL;
    if (local->slot >= 0)
        return local->slot < symh_ucx.n_slots ? symh_ucx.memhs[local->slot] : NULL;
    return (ucp_mem_h)local->handle;
}

/* A put or get of `bytes` between local memory and this PE's symmetric address on `pe`:
 * blocking (waited for here) or nbi (counted, completes on its own, quiet waits). A local side
 * symheap mapped goes with its memory handle (UCP_OP_ATTR_FIELD_MEMH: UCP skips its own
 * registration look-up for the zero-copy protocols). Any other host memory goes without one and
 * UCP chooses per size and wire (docs/transports.md "Any local memory"): a copy into its own
 * registered buffers (short and bcopy protocols), or for zero-copy a registration from its cache,
 * whose entries UCX's memory hooks (ucm: munmap, brk, madvise) drop when the memory goes. */
static int symh_tl_ucx_rma(symh_tl_chan_t *chan, int is_put, int nbi, void *dest,
                           const void *source, size_t bytes, int pe, const symh_tl_local_t *local,
                           const symh_space_target_t *target)
{
    if (bytes == 0)
        return SYMH_OK;
    symh_tl_ucx_chan_t *ch = symh_tl_ucx_chan(chan);
    ucp_ep_h ep;
    uint64_t remote;
    ucp_rkey_h rkey;
    int rc = symh_tl_ucx_remote(ch, is_put ? dest : source, bytes, pe, target, &ep, &remote, &rkey);
    if (rc != SYMH_OK)
        return rc;
    ucp_mem_h memh = symh_tl_ucx_local_memh(local);
    ucp_request_param_t param = {
        .op_attr_mask = (nbi ? UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA : 0) |
                        (memh != NULL ? UCP_OP_ATTR_FIELD_MEMH : 0),
        .cb.send = nbi ? symh_tl_ucx_nbi_done : NULL,
        .user_data = ch,
        .memh = memh,
    };
    const char *call = is_put ? "ucp_put_nbx" : "ucp_get_nbx";
    /* The tests' post refused by the wire (fault site "post: ucx", as libfabric's "post: ofi"). */
    if (symh_fault_hit("post: ucx"))
        return symh_tl_ucx_fail(call, UCS_ERR_IO_ERROR);
    if (memh != NULL)
        ++symh_tl_nic_counts.posted;
    ucs_status_ptr_t request = is_put ? ucp_put_nbx(ep, source, bytes, remote, rkey, &param)
                                      : ucp_get_nbx(ep, dest, bytes, remote, rkey, &param);
    return nbi ? symh_tl_ucx_nbi(ch, request, call) : symh_tl_ucx_wait(ch, request, call);
}

static int symh_tl_ucx_put(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes,
                           int pe, const symh_tl_local_t *local, const symh_space_target_t *target)
{
    return symh_tl_ucx_rma(chan, 1, 0, dest, source, bytes, pe, local, target);
}

static int symh_tl_ucx_get(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes,
                           int pe, const symh_tl_local_t *local, const symh_space_target_t *target)
{
    return symh_tl_ucx_rma(chan, 0, 0, dest, source, bytes, pe, local, target);
}

static int symh_tl_ucx_put_nbi(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes,
                               int pe, const symh_tl_local_t *local,
                               const symh_space_target_t *target)
{
    return symh_tl_ucx_rma(chan, 1, 1, dest, source, bytes, pe, local, target);
}

static int symh_tl_ucx_get_nbi(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes,
                               int pe, const symh_tl_local_t *local,
                               const symh_space_target_t *target)
{
    return symh_tl_ucx_rma(chan, 0, 1, dest, source, bytes, pe, local, target);
}

/* One element of a strided transfer per post: UCP has no strided remote side (tl.h). */
static int symh_tl_ucx_strided_nbi(symh_tl_chan_t *chan, const symh_tl_strided_t *x, size_t first,
                                   size_t *posted)
{
    *posted = 1;
    return symh_tl_ucx_rma(chan, x->is_put, 1, x->dest + first * x->dest_step,
                           x->source + first * x->source_step, x->size, x->pe, &x->local, NULL);
}

/* One fetching atomic through UCP: *reply (in: the CSWAP swap value) gets the old value. */
static int symh_tl_ucx_atomic(symh_tl_ucx_chan_t *ch, ucp_ep_h ep, ucp_atomic_op_t opcode,
                              size_t size, uint64_t operand, uint64_t remote, ucp_rkey_h rkey,
                              uint64_t *reply)
{
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER,
        .datatype = ucp_dt_make_contig(size),
        .reply_buffer = reply,
    };
    return symh_tl_ucx_wait(ch, ucp_atomic_op_nbx(ep, opcode, &operand, 1, remote, rkey, &param),
                            "ucp_atomic_op_nbx");
}

/* A fetching AND/OR/XOR on this PE's own word, as a compare-and-swap loop: UCX 1.13's `self`
 * transport (the endpoint to this PE) returns the old value of a fetching AND/OR/XOR but leaves
 * the word unchanged (fetch-add, swap, compare-swap and the non-fetching forms work). The loop
 * goes through the same endpoint, so it stays atomic with the other PEs' atomics on the word. */
static int symh_tl_ucx_fetch_bitwise(symh_tl_ucx_chan_t *ch, ucp_ep_h ep, ucp_atomic_op_t opcode,
                                     size_t size, uint64_t operand, uint64_t remote,
                                     ucp_rkey_h rkey, uint64_t *fetched)
{
    uint64_t mask = size == 8 ? ~(uint64_t)0 : 0xffffffffull;
    uint64_t old = 0;
    int rc = symh_tl_ucx_atomic(ch, ep, UCP_ATOMIC_OP_ADD, size, 0, remote, rkey, &old);
    for (;;) {
        if (rc != SYMH_OK)
            return rc;
        old &= mask;
        uint64_t next = opcode == UCP_ATOMIC_OP_AND  ? old & operand
                        : opcode == UCP_ATOMIC_OP_OR ? old | operand
                                                     : old ^ operand;
        uint64_t seen = next & mask;
        rc = symh_tl_ucx_atomic(ch, ep, UCP_ATOMIC_OP_CSWAP, size, old, remote, rkey, &seen);
        if (rc == SYMH_OK && (seen & mask) == old) {
            *fetched = old;
            return SYMH_OK;
        }
        old = seen;
    }
}

/* UCP's atomics (ucp.h, "Atomic Operations Semantic"): `buffer` is the operand X and
 * reply_buffer receives the old value; for CSWAP, `buffer` is the compare value and
 * reply_buffer holds the new value on input (and the old one on output). */
static int symh_tl_ucx_amo(symh_tl_chan_t *chan, symh_tl_amo_op_t op, void *dest, size_t size,
                           const void *value, const void *cond, void *fetched, int pe)
{
    symh_tl_ucx_chan_t *ch = symh_tl_ucx_chan(chan);
    if (size != 4 && size != 8) {
        symh_error("UCX: atomic of %zu bytes (4 or 8 only)", size);
        return SYMH_ERR_INVALID_ARG;
    }
    ucp_ep_h ep;
    uint64_t remote;
    ucp_rkey_h rkey;
    int rc = symh_tl_ucx_remote(ch, dest, size, pe, NULL, &ep, &remote, &rkey);
    if (rc != SYMH_OK)
        return rc;
    /* UCP's opcode of each symheap AMO: FETCH is an add of 0, SET a swap whose old value is
     * dropped. */
    static const ucp_atomic_op_t opcodes[] = {
        [SYMH_TL_AMO_FETCH] = UCP_ATOMIC_OP_ADD, [SYMH_TL_AMO_SET] = UCP_ATOMIC_OP_SWAP,
        [SYMH_TL_AMO_SWAP] = UCP_ATOMIC_OP_SWAP, [SYMH_TL_AMO_CSWAP] = UCP_ATOMIC_OP_CSWAP,
        [SYMH_TL_AMO_ADD] = UCP_ATOMIC_OP_ADD,   [SYMH_TL_AMO_AND] = UCP_ATOMIC_OP_AND,
        [SYMH_TL_AMO_OR] = UCP_ATOMIC_OP_OR,     [SYMH_TL_AMO_XOR] = UCP_ATOMIC_OP_XOR,
    };
    uint64_t operand = 0; /* aligned copies: the caller's words may not be */
    uint64_t reply = 0;
    if ((unsigned)op >= sizeof(opcodes) / sizeof(opcodes[0])) {
        symh_error("UCX: unknown atomic operation %d", (int)op);
        return SYMH_ERR_INVALID_ARG;
    }
    ucp_atomic_op_t opcode = opcodes[op];
    if (op == SYMH_TL_AMO_CSWAP) {
        memcpy(&operand, cond, size);
        memcpy(&reply, value, size);
    } else if (op != SYMH_TL_AMO_FETCH) {
        memcpy(&operand, value, size);
    }
    /* Always the fetching form: the call returns once the target word changed (a posted AMO
     * completes when sent; over tcp, to this PE too, a local read right after would miss it),
     * as on the load/store path. */
    if (pe == symh_ucx.my_pe &&
        (opcode == UCP_ATOMIC_OP_AND || opcode == UCP_ATOMIC_OP_OR || opcode == UCP_ATOMIC_OP_XOR))
        rc = symh_tl_ucx_fetch_bitwise(ch, ep, opcode, size, operand, remote, rkey, &reply);
    else
        rc = symh_tl_ucx_atomic(ch, ep, opcode, size, operand, remote, rkey, &reply);
    if (rc == SYMH_OK && fetched != NULL)
        memcpy(fetched, &reply, size);
    return rc;
}

static int symh_tl_ucx_fence(symh_tl_chan_t *chan)
{
    symh_tl_ucx_chan_t *ch = symh_tl_ucx_chan(chan);
    if (ch->worker == NULL)
        return SYMH_OK;
    ucs_status_t status = ucp_worker_fence(ch->worker);
    if (status != UCS_OK)
        return symh_tl_ucx_fail("ucp_worker_fence", status);
    return SYMH_OK;
}

/* Drives the worker until every put_nbi/get_nbi request of `ch` has called back (see
 * symh_tl_ucx_nbi_done: a put's source is then reusable, a get's data in place), at least once. */
static void symh_tl_ucx_wait_nbi(symh_tl_ucx_chan_t *ch, const char *what)
{
    symh_wait_t w;

    ++symh_tl_nic_counts.waits;
    symh_wait_start(&w, SYMH_TL_UCX_SPIN);
    ucp_worker_progress(ch->worker);
    if (ch != &symh_ucx.def)
        ucp_worker_progress(symh_ucx.def.worker);
    while (__atomic_load_n(&ch->nbi_pending, __ATOMIC_ACQUIRE) > 0)
        symh_tl_ucx_poll(ch, &w, what);
}

/* A put_nbi/get_nbi that failed since the last wait_local or quiet (logged by its callback) fails
 * this one. */
static int symh_tl_ucx_nbi_failed(symh_tl_ucx_chan_t *ch)
{
    return __atomic_exchange_n(&ch->nbi_status, SYMH_OK, __ATOMIC_RELAXED) != SYMH_OK;
}

/* Local completion of the _nbi forms: their requests' callbacks, no flush (tl.h). */
static int symh_tl_ucx_wait_local(symh_tl_chan_t *chan)
{
    symh_tl_ucx_chan_t *ch = symh_tl_ucx_chan(chan);
    if (ch->worker == NULL)
        return SYMH_OK;
    symh_tl_ucx_wait_nbi(ch, "put_nbi/get_nbi local completions");
    return symh_tl_ucx_nbi_failed(ch) ? SYMH_ERR_TRANSPORT : SYMH_OK;
}

static int symh_tl_ucx_quiet(symh_tl_chan_t *chan)
{
    symh_tl_ucx_chan_t *ch = symh_tl_ucx_chan(chan);
    if (ch->worker == NULL)
        return SYMH_OK;
    /* The put_nbi/get_nbi requests are waited for first (see symh_tl_ucx_nbi_done). */
    symh_tl_ucx_wait_nbi(ch, "symh_quiet (put_nbi/get_nbi completions)");
    ucp_request_param_t param = { .op_attr_mask = 0 };
    int rc = symh_tl_ucx_wait(ch, ucp_worker_flush_nbx(ch->worker, &param), "ucp_worker_flush_nbx");
    if (symh_tl_ucx_nbi_failed(ch) && rc == SYMH_OK)
        rc = SYMH_ERR_TRANSPORT;
    return rc;
}

/* One eager active message (the header names the data's and the signal's offsets in key slot 0),
 * waited for until the source is reusable. Both ends must lie in key slot 0 (the internal area
 * and heap): a symmetric region elsewhere takes the put, fence, put of the caller instead. */
static int symh_tl_ucx_put_signal(symh_tl_chan_t *chan, void *dest, const void *source,
                                  size_t bytes, uint64_t *signal, uint64_t value, int pe)
{
    symh_tl_ucx_chan_t *ch = symh_tl_ucx_chan(chan);
    /* No data: only the signal is sent, and dest (which may lie anywhere) is not looked at. */
    symh_tl_ucx_put_signal_t h = {
        .dest = bytes > 0 ? (uint64_t)((char *)dest - symh_ucx.base) : 0,
        .signal = (uint64_t)((char *)signal - symh_ucx.base),
        .value = value,
        .bytes = bytes,
    };
    if (pe < 0 || pe >= symh_ucx.n_pes || ch->eps == NULL || ch->eps[pe] == NULL) {
        symh_error("UCX: no endpoint to PE %d", pe);
        return SYMH_ERR_INVALID_ARG;
    }
    if ((bytes > 0 && (char *)dest < symh_ucx.base) || (char *)signal < symh_ucx.base ||
        !symh_tl_ucx_in_slot0(h.dest, bytes) || !symh_tl_ucx_in_slot0(h.signal, sizeof(*signal))) {
        symh_error("UCX: put_signal to %p + %zu (signal %p) outside the internal area and heap",
                   dest, bytes, (void *)signal);
        return SYMH_ERR_INVALID_ARG;
    }
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
        .flags = UCP_AM_SEND_FLAG_EAGER,
    };
    return symh_tl_ucx_wait(ch,
                            ucp_am_send_nbx(ch->eps[pe], SYMH_TL_UCX_AM_PUT_SIGNAL, &h, sizeof(h),
                                            source, bytes, &param),
                            "ucp_am_send_nbx");
}

static int symh_tl_ucx_progress(void)
{
    if (symh_ucx.def.worker != NULL)
        ucp_worker_progress(symh_ucx.def.worker);
    return SYMH_OK;
}

/* A context's channel: a worker of its own (single-threaded for a private context, serialized
 * for a serialized one, else as the default worker), endpoints to every routed PE's default worker
 * (whose addresses init kept) and every live slot's keys unpacked for them (from the packed keys
 * map_slot kept), joined to the channel list so that slots mapped later reach it too. */
static int symh_tl_ucx_chan_create(long options, symh_tl_chan_t **chan)
{
    ucp_worker_params_t params = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = (options & SYMH_CTX_PRIVATE) ? UCS_THREAD_MODE_SINGLE
                       : (options & SYMH_CTX_SERIALIZED) || !symh_ucx.thread_multiple
                           ? UCS_THREAD_MODE_SERIALIZED
                           : UCS_THREAD_MODE_MULTI,
    };
    symh_tl_ucx_chan_t *ch;
    ucs_status_t st;
    int status = SYMH_OK;

    *chan = NULL;
    if (symh_ucx.context == NULL) {
        symh_error("UCX: no transport to make a channel on");
        return SYMH_ERR_INVALID_ARG;
    }
    ch = calloc(1, sizeof(*ch));
    if (ch != NULL) {
        ch->eps = calloc((size_t)symh_ucx.n_pes, sizeof(*ch->eps));
        ch->rkeys = calloc((size_t)symh_ucx.n_slots * (size_t)symh_ucx.n_pes, sizeof(*ch->rkeys));
    }
    if (ch == NULL || ch->eps == NULL || ch->rkeys == NULL) {
        symh_error("UCX: out of memory for a channel");
        status = SYMH_ERR_NO_MEMORY;
    }
    if (status == SYMH_OK && symh_fault_hit("ucx: channel")) {
        symh_error("UCX: making a channel failed (fault injection)");
        status = SYMH_ERR_TRANSPORT;
    }
    if (status == SYMH_OK) {
        st = ucp_worker_create(symh_ucx.context, &params, &ch->worker);
        if (st != UCS_OK) {
            ch->worker = NULL;
            status = symh_tl_ucx_fail("ucp_worker_create", st);
        }
    }
    if (status == SYMH_OK)
        status = symh_tl_ucx_connect(ch, symh_ucx.addresses, symh_ucx.address_stride);
    pthread_mutex_lock(&symh_ucx.chan_lock);
    for (int slot = 0; slot < symh_ucx.n_slots && status == SYMH_OK; slot++) {
        if (symh_ucx.keys[slot] != NULL)
            status =
                symh_tl_ucx_unpack_slot(ch, slot, symh_ucx.keys[slot], symh_ucx.key_stride[slot]);
    }
    if (status == SYMH_OK) {
        ch->next = symh_ucx.chans;
        symh_ucx.chans = ch;
    }
    pthread_mutex_unlock(&symh_ucx.chan_lock);
    if (status != SYMH_OK) {
        if (ch != NULL)
            symh_tl_ucx_chan_free(ch);
        free(ch);
        return status;
    }
    *chan = (symh_tl_chan_t *)(void *)ch;
    return SYMH_OK;
}

static void symh_tl_ucx_chan_destroy(symh_tl_chan_t *chan)
{
    symh_tl_ucx_chan_t *ch = (symh_tl_ucx_chan_t *)(void *)chan, **link;

    if (ch == NULL || ch == &symh_ucx.def)
        return;
    if (symh_tl_ucx_quiet(chan) != SYMH_OK)
        symh_warn("UCX: the quiet of a context being destroyed failed");
    pthread_mutex_lock(&symh_ucx.chan_lock);
    for (link = &symh_ucx.chans; *link != NULL && *link != ch; link = &(*link)->next)
        ;
    if (*link == ch)
        *link = ch->next;
    pthread_mutex_unlock(&symh_ucx.chan_lock);
    symh_tl_ucx_chan_free(ch);
    free(ch);
}

const symh_tl_nic_t symh_tl_ucx = {
    .ops =
        {
            .name = "ucx",
            .caps = SYMH_TL_CAP_NIC,
            .put = symh_tl_ucx_put,
            .get = symh_tl_ucx_get,
            .put_nbi = symh_tl_ucx_put_nbi,
            .get_nbi = symh_tl_ucx_get_nbi,
            .strided_nbi = symh_tl_ucx_strided_nbi,
            .wait_local = symh_tl_ucx_wait_local,
            .amo = symh_tl_ucx_amo,
            .fence = symh_tl_ucx_fence,
            .quiet = symh_tl_ucx_quiet,
            .progress = symh_tl_ucx_progress,
            .put_signal = symh_tl_ucx_put_signal,
        },
    .init = symh_tl_ucx_init,
    .fini = symh_tl_ucx_fini,
    .close = symh_tl_ucx_close,
    .map_symm = symh_tl_ucx_map_symm,
    .unmap_symm = symh_tl_ucx_unmap_symm,
    .map_local = symh_tl_ucx_map_local,
    .unmap_local = symh_tl_ucx_unmap_local,
    .chan_create = symh_tl_ucx_chan_create,
    .chan_destroy = symh_tl_ucx_chan_destroy,
};
