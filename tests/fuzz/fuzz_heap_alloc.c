/* libFuzzer target: the heap allocator (src/heap/heap_alloc.c) against a reference model of its
 * live blocks. The first two bytes pick the range; then every 3 bytes are one step: an alloc at
 * any alignment (bad ones included), many allocs of one size, a free, a free of every 2nd-4th
 * block (fragmentation in a few bytes), a resize (with an immediate rollback or not), or a misuse
 * that must be refused. After every step the target aborts on an overlap, a misaligned block, a
 * block outside the range, stats that disagree with the model, a largest_free that an alloc
 * contradicts, a refusal while the model has room, or a failed check(); a twin allocator fed the
 * same calls must return the same offsets. At the end, everything freed must leave one free
 * block. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/status.h>

#include "heap/heap_alloc.h"

#define FUZZ_GRANULE  SYMH_HEAP_ALLOC_GRANULE
#define FUZZ_MAX_LIVE 512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    size_t offset;
    size_t size;
} fuzz_block_t;

typedef struct {
    symh_heap_alloc_t *alloc;
    symh_heap_alloc_t *twin; /* gets the same calls: must answer the same */
    size_t size;
    size_t count;
    fuzz_block_t live[FUZZ_MAX_LIVE]; /* sorted by offset */
} fuzz_state_t;

static void fuzz_require(int ok)
{
    if (!ok)
        abort();
}

static int fuzz_same_stats(const symh_heap_alloc_stats_t *a, const symh_heap_alloc_stats_t *b)
{
    return a->size == b->size && a->used == b->used && a->free == b->free &&
           a->largest_free == b->largest_free && a->allocations == b->allocations;
}

static void fuzz_stats(const fuzz_state_t *st, symh_heap_alloc_stats_t *stats)
{
    symh_heap_alloc_stats_t twin;

    symh_heap_alloc_stats(st->alloc, stats);
    symh_heap_alloc_stats(st->twin, &twin);
    fuzz_require(fuzz_same_stats(stats, &twin));
}

/* Does a free gap of the model hold `need` bytes at `align`? */
static int fuzz_model_fits(const fuzz_state_t *st, size_t need, size_t align)
{
    size_t from = 0, i;

    for (i = 0; i <= st->count; ++i) {
        size_t to = i < st->count ? st->live[i].offset : st->size;
        size_t pad = (align - (from & (align - 1))) & (align - 1);

        if (to - from >= need && to - from - need >= pad)
            return 1;
        if (i < st->count)
            from = st->live[i].offset + st->live[i].size;
    }
    return 0;
}

static size_t fuzz_model_index(const fuzz_state_t *st, size_t offset)
{
    size_t i;

    for (i = 0; i < st->count; ++i)
        if (st->live[i].offset == offset)
            return i;
    return SIZE_MAX;
}

/* Both allocators answer the same; returns the status. */
static int fuzz_alloc2(fuzz_state_t *st, size_t size, size_t alignment, size_t *offset)
{
    size_t a = 0x5eed, b = 0x5eed;
    int status = symh_heap_alloc_alloc(st->alloc, size, alignment, &a);

    fuzz_require(status == symh_heap_alloc_alloc(st->twin, size, alignment, &b));
    fuzz_require(a == b);
    fuzz_require(status == SYMH_OK || a == 0x5eed); /* not written on failure */
    *offset = a;
    return status;
}

static int fuzz_free2(fuzz_state_t *st, size_t offset)
{
    int status = symh_heap_alloc_free(st->alloc, offset);

    fuzz_require(status == symh_heap_alloc_free(st->twin, offset));
    return status;
}

static int fuzz_resize2(fuzz_state_t *st, size_t offset, size_t new_size)
{
    int status = symh_heap_alloc_resize(st->alloc, offset, new_size);

    fuzz_require(status == symh_heap_alloc_resize(st->twin, offset, new_size));
    return status;
}

/* Everything the model knows, checked against both allocators. */
static void fuzz_verify(fuzz_state_t *st)
{
    symh_heap_alloc_stats_t stats;
    size_t used = 0, largest = 0, end = 0, i, offset;

    for (i = 0; i < st->count; ++i) {
        const fuzz_block_t *b = &st->live[i];
        size_t bytes = 0;

        fuzz_require(b->offset >= end && b->size > 0 && b->size <= st->size - b->offset);
        fuzz_require(symh_heap_alloc_block_size(st->alloc, b->offset, &bytes) == SYMH_OK);
        fuzz_require(bytes == b->size);
        if (b->offset - end > largest)
            largest = b->offset - end;
        used += b->size;
        end = b->offset + b->size;
    }
    if (st->size - end > largest)
        largest = st->size - end;

    fuzz_stats(st, &stats);
    fuzz_require(stats.size == st->size && stats.used == used && stats.free == st->size - used &&
                 stats.allocations == st->count && stats.largest_free == largest);
    fuzz_require(symh_heap_alloc_check(st->alloc) == SYMH_OK);
    fuzz_require(symh_heap_alloc_check(st->twin) == SYMH_OK);

    /* largest_free is what an alloc gets: that much succeeds, a granule more does not. */
    if (largest > 0) {
        fuzz_require(fuzz_alloc2(st, largest, FUZZ_GRANULE, &offset) == SYMH_OK);
        fuzz_require(fuzz_free2(st, offset) == SYMH_OK);
    }
    if (largest <= SIZE_MAX - 2 * FUZZ_GRANULE)
        fuzz_require(fuzz_alloc2(st, largest + FUZZ_GRANULE, FUZZ_GRANULE, &offset) ==
                     SYMH_ERR_NO_MEMORY);
    symh_heap_alloc_stats(st->alloc, &stats);
    fuzz_require(stats.used == used && stats.largest_free == largest);
}

static void fuzz_model_add(fuzz_state_t *st, size_t offset, size_t size)
{
    size_t i = st->count;

    while (i > 0 && st->live[i - 1].offset > offset) {
        st->live[i] = st->live[i - 1];
        --i;
    }
    st->live[i].offset = offset;
    st->live[i].size = size;
    st->count++;
}

static void fuzz_model_remove(fuzz_state_t *st, size_t i)
{
    memmove(&st->live[i], &st->live[i + 1], (st->count - i - 1) * sizeof(st->live[0]));
    st->count--;
}

/* A size in bytes from one byte: (1..16) << (0..15) granules, less `trim` bytes. */
static size_t fuzz_size(uint8_t code, uint8_t trim)
{
    size_t bytes = ((size_t)(code & 15) + 1) << (code >> 4) << 7;

    return bytes - (trim & (FUZZ_GRANULE - 1) & (bytes - 1));
}

/* One alloc, checked against the model; `alignment` may be invalid. */
static void fuzz_alloc_one(fuzz_state_t *st, size_t size, size_t alignment)
{
    size_t need, offset;
    int status = fuzz_alloc2(st, size, alignment, &offset);

    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        fuzz_require(status == SYMH_ERR_INVALID_ARG);
        return;
    }
    if (alignment < FUZZ_GRANULE)
        alignment = FUZZ_GRANULE;
    need = (size + FUZZ_GRANULE - 1) & ~(FUZZ_GRANULE - 1);
    if (status != SYMH_OK || st->count == FUZZ_MAX_LIVE) {
        /* Refused only when no gap of the model fits. */
        fuzz_require(status == SYMH_OK ||
                     (status == SYMH_ERR_NO_MEMORY && !fuzz_model_fits(st, need, alignment)));
        if (status == SYMH_OK)
            fuzz_require(fuzz_free2(st, offset) == SYMH_OK);
        return;
    }
    fuzz_require(offset % alignment == 0 && offset <= st->size && need <= st->size - offset);
    fuzz_model_add(st, offset, need);
}

static void fuzz_alloc(fuzz_state_t *st, uint8_t op, uint8_t a, uint8_t b)
{
    unsigned code = op >> 3;
    size_t alignment;

    if (code < 16)
        alignment = FUZZ_GRANULE;
    else if (code < 30)
        alignment = (size_t)1 << ((code - 16) * 3 + (b & 3)); /* 2^0 .. 2^42 */
    else
        alignment = code == 30 ? 0 : (size_t)3 << (b & 15); /* not a power of two */
    fuzz_alloc_one(st, fuzz_size(a, b), alignment);
}

/* Many blocks of one size, so that a few bytes of input build a fragmented heap. */
static void fuzz_alloc_many(fuzz_state_t *st, uint8_t op, uint8_t a, uint8_t b)
{
    unsigned i, count = 1 + (a & 63);

    for (i = 0; i < count; ++i)
        fuzz_alloc_one(st, fuzz_size(b, op >> 3), FUZZ_GRANULE);
}

/* Frees every `stride`-th live block (in address order), leaving holes between live blocks. */
static void fuzz_free_pattern(fuzz_state_t *st, uint8_t a, uint8_t b)
{
    size_t stride = 2 + a % 3, start = b % stride, i;

    for (i = st->count; i-- > 0;) {
        if (i % stride != start)
            continue;
        fuzz_require(fuzz_free2(st, st->live[i].offset) == SYMH_OK);
        fuzz_model_remove(st, i);
    }
}

static void fuzz_resize(fuzz_state_t *st, uint8_t op, uint8_t a, uint8_t b)
{
    size_t i = a % st->count, offset = st->live[i].offset, old = st->live[i].size;
    size_t new_size = fuzz_size(b, op), need = (new_size + FUZZ_GRANULE - 1) & ~(FUZZ_GRANULE - 1);
    size_t room = (i + 1 < st->count ? st->live[i + 1].offset : st->size) - offset;
    int status = fuzz_resize2(st, offset, new_size);

    /* Shrinking always works; growing exactly when the gap after the block is large enough. */
    fuzz_require(status == (need <= room ? SYMH_OK : SYMH_ERR_NO_MEMORY));
    if (status != SYMH_OK)
        return;
    st->live[i].size = need;
    if (op & 8) {
        /* The collective rollback: back to the old size right away. */
        fuzz_require(fuzz_resize2(st, offset, old) == SYMH_OK);
        st->live[i].size = old;
    }
}

/* A call that must be refused and change nothing. */
static void fuzz_misuse(fuzz_state_t *st, uint8_t op, uint8_t a, uint8_t b)
{
    symh_heap_alloc_stats_t before, after;
    size_t offset, bytes = 77;
    int status;

    fuzz_stats(st, &before);
    switch ((op >> 3) % 6) {
    case 0: /* interior or unaligned offset of a live block (or of the free space) */
        offset = (st->count ? st->live[a % st->count].offset : 0) + 1 + b;
        break;
    case 1: /* past the end */
        offset = st->size + (size_t)a * FUZZ_GRANULE;
        break;
    case 2: /* the start of a free range (a freed block's offset, or the end of a live one) */
        if (st->count == 0)
            return;
        offset = st->live[a % st->count].offset + st->live[a % st->count].size;
        break;
    case 3: /* bad sizes */
        /* 0, or a size that overflows when rounded up to the granule */
        status =
            fuzz_alloc2(st, b & 1 ? 0 : SIZE_MAX - a % (FUZZ_GRANULE - 1), FUZZ_GRANULE, &offset);
        fuzz_require(status == SYMH_ERR_INVALID_ARG);
        goto same;
    case 4: /* bad resize sizes */
        if (st->count == 0)
            return;
        status = fuzz_resize2(st, st->live[a % st->count].offset, b & 1 ? 0 : SIZE_MAX - (b >> 2));
        fuzz_require(status == SYMH_ERR_INVALID_ARG);
        goto same;
    default: /* a free of a block just freed */
        if (st->count == 0)
            return;
        offset = st->live[a % st->count].offset;
        fuzz_require(fuzz_free2(st, offset) == SYMH_OK);
        fuzz_model_remove(st, a % st->count);
        fuzz_stats(st, &before);
        break;
    }
    /* Wrapped around, or landed on a live block after all: not a misuse. */
    if (fuzz_model_index(st, offset) != SIZE_MAX)
        return;
    fuzz_require(fuzz_free2(st, offset) == SYMH_ERR_NOT_REGISTERED);
    fuzz_require(symh_heap_alloc_block_size(st->alloc, offset, &bytes) == SYMH_ERR_NOT_REGISTERED &&
                 bytes == 77);
    fuzz_require(fuzz_resize2(st, offset, FUZZ_GRANULE) == SYMH_ERR_NOT_REGISTERED);
same:
    fuzz_stats(st, &after);
    fuzz_require(fuzz_same_stats(&before, &after));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_state_t st;
    symh_heap_alloc_stats_t stats;
    size_t pos, heap_size;

    if (size < 2)
        return 0;
    memset(&st, 0, sizeof(st));
    /* (1..256) << (0..14) granules plus a few stray bytes; 15: nearly the whole address space. */
    if ((data[1] & 15) == 15)
        heap_size = SIZE_MAX - (size_t)data[0] * 4096;
    else
        heap_size = (((size_t)data[0] + 1) << (data[1] & 15) << 7) + (data[1] >> 4) * 8;
    fuzz_require(symh_heap_alloc_create(heap_size, &st.alloc) == SYMH_OK);
    fuzz_require(symh_heap_alloc_create(heap_size, &st.twin) == SYMH_OK);
    st.size = heap_size & ~(FUZZ_GRANULE - 1);
    fuzz_verify(&st);

    for (pos = 2; pos + 3 <= size; pos += 3) {
        uint8_t op = data[pos], a = data[pos + 1], b = data[pos + 2];

        switch (op & 7) {
        case 0:
        case 1:
            fuzz_alloc(&st, op, a, b);
            break;
        case 2:
            fuzz_alloc_many(&st, op, a, b);
            break;
        case 3:
            fuzz_free_pattern(&st, a, b);
            break;
        case 4:
            if (st.count > 0) {
                fuzz_require(fuzz_free2(&st, st.live[a % st.count].offset) == SYMH_OK);
                fuzz_model_remove(&st, a % st.count);
            }
            break;
        case 5:
        case 6:
            if (st.count > 0)
                fuzz_resize(&st, op, a, b);
            break;
        default:
            fuzz_misuse(&st, op, a, b);
            break;
        }
        fuzz_verify(&st);
    }

    while (st.count > 0) {
        fuzz_require(fuzz_free2(&st, st.live[st.count - 1].offset) == SYMH_OK);
        st.count--;
    }
    fuzz_verify(&st);
    fuzz_stats(&st, &stats);
    fuzz_require(stats.used == 0 && stats.allocations == 0 && stats.largest_free == st.size &&
                 stats.free == st.size);
    symh_heap_alloc_destroy(st.twin);
    symh_heap_alloc_destroy(st.alloc);
    return 0;
}
