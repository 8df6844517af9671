/* transport: the executable's global and static variables as a symmetric object (docs/globals.md).
 * At the first symh_init of a process the writable part of the executable's data segment (.data
 * and .bss, not the RELRO part) moves onto a shareable memory object at the same address, with
 * the same contents; node-local peers map it (tl_ipc.c), the NIC transport registers it
 * (tl_nic.c). Translating a global is a second compare after the heap's: its offset from this
 * PE's segment start, then that PE's base (the segment's address differs between PEs under
 * ASLR). */
#ifndef SYMH_TL_DATA_H
#define SYMH_TL_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "device/dev.h"
#include "space/space_resolve.h"

/* Where this PE's globals are (lo, size) is the address space's: symh_space.globals. */
typedef struct {
    char **peer_base; /* n_pes entries: PE pe's `lo` as mapped here, NULL without load/store */
    int n_pes;
} symh_tl_data_state_t;

extern symh_tl_data_state_t symh_tl_data;

/* The segment as moved (it outlives symh_finalize: the memory stays the process's). */
typedef struct {
    uintptr_t lo;        /* first symmetric byte (after RELRO) */
    size_t size;         /* symmetric bytes */
    uintptr_t map_lo;    /* the pages moved: [map_lo, map_lo + map_size), lo - map_lo < a page */
    size_t map_size;     /* page multiple */
    symh_dev_mem_t *mem; /* the memory object behind them (host backend) */
} symh_tl_data_segment_t;

/* Local: finds the executable's writable data and, on the first call in the process, moves it
 * onto a memory object; later calls (init after finalize) find it moved already. On failure
 * `message` says why (for the runtime's agreement) and nothing changed. */
int symh_tl_data_move(char *message, size_t len);

/* The segment moved by symh_tl_data_move (size 0 before it, or for an executable without
 * writable data). */
const symh_tl_data_segment_t *symh_tl_data_segment(void);

/* Local, after symh_tl_ipc_init: the translation state (every PE's base as mapped here). */
int symh_tl_data_init(void);
void symh_tl_data_fini(void);

/* For an address no symmetric object holds (the error path only): 1 when it lies in a segment
 * of a shared library (its path, or "the dynamic loader", copied into `name`), else 0. */
int symh_tl_data_foreign(uintptr_t addr, char *name, size_t len);

#endif /* SYMH_TL_DATA_H */
