/* core: the allocation map, two bits per 128-byte granule of the symmetric heap ("covered by a
 * live allocation", "starts one"), which the heap keeps equal to its live blocks and the RMA data
 * path reads to bound a range by the allocation it starts in (docs/rma.md "Bounds by
 * allocation"). It lives in core because both sides need it and neither may include the other:
 * the heap writes it (heap_api.c), the runtime hands it to the transport at init (rt_init.c),
 * the transport reads it (tl_rma.h). It knows nothing of either.
 *
 * One writer at a time (the heap's calls are collective and serialized), readers on any thread:
 * every word is read and written with relaxed __atomic builtins (plain loads and stores on x86-64
 * and Arm), so a put on one thread beside a malloc on another is no data race. A range read while
 * the allocation it touches is being made or freed may see either state; such a put races with
 * the allocation in the program itself. */
#ifndef SYMH_CORE_AMAP_H
#define SYMH_CORE_AMAP_H

#include <stddef.h>
#include <stdint.h>

/* The heap allocator's granule (heap_alloc.h checks that they agree): blocks start and end on it.
 */
#define SYMH_AMAP_GRANULE_SHIFT 7
#define SYMH_AMAP_GRANULE       ((size_t)1 << SYMH_AMAP_GRANULE_SHIFT)
/* One word pair covers 64 granules: 8 KiB of heap. */
#define SYMH_AMAP_SPAN_SHIFT (SYMH_AMAP_GRANULE_SHIFT + 6)

/* 64 granules: bit g of `live` is set when granule g lies in a live allocation, bit g of `start`
 * when an allocation begins there. Side by side, so that one cache line serves both loads. */
typedef struct {
    uint64_t live;
    uint64_t start;
} symh_amap_word_t;

typedef struct {
    symh_amap_word_t *words; /* ceil(size / 8 KiB) pairs, zero (all free) at creation */
    size_t size;             /* bytes covered, a multiple of the granule */
    size_t map_bytes;        /* bytes mapped for `words` */
} symh_amap_t;

/* What symh_amap_check found. */
typedef enum {
    SYMH_AMAP_INSIDE = 0, /* the range lies in one live allocation */
    SYMH_AMAP_FREED,      /* it starts in heap that no live allocation covers */
    SYMH_AMAP_PAST_END    /* it starts in a live allocation and runs past its end */
} symh_amap_verdict_t;

/* A map of [0, size) with every granule free: address space for size / 512 bytes, memory only for
 * the pages that allocations touch (an anonymous MAP_NORESERVE mapping). size must be a positive
 * multiple of the granule. SYMH_ERR_INVALID_ARG, SYMH_ERR_NO_MEMORY (logged). */
int symh_amap_create(size_t size, symh_amap_t *map);
void symh_amap_destroy(symh_amap_t *map);

/* Records [offset, offset + bytes) as one live allocation (granule multiples, inside the map,
 * free before); forgets it again. O(bytes / 8 KiB) word writes. */
void symh_amap_mark(symh_amap_t *map, size_t offset, size_t bytes);
void symh_amap_unmark(symh_amap_t *map, size_t offset, size_t bytes);
/* The allocation at `offset` grew or shrank in place from old_bytes to new_bytes. */
void symh_amap_resize(symh_amap_t *map, size_t offset, size_t old_bytes, size_t new_bytes);

/* The whole answer for [offset, offset + bytes) (bytes >= 1, offset + bytes <= size): O(bytes /
 * 8 KiB) word reads. For SYMH_AMAP_PAST_END, *alloc_offset and *alloc_bytes are the allocation
 * the range starts in (a walk over it: for the log line only). */
symh_amap_verdict_t symh_amap_check(const symh_amap_t *map, size_t offset, size_t bytes,
                                    size_t *alloc_offset, size_t *alloc_bytes);

/* Whether [offset, offset + bytes) lies in one live allocation (bytes >= 1, offset + bytes <=
 * size): the yes/no of symh_amap_check, out of line, reading one word pair per 8 KiB. */
int symh_amap_range_ok(const symh_amap_word_t *words, size_t offset, size_t bytes);

/* The data path's part, inline, with the same preconditions and answer: a range within one
 * 128-byte granule (every AMO, p and g, and a small put or get unless it straddles a granule's
 * edge) is inside a live allocation exactly when its granule is live: one load, one bit test.
 * Anything longer asks symh_amap_range_ok. */
static inline int symh_amap_fast_ok(const symh_amap_word_t *words, size_t offset, size_t bytes)
{
    size_t g = offset >> SYMH_AMAP_GRANULE_SHIFT;

    if (((offset ^ (offset + bytes - 1)) >> SYMH_AMAP_GRANULE_SHIFT) != 0)
        return symh_amap_range_ok(words, offset, bytes);
    return (int)(__atomic_load_n(&words[g >> 6].live, __ATOMIC_RELAXED) >> (g & 63)) & 1;
}

#endif /* SYMH_CORE_AMAP_H */
