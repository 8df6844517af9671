/* tests/shim: hooks into the live symmetric heap for multi-PE tests (asymmetric states). */
#ifndef SYMH_SHIM_HEAP_DEBUG_H
#define SYMH_SHIM_HEAP_DEBUG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates / frees on this PE only, outside any collective. */
int symh_shim_heap_local_alloc(size_t size, size_t *offset);
int symh_shim_heap_local_free(size_t offset);
/* The heap's base address on this PE and its alignment. */
void *symh_shim_heap_base(void);
size_t symh_shim_heap_base_alignment(void);
/* This PE's internal area (the barrier's flags, the agreement slots, the teams' slots) and its
 * size. */
void *symh_shim_heap_internal(size_t *size);

/* Where PE pe's copy of `addr` (an address in this PE's window) is mapped here, or NULL when
 * pe is not reachable by load/store. */
void *symh_shim_peer_addr(const void *addr, int pe);

/* The transport ops table of PE pe's route (src/transport/tl.h): its name, and its put, get
 * and 64-bit fetch-add on symmetric addresses. */
const char *symh_shim_ops_name(int pe);
int symh_shim_ops_put(void *dest, const void *source, size_t bytes, int pe);
int symh_shim_ops_get(void *dest, const void *source, size_t bytes, int pe);
int symh_shim_ops_fetch_add64(void *dest, long long value, long long *fetched, int pe);
/* Completes what the ops above sent through a NIC transport (SYMH_OK without one). */
int symh_shim_nic_quiet(void);

#ifdef __cplusplus
}
#endif

#endif /* SYMH_SHIM_HEAP_DEBUG_H */
