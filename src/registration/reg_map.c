/* registration: the interval map of reg_map.h: an AVL tree of non-overlapping ranges keyed by
 * base, in a table of records, under one reader-writer lock (docs/registry.md).
 *
 * Records: record i is nodes[i] (what the descent reads: base and children, 16 bytes),
 * entries[i] (the entry as given; read once the range is found) and heights[i] (writers only).
 * Released records form a free list through `left`. The table grows by doubling (amortized
 * O(1)) before anything changes, so a failed insert leaves the map as it was; nothing else
 * allocates. `scratch` (one index per record) lets remove_if rebuild the
 * tree in O(n) without allocating.
 *
 * Because ranges never overlap, ordering by base also orders them by end: the range holding
 * `addr` can only be the one with the greatest base <= addr, found in one descent, and an insert
 * can only collide with its predecessor or its successor by base.
 *
 * Locking: lookup and count take the lock shared; insert, remove and remove_if exclusive. The
 * lock prefers writers, so a stream of lookups cannot starve an unregister. */
#include "registration/reg_map.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <symheap/status.h>

#include "core/core_log.h"

#define SYMH_REG_MAP_NIL          UINT32_MAX
#define SYMH_REG_MAP_INITIAL_LOG2 6
#define SYMH_REG_MAP_INITIAL      ((uint32_t)1 << SYMH_REG_MAP_INITIAL_LOG2)
#define SYMH_REG_MAP_MAX_DEPTH    128 /* check(): stops on a corrupted (cyclic) tree */
#define SYMH_REG_MAP_MAX_RECORDS  (SYMH_REG_MAP_NIL - 1)

/* What a lookup's descent reads, and nothing more: 16 bytes, so that the nodes of 1e6 ranges
 * (16 MiB) stay in a server's last-level cache. The end of a range is read from its entry once
 * the descent is over; heights only matter to writers and live apart. */
typedef struct {
    uintptr_t base;
    uint32_t left;
    uint32_t right;
} symh_reg_node_t;

struct symh_reg_map {
    pthread_rwlock_t lock;
    symh_reg_node_t *nodes;
    symh_reg_entry_t *entries;
    uint8_t *heights; /* AVL height of each record's subtree; a leaf is 1, 0 a released record */
    uint32_t *scratch;
    uint32_t cap;  /* records allocated */
    uint32_t top;  /* records ever handed out; [top, cap) never used yet */
    uint32_t free; /* released records, linked through `left` */
    uint32_t root;
    size_t count;
};

/* The O(n) invariant walk for tests (tests/shim/shim_reg.h); not part of reg_map.h's interface.
 * Returns SYMH_OK or SYMH_ERR_SYSTEM after logging what is wrong. */

/* ---- the record table ------------------------------------------------------------------------ */

/* Arrays of at least this many bytes are placed on 2 MiB boundaries with transparent huge pages
 * advised: a lookup at 1e6 ranges touches ~20 records scattered over 32 MiB of nodes, and with
 * 4 KiB pages each of them is a TLB miss as well as a cache miss. */
#define SYMH_REG_MAP_HUGE ((size_t)2 << 20)

/* realloc, except that large arrays move to fresh huge-page-advised memory (copied, not
 * mremap'ed, so that the copy faults in huge pages). NULL on failure, `old` untouched. */
static void *records_realloc(void *old, size_t old_bytes, size_t bytes)
{
    size_t rounded = (bytes + SYMH_REG_MAP_HUGE - 1) & ~(SYMH_REG_MAP_HUGE - 1);
    void *p;

    if (bytes < SYMH_REG_MAP_HUGE)
        return realloc(old, bytes);
    p = aligned_alloc(SYMH_REG_MAP_HUGE, rounded);
    if (p == NULL)
        return NULL;
    /* Advice only: without THP (or with it off) the map is as correct, only slower. */
    (void)madvise(p, rounded, MADV_HUGEPAGE);
    if (old != NULL)
        memcpy(p, old, old_bytes);
    free(old);
    return p;
}

static int records_grow(symh_reg_map_t *map, uint32_t cap)
{
    symh_reg_node_t *nodes;
    symh_reg_entry_t *entries;
    uint8_t *heights;
    uint32_t *scratch;

    /* Each array is replaced only once its move succeeded, so a failure midway leaves larger
     * arrays behind but a consistent map (cap is the smallest of the three). */
    nodes = records_realloc(map->nodes, (size_t)map->cap * sizeof(*nodes),
                            (size_t)cap * sizeof(*nodes));
    if (nodes == NULL)
        return SYMH_ERR_NO_MEMORY;
    map->nodes = nodes;
    entries = records_realloc(map->entries, (size_t)map->cap * sizeof(*entries),
                              (size_t)cap * sizeof(*entries));
    if (entries == NULL)
        return SYMH_ERR_NO_MEMORY;
    map->entries = entries;
    heights = realloc(map->heights, (size_t)cap * sizeof(*heights));
    if (heights == NULL)
        return SYMH_ERR_NO_MEMORY;
    map->heights = heights;
    scratch = realloc(map->scratch, (size_t)cap * sizeof(*scratch));
    if (scratch == NULL)
        return SYMH_ERR_NO_MEMORY;
    map->scratch = scratch;
    map->cap = cap;
    return SYMH_OK;
}

/* Makes one record available. */
static int records_reserve(symh_reg_map_t *map)
{
    uint32_t cap;

    if (map->free != SYMH_REG_MAP_NIL || map->top < map->cap)
        return SYMH_OK;
    /* 32-bit indices; the bytes of 2^32 records fit a 64-bit size_t. */
    if (map->cap >= SYMH_REG_MAP_MAX_RECORDS) {
        symh_error("registry: cannot hold more than %u ranges", map->cap);
        return SYMH_ERR_NO_MEMORY;
    }
    cap = map->cap <= SYMH_REG_MAP_MAX_RECORDS / 2 ? map->cap * 2 : SYMH_REG_MAP_MAX_RECORDS;
    if (records_grow(map, cap) != SYMH_OK) {
        symh_error("registry: cannot grow the range table from %u to %u records (out of host "
                   "memory)",
                   map->cap, cap);
        return SYMH_ERR_NO_MEMORY;
    }
    return SYMH_OK;
}

static uint32_t record_new(symh_reg_map_t *map)
{
    uint32_t n = map->free;

    if (n != SYMH_REG_MAP_NIL)
        map->free = map->nodes[n].left;
    else
        n = map->top++;
    return n;
}

static void record_release(symh_reg_map_t *map, uint32_t n)
{
    map->heights[n] = 0;
    map->nodes[n].left = map->free;
    map->free = n;
}

/* ---- the AVL tree ---------------------------------------------------------------------------- */

static uint32_t tree_height(const symh_reg_map_t *m, uint32_t n)
{
    return n == SYMH_REG_MAP_NIL ? 0 : m->heights[n];
}

static void tree_fix_height(symh_reg_map_t *m, uint32_t n)
{
    uint32_t hl = tree_height(m, m->nodes[n].left), hr = tree_height(m, m->nodes[n].right);

    m->heights[n] = (uint8_t)((hl > hr ? hl : hr) + 1);
}

static uint32_t tree_rotate_right(symh_reg_map_t *m, uint32_t n)
{
    uint32_t l = m->nodes[n].left;

    m->nodes[n].left = m->nodes[l].right;
    m->nodes[l].right = n;
    tree_fix_height(m, n);
    tree_fix_height(m, l);
    return l;
}

static uint32_t tree_rotate_left(symh_reg_map_t *m, uint32_t n)
{
    uint32_t r = m->nodes[n].right;

    m->nodes[n].right = m->nodes[r].left;
    m->nodes[r].left = n;
    tree_fix_height(m, n);
    tree_fix_height(m, r);
    return r;
}

static uint32_t tree_balance(symh_reg_map_t *m, uint32_t n)
{
    uint32_t hl = tree_height(m, m->nodes[n].left), hr = tree_height(m, m->nodes[n].right);

    if (hl > hr + 1) {
        uint32_t l = m->nodes[n].left;

        if (tree_height(m, m->nodes[l].left) < tree_height(m, m->nodes[l].right))
            m->nodes[n].left = tree_rotate_left(m, l);
        return tree_rotate_right(m, n);
    }
    if (hr > hl + 1) {
        uint32_t r = m->nodes[n].right;

        if (tree_height(m, m->nodes[r].right) < tree_height(m, m->nodes[r].left))
            m->nodes[n].right = tree_rotate_right(m, r);
        return tree_rotate_left(m, n);
    }
    tree_fix_height(m, n);
    return n;
}

/* Recursion depth is the tree height: at most 1.44 log2(2^32) < 48. */
static uint32_t tree_insert(symh_reg_map_t *m, uint32_t root, uint32_t n)
{
    if (root == SYMH_REG_MAP_NIL)
        return n;
    if (m->nodes[n].base < m->nodes[root].base)
        m->nodes[root].left = tree_insert(m, m->nodes[root].left, n);
    else
        m->nodes[root].right = tree_insert(m, m->nodes[root].right, n);
    return tree_balance(m, root);
}

static uint32_t tree_remove_min(symh_reg_map_t *m, uint32_t root, uint32_t *min)
{
    if (m->nodes[root].left == SYMH_REG_MAP_NIL) {
        *min = root;
        return m->nodes[root].right;
    }
    m->nodes[root].left = tree_remove_min(m, m->nodes[root].left, min);
    return tree_balance(m, root);
}

/* Unlinks the record whose base is `base` (present). */
static uint32_t tree_remove(symh_reg_map_t *m, uint32_t root, uintptr_t base)
{
    uint32_t min;

    if (base < m->nodes[root].base) {
        m->nodes[root].left = tree_remove(m, m->nodes[root].left, base);
    } else if (base > m->nodes[root].base) {
        m->nodes[root].right = tree_remove(m, m->nodes[root].right, base);
    } else {
        if (m->nodes[root].right == SYMH_REG_MAP_NIL)
            return m->nodes[root].left;
        m->nodes[root].right = tree_remove_min(m, m->nodes[root].right, &min);
        m->nodes[min].left = m->nodes[root].left;
        m->nodes[min].right = m->nodes[root].right;
        return tree_balance(m, min);
    }
    return tree_balance(m, root);
}

/* The record with the greatest base <= addr, or NIL. */
static uint32_t tree_floor(const symh_reg_map_t *m, uint32_t n, uintptr_t addr)
{
    uint32_t best = SYMH_REG_MAP_NIL;

    while (n != SYMH_REG_MAP_NIL) {
        if (m->nodes[n].base <= addr) {
            best = n;
            n = m->nodes[n].right;
        } else {
            n = m->nodes[n].left;
        }
    }
    return best;
}

/* The record with the smallest base > addr, or NIL. */
static uint32_t tree_above(const symh_reg_map_t *m, uint32_t n, uintptr_t addr)
{
    uint32_t best = SYMH_REG_MAP_NIL;

    while (n != SYMH_REG_MAP_NIL) {
        if (m->nodes[n].base > addr) {
            best = n;
            n = m->nodes[n].left;
        } else {
            n = m->nodes[n].right;
        }
    }
    return best;
}

/* The record whose range holds `addr`, or NIL. */
static uint32_t tree_find(const symh_reg_map_t *map, uintptr_t addr)
{
    uint32_t n = tree_floor(map, map->root, addr);

    /* Ranges never wrap, so addr - base < length is the bounds check (n's base <= addr). */
    return n != SYMH_REG_MAP_NIL && addr - map->nodes[n].base < map->entries[n].length
               ? n
               : SYMH_REG_MAP_NIL;
}

/* A balanced tree over the records sorted[lo, hi), sorted by base; returns its root. */
static uint32_t tree_build(symh_reg_map_t *m, const uint32_t *sorted, size_t lo, size_t hi)
{
    size_t mid;
    uint32_t n;

    if (lo == hi)
        return SYMH_REG_MAP_NIL;
    mid = lo + (hi - lo) / 2;
    n = sorted[mid];
    m->nodes[n].left = tree_build(m, sorted, lo, mid);
    m->nodes[n].right = tree_build(m, sorted, mid + 1, hi);
    tree_fix_height(m, n);
    return n;
}

/* Appends the records of the subtree to out[*len ...] in base order. */
static void tree_collect(const symh_reg_map_t *m, uint32_t n, uint32_t *out, size_t *len)
{
    while (n != SYMH_REG_MAP_NIL) {
        tree_collect(m, m->nodes[n].left, out, len);
        out[(*len)++] = n;
        n = m->nodes[n].right;
    }
}

/* ---- the interface --------------------------------------------------------------------------- */

int symh_reg_map_create(symh_reg_map_t **map)
{
    pthread_rwlockattr_t attr;
    symh_reg_map_t *m;
    int ret;

    if (map == NULL)
        return SYMH_ERR_INVALID_ARG;
    m = calloc(1, sizeof(*m));
    if (m == NULL)
        goto err_nomem;
    m->free = SYMH_REG_MAP_NIL;
    m->root = SYMH_REG_MAP_NIL;
    if (records_grow(m, SYMH_REG_MAP_INITIAL) != SYMH_OK)
        goto err_records;

    ret = pthread_rwlockattr_init(&attr);
    if (ret != 0)
        goto err_records;
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    ret = pthread_rwlock_init(&m->lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    if (ret != 0)
        goto err_records;
    *map = m;
    return SYMH_OK;

err_records:
    free(m->scratch);
    free(m->heights);
    free(m->entries);
    free(m->nodes);
    free(m);
err_nomem:
    symh_error("registry: out of host memory creating the range map");
    return SYMH_ERR_NO_MEMORY;
}

void symh_reg_map_destroy(symh_reg_map_t *map)
{
    if (map == NULL)
        return;
    pthread_rwlock_destroy(&map->lock);
    free(map->scratch);
    free(map->heights);
    free(map->entries);
    free(map->nodes);
    free(map);
}

int symh_reg_map_insert(symh_reg_map_t *map, const symh_reg_entry_t *entry,
                        symh_reg_entry_t *conflict)
{
    uintptr_t base, end;
    uint32_t pred, succ, hit, n;
    int status;

    if (map == NULL || entry == NULL)
        return SYMH_ERR_INVALID_ARG;
    base = entry->base;
    if (entry->length == 0 || entry->length > UINTPTR_MAX - base)
        return SYMH_ERR_INVALID_ARG;
    end = base + entry->length;

    pthread_rwlock_wrlock(&map->lock);
    /* Only the predecessor can reach over `base`, and only the successor can start before
     * `end`; the predecessor is the lower of the two. */
    pred = tree_floor(map, map->root, base);
    succ = tree_above(map, map->root, base);
    hit = SYMH_REG_MAP_NIL;
    if (pred != SYMH_REG_MAP_NIL && map->nodes[pred].base + map->entries[pred].length > base)
        hit = pred;
    else if (succ != SYMH_REG_MAP_NIL && map->nodes[succ].base < end)
        hit = succ;
    if (hit != SYMH_REG_MAP_NIL) {
        if (conflict != NULL)
            *conflict = map->entries[hit];
        status = SYMH_ERR_OVERLAP;
        goto out;
    }
    status = records_reserve(map);
    if (status != SYMH_OK)
        goto out;

    n = record_new(map);
    map->nodes[n].base = base;
    map->nodes[n].left = SYMH_REG_MAP_NIL;
    map->nodes[n].right = SYMH_REG_MAP_NIL;
    map->heights[n] = 1;
    map->entries[n] = *entry;
    map->entries[n].label[SYMH_REG_LABEL_MAX] = '\0'; /* lookups may print it */
    map->root = tree_insert(map, map->root, n);
    map->count++;
out:
    pthread_rwlock_unlock(&map->lock);
    return status;
}

int symh_reg_map_remove(symh_reg_map_t *map, uintptr_t addr, symh_reg_entry_t *removed)
{
    uint32_t n;
    int status = SYMH_OK;

    if (map == NULL)
        return SYMH_ERR_INVALID_ARG;
    pthread_rwlock_wrlock(&map->lock);
    n = tree_find(map, addr);
    if (n == SYMH_REG_MAP_NIL) {
        status = SYMH_ERR_NOT_REGISTERED;
        goto out;
    }
    if (removed != NULL)
        *removed = map->entries[n];
    map->root = tree_remove(map, map->root, map->nodes[n].base);
    record_release(map, n);
    map->count--;
out:
    pthread_rwlock_unlock(&map->lock);
    return status;
}

int symh_reg_map_lookup(const symh_reg_map_t *map, uintptr_t addr, symh_reg_entry_t *entry)
{
    /* The lock is the one mutable part of a map that lookups otherwise only read. */
    pthread_rwlock_t *lock;
    uint32_t n;
    int status = SYMH_OK;

    if (map == NULL)
        return SYMH_ERR_INVALID_ARG;
    lock = (pthread_rwlock_t *)&map->lock;
    pthread_rwlock_rdlock(lock);
    n = tree_find(map, addr);
    if (n == SYMH_REG_MAP_NIL)
        status = SYMH_ERR_NOT_REGISTERED;
    else if (entry != NULL)
        *entry = map->entries[n];
    pthread_rwlock_unlock(lock);
    return status;
}

size_t symh_reg_map_count(const symh_reg_map_t *map)
{
    pthread_rwlock_t *lock;
    size_t count;

    if (map == NULL)
        return 0;
    lock = (pthread_rwlock_t *)&map->lock;
    pthread_rwlock_rdlock(lock);
    count = map->count;
    pthread_rwlock_unlock(lock);
    return count;
}

size_t symh_reg_map_remove_if(symh_reg_map_t *map, int (*keep)(const symh_reg_entry_t *, void *),
                              void *arg)
{
    size_t len = 0, kept = 0, i, removed;

    if (map == NULL || keep == NULL)
        return 0;
    pthread_rwlock_wrlock(&map->lock);
    /* In base order into scratch, keepers compacted in place, then one balanced rebuild: O(n)
     * whatever the number removed, and no allocation. */
    tree_collect(map, map->root, map->scratch, &len);
    for (i = 0; i < len; ++i) {
        uint32_t n = map->scratch[i];

        if (keep(&map->entries[n], arg))
            map->scratch[kept++] = n;
        else
            record_release(map, n);
    }
    removed = len - kept;
    if (removed != 0)
        map->root = tree_build(map, map->scratch, 0, kept);
    map->count = kept;
    pthread_rwlock_unlock(&map->lock);
    return removed;
}

/* ---- check ----------------------------------------------------------------------------------- */

/* Height of the subtree, or -1 after logging a broken invariant. Keys lie in (lo, hi) (NIL: no
 * bound); *prev_end is the end of the range just before the subtree in base order. */
static int check_tree(const symh_reg_map_t *map, uint32_t n, unsigned depth, uintptr_t *prev_end,
                      int *have_prev, size_t *count)
{
    const symh_reg_node_t *node;
    const symh_reg_entry_t *entry;
    int hl, hr;

    if (n == SYMH_REG_MAP_NIL)
        return 0;
    if (n >= map->top || depth > SYMH_REG_MAP_MAX_DEPTH) {
        symh_error("registry check: tree too deep or record %u out of range (%u used)", n,
                   map->top);
        return -1;
    }
    node = &map->nodes[n];
    entry = &map->entries[n];
    hl = check_tree(map, node->left, depth + 1, prev_end, have_prev, count);
    if (hl < 0)
        return -1;
    if (map->heights[n] == 0 || node->base != entry->base || entry->length == 0 ||
        entry->length > UINTPTR_MAX - entry->base) {
        symh_error("registry check: record %u (base %#jx, height %u) disagrees with its entry "
                   "(base %#jx length %zu)",
                   n, (uintmax_t)node->base, map->heights[n], (uintmax_t)entry->base,
                   entry->length);
        return -1;
    }
    if (*have_prev && *prev_end > node->base) {
        symh_error("registry check: range at %#jx starts before the previous one ends (%#jx)",
                   (uintmax_t)node->base, (uintmax_t)*prev_end);
        return -1;
    }
    *have_prev = 1;
    *prev_end = node->base + entry->length;
    (*count)++;
    hr = check_tree(map, node->right, depth + 1, prev_end, have_prev, count);
    if (hr < 0)
        return -1;
    if ((unsigned)(hl > hr ? hl : hr) + 1 != map->heights[n] || hl > hr + 1 || hr > hl + 1) {
        symh_error("registry check: range at %#jx has height %u, subtrees %d and %d",
                   (uintmax_t)node->base, map->heights[n], hl, hr);
        return -1;
    }
    return (int)map->heights[n];
}

int symh_reg_map_check(const symh_reg_map_t *map)
{
    pthread_rwlock_t *lock = (pthread_rwlock_t *)&map->lock;
    uintptr_t prev_end = 0;
    size_t count = 0, spare = 0;
    int have_prev = 0, status = SYMH_OK;
    uint32_t n;

    pthread_rwlock_rdlock(lock);
    if (map->top > map->cap) {
        symh_error("registry check: %u records used of %u", map->top, map->cap);
        status = SYMH_ERR_SYSTEM;
        goto out;
    }
    if (check_tree(map, map->root, 0, &prev_end, &have_prev, &count) < 0) {
        status = SYMH_ERR_SYSTEM;
        goto out;
    }
    for (n = map->free; n != SYMH_REG_MAP_NIL; n = map->nodes[n].left) {
        if (n >= map->top || map->heights[n] != 0 || ++spare > map->top) {
            symh_error("registry check: free list runs through record %u", n);
            status = SYMH_ERR_SYSTEM;
            goto out;
        }
    }
    if (count != map->count || count + spare != map->top) {
        symh_error("registry check: the tree holds %zu ranges (count %zu), %zu records free, "
                   "%u used",
                   count, map->count, spare, map->top);
        status = SYMH_ERR_SYSTEM;
    }
out:
    pthread_rwlock_unlock(lock);
    return status;
}
