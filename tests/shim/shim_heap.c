/* tests/shim: C side of the heap allocator shim: each function calls its heap_alloc.h twin. */
#include "shim_heap.h"

#include "heap/heap_alloc.h"

_Static_assert(sizeof(symh_shim_heap_alloc_stats_t) == sizeof(symh_heap_alloc_stats_t) &&
                   offsetof(symh_shim_heap_alloc_stats_t, largest_free) ==
                       offsetof(symh_heap_alloc_stats_t, largest_free) &&
                   offsetof(symh_shim_heap_alloc_stats_t, allocations) ==
                       offsetof(symh_heap_alloc_stats_t, allocations),
               "the shim's stats mirror symh_heap_alloc_stats_t");

size_t symh_shim_heap_alloc_granule(void)
{
    return SYMH_HEAP_ALLOC_GRANULE;
}

int symh_shim_heap_alloc_create(size_t size, symh_shim_heap_alloc_t **alloc)
{
    return symh_heap_alloc_create(size, alloc);
}

void symh_shim_heap_alloc_destroy(symh_shim_heap_alloc_t *alloc)
{
    symh_heap_alloc_destroy(alloc);
}

int symh_shim_heap_alloc_alloc(symh_shim_heap_alloc_t *alloc, size_t size, size_t alignment,
                               size_t *offset)
{
    return symh_heap_alloc_alloc(alloc, size, alignment, offset);
}

int symh_shim_heap_alloc_free(symh_shim_heap_alloc_t *alloc, size_t offset)
{
    return symh_heap_alloc_free(alloc, offset);
}

int symh_shim_heap_alloc_block_size(const symh_shim_heap_alloc_t *alloc, size_t offset,
                                    size_t *size)
{
    return symh_heap_alloc_block_size(alloc, offset, size);
}

int symh_shim_heap_alloc_resize(symh_shim_heap_alloc_t *alloc, size_t offset, size_t new_size)
{
    return symh_heap_alloc_resize(alloc, offset, new_size);
}

void symh_shim_heap_alloc_stats(const symh_shim_heap_alloc_t *alloc,
                                symh_shim_heap_alloc_stats_t *stats)
{
    symh_heap_alloc_stats_t s;

    symh_heap_alloc_stats(alloc, &s);
    if (stats == NULL)
        return;
    stats->size = s.size;
    stats->used = s.used;
    stats->free = s.free;
    stats->largest_free = s.largest_free;
    stats->allocations = s.allocations;
}

int symh_shim_heap_alloc_check(const symh_shim_heap_alloc_t *alloc)
{
    return symh_heap_alloc_check(alloc);
}
