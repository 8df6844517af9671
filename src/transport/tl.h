/* transport: the ops table every transport fills (docs/design.md "Transports and routing"). The RMA
 * data path reaches a load/store-mapped peer inline (one branch); every other peer goes through
 * the ops table of its route, so the UCX and libfabric transports slot in here without touching
 * the data path. */
#ifndef SYMH_TL_H
#define SYMH_TL_H

#include <stddef.h>
#include <stdint.h>

#include "space/space_resolve.h"

/* The transports, in the order of the table below (and of SYMH_TRANSPORT=auto's preference among
 * the NIC transports: UCX before libfabric). */
typedef enum {
    SYMH_TL_NONE = 0, /* no built-in transport reaches the peer */
    SYMH_TL_SELF,     /* this PE's own memory */
    SYMH_TL_IPC,      /* node-local load/store */
    SYMH_TL_UCX,
    SYMH_TL_OFI,
    SYMH_TL_COUNT
} symh_tl_id_t;

typedef enum {
    SYMH_TL_AMO_FETCH, /* *fetched = *dest */
    SYMH_TL_AMO_SET,   /* *dest = *value */
    SYMH_TL_AMO_SWAP,  /* *fetched = *dest, *dest = *value */
    SYMH_TL_AMO_CSWAP, /* *fetched = *dest, and *dest = *value if it was *cond */
    SYMH_TL_AMO_ADD,   /* integer types: *fetched = *dest, *dest += *value */
    SYMH_TL_AMO_AND,
    SYMH_TL_AMO_OR,
    SYMH_TL_AMO_XOR
} symh_tl_amo_op_t;

/* A NIC transport's channel: the resources one communication context owns (a UCX worker and its
 * endpoints, a libfabric endpoint and counter; tl_ctx.h). Opaque: each NIC transport casts it to
 * its own type. NULL is the transport's default channel, which the default context, the
 * collectives and the runtime use; the load/store ops ignore it. */
typedef struct symh_tl_chan symh_tl_chan_t;

/* The local side of a put or get (its source or destination buffer) as the dispatch found it,
 * once per call (tl_rma.c through symh_tl_nic_local; docs/transports.md "The local side's
 * handle"): the transport posts with it and looks nothing up again. */
typedef struct {
    int slot;     /* this PE's NIC key slot holding the buffer (tl_nic.h), or -1 */
    void *handle; /* with slot -1: the NIC transport's handle of its registry entry (map_local),
                   * or NULL for memory symheap does not know (the transport's own path) */
} symh_tl_local_t;

/* A strided transfer to one PE (iput, iget; tl_rma.c), already checked: element i is `size`
 * bytes between dest + i * dest_step and source + i * source_step, the symmetric side (dest of a
 * put, source of a get) lying in one symmetric object, the local side in what `local` found for
 * its whole span. */
typedef struct {
    char *dest;
    const char *source;
    size_t dest_step, source_step; /* bytes from one element to the next */
    size_t size, nelems;
    int is_put, pe;
    symh_tl_local_t local;
} symh_tl_strided_t;

/* What a transport can do (symh_tl_ops_t.caps), for the callers that must tell transports apart:
 * they test a capability, never the ops table's identity. */
#define SYMH_TL_CAP_LOADSTORE 1u /* reaches its peers by CPU loads and stores (IPC) */
#define SYMH_TL_CAP_NIC                                             \
    2u /* a NIC transport (tl_nic.h): its local side is checked and \
        * looked up once by the dispatch (symh_tl_nic_local) */

typedef struct {
    const char *name;
    unsigned caps; /* SYMH_TL_CAP_*; 0: reaches nothing (symh_tl_none_ops) */
    /* Every slot but progress takes the channel of the calling context first.
     * `dest` (put) and `source` (get) are symmetric addresses of this PE, already checked.
     * `local`: the local buffer's slot or handle, found by the caller; NULL where the caller did
     * not look (symheap's own memory: the collectives' words), and then a transport that needs
     * a descriptor looks it up itself. The load/store ops ignore it.
     * `target`: the symmetric side as the caller resolved it (symh_space_resolve: its segment,
     * offset and key slot), so that the transport classifies nothing again; NULL where the
     * caller did not resolve it, and then the transport does. */
    int (*put)(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes, int pe,
               const symh_tl_local_t *local, const symh_space_target_t *target);
    int (*get)(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes, int pe,
               const symh_tl_local_t *local, const symh_space_target_t *target);
    /* Non-blocking forms: may return before the transfer is done; quiet completes them. The
     * local buffer must stay untouched (put) or unread (get) until then. A transport whose
     * transfers complete in the call fills them with its put/get. */
    int (*put_nbi)(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes, int pe,
                   const symh_tl_local_t *local, const symh_space_target_t *target);
    int (*get_nbi)(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes, int pe,
                   const symh_tl_local_t *local, const symh_space_target_t *target);
    /* Posts elements first, first + 1, ... of strided transfer `x` as put_nbi/get_nbi would
     * (wait_local or quiet completes them), as many as one post of the transport carries, at
     * least one; their count into *posted. libfabric carries up to the provider's iov limit in
     * one message (an iov on each side), UCX one element. The caller loops and waits (tl_rma.c). */
    int (*strided_nbi)(symh_tl_chan_t *chan, const symh_tl_strided_t *x, size_t first,
                       size_t *posted);
    /* Waits until every put_nbi and get_nbi issued on `chan` so far has completed locally: each
     * put's source may be reused, each get's destination holds its data (a put's completion at
     * its target stays with quiet, which a transport may give here too); strided_nbi's posts
     * too. The strided transfers wait with this once per batch of elements (tl_rma.c), not once
     * per element. A failure of an operation it covers is logged and returned here, once
     * (quiet does not report it again). SYMH_OK where the _nbi forms complete in the call. */
    int (*wait_local)(symh_tl_chan_t *chan);
    /* One atomic on the `size`-byte (4 or 8) word at symmetric `dest`; `fetched` may be NULL. */
    int (*amo)(symh_tl_chan_t *chan, symh_tl_amo_op_t op, void *dest, size_t size,
               const void *value, const void *cond, void *fetched, int pe);
    /* Orders (fence) or completes (quiet) what was issued on `chan` alone. */
    int (*fence)(symh_tl_chan_t *chan);
    int (*quiet)(symh_tl_chan_t *chan);
    int (*progress)(void);
    /* `bytes` from local `source` to symmetric `dest` on `pe`, then the 8-byte `value` stored into
     * the symmetric word `signal` there, visible only after the data: one message (a UCX active
     * message), where a put, a fence and a put would take two. Returns with `source` reusable;
     * quiet completes it. NULL where the transport has no such message (the caller then puts,
     * fences and puts the signal). */
    int (*put_signal)(symh_tl_chan_t *chan, void *dest, const void *source, size_t bytes,
                      uint64_t *signal, uint64_t value, int pe);
} symh_tl_ops_t;

/* Load/store through the mapped windows of tl_ipc.c (node-local peers and this PE). */
extern const symh_tl_ops_t symh_tl_ipc_ops;
/* No transport in this build reaches the peer: every transfer and atomic returns
 * SYMH_ERR_UNSUPPORTED. */
extern const symh_tl_ops_t symh_tl_none_ops;

struct symh_tl_nic; /* tl_nic.h */

/* One row per transport, listed once (tl_ops.c): the one place that knows which transports this
 * build has. Routing (tl_route.c), the NIC start (tl_nic.c) and dispatch (symh_tl_ops_of) read it;
 * nothing else tests SYMH_HAVE_UCX or SYMH_HAVE_OFI. */
typedef struct {
    symh_tl_id_t id;
    const char *name;              /* as SYMH_TRANSPORT and symh_pe_transport spell it */
    const symh_tl_ops_t *ops;      /* symh_tl_none_ops when not built */
    const struct symh_tl_nic *nic; /* the NIC interface; NULL when not built or not a NIC */
    int is_nic;                    /* a NIC transport (UCX, libfabric), built or not */
    int built;
} symh_tl_entry_t;

extern const symh_tl_entry_t symh_tl_table[SYMH_TL_COUNT];

/* n_pes entries: each PE's route, a symh_tl_id_t (tl_route.c; valid after symh_tl_route_init). */
extern uint8_t *symh_tl_routes;

/* The ops of PE pe's route (valid after symh_tl_route_init); inline, as the dispatch of every
 * transfer through a transport asks it. */
static inline const symh_tl_ops_t *symh_tl_ops_of(int pe)
{
    return symh_tl_table[symh_tl_routes[pe]].ops;
}

#endif /* SYMH_TL_H */
