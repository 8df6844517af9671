/* transport: the ops table every transport fills (DESIGN.md "Transports and routing"). The RMA
 * data path reaches a load/store-mapped peer inline (one branch); every other peer goes through
 * the ops table of its route, so the UCX and libfabric transports slot in here without touching
 * the data path. */
#ifndef SYMH_TL_H
#define SYMH_TL_H

#include <stddef.h>

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

typedef struct {
    const char *name;
    /* `dest` (put) and `source` (get) are symmetric addresses of this PE, already checked. */
    int (*put)(void *dest, const void *source, size_t bytes, int pe);
    int (*get)(void *dest, const void *source, size_t bytes, int pe);
    /* Non-blocking forms (may be NULL: then put/get): may return before the transfer is done;
     * quiet completes them. The local buffer must stay untouched (put) or unread (get) until. */
    int (*put_nbi)(void *dest, const void *source, size_t bytes, int pe);
    int (*get_nbi)(void *dest, const void *source, size_t bytes, int pe);
    /* One atomic on the `size`-byte (4 or 8) word at symmetric `dest`; `fetched` may be NULL. */
    int (*amo)(symh_tl_amo_op_t op, void *dest, size_t size, const void *value, const void *cond,
               void *fetched, int pe);
    int (*fence)(void);
    int (*quiet)(void);
    int (*progress)(void);
} symh_tl_ops_t;

/* Load/store through the mapped windows of tl_ipc.c (node-local peers and this PE). */
extern const symh_tl_ops_t symh_tl_ipc_ops;
/* No transport in this build reaches the peer: every slot returns SYMH_ERR_UNSUPPORTED. */
extern const symh_tl_ops_t symh_tl_none_ops;

/* The ops of PE pe's route (valid after symh_tl_route_init). */
const symh_tl_ops_t *symh_tl_ops_of(int pe);

#endif /* SYMH_TL_H */
