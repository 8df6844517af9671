/* tests/shim: the registry's interval map (src/registration/reg_map.h) for the C++ unit tests. */
#ifndef SYMH_SHIM_REG_H
#define SYMH_SHIM_REG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The map, opaque to the tests. */
typedef struct symh_reg_map symh_shim_reg_map_t;

/* SYMH_REG_LABEL_MAX. */
#define SYMH_SHIM_REG_LABEL_MAX 32

/* The fields of symh_reg_entry_t (kind as an int: 0 heap, 1 user, 2 symmetric alias, 3 VMM,
 * 4 device). */
typedef struct {
    uintptr_t base;
    size_t length;
    int kind;
    int device;
    char label[SYMH_SHIM_REG_LABEL_MAX + 1];
    void *owner;
    void *mem;
    void *tl_handles[2];
} symh_shim_reg_entry_t;

/* The functions of reg_map.h, one to one (NULL out-arguments are passed through as NULL). */
int symh_shim_reg_map_create(symh_shim_reg_map_t **map);
void symh_shim_reg_map_destroy(symh_shim_reg_map_t *map);
int symh_shim_reg_map_insert(symh_shim_reg_map_t *map, const symh_shim_reg_entry_t *entry,
                             symh_shim_reg_entry_t *conflict);
int symh_shim_reg_map_remove(symh_shim_reg_map_t *map, uintptr_t addr,
                             symh_shim_reg_entry_t *removed);
int symh_shim_reg_map_lookup(const symh_shim_reg_map_t *map, uintptr_t addr,
                             symh_shim_reg_entry_t *entry);
int symh_shim_reg_map_next(const symh_shim_reg_map_t *map, uintptr_t addr,
                           symh_shim_reg_entry_t *entry);
size_t symh_shim_reg_map_count(const symh_shim_reg_map_t *map);
size_t symh_shim_reg_map_remove_if(symh_shim_reg_map_t *map,
                                   int (*keep)(const symh_shim_reg_entry_t *, void *), void *arg);
/* The removal epoch, and lookups through a hint (reg_map.h): the hint is opaque here, created
 * empty; *hit = 1 when the hint answered (no lock, no descent), 0 when the map was searched. */
typedef struct symh_shim_reg_hint symh_shim_reg_hint_t;
uint64_t symh_shim_reg_map_epoch(const symh_shim_reg_map_t *map);
symh_shim_reg_hint_t *symh_shim_reg_hint_create(void);
void symh_shim_reg_hint_destroy(symh_shim_reg_hint_t *hint);
int symh_shim_reg_map_lookup_hinted(const symh_shim_reg_map_t *map, uintptr_t addr,
                                    symh_shim_reg_hint_t *hint, symh_shim_reg_entry_t *entry,
                                    int *hit);
/* The map's O(n) invariant walk: SYMH_OK, or SYMH_ERR_SYSTEM with one error log line. */
int symh_shim_reg_map_check(const symh_shim_reg_map_t *map);
/* take with an accept that refuses (SYMH_ERR_DEVICE_MISMATCH) a range not on `device`. */
int symh_shim_reg_map_take_device(symh_shim_reg_map_t *map, uintptr_t addr, int device,
                                  symh_shim_reg_entry_t *found);

/* Counting NIC hooks of the registry (after symh_init): they wrap the active NIC transport's
 * (or, with none, hand out distinct dummy handles) and count maps and unmaps until `uncount`,
 * which restores what was installed (nothing once symh_finalize has stopped a transport). */
void symh_shim_reg_nic_count(void);
void symh_shim_reg_nic_uncount(void);
void symh_shim_reg_nic_counts(size_t *maps, size_t *unmaps);

/* Live symmetric regions of this PE (symh_rt_symm_count, src/runtime/rt_symm.h). */
int symh_shim_symm_count(void);

#ifdef __cplusplus
}
#endif

#endif /* SYMH_SHIM_REG_H */
