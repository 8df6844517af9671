/* device: the devices of this PE (SYMH_HOST_DEVICES host devices on the host backend), each
 * thread's current device, and the runtime's hooks that bring them and their memory resources
 * up and down. */
#ifndef SYMH_DEV_DEVICES_H
#define SYMH_DEV_DEVICES_H

#include <stddef.h>

/* Most host devices SYMH_HOST_DEVICES may ask for. */
#define SYMH_DEV_DEVICES_MAX 1024

/* Checks the device configuration; on failure writes a message naming the variable and its value
 * into `msg` (the runtime decides which PE logs it). */
int symh_dev_devices_check_config(char *msg, size_t msg_len);

/* Presents the configured devices and creates each one's initial memory resource; fini undoes
 * it (safe after a failed init). Not concurrent with any other device or resource call. */
int symh_dev_devices_init(void);
void symh_dev_devices_fini(void);

/* Brings the devices up locally (first use without symh_init: no MPI) unless they are up, under
 * one mutex; a later symh_init adopts them (symh_dev_devices_init) and they are taken down at exit
 * while still local. Under the same mutex: records exit_hook (run at exit before the devices go
 * down, while they are still local) and runs up_hook (the layer above's own bring-up), either
 * may be NULL. SYMH_OK or the failed step's status (logged). */
int symh_dev_devices_local_up(void (*exit_hook)(void), int (*up_hook)(void));
/* 1 while the devices are up locally and not adopted by symh_init. */
int symh_dev_devices_local_mode(void);

/* The public device calls' entry: brings the devices up locally on first use (no symh_init
 * needed); on failure records the status and returns retval. */
#define SYMH_DEV_DEVICES_ENSURE(retval)                                      \
    do {                                                                     \
        if (symh_dev_devices_count() == 0) {                                 \
            int symh_ensure_status_ = symh_dev_devices_local_up(NULL, NULL); \
            if (symh_ensure_status_ != SYMH_OK) {                            \
                symh_status_set(symh_ensure_status_);                        \
                return retval;                                               \
            }                                                                \
        }                                                                    \
    } while (0)

/* The device count, 0 while the devices are down. */
int symh_dev_devices_count(void);

/* This thread's current device (0 until it sets one); only meaningful while initialized. */
int symh_dev_devices_current(void);

/* What a device argument may be besides a device id (0 .. count - 1), for
 * symh_dev_devices_resolve. */
#define SYMH_DEV_DEVICES_CURRENT_OK 1u /* SYMH_DEVICE_CURRENT: this thread's current device */
#define SYMH_DEV_DEVICES_ANY_OK     2u /* SYMH_DEVICE_ANY: passed on as itself */

/* The one check of a device argument of the public call `func` (while initialized): writes the
 * device it names into *resolved, or logs one line naming `func`, the value and what it may be and
 * returns SYMH_ERR_NO_DEVICE (the caller records it as the last error). */
int symh_dev_devices_resolve(const char *func, int device, unsigned accept, int *resolved);

#endif /* SYMH_DEV_DEVICES_H */
