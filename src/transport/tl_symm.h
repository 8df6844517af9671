/* transport: the live symmetric regions of the window's registration area (docs/design.md "The
 * symmetric window"). A region is an alias of user VMM memory at the same offset on every PE;
 * node-local peers map it at that offset in their views of the PE's window, so a symmetric
 * address in a region translates like a heap address, after an O(1) check that a region holds
 * it: slots start on recommended-granularity boundaries and never share a granule, so one table
 * entry per granule names the region holding it. */
#ifndef SYMH_TL_SYMM_H
#define SYMH_TL_SYMM_H

#include <stddef.h>
#include <stdint.h>

#include "transport/tl_ipc.h"

typedef struct {
    uintptr_t lo; /* this PE's symmetric area: lo .. lo + size */
    size_t size;
    size_t window_offset; /* lo - this PE's window base */
    unsigned shift;       /* log2 of the granule */
    uint32_t *head;       /* per granule: 1 + the granule its region starts at, or 0 */
    size_t *length;       /* per granule, valid where a region starts: its length in bytes */
} symh_tl_symm_state_t;

extern symh_tl_symm_state_t symh_tl_symm;

/* Local: the tables for symh_tl_window's symmetric area (after symh_tl_ipc_init). */
int symh_tl_symm_init(void);
void symh_tl_symm_fini(void);

/* The granule regions start on and are rounded up to. */
size_t symh_tl_symm_granule(void);

/* Collective: maps region [offset, +length) of the symmetric area here (the `n` pieces' mem,
 * mem_offset and size, in order; their window offsets are filled in) and in every node-local
 * peer's view, and records it. `status` not SYMH_OK: this PE already failed and only takes part
 * in the exchange; returned. On a failure anywhere, every PE calls symh_tl_symm_remove. */
int symh_tl_symm_add(size_t offset, size_t length, int n, symh_tl_ipc_object_t *pieces, int status);
/* Local: unmaps the region at `offset` here and in every peer view, and forgets it (harmless for
 * parts that were never mapped). */
void symh_tl_symm_remove(size_t offset, size_t length);

/* Where the live region holding `addr` starts (its offset in the symmetric area: a multiple of
 * the granule), with *left = the bytes from `addr` to its end; SIZE_MAX when none holds it. O(1):
 * one load of the granule's entry (the IPC translation and the NIC's key slots both use it). */
static inline size_t symh_tl_symm_find(uintptr_t addr, size_t *left)
{
    uintptr_t off = addr - symh_tl_symm.lo;
    size_t start, rel;
    uint32_t head;

    if (off >= symh_tl_symm.size)
        return SIZE_MAX;
    head = __atomic_load_n(&symh_tl_symm.head[off >> symh_tl_symm.shift], __ATOMIC_ACQUIRE);
    if (head == 0)
        return SIZE_MAX;
    start = (size_t)(head - 1) << symh_tl_symm.shift;
    rel = off - start;
    if (rel >= symh_tl_symm.length[head - 1])
        return SIZE_MAX;
    *left = symh_tl_symm.length[head - 1] - rel;
    return start;
}

/* Bytes from `addr` to the end of the live region holding it, or 0 when none holds it. */
static inline size_t symh_tl_symm_left(uintptr_t addr)
{
    size_t left;

    return symh_tl_symm_find(addr, &left) == SIZE_MAX ? 0 : left;
}

#endif /* SYMH_TL_SYMM_H */
