/* device: the public device queries (symh_device_*) over the host backend's SYMH_HOST_DEVICES
 * devices, and the per-thread current device. */
#include "device/dev_devices.h"

#include <stdatomic.h>
#include <stdio.h>

#include <symheap/device.h>

#include "core/core_config.h"
#include "core/core_status.h"
#include "device/dev_mr.h"

/* The count is 0 outside init/finalize. Each init starts a new generation, so a current device
 * a thread set before a symh_finalize (maybe past a smaller new count) reads as 0 again. */
static atomic_int symh_dev_devices_n;
static atomic_uint symh_dev_devices_generation;

static _Thread_local struct {
    unsigned generation;
    int device;
} symh_dev_devices_tls;

int symh_dev_devices_check_config(char *msg, size_t msg_len)
{
    size_t n = symh_config_size(SYMH_CFG_HOST_DEVICES);

    if (n < 1 || n > SYMH_DEV_DEVICES_MAX) {
        snprintf(msg, msg_len, "SYMH_HOST_DEVICES=%s: the number of host devices must be 1 to %d",
                 symh_config_text(SYMH_CFG_HOST_DEVICES), SYMH_DEV_DEVICES_MAX);
        return SYMH_ERR_INVALID_ARG;
    }
    return SYMH_OK;
}

int symh_dev_devices_init(void)
{
    int n = (int)symh_config_size(SYMH_CFG_HOST_DEVICES);
    int status = symh_dev_mr_table_init(n);

    if (status != SYMH_OK)
        return status;
    atomic_fetch_add(&symh_dev_devices_generation, 1);
    atomic_store(&symh_dev_devices_n, n);
    symh_debug("devices: %d host device(s)", n);
    return SYMH_OK;
}

void symh_dev_devices_fini(void)
{
    atomic_store(&symh_dev_devices_n, 0);
    symh_dev_mr_table_fini();
}

int symh_dev_devices_count(void)
{
    return atomic_load(&symh_dev_devices_n);
}

int symh_dev_devices_current(void)
{
    if (symh_dev_devices_tls.generation != atomic_load(&symh_dev_devices_generation))
        return 0;
    return symh_dev_devices_tls.device;
}

int symh_device_count(void)
{
    int n = symh_dev_devices_count();

    SYMH_CHECK_INIT(n > 0, -1);
    symh_status_set(SYMH_OK);
    return n;
}

int symh_device_get(void)
{
    SYMH_CHECK_INIT(symh_dev_devices_count() > 0, SYMH_ERR_NOT_INITIALIZED);
    symh_status_set(SYMH_OK);
    return symh_dev_devices_current();
}

int symh_device_set(int device)
{
    int n = symh_dev_devices_count();

    SYMH_CHECK_INIT(n > 0, SYMH_ERR_NOT_INITIALIZED);
    if (device < 0 || device >= n) {
        symh_error("symh_device_set: device %d is not a device id (0 to %d)", device, n - 1);
        return symh_status_set(SYMH_ERR_NO_DEVICE);
    }
    symh_dev_devices_tls.generation = atomic_load(&symh_dev_devices_generation);
    symh_dev_devices_tls.device = device;
    return symh_status_set(SYMH_OK);
}

symh_device_kind_t symh_device_kind(int device)
{
    int n = symh_dev_devices_count();

    SYMH_CHECK_INIT(n > 0, SYMH_DEVICE_KIND_HOST);
    if (device == SYMH_DEVICE_CURRENT)
        device = symh_dev_devices_current();
    if (device < 0 || device >= n) {
        symh_error("symh_device_kind: device %d is not a device id (0 to %d) or "
                   "SYMH_DEVICE_CURRENT",
                   device, n - 1);
        symh_status_set(SYMH_ERR_NO_DEVICE);
        return SYMH_DEVICE_KIND_HOST;
    }
    symh_status_set(SYMH_OK);
    return SYMH_DEVICE_KIND_HOST; /* the host backend is the only one so far */
}
