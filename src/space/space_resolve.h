/* space: the symmetric address space of this PE and its one resolver (docs/architecture.md "The
 * symmetric address space"). Four segments hold symmetric addresses: the heap and symheap's
 * internal area in the window, the live symmetric regions of the window's registration area,
 * and the executable's globals. The transport fills the description as it maps them (heap at
 * symh_tl_rma_init, regions at symh_tl_symm_init/_add, globals at symh_tl_data_init, NIC key
 * slots of regions at symh_tl_nic_symm_add); every classification of a symmetric address (the RMA
 * and AMO data path and its slow path, the NIC transports' remote key, the NIC's local side, the
 * IPC ops) goes through symh_space_resolve, so there is one answer to "what is this address".
 * The heap, the data path's case, is resolved inline: one subtraction and two compares. */
#ifndef SYMH_SPACE_RESOLVE_H
#define SYMH_SPACE_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

/* NIC key slots (docs/transports.md): 0 = internal area + heap, 1 = the executable's globals,
 * 2 + i = a symmetric region's; the NIC transports key their remote keys by them. */
#define SYMH_SPACE_HEAP_SLOT         0
#define SYMH_SPACE_GLOBALS_SLOT      1
#define SYMH_SPACE_FIRST_REGION_SLOT 2

typedef enum {
    SYMH_SPACE_NONE = 0, /* not symmetric */
    SYMH_SPACE_HEAP,     /* the symmetric heap */
    SYMH_SPACE_INTERNAL, /* symheap's own area at the window's start (the collectives' words):
                          * symmetric for the transports, not for a user's RMA */
    SYMH_SPACE_REGION,   /* a live region of symh_buffer_register_symmetric */
    SYMH_SPACE_GLOBALS   /* the executable's globals and statics */
} symh_space_kind_t;

/* Where a symmetric address lies. */
typedef struct {
    symh_space_kind_t kind;
    /* HEAP, INTERNAL, REGION: the offset from the window base (the same on every PE, so a peer's
     * address is its window base plus this); GLOBALS: from the globals' start (each PE's own). */
    size_t offset;
    /* Bytes from the address to the end of its segment (INTERNAL: to the heap's end, as the NIC's
     * slot 0 covers both); 0 for NONE. */
    size_t left;
    int slot; /* its NIC key slot; -1 for NONE and for a region the NIC has not keyed */
} symh_space_target_t;

typedef struct {
    uintptr_t window;  /* this PE's window base; 0 while symheap is down */
    uintptr_t heap_lo; /* the heap: [heap_lo, heap_lo + heap_size) */
    size_t heap_size;
    size_t heap_offset; /* heap_lo - window */
    /* The symmetric-registration area [lo, lo + size) at `window_offset` in the window. Regions
     * start on granule boundaries and never share a granule, so one entry per granule names the
     * region holding it: head[g] = 1 + the granule its region starts at (0: none), length[] the
     * region's bytes at its first granule, slot_at[] its NIC key slot there (n_slot_at entries;
     * NULL without a NIC). */
    struct {
        uintptr_t lo;
        size_t size;
        size_t window_offset;
        unsigned shift; /* log2 of the granule */
        uint32_t *head;
        size_t *length;
        int *slot_at;
        size_t n_slot_at;
    } regions;
    struct {
        uintptr_t lo; /* this PE's globals: [lo, lo + size); size 0 while symheap is down */
        size_t size;
    } globals;
} symh_space_t;

extern symh_space_t symh_space;

/* Local: describes this PE's window and heap (the runtime's init, after the window is mapped);
 * symh_space_heap_clear at finalize makes every heap address resolve as not symmetric. */
void symh_space_heap_set(void *window, size_t heap_offset, size_t heap_size);
void symh_space_heap_clear(void);

/* Where the live region holding `addr` starts (its offset in the registration area: a multiple
 * of the granule), with *left = the bytes from `addr` to its end; SIZE_MAX when none holds it.
 * O(1): one load of the granule's entry. */
static inline size_t symh_space_region_find(uintptr_t addr, size_t *left)
{
    uintptr_t off = addr - symh_space.regions.lo;
    size_t start, rel;
    uint32_t head;

    if (off >= symh_space.regions.size)
        return SIZE_MAX;
    head = __atomic_load_n(&symh_space.regions.head[off >> symh_space.regions.shift],
                           __ATOMIC_ACQUIRE);
    if (head == 0)
        return SIZE_MAX;
    start = (size_t)(head - 1) << symh_space.regions.shift;
    rel = off - start;
    if (rel >= symh_space.regions.length[head - 1])
        return SIZE_MAX;
    *left = symh_space.regions.length[head - 1] - rel;
    return start;
}

/* Whether `addr` is one of the executable's globals: the resolver's compare, inline for the
 * collectives' peer addresses (coll_team_slot.h), which are the internal area's but for these. */
static inline int symh_space_in_globals(uintptr_t addr)
{
    return addr - symh_space.globals.lo < symh_space.globals.size;
}

/* Where `addr`, outside the heap, lies (out of line: the data path's case is the heap). By value,
 * so that the caller's target is never address-taken and the inline heap case stays in
 * registers (a load/store put or get stores nothing). */
symh_space_target_t symh_space_resolve_other(const void *addr);

/* The resolver's first step, the heap: 1 and *heap_off = the offset of `addr` from the heap's
 * start when [addr, addr + bytes) lies in the heap, else 0. The RMA data path takes this step
 * alone (tl_rma.h) and builds the target from it only when a transport needs one, so that a
 * load/store put or get keeps nothing else live (keeping a whole target cost 0.5 ns of a 4 ns
 * get). */
static inline __attribute__((always_inline)) int symh_space_in_heap(const void *addr, size_t bytes,
                                                                    size_t *heap_off)
{
    uintptr_t off = (uintptr_t)addr - symh_space.heap_lo;

    *heap_off = off;
    return off < symh_space.heap_size && bytes <= symh_space.heap_size - off;
}

/* The target of heap offset `heap_off` (symh_space_in_heap's; below the heap's size). */
static inline symh_space_target_t symh_space_heap_target(size_t heap_off)
{
    return (symh_space_target_t){ .kind = SYMH_SPACE_HEAP,
                                  .offset = heap_off + symh_space.heap_offset,
                                  .left = symh_space.heap_size - heap_off,
                                  .slot = SYMH_SPACE_HEAP_SLOT };
}

/* The one classification of a symmetric address: *out = its segment, offset, bytes left and NIC
 * key slot, and 1 when [addr, addr + bytes) lies in one segment; 0 when it does not (*out still
 * says where `addr` lies, kind NONE when nowhere, for the caller's message). */
static inline __attribute__((always_inline)) int symh_space_resolve(const void *addr, size_t bytes,
                                                                    symh_space_target_t *out)
{
    size_t off;

    if (symh_space_in_heap(addr, bytes, &off) || off < symh_space.heap_size) {
        *out = symh_space_heap_target(off);
        return bytes <= out->left;
    }
    *out = symh_space_resolve_other(addr);
    return out->kind != SYMH_SPACE_NONE && bytes <= out->left;
}

#endif /* SYMH_SPACE_RESOLVE_H */
