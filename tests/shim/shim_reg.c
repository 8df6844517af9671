/* tests/shim: C side of shim_reg.h. */
#include "shim_reg.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/status.h>

#include "registration/reg_map.h"
#include "registration/reg_registry.h"
#include "runtime/rt_symm.h"

_Static_assert(SYMH_SHIM_REG_LABEL_MAX == SYMH_REG_LABEL_MAX, "label size");

/* Defined in reg_map.c for tests; not part of reg_map.h. */

/* The shim's entry is reg_map.h's field for field (the enum as an int), so a copy converts. */
#define SHIM_REG_SAME(field)                                                                      \
    _Static_assert(offsetof(symh_shim_reg_entry_t, field) == offsetof(symh_reg_entry_t, field) && \
                       sizeof(((symh_shim_reg_entry_t *)0)->field) ==                             \
                           sizeof(((symh_reg_entry_t *)0)->field),                                \
                   "symh_shim_reg_entry_t." #field)
SHIM_REG_SAME(base);
SHIM_REG_SAME(length);
SHIM_REG_SAME(kind);
SHIM_REG_SAME(device);
SHIM_REG_SAME(label);
SHIM_REG_SAME(owner);
SHIM_REG_SAME(mem);
SHIM_REG_SAME(tl_handles);
_Static_assert(sizeof(symh_shim_reg_entry_t) == sizeof(symh_reg_entry_t), "entry size");

static void shim_reg_to(const symh_shim_reg_entry_t *from, symh_reg_entry_t *to)
{
    memcpy(to, from, sizeof(*to));
}

static void shim_reg_from(const symh_reg_entry_t *from, symh_shim_reg_entry_t *to)
{
    memcpy(to, from, sizeof(*to));
}

int symh_shim_reg_map_create(symh_shim_reg_map_t **map)
{
    return symh_reg_map_create(map);
}

void symh_shim_reg_map_destroy(symh_shim_reg_map_t *map)
{
    symh_reg_map_destroy(map);
}

int symh_shim_reg_map_insert(symh_shim_reg_map_t *map, const symh_shim_reg_entry_t *entry,
                             symh_shim_reg_entry_t *conflict)
{
    symh_reg_entry_t in, out;
    int status;

    if (entry == NULL)
        return symh_reg_map_insert(map, NULL, conflict == NULL ? NULL : &out);
    shim_reg_to(entry, &in);
    status = symh_reg_map_insert(map, &in, conflict == NULL ? NULL : &out);
    if (status == SYMH_ERR_OVERLAP && conflict != NULL)
        shim_reg_from(&out, conflict);
    return status;
}

int symh_shim_reg_map_remove(symh_shim_reg_map_t *map, uintptr_t addr,
                             symh_shim_reg_entry_t *removed)
{
    symh_reg_entry_t out;
    int status = symh_reg_map_remove(map, addr, removed == NULL ? NULL : &out);

    if (status == SYMH_OK && removed != NULL)
        shim_reg_from(&out, removed);
    return status;
}

int symh_shim_reg_map_lookup(const symh_shim_reg_map_t *map, uintptr_t addr,
                             symh_shim_reg_entry_t *entry)
{
    symh_reg_entry_t out;
    int status = symh_reg_map_lookup(map, addr, entry == NULL ? NULL : &out);

    if (status == SYMH_OK && entry != NULL)
        shim_reg_from(&out, entry);
    return status;
}

uint64_t symh_shim_reg_map_epoch(const symh_shim_reg_map_t *map)
{
    return symh_reg_map_epoch(map);
}

struct symh_shim_reg_hint {
    symh_reg_map_hint_t hint;
};

symh_shim_reg_hint_t *symh_shim_reg_hint_create(void)
{
    return calloc(1, sizeof(symh_shim_reg_hint_t));
}

void symh_shim_reg_hint_destroy(symh_shim_reg_hint_t *hint)
{
    free(hint);
}

int symh_shim_reg_map_lookup_hinted(const symh_shim_reg_map_t *map, uintptr_t addr,
                                    symh_shim_reg_hint_t *hint, symh_shim_reg_entry_t *entry,
                                    int *hit)
{
    uint64_t hits = hint->hint.hits;
    const symh_reg_entry_t *found;
    int status = symh_reg_map_lookup_hinted(map, addr, &hint->hint, &found);

    *hit = hint->hint.hits != hits;
    if (status == SYMH_OK)
        shim_reg_from(found, entry);
    return status;
}

int symh_shim_reg_map_next(const symh_shim_reg_map_t *map, uintptr_t addr,
                           symh_shim_reg_entry_t *entry)
{
    symh_reg_entry_t out;
    int status = symh_reg_map_next(map, addr, entry == NULL ? NULL : &out);

    if (status == SYMH_OK && entry != NULL)
        shim_reg_from(&out, entry);
    return status;
}

size_t symh_shim_reg_map_count(const symh_shim_reg_map_t *map)
{
    return symh_reg_map_count(map);
}

typedef struct {
    int (*keep)(const symh_shim_reg_entry_t *, void *);
    void *arg;
} shim_reg_keep_t;

static int shim_reg_keep(const symh_reg_entry_t *entry, void *arg)
{
    const shim_reg_keep_t *k = arg;
    symh_shim_reg_entry_t e;

    shim_reg_from(entry, &e);
    return k->keep(&e, k->arg);
}

size_t symh_shim_reg_map_remove_if(symh_shim_reg_map_t *map,
                                   int (*keep)(const symh_shim_reg_entry_t *, void *), void *arg)
{
    shim_reg_keep_t k = { keep, arg };

    if (keep == NULL)
        return symh_reg_map_remove_if(map, NULL, NULL);
    return symh_reg_map_remove_if(map, shim_reg_keep, &k);
}

int symh_shim_reg_map_check(const symh_shim_reg_map_t *map)
{
    return symh_reg_map_check(map);
}

static int shim_reg_accept_device(const symh_reg_entry_t *entry, void *arg)
{
    return entry->device == *(const int *)arg ? SYMH_OK : SYMH_ERR_DEVICE_MISMATCH;
}

int symh_shim_reg_map_take_device(symh_shim_reg_map_t *map, uintptr_t addr, int device,
                                  symh_shim_reg_entry_t *found)
{
    symh_reg_entry_t out;
    int status =
        symh_reg_map_take(map, addr, shim_reg_accept_device, &device, found == NULL ? NULL : &out);

    if (found != NULL && (status == SYMH_OK || status == SYMH_ERR_DEVICE_MISMATCH))
        shim_reg_from(&out, found);
    return status;
}

static struct {
    const symh_reg_nic_hooks_t *wrapped;
    size_t maps, unmaps;
    char dummies[1];
} shim_reg_nic;

static int shim_reg_nic_map(void *addr, size_t length, void **handle)
{
    int status = SYMH_OK;

    if (shim_reg_nic.wrapped != NULL)
        status = shim_reg_nic.wrapped->map(addr, length, handle);
    else
        *handle = shim_reg_nic.dummies; /* not NULL: "mapped" */
    if (status == SYMH_OK)
        __atomic_add_fetch(&shim_reg_nic.maps, 1, __ATOMIC_RELAXED);
    return status;
}

static void shim_reg_nic_unmap(void *handle)
{
    if (shim_reg_nic.wrapped != NULL)
        shim_reg_nic.wrapped->unmap(handle);
    __atomic_add_fetch(&shim_reg_nic.unmaps, 1, __ATOMIC_RELAXED);
}

static const symh_reg_nic_hooks_t shim_reg_nic_hooks = { shim_reg_nic_map, shim_reg_nic_unmap };

void symh_shim_reg_nic_count(void)
{
    shim_reg_nic.wrapped = symh_reg_get_nic_hooks();
    shim_reg_nic.maps = shim_reg_nic.unmaps = 0;
    symh_reg_set_nic_hooks(&shim_reg_nic_hooks);
}

void symh_shim_reg_nic_uncount(void)
{
    if (symh_reg_get_nic_hooks() == &shim_reg_nic_hooks)
        symh_reg_set_nic_hooks(shim_reg_nic.wrapped);
    shim_reg_nic.wrapped = NULL;
}

void symh_shim_reg_nic_counts(size_t *maps, size_t *unmaps)
{
    *maps = __atomic_load_n(&shim_reg_nic.maps, __ATOMIC_RELAXED);
    *unmaps = __atomic_load_n(&shim_reg_nic.unmaps, __ATOMIC_RELAXED);
}

int symh_shim_symm_count(void)
{
    return symh_rt_symm_count();
}
