/* heap: the symmetric heap allocator (heap_alloc.h): exact best fit over exact-size free lists
 * and an AVL tree, a hash map of live blocks, all bookkeeping in host memory outside the heap.
 *
 * Blocks tile [0, size) and each is a record in a table of records (never in the heap): offset,
 * size, its neighbours in address order (coalescing is O(1) once a block is found) and two links
 * whose meaning depends on where the block is indexed:
 *   - a free block of fewer than SYMH_HEAP_ALLOC_SMALL_BINS granules sits in the LIFO list of
 *     its exact size (a "bin"); a bitmap of non-empty bins (64 words under one summary word)
 *     finds the smallest non-empty bin at or above a size in O(1);
 *   - a larger free block sits in an AVL tree keyed by (size, offset): O(log n);
 *   - a live block sits in an open-addressing hash map from offset to record (free, resize and
 *     block_size find it in O(1) expected, and anything that is not the start of a live block
 *     is simply absent from it).
 * Every free block is therefore ordered by size, and the smallest one that fits is found in
 * O(1) (bins) or O(log n) (tree): best fit, ties going to the block most recently put in its bin
 * (bins) or to the lowest offset (tree). No choice depends on where the records live in host
 * memory, so the same calls give the same offsets on every PE.
 *
 * Alignments above the granule: a block of at least size + alignment - granule bytes fits
 * whatever its offset; a smaller one may fit too, depending on its offset. The allocator looks
 * at the first SYMH_HEAP_ALLOC_ALIGN_PROBES blocks in best-fit order, then takes the smallest
 * block that surely fits; only when there is no such block does it look at every remaining
 * candidate (so NO_MEMORY means no free range fits, never "none found quickly"). The padding in
 * front of an aligned block becomes a free block of its own.
 *
 * Bookkeeping failures: records and hash slots grow by doubling (malloc/realloc, amortized O(1))
 * before anything changes, so a failure leaves the allocator as it was. One spare record is kept
 * in reserve for shrinking (the only operation that must not fail); a shrink can report
 * SYMH_ERR_NO_MEMORY only after the record table failed to grow twice in a row. */
#include "heap/heap_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/status.h>

#include "core/core_log.h"

#define SYMH_HEAP_ALLOC_GRANULE_SHIFT 7
/* Free blocks of 1 .. SMALL_BINS - 1 granules (up to 512 KiB) go to exact-size bins. */
#define SYMH_HEAP_ALLOC_SMALL_BINS 4096
#define SYMH_HEAP_ALLOC_BIN_WORDS  (SYMH_HEAP_ALLOC_SMALL_BINS / 64)
#define SYMH_HEAP_ALLOC_NIL        UINT32_MAX
#define SYMH_HEAP_ALLOC_NO_BIN     ((size_t)-1)
/* Aligned allocations: candidates examined before taking a block that surely fits. */
#define SYMH_HEAP_ALLOC_ALIGN_PROBES 16
/* Initial sizes of the record table and of the hash map (both powers of two). */
#define SYMH_HEAP_ALLOC_INITIAL_BLOCKS     64
#define SYMH_HEAP_ALLOC_INITIAL_SLOTS_LOG2 6
#define SYMH_HEAP_ALLOC_INITIAL_SLOTS      ((size_t)1 << SYMH_HEAP_ALLOC_INITIAL_SLOTS_LOG2)
/* AVL height bound used by symh_heap_alloc_check to stop on a corrupted (cyclic) tree. */
#define SYMH_HEAP_ALLOC_MAX_DEPTH 128

_Static_assert(SYMH_HEAP_ALLOC_GRANULE == ((size_t)1 << SYMH_HEAP_ALLOC_GRANULE_SHIFT),
               "granule shift");
_Static_assert(SYMH_HEAP_ALLOC_BIN_WORDS == 64, "one summary word covers the bin bitmap");

typedef enum {
    SYMH_HEAP_BLOCK_SPARE = 0, /* unused record, on the spare list */
    SYMH_HEAP_BLOCK_LIVE,      /* allocated, in the hash map */
    SYMH_HEAP_BLOCK_BIN,       /* free, in the bin of its size */
    SYMH_HEAP_BLOCK_TREE       /* free, in the size tree */
} symh_heap_block_state_t;

typedef struct {
    size_t offset;
    size_t size;
    uint32_t prev; /* neighbours in address order, NIL at either end of the range */
    uint32_t next;
    uint32_t left;  /* bin: previous in the list; tree: left child */
    uint32_t right; /* bin: next in the list; tree: right child; spare: next spare */
    uint8_t state;  /* symh_heap_block_state_t */
    uint8_t height; /* tree: AVL height of the subtree (a leaf is 1) */
} symh_heap_block_t;

typedef struct {
    size_t offset;
    uint32_t block; /* NIL: empty slot */
} symh_heap_slot_t;

struct symh_heap_alloc {
    size_t size;
    size_t used;
    size_t allocations;

    symh_heap_block_t *blocks;
    uint32_t blocks_cap; /* records allocated */
    uint32_t blocks_top; /* records ever handed out; [top, cap) never used yet */
    uint32_t spare_head; /* released records */
    uint32_t spare_count;
    uint32_t first; /* the block at offset 0 */

    symh_heap_slot_t *slots; /* live blocks by offset; at most half full */
    size_t slots_mask;
    unsigned slots_shift; /* 64 - log2(slots) */

    uint32_t tree_root;
    size_t tree_count;

    size_t bin_count;
    uint64_t bin_summary;                          /* bit w: bin_map[w] != 0 */
    uint64_t bin_map[SYMH_HEAP_ALLOC_BIN_WORDS];   /* bit g: bin of g granules non-empty */
    uint32_t bin_head[SYMH_HEAP_ALLOC_SMALL_BINS]; /* index 0 is never used */
};

/* ---- small helpers ------------------------------------------------------------------------ */

static size_t symh_heap_alloc_granules(size_t bytes)
{
    return bytes >> SYMH_HEAP_ALLOC_GRANULE_SHIFT;
}

static int symh_heap_alloc_key_less(size_t size_a, size_t offset_a, size_t size_b, size_t offset_b)
{
    return size_a < size_b || (size_a == size_b && offset_a < offset_b);
}

/* The offset at which `block` would hold `need` bytes aligned to `align`, if it can. */
static int symh_heap_alloc_block_fits(const symh_heap_block_t *block, size_t need, size_t align,
                                      size_t *at)
{
    size_t pad = (align - (block->offset & (align - 1))) & (align - 1);

    if (pad >= block->size || block->size - pad < need)
        return 0;
    *at = block->offset + pad;
    return 1;
}

/* ---- the record table ------------------------------------------------------------------------ */

static uint32_t symh_heap_alloc_blocks_available(const symh_heap_alloc_t *alloc)
{
    return alloc->spare_count + (alloc->blocks_cap - alloc->blocks_top);
}

/* The most records the table may hold: indices are 32-bit (NIL excluded) and the table's bytes
 * must fit a size_t. */
static uint32_t symh_heap_alloc_blocks_limit(void)
{
    size_t by_bytes = SIZE_MAX / sizeof(symh_heap_block_t);

    return by_bytes < SYMH_HEAP_ALLOC_NIL ? (uint32_t)by_bytes : SYMH_HEAP_ALLOC_NIL - 1;
}

/* Makes at least `want` records available. `quiet`: a failure is not worth a log line (the
 * caller can do without). */
static int symh_heap_alloc_blocks_reserve(symh_heap_alloc_t *alloc, uint32_t want, int quiet)
{
    uint32_t limit = symh_heap_alloc_blocks_limit(), cap = alloc->blocks_cap;
    symh_heap_block_t *grown = NULL;

    if (symh_heap_alloc_blocks_available(alloc) >= want)
        return SYMH_OK;
    while (cap - alloc->blocks_top + alloc->spare_count < want && cap < limit)
        cap = cap <= limit / 2 ? cap * 2 : limit;
    if (cap - alloc->blocks_top + alloc->spare_count >= want)
        grown = realloc(alloc->blocks, (size_t)cap * sizeof(*grown));
    if (grown == NULL) {
        if (!quiet)
            symh_error("heap allocator: cannot grow the block table from %u to %u records "
                       "(out of host memory)",
                       alloc->blocks_cap, cap);
        return SYMH_ERR_NO_MEMORY;
    }
    alloc->blocks = grown;
    alloc->blocks_cap = cap;
    return SYMH_OK;
}

static uint32_t symh_heap_alloc_block_new(symh_heap_alloc_t *alloc)
{
    uint32_t n = alloc->spare_head;

    symh_assert(symh_heap_alloc_blocks_available(alloc) > 0);
    if (n != SYMH_HEAP_ALLOC_NIL) {
        alloc->spare_head = alloc->blocks[n].right;
        alloc->spare_count--;
    } else {
        n = alloc->blocks_top++;
    }
    return n;
}

static void symh_heap_alloc_block_release(symh_heap_alloc_t *alloc, uint32_t n)
{
    alloc->blocks[n].state = SYMH_HEAP_BLOCK_SPARE;
    alloc->blocks[n].right = alloc->spare_head;
    alloc->spare_head = n;
    alloc->spare_count++;
}

/* ---- the hash map of live blocks ------------------------------------------------------------- */

static size_t symh_heap_alloc_slot_home(const symh_heap_alloc_t *alloc, size_t offset)
{
    /* Fibonacci hashing of the granule number: consecutive blocks spread over the table. */
    uint64_t h = (uint64_t)symh_heap_alloc_granules(offset) * UINT64_C(0x9E3779B97F4A7C15);

    return (size_t)(h >> alloc->slots_shift);
}

static uint32_t symh_heap_alloc_slot_find(const symh_heap_alloc_t *alloc, size_t offset)
{
    size_t i = symh_heap_alloc_slot_home(alloc, offset);

    while (alloc->slots[i].block != SYMH_HEAP_ALLOC_NIL) {
        if (alloc->slots[i].offset == offset)
            return alloc->slots[i].block;
        i = (i + 1) & alloc->slots_mask;
    }
    return SYMH_HEAP_ALLOC_NIL;
}

static void symh_heap_alloc_slot_insert(symh_heap_alloc_t *alloc, size_t offset, uint32_t block)
{
    size_t i = symh_heap_alloc_slot_home(alloc, offset);

    while (alloc->slots[i].block != SYMH_HEAP_ALLOC_NIL)
        i = (i + 1) & alloc->slots_mask;
    alloc->slots[i].offset = offset;
    alloc->slots[i].block = block;
}

/* Removes a present key, shifting later entries of its probe run back (no tombstones). */
static void symh_heap_alloc_slot_remove(symh_heap_alloc_t *alloc, size_t offset)
{
    size_t i = symh_heap_alloc_slot_home(alloc, offset), j, home;

    while (alloc->slots[i].offset != offset || alloc->slots[i].block == SYMH_HEAP_ALLOC_NIL)
        i = (i + 1) & alloc->slots_mask;
    for (j = i;;) {
        j = (j + 1) & alloc->slots_mask;
        if (alloc->slots[j].block == SYMH_HEAP_ALLOC_NIL)
            break;
        home = symh_heap_alloc_slot_home(alloc, alloc->slots[j].offset);
        /* The entry at j may move to i unless its home lies cyclically in (i, j]. */
        if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
            alloc->slots[i] = alloc->slots[j];
            i = j;
        }
    }
    alloc->slots[i].block = SYMH_HEAP_ALLOC_NIL;
}

static symh_heap_slot_t *symh_heap_alloc_slots_new(size_t count)
{
    symh_heap_slot_t *slots;
    size_t i;

    if (count > SIZE_MAX / sizeof(*slots))
        return NULL;
    slots = malloc(count * sizeof(*slots));
    if (slots == NULL)
        return NULL;
    for (i = 0; i < count; ++i) {
        slots[i].offset = 0;
        slots[i].block = SYMH_HEAP_ALLOC_NIL;
    }
    return slots;
}

/* Room for one more live block, keeping the map at most half full. */
static int symh_heap_alloc_slots_reserve(symh_heap_alloc_t *alloc)
{
    size_t old_count = alloc->slots_mask + 1, new_count = old_count * 2, i;
    symh_heap_slot_t *old = alloc->slots, *grown;

    if ((alloc->allocations + 1) * 2 <= old_count)
        return SYMH_OK;
    grown = new_count > old_count ? symh_heap_alloc_slots_new(new_count) : NULL;
    if (grown == NULL) {
        symh_error("heap allocator: cannot grow the live-block map to %zu slots (out of host "
                   "memory)",
                   new_count);
        return SYMH_ERR_NO_MEMORY;
    }
    alloc->slots = grown;
    alloc->slots_mask = new_count - 1;
    alloc->slots_shift--;
    for (i = 0; i < old_count; ++i)
        if (old[i].block != SYMH_HEAP_ALLOC_NIL)
            symh_heap_alloc_slot_insert(alloc, old[i].offset, old[i].block);
    free(old);
    return SYMH_OK;
}

/* ---- the exact-size bins ------------------------------------------------------------------- */

/* The smallest non-empty bin of at least `from` granules, or NO_BIN. */
static size_t symh_heap_alloc_bin_find(const symh_heap_alloc_t *alloc, size_t from)
{
    size_t word;
    uint64_t bits, summary;

    if (from >= SYMH_HEAP_ALLOC_SMALL_BINS)
        return SYMH_HEAP_ALLOC_NO_BIN;
    word = from / 64;
    bits = alloc->bin_map[word] & (~UINT64_C(0) << (from % 64));
    if (bits != 0)
        return word * 64 + (size_t)__builtin_ctzll(bits);
    summary = word + 1 < SYMH_HEAP_ALLOC_BIN_WORDS
                  ? alloc->bin_summary & (~UINT64_C(0) << (word + 1))
                  : 0;
    if (summary == 0)
        return SYMH_HEAP_ALLOC_NO_BIN;
    word = (size_t)__builtin_ctzll(summary);
    return word * 64 + (size_t)__builtin_ctzll(alloc->bin_map[word]);
}

static void symh_heap_alloc_bin_push(symh_heap_alloc_t *alloc, uint32_t n)
{
    symh_heap_block_t *b = &alloc->blocks[n];
    size_t g = symh_heap_alloc_granules(b->size);
    uint64_t bit = UINT64_C(1) << (g % 64);
    /* The head of an empty bin is stale: only the bitmap says whether the bin has blocks. */
    uint32_t head = (alloc->bin_map[g / 64] & bit) ? alloc->bin_head[g] : SYMH_HEAP_ALLOC_NIL;

    b->state = SYMH_HEAP_BLOCK_BIN;
    b->left = SYMH_HEAP_ALLOC_NIL;
    b->right = head;
    if (head != SYMH_HEAP_ALLOC_NIL)
        alloc->blocks[head].left = n;
    alloc->bin_head[g] = n;
    alloc->bin_map[g / 64] |= bit;
    alloc->bin_summary |= UINT64_C(1) << (g / 64);
    alloc->bin_count++;
}

static void symh_heap_alloc_bin_unlink(symh_heap_alloc_t *alloc, uint32_t n)
{
    symh_heap_block_t *b = &alloc->blocks[n];
    size_t g = symh_heap_alloc_granules(b->size);

    if (b->left != SYMH_HEAP_ALLOC_NIL)
        alloc->blocks[b->left].right = b->right;
    else
        alloc->bin_head[g] = b->right;
    if (b->right != SYMH_HEAP_ALLOC_NIL)
        alloc->blocks[b->right].left = b->left;
    if (alloc->bin_head[g] == SYMH_HEAP_ALLOC_NIL) {
        alloc->bin_map[g / 64] &= ~(UINT64_C(1) << (g % 64));
        if (alloc->bin_map[g / 64] == 0)
            alloc->bin_summary &= ~(UINT64_C(1) << (g / 64));
    }
    alloc->bin_count--;
}

/* ---- the AVL tree of large free blocks, keyed by (size, offset) ------------------------------ */

static unsigned symh_heap_alloc_tree_height(const symh_heap_block_t *blocks, uint32_t n)
{
    return n == SYMH_HEAP_ALLOC_NIL ? 0 : blocks[n].height;
}

static void symh_heap_alloc_tree_fix_height(symh_heap_block_t *blocks, uint32_t n)
{
    unsigned hl = symh_heap_alloc_tree_height(blocks, blocks[n].left),
             hr = symh_heap_alloc_tree_height(blocks, blocks[n].right);

    blocks[n].height = (uint8_t)(1 + (hl > hr ? hl : hr));
}

static uint32_t symh_heap_alloc_tree_rotate_right(symh_heap_block_t *blocks, uint32_t n)
{
    uint32_t l = blocks[n].left;

    blocks[n].left = blocks[l].right;
    blocks[l].right = n;
    symh_heap_alloc_tree_fix_height(blocks, n);
    symh_heap_alloc_tree_fix_height(blocks, l);
    return l;
}

static uint32_t symh_heap_alloc_tree_rotate_left(symh_heap_block_t *blocks, uint32_t n)
{
    uint32_t r = blocks[n].right;

    blocks[n].right = blocks[r].left;
    blocks[r].left = n;
    symh_heap_alloc_tree_fix_height(blocks, n);
    symh_heap_alloc_tree_fix_height(blocks, r);
    return r;
}

static uint32_t symh_heap_alloc_tree_balance(symh_heap_block_t *blocks, uint32_t n)
{
    uint32_t l = blocks[n].left, r = blocks[n].right;
    unsigned hl = symh_heap_alloc_tree_height(blocks, l),
             hr = symh_heap_alloc_tree_height(blocks, r);

    if (hl > hr + 1) {
        if (symh_heap_alloc_tree_height(blocks, blocks[l].left) <
            symh_heap_alloc_tree_height(blocks, blocks[l].right))
            blocks[n].left = symh_heap_alloc_tree_rotate_left(blocks, l);
        return symh_heap_alloc_tree_rotate_right(blocks, n);
    }
    if (hr > hl + 1) {
        if (symh_heap_alloc_tree_height(blocks, blocks[r].right) <
            symh_heap_alloc_tree_height(blocks, blocks[r].left))
            blocks[n].right = symh_heap_alloc_tree_rotate_right(blocks, r);
        return symh_heap_alloc_tree_rotate_left(blocks, n);
    }
    symh_heap_alloc_tree_fix_height(blocks, n);
    return n;
}

static uint32_t symh_heap_alloc_tree_insert(symh_heap_block_t *blocks, uint32_t root, uint32_t n)
{
    if (root == SYMH_HEAP_ALLOC_NIL) {
        blocks[n].left = blocks[n].right = SYMH_HEAP_ALLOC_NIL;
        blocks[n].height = 1;
        return n;
    }
    if (symh_heap_alloc_key_less(blocks[n].size, blocks[n].offset, blocks[root].size,
                                 blocks[root].offset))
        blocks[root].left = symh_heap_alloc_tree_insert(blocks, blocks[root].left, n);
    else
        blocks[root].right = symh_heap_alloc_tree_insert(blocks, blocks[root].right, n);
    return symh_heap_alloc_tree_balance(blocks, root);
}

static uint32_t symh_heap_alloc_tree_remove_min(symh_heap_block_t *blocks, uint32_t root,
                                                uint32_t *min)
{
    if (blocks[root].left == SYMH_HEAP_ALLOC_NIL) {
        *min = root;
        return blocks[root].right;
    }
    blocks[root].left = symh_heap_alloc_tree_remove_min(blocks, blocks[root].left, min);
    return symh_heap_alloc_tree_balance(blocks, root);
}

/* Removes `n`, which is in the subtree at `root`. */
static uint32_t symh_heap_alloc_tree_remove(symh_heap_block_t *blocks, uint32_t root, uint32_t n)
{
    uint32_t min, right;

    symh_assert(root != SYMH_HEAP_ALLOC_NIL);
    if (root == n) {
        if (blocks[n].left == SYMH_HEAP_ALLOC_NIL)
            return blocks[n].right;
        if (blocks[n].right == SYMH_HEAP_ALLOC_NIL)
            return blocks[n].left;
        right = symh_heap_alloc_tree_remove_min(blocks, blocks[n].right, &min);
        blocks[min].left = blocks[n].left;
        blocks[min].right = right;
        return symh_heap_alloc_tree_balance(blocks, min);
    }
    if (symh_heap_alloc_key_less(blocks[n].size, blocks[n].offset, blocks[root].size,
                                 blocks[root].offset))
        blocks[root].left = symh_heap_alloc_tree_remove(blocks, blocks[root].left, n);
    else
        blocks[root].right = symh_heap_alloc_tree_remove(blocks, blocks[root].right, n);
    return symh_heap_alloc_tree_balance(blocks, root);
}

/* The first block with key >= (size, offset), or NIL. */
static uint32_t symh_heap_alloc_tree_lower_bound(const symh_heap_alloc_t *alloc, size_t size,
                                                 size_t offset)
{
    const symh_heap_block_t *blocks = alloc->blocks;
    uint32_t n = alloc->tree_root, best = SYMH_HEAP_ALLOC_NIL;

    while (n != SYMH_HEAP_ALLOC_NIL) {
        if (symh_heap_alloc_key_less(blocks[n].size, blocks[n].offset, size, offset)) {
            n = blocks[n].right;
        } else {
            best = n;
            n = blocks[n].left;
        }
    }
    return best;
}

/* ---- the free index: bins and tree together ---------------------------------------------- */

static void symh_heap_alloc_free_insert(symh_heap_alloc_t *alloc, uint32_t n)
{
    if (symh_heap_alloc_granules(alloc->blocks[n].size) < SYMH_HEAP_ALLOC_SMALL_BINS) {
        symh_heap_alloc_bin_push(alloc, n);
        return;
    }
    alloc->blocks[n].state = SYMH_HEAP_BLOCK_TREE;
    alloc->tree_root = symh_heap_alloc_tree_insert(alloc->blocks, alloc->tree_root, n);
    alloc->tree_count++;
}

static void symh_heap_alloc_free_remove(symh_heap_alloc_t *alloc, uint32_t n)
{
    if (alloc->blocks[n].state == SYMH_HEAP_BLOCK_BIN) {
        symh_heap_alloc_bin_unlink(alloc, n);
        return;
    }
    symh_assert(alloc->blocks[n].state == SYMH_HEAP_BLOCK_TREE);
    alloc->tree_root = symh_heap_alloc_tree_remove(alloc->blocks, alloc->tree_root, n);
    alloc->tree_count--;
}

/* The first free block of at least `size` bytes in best-fit order, or NIL. */
static uint32_t symh_heap_alloc_free_first_at_least(const symh_heap_alloc_t *alloc, size_t size)
{
    size_t bin = symh_heap_alloc_bin_find(alloc, symh_heap_alloc_granules(size));

    if (bin != SYMH_HEAP_ALLOC_NO_BIN)
        return alloc->bin_head[bin];
    return symh_heap_alloc_tree_lower_bound(alloc, size, 0);
}

/* The free block after `n` in best-fit order (size, then bin order or offset), or NIL. */
static uint32_t symh_heap_alloc_free_next(const symh_heap_alloc_t *alloc, uint32_t n)
{
    const symh_heap_block_t *b = &alloc->blocks[n];
    size_t bin;

    if (b->state == SYMH_HEAP_BLOCK_TREE)
        return symh_heap_alloc_tree_lower_bound(alloc, b->size, b->offset + 1);
    if (b->right != SYMH_HEAP_ALLOC_NIL)
        return b->right;
    bin = symh_heap_alloc_bin_find(alloc, symh_heap_alloc_granules(b->size) + 1);
    if (bin != SYMH_HEAP_ALLOC_NO_BIN)
        return alloc->bin_head[bin];
    return symh_heap_alloc_tree_lower_bound(alloc, 0, 0);
}

static size_t symh_heap_alloc_largest_free(const symh_heap_alloc_t *alloc)
{
    uint32_t n = alloc->tree_root;
    size_t word;

    if (n != SYMH_HEAP_ALLOC_NIL) {
        while (alloc->blocks[n].right != SYMH_HEAP_ALLOC_NIL)
            n = alloc->blocks[n].right;
        return alloc->blocks[n].size;
    }
    if (alloc->bin_summary == 0)
        return 0;
    word = 63 - (size_t)__builtin_clzll(alloc->bin_summary);
    return (word * 64 + 63 - (size_t)__builtin_clzll(alloc->bin_map[word]))
           << SYMH_HEAP_ALLOC_GRANULE_SHIFT;
}

/* The best free block for `need` bytes at `align` and the offset in it, or NIL. */
static uint32_t symh_heap_alloc_find_fit(const symh_heap_alloc_t *alloc, size_t need, size_t align,
                                         size_t *at)
{
    uint32_t n = symh_heap_alloc_free_first_at_least(alloc, need), sure;
    size_t slack = align - SYMH_HEAP_ALLOC_GRANULE;
    unsigned probes;

    if (n == SYMH_HEAP_ALLOC_NIL || slack == 0) {
        if (n != SYMH_HEAP_ALLOC_NIL)
            *at = alloc->blocks[n].offset;
        return n;
    }
    for (probes = 0; n != SYMH_HEAP_ALLOC_NIL && probes < SYMH_HEAP_ALLOC_ALIGN_PROBES; ++probes) {
        if (symh_heap_alloc_block_fits(&alloc->blocks[n], need, align, at))
            return n;
        n = symh_heap_alloc_free_next(alloc, n);
    }
    if (n == SYMH_HEAP_ALLOC_NIL)
        return n;
    /* Offsets are granule multiples, so the padding is at most align - granule. */
    if (need <= SIZE_MAX - slack) {
        sure = symh_heap_alloc_free_first_at_least(alloc, need + slack);
        if (sure != SYMH_HEAP_ALLOC_NIL &&
            symh_heap_alloc_block_fits(&alloc->blocks[sure], need, align, at))
            return sure;
    }
    /* Nothing is that large: the rest are all candidates, and one may still fit. */
    for (; n != SYMH_HEAP_ALLOC_NIL; n = symh_heap_alloc_free_next(alloc, n))
        if (symh_heap_alloc_block_fits(&alloc->blocks[n], need, align, at))
            return n;
    return SYMH_HEAP_ALLOC_NIL;
}

/* ---- address-order list -------------------------------------------------------------------- */

/* Puts the unlinked record `n` right before `at` in address order. */
static void symh_heap_alloc_link_before(symh_heap_alloc_t *alloc, uint32_t n, uint32_t at)
{
    symh_heap_block_t *blocks = alloc->blocks;

    blocks[n].prev = blocks[at].prev;
    blocks[n].next = at;
    if (blocks[at].prev != SYMH_HEAP_ALLOC_NIL)
        blocks[blocks[at].prev].next = n;
    else
        alloc->first = n;
    blocks[at].prev = n;
}

static void symh_heap_alloc_link_after(symh_heap_alloc_t *alloc, uint32_t n, uint32_t at)
{
    symh_heap_block_t *blocks = alloc->blocks;

    blocks[n].next = blocks[at].next;
    blocks[n].prev = at;
    if (blocks[at].next != SYMH_HEAP_ALLOC_NIL)
        blocks[blocks[at].next].prev = n;
    blocks[at].next = n;
}

static void symh_heap_alloc_unlink_block(symh_heap_alloc_t *alloc, uint32_t n)
{
    symh_heap_block_t *blocks = alloc->blocks;

    if (blocks[n].prev != SYMH_HEAP_ALLOC_NIL)
        blocks[blocks[n].prev].next = blocks[n].next;
    else
        alloc->first = blocks[n].next;
    if (blocks[n].next != SYMH_HEAP_ALLOC_NIL)
        blocks[blocks[n].next].prev = blocks[n].prev;
}

/* A new free block [offset, offset + size) next to `at`, indexed. */
static void symh_heap_alloc_split_off(symh_heap_alloc_t *alloc, uint32_t at, size_t offset,
                                      size_t size, int before)
{
    uint32_t n = symh_heap_alloc_block_new(alloc);

    alloc->blocks[n].offset = offset;
    alloc->blocks[n].size = size;
    if (before)
        symh_heap_alloc_link_before(alloc, n, at);
    else
        symh_heap_alloc_link_after(alloc, n, at);
    symh_heap_alloc_free_insert(alloc, n);
}

/* ---- the interface ------------------------------------------------------------------------ */

int symh_heap_alloc_create(size_t size, symh_heap_alloc_t **alloc)
{
    symh_heap_alloc_t *a;
    size_t i;

    if (alloc == NULL)
        return SYMH_ERR_INVALID_ARG;
    size &= ~(SYMH_HEAP_ALLOC_GRANULE - 1);
    if (size == 0)
        return SYMH_ERR_INVALID_ARG;

    a = calloc(1, sizeof(*a));
    if (a == NULL)
        goto err_nomem;
    a->blocks = malloc(SYMH_HEAP_ALLOC_INITIAL_BLOCKS * sizeof(*a->blocks));
    if (a->blocks == NULL)
        goto err_free_alloc;
    a->slots = symh_heap_alloc_slots_new(SYMH_HEAP_ALLOC_INITIAL_SLOTS);
    if (a->slots == NULL)
        goto err_free_blocks;

    a->size = size;
    a->blocks_cap = SYMH_HEAP_ALLOC_INITIAL_BLOCKS;
    a->spare_head = SYMH_HEAP_ALLOC_NIL;
    a->slots_mask = SYMH_HEAP_ALLOC_INITIAL_SLOTS - 1;
    a->slots_shift = 64 - SYMH_HEAP_ALLOC_INITIAL_SLOTS_LOG2;
    a->tree_root = SYMH_HEAP_ALLOC_NIL;
    for (i = 0; i < SYMH_HEAP_ALLOC_SMALL_BINS; ++i)
        a->bin_head[i] = SYMH_HEAP_ALLOC_NIL;

    a->first = symh_heap_alloc_block_new(a);
    a->blocks[a->first].offset = 0;
    a->blocks[a->first].size = size;
    a->blocks[a->first].prev = a->blocks[a->first].next = SYMH_HEAP_ALLOC_NIL;
    symh_heap_alloc_free_insert(a, a->first);
    symh_assert_expensive(symh_heap_alloc_check(a) == SYMH_OK);
    *alloc = a;
    return SYMH_OK;

err_free_blocks:
    free(a->blocks);
err_free_alloc:
    free(a);
err_nomem:
    symh_error("heap allocator: no host memory for the bookkeeping of a %zu-byte heap", size);
    return SYMH_ERR_NO_MEMORY;
}

void symh_heap_alloc_destroy(symh_heap_alloc_t *alloc)
{
    if (alloc == NULL)
        return;
    free(alloc->slots);
    free(alloc->blocks);
    free(alloc);
}

int symh_heap_alloc_alloc(symh_heap_alloc_t *alloc, size_t size, size_t alignment, size_t *offset)
{
    size_t need, align, at = 0, head, tail;
    uint32_t n;
    int status;

    if (alloc == NULL || offset == NULL || size == 0 ||
        size > SIZE_MAX - (SYMH_HEAP_ALLOC_GRANULE - 1) || alignment == 0 ||
        (alignment & (alignment - 1)) != 0)
        return SYMH_ERR_INVALID_ARG;
    need = (size + SYMH_HEAP_ALLOC_GRANULE - 1) & ~(SYMH_HEAP_ALLOC_GRANULE - 1);
    align = alignment > SYMH_HEAP_ALLOC_GRANULE ? alignment : SYMH_HEAP_ALLOC_GRANULE;
    if (need > alloc->size - alloc->used)
        return SYMH_ERR_NO_MEMORY;

    n = symh_heap_alloc_find_fit(alloc, need, align, &at);
    if (n == SYMH_HEAP_ALLOC_NIL)
        return SYMH_ERR_NO_MEMORY;
    head = at - alloc->blocks[n].offset;
    tail = alloc->blocks[n].size - head - need;
    /* Grow the bookkeeping first: past this point nothing can fail. One record stays spare
     * (see the top of the file). */
    status = symh_heap_alloc_blocks_reserve(alloc, 1 + (head != 0) + (tail != 0), 0);
    if (status != SYMH_OK)
        return status;
    status = symh_heap_alloc_slots_reserve(alloc);
    if (status != SYMH_OK)
        return status;

    symh_heap_alloc_free_remove(alloc, n);
    if (head != 0)
        symh_heap_alloc_split_off(alloc, n, alloc->blocks[n].offset, head, 1);
    if (tail != 0)
        symh_heap_alloc_split_off(alloc, n, at + need, tail, 0);
    alloc->blocks[n].offset = at;
    alloc->blocks[n].size = need;
    alloc->blocks[n].state = SYMH_HEAP_BLOCK_LIVE;
    symh_heap_alloc_slot_insert(alloc, at, n);
    alloc->used += need;
    alloc->allocations++;
    symh_assert_expensive(symh_heap_alloc_check(alloc) == SYMH_OK);
    *offset = at;
    return SYMH_OK;
}

int symh_heap_alloc_free(symh_heap_alloc_t *alloc, size_t offset)
{
    symh_heap_block_t *blocks;
    uint32_t n, prev, next;

    if (alloc == NULL)
        return SYMH_ERR_INVALID_ARG;
    n = symh_heap_alloc_slot_find(alloc, offset);
    if (n == SYMH_HEAP_ALLOC_NIL)
        return SYMH_ERR_NOT_REGISTERED;
    symh_heap_alloc_slot_remove(alloc, offset);
    blocks = alloc->blocks;
    alloc->used -= blocks[n].size;
    alloc->allocations--;

    prev = blocks[n].prev;
    if (prev != SYMH_HEAP_ALLOC_NIL && blocks[prev].state != SYMH_HEAP_BLOCK_LIVE) {
        symh_heap_alloc_free_remove(alloc, prev);
        blocks[prev].size += blocks[n].size;
        symh_heap_alloc_unlink_block(alloc, n);
        symh_heap_alloc_block_release(alloc, n);
        n = prev;
    }
    next = blocks[n].next;
    if (next != SYMH_HEAP_ALLOC_NIL && blocks[next].state != SYMH_HEAP_BLOCK_LIVE) {
        symh_heap_alloc_free_remove(alloc, next);
        blocks[n].size += blocks[next].size;
        symh_heap_alloc_unlink_block(alloc, next);
        symh_heap_alloc_block_release(alloc, next);
    }
    symh_heap_alloc_free_insert(alloc, n);
    symh_assert_expensive(symh_heap_alloc_check(alloc) == SYMH_OK);
    return SYMH_OK;
}

int symh_heap_alloc_block_size(const symh_heap_alloc_t *alloc, size_t offset, size_t *size)
{
    uint32_t n;

    if (alloc == NULL || size == NULL)
        return SYMH_ERR_INVALID_ARG;
    n = symh_heap_alloc_slot_find(alloc, offset);
    if (n == SYMH_HEAP_ALLOC_NIL)
        return SYMH_ERR_NOT_REGISTERED;
    *size = alloc->blocks[n].size;
    return SYMH_OK;
}

int symh_heap_alloc_resize(symh_heap_alloc_t *alloc, size_t offset, size_t new_size)
{
    symh_heap_block_t *blocks;
    size_t need, old, delta;
    uint32_t n, next;

    if (alloc == NULL || new_size == 0 || new_size > SIZE_MAX - (SYMH_HEAP_ALLOC_GRANULE - 1))
        return SYMH_ERR_INVALID_ARG;
    n = symh_heap_alloc_slot_find(alloc, offset);
    if (n == SYMH_HEAP_ALLOC_NIL)
        return SYMH_ERR_NOT_REGISTERED;
    need = (new_size + SYMH_HEAP_ALLOC_GRANULE - 1) & ~(SYMH_HEAP_ALLOC_GRANULE - 1);
    blocks = alloc->blocks;
    old = blocks[n].size;
    next = blocks[n].next;
    if (next != SYMH_HEAP_ALLOC_NIL && blocks[next].state == SYMH_HEAP_BLOCK_LIVE)
        next = SYMH_HEAP_ALLOC_NIL; /* from here on: the free block right after, if any */

    if (need > old) {
        delta = need - old;
        if (next == SYMH_HEAP_ALLOC_NIL || blocks[next].size < delta)
            return SYMH_ERR_NO_MEMORY;
        symh_heap_alloc_free_remove(alloc, next);
        if (blocks[next].size == delta) {
            symh_heap_alloc_unlink_block(alloc, next);
            symh_heap_alloc_block_release(alloc, next);
        } else {
            blocks[next].offset += delta;
            blocks[next].size -= delta;
            symh_heap_alloc_free_insert(alloc, next);
        }
        blocks[n].size = need;
        alloc->used += delta;
        symh_assert_expensive(symh_heap_alloc_check(alloc) == SYMH_OK);
        return SYMH_OK;
    }
    if (need < old) {
        delta = old - need;
        if (next != SYMH_HEAP_ALLOC_NIL) {
            symh_heap_alloc_free_remove(alloc, next);
            blocks[next].offset -= delta;
            blocks[next].size += delta;
            symh_heap_alloc_free_insert(alloc, next);
        } else {
            /* Shrinking must not fail: use the spare record, and try to replace it. */
            (void)symh_heap_alloc_blocks_reserve(alloc, 2, 1);
            if (symh_heap_alloc_blocks_reserve(alloc, 1, 0) != SYMH_OK)
                return SYMH_ERR_NO_MEMORY;
            blocks = alloc->blocks;
            symh_heap_alloc_split_off(alloc, n, offset + need, delta, 0);
        }
        blocks[n].size = need;
        alloc->used -= delta;
    }
    symh_assert_expensive(symh_heap_alloc_check(alloc) == SYMH_OK);
    return SYMH_OK;
}

void symh_heap_alloc_stats(const symh_heap_alloc_t *alloc, symh_heap_alloc_stats_t *stats)
{
    if (stats == NULL)
        return;
    if (alloc == NULL) {
        memset(stats, 0, sizeof(*stats));
        return;
    }
    stats->size = alloc->size;
    stats->used = alloc->used;
    stats->free = alloc->size - alloc->used;
    stats->largest_free = symh_heap_alloc_largest_free(alloc);
    stats->allocations = alloc->allocations;
}

/* ---- check ------------------------------------------------------------------------------- */

/* What the walk of the address list counted, for the checks of the indexes that follow it. */
typedef struct {
    uint32_t blocks;   /* records in the address list */
    size_t used;       /* bytes held by live blocks */
    size_t live;       /* live blocks */
    size_t free_small; /* free blocks of bin sizes */
    size_t free_large; /* free blocks of tree sizes */
} symh_heap_alloc_tally_t;

/* Checks the state of block `n`, which follows `prev` in address order, against its neighbour
 * and its index, and counts it. */
static int symh_heap_alloc_check_block(const symh_heap_alloc_t *alloc, uint32_t n, uint32_t prev,
                                       symh_heap_alloc_tally_t *tally)
{
    const symh_heap_block_t *blocks = alloc->blocks, *b = &blocks[n];

    switch (b->state) {
    case SYMH_HEAP_BLOCK_LIVE:
        tally->used += b->size;
        tally->live++;
        if (symh_heap_alloc_slot_find(alloc, b->offset) != n) {
            symh_error("heap allocator check: live block at offset %zu is not in the map",
                       b->offset);
            return SYMH_ERR_SYSTEM;
        }
        return SYMH_OK;
    case SYMH_HEAP_BLOCK_BIN:
    case SYMH_HEAP_BLOCK_TREE:
        if (prev != SYMH_HEAP_ALLOC_NIL && blocks[prev].state != SYMH_HEAP_BLOCK_LIVE) {
            symh_error("heap allocator check: free blocks at offsets %zu and %zu are "
                       "adjacent (not coalesced)",
                       blocks[prev].offset, b->offset);
            return SYMH_ERR_SYSTEM;
        }
        if ((symh_heap_alloc_granules(b->size) < SYMH_HEAP_ALLOC_SMALL_BINS) !=
            (b->state == SYMH_HEAP_BLOCK_BIN)) {
            symh_error("heap allocator check: free block at offset %zu (size %zu) is in the "
                       "wrong index",
                       b->offset, b->size);
            return SYMH_ERR_SYSTEM;
        }
        if (b->state == SYMH_HEAP_BLOCK_BIN)
            tally->free_small++;
        else
            tally->free_large++;
        return SYMH_OK;
    default:
        symh_error("heap allocator check: spare record %u is in the address list", n);
        return SYMH_ERR_SYSTEM;
    }
}

/* The blocks tile [0, size) in address order, with no two free blocks side by side, and the
 * live ones agree with the stats. Fills `tally` for the checks that follow. */
static int symh_heap_alloc_check_address_list(const symh_heap_alloc_t *alloc,
                                              symh_heap_alloc_tally_t *tally)
{
    const symh_heap_block_t *b;
    size_t end = 0;
    uint32_t n, prev = SYMH_HEAP_ALLOC_NIL;

    memset(tally, 0, sizeof(*tally));
    for (n = alloc->first; n != SYMH_HEAP_ALLOC_NIL; prev = n, n = b->next) {
        if (n >= alloc->blocks_top || ++tally->blocks > alloc->blocks_top) {
            symh_error("heap allocator check: address list runs through record %u (of %u)", n,
                       alloc->blocks_top);
            return SYMH_ERR_SYSTEM;
        }
        b = &alloc->blocks[n];
        if (b->prev != prev || b->offset != end || b->size == 0 ||
            b->size % SYMH_HEAP_ALLOC_GRANULE != 0 || b->size > alloc->size - end) {
            symh_error("heap allocator check: block at offset %zu (size %zu) does not follow "
                       "the block that ends at %zu, or has a bad size or back link",
                       b->offset, b->size, end);
            return SYMH_ERR_SYSTEM;
        }
        end += b->size;
        if (symh_heap_alloc_check_block(alloc, n, prev, tally) != SYMH_OK)
            return SYMH_ERR_SYSTEM;
    }
    if (end != alloc->size) {
        symh_error("heap allocator check: the blocks cover %zu bytes of %zu", end, alloc->size);
        return SYMH_ERR_SYSTEM;
    }
    if (tally->used != alloc->used || tally->live != alloc->allocations) {
        symh_error("heap allocator check: live blocks hold %zu bytes in %zu blocks, stats say "
                   "%zu bytes in %zu",
                   tally->used, tally->live, alloc->used, alloc->allocations);
        return SYMH_ERR_SYSTEM;
    }
    return SYMH_OK;
}

/* The map holds exactly the `live` live blocks, and is at most half full. */
static int symh_heap_alloc_check_map(const symh_heap_alloc_t *alloc, size_t live)
{
    size_t count = 0, i;
    uint32_t n;

    for (i = 0; i <= alloc->slots_mask; ++i) {
        n = alloc->slots[i].block;
        if (n == SYMH_HEAP_ALLOC_NIL)
            continue;
        count++;
        if (n >= alloc->blocks_top || alloc->blocks[n].state != SYMH_HEAP_BLOCK_LIVE ||
            alloc->blocks[n].offset != alloc->slots[i].offset) {
            symh_error("heap allocator check: map slot %zu (offset %zu) names record %u, not "
                       "that live block",
                       i, alloc->slots[i].offset, n);
            return SYMH_ERR_SYSTEM;
        }
    }
    if (count != live || count * 2 > alloc->slots_mask + 1) {
        symh_error("heap allocator check: the map holds %zu entries for %zu live blocks in %zu "
                   "slots",
                   count, live, alloc->slots_mask + 1);
        return SYMH_ERR_SYSTEM;
    }
    return SYMH_OK;
}

/* The marked bin of `g` granules is a well-linked list of free blocks of that size; adds them to
 * `count`, which may not pass `free_small` (so a cyclic list stops). */
static int symh_heap_alloc_check_bin(const symh_heap_alloc_t *alloc, size_t g, size_t free_small,
                                     size_t *count)
{
    const symh_heap_block_t *blocks = alloc->blocks;
    uint32_t n = alloc->bin_head[g], before = SYMH_HEAP_ALLOC_NIL;

    if (n == SYMH_HEAP_ALLOC_NIL) {
        symh_error("heap allocator check: the bin of %zu granules is marked but empty", g);
        return SYMH_ERR_SYSTEM;
    }
    for (; n != SYMH_HEAP_ALLOC_NIL; before = n, n = blocks[n].right) {
        if (n >= alloc->blocks_top || ++*count > free_small ||
            blocks[n].state != SYMH_HEAP_BLOCK_BIN ||
            symh_heap_alloc_granules(blocks[n].size) != g || blocks[n].left != before) {
            symh_error("heap allocator check: the bin of %zu granules holds record %u, "
                       "which is not a free block of that size, or its links are broken",
                       g, n);
            return SYMH_ERR_SYSTEM;
        }
    }
    return SYMH_OK;
}

/* The bitmaps say which bins are non-empty (a head under a clear bit is never read), and the
 * non-empty bins hold free blocks of their size only, each once: with the count, exactly the
 * `free_small` small free blocks. */
static int symh_heap_alloc_check_bins(const symh_heap_alloc_t *alloc, size_t free_small)
{
    size_t count = 0, i;

    for (i = 0; i < SYMH_HEAP_ALLOC_BIN_WORDS; ++i) {
        uint64_t bits = alloc->bin_map[i];

        if (((alloc->bin_summary >> i) & 1) != (bits != 0) || (i == 0 && (bits & 1))) {
            symh_error("heap allocator check: the summary bitmap disagrees with bitmap word %zu",
                       i);
            return SYMH_ERR_SYSTEM;
        }
        for (; bits != 0; bits &= bits - 1)
            if (symh_heap_alloc_check_bin(alloc, i * 64 + (size_t)__builtin_ctzll(bits), free_small,
                                          &count) != SYMH_OK)
                return SYMH_ERR_SYSTEM;
    }
    if (count != free_small || alloc->bin_count != free_small) {
        symh_error("heap allocator check: the bins hold %zu blocks (count %zu), the address "
                   "list has %zu small free blocks",
                   count, alloc->bin_count, free_small);
        return SYMH_ERR_SYSTEM;
    }
    return SYMH_OK;
}

/* Checks the subtree at `n` (keys strictly between the bounds, AVL heights right); returns its
 * height, or -1 after logging what broke. */
static int symh_heap_alloc_check_subtree(const symh_heap_alloc_t *alloc, uint32_t n,
                                         const symh_heap_block_t *lo, const symh_heap_block_t *hi,
                                         unsigned depth, size_t *count)
{
    const symh_heap_block_t *b;
    int hl, hr;

    if (n == SYMH_HEAP_ALLOC_NIL)
        return 0;
    if (depth > SYMH_HEAP_ALLOC_MAX_DEPTH || n >= alloc->blocks_top) {
        symh_error("heap allocator check: size tree too deep or record %u out of range", n);
        return -1;
    }
    b = &alloc->blocks[n];
    if (b->state != SYMH_HEAP_BLOCK_TREE ||
        (lo != NULL && !symh_heap_alloc_key_less(lo->size, lo->offset, b->size, b->offset)) ||
        (hi != NULL && !symh_heap_alloc_key_less(b->size, b->offset, hi->size, hi->offset))) {
        symh_error("heap allocator check: size tree: block at offset %zu (size %zu, state %u) "
                   "out of order or not a tree block",
                   b->offset, b->size, (unsigned)b->state);
        return -1;
    }
    (*count)++;
    hl = symh_heap_alloc_check_subtree(alloc, b->left, lo, b, depth + 1, count);
    if (hl < 0)
        return -1;
    hr = symh_heap_alloc_check_subtree(alloc, b->right, b, hi, depth + 1, count);
    if (hr < 0)
        return -1;
    if (b->height != 1 + (hl > hr ? hl : hr) || hl > hr + 1 || hr > hl + 1) {
        symh_error("heap allocator check: size tree: block at offset %zu has height %u, "
                   "children %d and %d",
                   b->offset, (unsigned)b->height, hl, hr);
        return -1;
    }
    return b->height;
}

/* The size tree is an AVL tree of exactly the `free_large` large free blocks. */
static int symh_heap_alloc_check_tree(const symh_heap_alloc_t *alloc, size_t free_large)
{
    size_t count = 0;

    if (symh_heap_alloc_check_subtree(alloc, alloc->tree_root, NULL, NULL, 0, &count) < 0)
        return SYMH_ERR_SYSTEM;
    if (count != free_large || alloc->tree_count != free_large) {
        symh_error("heap allocator check: the size tree holds %zu blocks (count %zu), the "
                   "address list has %zu large free blocks",
                   count, alloc->tree_count, free_large);
        return SYMH_ERR_SYSTEM;
    }
    return SYMH_OK;
}

/* Every record is one of the `blocks` blocks or spare, and one spare is kept for shrinking. */
static int symh_heap_alloc_check_spares(const symh_heap_alloc_t *alloc, uint32_t blocks)
{
    size_t count = 0;
    uint32_t n;

    for (n = alloc->spare_head; n != SYMH_HEAP_ALLOC_NIL; n = alloc->blocks[n].right) {
        if (n >= alloc->blocks_top || ++count > alloc->spare_count ||
            alloc->blocks[n].state != SYMH_HEAP_BLOCK_SPARE) {
            symh_error("heap allocator check: spare list runs through record %u", n);
            return SYMH_ERR_SYSTEM;
        }
    }
    if (count != alloc->spare_count || blocks + count != alloc->blocks_top ||
        alloc->blocks_top > alloc->blocks_cap) {
        symh_error("heap allocator check: %u blocks and %zu spare records, %u records handed "
                   "out of %u",
                   blocks, count, alloc->blocks_top, alloc->blocks_cap);
        return SYMH_ERR_SYSTEM;
    }
    return SYMH_OK;
}

/* The address list first (it counts what each index must hold), then each index against it. */
int symh_heap_alloc_check(const symh_heap_alloc_t *alloc)
{
    symh_heap_alloc_tally_t tally;

    if (alloc == NULL)
        return SYMH_ERR_INVALID_ARG;
    if (symh_heap_alloc_check_address_list(alloc, &tally) != SYMH_OK ||
        symh_heap_alloc_check_map(alloc, tally.live) != SYMH_OK ||
        symh_heap_alloc_check_bins(alloc, tally.free_small) != SYMH_OK ||
        symh_heap_alloc_check_tree(alloc, tally.free_large) != SYMH_OK ||
        symh_heap_alloc_check_spares(alloc, tally.blocks) != SYMH_OK)
        return SYMH_ERR_SYSTEM;
    return SYMH_OK;
}
