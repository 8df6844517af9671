/* registration: the interval map behind the allocation registry (docs/design.md "The allocation
 * registry"): non-overlapping address ranges, each with what the runtime knows about it; lookup
 * of the range containing any address (interior pointers included) in O(log n); insert in
 * O(log n); remove in expected O(1) at the first byte of a range (most of the time) and O(log n)
 * otherwise; many concurrent readers, one writer at a time. */
#ifndef SYMH_REG_MAP_H
#define SYMH_REG_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    SYMH_REG_KIND_HEAP,       /* the symmetric heap */
    SYMH_REG_KIND_USER,       /* symh_buffer_register */
    SYMH_REG_KIND_SYMM_ALIAS, /* symh_buffer_register_symmetric's alias */
    SYMH_REG_KIND_VMM,        /* a mapping made by the public VMM API */
    SYMH_REG_KIND_DEVICE      /* a device allocation */
} symh_reg_kind_t;

#define SYMH_REG_LABEL_MAX 32

typedef struct {
    uintptr_t base;
    size_t length; /* > 0; base + length does not overflow */
    symh_reg_kind_t kind;
    int device;
    char label[SYMH_REG_LABEL_MAX + 1];
    void *owner;         /* owning memory resource (device allocations) */
    void *mem;           /* physical object (VMM mappings, aliases) */
    void *tl_handles[2]; /* per-transport handles (UCX memory handle, libfabric MR) */
} symh_reg_entry_t;

typedef struct symh_reg_map symh_reg_map_t;

int symh_reg_map_create(symh_reg_map_t **map);
void symh_reg_map_destroy(symh_reg_map_t *map);

/* Adds `entry`. SYMH_ERR_INVALID_ARG for a zero length or base + length overflowing;
 * SYMH_ERR_OVERLAP when it overlaps a present range (adjacent ranges are fine), and then
 * *conflict (when not NULL) receives the lowest overlapping entry; SYMH_ERR_NO_MEMORY. Nothing
 * changes on failure. */
int symh_reg_map_insert(symh_reg_map_t *map, const symh_reg_entry_t *entry,
                        symh_reg_entry_t *conflict);

/* Removes the range containing `addr` (its start or any interior address) and copies it to
 * *removed (when not NULL). SYMH_ERR_NOT_REGISTERED when no range contains it. */
int symh_reg_map_remove(symh_reg_map_t *map, uintptr_t addr, symh_reg_entry_t *removed);

/* Finds the range containing `addr`, copies it to *found (when not NULL) and removes it when
 * accept(entry, arg) returns SYMH_OK (or accept is NULL); otherwise returns accept's status and
 * removes nothing. One descent under the write lock: a check-then-remove without a window for
 * another writer. SYMH_ERR_NOT_REGISTERED when no range contains `addr`. `accept` runs under the
 * write lock and must not call back into the map. */
int symh_reg_map_take(symh_reg_map_t *map, uintptr_t addr,
                      int (*accept)(const symh_reg_entry_t *entry, void *arg), void *arg,
                      symh_reg_entry_t *found);

/* Copies the range containing `addr` to *entry. SYMH_ERR_NOT_REGISTERED when none does. */
int symh_reg_map_lookup(const symh_reg_map_t *map, uintptr_t addr, symh_reg_entry_t *entry);

/* The removal epoch: changes with every removal (remove, take, remove_if that removed something),
 * never with an insert or a lookup, and is never the same for two maps of the process (each map
 * and each removal draws a new value from one process-wide counter, which starts above 0). So an
 * entry copied at epoch E is still present, unchanged, as long as the map's epoch is E. */
uint64_t symh_reg_map_epoch(const symh_reg_map_t *map);

/* A caller's copy of the last range it found (one per thread: the NIC's local side,
 * transport/tl_nic.c). Zero-initialised: empty. */
typedef struct {
    uint64_t epoch; /* the map's epoch when `entry` was copied; 0: empty */
    uint64_t hits;  /* lookups answered from `entry` (for tests and statistics) */
    symh_reg_entry_t entry;
} symh_reg_map_hint_t;

/* symh_reg_map_lookup through *hint: when the map's epoch is still hint's and hint's range holds
 * `addr`, *entry = &hint->entry with no lock and no descent (one load of the epoch); otherwise a
 * lookup that refills *hint (under the lock, the epoch read with the entry). *entry stays valid
 * until the next call with the same hint. SYMH_ERR_NOT_REGISTERED when no range holds `addr` (the
 * hint keeps its last range). */
int symh_reg_map_lookup_hinted(const symh_reg_map_t *map, uintptr_t addr, symh_reg_map_hint_t *hint,
                               const symh_reg_entry_t **entry);
/* Copies the lowest range that ends after `addr` to *entry: the one containing `addr`, else the
 * first above it (so the ranges overlapping [lo, hi) are next(lo), next(its end), ... while their
 * base is below hi). SYMH_ERR_NOT_REGISTERED when every range ends at or below `addr`. */
int symh_reg_map_next(const symh_reg_map_t *map, uintptr_t addr, symh_reg_entry_t *entry);

size_t symh_reg_map_count(const symh_reg_map_t *map);

/* Removes every entry for which keep(entry, arg) returns 0, calling nothing else; returns how
 * many it removed. */
size_t symh_reg_map_remove_if(symh_reg_map_t *map, int (*keep)(const symh_reg_entry_t *, void *),
                              void *arg);

/* Walks every entry and checks the invariants (ordering, no overlap, node fill, count). O(n): for
 * tests and fuzzing. SYMH_OK, or SYMH_ERR_SYSTEM with one error line saying what broke. */
int symh_reg_map_check(const symh_reg_map_t *map);

#endif /* SYMH_REG_MAP_H */
