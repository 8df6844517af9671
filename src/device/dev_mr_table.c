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

/* The checks of every table call; logs one line. */
static int symh_dev_mr_table_check(const char *func, int device)
{
    int n = symh_dev_devices_count();

    if (n == 0) {
        symh_error("%s: symheap is not initialized (call symh_init first; it is also an error "
                   "after symh_finalize)",
                   func);
        return SYMH_ERR_NOT_INITIALIZED;
    }
    if (device < 0 || device >= n) {
        symh_error("%s: device %d is not a device id (0 to %d)", func, device, n - 1);
        return SYMH_ERR_NO_DEVICE;
    }
    return SYMH_OK;
}

static symh_mr_t *symh_dev_mr_table_get(const char *func, int device)
{
    int status = symh_dev_mr_table_check(func, device);

    symh_status_set(status);
    return status == SYMH_OK ? atomic_load(&symh_dev_mr_table.slots[device]) : NULL;
}

static symh_mr_t *symh_dev_mr_table_set(const char *func, int device, symh_mr_t *mr)
{
    int status = symh_dev_mr_table_check(func, device);

    symh_status_set(status);
    if (status != SYMH_OK)
        return NULL;
    if (mr == NULL)
        mr = symh_dev_mr_table.initial[device];
    return atomic_exchange(&symh_dev_mr_table.slots[device], mr);
}

/* The current device outside init reads as 0; the table check reports the real problem. */
static int symh_dev_mr_table_current(void)
{
    return symh_dev_devices_count() > 0 ? symh_dev_devices_current() : 0;
}

symh_mr_t *symh_mr_get_per_device(int device)
{
    return symh_dev_mr_table_get(__func__, device);
}

symh_mr_t *symh_mr_set_per_device(int device, symh_mr_t *mr)
{
    return symh_dev_mr_table_set(__func__, device, mr);
}

symh_mr_t *symh_mr_get_current(void)
{
    return symh_dev_mr_table_get(__func__, symh_dev_mr_table_current());
}

symh_mr_t *symh_mr_set_current(symh_mr_t *mr)
{
    return symh_dev_mr_table_set(__func__, symh_dev_mr_table_current(), mr);
}

symh_mr_t *symh_mr_reset_per_device(int device)
{
    return symh_dev_mr_table_set(__func__, device, NULL);
}

symh_mr_t *symh_mr_reset_current(void)
{
    return symh_dev_mr_table_set(__func__, symh_dev_mr_table_current(), NULL);
}
