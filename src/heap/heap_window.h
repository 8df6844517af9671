/* heap: the symmetric window of this PE and the heap inside it (docs/design.md "The symmetric
 * window"): [internal area | heap | symmetric-registration area], reserved at init. */
#ifndef SYMH_HEAP_WINDOW_H
#define SYMH_HEAP_WINDOW_H

#include <stddef.h>

#include "core/core_amap.h"
#include "device/dev.h"

typedef struct {
    char *reservation; /* the whole reservation: an unused guard, then the window */
    size_t reservation_size;
    char *base; /* the window: base .. base + size */
    size_t size;
    char *internal; /* runtime state peers touch (barrier flags, agreement slots) */
    size_t internal_size;
    char *heap; /* aligned to heap_alignment (at least 1 GiB) */
    size_t heap_size;
    size_t heap_alignment;
    char *symm; /* slots for symh_buffer_register_symmetric: reserved, unmapped */
    size_t symm_size;
    symh_dev_mem_t *internal_mem;
    symh_dev_mem_t *heap_mem;
} symh_heap_window_t;

extern symh_heap_window_t symh_heap_window;

/* Whether SYMH_HEAP_SIZE and SYMH_SYMM_AREA_SIZE can make a window; `msg` says why not. */
int symh_heap_check_config(char *msg, size_t msg_len);
/* Whether `n_windows` windows (this PE's and one per node-local peer that IPC maps) fit in this
 * process's address space: SYMH_OK, or SYMH_ERR_NO_MEMORY and `msg` naming SYMH_HEAP_SIZE,
 * SYMH_SYMM_AREA_SIZE, the count and the total (the caller decides which PE logs it). */
int symh_heap_check_space(int n_windows, char *msg, size_t msg_len);
/* Reserves the window and maps the internal area and the heap (heap_window.c). */
int symh_heap_window_init(void);
/* Allocates all of the heap's memory now (SYMH_HEAP_POPULATE, the host backend's populate):
 * SYMH_OK, or a status and `why` (nothing logged; the caller decides which PE speaks). */
int symh_heap_populate(char *why, size_t why_len);
void symh_heap_window_fini(void);

/* The window plus the allocator (heap_api.c); local, the caller agrees across PEs. */
int symh_heap_init(void);
void symh_heap_fini(void);

/* The map of the live allocations (core_amap.h), equal to the allocator's live blocks after every
 * change (every path of malloc & co., rollbacks and the test hooks below included): what the
 * runtime hands to the transport for its bounds check. Valid from symh_heap_init to
 * symh_heap_fini. */
const symh_amap_t *symh_heap_alloc_map(void);

/* Test hooks: allocate or free on this PE only, outside any collective, to build the asymmetric
 * states (exhaustion on one PE) that the agreement must survive. */
int symh_heap_debug_local_alloc(size_t size, size_t *offset);
int symh_heap_debug_local_free(size_t offset);

#endif /* SYMH_HEAP_WINDOW_H */
