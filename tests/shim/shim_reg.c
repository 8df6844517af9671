/* tests/shim: C side of shim_reg.h. */
#include "shim_reg.h"

#include <stddef.h>
#include <string.h>

#include <symheap/status.h>

#include "registration/reg_map.h"

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
