/* transport: the node-local IPC domain. Every PE exports its window's physical objects (internal
 * area, heap) as file descriptors to its node-local peers over a UNIX-domain socket (SCM_RIGHTS,
 * abstract names unique to the job) and maps each peer's objects into a window of its own at the
 * same offsets, so a symmetric address translates with one subtraction and one addition. */
#ifndef SYMH_TL_IPC_H
#define SYMH_TL_IPC_H

#include <stddef.h>

#include "device/dev.h"

#define SYMH_TL_WINDOW_OBJECTS 2

/* This PE's window as the heap laid it out: [internal | heap | symmetric area]. */
typedef struct {
    char *base;
    size_t size;
    size_t alignment; /* the heap offset within the window plus this must be aligned: see
                         symh_tl_ipc_init */
    size_t heap_offset;
    size_t heap_size;
    size_t internal_size; /* the internal area starts at offset 0 */
    int n_objects;
    struct {
        size_t offset;
        size_t size;
        symh_dev_mem_t *mem;
    } objects[SYMH_TL_WINDOW_OBJECTS];
} symh_tl_window_t;

/* Collective over all PEs (node-local ones exchange handles; the others only take part in the
 * bootstrap steps). Maps every node-local peer routed through IPC. */
int symh_tl_ipc_init(const symh_tl_window_t *mine);
void symh_tl_ipc_fini(void);

/* Where PE `pe`'s window starts in this process: this PE's own window for itself, the mapped
 * copy for an IPC peer, NULL when `pe` is not reachable by load/store. */
char *symh_tl_ipc_peer_base(int pe);

/* This PE's window (as passed to symh_tl_ipc_init). */
extern symh_tl_window_t symh_tl_window;

#endif /* SYMH_TL_IPC_H */
