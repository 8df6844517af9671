/* symheap public header: the symmetric heap (collective allocation) and its statistics. */
#ifndef SYMHEAP_HEAP_H
#define SYMHEAP_HEAP_H

#include <stddef.h>

#include <symheap/defs.h>

SYMH_BEGIN_C_DECLS

/* Collective: every PE calls them in the same order with the same arguments. Each returns an
 * address at the same offset into every PE's heap, or NULL on every PE (agreement): a PE whose
 * own call was invalid reports its own code in symh_last_error(), the others
 * SYMH_ERR_MISMATCH. Every call passes the collective barrier exactly once. */
SYMH_API void *symh_malloc(size_t size);                  /* 128-byte aligned; size 0: NULL */
SYMH_API void *symh_align(size_t alignment, size_t size); /* power of two >= sizeof(void *) */
SYMH_API void *symh_calloc(size_t count, size_t size); /* zeroed on every PE before any returns */
SYMH_API void *symh_realloc(void *ptr, size_t size);   /* OpenSHMEM semantics */
SYMH_API void symh_free(void *ptr);                    /* barrier, then free; NULL: no-op */

/* Hints of symh_malloc_with_hints (OpenSHMEM 1.5): the memory is meant as the target of remote
 * atomics, or of signals. symheap's heap is one kind of memory, so the hints change nothing
 * about where the block goes; they are checked (an unknown bit is SYMH_ERR_INVALID_ARG) and
 * agreed like the size. */
#define SYMH_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SYMH_MALLOC_SIGNAL_REMOTE  (1L << 1)
/* Collective, as symh_malloc; hints 0 is symh_malloc. */
SYMH_API void *symh_malloc_with_hints(size_t size, long hints);

typedef struct {
    size_t size;         /* usable heap bytes (at least SYMH_HEAP_SIZE) */
    size_t used;         /* bytes held by live allocations, padding included */
    size_t free;         /* size - used */
    size_t largest_free; /* the largest symh_malloc that would succeed now */
    size_t allocations;  /* live allocations */
} symh_heap_stats_t;

/* Local, not collective. */
SYMH_API int symh_heap_stats(symh_heap_stats_t *stats);

SYMH_END_C_DECLS

#endif /* SYMHEAP_HEAP_H */
