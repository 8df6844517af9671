/* heap: the symmetric heap allocator. It hands out offsets in [0, size) and keeps all of its
 * bookkeeping outside the heap memory, which it never touches: the heap is host memory
 * (heap_window.c), but a heap in device memory the CPU cannot touch would need no change here
 * (docs/design.md "The heap allocator"). Fed the same sequence of calls, two allocators return the
 * same offsets: that is what makes the heap symmetric across PEs. Not thread-safe: the caller
 * serializes. */
#ifndef SYMH_HEAP_ALLOC_H
#define SYMH_HEAP_ALLOC_H

#include <stddef.h>

/* Every block starts and ends on this many bytes: the default alignment of symh_malloc. */
#define SYMH_HEAP_ALLOC_GRANULE ((size_t)128)

typedef struct symh_heap_alloc symh_heap_alloc_t;

typedef struct {
    size_t size;         /* bytes managed */
    size_t used;         /* bytes held by live blocks, padding included */
    size_t free;         /* size - used */
    size_t largest_free; /* the largest size an alloc with the default alignment gets now */
    size_t allocations;  /* live blocks */
} symh_heap_alloc_stats_t;

/* Manages [0, size); size is rounded down to the granule and must leave at least one granule.
 * SYMH_ERR_INVALID_ARG, SYMH_ERR_NO_MEMORY (bookkeeping). */
int symh_heap_alloc_create(size_t size, symh_heap_alloc_t **alloc);
void symh_heap_alloc_destroy(symh_heap_alloc_t *alloc);

/* A block of at least `size` bytes (rounded up to the granule) at an offset that is a multiple of
 * `alignment` (a power of two; below the granule it means the granule). SYMH_ERR_INVALID_ARG for
 * size 0, a size that overflows when rounded, or a bad alignment; SYMH_ERR_NO_MEMORY when no free
 * range fits. On failure nothing changes and *offset is not written. */
int symh_heap_alloc_alloc(symh_heap_alloc_t *alloc, size_t size, size_t alignment, size_t *offset);

/* Frees the live block that starts at `offset`. Anything else (an interior offset, a freed
 * block, an offset past the end) is SYMH_ERR_NOT_REGISTERED and changes nothing. */
int symh_heap_alloc_free(symh_heap_alloc_t *alloc, size_t offset);

/* Bytes of the live block that starts at `offset` (its rounded size), or
 * SYMH_ERR_NOT_REGISTERED. */
int symh_heap_alloc_block_size(const symh_heap_alloc_t *alloc, size_t offset, size_t *size);

/* Resizes the live block at `offset` in place to `new_size` (> 0, rounded up to the granule):
 * shrinking always succeeds, growing succeeds when the free space right after the block is large
 * enough. SYMH_ERR_NO_MEMORY (cannot grow in place), SYMH_ERR_NOT_REGISTERED,
 * SYMH_ERR_INVALID_ARG; nothing changes on failure. Resizing back to the old size right after a
 * successful resize always succeeds (the collective rollback relies on it). */
int symh_heap_alloc_resize(symh_heap_alloc_t *alloc, size_t offset, size_t new_size);

void symh_heap_alloc_stats(const symh_heap_alloc_t *alloc, symh_heap_alloc_stats_t *stats);

/* Walks every block and checks the invariants (blocks tile [0, size) without overlap, no two
 * adjacent free blocks, every index agrees with the blocks, the used bytes and live blocks agree
 * with the stats, every record is a block or spare). O(n): for the unit tests, fuzz_heap_alloc,
 * and symh_assert_expensive (core/core_log.h) after create, alloc, free and resize in builds with
 * SYMH_EXPENSIVE_CHECKS. SYMH_OK; SYMH_ERR_INVALID_ARG for a NULL alloc; SYMH_ERR_SYSTEM with one
 * error log line saying what broke. */
int symh_heap_alloc_check(const symh_heap_alloc_t *alloc);

#endif /* SYMH_HEAP_ALLOC_H */
