/* symheap public header: memory resources (docs/devices.md "Memory resources"): base resources
 * (device, host, pinned host), composable adaptors (pool, statistics, limiting, logging, aligned)
 * and the per-device resource table. Semantics and the CSV format: docs/devices.md. */
#ifndef SYMHEAP_MR_H
#define SYMHEAP_MR_H

#include <stddef.h>

#include <symheap/defs.h>

SYMH_BEGIN_C_DECLS

/* A memory resource; its layout is private. */
typedef struct symh_mr symh_mr_t;

/* An alignment every resource honours cheaply (the CUDA/HIP allocation alignment). */
#define SYMH_MR_DEFAULT_ALIGNMENT 256

/* Allocates `bytes` (> 0) aligned to `alignment` (a power of two) from `mr`; *ptr is written
 * only on success. SYMH_ERR_INVALID_ARG: NULL mr or ptr, zero bytes, bad alignment;
 * SYMH_ERR_NO_MEMORY: the resource (or one below it) refused. */
SYMH_API int symh_mr_allocate(symh_mr_t *mr, size_t bytes, size_t alignment, void **ptr);

/* Gives back what symh_mr_allocate returned, with the same bytes and alignment, to the same
 * resource. SYMH_ERR_INVALID_ARG: NULL mr or ptr, zero bytes, bad alignment;
 * SYMH_ERR_NOT_REGISTERED: a pool that did not hand out ptr. */
SYMH_API int symh_mr_deallocate(symh_mr_t *mr, void *ptr, size_t bytes, size_t alignment);

/* "device", "host", "pinned_host", "pool", "statistics", "limiting", "logging", "aligned";
 * NULL (SYMH_ERR_INVALID_ARG) for a NULL mr. */
SYMH_API const char *symh_mr_name(const symh_mr_t *mr);

/* The resource an adaptor allocates from; NULL for a base resource (last error SYMH_OK) and
 * for a NULL mr (SYMH_ERR_INVALID_ARG). */
SYMH_API symh_mr_t *symh_mr_get_upstream(const symh_mr_t *mr);

/* Destroys a resource created by the calls below (NULL: nothing). Does not destroy its upstream.
 * Memory still allocated from it is lost (a pool gives its chunks back upstream, with a
 * warning). Refused with a log line for the runtime's initial per-device resources and for a
 * resource currently set in the per-device table. */
SYMH_API void symh_mr_destroy(symh_mr_t *mr);

/* Base resources. device: memory of `device` (an id, or SYMH_DEVICE_CURRENT); needs symh_init
 * (the device count); on the host backend it is host memory standing for that device's memory.
 * host: malloc-like host memory. pinned_host: page-locked host memory where the OS allows
 * (mlock, best effort; see docs/devices.md). NULL on failure, the reason in symh_last_error. */
SYMH_API symh_mr_t *symh_mr_device_create(int device);
SYMH_API symh_mr_t *symh_mr_host_create(void);
SYMH_API symh_mr_t *symh_mr_pinned_host_create(void);

/* Adaptors over `upstream` (not NULL; it must outlive the adaptor). NULL on failure.
 * pool: takes `initial` bytes from upstream at creation and grows in chunks from upstream, never
 *   holding more than `maximum` bytes of it (0: no maximum); past it SYMH_ERR_NO_MEMORY.
 * statistics: counts the bytes and allocations requested through it (symh_mr_statistics_get).
 * limiting: refuses (SYMH_ERR_NO_MEMORY) an allocation that would take the bytes allocated
 *   through it past `limit`.
 * logging: writes one CSV line per allocation and deallocation to `csv_path` (truncated at
 *   creation): header `Thread,Time,Action,Pointer,Size,Stream` (docs/devices.md).
 * aligned: allocations of at least `threshold` bytes are aligned to `alignment` (a power of
 *   two) or more; smaller ones keep the alignment they ask for. */
SYMH_API symh_mr_t *symh_mr_pool_create(symh_mr_t *upstream, size_t initial, size_t maximum);
SYMH_API symh_mr_t *symh_mr_statistics_create(symh_mr_t *upstream);
SYMH_API symh_mr_t *symh_mr_limiting_create(symh_mr_t *upstream, size_t limit);
SYMH_API symh_mr_t *symh_mr_logging_create(symh_mr_t *upstream, const char *csv_path);
SYMH_API symh_mr_t *symh_mr_aligned_create(symh_mr_t *upstream, size_t alignment, size_t threshold);

typedef struct {
    size_t bytes_current, bytes_peak, bytes_total, allocs_current, allocs_peak, allocs_total;
} symh_mr_stats_t;

/* The counters of a statistics adaptor (exactly the bytes requested). SYMH_ERR_INVALID_ARG for
 * NULL arguments or an mr that is not a statistics adaptor. */
SYMH_API int symh_mr_statistics_get(const symh_mr_t *mr, symh_mr_stats_t *stats);

/* The per-device table (needs symh_init): one resource per device, initially a device resource
 * the runtime creates at symh_init and destroys at symh_finalize. Thread-safe. set returns the
 * previous resource; set(NULL) and reset go back to the initial resource and return the previous
 * one. A bad device id: NULL and SYMH_ERR_NO_DEVICE. The caller keeps a resource it sets
 * alive while it is set or in use. */
SYMH_API symh_mr_t *symh_mr_get_per_device(int device);
SYMH_API symh_mr_t *symh_mr_set_per_device(int device, symh_mr_t *mr);
SYMH_API symh_mr_t *symh_mr_get_current(void);
SYMH_API symh_mr_t *symh_mr_set_current(symh_mr_t *mr);
SYMH_API symh_mr_t *symh_mr_reset_per_device(int device);
SYMH_API symh_mr_t *symh_mr_reset_current(void);

SYMH_END_C_DECLS

#endif /* SYMHEAP_MR_H */
