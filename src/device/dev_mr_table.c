/* device: the per-device memory resource table: one atomic slot per device, each starting at a
 * device resource the runtime creates at init and destroys at finalize. */
#include "device/dev_mr.h"

#include <stdatomic.h>
#include <stdlib.h>

#include <symheap/device.h>

#include "core/core_status.h"
#include "device/dev_devices.h"

/* Written only by init and fini, which run alone; get/set/reset only touch the slots, which are
 * atomic, so concurrent calls always see a valid resource (in some order). */
static struct {
    int n;
    _Atomic(symh_mr_t *) *slots;
    symh_mr_t **initial;
} symh_dev_mr_table;

int symh_dev_mr_table_init(int n)
{
    int i;

    symh_dev_mr_table.slots = calloc((size_t)n, sizeof(*symh_dev_mr_table.slots));
    symh_dev_mr_table.initial = calloc((size_t)n, sizeof(*symh_dev_mr_table.initial));
    if (symh_dev_mr_table.slots == NULL || symh_dev_mr_table.initial == NULL)
        goto err_nomem;
    symh_dev_mr_table.n = n;
    for (i = 0; i < n; ++i) {
        symh_mr_t *mr = symh_dev_mr_device_new(i);

        if (mr == NULL)
            goto err_nomem;
        mr->initial = 1;
        symh_dev_mr_table.initial[i] = mr;
        atomic_init(&symh_dev_mr_table.slots[i], mr);
    }
    return SYMH_OK;

err_nomem:
    symh_error("symh_init: cannot allocate the memory resources of %d devices", n);
    symh_dev_mr_table_fini();
    return SYMH_ERR_NO_MEMORY;
}

void symh_dev_mr_table_fini(void)
{
    int i;

    if (symh_dev_mr_table.initial != NULL) {
        for (i = 0; i < symh_dev_mr_table.n; ++i)
            if (symh_dev_mr_table.initial[i] != NULL)
                symh_dev_mr_table.initial[i]->ops->destroy(symh_dev_mr_table.initial[i]);
    }
    free(symh_dev_mr_table.initial);
    free((void *)symh_dev_mr_table.slots);
    symh_dev_mr_table.initial = NULL;
    symh_dev_mr_table.slots = NULL;
    symh_dev_mr_table.n = 0;
}

int symh_dev_mr_table_holds(const symh_mr_t *mr, int *device)
{
    int i, n = symh_dev_devices_count();

    for (i = 0; i < n; ++i)
        if (atomic_load(&symh_dev_mr_table.slots[i]) == mr) {
            *device = i;
            return 1;
        }
    return 0;
}

symh_mr_t *symh_dev_mr_table_slot(int device)
{
    return atomic_load_explicit(&symh_dev_mr_table.slots[device], memory_order_acquire);
}

/* The slot a table call names (a device id; SYMH_DEVICE_CURRENT where `accept` says so), or -1
 * after logging one line and recording the last error. */
static int symh_dev_mr_table_slot_of(const char *func, int device, unsigned accept)
{
    /* No symh_init needed: the devices come up locally on first use. */
    int status = symh_dev_devices_count() > 0 ? SYMH_OK : symh_dev_devices_local_up(NULL, NULL);

    if (status == SYMH_OK)
        status = symh_dev_devices_resolve(func, device, accept, &device);
    symh_status_set(status);
    return status == SYMH_OK ? device : -1;
}

static symh_mr_t *symh_dev_mr_table_get(const char *func, int device, unsigned accept)
{
    int slot = symh_dev_mr_table_slot_of(func, device, accept);

    return slot >= 0 ? atomic_load(&symh_dev_mr_table.slots[slot]) : NULL;
}

static symh_mr_t *symh_dev_mr_table_set(const char *func, int device, unsigned accept,
                                        symh_mr_t *mr)
{
    int slot = symh_dev_mr_table_slot_of(func, device, accept);

    if (slot < 0)
        return NULL;
    if (mr == NULL)
        mr = symh_dev_mr_table.initial[slot];
    return atomic_exchange(&symh_dev_mr_table.slots[slot], mr);
}

symh_mr_t *symh_mr_get_per_device(int device)
{
    return symh_dev_mr_table_get(__func__, device, 0);
}

symh_mr_t *symh_mr_set_per_device(int device, symh_mr_t *mr)
{
    return symh_dev_mr_table_set(__func__, device, 0, mr);
}

symh_mr_t *symh_mr_get_current(void)
{
    return symh_dev_mr_table_get(__func__, SYMH_DEVICE_CURRENT, SYMH_DEV_DEVICES_CURRENT_OK);
}

symh_mr_t *symh_mr_set_current(symh_mr_t *mr)
{
    return symh_dev_mr_table_set(__func__, SYMH_DEVICE_CURRENT, SYMH_DEV_DEVICES_CURRENT_OK, mr);
}

symh_mr_t *symh_mr_reset_per_device(int device)
{
    return symh_dev_mr_table_set(__func__, device, 0, NULL);
}

symh_mr_t *symh_mr_reset_current(void)
{
    return symh_dev_mr_table_set(__func__, SYMH_DEVICE_CURRENT, SYMH_DEV_DEVICES_CURRENT_OK, NULL);
}
