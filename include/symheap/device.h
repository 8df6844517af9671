/* symheap public header: devices (API.md "Devices and the device allocator", the device part):
 * how many there are, this thread's current device, and their kind. On the host backend
 * SYMH_HOST_DEVICES (default 1) host devices stand in for GPUs (docs/devices.md). */
#ifndef SYMHEAP_DEVICE_H
#define SYMHEAP_DEVICE_H

#include <symheap/defs.h>

SYMH_BEGIN_C_DECLS

typedef enum {
    SYMH_DEVICE_KIND_HOST,
    SYMH_DEVICE_KIND_HIP,
    SYMH_DEVICE_KIND_CUDA
} symh_device_kind_t;

/* Device arguments that are not an id: this thread's current device, or any device (skip the
 * device check, where a call says so). */
#define SYMH_DEVICE_CURRENT (-1)
#define SYMH_DEVICE_ANY     (-2)

/* Number of devices of this PE, or -1 (and SYMH_ERR_NOT_INITIALIZED) outside init/finalize. */
SYMH_API int symh_device_count(void);

/* This thread's current device: 0 for every thread after each symh_init, until the thread calls
 * symh_device_set. SYMH_ERR_NOT_INITIALIZED outside init/finalize. */
SYMH_API int symh_device_get(void);

/* Makes `device` (0 .. symh_device_count() - 1) this thread's current device.
 * SYMH_ERR_INVALID_ARG for any other value, the current device unchanged. */
SYMH_API int symh_device_set(int device);

/* The kind of `device` (an id, or SYMH_DEVICE_CURRENT). The enum has no error value: on failure
 * (bad id: SYMH_ERR_INVALID_ARG; outside init/finalize: SYMH_ERR_NOT_INITIALIZED) it logs,
 * sets symh_last_error() and returns SYMH_DEVICE_KIND_HOST. */
SYMH_API symh_device_kind_t symh_device_kind(int device);

SYMH_END_C_DECLS

#endif /* SYMHEAP_DEVICE_H */
