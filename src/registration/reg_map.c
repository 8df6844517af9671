/* registration: the interval map of reg_map.h: a B+tree of non-overlapping ranges keyed by
 * base, over a table of entries, under one reader-writer lock (docs/registry.md).
 *
 * Why a B+tree: a lookup is a predecessor search (greatest base <= addr) followed by
 * `addr < end`. In a binary tree that search is a chain of ~20 dependent loads, each a cache miss
 * once the tree outgrows the caches; here it is one node per level (4-5 levels at 1e6 ranges),
 * each node a few adjacent cache lines fetched together, and the upper levels stay cached.
 *
 * Layout: three pools indexed by 32-bit numbers. Inner nodes hold up to SYMH_REG_MAP_FANOUT
 * children and the separators between them; leaves hold up to SYMH_REG_MAP_LEAF_MAX ranges as
 * parallel arrays of bases, ends and record numbers, and are chained in base order. Records
 * hold the entries as given (and the leaf holding each) and are read only once a range is found.
 * Unused key slots hold UINTPTR_MAX, which no base can be (a range's base + length does not
 * overflow), so a node search is a fixed, branch-free count over all slots. A hash of the live
 * records by exact base lets a removal at a range's first byte skip the descent.
 *
 * Separators bound both sides: key[i] of an inner node is at most the smallest base under
 * child[i + 1] and at least the end of every range under child[i] (a split, borrow or build sets
 * it to the smallest base to its right, which is both; a removal by base may leave it at a base
 * that is gone). So a range that holds `addr` can only be in the leaf a descent for `addr`
 * reaches, as the greatest base <= addr there: one descent, no backtracking, and no range at all
 * when that leaf has no base <= addr.
 *
 * Memory: every pool (and the hash, with the records) grows by doubling before anything changes
 * (an insert first reserves one record, one leaf and one inner node per level plus one), so a
 * failed insert leaves the map as it was; remove and remove_if only release. Released nodes and
 * records go on free lists.
 *
 * Locking: lookup and count take the lock shared; insert, remove and remove_if exclusive. The
 * lock prefers writers, so a stream of lookups cannot starve an unregister.
 *
 * The removal epoch: a removal stores a new value from one process-wide counter, inside the write
 * lock, before the lock is released; a caller that copied an entry at epoch E may use its copy
 * without the lock while the map's epoch is still E (symh_reg_map_lookup_hinted): an insert cannot
 * change a present range (ranges never overlap), only a removal can. A NIC put from a registered
 * buffer takes that path: one acquire load instead of the lock's two atomic read-modify-writes
 * and a 4-5 level descent (docs/registry.md "The removal epoch"). */
#include "registration/reg_map.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <symheap/status.h>

#include "core/core_log.h"
#include "core/core_wait.h"

#define SYMH_REG_MAP_NIL         UINT32_MAX
#define SYMH_REG_MAP_FREE        UINT32_MAX /* `n` of a released node */
#define SYMH_REG_MAP_NO_KEY      UINTPTR_MAX
#define SYMH_REG_MAP_INITIAL     64
#define SYMH_REG_MAP_MAX_RECORDS (1u << 31) /* the hash's 2^32 slots are numbered in 32 bits */

/* 16 ranges per leaf: the bases are two cache lines, the whole leaf six. 32 children per inner
 * node: after random inserts (nodes ~70 % full) 1e6 ranges take ~90 000 leaves under four inner
 * levels, the upper three (~200 nodes) always cached. Leaves of 8 and 32 and fan-outs of 16 and
 * 64 measured no better (docs/registry.md). */
#define SYMH_REG_MAP_LEAF_MAX 16
#define SYMH_REG_MAP_LEAF_MIN (SYMH_REG_MAP_LEAF_MAX / 2)
/* A removal by base (no descent, so no path to rebalance with) may leave a leaf down to this;
 * the next removal through a descent restores LEAF_MIN (borrow or merge). */
#define SYMH_REG_MAP_LEAF_FLOOR (SYMH_REG_MAP_LEAF_MIN / 2)
#define SYMH_REG_MAP_FANOUT     32
#define SYMH_REG_MAP_FANOUT_MIN (SYMH_REG_MAP_FANOUT / 2)
/* symh_reg_map_inner_pos and symh_reg_map_leaf_rank search in two rounds laid out for these
 * sizes. */
_Static_assert(SYMH_REG_MAP_FANOUT == 32 && SYMH_REG_MAP_LEAF_MAX == 16,
               "the two-round node search assumes 31 keys per inner node and 16 per leaf");
/* Inner nodes but the root are at least half full, leaves a quarter: 2^31 records need far fewer
 * levels than this. */
#define SYMH_REG_MAP_MAX_HEIGHT 32

#define SYMH_REG_MAP_LINE 64

typedef struct {
    uintptr_t key[SYMH_REG_MAP_FANOUT - 1]; /* key[i]: smallest base under child[i + 1] */
    uint32_t child[SYMH_REG_MAP_FANOUT];
    uint32_t n; /* children; SYMH_REG_MAP_FREE when released (child[0] links the free list) */
} __attribute__((aligned(SYMH_REG_MAP_LINE))) symh_reg_inner_t;

typedef struct {
    uintptr_t base[SYMH_REG_MAP_LEAF_MAX]; /* what the search reads */
    uintptr_t end[SYMH_REG_MAP_LEAF_MAX];  /* so that a miss in a gap reads no entry */
    uint32_t rec[SYMH_REG_MAP_LEAF_MAX];
    uint32_t n;    /* ranges; SYMH_REG_MAP_FREE when released */
    uint32_t next; /* the next leaf in base order (free list link when released) */
} __attribute__((aligned(SYMH_REG_MAP_LINE))) symh_reg_leaf_t;

/* A pool of fixed-size items numbered from 0: [0, top) handed out at some point, of which `nfree`
 * are released and linked from `free`. */
typedef struct {
    void *mem;
    uint32_t cap;
    uint32_t top;
    uint32_t free;
    uint32_t nfree;
} symh_reg_pool_t;

/* A record: the entry as given, and the leaf that holds it while it is live (so that a removal
 * by base, which finds the record in the hash, reaches the leaf with no descent; kept beside the
 * entry because the hash probe reads the entry's line anyway). */
typedef struct {
    symh_reg_entry_t entry;
    uint32_t leaf;
} symh_reg_record_t;

struct symh_reg_map {
    _Atomic uint32_t lock;   /* symh_reg_lock_*: readers count, writer and waiting-writer bits */
    symh_reg_pool_t inners;  /* symh_reg_inner_t */
    symh_reg_pool_t leaves;  /* symh_reg_leaf_t */
    symh_reg_pool_t records; /* symh_reg_record_t; released: length 0, base links the free list */
    uint32_t *scratch;       /* one per record: remove_if's list of keepers */
    uint32_t follow_cap;     /* the record capacity scratch and the hash are sized for */
    uint64_t *hash;          /* live records by exact base (the base hash below) */
    uint32_t hash_mask;      /* slots - 1 (a power of two, at least twice the records) */
    uint32_t hash_shift;     /* 64 - log2(slots) */
    uint32_t root;
    uint32_t height; /* inner levels above the leaves; 0: the root is a leaf */
    size_t count;
    _Atomic uint64_t epoch; /* the removal epoch (reg_map.h), written under the write lock */
};

/* Where every map's epoch comes from: unique per map and per removal in the process, never 0
 * (an empty hint's epoch). */
static _Atomic uint64_t symh_reg_map_epochs;

/* Stores a new epoch into `m` (at create, and under the write lock at each removal). */
static void symh_reg_map_epoch_bump(symh_reg_map_t *m)
{
    atomic_store_explicit(
        &m->epoch, atomic_fetch_add_explicit(&symh_reg_map_epochs, 1, memory_order_relaxed) + 1,
        memory_order_release);
}

/* One step of a descent: the inner node and which child it went to. */
typedef struct {
    uint32_t node;
    uint32_t pos;
} symh_reg_step_t;

#define SYMH_REG_MAP_INNER(m, i)  (&((symh_reg_inner_t *)(m)->inners.mem)[i])
#define SYMH_REG_MAP_LEAF(m, i)   (&((symh_reg_leaf_t *)(m)->leaves.mem)[i])
#define SYMH_REG_MAP_RECORD(m, i) (&((symh_reg_record_t *)(m)->records.mem)[i])
#define SYMH_REG_MAP_ENTRY(m, i)  (&SYMH_REG_MAP_RECORD(m, i)->entry)

/* ---- the lock -------------------------------------------------------------------------------- */

/* A writer-preferring reader-writer lock in one word: bit 31 a writer holds it, bit 30 a writer
 * waits (new readers hold back), the rest counts readers. The write unlock is a plain release
 * store, the uncontended write lock one CAS: about half what glibc's rwlock costs per
 * insert/remove, which the device allocator pays twice per allocation (docs/registry.md). Waits
 * follow symheap's one wait policy (core_wait.h): spin briefly, then yield the core (PEs may
 * outnumber cores). A holder is a thread of this process inside a short critical section, never a
 * peer, so the hang watch's verdict is not reported here. */
#define SYMH_REG_LOCK_WRITER  (1u << 31)
#define SYMH_REG_LOCK_WAITING (1u << 30)
/* Pauses before the first yield (docs/registry.md: "waits spin 64 pauses, then yield"). */
#define SYMH_REG_LOCK_SPINS 64

static void symh_reg_lock_write(_Atomic uint32_t *lock)
{
    symh_wait_t w;
    uint32_t s;

    symh_wait_start(&w, SYMH_REG_LOCK_SPINS);
    for (;;) {
        s = atomic_load_explicit(lock, memory_order_relaxed);
        if ((s & ~SYMH_REG_LOCK_WAITING) == 0) { /* free (writers may be waiting: us too) */
            if (atomic_compare_exchange_weak_explicit(lock, &s, SYMH_REG_LOCK_WRITER,
                                                      memory_order_acquire, memory_order_relaxed))
                return;
            continue;
        }
        if (!(s & SYMH_REG_LOCK_WAITING))
            atomic_fetch_or_explicit(lock, SYMH_REG_LOCK_WAITING, memory_order_relaxed);
        (void)symh_wait_step(&w);
    }
}

static inline void symh_reg_unlock_write(_Atomic uint32_t *lock)
{
    /* Clears a waiting bit too: the writers still waiting set it again on their next turn. */
    atomic_store_explicit(lock, 0, memory_order_release);
}

static void symh_reg_lock_read(_Atomic uint32_t *lock)
{
    uint32_t s = atomic_load_explicit(lock, memory_order_relaxed);
    symh_wait_t w;

    symh_wait_start(&w, SYMH_REG_LOCK_SPINS);
    for (;;) {
        if (!(s & (SYMH_REG_LOCK_WRITER | SYMH_REG_LOCK_WAITING)) &&
            atomic_compare_exchange_weak_explicit(lock, &s, s + 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
        if (s & (SYMH_REG_LOCK_WRITER | SYMH_REG_LOCK_WAITING))
            (void)symh_wait_step(&w);
        s = atomic_load_explicit(lock, memory_order_relaxed);
    }
}

static inline void symh_reg_unlock_read(_Atomic uint32_t *lock)
{
    atomic_fetch_sub_explicit(lock, 1, memory_order_release);
}

/* ---- pools ----------------------------------------------------------------------------------- */

/* Arrays of at least this many bytes are placed on 2 MiB boundaries with transparent huge pages
 * advised: at 1e6 ranges the leaves and entries span ~130 MiB, and with 4 KiB pages each node
 * visited would also be a TLB miss. */
#define SYMH_REG_MAP_HUGE ((size_t)2 << 20)

/* A copy of `old` in a larger, line-aligned (huge-page-advised when large) array. NULL on
 * failure, `old` untouched. Copied, not mremap'ed, so that the copy faults in huge pages. */
static void *symh_reg_map_pool_realloc(void *old, size_t old_bytes, size_t bytes)
{
    size_t align = bytes >= SYMH_REG_MAP_HUGE ? SYMH_REG_MAP_HUGE : SYMH_REG_MAP_LINE;
    size_t rounded = (bytes + align - 1) & ~(align - 1);
    void *p = aligned_alloc(align, rounded);

    if (p == NULL)
        return NULL;
    /* Advice only: without THP (or with it off) the map is as correct, only slower. */
    if (align == SYMH_REG_MAP_HUGE)
        (void)madvise(p, rounded, MADV_HUGEPAGE);
    if (old != NULL)
        memcpy(p, old, old_bytes);
    free(old);
    return p;
}

static uint32_t symh_reg_map_pool_avail(const symh_reg_pool_t *p)
{
    return p->cap - p->top + p->nfree;
}

/* Grows the pool until `need` items are available. */
static int symh_reg_map_pool_reserve(symh_reg_pool_t *p, size_t size, uint32_t need,
                                     const char *what)
{
    uint32_t cap = p->cap;
    void *mem;

    if (symh_reg_map_pool_avail(p) >= need)
        return SYMH_OK;
    while (cap - p->top + p->nfree < need) {
        /* 32-bit numbers; the bytes of 2^32 items fit a 64-bit size_t. */
        if (cap >= SYMH_REG_MAP_MAX_RECORDS) {
            symh_error("registry: cannot hold more than %u %s", cap, what);
            return SYMH_ERR_NO_MEMORY;
        }
        if (cap == 0)
            cap = need;
        else
            cap = cap <= SYMH_REG_MAP_MAX_RECORDS / 2 ? cap * 2 : SYMH_REG_MAP_MAX_RECORDS;
    }
    mem = symh_reg_map_pool_realloc(p->mem, (size_t)p->cap * size, (size_t)cap * size);
    if (mem == NULL) {
        symh_error("registry: cannot grow the %s from %u to %u (out of host memory)", what, p->cap,
                   cap);
        return SYMH_ERR_NO_MEMORY;
    }
    p->mem = mem;
    p->cap = cap;
    return SYMH_OK;
}

static uint32_t symh_reg_map_inner_new(symh_reg_map_t *m)
{
    uint32_t n = m->inners.free;

    if (n != SYMH_REG_MAP_NIL) {
        m->inners.free = SYMH_REG_MAP_INNER(m, n)->child[0];
        m->inners.nfree--;
    } else {
        n = m->inners.top++;
    }
    return n;
}

static void symh_reg_map_inner_release(symh_reg_map_t *m, uint32_t n)
{
    symh_reg_inner_t *in = SYMH_REG_MAP_INNER(m, n);

    in->n = SYMH_REG_MAP_FREE;
    in->child[0] = m->inners.free;
    m->inners.free = n;
    m->inners.nfree++;
}

static uint32_t symh_reg_map_leaf_new(symh_reg_map_t *m)
{
    uint32_t n = m->leaves.free;

    if (n != SYMH_REG_MAP_NIL) {
        m->leaves.free = SYMH_REG_MAP_LEAF(m, n)->next;
        m->leaves.nfree--;
    } else {
        n = m->leaves.top++;
    }
    return n;
}

static void symh_reg_map_leaf_release(symh_reg_map_t *m, uint32_t n)
{
    symh_reg_leaf_t *lf = SYMH_REG_MAP_LEAF(m, n);

    lf->n = SYMH_REG_MAP_FREE;
    lf->next = m->leaves.free;
    m->leaves.free = n;
    m->leaves.nfree++;
}

static uint32_t symh_reg_map_record_new(symh_reg_map_t *m)
{
    uint32_t n = m->records.free;

    if (n != SYMH_REG_MAP_NIL) {
        m->records.free = (uint32_t)SYMH_REG_MAP_ENTRY(m, n)->base;
        m->records.nfree--;
    } else {
        n = m->records.top++;
    }
    return n;
}

static void symh_reg_map_record_release(symh_reg_map_t *m, uint32_t n)
{
    symh_reg_entry_t *e = SYMH_REG_MAP_ENTRY(m, n);

    e->length = 0;
    e->base = m->records.free;
    m->records.free = n;
    m->records.nfree++;
}

/* ---- the base hash ---------------------------------------------------------------------------

 * Every live record is also found by its exact base: a free or unregister names the start of its
 * range, and the hash gives the record, the record its leaf, so the removal needs no descent
 * (docs/registry.md "Removal by base"). Open addressing with linear probing, at most half the
 * slots in use. A slot holds the record number in its low half and the top 32 bits of the base's
 * mixed hash in its high half: the home slot is the top bits of that (so a backward shift needs
 * no record), and a probe reads a record only when those 32 bits match (a mismatching record
 * would be a cache miss: most records are cold). */
#define SYMH_REG_HASH_EMPTY UINT64_MAX /* its low half is NIL, which no live record is */

static inline uint64_t symh_reg_map_hash_mix(uintptr_t base)
{
    uint64_t x = (uint64_t)base;

    x ^= x >> 31; /* bases share their low (alignment) bits: fold the high bits down first */
    x *= 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    return x;
}

/* The high half of a slot for `base` (its low half is the record number). */
static inline uint64_t symh_reg_map_hash_tag(uintptr_t base)
{
    return symh_reg_map_hash_mix(base) & ~(uint64_t)UINT32_MAX;
}

static inline uint32_t symh_reg_map_hash_home(const symh_reg_map_t *m, uint64_t slot)
{
    return (uint32_t)((slot >> 32) >> (m->hash_shift - 32));
}

/* The live record whose base is exactly `base`, or NIL. */
static inline uint32_t symh_reg_map_hash_find(const symh_reg_map_t *m, uintptr_t base)
{
    uint64_t tag = symh_reg_map_hash_tag(base), v;
    uint32_t i;

    for (i = symh_reg_map_hash_home(m, tag);; i = (i + 1) & m->hash_mask) {
        v = m->hash[i];
        if (v == SYMH_REG_HASH_EMPTY)
            return SYMH_REG_MAP_NIL;
        if ((v & ~(uint64_t)UINT32_MAX) == tag && SYMH_REG_MAP_ENTRY(m, (uint32_t)v)->base == base)
            return (uint32_t)v;
    }
}

/* Adds live record `rec`, whose base's symh_reg_map_hash_tag is `tag`. */
static void symh_reg_map_hash_add(symh_reg_map_t *m, uint32_t rec, uint64_t tag)
{
    uint64_t v = tag | rec;
    uint32_t i;

    for (i = symh_reg_map_hash_home(m, v); m->hash[i] != SYMH_REG_HASH_EMPTY;
         i = (i + 1) & m->hash_mask)
        ;
    m->hash[i] = v;
}

/* Removes live record `rec` (whose base is `base`) by backward shift: each later slot of the
 * cluster that may fill the hole moves back, so no tombstones are left. */
static void symh_reg_map_hash_remove(symh_reg_map_t *m, uint32_t rec, uintptr_t base)
{
    uint64_t v = symh_reg_map_hash_tag(base) | rec;
    uint32_t i, j, home;

    for (i = symh_reg_map_hash_home(m, v); m->hash[i] != v; i = (i + 1) & m->hash_mask)
        ;
    for (j = i;;) {
        j = (j + 1) & m->hash_mask;
        if (m->hash[j] == SYMH_REG_HASH_EMPTY)
            break;
        home = symh_reg_map_hash_home(m, m->hash[j]);
        /* The slot at j stays when its home lies cyclically in (i, j]. */
        if (((j - home) & m->hash_mask) < ((j - i) & m->hash_mask))
            continue;
        m->hash[i] = m->hash[j];
        i = j;
    }
    m->hash[i] = SYMH_REG_HASH_EMPTY;
}

/* Empties the hash and adds every live record (records[0, top) with a length). */
static void symh_reg_map_hash_fill(symh_reg_map_t *m)
{
    uint32_t r;

    memset(m->hash, 0xff, ((size_t)m->hash_mask + 1) * sizeof(*m->hash));
    for (r = 0; r < m->records.top; ++r)
        if (SYMH_REG_MAP_ENTRY(m, r)->length != 0)
            symh_reg_map_hash_add(m, r, symh_reg_map_hash_tag(SYMH_REG_MAP_ENTRY(m, r)->base));
}

/* Makes one record available. scratch and the hash follow the records' capacity; one
 * that failed to follow is retried on the next call (nothing uses the new records until then). */
static int symh_reg_map_records_reserve(symh_reg_map_t *m)
{
    uint32_t *scratch, shift = 64 - 1;
    uint64_t *hash;
    size_t slots = 2;
    int ret;

    ret = symh_reg_map_pool_reserve(&m->records, sizeof(symh_reg_record_t), 1, "ranges");
    if (ret != SYMH_OK || m->follow_cap == m->records.cap)
        return ret;
    scratch = realloc(m->scratch, (size_t)m->records.cap * sizeof(*scratch));
    if (scratch != NULL)
        m->scratch = scratch;
    while (slots < 2 * (size_t)m->records.cap) {
        slots *= 2;
        shift--;
    }
    hash = symh_reg_map_pool_realloc(NULL, 0, slots * sizeof(*hash));
    if (scratch == NULL || hash == NULL) {
        free(hash);
        symh_error("registry: cannot grow the range table to %u (out of host memory)",
                   m->records.cap);
        return SYMH_ERR_NO_MEMORY;
    }
    free(m->hash);
    m->hash = hash;
    m->hash_mask = (uint32_t)(slots - 1);
    m->hash_shift = shift;
    symh_reg_map_hash_fill(m);
    m->follow_cap = m->records.cap;
    return SYMH_OK;
}

/* ---- node search ----------------------------------------------------------------------------- */

/* How many of key[0, len) are <= addr. A branch-free count over every slot (the unused ones hold
 * UINTPTR_MAX): the loads are independent, so the lines of a node are fetched in parallel and
 * nothing mispredicts. Four counters keep the adds from forming one long chain. */
static inline uint32_t symh_reg_map_keys_rank(const uintptr_t *key, uint32_t len, uintptr_t addr)
{
    uint32_t c0 = 0, c1 = 0, c2 = 0, c3 = 0, i;

    for (i = 0; i + 4 <= len; i += 4) {
        c0 += key[i] <= addr;
        c1 += key[i + 1] <= addr;
        c2 += key[i + 2] <= addr;
        c3 += key[i + 3] <= addr;
    }
    for (; i < len; ++i)
        c0 += key[i] <= addr;
    return c0 + c1 + c2 + c3;
}

/* Starts fetching every line of a node the descent is about to read: the child number and the
 * end or record read after the search would otherwise be a second miss, dependent on the first. */
static inline void symh_reg_map_node_prefetch(const void *node, size_t size)
{
    const char *p = node;
    size_t off;

    for (off = 0; off < size; off += SYMH_REG_MAP_LINE)
        __builtin_prefetch(p + off);
}

/* The child an inner node leads to for addr. Two rounds: keys 7, 15 and 23 pick the block of
 * eight that holds the answer, then that block is counted (11 comparisons instead of 31; the keys
 * are sorted, so every key before the block is <= addr and every key after it is not). The last
 * block starts at key 23, already known to be <= addr, so that it too is eight keys. */
static inline uint32_t symh_reg_map_inner_pos(const symh_reg_inner_t *in, uintptr_t addr)
{
    uint32_t q = (uint32_t)(in->key[7] <= addr) + (in->key[15] <= addr) + (in->key[23] <= addr);
    uint32_t start = q < 3 ? 8 * q : 23;
    uint32_t c = start + symh_reg_map_keys_rank(&in->key[start], 8, addr);

    /* Only addr == UINTPTR_MAX counts the unused slots too. */
    return c < in->n ? c : in->n - 1;
}

/* How many ranges of a leaf start at or below addr. */
static inline uint32_t symh_reg_map_leaf_rank(const symh_reg_leaf_t *lf, uintptr_t addr)
{
    uint32_t start = lf->base[7] <= addr ? 8 : 0; /* two rounds, as symh_reg_map_inner_pos */
    uint32_t c = start + symh_reg_map_keys_rank(&lf->base[start], 8, addr);

    return c < lf->n ? c : lf->n;
}

/* The leaf that holds the greatest base <= addr, if any range has one; records the path in
 * path[0, height) when path is not NULL. */
static inline uint32_t symh_reg_map_tree_descend(const symh_reg_map_t *m, uintptr_t addr,
                                                 symh_reg_step_t *path)
{
    uint32_t n = m->root, h, pos;

    for (h = 0; h < m->height; ++h) {
        const symh_reg_inner_t *in = SYMH_REG_MAP_INNER(m, n);

        pos = symh_reg_map_inner_pos(in, addr);
        if (path != NULL) {
            path[h].node = n;
            path[h].pos = pos;
        }
        n = in->child[pos];
        if (h + 1 == m->height)
            symh_reg_map_node_prefetch(SYMH_REG_MAP_LEAF(m, n), sizeof(symh_reg_leaf_t));
    }
    return n;
}

/* ---- leaf and inner node edits --------------------------------------------------------------- */

static void symh_reg_map_leaf_clear_tail(symh_reg_leaf_t *lf)
{
    uint32_t i;

    for (i = lf->n; i < SYMH_REG_MAP_LEAF_MAX; ++i) {
        lf->base[i] = SYMH_REG_MAP_NO_KEY;
        lf->end[i] = 0;
        lf->rec[i] = SYMH_REG_MAP_NIL;
    }
}

static void symh_reg_map_inner_clear_tail(symh_reg_inner_t *in)
{
    uint32_t i;

    for (i = in->n; i < SYMH_REG_MAP_FANOUT; ++i) {
        in->key[i - 1] = SYMH_REG_MAP_NO_KEY;
        in->child[i] = SYMH_REG_MAP_NIL;
    }
}

/* Moves slots [from, from + len) of leaf `src` to [to, to + len) of `dst` (may be the same).
 * Plain loops: at most 16 slots, where three memmove calls cost more than the copying. */
static inline void symh_reg_map_leaf_move(symh_reg_leaf_t *dst, uint32_t to,
                                          const symh_reg_leaf_t *src, uint32_t from, uint32_t len)
{
    uint32_t i;

    if (dst == src && to > from) {
        for (i = len; i > 0; --i) {
            dst->base[to + i - 1] = src->base[from + i - 1];
            dst->end[to + i - 1] = src->end[from + i - 1];
            dst->rec[to + i - 1] = src->rec[from + i - 1];
        }
        return;
    }
    for (i = 0; i < len; ++i) {
        dst->base[to + i] = src->base[from + i];
        dst->end[to + i] = src->end[from + i];
        dst->rec[to + i] = src->rec[from + i];
    }
}

/* Notes in the records of slots [from, to) of leaf `leaf` that it holds them (after a move
 * between leaves). */
static void symh_reg_map_leaf_stamp(symh_reg_map_t *m, uint32_t leaf, uint32_t from, uint32_t to)
{
    const symh_reg_leaf_t *lf = SYMH_REG_MAP_LEAF(m, leaf);

    for (; from < to; ++from)
        SYMH_REG_MAP_RECORD(m, lf->rec[from])->leaf = leaf;
}

/* Removes key[k] and child[k + 1] of an inner node. */
static void symh_reg_map_inner_drop(symh_reg_inner_t *in, uint32_t k)
{
    memmove(&in->key[k], &in->key[k + 1], (in->n - 2 - k) * sizeof(in->key[0]));
    memmove(&in->child[k + 1], &in->child[k + 2], (in->n - 2 - k) * sizeof(in->child[0]));
    in->n--;
    symh_reg_map_inner_clear_tail(in);
}

/* Inserts (base, end, rec) at slot `slot` of the leaf at the bottom of `path`, splitting full
 * nodes on the way up. The pools hold enough free nodes (reserved by the caller). */
static void symh_reg_map_tree_insert(symh_reg_map_t *m, symh_reg_step_t *path, uint32_t leaf,
                                     uint32_t slot, uintptr_t base, uintptr_t end, uint32_t rec)
{
    symh_reg_leaf_t *lf = SYMH_REG_MAP_LEAF(m, leaf), *rt;
    uint32_t right, left_n, h;
    uintptr_t sep;

    SYMH_REG_MAP_RECORD(m, rec)->leaf = leaf; /* restamped below if it moves to the right half */
    if (lf->n < SYMH_REG_MAP_LEAF_MAX) {
        symh_reg_map_leaf_move(lf, slot + 1, lf, slot, lf->n - slot);
        lf->base[slot] = base;
        lf->end[slot] = end;
        lf->rec[slot] = rec;
        lf->n++;
        return;
    }
    /* Split LEAF_MAX + 1 ranges: the left keeps the first half (rounded up). */
    right = symh_reg_map_leaf_new(m);
    rt = SYMH_REG_MAP_LEAF(m, right);
    left_n = (SYMH_REG_MAP_LEAF_MAX + 2) / 2;
    if (slot < left_n) {
        symh_reg_map_leaf_move(rt, 0, lf, left_n - 1, SYMH_REG_MAP_LEAF_MAX - (left_n - 1));
        symh_reg_map_leaf_move(lf, slot + 1, lf, slot, left_n - 1 - slot);
        lf->base[slot] = base;
        lf->end[slot] = end;
        lf->rec[slot] = rec;
    } else {
        uint32_t s = slot - left_n;

        symh_reg_map_leaf_move(rt, 0, lf, left_n, slot - left_n);
        rt->base[s] = base;
        rt->end[s] = end;
        rt->rec[s] = rec;
        symh_reg_map_leaf_move(rt, s + 1, lf, slot, SYMH_REG_MAP_LEAF_MAX - slot);
    }
    rt->n = SYMH_REG_MAP_LEAF_MAX + 1 - left_n;
    lf->n = left_n;
    symh_reg_map_leaf_clear_tail(lf);
    symh_reg_map_leaf_clear_tail(rt);
    rt->next = lf->next;
    lf->next = right;
    symh_reg_map_leaf_stamp(m, right, 0, rt->n);
    sep = rt->base[0];

    /* Hand (sep, right) to the parents: it goes after child `pos`. */
    for (h = m->height; h > 0; --h) {
        symh_reg_inner_t *in = SYMH_REG_MAP_INNER(m, path[h - 1].node), *irt;
        uint32_t pos = path[h - 1].pos, k = pos; /* the new key's slot */
        uintptr_t keys[SYMH_REG_MAP_FANOUT];
        uint32_t kids[SYMH_REG_MAP_FANOUT + 1], nr, total, ln, inr;

        if (in->n < SYMH_REG_MAP_FANOUT) {
            memmove(&in->key[k + 1], &in->key[k], (in->n - 1 - k) * sizeof(in->key[0]));
            memmove(&in->child[k + 2], &in->child[k + 1], (in->n - 1 - k) * sizeof(in->child[0]));
            in->key[k] = sep;
            in->child[k + 1] = right;
            in->n++;
            return;
        }
        /* FANOUT + 1 children: lay them out, then split around the middle key. */
        memcpy(keys, in->key, k * sizeof(keys[0]));
        keys[k] = sep;
        memcpy(&keys[k + 1], &in->key[k], (SYMH_REG_MAP_FANOUT - 1 - k) * sizeof(keys[0]));
        memcpy(kids, in->child, (k + 1) * sizeof(kids[0]));
        kids[k + 1] = right;
        memcpy(&kids[k + 2], &in->child[k + 1], (SYMH_REG_MAP_FANOUT - 1 - k) * sizeof(kids[0]));
        total = SYMH_REG_MAP_FANOUT + 1;
        ln = (total + 1) / 2;
        nr = total - ln;
        inr = symh_reg_map_inner_new(m);
        irt = SYMH_REG_MAP_INNER(m, inr);
        memcpy(in->key, keys, (ln - 1) * sizeof(keys[0]));
        memcpy(in->child, kids, ln * sizeof(kids[0]));
        in->n = ln;
        symh_reg_map_inner_clear_tail(in);
        memcpy(irt->key, &keys[ln], (nr - 1) * sizeof(keys[0]));
        memcpy(irt->child, &kids[ln], nr * sizeof(kids[0]));
        irt->n = nr;
        symh_reg_map_inner_clear_tail(irt);
        sep = keys[ln - 1];
        right = inr;
    }
    /* The root split: a new root above both halves. */
    {
        uint32_t r = symh_reg_map_inner_new(m);
        symh_reg_inner_t *in = SYMH_REG_MAP_INNER(m, r);

        in->child[0] = m->root;
        in->child[1] = right;
        in->key[0] = sep;
        in->n = 2;
        symh_reg_map_inner_clear_tail(in);
        m->root = r;
        m->height++;
    }
}

/* Rebalances the underfull leaf at the bottom of `path` with a sibling. */
static int symh_reg_map_leaf_rebalance(symh_reg_map_t *m, const symh_reg_step_t *up, uint32_t leaf)
{
    symh_reg_inner_t *p = SYMH_REG_MAP_INNER(m, up->node);
    symh_reg_leaf_t *lf = SYMH_REG_MAP_LEAF(m, leaf), *sib;
    uint32_t pos = up->pos;

    if (pos > 0) {
        sib = SYMH_REG_MAP_LEAF(m, p->child[pos - 1]);
        if (sib->n > SYMH_REG_MAP_LEAF_MIN) { /* borrow the left sibling's last range */
            symh_reg_map_leaf_move(lf, 1, lf, 0, lf->n);
            symh_reg_map_leaf_move(lf, 0, sib, sib->n - 1, 1);
            lf->n++;
            sib->n--;
            symh_reg_map_leaf_clear_tail(sib);
            p->key[pos - 1] = lf->base[0];
            SYMH_REG_MAP_RECORD(m, lf->rec[0])->leaf = leaf;
            return 0;
        }
        /* merge into the left sibling */
        symh_reg_map_leaf_move(sib, sib->n, lf, 0, lf->n);
        symh_reg_map_leaf_stamp(m, p->child[pos - 1], sib->n, sib->n + lf->n);
        sib->n += lf->n;
        sib->next = lf->next;
        symh_reg_map_inner_drop(p, pos - 1);
        symh_reg_map_leaf_release(m, leaf);
        return 1;
    }
    sib = SYMH_REG_MAP_LEAF(m, p->child[1]);
    if (sib->n > SYMH_REG_MAP_LEAF_MIN) { /* borrow the right sibling's first range */
        symh_reg_map_leaf_move(lf, lf->n, sib, 0, 1);
        SYMH_REG_MAP_RECORD(m, lf->rec[lf->n])->leaf = leaf;
        lf->n++;
        symh_reg_map_leaf_move(sib, 0, sib, 1, sib->n - 1);
        sib->n--;
        symh_reg_map_leaf_clear_tail(sib);
        p->key[0] = sib->base[0];
        return 0;
    }
    /* merge the right sibling into this leaf */
    symh_reg_map_leaf_move(lf, lf->n, sib, 0, sib->n);
    symh_reg_map_leaf_stamp(m, leaf, lf->n, lf->n + sib->n);
    lf->n += sib->n;
    symh_reg_map_leaf_clear_tail(lf);
    lf->next = sib->next;
    symh_reg_map_leaf_release(m, p->child[1]);
    symh_reg_map_inner_drop(p, 0);
    return 1;
}

/* Rebalances the underfull inner node `n` (child `up->pos` of `up->node`); 1 when it merged. */
static int symh_reg_map_inner_rebalance(symh_reg_map_t *m, const symh_reg_step_t *up, uint32_t n)
{
    symh_reg_inner_t *p = SYMH_REG_MAP_INNER(m, up->node), *in = SYMH_REG_MAP_INNER(m, n), *sib;
    uint32_t pos = up->pos;

    if (pos > 0) {
        uint32_t s = p->child[pos - 1];

        sib = SYMH_REG_MAP_INNER(m, s);
        if (sib->n > SYMH_REG_MAP_FANOUT_MIN) { /* rotate the left sibling's last child over */
            memmove(&in->key[1], &in->key[0], (in->n - 1) * sizeof(in->key[0]));
            memmove(&in->child[1], &in->child[0], in->n * sizeof(in->child[0]));
            in->key[0] = p->key[pos - 1];
            in->child[0] = sib->child[sib->n - 1];
            in->n++;
            p->key[pos - 1] = sib->key[sib->n - 2];
            sib->n--;
            symh_reg_map_inner_clear_tail(sib);
            return 0;
        }
        /* merge into the left sibling, the parent's key between them in the middle */
        sib->key[sib->n - 1] = p->key[pos - 1];
        memcpy(&sib->key[sib->n], in->key, (in->n - 1) * sizeof(in->key[0]));
        memcpy(&sib->child[sib->n], in->child, in->n * sizeof(in->child[0]));
        sib->n += in->n;
        symh_reg_map_inner_drop(p, pos - 1);
        symh_reg_map_inner_release(m, n);
        return 1;
    }
    sib = SYMH_REG_MAP_INNER(m, p->child[1]);
    if (sib->n > SYMH_REG_MAP_FANOUT_MIN) { /* rotate the right sibling's first child over */
        in->key[in->n - 1] = p->key[0];
        in->child[in->n] = sib->child[0];
        in->n++;
        p->key[0] = sib->key[0];
        memmove(&sib->key[0], &sib->key[1], (sib->n - 2) * sizeof(sib->key[0]));
        memmove(&sib->child[0], &sib->child[1], (sib->n - 1) * sizeof(sib->child[0]));
        sib->n--;
        symh_reg_map_inner_clear_tail(sib);
        return 0;
    }
    /* merge the right sibling into this node */
    {
        uint32_t s = p->child[1];

        in->key[in->n - 1] = p->key[0];
        memcpy(&in->key[in->n], sib->key, (sib->n - 1) * sizeof(sib->key[0]));
        memcpy(&in->child[in->n], sib->child, sib->n * sizeof(sib->child[0]));
        in->n += sib->n;
        symh_reg_map_inner_drop(p, 0);
        symh_reg_map_inner_release(m, s);
    }
    return 1;
}

/* Removes slot `slot` of a leaf, nothing else. */
static inline void symh_reg_map_leaf_drop(symh_reg_leaf_t *lf, uint32_t slot)
{
    symh_reg_map_leaf_move(lf, slot, lf, slot + 1, lf->n - slot - 1);
    lf->n--;
    /* The tail past the old last slot is already clear: clear just that slot (a loop over the
     * whole tail compiles to three `rep stos`, a third of a remove's time). */
    lf->base[lf->n] = SYMH_REG_MAP_NO_KEY;
    lf->end[lf->n] = 0;
    lf->rec[lf->n] = SYMH_REG_MAP_NIL;
}

/* Removes slot `slot` of the leaf at the bottom of `path` (its record already released). */
static void symh_reg_map_tree_remove(symh_reg_map_t *m, const symh_reg_step_t *path, uint32_t leaf,
                                     uint32_t slot)
{
    symh_reg_leaf_t *lf = SYMH_REG_MAP_LEAF(m, leaf);
    uint32_t h, n;

    /* The leaf's smallest base is a separator in the nearest ancestor the descent left to the
     * right of a key: keep it exact. A leaf below the root holds at least LEAF_FLOOR >= 2. */
    if (slot == 0 && m->height > 0) {
        for (h = m->height; h > 0; --h)
            if (path[h - 1].pos > 0) {
                SYMH_REG_MAP_INNER(m, path[h - 1].node)->key[path[h - 1].pos - 1] = lf->base[1];
                break;
            }
    }
    symh_reg_map_leaf_drop(lf, slot);
    if (m->height == 0 || lf->n >= SYMH_REG_MAP_LEAF_MIN)
        return;
    h = m->height;
    if (!symh_reg_map_leaf_rebalance(m, &path[h - 1], leaf))
        return;
    /* The parent lost a child; walk up while nodes fall below half. */
    for (--h; h > 0; --h) {
        n = path[h].node;
        if (SYMH_REG_MAP_INNER(m, n)->n >= SYMH_REG_MAP_FANOUT_MIN)
            return;
        if (!symh_reg_map_inner_rebalance(m, &path[h - 1], n))
            return;
    }
    /* The root is path[0]; with one child left, that child becomes the root. */
    n = m->root;
    if (SYMH_REG_MAP_INNER(m, n)->n == 1) {
        m->root = SYMH_REG_MAP_INNER(m, n)->child[0];
        m->height--;
        symh_reg_map_inner_release(m, n);
    }
}

/* Builds a tree over records sorted[0, k) (in base order) in emptied pools: leaves, then each
 * level above, with items spread evenly so that every node is at least half full. Node numbers
 * of a level are written over the start of `sorted`, which the level just read past. Needs no
 * more nodes than any tree holding k or more ranges, so it fits the pools' capacity. */
static void symh_reg_map_tree_build(symh_reg_map_t *m, uint32_t *sorted, uint32_t k)
{
    uint32_t nodes, i, j, at, cnt, prev = SYMH_REG_MAP_NIL;

    m->height = 0;
    if (k == 0) {
        uint32_t r = symh_reg_map_leaf_new(m);

        SYMH_REG_MAP_LEAF(m, r)->n = 0;
        SYMH_REG_MAP_LEAF(m, r)->next = SYMH_REG_MAP_NIL;
        symh_reg_map_leaf_clear_tail(SYMH_REG_MAP_LEAF(m, r));
        m->root = r;
        return;
    }
    nodes = (k + SYMH_REG_MAP_LEAF_MAX - 1) / SYMH_REG_MAP_LEAF_MAX;
    for (i = 0, at = 0; i < nodes; ++i) {
        uint32_t take = k / nodes + (i < k % nodes), leaf = symh_reg_map_leaf_new(m);
        symh_reg_leaf_t *lf = SYMH_REG_MAP_LEAF(m, leaf);

        for (j = 0; j < take; ++j) {
            const symh_reg_entry_t *e = SYMH_REG_MAP_ENTRY(m, sorted[at + j]);

            lf->base[j] = e->base;
            lf->end[j] = e->base + e->length;
            lf->rec[j] = sorted[at + j];
            SYMH_REG_MAP_RECORD(m, sorted[at + j])->leaf = leaf;
        }
        lf->n = take;
        lf->next = SYMH_REG_MAP_NIL;
        symh_reg_map_leaf_clear_tail(lf);
        if (prev != SYMH_REG_MAP_NIL)
            SYMH_REG_MAP_LEAF(m, prev)->next = leaf;
        prev = leaf;
        at += take;
        sorted[i] = leaf; /* at >= i + 1: this level's reads are behind */
    }
    cnt = nodes;
    while (cnt > 1) {
        nodes = (cnt + SYMH_REG_MAP_FANOUT - 1) / SYMH_REG_MAP_FANOUT;
        for (i = 0, at = 0; i < nodes; ++i) {
            uint32_t take = cnt / nodes + (i < cnt % nodes), n = symh_reg_map_inner_new(m);
            symh_reg_inner_t *in = SYMH_REG_MAP_INNER(m, n);

            for (j = 0; j < take; ++j) {
                uint32_t c = sorted[at + j], d;

                in->child[j] = c;
                if (j == 0)
                    continue;
                /* The smallest base under c: its leftmost leaf's first. */
                for (d = m->height; d > 0; --d)
                    c = SYMH_REG_MAP_INNER(m, c)->child[0];
                in->key[j - 1] = SYMH_REG_MAP_LEAF(m, c)->base[0];
            }
            in->n = take;
            symh_reg_map_inner_clear_tail(in);
            at += take;
            sorted[i] = n;
        }
        cnt = nodes;
        m->height++;
    }
    m->root = sorted[0];
}

/* ---- the interface --------------------------------------------------------------------------- */

static void symh_reg_map_pools_free(symh_reg_map_t *m)
{
    free(m->hash);
    free(m->scratch);
    free(m->records.mem);
    free(m->leaves.mem);
    free(m->inners.mem);
}

static void symh_reg_map_pool_init(symh_reg_pool_t *p)
{
    p->free = SYMH_REG_MAP_NIL;
}

int symh_reg_map_create(symh_reg_map_t **map)
{
    symh_reg_map_t *m;

    if (map == NULL)
        return SYMH_ERR_INVALID_ARG;
    m = calloc(1, sizeof(*m));
    if (m == NULL)
        goto err_nomem;
    symh_reg_map_pool_init(&m->inners);
    symh_reg_map_pool_init(&m->leaves);
    symh_reg_map_pool_init(&m->records);
    if (symh_reg_map_pool_reserve(&m->records, sizeof(symh_reg_record_t), SYMH_REG_MAP_INITIAL,
                                  "ranges") != SYMH_OK ||
        symh_reg_map_records_reserve(m) != SYMH_OK ||
        symh_reg_map_pool_reserve(&m->leaves, sizeof(symh_reg_leaf_t), 4, "registry leaves") !=
            SYMH_OK ||
        symh_reg_map_pool_reserve(&m->inners, sizeof(symh_reg_inner_t), 4, "registry nodes") !=
            SYMH_OK)
        goto err_pools;
    symh_reg_map_tree_build(m, NULL, 0);

    atomic_init(&m->lock, 0);
    atomic_init(&m->epoch, 0);
    symh_reg_map_epoch_bump(m);
    symh_assert_expensive(symh_reg_map_check(m) == SYMH_OK);
    *map = m;
    return SYMH_OK;

err_pools:
    symh_reg_map_pools_free(m);
    free(m);
err_nomem:
    symh_error("registry: out of host memory creating the range map");
    return SYMH_ERR_NO_MEMORY;
}

void symh_reg_map_destroy(symh_reg_map_t *map)
{
    if (map == NULL)
        return;
    symh_reg_map_pools_free(map);
    free(map);
}

int symh_reg_map_insert(symh_reg_map_t *map, const symh_reg_entry_t *entry,
                        symh_reg_entry_t *conflict)
{
    symh_reg_step_t path[SYMH_REG_MAP_MAX_HEIGHT];
    const symh_reg_leaf_t *lf;
    uintptr_t base, end;
    uint64_t tag;
    uint32_t leaf, slot, hit, rec;
    int status;

    if (map == NULL || entry == NULL)
        return SYMH_ERR_INVALID_ARG;
    base = entry->base;
    if (entry->length == 0 || entry->length > UINTPTR_MAX - base)
        return SYMH_ERR_INVALID_ARG;
    end = base + entry->length;

    symh_reg_lock_write(&map->lock);
    /* The hash slot the record will take is most likely a cache miss: start it now. */
    tag = symh_reg_map_hash_tag(base);
    __builtin_prefetch(&map->hash[symh_reg_map_hash_home(map, tag)]);
    /* Only the predecessor (greatest base <= base) can reach over `base`, and only the successor
     * can start before `end`; the predecessor is the lower of the two. The successor is the next
     * slot, or the next leaf's first. */
    leaf = symh_reg_map_tree_descend(map, base, path);
    lf = SYMH_REG_MAP_LEAF(map, leaf);
    slot = symh_reg_map_leaf_rank(lf, base);
    hit = SYMH_REG_MAP_NIL;
    if (slot > 0 && lf->end[slot - 1] > base)
        hit = lf->rec[slot - 1];
    else if (slot < lf->n && lf->base[slot] < end)
        hit = lf->rec[slot];
    else if (slot == lf->n && lf->next != SYMH_REG_MAP_NIL &&
             SYMH_REG_MAP_LEAF(map, lf->next)->base[0] < end)
        hit = SYMH_REG_MAP_LEAF(map, lf->next)->rec[0];
    if (hit != SYMH_REG_MAP_NIL) {
        if (conflict != NULL)
            *conflict = *SYMH_REG_MAP_ENTRY(map, hit);
        status = SYMH_ERR_OVERLAP;
        goto out;
    }
    /* Everything a split can take, before anything changes (the calls only when some pool is
     * short: the common case is three comparisons). */
    if (symh_reg_map_pool_avail(&map->records) < 1 || map->follow_cap != map->records.cap ||
        symh_reg_map_pool_avail(&map->leaves) < 1 ||
        symh_reg_map_pool_avail(&map->inners) < map->height + 1) {
        status = symh_reg_map_records_reserve(map);
        if (status == SYMH_OK)
            status = symh_reg_map_pool_reserve(&map->leaves, sizeof(symh_reg_leaf_t), 1,
                                               "registry leaves");
        if (status == SYMH_OK)
            status = symh_reg_map_pool_reserve(&map->inners, sizeof(symh_reg_inner_t),
                                               map->height + 1, "registry nodes");
        if (status != SYMH_OK)
            goto out;
    }

    /* A range after a leaf's last may end past the separator to the leaf's right, when that
     * one is a removed base: raise it to the next leaf's first base (>= end: no overlap). The
     * reserves may have moved the pools: no node pointer from before them is used. */
    lf = SYMH_REG_MAP_LEAF(map, leaf);
    if (slot == lf->n) {
        uint32_t h;

        for (h = map->height; h > 0; --h) {
            symh_reg_inner_t *in = SYMH_REG_MAP_INNER(map, path[h - 1].node);

            if (path[h - 1].pos + 1 < in->n) {
                if (in->key[path[h - 1].pos] < end)
                    in->key[path[h - 1].pos] = SYMH_REG_MAP_LEAF(map, lf->next)->base[0];
                break;
            }
        }
    }
    rec = symh_reg_map_record_new(map);
    *SYMH_REG_MAP_ENTRY(map, rec) = *entry;
    SYMH_REG_MAP_ENTRY(map, rec)->label[SYMH_REG_LABEL_MAX] = '\0'; /* lookups may print it */
    symh_reg_map_hash_add(map, rec, tag);
    symh_reg_map_tree_insert(map, path, leaf, slot, base, end, rec);
    map->count++;
    status = SYMH_OK;
out:
    symh_reg_unlock_write(&map->lock);
    symh_assert_expensive(symh_reg_map_check(map) == SYMH_OK);
    return status;
}

int symh_reg_map_remove(symh_reg_map_t *map, uintptr_t addr, symh_reg_entry_t *removed)
{
    return symh_reg_map_take(map, addr, NULL, NULL, removed);
}

int symh_reg_map_take(symh_reg_map_t *map, uintptr_t addr,
                      int (*accept)(const symh_reg_entry_t *entry, void *arg), void *arg,
                      symh_reg_entry_t *found)
{
    symh_reg_step_t path[SYMH_REG_MAP_MAX_HEIGHT];
    symh_reg_leaf_t *lf = NULL;
    uint32_t leaf = 0, slot = 0, rec;
    int status = SYMH_OK, by_base = 0;

    if (map == NULL)
        return SYMH_ERR_INVALID_ARG;
    symh_reg_lock_write(&map->lock);
    /* The start of a range (a free, an unregister): the hash and the record name its leaf, and
     * when the leaf keeps more than LEAF_FLOOR ranges the slot is dropped there, no descent and
     * no path needed (a separator that named the base stays a valid bound). Otherwise, and for
     * an interior address, a descent that records the path for the rebalancing. */
    rec = symh_reg_map_hash_find(map, addr);
    if (rec != SYMH_REG_MAP_NIL) {
        leaf = SYMH_REG_MAP_RECORD(map, rec)->leaf;
        lf = SYMH_REG_MAP_LEAF(map, leaf);
        slot = symh_reg_map_leaf_rank(lf, addr) - 1; /* base[slot] == addr */
        by_base = map->height == 0 || lf->n > SYMH_REG_MAP_LEAF_FLOOR;
    }
    if (!by_base) {
        leaf = symh_reg_map_tree_descend(map, addr, path);
        lf = SYMH_REG_MAP_LEAF(map, leaf);
        slot = symh_reg_map_leaf_rank(lf, addr);
        if (slot == 0 || addr >= lf->end[slot - 1]) {
            status = SYMH_ERR_NOT_REGISTERED;
            goto out;
        }
        rec = lf->rec[--slot];
    }
    if (found != NULL)
        *found = *SYMH_REG_MAP_ENTRY(map, rec);
    if (accept != NULL && (status = accept(SYMH_REG_MAP_ENTRY(map, rec), arg)) != SYMH_OK)
        goto out;
    symh_reg_map_hash_remove(map, rec, lf->base[slot]);
    symh_reg_map_record_release(map, rec);
    if (by_base)
        symh_reg_map_leaf_drop(lf, slot);
    else
        symh_reg_map_tree_remove(map, path, leaf, slot);
    map->count--;
    symh_reg_map_epoch_bump(map);
out:
    symh_reg_unlock_write(&map->lock);
    symh_assert_expensive(symh_reg_map_check(map) == SYMH_OK);
    return status;
}

int symh_reg_map_lookup(const symh_reg_map_t *map, uintptr_t addr, symh_reg_entry_t *entry)
{
    /* The lock is the one mutable part of a map that lookups otherwise only read. */
    _Atomic uint32_t *lock;
    const symh_reg_leaf_t *lf;
    uint32_t slot;
    int status = SYMH_OK;

    if (map == NULL)
        return SYMH_ERR_INVALID_ARG;
    lock = (_Atomic uint32_t *)&map->lock;
    symh_reg_lock_read(lock);
    lf = SYMH_REG_MAP_LEAF(map, symh_reg_map_tree_descend(map, addr, NULL));
    slot = symh_reg_map_leaf_rank(lf, addr);
    /* Ranges never wrap and base[slot - 1] <= addr, so addr < end is the bounds check. */
    if (slot == 0 || addr >= lf->end[slot - 1])
        status = SYMH_ERR_NOT_REGISTERED;
    else if (entry != NULL)
        *entry = *SYMH_REG_MAP_ENTRY(map, lf->rec[slot - 1]);
    symh_reg_unlock_read(lock);
    return status;
}

uint64_t symh_reg_map_epoch(const symh_reg_map_t *map)
{
    return map == NULL ? 0 : atomic_load_explicit(&map->epoch, memory_order_acquire);
}

int symh_reg_map_lookup_hinted(const symh_reg_map_t *map, uintptr_t addr, symh_reg_map_hint_t *hint,
                               const symh_reg_entry_t **entry)
{
    _Atomic uint32_t *lock;
    const symh_reg_leaf_t *lf;
    uint32_t slot;
    int status = SYMH_OK;

    if (map == NULL || hint == NULL)
        return SYMH_ERR_INVALID_ARG;
    /* The hint's range holds addr and no removal happened since it was copied: still present. */
    if (hint->epoch == atomic_load_explicit(&map->epoch, memory_order_acquire) &&
        addr - hint->entry.base < hint->entry.length) {
        ++hint->hits;
        *entry = &hint->entry;
        return SYMH_OK;
    }
    lock = (_Atomic uint32_t *)&map->lock;
    symh_reg_lock_read(lock);
    lf = SYMH_REG_MAP_LEAF(map, symh_reg_map_tree_descend(map, addr, NULL));
    slot = symh_reg_map_leaf_rank(lf, addr);
    if (slot == 0 || addr >= lf->end[slot - 1]) {
        status = SYMH_ERR_NOT_REGISTERED;
    } else {
        /* Removals bump the epoch under the write lock, so the one read here goes with the
         * entry. */
        hint->epoch = atomic_load_explicit(&map->epoch, memory_order_relaxed);
        hint->entry = *SYMH_REG_MAP_ENTRY(map, lf->rec[slot - 1]);
        *entry = &hint->entry;
    }
    symh_reg_unlock_read(lock);
    return status;
}

int symh_reg_map_next(const symh_reg_map_t *map, uintptr_t addr, symh_reg_entry_t *entry)
{
    _Atomic uint32_t *lock;
    const symh_reg_leaf_t *lf;
    uint32_t slot, leaf;
    int status = SYMH_ERR_NOT_REGISTERED;

    if (map == NULL)
        return SYMH_ERR_INVALID_ARG;
    lock = (_Atomic uint32_t *)&map->lock;
    symh_reg_lock_read(lock);
    /* Every range left of the descent ends at or below its separator, so at or below addr (file
     * comment); the answer is the leaf's range holding addr, or its next one, or the first of
     * the next non-empty leaf in the chain. */
    leaf = symh_reg_map_tree_descend(map, addr, NULL);
    lf = SYMH_REG_MAP_LEAF(map, leaf);
    slot = symh_reg_map_leaf_rank(lf, addr);
    if (slot > 0 && addr < lf->end[slot - 1])
        --slot;
    while (slot >= lf->n && lf->next != SYMH_REG_MAP_NIL) {
        lf = SYMH_REG_MAP_LEAF(map, lf->next);
        slot = 0;
    }
    if (slot < lf->n) {
        status = SYMH_OK;
        if (entry != NULL)
            *entry = *SYMH_REG_MAP_ENTRY(map, lf->rec[slot]);
    }
    symh_reg_unlock_read(lock);
    return status;
}

size_t symh_reg_map_count(const symh_reg_map_t *map)
{
    _Atomic uint32_t *lock;
    size_t count;

    if (map == NULL)
        return 0;
    lock = (_Atomic uint32_t *)&map->lock;
    symh_reg_lock_read(lock);
    count = map->count;
    symh_reg_unlock_read(lock);
    return count;
}

size_t symh_reg_map_remove_if(symh_reg_map_t *map, int (*keep)(const symh_reg_entry_t *, void *),
                              void *arg)
{
    uint32_t leaf, kept = 0, i;
    size_t removed;

    if (map == NULL || keep == NULL)
        return 0;
    symh_reg_lock_write(&map->lock);
    /* Keepers in base order into scratch (the leaves' chain), then one rebuild over emptied
     * pools: O(n) whatever the number removed, and no allocation. */
    leaf = map->root;
    for (i = map->height; i > 0; --i)
        leaf = SYMH_REG_MAP_INNER(map, leaf)->child[0];
    for (; leaf != SYMH_REG_MAP_NIL; leaf = SYMH_REG_MAP_LEAF(map, leaf)->next) {
        const symh_reg_leaf_t *lf = SYMH_REG_MAP_LEAF(map, leaf);

        for (i = 0; i < lf->n; ++i) {
            uint32_t rec = lf->rec[i];

            if (keep(SYMH_REG_MAP_ENTRY(map, rec), arg))
                map->scratch[kept++] = rec;
            else
                symh_reg_map_record_release(map, rec);
        }
    }
    removed = map->count - kept;
    if (removed != 0) {
        map->leaves.top = map->leaves.nfree = 0;
        map->leaves.free = SYMH_REG_MAP_NIL;
        map->inners.top = map->inners.nfree = 0;
        map->inners.free = SYMH_REG_MAP_NIL;
        symh_reg_map_tree_build(map, map->scratch, kept);
        symh_reg_map_hash_fill(map);
        symh_reg_map_epoch_bump(map);
    }
    map->count = kept;
    symh_reg_unlock_write(&map->lock);
    symh_assert_expensive(symh_reg_map_check(map) == SYMH_OK);
    return removed;
}

/* ---- check ----------------------------------------------------------------------------------- */

typedef struct {
    uintptr_t prev_end;
    int have_prev;
    uint32_t prev_leaf; /* the last leaf visited, whose `next` must be the one visited now */
    size_t ranges;
    uint32_t leaves;
    uint32_t inners;
} symh_reg_check_t;

/* Checks the leaf `n` (not the root unless `root`); *min gets its smallest base, *max_end the
 * end of its last range. */
static int symh_reg_map_check_leaf(const symh_reg_map_t *m, uint32_t n, int root,
                                   symh_reg_check_t *st, uintptr_t *min, uintptr_t *max_end)
{
    const symh_reg_leaf_t *lf;
    uint32_t i;

    if (n >= m->leaves.top) {
        symh_error("registry check: leaf %u out of range (%u used)", n, m->leaves.top);
        return -1;
    }
    lf = SYMH_REG_MAP_LEAF(m, n);
    if (lf->n > SYMH_REG_MAP_LEAF_MAX || (!root && lf->n < SYMH_REG_MAP_LEAF_FLOOR)) {
        symh_error("registry check: leaf %u holds %u ranges", n, lf->n);
        return -1;
    }
    if (st->prev_leaf != SYMH_REG_MAP_NIL && SYMH_REG_MAP_LEAF(m, st->prev_leaf)->next != n) {
        symh_error("registry check: leaf %u is chained to %u, not to the next leaf %u",
                   st->prev_leaf, SYMH_REG_MAP_LEAF(m, st->prev_leaf)->next, n);
        return -1;
    }
    st->prev_leaf = n;
    st->leaves++;
    for (i = 0; i < SYMH_REG_MAP_LEAF_MAX; ++i) {
        const symh_reg_entry_t *e;

        if (i >= lf->n) {
            if (lf->base[i] != SYMH_REG_MAP_NO_KEY) {
                symh_error("registry check: leaf %u has a key in unused slot %u", n, i);
                return -1;
            }
            continue;
        }
        if (lf->rec[i] >= m->records.top) {
            symh_error("registry check: leaf %u slot %u names record %u (%u used)", n, i,
                       lf->rec[i], m->records.top);
            return -1;
        }
        e = SYMH_REG_MAP_ENTRY(m, lf->rec[i]);
        if (e->length == 0 || e->base != lf->base[i] || e->length > UINTPTR_MAX - e->base ||
            lf->end[i] != e->base + e->length) {
            symh_error("registry check: leaf %u slot %u (base %#jx end %#jx) disagrees with "
                       "record %u (base %#jx length %zu)",
                       n, i, (uintmax_t)lf->base[i], (uintmax_t)lf->end[i], lf->rec[i],
                       (uintmax_t)e->base, e->length);
            return -1;
        }
        if (SYMH_REG_MAP_RECORD(m, lf->rec[i])->leaf != n ||
            symh_reg_map_hash_find(m, lf->base[i]) != lf->rec[i]) {
            symh_error("registry check: record %u (leaf %u slot %u) is noted in leaf %u and its "
                       "base %#jx hashes to record %u",
                       lf->rec[i], n, i, SYMH_REG_MAP_RECORD(m, lf->rec[i])->leaf,
                       (uintmax_t)lf->base[i], symh_reg_map_hash_find(m, lf->base[i]));
            return -1;
        }
        if (st->have_prev && st->prev_end > lf->base[i]) {
            symh_error("registry check: range at %#jx starts before the previous one ends (%#jx)",
                       (uintmax_t)lf->base[i], (uintmax_t)st->prev_end);
            return -1;
        }
        st->have_prev = 1;
        st->prev_end = lf->end[i];
        st->ranges++;
    }
    *min = lf->n > 0 ? lf->base[0] : SYMH_REG_MAP_NO_KEY;
    *max_end = lf->n > 0 ? lf->end[lf->n - 1] : 0;
    return 0;
}

/* Checks the subtree of inner node `n` at `depth` (leaves at m->height); *min gets its smallest
 * base, *max_end its greatest end. */
static int symh_reg_map_check_node(const symh_reg_map_t *m, uint32_t n, uint32_t depth,
                                   symh_reg_check_t *st, uintptr_t *min, uintptr_t *max_end)
{
    const symh_reg_inner_t *in;
    uint32_t i;

    if (depth == m->height)
        return symh_reg_map_check_leaf(m, n, depth == 0, st, min, max_end);
    if (n >= m->inners.top) {
        symh_error("registry check: node %u out of range (%u used)", n, m->inners.top);
        return -1;
    }
    in = SYMH_REG_MAP_INNER(m, n);
    if (in->n > SYMH_REG_MAP_FANOUT || in->n < (depth == 0 ? 2u : SYMH_REG_MAP_FANOUT_MIN)) {
        symh_error("registry check: node %u at depth %u has %u children", n, depth, in->n);
        return -1;
    }
    st->inners++;
    for (i = in->n; i < SYMH_REG_MAP_FANOUT; ++i)
        if (in->key[i - 1] != SYMH_REG_MAP_NO_KEY) {
            symh_error("registry check: node %u has a key in unused slot %u", n, i - 1);
            return -1;
        }
    for (i = 0; i < in->n; ++i) {
        uintptr_t cmin, cend;

        if (symh_reg_map_check_node(m, in->child[i], depth + 1, st, &cmin, &cend) < 0)
            return -1;
        if (i == 0) {
            *min = cmin;
        } else if (cmin < in->key[i - 1] || *max_end > in->key[i - 1] ||
                   (i > 1 && in->key[i - 2] >= in->key[i - 1])) {
            /* Ordering across children follows from the leaf walk; the bounds are checked here. */
            symh_error("registry check: node %u key %u is %#jx: the ranges under child %u end at "
                       "%#jx, the smallest base under child %u is %#jx",
                       n, i - 1, (uintmax_t)in->key[i - 1], i - 1, (uintmax_t)*max_end, i,
                       (uintmax_t)cmin);
            return -1;
        }
        *max_end = cend;
    }
    return 0;
}

/* Walks a pool's free list: every item released, no more than the pool's count. */
static int symh_reg_map_check_free_list(const symh_reg_map_t *m, const symh_reg_pool_t *p,
                                        int which)
{
    uint32_t n, seen = 0;

    for (n = p->free; n != SYMH_REG_MAP_NIL;) {
        int released;
        uint32_t next;

        if (n >= p->top || ++seen > p->nfree)
            goto bad;
        if (which == 0) {
            released = SYMH_REG_MAP_INNER(m, n)->n == SYMH_REG_MAP_FREE;
            next = SYMH_REG_MAP_INNER(m, n)->child[0];
        } else if (which == 1) {
            released = SYMH_REG_MAP_LEAF(m, n)->n == SYMH_REG_MAP_FREE;
            next = SYMH_REG_MAP_LEAF(m, n)->next;
        } else {
            released = SYMH_REG_MAP_ENTRY(m, n)->length == 0;
            next = (uint32_t)SYMH_REG_MAP_ENTRY(m, n)->base;
        }
        if (!released)
            goto bad;
        n = next;
    }
    if (seen == p->nfree && p->top <= p->cap)
        return 0;
bad:
    symh_error("registry check: the free list of pool %d runs through %u (%u free, %u used of %u)",
               which, n, p->nfree, p->top, p->cap);
    return -1;
}

/* The O(n) invariant walk (reg_map.h): the tree height, the three free lists, every node and leaf
 * (fill, unused key slots, the leaf chain, ranges in order without overlap, separators bounding
 * their children, each record naming its leaf and found by the base hash), then the counts of
 * ranges, leaves, nodes and hashed records against the pools, under the map's read lock.
 * Called by symh_assert_expensive when the map is created and after every insert, take (remove) and
 * remove_if (builds with SYMH_EXPENSIVE_CHECKS), by the unit tests (tests/shim/shim_reg.h) and by
 * fuzz_reg_map. SYMH_OK, or SYMH_ERR_SYSTEM after one error line saying what broke. */
int symh_reg_map_check(const symh_reg_map_t *map)
{
    _Atomic uint32_t *lock = (_Atomic uint32_t *)&map->lock;
    symh_reg_check_t st = { 0, 0, SYMH_REG_MAP_NIL, 0, 0, 0 };
    int status = SYMH_ERR_SYSTEM;
    uintptr_t min, max_end;

    symh_reg_lock_read(lock);
    if (map->height >= SYMH_REG_MAP_MAX_HEIGHT) {
        symh_error("registry check: tree height %u", map->height);
        goto out;
    }
    if (symh_reg_map_check_free_list(map, &map->inners, 0) < 0 ||
        symh_reg_map_check_free_list(map, &map->leaves, 1) < 0 ||
        symh_reg_map_check_free_list(map, &map->records, 2) < 0)
        goto out;
    if (symh_reg_map_check_node(map, map->root, 0, &st, &min, &max_end) < 0)
        goto out;
    if (st.prev_leaf == SYMH_REG_MAP_NIL ||
        SYMH_REG_MAP_LEAF(map, st.prev_leaf)->next != SYMH_REG_MAP_NIL) {
        symh_error("registry check: the leaf chain does not end at the last leaf");
        goto out;
    }
    if (st.ranges != map->count || st.ranges + map->records.nfree != map->records.top ||
        st.leaves + map->leaves.nfree != map->leaves.top ||
        st.inners + map->inners.nfree != map->inners.top) {
        symh_error("registry check: the tree holds %zu ranges (count %zu) in %u leaves and %u "
                   "nodes; records %u used %u free, leaves %u used %u free, nodes %u used %u "
                   "free",
                   st.ranges, map->count, st.leaves, st.inners, map->records.top,
                   map->records.nfree, map->leaves.top, map->leaves.nfree, map->inners.top,
                   map->inners.nfree);
        goto out;
    }
    {
        size_t used = 0, i;

        for (i = 0; i <= map->hash_mask; ++i)
            used += map->hash[i] != SYMH_REG_HASH_EMPTY;
        if (used != map->count || 2 * (size_t)map->records.top > (size_t)map->hash_mask + 1) {
            symh_error("registry check: the base hash holds %zu records in %zu slots (count %zu, "
                       "%u records used)",
                       used, (size_t)map->hash_mask + 1, map->count, map->records.top);
            goto out;
        }
    }
    status = SYMH_OK;
out:
    symh_reg_unlock_read(lock);
    return status;
}
