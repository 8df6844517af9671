/* transport: the live symmetric regions of the window's registration area (docs/design.md "The
 * symmetric window"). A region is an alias of user VMM memory at the same offset on every PE;
 * node-local peers map it at that offset in their views of the PE's window, so a symmetric
 * address in a region translates like a heap address. The table of live regions (one entry per
 * granule) is the address space's (symh_space.regions, space_resolve.h): this file maps the
 * regions and keeps that table. */
#ifndef SYMH_TL_SYMM_H
#define SYMH_TL_SYMM_H

#include <stddef.h>
#include <stdint.h>

#include "space/space_resolve.h"
#include "transport/tl_ipc.h"

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

#endif /* SYMH_TL_SYMM_H */
