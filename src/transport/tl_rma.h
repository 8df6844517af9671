/* transport: translation of symmetric addresses for the RMA, atomic and synchronization entry
 * points (tl_rma.c, tl_amo.c, tl_sync.c). The data path is inline: the address space's resolver
 * (space_resolve.h: one bounds check against this PE's heap), one check against the allocation
 * the range starts in (one load and a bit test of the heap's allocation map, core_amap.h, for a
 * range within one 128-byte granule; a call for a longer one), one load of the cached peer base,
 * no locks, no syscalls, no allocation. Every other case goes to one out-of-line function that
 * takes what the resolver found, and maps it or finds the reason and logs it; a transfer through
 * a transport hands the resolved target down, so that nothing classifies the address again. */
#ifndef SYMH_TL_RMA_H
#define SYMH_TL_RMA_H

#include <stddef.h>
#include <stdint.h>

#include "core/core_amap.h"
#include "core/core_log.h"
#include "core/core_status.h"
#include "space/space_resolve.h"
#include "transport/tl.h"
#include "transport/tl_ipc.h"

typedef struct {
    int up;
    int my_pe;
    int n_pes;
    /* This PE's heap is described by the address space (symh_space, set at init). */
    char **peer_base; /* n_pes entries: the window of each PE here, NULL when unreachable */
    /* The heap's allocation map (the runtime hands it over: transport may not include heap) and
     * its words; NULL under SYMH_ALLOC_CHECK=0, when ranges are bounded by the heap only. */
    const symh_amap_t *amap;
    const symh_amap_word_t *amap_words;
    /* Set while a NIC transport is active: every atomic of the job goes through it, even to a
     * mapped PE, so that all atomics on one word take one path (docs/transports.md). */
    const symh_tl_ops_t *amo_ops;
} symh_tl_rma_state_t;

extern symh_tl_rma_state_t symh_tl_rma;

/* Caches the window and every peer's base (after symh_tl_ipc_init) and `amap`, the heap's map of
 * live allocations that bounds every heap range (NULL: the heap's bounds only); local, not
 * collective. */
int symh_tl_rma_init(const symh_amap_t *amap);
void symh_tl_rma_fini(void);

/* Logs the not-initialized line naming `func` and records the error. */
void symh_tl_rma_not_up(const char *func);
/* In a child of fork() (the runtime's atfork handler): `up` goes to 0, so that every entry point
 * that checks it refuses with the child's line (core_status.h) at no cost to the data path. */
void symh_tl_rma_fork_child(void);

/* How an access goes (symh_tl_rma_access_t.flags): BLOCKING returns with the local buffer
 * reusable (put) or filled (get); NBI may leave it to quiet; OWN_LOCAL: the local side is
 * symheap's own memory (the value of symh_T_p/g), not subject to the NIC's registration check;
 * PUT: the symmetric side is the destination (else the source). */
#define SYMH_TL_RMA_BLOCKING  0
#define SYMH_TL_RMA_NBI       1
#define SYMH_TL_RMA_OWN_LOCAL 2
#define SYMH_TL_RMA_PUT       4
/* QUERY: an address query (symh_ptr) that moves no data: bounded by the heap, not the allocation,
 * like symh_addr_accessible. */
#define SYMH_TL_RMA_QUERY 8

/* What one public entry point accesses and how: a constant of each entry point of the X-macro
 * families (SYMH_TL_RMA_ACCESS), which the inlined data path folds away. A new property of an
 * access (a context, a signal) is a new field here, not a new parameter of every function. */
typedef struct {
    const char *func; /* the public entry point, named in every log line */
    const char *arg;  /* its symmetric argument ("dest", "source", "ivar") */
    size_t elem_size; /* bytes per element */
    size_t align;     /* required alignment of the symmetric address (1 for bytes) */
    int flags;        /* SYMH_TL_RMA_* */
} symh_tl_rma_access_t;

/* Defines `name`, the access of the enclosing public function, as a static constant. */
#define SYMH_TL_RMA_ACCESS(name, arg, elem_size, align, flags) \
    static const symh_tl_rma_access_t name = { __func__, arg, elem_size, align, flags }

/* The slow path of a translation the inline heap step did not take (a global, a symmetric region,
 * a range longer than the allocation map's fast check, or a misuse): resolves the range in full
 * into *target (out of line, so that the data path keeps no target live) and returns SYMH_OK with
 * *mapped = the load/store address, or NULL when the access must go through the PE's ops table
 * (with *target); or the status to record, after one line naming the access's function, argument
 * and value. */
int symh_tl_rma_slow(const symh_tl_rma_access_t *access, const void *addr, size_t nelems, int pe,
                     symh_space_target_t *target, char **mapped);

/* An access through PE pe's ops table runs between these two: begin pushes the log context
 * (the transport's lines name `func` and `pe`); done pops it and records the outcome, logging one
 * line naming `func` only when it failed and the transport logged none. */
static inline void symh_tl_rma_ops_begin(symh_log_context_t *ctx, const char *func, int pe)
{
    symh_log_context_push(ctx, func, pe);
}
void symh_tl_rma_ops_done(symh_log_context_t *ctx, const symh_tl_ops_t *ops, int status);

/* A contiguous transfer of `bytes` through PE pe's ops table: checks the local buffer when the
 * route is a NIC transport (symh_tl_nic_local: GPU memory, or with SYMH_NIC_REGISTERED_ONLY=1
 * unregistered memory, refused with nothing sent; not for OWN_LOCAL), then puts or gets on the
 * context's channel `chan` (the _nbi slot for NBI) with the symmetric side as resolved
 * (`target`) and records the outcome. */
void symh_tl_rma_ops_xfer(const symh_tl_rma_access_t *access, symh_tl_chan_t *chan, void *dest,
                          const void *source, size_t bytes, int pe,
                          const symh_space_target_t *target);

/* Checks the symmetric range [addr, addr + nelems * elem_size) for `pe` (the resolver and the
 * allocation inline, the allocation of a range longer than a granule, a global and a symmetric
 * region out of line): 1 and *mapped = its load/store address there, or 1 and *mapped = NULL when
 * the access must go through the PE's ops table (symh_tl_ops_of; *target then says where the range
 * is, for the transport; a range the heap step mapped leaves *target unwritten), or 0 when refused
 * (the reason logged and recorded). nelems must be at least 1. The data path's one branch: mapped
 * -> load/store, else -> ops. Always inlined, so that each entry point's constant access folds in
 * (left to itself gcc stops inlining it once the allocation check is in). */
static inline __attribute__((always_inline)) int
symh_tl_rma_resolve(const symh_tl_rma_access_t *access, const void *addr, size_t nelems, int pe,
                    symh_space_target_t *target, char **mapped)
{
    const symh_amap_word_t *words = symh_tl_rma.amap_words;
    size_t bytes, off;
    char *base;
    int status;

    /* A size that overflows runs past every segment: the slow path says so. The unsigned
     * compare rejects negative PEs. The data path takes the resolver's heap step alone and makes
     * a target only for a transport (space_resolve.h); anything else is resolved in full for the
     * slow path, which refuses a PE out of range before it reads the target. */
    if (__builtin_mul_overflow(nelems, access->elem_size, &bytes))
        bytes = SIZE_MAX;
    if ((unsigned)pe < (unsigned)symh_tl_rma.n_pes && symh_space_in_heap(addr, bytes, &off) &&
        ((uintptr_t)addr & (access->align - 1)) == 0 &&
        (words == NULL || (access->flags & SYMH_TL_RMA_QUERY) ||
         symh_amap_fast_ok(words, off, bytes))) {
        base = symh_tl_rma.peer_base[pe];
        if (base != NULL) {
            *mapped = base + symh_space.heap_offset + off;
            return 1;
        }
        *target = symh_space_heap_target(off);
        *mapped = NULL;
        return 1;
    }
    status = symh_tl_rma_slow(access, addr, nelems, pe, target, mapped);
    if (status == SYMH_OK)
        return 1;
    symh_status_set(status);
    return 0;
}

/* symh_tl_rma_resolve for the callers that only load and store or hand the address on as it is
 * (atomics, waits, signals). */
static inline __attribute__((always_inline)) int
symh_tl_rma_target(const symh_tl_rma_access_t *access, const void *addr, size_t nelems, int pe,
                   char **mapped)
{
    symh_space_target_t target;

    return symh_tl_rma_resolve(access, addr, nelems, pe, &target, mapped);
}

/* The load/store address of the symmetric range on `pe`, or NULL with the reason logged and
 * recorded (a PE that is not mapped included): for the calls that need load/store. */
static inline char *symh_tl_rma_xlate(const symh_tl_rma_access_t *access, const void *addr,
                                      size_t nelems, int pe)
{
    char *mapped;

    if (!symh_tl_rma_target(access, addr, nelems, pe, &mapped))
        return NULL;
    if (mapped == NULL) {
        symh_error("%s: no load/store route to PE %d", access->func, pe);
        symh_status_set(SYMH_ERR_UNSUPPORTED);
    }
    return mapped;
}

/* Ends a public call when symheap is not up (the runtime fills the cache at init, after the
 * IPC mapping, and clears it at finalize before the windows go away). */
#define SYMH_TL_RMA_CHECK_UP_IN(func, retval)       \
    do {                                            \
        if (__builtin_expect(!symh_tl_rma.up, 0)) { \
            symh_tl_rma_not_up(func);               \
            return retval;                          \
        }                                           \
    } while (0)

#define SYMH_TL_RMA_CHECK_UP(retval) SYMH_TL_RMA_CHECK_UP_IN(__func__, retval)

#endif /* SYMH_TL_RMA_H */
