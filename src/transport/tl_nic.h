/* transport: the NIC domain (docs/design.md "Transports and routing"). At most one NIC transport is
 * active in a job (UCX or libfabric, chosen by SYMH_TRANSPORT and the build); it carries RMA to
 * every peer whose route is not load/store, and every atomic of the job when it is active (one
 * path per target word: see docs/transports.md).
 *
 * The generic part (tl_nic.c) owns what both transports share: the window base of every PE (for
 * remote addresses), the key slots (slot 0 = this PE's internal area and heap, slot 1 = the
 * executable's globals, slot 2 + i = the i-th live symmetric region), the check of the local side
 * of an operation, and the hooks that keep registered buffers and device allocations mapped for
 * the NIC. A transport (ucx/tl_ucx.c, ofi/tl_ofi.c) implements symh_tl_nic_t. */
#ifndef SYMH_TL_NIC_H
#define SYMH_TL_NIC_H

#include <stddef.h>
#include <stdint.h>

#include "registration/reg_map.h"
#include "space/space_resolve.h"
#include "transport/tl.h"

/* Key slots: 0 = internal area + heap, 1 = the executable's globals (tl_data.h: registered at init
 * with map_symm, at each PE's own address), 2 .. symh_tl_nic_n_slots - 1 = symmetric regions; the
 * resolver (space_resolve.h) names them. */
#define SYMH_TL_NIC_HEAP_SLOT       SYMH_SPACE_HEAP_SLOT
#define SYMH_TL_NIC_DATA_SLOT       SYMH_SPACE_GLOBALS_SLOT
#define SYMH_TL_NIC_FIRST_SYMM_SLOT SYMH_SPACE_FIRST_REGION_SLOT

typedef struct symh_tl_nic {
    /* put/get/amo as symh_tl_ops_t (symmetric address of this PE, already bounds-checked by
     * the caller); put/get and the _nbi forms take a local buffer that symh_tl_nic_local let
     * through, with what it found (`local`): a slot or handle (the transport posts with that
     * memory handle or descriptor and looks nothing up: docs/transports.md "The local side's
     * handle") or neither (any other host memory: the transport's own path for it, "Any local
     * memory"). put/get return when the local buffer may be reused (put) or holds the data (get);
     * put_nbi/get_nbi may return at once (quiet completes them). fence orders earlier puts/AMOs
     * before later ones to each PE; quiet completes everything outstanding (remote completion).
     * progress drives the transport once, without blocking. Every put/get/amo drives the transport
     * at least once, even one that completes at once: a PE spinning on atomics to its own word must
     * keep serving peers that need its progress. */
    symh_tl_ops_t ops;

    /* Collective over every PE of the job. Creates the transport's state, connects to every PE
     * `pe` with symh_tl_nic_routed(pe) (every PE: the NIC carries all atomics), maps
     * [base, base + length) (internal area and heap) and exchanges its key as slot 0 (remote
     * address of PE p = symh_tl_nic_base[p] + (addr - symh_tl_nic_base[my_pe])).
     * `thread_multiple`: calls may come from several threads at once. On failure logs one line
     * naming the call and the transport's own error text, cleans up and returns the status
     * (SYMH_ERR_TRANSPORT for the library's failures). */
    int (*init)(void *base, size_t length, int thread_multiple);
    /* Local (after a closing barrier and a quiet everywhere): frees everything, the key slots
     * included. Handles made by map_local belong to the registry, which unmaps those it still
     * holds before (symh_reg_fini). */
    void (*fini)(void);
    /* Collective, at symh_finalize only, before fini: ends what this PE's connections still owe
     * their peers and may give up on a peer's help (UCX: closes its endpoints, each flushed, and
     * waits for the closes); symh_tl_nic_close's barrier then keeps progressing until every PE
     * has closed, so no PE's worker goes while a peer still flushes to it. */
    void (*close)(void);

    /* Collective: maps this PE's [addr, addr + length) (a symmetric region's alias, at the same
     * window offset on every PE) and exchanges its key as `slot`. `status` not SYMH_OK: this PE
     * already failed and only takes part in the exchange; returns it. Failure anywhere: the
     * caller calls unmap_symm(slot) everywhere (harmless for what was never mapped). */
    int (*map_symm)(int slot, void *addr, size_t length, int status);
    void (*unmap_symm)(int slot);

    /* Local: maps [addr, addr + length) (length > 0) as the local side of operations
     * (symh_buffer_register, device allocations); *handle, not NULL on success, is kept in the
     * registry entry and is what symh_tl_nic_local gives back for it. */
    int (*map_local)(void *addr, size_t length, void **handle);
    void (*unmap_local)(void *handle);

    /* Local: a channel of its own for a communication context (tl_ctx.h), connected to every
     * routed PE's default channel, with every live key slot usable through it; `options` are the
     * context's SYMH_CTX_* bits (SYMH_CTX_PRIVATE: one thread uses it, so it takes no locks).
     * Operations on it complete by its own quiet, not another channel's. Thread-safe against
     * other channels' use and creation, and against map_symm. */
    int (*chan_create)(long options, symh_tl_chan_t **chan);
    /* Local: quiets and frees a channel of chan_create. */
    void (*chan_destroy)(symh_tl_chan_t *chan);
} symh_tl_nic_t;

/* Defined only in builds that have them; symh_tl_table is what the rest of symheap reads. */
extern const symh_tl_nic_t symh_tl_ucx;
extern const symh_tl_nic_t symh_tl_ofi;

/* The active NIC transport, NULL when none (IPC-only jobs, one-node jobs in auto mode). */
extern const symh_tl_nic_t *symh_tl_nic;
/* n_pes entries: each PE's window base, and where each PE's globals start in its own process
 * (valid while symh_tl_nic is set). */
extern uintptr_t *symh_tl_nic_base;
extern uintptr_t *symh_tl_nic_data_base;
/* Key slots a transport keeps per PE: SYMH_TL_NIC_FIRST_SYMM_SLOT + SYMH_MAX_SYMM_REGIONS (set
 * before init is called). */
extern int symh_tl_nic_n_slots;

/* Whether the transport connects to `pe`: every PE while a NIC is active (it carries every
 * atomic of the job, to IPC peers and this PE included, besides the RMA of NIC-routed peers). */
int symh_tl_nic_routed(int pe);

/* Collective (all PEs, after symh_tl_rma_init): starts the NIC transport when any PE routes to
 * another through it, installs the progress hook of the bootstrap and the registration hooks. */
int symh_tl_nic_init(void);
/* Collective, at symh_finalize: the transport's close, then a barrier that drives the transport
 * while it waits (docs/transports.md "Finalize across hosts"). Error paths of symh_init skip it. */
void symh_tl_nic_close(void);
/* Quiets and stops it (local; the caller has passed a closing barrier). */
void symh_tl_nic_fini(void);

/* The remote address on `pe` of this PE's symmetric [addr, addr + bytes), and its key slot (0 for
 * the internal area and heap, 1 for a global of the executable, 2 + i for a symmetric region), or
 * -1 when no keyed segment holds it. `given`: the range as the caller resolved it already (the RMA
 * dispatch), or NULL to resolve it here (the collectives' words, strided elements, AMOs). */
static inline int symh_tl_nic_target(const void *addr, size_t bytes, int pe,
                                     const symh_space_target_t *given, uint64_t *remote)
{
    symh_space_target_t found;

    if (given == NULL) {
        if (!symh_space_resolve(addr, bytes, &found))
            return -1;
        given = &found;
    }
    if (given->slot < 0)
        return -1;
    *remote = (uint64_t)((given->kind == SYMH_SPACE_GLOBALS ? symh_tl_nic_data_base[pe]
                                                            : symh_tl_nic_base[pe]) +
                         given->offset);
    return given->slot;
}

/* The local side of a NIC operation, looked up once by the dispatch (tl_rma.c) and handed to
 * the transport (symh_tl_local_t, tl.h): SYMH_OK with local->slot >= 0 (this PE's key slot
 * holding it: the heap, a global, a symmetric region, found by address arithmetic and the granule
 * table of tl_symm.h, O(1)) or local->slot = -1 and local->handle = the transport's handle from
 * map_local (a registered buffer or device allocation: the registry's entry, through this
 * thread's last hit while no range left the registry, symh_reg_map_lookup_hinted), or slot -1 and
 * handle NULL for memory symheap does not know (the stack, malloc: the transport's own path).
 * SYMH_ERR_UNSUPPORTED for GPU memory, and with SYMH_NIC_REGISTERED_ONLY=1 SYMH_ERR_NOT_REGISTERED
 * for unknown memory, each logged once naming `func`: nothing is sent. */
int symh_tl_nic_local(const char *func, const void *addr, size_t bytes, symh_tl_local_t *local);
/* The same without the checks and the log line, SYMH_ERR_NOT_REGISTERED for unknown memory: a
 * transport given no local side (NULL: symheap's own memory, the collectives' words) finding the
 * descriptor it needs. */
int symh_tl_nic_lookup(const void *addr, size_t bytes, symh_tl_local_t *local);

/* This thread's counts of the local side's path (tests read them through the shim to prove the
 * path a transfer took; each a plain increment of thread-local memory). */
typedef struct {
    uint64_t lookups; /* local sides looked up outside the key slots (the registry asked; of
                       * those, symh_tl_nic_hint.hits were answered by the thread's last hit) */
    uint64_t posted;  /* transfers a transport posted with the slot's or handle's memory handle
                       * or descriptor it was given (UCP_OP_ATTR_FIELD_MEMH, fi_mr_desc) */
    uint64_t waits;   /* waits for completion (a blocking operation's, wait_local's, quiet's):
                       * over libfabric each is a round trip to the targets */
} symh_tl_nic_counts_t;
extern _Thread_local symh_tl_nic_counts_t symh_tl_nic_counts
    __attribute__((tls_model("initial-exec"), visibility("hidden")));
/* This thread's last registry hit (the local side of its last NIC transfer from a registered
 * buffer or device allocation), valid while no range leaves the registry (reg_map.h). */
extern _Thread_local symh_reg_map_hint_t symh_tl_nic_hint
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* Collective parts of symmetric registration (runtime/rt_symm.c): the slot of the region at
 * window offset `window_offset`, or -1 without a NIC. */
int symh_tl_nic_symm_add(size_t window_offset, void *addr, size_t length, int status);
void symh_tl_nic_symm_remove(size_t window_offset);

/* Drives the active NIC transport once (wait loops, the bootstrap's waits); no-op without one. */
void symh_tl_nic_progress(void);
/* Completes every outstanding NIC operation of `chan` (quiet; NULL: the default channel), or
 * orders them (fence); SYMH_OK without a NIC. */
int symh_tl_nic_quiet(symh_tl_chan_t *chan);
int symh_tl_nic_fence(symh_tl_chan_t *chan);

#endif /* SYMH_TL_NIC_H */
