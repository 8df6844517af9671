/* core: the allocation map (core_amap.h): its creation, the heap's updates and the full check
 * behind the data path's inline one.
 *
 * Costs, per 8 KiB of heap one 16-byte word pair: a mark, unmark or resize writes the pairs its
 * range covers (a 1 GiB allocation writes 128 Ki pairs, 2 MiB); a check reads the pairs of its
 * range (the inline one, for a range within one granule: one word); the map of a 1 GiB heap is
 * 2 MiB of address space, of which only the pages under live allocations ever hold memory. */
#include "core/core_amap.h"

#include <sys/mman.h>

#include <symheap/status.h>

#include "core/core_log.h"

static uint64_t symh_amap_load(const uint64_t *word)
{
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

static void symh_amap_store(uint64_t *word, uint64_t value)
{
    __atomic_store_n(word, value, __ATOMIC_RELAXED);
}

/* The bits of granules [g0, g1] that fall in word pair w. */
static uint64_t symh_amap_mask(size_t w, size_t g0, size_t g1)
{
    uint64_t mask = ~(uint64_t)0;

    if (w == g0 >> 6)
        mask &= ~(uint64_t)0 << (g0 & 63);
    if (w == g1 >> 6)
        mask &= ~(uint64_t)0 >> (63 - (g1 & 63));
    return mask;
}

/* Granules [g0, g1] become live (their start bits unchanged), or free (start bits cleared too).
 * The one writer reads its own last stores, so load-modify-store needs no read-modify-write. */
static void symh_amap_fill(symh_amap_t *map, size_t g0, size_t g1, int live)
{
    size_t w;

    for (w = g0 >> 6; w <= g1 >> 6; ++w) {
        symh_amap_word_t *pair = &map->words[w];
        uint64_t mask = symh_amap_mask(w, g0, g1);

        if (live) {
            symh_amap_store(&pair->live,
                            mask == ~(uint64_t)0 ? mask : symh_amap_load(&pair->live) | mask);
        } else {
            symh_amap_store(&pair->live, symh_amap_load(&pair->live) & ~mask);
            symh_amap_store(&pair->start, symh_amap_load(&pair->start) & ~mask);
        }
    }
}

int symh_amap_create(size_t size, symh_amap_t *map)
{
    size_t pairs = (size + ((size_t)1 << SYMH_AMAP_SPAN_SHIFT) - 1) >> SYMH_AMAP_SPAN_SHIFT;
    size_t bytes = pairs * sizeof(symh_amap_word_t);
    void *words;

    if (size == 0 || (size & (SYMH_AMAP_GRANULE - 1)) != 0) {
        symh_error("allocation map: size %zu is not a positive multiple of %zu", size,
                   SYMH_AMAP_GRANULE);
        return SYMH_ERR_INVALID_ARG;
    }
    words = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
    if (words == MAP_FAILED) {
        symh_error("allocation map: cannot map %zu bytes for a heap of %zu: %m", bytes, size);
        return SYMH_ERR_NO_MEMORY;
    }
    *map = (symh_amap_t){ .words = words, .size = size, .map_bytes = bytes };
    return SYMH_OK;
}

void symh_amap_destroy(symh_amap_t *map)
{
    if (map->words != NULL)
        munmap(map->words, map->map_bytes);
    *map = (symh_amap_t){ .words = NULL };
}

void symh_amap_mark(symh_amap_t *map, size_t offset, size_t bytes)
{
    size_t g0 = offset >> SYMH_AMAP_GRANULE_SHIFT;
    symh_amap_word_t *pair = &map->words[g0 >> 6];

    symh_amap_fill(map, g0, (offset + bytes - 1) >> SYMH_AMAP_GRANULE_SHIFT, 1);
    symh_amap_store(&pair->start, symh_amap_load(&pair->start) | (uint64_t)1 << (g0 & 63));
}

void symh_amap_unmark(symh_amap_t *map, size_t offset, size_t bytes)
{
    symh_amap_fill(map, offset >> SYMH_AMAP_GRANULE_SHIFT,
                   (offset + bytes - 1) >> SYMH_AMAP_GRANULE_SHIFT, 0);
}

void symh_amap_resize(symh_amap_t *map, size_t offset, size_t old_bytes, size_t new_bytes)
{
    if (new_bytes > old_bytes)
        symh_amap_fill(map, (offset + old_bytes) >> SYMH_AMAP_GRANULE_SHIFT,
                       (offset + new_bytes - 1) >> SYMH_AMAP_GRANULE_SHIFT, 1);
    else if (new_bytes < old_bytes)
        symh_amap_fill(map, (offset + new_bytes) >> SYMH_AMAP_GRANULE_SHIFT,
                       (offset + old_bytes - 1) >> SYMH_AMAP_GRANULE_SHIFT, 0);
}

/* The allocation that live granule g belongs to: its first granule (the last start bit at or
 * before g) and the granule after its last (the first granule after that which is free or starts
 * another allocation). */
static void symh_amap_find(const symh_amap_t *map, size_t g, size_t *first, size_t *end)
{
    size_t granules = map->size >> SYMH_AMAP_GRANULE_SHIFT, w = g >> 6;
    uint64_t bits = symh_amap_load(&map->words[w].start) & (~(uint64_t)0 >> (63 - (g & 63)));

    while (bits == 0 && w > 0)
        bits = symh_amap_load(&map->words[--w].start);
    *first = bits == 0 ? 0 : w * 64 + 63 - (size_t)__builtin_clzll(bits);
    w = (*first + 1) >> 6;
    bits = 0;
    if (*first + 1 < granules) {
        const symh_amap_word_t *pair = &map->words[w];

        bits = (~symh_amap_load(&pair->live) | symh_amap_load(&pair->start)) &
               (~(uint64_t)0 << ((*first + 1) & 63));
        while (bits == 0 && (w + 1) * 64 < granules) {
            pair = &map->words[++w];
            bits = ~symh_amap_load(&pair->live) | symh_amap_load(&pair->start);
        }
    }
    *end = bits == 0 ? granules : w * 64 + (size_t)__builtin_ctzll(bits);
    if (*end > granules)
        *end = granules;
}

/* Every granule of the range live, and no allocation starting after its first granule. */
int symh_amap_range_ok(const symh_amap_word_t *words, size_t offset, size_t bytes)
{
    size_t g0 = offset >> SYMH_AMAP_GRANULE_SHIFT,
           g1 = (offset + bytes - 1) >> SYMH_AMAP_GRANULE_SHIFT;
    size_t w;

    for (w = g0 >> 6; w <= g1 >> 6; ++w) {
        const symh_amap_word_t *pair = &words[w];
        uint64_t mask = symh_amap_mask(w, g0, g1);
        uint64_t inner = w == g0 >> 6 ? mask & ~((uint64_t)1 << (g0 & 63)) : mask;

        if (((~symh_amap_load(&pair->live) & mask) | (symh_amap_load(&pair->start) & inner)) != 0)
            return 0;
    }
    return 1;
}

symh_amap_verdict_t symh_amap_check(const symh_amap_t *map, size_t offset, size_t bytes,
                                    size_t *alloc_offset, size_t *alloc_bytes)
{
    size_t g0 = offset >> SYMH_AMAP_GRANULE_SHIFT, first, end;

    if (symh_amap_range_ok(map->words, offset, bytes))
        return SYMH_AMAP_INSIDE;
    if ((symh_amap_load(&map->words[g0 >> 6].live) & (uint64_t)1 << (g0 & 63)) == 0)
        return SYMH_AMAP_FREED;
    symh_amap_find(map, g0, &first, &end);
    *alloc_offset = first << SYMH_AMAP_GRANULE_SHIFT;
    *alloc_bytes = (end - first) << SYMH_AMAP_GRANULE_SHIFT;
    return SYMH_AMAP_PAST_END;
}
