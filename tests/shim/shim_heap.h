/* tests/shim: the heap allocator (src/heap/heap_alloc.h) for the C++ unit tests. */
#ifndef SYMH_SHIM_HEAP_H
#define SYMH_SHIM_HEAP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The allocator, opaque to the tests. */
typedef struct symh_heap_alloc symh_shim_heap_alloc_t;

/* The fields of symh_heap_alloc_stats_t, in the same order. */
typedef struct {
    size_t size;
    size_t used;
    size_t free;
    size_t largest_free;
    size_t allocations;
} symh_shim_heap_alloc_stats_t;

/* SYMH_HEAP_ALLOC_GRANULE. */
size_t symh_shim_heap_alloc_granule(void);

/* The functions of heap_alloc.h, one to one (NULL arguments are passed through). */
int symh_shim_heap_alloc_create(size_t size, symh_shim_heap_alloc_t **alloc);
void symh_shim_heap_alloc_destroy(symh_shim_heap_alloc_t *alloc);
int symh_shim_heap_alloc_alloc(symh_shim_heap_alloc_t *alloc, size_t size, size_t alignment,
                               size_t *offset);
int symh_shim_heap_alloc_free(symh_shim_heap_alloc_t *alloc, size_t offset);
int symh_shim_heap_alloc_block_size(const symh_shim_heap_alloc_t *alloc, size_t offset,
                                    size_t *size);
int symh_shim_heap_alloc_resize(symh_shim_heap_alloc_t *alloc, size_t offset, size_t new_size);
void symh_shim_heap_alloc_stats(const symh_shim_heap_alloc_t *alloc,
                                symh_shim_heap_alloc_stats_t *stats);
int symh_shim_heap_alloc_check(const symh_shim_heap_alloc_t *alloc);

#ifdef __cplusplus
}
#endif

#endif /* SYMH_SHIM_HEAP_H */
