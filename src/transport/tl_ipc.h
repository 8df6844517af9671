/* transport: the node-local IPC domain. Every PE exports its window's physical objects (internal
 * area, heap) as file descriptors to its node-local peers over a UNIX-domain socket (SCM_RIGHTS,
 * a random abstract name per exchange, both ends authenticated: tl_ipc.c) and maps each peer's
 * objects into a window of its own at the same offsets, so a symmetric address translates with
 * one subtraction and one addition. */
#ifndef SYMH_TL_IPC_H
#define SYMH_TL_IPC_H

#include <stddef.h>
#include <string.h>

#include <symheap/status.h>

#include "device/dev.h"

#define SYMH_TL_WINDOW_OBJECTS 2
/* Most physical objects one exchange hands over (a symmetric region may span several VMM
 * mappings). */
#define SYMH_TL_IPC_MAX_OBJECTS 8

/* This PE's window as the heap laid it out: [internal | heap | symmetric area]. */
typedef struct {
    char *base;
    size_t size;
    size_t alignment; /* the heap offset within the window plus this must be aligned: see
                         symh_tl_ipc_init */
    size_t heap_offset;
    size_t heap_size;
    size_t internal_size; /* the internal area starts at offset 0 */
    size_t symm_offset;   /* the symmetric-registration area */
    size_t symm_size;
    int n_objects;
    struct {
        size_t offset;
        size_t size;
        symh_dev_mem_t *mem;
    } objects[SYMH_TL_WINDOW_OBJECTS];
} symh_tl_window_t;

/* Copies between a local buffer and host memory mapped from a peer (or this PE's own window).
 * On a GPU backend the local buffer may be a device allocation, which the CPU cannot load or
 * store: the backend copies then (it moves host memory itself and asks the driver only for
 * device memory). On the host backend, a memcpy. */
static inline int symh_tl_ipc_copy(void *dst, const void *src, size_t bytes)
{
    if (__builtin_expect(symh_dev == symh_dev_host, 1)) {
        memcpy(dst, src, bytes);
        return SYMH_OK;
    }
    return symh_dev->copy(dst, src, bytes);
}

/* Collective over all PEs (node-local ones exchange handles; the others only take part in the
 * bootstrap steps). Maps every node-local peer routed through IPC. */
int symh_tl_ipc_init(const symh_tl_window_t *mine);
void symh_tl_ipc_fini(void);

/* [mem_offset, +size) of a physical object, placed at `offset` in the window. */
typedef struct {
    symh_dev_mem_t *mem;
    size_t mem_offset;
    size_t offset;
    size_t size;
} symh_tl_ipc_object_t;

/* Collective over all PEs: hands this PE's `n` objects of one symmetric region (at `symm_offset`
 * in the symmetric area; object offsets are window offsets) to its node-local IPC peers and maps
 * theirs at the same offsets in its views of their windows. `status` not SYMH_OK: this PE
 * already failed and only takes part; it is returned. The caller agrees on the result and, on
 * failure, calls symh_tl_ipc_unshare everywhere. */
int symh_tl_ipc_share(size_t symm_offset, int n, const symh_tl_ipc_object_t *objects, int status);
/* Local: unmaps window range [offset, +size) in this PE's views of every IPC peer's window
 * (harmless where nothing is mapped). */
void symh_tl_ipc_unshare(size_t offset, size_t size);

/* Where PE `pe`'s window starts in this process: this PE's own window for itself, the mapped
 * copy for an IPC peer, NULL when `pe` is not reachable by load/store. */
char *symh_tl_ipc_peer_base(int pe);
/* Where PE `pe`'s symmetric globals start in this process (tl_data.h): this PE's own for itself,
 * the mapped copy for an IPC peer, NULL otherwise. */
char *symh_tl_ipc_peer_data(int pe);

/* Test hooks (tests/shim/shim_ipc.c). The name (without the leading NUL of an abstract name)
 * this PE tries first for the socket of its next exchange, once, as if a random draw had picked
 * it; and the name its last exchange bound ("" before the first). */
void symh_tl_ipc_set_next_name(const char *name);
const char *symh_tl_ipc_last_name(void);

/* This PE's window (as passed to symh_tl_ipc_init). */
extern symh_tl_window_t symh_tl_window;

#endif /* SYMH_TL_IPC_H */
