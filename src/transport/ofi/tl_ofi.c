/* transport: the libfabric (OFI) NIC transport (tl_nic.h). One fabric, domain and AV table per
 * PE, holding every routed PE's default endpoint (this one's included: the NIC carries atomics to
 * self). A channel (tl.h) is an RDM endpoint on that domain with its own completion counter,
 * counting every RMA and atomic posted on it, and its own CQ bound with selective completion that
 * only reports errors (and drives the provider's manual progress), plus the atomics' scratch area
 * and the bounce pool. The default channel's endpoint is the one peers know and target; a
 * context's channel (chan_create) only initiates, to the peers' default endpoints, through the
 * same AV and key slots. Its waits also read the default CQ: under manual progress (tcp, sockets)
 * a peer's RMA to this PE completes only while this PE drives its default endpoint.
 *
 * Completion: every operation waits for its channel's counter to catch up with the channel's
 * issued count (read the counter first, then the issued count: when it covers the issued count,
 * everything issued before the read has completed, this thread's operation included), so
 * put/get/amo return completed and quiet/fence are the same wait, on that channel alone, as is
 * wait_local, the strided transfers' wait per batch; their elements go as few messages, an iov on
 * each side (symh_tl_ofi_strided_nbi). Memory
 * registration honours what the provider returns in mr_mode: FI_MR_VIRT_ADDR unset means offsets
 * from the registered base of the target (exchanged per slot and PE), FI_MR_PROV_KEY the
 * provider's key (else ours), FI_MR_ENDPOINT a bind to the default endpoint (so no other
 * channels), FI_MR_LOCAL descriptors for local buffers (slot MRs, map_local handles, each
 * channel's registered scratch area for atomics; local memory without either is staged through
 * the channel's bounce pool: symh_tl_ofi_staged).
 *
 * libfabric is opened at run time (dlopen of libfabric.so.1 when this transport starts), never
 * linked: Debian's libfabric pulls in the PSM libraries, whose constructors install a SIGABRT
 * handler that turns every abort() of the process into exit(1) plus a backtrace file. A program
 * that never selects the ofi transport must not carry that. The five functions libfabric
 * exports that this file calls are looked up; everything else is inline through fid ops. */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <dlfcn.h>

#include <symheap/ctx.h>
#include <symheap/status.h>

#include "bootstrap/boot.h"
#include "core/core_config.h"
#include "core/core_fault.h"
#include "core/core_log.h"
#include "core/core_wait.h"
#include "transport/tl_nic.h"

/* The libfabric functions this file calls, from the library opened at run time. */
static struct {
    void *lib;
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
} symh_tl_ofi_lib;

/* The socket buffers libfabric's sockets provider asks for, when the program's environment does
 * not say (FI_SOCKETS_MAX_BUF_SZ; the kernel caps it at net.core.rmem_max and doubles it). The
 * provider takes a message's header off its socket only once the whole header has arrived. On
 * loopback, whose segments carry up to 64 KiB, the few bytes of a header left unread can keep
 * nearly all of a default-sized receive buffer charged (256,832 of 272,989 bytes for 16 bytes);
 * the kernel then advertises a zero window, the sender cannot send the header's rest, and both
 * sides wait for good (docs/transports.md "libfabric's sockets provider"). With buffers this
 * large the charge leaves the window open. */
#define SYMH_OFI_SOCKETS_BUF_SZ "4194304"

/* Opens libfabric once (kept open: the process may start the transport again). */
static int symh_tl_ofi_load(void)
{
    void *lib;

    if (symh_tl_ofi_lib.lib != NULL)
        return SYMH_OK;
    /* Before libfabric reads its providers' parameters (its first fi_getinfo); a value the
     * program set stays. */
    if (setenv("FI_SOCKETS_MAX_BUF_SZ", SYMH_OFI_SOCKETS_BUF_SZ, 0) != 0)
        symh_warn("ofi: cannot set FI_SOCKETS_MAX_BUF_SZ=%s: %m", SYMH_OFI_SOCKETS_BUF_SZ);
    lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        symh_error("ofi: cannot open libfabric.so.1 (install libfabric1): %s", dlerror());
        return SYMH_ERR_TRANSPORT;
    }
    /* Object pointers to function pointers: POSIX guarantees dlsym's result converts. */
    *(void **)&symh_tl_ofi_lib.getinfo = dlsym(lib, "fi_getinfo");
    *(void **)&symh_tl_ofi_lib.freeinfo = dlsym(lib, "fi_freeinfo");
    *(void **)&symh_tl_ofi_lib.dupinfo = dlsym(lib, "fi_dupinfo");
    *(void **)&symh_tl_ofi_lib.fabric = dlsym(lib, "fi_fabric");
    *(void **)&symh_tl_ofi_lib.strerror = dlsym(lib, "fi_strerror");
    if (symh_tl_ofi_lib.getinfo == NULL || symh_tl_ofi_lib.freeinfo == NULL ||
        symh_tl_ofi_lib.dupinfo == NULL || symh_tl_ofi_lib.fabric == NULL ||
        symh_tl_ofi_lib.strerror == NULL) {
        symh_error("ofi: libfabric.so.1 lacks fi_getinfo, fi_freeinfo, fi_dupinfo, fi_fabric or "
                   "fi_strerror");
        dlclose(lib);
        memset(&symh_tl_ofi_lib, 0, sizeof(symh_tl_ofi_lib));
        return SYMH_ERR_TRANSPORT;
    }
    symh_tl_ofi_lib.lib = lib;
    return SYMH_OK;
}

#define SYMH_OFI_VERSION FI_VERSION(1, 9)
/* Pauses of a wait loop before it yields the core on every poll (the wait policy, core_wait.h).
 * 0, every poll yields: measured best with manual progress at 4 PEs on 2 cores (tcp: 160k
 * contended atomics in 17 s, against 27 s with 16 polls between yields), and what automatic
 * progress needs (the provider's thread needs the CPU). */
#define SYMH_OFI_SPINS 0
#define SYMH_OFI_N_AMO (SYMH_TL_AMO_XOR + 1)
/* Unregistered local memory under FI_MR_LOCAL (symh_tl_ofi_staged): a transfer of up to
 * SYMH_OFI_BOUNCE_MAX bytes goes through the registered bounce pool of SYMH_OFI_BOUNCE_SIZE bytes
 * (each transfer holds a SYMH_OFI_BOUNCE_ALIGN-aligned piece of it until the next drain), larger
 * ones through a registration of the user's memory made for that transfer alone. */
#define SYMH_OFI_BOUNCE_MAX   8192
#define SYMH_OFI_BOUNCE_SIZE  (256 * 1024)
#define SYMH_OFI_BOUNCE_ALIGN 64
#define SYMH_OFI_BOUNCE_GETS  (SYMH_OFI_BOUNCE_SIZE / SYMH_OFI_BOUNCE_ALIGN)
/* Elements of a strided transfer one message carries at most (symh_tl_ofi_strided_nbi): the
 * provider's iov limits cap it further (tcp;ofi_rxm 4, sockets 8). */
#define SYMH_OFI_IOV_MAX 8

/* What a PE shares per key slot (the exchange itself carries the status: symh_boot_exchange). */
typedef struct {
    uint64_t key;
    uint64_t base;
} symh_tl_ofi_slot_rec_t;

/* What a PE shares at init: slot 0's record, then its endpoint name (name_len bytes of it). */
typedef struct {
    symh_tl_ofi_slot_rec_t rec;
    char name[FI_NAME_MAX * 4];
} symh_tl_ofi_hello_t;

/* A channel (tl.h): an endpoint with its own completion queue and counter, and what its
 * operations use locally. The default channel lives in the state; chan_create makes the others,
 * linked in the state's list. */
typedef struct symh_tl_ofi_chan {
    struct fid_ep *ep;
    struct fid_cq *cq;     /* selective completion: reports errors only */
    struct fid_cntr *cntr; /* counts every RMA and atomic posted on ep */
    int private_use;       /* SYMH_CTX_PRIVATE: one thread uses it, it takes no locks */

    uint64_t issued;   /* operations posted (atomic) */
    uint64_t err_seen; /* counter errors already reported (atomic) */

    /* Atomics: operand/result area (registered when FI_MR_LOCAL). */
    uint64_t scratch[4];
    struct fid_mr *scratch_mr;
    void *scratch_desc;
    pthread_mutex_t amo_lock;

    /* The bounce pool (FI_MR_LOCAL only; symh_tl_ofi_staged). Its pieces are taken and drained
     * under bounce_lock: a drain completes everything posted, then copies each staged get out. */
    char *bounce;
    struct fid_mr *bounce_mr;
    void *bounce_desc;
    size_t bounce_used; /* bytes taken since the last drain (read unlocked by quiet: atomic) */
    struct {
        char *stage;
        void *dest;
        size_t bytes;
    } * bounce_gets; /* n_bounce_gets staged gets to copy out at the next drain */
    int n_bounce_gets;
    pthread_mutex_t bounce_lock;

    struct symh_tl_ofi_chan *prev, *next; /* the state's list of channels (not the default) */
} symh_tl_ofi_chan_t;

static struct {
    int up;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;

    int my_pe;
    int n_pes;
    int n_slots;
    int thread_multiple;
    int virt_addr;   /* FI_MR_VIRT_ADDR: remote addresses are virtual, else offsets */
    int mr_local;    /* FI_MR_LOCAL: local buffers need descriptors */
    int mr_endpoint; /* FI_MR_ENDPOINT: MRs are bound to the endpoint */
    int prov_key;    /* FI_MR_PROV_KEY: the provider picks keys */
    size_t max_msg;
    size_t iov_max;     /* elements per message of a strided transfer (both sides' iov limits) */
    int amo_via_fetch;  /* non-fetching atomics go as fetching ones (see symh_tl_ofi_amo) */
    int need_ctx;       /* mode FI_CONTEXT/FI_CONTEXT2: operations carry a context */
    uint64_t put_flags; /* fi_writemsg flags: FI_DELIVERY_COMPLETE */
    uint64_t next_key;  /* our keys when the provider does not pick them */

    fi_addr_t *addr;     /* n_pes: default endpoints, FI_ADDR_NOTAVAIL for PEs not routed here */
    struct fid_mr **mr;  /* n_slots: this PE's MR of each slot, NULL when unmapped */
    uint64_t *keys;      /* n_slots * n_pes: remote keys */
    uint64_t *bases;     /* n_slots * n_pes: registered base of each PE's slot */
    unsigned char *live; /* n_slots: keys of the slot are valid */
    unsigned char amo_ok[2][SYMH_OFI_N_AMO][2]; /* [4/8 bytes][op][fetching] */

    symh_tl_ofi_chan_t def;    /* the default channel (NULL) */
    symh_tl_ofi_chan_t *chans; /* the others, under chan_lock */
    pthread_mutex_t chan_lock;
} symh_tl_ofi_state = { .def = { .amo_lock = PTHREAD_MUTEX_INITIALIZER,
                                 .bounce_lock = PTHREAD_MUTEX_INITIALIZER },
                        .chan_lock = PTHREAD_MUTEX_INITIALIZER };

/* The channel a context passes (NULL: the default channel). */
static inline symh_tl_ofi_chan_t *symh_tl_ofi_chan(symh_tl_chan_t *chan)
{
    return chan != NULL ? (symh_tl_ofi_chan_t *)(void *)chan : &symh_tl_ofi_state.def;
}

static const char *symh_tl_ofi_amo_name[SYMH_OFI_N_AMO] = { "fetch", "set", "swap", "cswap",
                                                            "add",   "and", "or",   "xor" };

#define SYMH_OFI_FAIL(call, ret)                                                         \
    do {                                                                                 \
        symh_error("ofi: %s failed: %s", (call), symh_tl_ofi_lib.strerror((int)-(ret))); \
    } while (0)

/* Reads a channel's CQ once: drives manual progress, reports error entries. */
static void symh_tl_ofi_poll_cq(symh_tl_ofi_chan_t *c)
{
    struct fi_cq_entry entries[8];
    ssize_t ret = fi_cq_read(c->cq, entries, 8);
    if (ret == -FI_EAVAIL) {
        struct fi_cq_err_entry err;
        memset(&err, 0, sizeof(err));
        if (fi_cq_readerr(c->cq, &err, 0) > 0) {
            char buf[256];
            symh_error("ofi: operation failed: %s (%s)", symh_tl_ofi_lib.strerror(err.err),
                       fi_cq_strerror(c->cq, err.prov_errno, err.err_data, buf, sizeof(buf)));
        }
    }
    (void)fi_cntr_read(c->cntr);
}

/* One round of a wait loop on channel `c`: reads its CQ (progress), and the default channel's
 * when `c` is another: peers target the default endpoints only, and under manual progress a peer
 * waiting on its context for our default endpoint would otherwise wait for our own context's
 * wait to end (two PEs each waiting on a get to the other hang). Then a step of the wait policy.
 * `pending` operations are not complete yet (0: a post the provider refuses with -FI_EAGAIN);
 * the hang watch's line says which. */
static void symh_tl_ofi_poll(symh_tl_ofi_chan_t *c, symh_wait_t *w, const char *func,
                             uint64_t pending)
{
    symh_tl_ofi_poll_cq(c);
    if (c != &symh_tl_ofi_state.def)
        symh_tl_ofi_poll_cq(&symh_tl_ofi_state.def);
    if (symh_likely(!symh_wait_step(w)))
        return;
    if (pending > 0)
        symh_error("ofi: %s: PE %d has waited %.0f s for %" PRIu64
                   " operation(s) to complete (a peer not progressing?) (SYMH_HANG_TIMEOUT)",
                   func, symh_tl_ofi_state.my_pe, symh_wait_seconds(w), pending);
    else
        symh_error("ofi: %s: PE %d has retried a post refused with -FI_EAGAIN for %.0f s (a peer "
                   "not progressing?) (SYMH_HANG_TIMEOUT)",
                   func, symh_tl_ofi_state.my_pe, symh_wait_seconds(w));
    symh_wait_hang_reported();
}

/* Waits until every operation posted so far on channel `c` has completed. */
static int symh_tl_ofi_wait_all(symh_tl_ofi_chan_t *c, const char *func)
{
    symh_wait_t w;

    ++symh_tl_nic_counts.waits;
    symh_wait_start(&w, SYMH_OFI_SPINS);
    for (;;) {
        uint64_t done = fi_cntr_read(c->cntr);
        uint64_t errs = fi_cntr_readerr(c->cntr);
        uint64_t issued = __atomic_load_n(&c->issued, __ATOMIC_ACQUIRE);
        uint64_t seen = __atomic_load_n(&c->err_seen, __ATOMIC_RELAXED);
        if (errs > seen && __atomic_compare_exchange_n(&c->err_seen, &seen, errs, 0,
                                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            symh_tl_ofi_poll_cq(c); /* logs the error entry when the provider wrote one */
            symh_error("ofi: %s: %" PRIu64 " operation(s) failed (fi_cntr_readerr)", func,
                       errs - seen);
            return SYMH_ERR_TRANSPORT;
        }
        if (done + errs >= issued)
            return SYMH_OK;
        symh_tl_ofi_poll(c, &w, func, issued - done - errs);
    }
}

/* A post's return: `post`'s, or -FI_EIO where the tests' fault site "post: ofi" refuses it. */
#define SYMH_OFI_TRY(post) (symh_fault_hit("post: ofi") ? -FI_EIO : (post))

/* Posts one operation on channel `c`: retries on -FI_EAGAIN while progressing. `post` is
 * evaluated each try. */
#define SYMH_OFI_POST(c, call, post)                               \
    do {                                                           \
        ssize_t post_ret_;                                         \
        symh_wait_t post_wait_;                                    \
        symh_wait_start(&post_wait_, SYMH_OFI_SPINS);              \
        __atomic_add_fetch(&(c)->issued, 1, __ATOMIC_ACQ_REL);     \
        while ((post_ret_ = SYMH_OFI_TRY(post)) == -FI_EAGAIN)     \
            symh_tl_ofi_poll((c), &post_wait_, (call), 0);         \
        if (post_ret_ != 0) {                                      \
            __atomic_sub_fetch(&(c)->issued, 1, __ATOMIC_ACQ_REL); \
            SYMH_OFI_FAIL(call, post_ret_);                        \
            return SYMH_ERR_TRANSPORT;                             \
        }                                                          \
    } while (0)

/* ---- memory registration -------------------------------------------------------------------- */

static int symh_tl_ofi_mr_reg(void *addr, size_t length, uint64_t access, struct fid_mr **mr)
{
    uint64_t key = symh_tl_ofi_state.prov_key
                       ? 0
                       : __atomic_fetch_add(&symh_tl_ofi_state.next_key, 1, __ATOMIC_RELAXED);
    int ret = fi_mr_reg(symh_tl_ofi_state.domain, addr, length, access, 0, key, 0, mr, NULL);
    if (ret != 0) {
        *mr = NULL;
        SYMH_OFI_FAIL("fi_mr_reg", ret);
        return SYMH_ERR_TRANSPORT;
    }
    if (symh_tl_ofi_state.mr_endpoint) {
        ret = fi_mr_bind(*mr, &symh_tl_ofi_state.def.ep->fid, 0);
        if (ret != 0) {
            SYMH_OFI_FAIL("fi_mr_bind", ret);
        } else {
            ret = fi_mr_enable(*mr);
            if (ret != 0)
                SYMH_OFI_FAIL("fi_mr_enable", ret);
        }
        if (ret != 0) {
            fi_close(&(*mr)->fid);
            *mr = NULL;
            return SYMH_ERR_TRANSPORT;
        }
    }
    return SYMH_OK;
}

static void symh_tl_ofi_mr_close(struct fid_mr **mr)
{
    if (*mr != NULL) {
        int ret = fi_close(&(*mr)->fid);
        if (ret != 0)
            SYMH_OFI_FAIL("fi_close(mr)", ret);
        *mr = NULL;
    }
}

/* Registers this PE's [addr, addr + length) as `slot` (when status is SYMH_OK) and exchanges the
 * key and base with every PE (a PE that failed only takes part). */
static int symh_tl_ofi_share_slot(int slot, void *addr, size_t length, int status)
{
    int n = symh_tl_ofi_state.n_pes;
    symh_tl_ofi_slot_rec_t mine = { 0 }, rec;
    void *all = NULL;
    size_t stride = 0;

    if (status == SYMH_OK) {
        status =
            symh_tl_ofi_mr_reg(addr, length, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE,
                               &symh_tl_ofi_state.mr[slot]);
        if (status == SYMH_OK) {
            mine.key = fi_mr_key(symh_tl_ofi_state.mr[slot]);
            mine.base = (uint64_t)(uintptr_t)addr;
        }
    }
    int mine_status = status;
    status =
        symh_boot_exchange(status, &mine, sizeof(mine), "ofi: the key exchange", &all, &stride);
    if (status == SYMH_OK) {
        for (int pe = 0; pe < n; ++pe) {
            memcpy(&rec, (char *)all + stride * (size_t)pe, sizeof(rec));
            symh_tl_ofi_state.keys[(size_t)slot * (size_t)n + (size_t)pe] = rec.key;
            symh_tl_ofi_state.bases[(size_t)slot * (size_t)n + (size_t)pe] = rec.base;
        }
        symh_tl_ofi_state.live[slot] = 1;
    } else if (mine_status == SYMH_OK) {
        symh_debug("ofi: slot %d not mapped: another PE failed (%s)", slot,
                   symh_status_string(status));
    }
    free(all);
    return status;
}

/* ---- init / fini ------------------------------------------------------------------------------
 */

static void symh_tl_ofi_close_fid(struct fid *fid, const char *what)
{
    if (fid == NULL)
        return;
    int ret = fi_close(fid);
    if (ret != 0)
        symh_warn("ofi: fi_close(%s) failed: %s", what, symh_tl_ofi_lib.strerror(-ret));
}

/* Closes what channel `c` opened, in reverse order (each handle NULL once closed). */
static void symh_tl_ofi_chan_close(symh_tl_ofi_chan_t *c)
{
    symh_tl_ofi_mr_close(&c->bounce_mr);
    free(c->bounce);
    free(c->bounce_gets);
    c->bounce = NULL;
    c->bounce_gets = NULL;
    c->bounce_desc = NULL;
    c->bounce_used = 0;
    c->n_bounce_gets = 0;
    symh_tl_ofi_mr_close(&c->scratch_mr);
    c->scratch_desc = NULL;
    symh_tl_ofi_close_fid(c->ep ? &c->ep->fid : NULL, "ep");
    symh_tl_ofi_close_fid(c->cntr ? &c->cntr->fid : NULL, "cntr");
    symh_tl_ofi_close_fid(c->cq ? &c->cq->fid : NULL, "cq");
    c->ep = NULL;
    c->cntr = NULL;
    c->cq = NULL;
}

static void symh_tl_ofi_teardown(void)
{
    symh_tl_ofi_state.up = 0;
    if (symh_tl_ofi_state.mr != NULL) {
        for (int slot = 0; slot < symh_tl_ofi_state.n_slots; ++slot)
            symh_tl_ofi_mr_close(&symh_tl_ofi_state.mr[slot]);
    }
    symh_tl_ofi_chan_close(&symh_tl_ofi_state.def);
    symh_tl_ofi_close_fid(symh_tl_ofi_state.av ? &symh_tl_ofi_state.av->fid : NULL, "av");
    symh_tl_ofi_close_fid(symh_tl_ofi_state.domain ? &symh_tl_ofi_state.domain->fid : NULL,
                          "domain");
    symh_tl_ofi_close_fid(symh_tl_ofi_state.fabric ? &symh_tl_ofi_state.fabric->fid : NULL,
                          "fabric");
    if (symh_tl_ofi_state.info != NULL)
        symh_tl_ofi_lib.freeinfo(symh_tl_ofi_state.info);
    free(symh_tl_ofi_state.addr);
    free(symh_tl_ofi_state.mr);
    free(symh_tl_ofi_state.keys);
    free(symh_tl_ofi_state.bases);
    free(symh_tl_ofi_state.live);
    symh_tl_ofi_state.av = NULL;
    symh_tl_ofi_state.domain = NULL;
    symh_tl_ofi_state.fabric = NULL;
    symh_tl_ofi_state.info = NULL;
    symh_tl_ofi_state.addr = NULL;
    symh_tl_ofi_state.mr = NULL;
    symh_tl_ofi_state.keys = NULL;
    symh_tl_ofi_state.bases = NULL;
    symh_tl_ofi_state.live = NULL;
}

/* fi_getinfo with our hints; `mr_local`: also accept providers that need local descriptors;
 * `manual`: ask for manual data progress. */
static int symh_tl_ofi_getinfo(const char *prov, int thread_multiple, int mr_local, int manual,
                               struct fi_info **info)
{
    struct fi_info *hints = symh_tl_ofi_lib.dupinfo(NULL);
    if (hints == NULL)
        return -FI_ENOMEM;
    hints->caps = FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode =
        FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    if (mr_local)
        hints->domain_attr->mr_mode |= FI_MR_LOCAL;
    hints->domain_attr->threading = thread_multiple ? FI_THREAD_SAFE : FI_THREAD_DOMAIN;
    hints->domain_attr->control_progress = FI_PROGRESS_UNSPEC;
    hints->domain_attr->data_progress = manual ? FI_PROGRESS_MANUAL : FI_PROGRESS_UNSPEC;
    if (prov != NULL && prov[0] != '\0') {
        hints->fabric_attr->prov_name = strdup(prov);
        if (hints->fabric_attr->prov_name == NULL) {
            symh_tl_ofi_lib.freeinfo(hints);
            return -FI_ENOMEM;
        }
    }
    int ret = symh_tl_ofi_lib.getinfo(SYMH_OFI_VERSION, NULL, NULL, 0, hints, info);
    symh_tl_ofi_lib.freeinfo(hints);
    return ret;
}

/* Records which atomics the provider carries on 4- and 8-byte words; logs the missing ones. */
static void symh_tl_ofi_check_atomics(void)
{
    static const enum fi_op base_op[SYMH_OFI_N_AMO] = {
        [SYMH_TL_AMO_FETCH] = FI_ATOMIC_READ,
        [SYMH_TL_AMO_SET] = FI_ATOMIC_WRITE,
        [SYMH_TL_AMO_SWAP] = FI_ATOMIC_WRITE,
        [SYMH_TL_AMO_CSWAP] = FI_CSWAP,
        [SYMH_TL_AMO_ADD] = FI_SUM,
        [SYMH_TL_AMO_AND] = FI_BAND,
        [SYMH_TL_AMO_OR] = FI_BOR,
        [SYMH_TL_AMO_XOR] = FI_BXOR,
    };
    char missing[256] = "";
    size_t used = 0;
    for (int t = 0; t < 2; ++t) {
        enum fi_datatype dt = t == 0 ? FI_UINT32 : FI_UINT64;
        for (int op = 0; op < SYMH_OFI_N_AMO; ++op) {
            /* The tests' provider without this operation on this word size: fault site n is
             * word size n / 8 (32, 64 bits), operation n % 8. */
            int lacking = symh_fault_hit("amo: ofi atomicvalid");
            for (int fetch = 0; fetch < 2; ++fetch) {
                size_t count = 0;
                int ok;
                if (op == SYMH_TL_AMO_CSWAP)
                    ok = fetch && fi_compare_atomicvalid(symh_tl_ofi_state.def.ep, dt, base_op[op],
                                                         &count) == 0;
                else if (op == SYMH_TL_AMO_FETCH || op == SYMH_TL_AMO_SWAP)
                    ok = fetch && fi_fetch_atomicvalid(symh_tl_ofi_state.def.ep, dt, base_op[op],
                                                       &count) == 0;
                else if (fetch)
                    ok = fi_fetch_atomicvalid(symh_tl_ofi_state.def.ep, dt, base_op[op], &count) ==
                         0;
                else
                    ok = fi_atomicvalid(symh_tl_ofi_state.def.ep, dt, base_op[op], &count) == 0;
                ok = ok && count >= 1 && !lacking;
                symh_tl_ofi_state.amo_ok[t][op][fetch] = (unsigned char)ok;
            }
            /* Usable: a fetching form where the op fetches; either form where it does not. */
            unsigned char *ok = symh_tl_ofi_state.amo_ok[t][op];
            int plain = op == SYMH_TL_AMO_FETCH || op == SYMH_TL_AMO_SWAP || op == SYMH_TL_AMO_CSWAP
                            ? ok[1]
                            : ok[0] || ok[1];
            for (int fetch = 0; fetch < 2; ++fetch) {
                int missing_one = fetch ? op >= SYMH_TL_AMO_ADD && !ok[1] : !plain;
                if (missing_one && used + 24 < sizeof(missing)) {
                    int len =
                        snprintf(missing + used, sizeof(missing) - used, " %s%s%d",
                                 fetch ? "fetch_" : "", symh_tl_ofi_amo_name[op], t == 0 ? 32 : 64);
                    if (len > 0)
                        used += (size_t)len;
                }
            }
        }
    }
    if (used > 0)
        symh_warn("ofi: provider %s lacks atomics:%s (those return SYMH_ERR_UNSUPPORTED)",
                  symh_tl_ofi_state.info->fabric_attr->prov_name, missing);
}

/* Init step 1: the provider's fi_info (preferred: no local descriptors, and progress driven by
 * our own polls: every symheap wait polls, and a provider's progress thread fights the PEs for
 * the cores), and what its memory-registration mode asks of us. */
static int symh_tl_ofi_pick(int thread_multiple)
{
    const char *prov = symh_config_string(SYMH_CFG_OFI_PROVIDER);
    int ret = -FI_ENODATA;

    for (int attempt = 0; attempt < 4 && ret == -FI_ENODATA; ++attempt)
        ret = symh_tl_ofi_getinfo(prov, thread_multiple, attempt >= 2, attempt % 2 == 0,
                                  &symh_tl_ofi_state.info);
    if (ret != 0) {
        symh_error("ofi: fi_getinfo failed for provider \"%s\" (RDM endpoint with RMA and "
                   "atomics): %s",
                   prov != NULL ? prov : "", symh_tl_ofi_lib.strerror(-ret));
        symh_tl_ofi_state.info = NULL;
        return SYMH_ERR_TRANSPORT;
    }
    struct fi_info *info = symh_tl_ofi_state.info;
    int mr_mode = info->domain_attr->mr_mode;
    symh_tl_ofi_state.virt_addr = (mr_mode & FI_MR_VIRT_ADDR) != 0;
    /* The tests' provider that wants local descriptors (tcp and sockets do not): the fault
     * site makes this one pass them, and stage unregistered memory, as if it did. */
    symh_tl_ofi_state.mr_local =
        (mr_mode & FI_MR_LOCAL) != 0 || symh_fault_hit("rma: ofi mr_local");
    symh_tl_ofi_state.mr_endpoint = (mr_mode & FI_MR_ENDPOINT) != 0;
    symh_tl_ofi_state.prov_key = (mr_mode & FI_MR_PROV_KEY) != 0;
    symh_tl_ofi_state.max_msg =
        info->ep_attr->max_msg_size > 0 ? info->ep_attr->max_msg_size : SIZE_MAX;
    symh_tl_ofi_state.next_key = 1;
    symh_tl_ofi_state.need_ctx = (info->mode & (FI_CONTEXT | FI_CONTEXT2)) != 0;
    size_t iov_max = info->tx_attr->iov_limit < info->tx_attr->rma_iov_limit
                         ? info->tx_attr->iov_limit
                         : info->tx_attr->rma_iov_limit;
    symh_tl_ofi_state.iov_max = iov_max < 1                  ? 1
                                : iov_max > SYMH_OFI_IOV_MAX ? SYMH_OFI_IOV_MAX
                                                             : iov_max;
    symh_tl_ofi_state.put_flags = FI_DELIVERY_COMPLETE;
    symh_tl_ofi_state.amo_via_fetch = strncmp(info->fabric_attr->prov_name, "shm", 3) == 0;
    symh_info("ofi: provider %s, fabric %s, domain %s, mr_mode 0x%x (%s%s%s%s), progress "
              "control %s data %s, max_msg %zu",
              info->fabric_attr->prov_name, info->fabric_attr->name, info->domain_attr->name,
              (unsigned)mr_mode, symh_tl_ofi_state.virt_addr ? "virt_addr" : "offsets",
              symh_tl_ofi_state.mr_local ? " local" : "",
              symh_tl_ofi_state.prov_key ? " prov_key" : "",
              symh_tl_ofi_state.mr_endpoint ? " endpoint" : "",
              info->domain_attr->control_progress == FI_PROGRESS_MANUAL ? "manual" : "auto",
              info->domain_attr->data_progress == FI_PROGRESS_MANUAL ? "manual" : "auto",
              symh_tl_ofi_state.max_msg);
    return SYMH_OK;
}

/* Init step 2: fabric, domain and address vector (each handle is set only once open, so
 * teardown closes exactly what was opened). */
static int symh_tl_ofi_open_domain(void)
{
    struct fi_info *info = symh_tl_ofi_state.info;
    int ret = symh_tl_ofi_lib.fabric(info->fabric_attr, &symh_tl_ofi_state.fabric, NULL);

    if (ret != 0) {
        symh_tl_ofi_state.fabric = NULL;
        SYMH_OFI_FAIL("fi_fabric", ret);
        return SYMH_ERR_TRANSPORT;
    }
    ret = fi_domain(symh_tl_ofi_state.fabric, info, &symh_tl_ofi_state.domain, NULL);
    if (ret != 0) {
        symh_tl_ofi_state.domain = NULL;
        SYMH_OFI_FAIL("fi_domain", ret);
        return SYMH_ERR_TRANSPORT;
    }
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE, .count = (size_t)symh_tl_ofi_state.n_pes };
    ret = fi_av_open(symh_tl_ofi_state.domain, &av_attr, &symh_tl_ofi_state.av, NULL);
    if (ret != 0) {
        symh_tl_ofi_state.av = NULL;
        SYMH_OFI_FAIL("fi_av_open", ret);
        return SYMH_ERR_TRANSPORT;
    }
    return SYMH_OK;
}

/* Init step 3, and chan_create: channel `c`'s completion queue, counter and endpoint (bound to
 * the shared address vector, the queue and the counter, enabled). Each handle is set only once
 * open, so symh_tl_ofi_chan_close closes exactly what was opened. */
static int symh_tl_ofi_open_endpoint(symh_tl_ofi_chan_t *c)
{
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE };
    int ret = fi_cq_open(symh_tl_ofi_state.domain, &cq_attr, &c->cq, NULL);

    if (ret != 0) {
        c->cq = NULL;
        SYMH_OFI_FAIL("fi_cq_open", ret);
        return SYMH_ERR_TRANSPORT;
    }
    struct fi_cntr_attr cntr_attr = { .events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE };
    ret = fi_cntr_open(symh_tl_ofi_state.domain, &cntr_attr, &c->cntr, NULL);
    if (ret != 0) {
        cntr_attr.wait_obj = FI_WAIT_UNSPEC;
        ret = fi_cntr_open(symh_tl_ofi_state.domain, &cntr_attr, &c->cntr, NULL);
    }
    if (ret != 0) {
        c->cntr = NULL;
        SYMH_OFI_FAIL("fi_cntr_open", ret);
        return SYMH_ERR_TRANSPORT;
    }
    ret = fi_endpoint(symh_tl_ofi_state.domain, symh_tl_ofi_state.info, &c->ep, NULL);
    if (ret != 0) {
        c->ep = NULL;
        SYMH_OFI_FAIL("fi_endpoint", ret);
        return SYMH_ERR_TRANSPORT;
    }
    ret = fi_ep_bind(c->ep, &symh_tl_ofi_state.av->fid, 0);
    if (ret != 0) {
        SYMH_OFI_FAIL("fi_ep_bind(av)", ret);
        return SYMH_ERR_TRANSPORT;
    }
    ret = fi_ep_bind(c->ep, &c->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION);
    if (ret != 0) {
        SYMH_OFI_FAIL("fi_ep_bind(cq)", ret);
        return SYMH_ERR_TRANSPORT;
    }
    ret = fi_ep_bind(c->ep, &c->cntr->fid, FI_WRITE | FI_READ);
    if (ret != 0) {
        SYMH_OFI_FAIL("fi_ep_bind(cntr)", ret);
        return SYMH_ERR_TRANSPORT;
    }
    ret = fi_enable(c->ep);
    if (ret != 0) {
        SYMH_OFI_FAIL("fi_enable", ret);
        return SYMH_ERR_TRANSPORT;
    }
    return SYMH_OK;
}

/* Init step 4, and chan_create: channel `c`'s local buffers under FI_MR_LOCAL, registered (the
 * atomics' scratch area and the bounce pool); nothing otherwise. */
static int symh_tl_ofi_open_buffers(symh_tl_ofi_chan_t *c)
{
    int status;

    if (!symh_tl_ofi_state.mr_local)
        return SYMH_OK;
    status = symh_tl_ofi_mr_reg(c->scratch, sizeof(c->scratch), FI_READ | FI_WRITE, &c->scratch_mr);
    if (status != SYMH_OK)
        return status;
    c->scratch_desc = fi_mr_desc(c->scratch_mr);
    c->bounce = aligned_alloc(SYMH_OFI_BOUNCE_ALIGN, SYMH_OFI_BOUNCE_SIZE);
    c->bounce_gets = calloc(SYMH_OFI_BOUNCE_GETS, sizeof(*c->bounce_gets));
    if (c->bounce == NULL || c->bounce_gets == NULL) {
        symh_error("ofi: out of memory for the bounce pool (%d bytes)", SYMH_OFI_BOUNCE_SIZE);
        return SYMH_ERR_NO_MEMORY;
    }
    status = symh_tl_ofi_mr_reg(c->bounce, SYMH_OFI_BOUNCE_SIZE, FI_READ | FI_WRITE, &c->bounce_mr);
    if (status != SYMH_OK)
        return status;
    c->bounce_desc = fi_mr_desc(c->bounce_mr);
    return SYMH_OK;
}

/* Init step 5: the provider's atomics, and slot 0 (internal area and heap) registered for remote
 * access; its key into *key. */
static int symh_tl_ofi_register_window(void *base, size_t length, uint64_t *key)
{
    int status;

    symh_tl_ofi_check_atomics();
    if (symh_fault_hit("ofi: open")) {
        symh_error("ofi: opening the endpoint failed (fault injection)");
        return SYMH_ERR_TRANSPORT;
    }
    status = symh_tl_ofi_mr_reg(base, length, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE,
                                &symh_tl_ofi_state.mr[SYMH_TL_NIC_HEAP_SLOT]);
    if (status != SYMH_OK)
        return status;
    *key = fi_mr_key(symh_tl_ofi_state.mr[SYMH_TL_NIC_HEAP_SLOT]);
    return SYMH_OK;
}

/* The local steps of init, in order, up to and including the slot 0 registration. */
static int symh_tl_ofi_open(void *base, size_t length, int thread_multiple, char *name,
                            size_t *name_len, uint64_t *key)
{
    int status = symh_tl_ofi_pick(thread_multiple);

    if (status == SYMH_OK)
        status = symh_tl_ofi_open_domain();
    if (status == SYMH_OK)
        status = symh_tl_ofi_open_endpoint(&symh_tl_ofi_state.def);
    if (status == SYMH_OK) {
        /* The default endpoint's name: what peers insert into their address vectors. */
        int ret = fi_getname(&symh_tl_ofi_state.def.ep->fid, name, name_len);
        if (ret != 0) {
            SYMH_OFI_FAIL("fi_getname", ret);
            *name_len = 0;
            status = SYMH_ERR_TRANSPORT;
        }
    }
    if (status == SYMH_OK)
        status = symh_tl_ofi_open_buffers(&symh_tl_ofi_state.def);
    if (status == SYMH_OK)
        status = symh_tl_ofi_register_window(base, length, key);
    return status;
}

/* The per-PE and per-slot tables of an n-PE job; every address starts FI_ADDR_NOTAVAIL. */
static int symh_tl_ofi_alloc_tables(int n)
{
    size_t n_slots = (size_t)symh_tl_ofi_state.n_slots;

    symh_tl_ofi_state.addr =
        symh_fault_malloc((size_t)n * sizeof(*symh_tl_ofi_state.addr), "ofi: tables");
    symh_tl_ofi_state.mr = calloc(n_slots, sizeof(*symh_tl_ofi_state.mr));
    symh_tl_ofi_state.keys = calloc(n_slots * (size_t)n, sizeof(*symh_tl_ofi_state.keys));
    symh_tl_ofi_state.bases = calloc(n_slots * (size_t)n, sizeof(*symh_tl_ofi_state.bases));
    symh_tl_ofi_state.live = calloc(n_slots, 1);
    if (symh_tl_ofi_state.addr == NULL || symh_tl_ofi_state.mr == NULL ||
        symh_tl_ofi_state.keys == NULL || symh_tl_ofi_state.bases == NULL ||
        symh_tl_ofi_state.live == NULL) {
        symh_error("ofi: out of memory for the tables of %d PEs", n);
        return SYMH_ERR_NO_MEMORY;
    }
    for (int pe = 0; pe < n; ++pe)
        symh_tl_ofi_state.addr[pe] = FI_ADDR_NOTAVAIL;
    return SYMH_OK;
}

/* After the address exchange (`all`: one hello per PE, `stride` bytes apart): every PE's slot 0
 * key and base, and the endpoint of every routed PE in the address vector. */
static int symh_tl_ofi_insert_peers(const void *all, size_t stride)
{
    int status = SYMH_OK;

    for (int pe = 0; pe < symh_tl_ofi_state.n_pes && status == SYMH_OK; ++pe) {
        const char *block = (const char *)all + stride * (size_t)pe;
        symh_tl_ofi_slot_rec_t rec;
        memcpy(&rec, block, sizeof(rec));
        symh_tl_ofi_state.keys[pe] = rec.key; /* slot 0 row */
        symh_tl_ofi_state.bases[pe] = rec.base;
        if (!symh_tl_nic_routed(pe))
            continue;
        int ret = symh_fault_hit("ofi: av insert")
                      ? -FI_EOTHER
                      : fi_av_insert(symh_tl_ofi_state.av, block + sizeof(rec), 1,
                                     &symh_tl_ofi_state.addr[pe], 0, NULL);
        if (ret != 1) {
            symh_error("ofi: fi_av_insert of PE %d failed: %s", pe,
                       symh_tl_ofi_lib.strerror(ret < 0 ? -ret : FI_EOTHER));
            status = SYMH_ERR_TRANSPORT;
        }
    }
    return status;
}

static int symh_tl_ofi_init(void *base, size_t length, int thread_multiple)
{
    symh_tl_ofi_hello_t mine = { .rec = { .base = (uint64_t)(uintptr_t)base } };
    size_t name_len = sizeof(mine.name), stride = 0;
    void *all = NULL;
    int status;

    symh_tl_ofi_state.my_pe = symh_boot_info.my_pe;
    symh_tl_ofi_state.n_pes = symh_boot_info.n_pes;
    symh_tl_ofi_state.n_slots = symh_tl_nic_n_slots;
    symh_tl_ofi_state.thread_multiple = thread_multiple;
    symh_tl_ofi_state.def.issued = 0;
    symh_tl_ofi_state.def.err_seen = 0;
    symh_tl_ofi_state.def.private_use = 0;

    /* Local steps; a PE that failed still takes part in both exchanges below. */
    status = symh_tl_ofi_alloc_tables(symh_tl_ofi_state.n_pes);
    if (status == SYMH_OK)
        status = symh_tl_ofi_load();
    if (status == SYMH_OK)
        status =
            symh_tl_ofi_open(base, length, thread_multiple, mine.name, &name_len, &mine.rec.key);

    /* Exchange 1: slot 0 keys and bases, and the endpoint names. */
    status = symh_boot_exchange(status, &mine, sizeof(mine.rec) + name_len,
                                "ofi: the address exchange", &all, &stride);
    if (status == SYMH_OK)
        status = symh_tl_ofi_insert_peers(all, stride);
    free(all);

    /* Exchange 2: everybody connected? (Those who failed exchange 1 all stop here too.) */
    status = symh_boot_agree(status, NULL);
    if (status != SYMH_OK) {
        symh_tl_ofi_teardown();
        return status;
    }
    symh_tl_ofi_state.live[SYMH_TL_NIC_HEAP_SLOT] = 1;
    symh_tl_ofi_state.up = 1;
    return SYMH_OK;
}

static int symh_tl_ofi_quiet(symh_tl_chan_t *chan);
static void symh_tl_ofi_chan_destroy(symh_tl_chan_t *chan);

/* symh_finalize's close (tl_nic.h): libfabric's endpoints owe their peers nothing once quiet
 * has completed every operation (the tcp and sockets providers close without a flush), so there
 * is nothing to do before the barrier. */
static void symh_tl_ofi_close(void) {}

/* The caller destroys every context's channel first; one still open here (a context the program
 * never destroyed) is destroyed with a warning, since its endpoint would keep the domain open. */
static void symh_tl_ofi_fini(void)
{
    int left = 0;

    for (;;) {
        pthread_mutex_lock(&symh_tl_ofi_state.chan_lock);
        symh_tl_ofi_chan_t *c = symh_tl_ofi_state.chans;
        pthread_mutex_unlock(&symh_tl_ofi_state.chan_lock);
        if (c == NULL)
            break;
        symh_tl_ofi_chan_destroy((symh_tl_chan_t *)(void *)c);
        ++left;
    }
    if (left > 0)
        symh_warn("ofi: fini: %d context channel(s) were still open (destroyed here)", left);
    if (symh_tl_ofi_state.up)
        (void)symh_tl_ofi_quiet(NULL);
    symh_tl_ofi_teardown();
}

/* ---- symmetric regions, local registrations ---------------------------------------------------
 */

static int symh_tl_ofi_map_symm(int slot, void *addr, size_t length, int status)
{
    if (status == SYMH_OK && (slot <= SYMH_TL_NIC_HEAP_SLOT || slot >= symh_tl_ofi_state.n_slots ||
                              symh_tl_ofi_state.mr == NULL || symh_tl_ofi_state.mr[slot] != NULL)) {
        symh_error("ofi: map_symm: bad or busy key slot %d", slot);
        status = SYMH_ERR_INVALID_ARG;
    }
    /* Not initialised or a bad slot: status says so, and this PE only takes part. */
    return symh_tl_ofi_share_slot(slot, addr, length, status);
}

static void symh_tl_ofi_unmap_symm(int slot)
{
    if (symh_tl_ofi_state.mr == NULL || slot <= SYMH_TL_NIC_HEAP_SLOT ||
        slot >= symh_tl_ofi_state.n_slots)
        return;
    symh_tl_ofi_state.live[slot] = 0;
    symh_tl_ofi_mr_close(&symh_tl_ofi_state.mr[slot]);
    memset(&symh_tl_ofi_state.keys[(size_t)slot * (size_t)symh_tl_ofi_state.n_pes], 0,
           (size_t)symh_tl_ofi_state.n_pes * sizeof(uint64_t));
    memset(&symh_tl_ofi_state.bases[(size_t)slot * (size_t)symh_tl_ofi_state.n_pes], 0,
           (size_t)symh_tl_ofi_state.n_pes * sizeof(uint64_t));
}

/* The handle is the memory registration itself (its descriptor is fi_mr_desc of it). The
 * registry owns it: it unmaps every handle it still holds before the transport stops
 * (symh_reg_fini). */
static int symh_tl_ofi_map_local(void *addr, size_t length, void **handle)
{
    struct fid_mr *mr = NULL;
    int status;

    *handle = NULL;
    if (!symh_tl_ofi_state.up)
        return SYMH_ERR_TRANSPORT;
    status = symh_tl_ofi_mr_reg(addr, length, FI_READ | FI_WRITE, &mr);
    if (status == SYMH_OK)
        *handle = mr;
    return status;
}

static void symh_tl_ofi_unmap_local(void *handle)
{
    struct fid_mr *mr = handle;

    symh_tl_ofi_mr_close(&mr);
}

/* ---- data path --------------------------------------------------------------------------------
 */

/* The remote side of an operation on this PE's symmetric [addr, addr + bytes) at `pe`
 * (`target`: the range as the dispatch resolved it, or NULL: resolved here). */
static int symh_tl_ofi_remote(const char *func, const void *addr, size_t bytes, int pe,
                              const symh_space_target_t *target, uint64_t *raddr, uint64_t *key)
{
    if (!symh_tl_ofi_state.up) {
        symh_error("ofi: %s: transport not initialised", func);
        return SYMH_ERR_TRANSPORT;
    }
    if (pe < 0 || pe >= symh_tl_ofi_state.n_pes || symh_tl_ofi_state.addr[pe] == FI_ADDR_NOTAVAIL) {
        symh_error("ofi: %s: PE %d is not reachable through this transport", func, pe);
        return SYMH_ERR_INVALID_ARG;
    }
    uint64_t remote = 0;
    int slot = symh_tl_nic_target(addr, bytes, pe, target, &remote);
    if (slot < 0 || slot >= symh_tl_ofi_state.n_slots || !symh_tl_ofi_state.live[slot]) {
        symh_error("ofi: %s: %p (%zu bytes) is not in a mapped symmetric object (slot %d)", func,
                   addr, bytes, slot);
        return SYMH_ERR_INVALID_ARG;
    }
    size_t idx = (size_t)slot * (size_t)symh_tl_ofi_state.n_pes + (size_t)pe;
    *key = symh_tl_ofi_state.keys[idx];
    *raddr = symh_tl_ofi_state.virt_addr ? remote : remote - symh_tl_ofi_state.bases[idx];
    return SYMH_OK;
}

/* The descriptor of the local side: the one of what the dispatch found (its key slot's MR, or
 * the registry's handle, which is the MR of map_local), or, given nothing (symheap's own memory:
 * the collectives' words) on a provider that needs descriptors (FI_MR_LOCAL), of what
 * symh_tl_nic_lookup finds. SYMH_OK and *desc, or SYMH_ERR_NOT_REGISTERED for memory symheap did
 * not map (staged under FI_MR_LOCAL; posted without a descriptor otherwise). */
static int symh_tl_ofi_desc(const void *addr, size_t bytes, const symh_tl_local_t *local,
                            void **desc)
{
    symh_tl_local_t found;

    *desc = NULL;
    if (local == NULL) {
        if (!symh_tl_ofi_state.mr_local || symh_tl_nic_lookup(addr, bytes, &found) != SYMH_OK)
            return SYMH_ERR_NOT_REGISTERED;
        local = &found;
    }
    if (local->slot >= 0) {
        if (local->slot >= symh_tl_ofi_state.n_slots || symh_tl_ofi_state.mr[local->slot] == NULL)
            return SYMH_ERR_NOT_REGISTERED;
        *desc = fi_mr_desc(symh_tl_ofi_state.mr[local->slot]);
    } else if (local->handle != NULL) {
        *desc = fi_mr_desc((struct fid_mr *)local->handle);
    } else {
        return SYMH_ERR_NOT_REGISTERED;
    }
    return SYMH_OK;
}

/* Posts a put (writes delivered at the target before they count as complete, so quiet is remote
 * completion) or a get between `local` (descriptor `desc`) and the target on channel `c`, in
 * chunks of at most max_msg bytes; complete once the counter covers them (symh_tl_ofi_wait_all). */
static int symh_tl_ofi_post(symh_tl_ofi_chan_t *c, int is_put, char *local, void *desc,
                            size_t bytes, int pe, uint64_t raddr, uint64_t key, void *context)
{
    for (size_t done = 0; done < bytes;) {
        size_t chunk =
            bytes - done < symh_tl_ofi_state.max_msg ? bytes - done : symh_tl_ofi_state.max_msg;
        struct iovec iov = { .iov_base = local + done, .iov_len = chunk };
        struct fi_rma_iov rma = { .addr = raddr + done, .len = chunk, .key = key };
        struct fi_msg_rma msg = { .msg_iov = &iov,
                                  .desc = &desc,
                                  .iov_count = 1,
                                  .addr = symh_tl_ofi_state.addr[pe],
                                  .rma_iov = &rma,
                                  .rma_iov_count = 1,
                                  .context = context };
        if (is_put)
            SYMH_OFI_POST(c, "fi_writemsg", fi_writemsg(c->ep, &msg, symh_tl_ofi_state.put_flags));
        else
            SYMH_OFI_POST(c, "fi_readmsg", fi_readmsg(c->ep, &msg, 0));
        done += chunk;
    }
    return SYMH_OK;
}

/* Takes or releases channel `c`'s bounce_lock (not for a channel one thread alone uses). */
static void symh_tl_ofi_bounce_lock(symh_tl_ofi_chan_t *c, int take)
{
    if (c->private_use)
        return;
    if (take)
        pthread_mutex_lock(&c->bounce_lock);
    else
        pthread_mutex_unlock(&c->bounce_lock);
}

/* With `c`'s bounce_lock held: completes everything posted on `c` (the bounce pool's transfers
 * among it), copies each staged get to its destination and frees the whole pool. */
static int symh_tl_ofi_bounce_drain(symh_tl_ofi_chan_t *c, const char *func)
{
    int status = symh_tl_ofi_wait_all(c, func);

    for (int i = 0; i < c->n_bounce_gets && status == SYMH_OK; ++i)
        memcpy(c->bounce_gets[i].dest, c->bounce_gets[i].stage, c->bounce_gets[i].bytes);
    c->n_bounce_gets = 0;
    __atomic_store_n(&c->bounce_used, 0, __ATOMIC_RELAXED);
    return status;
}

/* A transfer whose local side has no descriptor, on a provider that wants one (FI_MR_LOCAL): up
 * to SYMH_OFI_BOUNCE_MAX bytes through a piece of channel `c`'s bounce pool (a put's data copied
 * there before the post, so the user's buffer is free at once; a get's copied out at the next
 * drain: at once when blocking, else the quiet, or a later transfer that finds the pool full);
 * larger ones through a registration of the user's memory for this transfer alone, closed once it
 * completed (so such a transfer waits, nbi included). Nothing is cached: no registration can
 * outlive the memory it covers. */
static int symh_tl_ofi_staged(symh_tl_ofi_chan_t *c, int is_put, char *local, size_t bytes, int pe,
                              uint64_t raddr, uint64_t key, int wait)
{
    const char *func = is_put ? "put" : "get";
    struct fi_context2 ctx;
    void *context = symh_tl_ofi_state.need_ctx ? &ctx : NULL;
    int status, done;

    if (bytes > SYMH_OFI_BOUNCE_MAX) {
        struct fid_mr *mr = NULL;

        status = symh_tl_ofi_mr_reg(local, bytes, FI_READ | FI_WRITE, &mr);
        if (status != SYMH_OK)
            return status;
        status = symh_tl_ofi_post(c, is_put, local, fi_mr_desc(mr), bytes, pe, raddr, key, context);
        done = symh_tl_ofi_wait_all(c, func); /* what was posted, before the registration goes */
        symh_tl_ofi_mr_close(&mr);
        return status != SYMH_OK ? status : done;
    }
    size_t piece =
        (bytes + SYMH_OFI_BOUNCE_ALIGN - 1) / SYMH_OFI_BOUNCE_ALIGN * SYMH_OFI_BOUNCE_ALIGN;
    symh_tl_ofi_bounce_lock(c, 1);
    status = SYMH_OK;
    if (c->bounce_used + piece > SYMH_OFI_BOUNCE_SIZE || c->n_bounce_gets == SYMH_OFI_BOUNCE_GETS)
        status = symh_tl_ofi_bounce_drain(c, func);
    if (status == SYMH_OK) {
        char *stage = c->bounce + c->bounce_used;

        if (is_put)
            memcpy(stage, local, bytes);
        status = symh_tl_ofi_post(c, is_put, stage, c->bounce_desc, bytes, pe, raddr, key, context);
        if (status == SYMH_OK) {
            __atomic_store_n(&c->bounce_used, c->bounce_used + piece, __ATOMIC_RELAXED);
            if (!is_put) {
                int i = c->n_bounce_gets++;

                c->bounce_gets[i].stage = stage;
                c->bounce_gets[i].dest = local;
                c->bounce_gets[i].bytes = bytes;
            }
        }
        /* A provider that wants a context per operation keeps it until completion: wait. */
        if (status == SYMH_OK && (wait || context != NULL))
            status = symh_tl_ofi_bounce_drain(c, func);
    }
    symh_tl_ofi_bounce_lock(c, 0);
    return status;
}

/* A put or get of `bytes` on channel `chan`; `wait`: returns when done. Registered local memory
 * (or any, where the provider needs no descriptors) is posted as it is, with the descriptor of
 * what the dispatch found (`local`); other memory under FI_MR_LOCAL is staged. */
static int symh_tl_ofi_xfer(symh_tl_chan_t *chan, int is_put, void *dest, const void *source,
                            size_t bytes, int pe, int wait, const symh_tl_local_t *local,
                            const symh_space_target_t *target)
{
    symh_tl_ofi_chan_t *c = symh_tl_ofi_chan(chan);
    const char *func = is_put ? "put" : "get";
    char *local_buf = is_put ? (char *)(uintptr_t)source : (char *)dest;
    uint64_t raddr, key;
    void *desc = NULL;
    if (bytes == 0)
        return SYMH_OK;
    int status = symh_tl_ofi_remote(func, is_put ? dest : source, bytes, pe, target, &raddr, &key);
    if (status != SYMH_OK)
        return status;
    /* The descriptor goes with the transfer whenever there is one (a provider without
     * FI_MR_LOCAL ignores it); memory without one is staged only where the provider needs it. */
    if (symh_tl_ofi_desc(local_buf, bytes, local, &desc) == SYMH_OK)
        symh_tl_nic_counts.posted += local != NULL;
    else if (symh_tl_ofi_state.mr_local)
        return symh_tl_ofi_staged(c, is_put, local_buf, bytes, pe, raddr, key, wait);
    /* Providers that want an fi_context per operation keep it until it completes: wait then. */
    struct fi_context2 ctx;
    void *context = symh_tl_ofi_state.need_ctx ? &ctx : NULL;
    if (symh_tl_ofi_state.need_ctx)
        wait = 1;
    status = symh_tl_ofi_post(c, is_put, local_buf, desc, bytes, pe, raddr, key, context);
    if (status != SYMH_OK)
        return status;
    return wait ? symh_tl_ofi_wait_all(c, func) : SYMH_OK;
}

static int symh_tl_ofi_put(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes,
                           int pe, const symh_tl_local_t *local, const symh_space_target_t *target)
{
    return symh_tl_ofi_xfer(chan, 1, dest, source, bytes, pe, 1, local, target);
}

static int symh_tl_ofi_get(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes,
                           int pe, const symh_tl_local_t *local, const symh_space_target_t *target)
{
    return symh_tl_ofi_xfer(chan, 0, dest, (void *)(uintptr_t)source, bytes, pe, 1, local, target);
}

static int symh_tl_ofi_put_nbi(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes,
                               int pe, const symh_tl_local_t *local,
                               const symh_space_target_t *target)
{
    return symh_tl_ofi_xfer(chan, 1, dest, source, bytes, pe, 0, local, target);
}

static int symh_tl_ofi_get_nbi(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes,
                               int pe, const symh_tl_local_t *local,
                               const symh_space_target_t *target)
{
    return symh_tl_ofi_xfer(chan, 0, dest, (void *)(uintptr_t)source, bytes, pe, 0, local, target);
}

/* Up to iov_max elements of strided transfer `x` from `first` in one message, an iov on each
 * side (tl.h): one post, and at the target one message to take in and one completion to return,
 * where an element each took one of each. The elements' remote addresses follow the first's by
 * the symmetric side's step (the caller checked that the whole span lies in one symmetric
 * object), and their bytes fit in max_msg. One element at a time, through symh_tl_ofi_xfer, where
 * a message cannot carry several: a local side without a descriptor on a provider that wants one
 * (staged), two elements past max_msg, a provider that wants a context per operation. */
static int symh_tl_ofi_strided_nbi(symh_tl_chan_t *chan, const symh_tl_strided_t *x, size_t first,
                                   size_t *posted)
{
    symh_tl_ofi_chan_t *c = symh_tl_ofi_chan(chan);
    const char *func = x->is_put ? "iput" : "iget";
    char *dest = x->dest + first * x->dest_step;
    const char *source = x->source + first * x->source_step;
    char *local = x->is_put ? (char *)(uintptr_t)source : dest;
    size_t local_step = x->is_put ? x->source_step : x->dest_step;
    size_t remote_step = x->is_put ? x->dest_step : x->source_step;
    size_t k = x->nelems - first < symh_tl_ofi_state.iov_max ? x->nelems - first
                                                             : symh_tl_ofi_state.iov_max;
    struct iovec iov[SYMH_OFI_IOV_MAX];
    struct fi_rma_iov rma[SYMH_OFI_IOV_MAX];
    void *desc[SYMH_OFI_IOV_MAX];
    uint64_t raddr, key;
    void *d = NULL;
    int status, have_desc;

    *posted = 1;
    if (k > symh_tl_ofi_state.max_msg / x->size)
        k = symh_tl_ofi_state.max_msg / x->size; /* the message's bytes, too, fit in max_msg */
    have_desc = symh_tl_ofi_desc(local, x->size, &x->local, &d) == SYMH_OK;
    if (k <= 1 || symh_tl_ofi_state.need_ctx || (!have_desc && symh_tl_ofi_state.mr_local))
        return symh_tl_ofi_xfer(chan, x->is_put, dest, source, x->size, x->pe, 0, &x->local, NULL);
    status =
        symh_tl_ofi_remote(func, x->is_put ? dest : source, x->size, x->pe, NULL, &raddr, &key);
    if (status != SYMH_OK)
        return status;
    for (size_t j = 0; j < k; ++j) {
        iov[j] = (struct iovec){ .iov_base = local + j * local_step, .iov_len = x->size };
        rma[j] = (struct fi_rma_iov){ .addr = raddr + j * remote_step, .len = x->size, .key = key };
        desc[j] = d;
    }
    struct fi_msg_rma msg = { .msg_iov = iov,
                              .desc = desc,
                              .iov_count = k,
                              .addr = symh_tl_ofi_state.addr[x->pe],
                              .rma_iov = rma,
                              .rma_iov_count = k };
    if (x->is_put)
        SYMH_OFI_POST(c, "fi_writemsg", fi_writemsg(c->ep, &msg, symh_tl_ofi_state.put_flags));
    else
        SYMH_OFI_POST(c, "fi_readmsg", fi_readmsg(c->ep, &msg, 0));
    if (have_desc)
        symh_tl_nic_counts.posted += k;
    *posted = k;
    return SYMH_OK;
}

/* A non-fetching atomic from channel `c`'s scratch area, delivered at the target before it counts
 * as complete. */
static ssize_t symh_tl_ofi_atomic_deliver(symh_tl_ofi_chan_t *c, enum fi_datatype dt,
                                          enum fi_op fop, fi_addr_t peer, uint64_t raddr,
                                          uint64_t key, void *context)
{
    void *desc = c->scratch_desc;
    struct fi_ioc ioc = { .addr = &c->scratch[0], .count = 1 };
    struct fi_rma_ioc rma = { .addr = raddr, .count = 1, .key = key };
    struct fi_msg_atomic msg = { .msg_iov = &ioc,
                                 .desc = &desc,
                                 .iov_count = 1,
                                 .addr = peer,
                                 .rma_iov = &rma,
                                 .rma_iov_count = 1,
                                 .datatype = dt,
                                 .op = fop,
                                 .context = context };
    return fi_atomicmsg(c->ep, &msg, symh_tl_ofi_state.put_flags);
}

/* Posts one atomic on channel `c` from its scratch area (operand at [0], compare at [1], result at
 * [2]) and waits for it. */
static int symh_tl_ofi_amo_post(symh_tl_ofi_chan_t *c, symh_tl_amo_op_t op, enum fi_datatype dt,
                                int fetching, int pe, uint64_t raddr, uint64_t key)
{
    struct fi_context2 ctx;
    void *desc = c->scratch_desc;
    fi_addr_t peer = symh_tl_ofi_state.addr[pe];
    uint64_t *s = c->scratch;
    switch (op) {
    case SYMH_TL_AMO_FETCH:
        SYMH_OFI_POST(c, "fi_fetch_atomic",
                      fi_fetch_atomic(c->ep, &s[0], 1, desc, &s[2], desc, peer, raddr, key, dt,
                                      FI_ATOMIC_READ, &ctx));
        break;
    case SYMH_TL_AMO_SET:
        if (fetching)
            SYMH_OFI_POST(c, "fi_fetch_atomic",
                          fi_fetch_atomic(c->ep, &s[0], 1, desc, &s[2], desc, peer, raddr, key, dt,
                                          FI_ATOMIC_WRITE, &ctx));
        else
            SYMH_OFI_POST(
                c, "fi_atomicmsg",
                symh_tl_ofi_atomic_deliver(c, dt, FI_ATOMIC_WRITE, peer, raddr, key, &ctx));
        break;
    case SYMH_TL_AMO_SWAP:
        SYMH_OFI_POST(c, "fi_fetch_atomic",
                      fi_fetch_atomic(c->ep, &s[0], 1, desc, &s[2], desc, peer, raddr, key, dt,
                                      FI_ATOMIC_WRITE, &ctx));
        break;
    case SYMH_TL_AMO_CSWAP:
        SYMH_OFI_POST(c, "fi_compare_atomic",
                      fi_compare_atomic(c->ep, &s[0], 1, desc, &s[1], desc, &s[2], desc, peer,
                                        raddr, key, dt, FI_CSWAP, &ctx));
        break;
    default: {
        enum fi_op fop = op == SYMH_TL_AMO_ADD   ? FI_SUM
                         : op == SYMH_TL_AMO_AND ? FI_BAND
                         : op == SYMH_TL_AMO_OR  ? FI_BOR
                                                 : FI_BXOR;
        if (fetching)
            SYMH_OFI_POST(c, "fi_fetch_atomic",
                          fi_fetch_atomic(c->ep, &s[0], 1, desc, &s[2], desc, peer, raddr, key, dt,
                                          fop, &ctx));
        else
            SYMH_OFI_POST(c, "fi_atomicmsg",
                          symh_tl_ofi_atomic_deliver(c, dt, fop, peer, raddr, key, &ctx));
        break;
    }
    }
    return symh_tl_ofi_wait_all(c, "amo");
}

static int symh_tl_ofi_amo(symh_tl_chan_t *chan, symh_tl_amo_op_t op, void *dest, size_t size,
                           const void *value, const void *cond, void *fetched, int pe)
{
    symh_tl_ofi_chan_t *c = symh_tl_ofi_chan(chan);
    if ((size != 4 && size != 8) || (int)op < 0 || (int)op >= SYMH_OFI_N_AMO) {
        symh_error("ofi: amo: unsupported operation %d on %zu bytes", (int)op, size);
        return SYMH_ERR_INVALID_ARG;
    }
    int fetching = op == SYMH_TL_AMO_FETCH || op == SYMH_TL_AMO_SWAP || op == SYMH_TL_AMO_CSWAP ||
                   (op != SYMH_TL_AMO_SET && fetched != NULL);
    /* Not fetching: the plain form with FI_DELIVERY_COMPLETE (complete once applied), except
     * where the provider mishandles that flag on atomics (shm 1.17: wrong results): there the
     * fetching form, which completes once applied too (it crashes ofi_rxd 1.17 instead). */
    if (!fetching && symh_tl_ofi_state.amo_via_fetch && symh_tl_ofi_state.amo_ok[size == 8][op][1])
        fetching = 1;
    if (!symh_tl_ofi_state.amo_ok[size == 8][op][fetching]) {
        symh_error("ofi: amo: provider %s does not carry %s%s on %zu-byte words",
                   symh_tl_ofi_state.info != NULL ? symh_tl_ofi_state.info->fabric_attr->prov_name
                                                  : "(none)",
                   fetching && op >= SYMH_TL_AMO_ADD ? "fetch_" : "", symh_tl_ofi_amo_name[op],
                   size);
        return SYMH_ERR_UNSUPPORTED;
    }
    uint64_t raddr, key;
    int status = symh_tl_ofi_remote("amo", dest, size, pe, NULL, &raddr, &key);
    if (status != SYMH_OK)
        return status;
    enum fi_datatype dt = size == 8 ? FI_UINT64 : FI_UINT32;
    /* The scratch area is the channel's: threads sharing the channel take turns. */
    int locked = symh_tl_ofi_state.thread_multiple && !c->private_use;
    if (locked)
        pthread_mutex_lock(&c->amo_lock);
    memset(c->scratch, 0, sizeof(c->scratch));
    if (value != NULL)
        memcpy(&c->scratch[0], value, size);
    if (cond != NULL)
        memcpy(&c->scratch[1], cond, size);
    status = symh_tl_ofi_amo_post(c, op, dt, fetching, pe, raddr, key);
    if (status == SYMH_OK && fetched != NULL && fetching)
        memcpy(fetched, &c->scratch[2], size);
    if (locked)
        pthread_mutex_unlock(&c->amo_lock);
    return status;
}

/* Completes what channel `c` issued: waits for its counter alone (another context's traffic is
 * not waited for), then drains its bounce pool. `func` names the wait in its lines. */
static int symh_tl_ofi_complete(symh_tl_ofi_chan_t *c, const char *func)
{
    if (!symh_tl_ofi_state.up)
        return SYMH_OK;
    int status = symh_tl_ofi_wait_all(c, func);
    /* Staged gets land in their destinations at the drain (symh_tl_ofi_staged). */
    if (__atomic_load_n(&c->bounce_used, __ATOMIC_RELAXED) != 0) {
        symh_tl_ofi_bounce_lock(c, 1);
        int drained = symh_tl_ofi_bounce_drain(c, func);
        symh_tl_ofi_bounce_lock(c, 0);
        if (status == SYMH_OK)
            status = drained;
    }
    return status;
}

static int symh_tl_ofi_quiet(symh_tl_chan_t *chan)
{
    return symh_tl_ofi_complete(symh_tl_ofi_chan(chan), "quiet");
}

/* The counter counts an operation once it completed at its target (FI_DELIVERY_COMPLETE), and
 * staged gets land at the drain: local completion is the quiet's wait, one round trip for all. */
static int symh_tl_ofi_wait_local(symh_tl_chan_t *chan)
{
    return symh_tl_ofi_complete(symh_tl_ofi_chan(chan), "local completion");
}

/* Every operation completes before its call returns, so ordering needs no more than quiet. */
static int symh_tl_ofi_fence(symh_tl_chan_t *chan)
{
    return symh_tl_ofi_quiet(chan);
}

/* Drives the default channel: the one peers target (a context's endpoint only initiates, and its
 * own waits read its queue). */
static int symh_tl_ofi_progress(void)
{
    if (symh_tl_ofi_state.up)
        symh_tl_ofi_poll_cq(&symh_tl_ofi_state.def);
    return SYMH_OK;
}

/* ---- channels ---------------------------------------------------------------------------------
 */

/* Closes channel `c` (already out of the list) and frees it. */
static void symh_tl_ofi_chan_free(symh_tl_ofi_chan_t *c)
{
    symh_tl_ofi_chan_close(c);
    pthread_mutex_destroy(&c->amo_lock);
    pthread_mutex_destroy(&c->bounce_lock);
    free(c);
}

/* A new endpoint on the shared domain and address vector, with a queue, counter, scratch area and
 * bounce pool of its own: it reaches every peer's default endpoint and uses every key slot, none
 * of which is bound to an endpoint (FI_MR_ENDPOINT refuses channels). Touches only the new
 * channel and, under chan_lock, the list. */
static int symh_tl_ofi_chan_create(long options, symh_tl_chan_t **chan)
{
    symh_tl_ofi_chan_t *c;
    int status;

    if (!symh_tl_ofi_state.up) {
        symh_error("ofi: chan_create: transport not initialised");
        return SYMH_ERR_TRANSPORT;
    }
    if (symh_tl_ofi_state.mr_endpoint) {
        symh_error("ofi: chan_create: provider %s binds memory registrations to one endpoint "
                   "(FI_MR_ENDPOINT): a context's endpoint cannot use the key slots",
                   symh_tl_ofi_state.info->fabric_attr->prov_name);
        return SYMH_ERR_UNSUPPORTED;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        symh_error("ofi: chan_create: out of memory for a channel (%zu bytes)", sizeof(*c));
        return SYMH_ERR_NO_MEMORY;
    }
    pthread_mutex_init(&c->amo_lock, NULL);
    pthread_mutex_init(&c->bounce_lock, NULL);
    c->private_use = (options & SYMH_CTX_PRIVATE) != 0;
    status = SYMH_OK;
    if (symh_fault_hit("ofi: channel")) {
        symh_error("ofi: chan_create: making a channel failed (fault injection)");
        status = SYMH_ERR_TRANSPORT;
    }
    if (status == SYMH_OK)
        status = symh_tl_ofi_open_endpoint(c);
    if (status == SYMH_OK)
        status = symh_tl_ofi_open_buffers(c);
    if (status != SYMH_OK) {
        symh_tl_ofi_chan_free(c);
        return status;
    }
    pthread_mutex_lock(&symh_tl_ofi_state.chan_lock);
    c->next = symh_tl_ofi_state.chans;
    if (c->next != NULL)
        c->next->prev = c;
    symh_tl_ofi_state.chans = c;
    pthread_mutex_unlock(&symh_tl_ofi_state.chan_lock);
    *chan = (symh_tl_chan_t *)(void *)c;
    return SYMH_OK;
}

/* Quiets channel `chan` (a failure is logged there and goes no further: the channel goes anyway),
 * takes it out of the list and frees it. */
static void symh_tl_ofi_chan_destroy(symh_tl_chan_t *chan)
{
    symh_tl_ofi_chan_t *c;

    if (chan == NULL)
        return;
    c = symh_tl_ofi_chan(chan);
    (void)symh_tl_ofi_quiet(chan);
    pthread_mutex_lock(&symh_tl_ofi_state.chan_lock);
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        symh_tl_ofi_state.chans = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&symh_tl_ofi_state.chan_lock);
    symh_tl_ofi_chan_free(c);
}

const symh_tl_nic_t symh_tl_ofi = {
    .ops = { .name = "ofi",
             .caps = SYMH_TL_CAP_NIC,
             .put = symh_tl_ofi_put,
             .get = symh_tl_ofi_get,
             .put_nbi = symh_tl_ofi_put_nbi,
             .get_nbi = symh_tl_ofi_get_nbi,
             .strided_nbi = symh_tl_ofi_strided_nbi,
             .wait_local = symh_tl_ofi_wait_local,
             .amo = symh_tl_ofi_amo,
             .fence = symh_tl_ofi_fence,
             .quiet = symh_tl_ofi_quiet,
             .progress = symh_tl_ofi_progress },
    .init = symh_tl_ofi_init,
    .fini = symh_tl_ofi_fini,
    .close = symh_tl_ofi_close,
    .map_symm = symh_tl_ofi_map_symm,
    .unmap_symm = symh_tl_ofi_unmap_symm,
    .map_local = symh_tl_ofi_map_local,
    .unmap_local = symh_tl_ofi_unmap_local,
    .chan_create = symh_tl_ofi_chan_create,
    .chan_destroy = symh_tl_ofi_chan_destroy,
};
