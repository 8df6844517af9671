/* device: the choice of the device backend (SYMH_DEVICE_BACKEND), the public device queries
 * (symh_device_*) over its devices (SYMH_HOST_DEVICES on the host backend), and the per-thread
 * current device. */
#include "device/dev_devices.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <symheap/device.h>

#include "core/core_config.h"
#include "core/core_status.h"
#include "device/dev.h"
#include "device/dev_mr.h"

/* SYMH_DEVICE_BACKEND's choices, in the table's order. */
enum { SYMH_DEV_BACKEND_AUTO, SYMH_DEV_BACKEND_HOST, SYMH_DEV_BACKEND_HIP, SYMH_DEV_BACKEND_CUDA };

/* The backend the configuration check chose, applied by init. */
static struct {
    const symh_dev_ops_t *ops;
    symh_device_kind_t kind;
    int count;
    char note[384]; /* auto falling back to host: why (logged by init) */
} symh_dev_devices_choice;

static symh_device_kind_t symh_dev_devices_kind = SYMH_DEVICE_KIND_HOST;

/* The count is 0 outside init/finalize. Each init starts a new generation, so a current device
 * a thread set before a symh_finalize (maybe past a smaller new count) reads as 0 again. */
static atomic_int symh_dev_devices_n;
static atomic_uint symh_dev_devices_generation;

/* 1 while the devices were brought up locally (first use without symh_init, no MPI), until
 * symh_init adopts them or the process exits. */
static int symh_dev_devices_local;
static pthread_mutex_t symh_dev_devices_lock = PTHREAD_MUTEX_INITIALIZER;

static _Thread_local struct {
    unsigned generation;
    int device;
} symh_dev_devices_tls;

/* Opens one GPU backend; SYMH_OK with the choice filled in, else the reason in `why`. */
static int symh_dev_devices_open(int backend, char *why, size_t why_len)
{
    int cuda = backend == SYMH_DEV_BACKEND_CUDA;
    int status = cuda ? symh_dev_cuda_open(&symh_dev_devices_choice.ops,
                                           &symh_dev_devices_choice.count, why, why_len)
                      : symh_dev_hip_open(&symh_dev_devices_choice.ops,
                                          &symh_dev_devices_choice.count, why, why_len);

    if (status == SYMH_OK && symh_dev_devices_choice.count > SYMH_DEV_DEVICES_MAX)
        symh_dev_devices_choice.count = SYMH_DEV_DEVICES_MAX;
    symh_dev_devices_choice.kind = cuda ? SYMH_DEVICE_KIND_CUDA : SYMH_DEVICE_KIND_HIP;
    return status;
}

/* Chooses the backend SYMH_DEVICE_BACKEND asks for. GPU backends are probed here, before the
 * bootstrap, so an explicit choice that cannot start fails symh_init as any configuration error
 * does: on every PE, one line from the lowest. */
static int symh_dev_devices_select(char *msg, size_t msg_len)
{
    int backend = symh_config_choice(SYMH_CFG_DEVICE_BACKEND);
    char cuda_why[160], hip_why[160];

    symh_dev_devices_choice.ops = &symh_dev_host_ops;
    symh_dev_devices_choice.kind = SYMH_DEVICE_KIND_HOST;
    symh_dev_devices_choice.count = (int)symh_config_size(SYMH_CFG_HOST_DEVICES);
    symh_dev_devices_choice.note[0] = '\0';
    switch (backend) {
    case SYMH_DEV_BACKEND_HOST:
        return SYMH_OK;
    case SYMH_DEV_BACKEND_HIP:
    case SYMH_DEV_BACKEND_CUDA:
        if (symh_dev_devices_open(backend, cuda_why, sizeof(cuda_why)) == SYMH_OK)
            return SYMH_OK;
        snprintf(msg, msg_len, "SYMH_DEVICE_BACKEND=%s: the %s backend cannot start: %s",
                 symh_config_text(SYMH_CFG_DEVICE_BACKEND),
                 backend == SYMH_DEV_BACKEND_CUDA ? "CUDA" : "HIP", cuda_why);
        return SYMH_ERR_NO_DEVICE;
    default:
        if (symh_dev_devices_open(SYMH_DEV_BACKEND_CUDA, cuda_why, sizeof(cuda_why)) == SYMH_OK ||
            symh_dev_devices_open(SYMH_DEV_BACKEND_HIP, hip_why, sizeof(hip_why)) == SYMH_OK)
            return SYMH_OK;
        symh_dev_devices_choice.ops = &symh_dev_host_ops;
        symh_dev_devices_choice.kind = SYMH_DEVICE_KIND_HOST;
        symh_dev_devices_choice.count = (int)symh_config_size(SYMH_CFG_HOST_DEVICES);
        snprintf(symh_dev_devices_choice.note, sizeof(symh_dev_devices_choice.note),
                 "CUDA: %s; HIP: %s", cuda_why, hip_why);
        return SYMH_OK;
    }
}

int symh_dev_devices_check_config(char *msg, size_t msg_len)
{
    size_t n = symh_config_size(SYMH_CFG_HOST_DEVICES);

    if (n < 1 || n > SYMH_DEV_DEVICES_MAX) {
        snprintf(msg, msg_len, "SYMH_HOST_DEVICES=%s: the number of host devices must be 1 to %d",
                 symh_config_text(SYMH_CFG_HOST_DEVICES), SYMH_DEV_DEVICES_MAX);
        return SYMH_ERR_INVALID_ARG;
    }
    return symh_dev_devices_select(msg, msg_len);
}

/* Starts the chosen GPU backend (the host backend needs nothing). */
static int symh_dev_devices_start(symh_device_kind_t kind, int n)
{
    switch (kind) {
    case SYMH_DEVICE_KIND_CUDA:
        return symh_dev_cuda_start(n);
    case SYMH_DEVICE_KIND_HIP:
        return symh_dev_hip_start(n);
    default:
        return SYMH_OK;
    }
}

static void symh_dev_devices_stop(symh_device_kind_t kind)
{
    if (kind == SYMH_DEVICE_KIND_CUDA)
        symh_dev_cuda_stop();
    else if (kind == SYMH_DEVICE_KIND_HIP)
        symh_dev_hip_stop();
}

int symh_dev_devices_init(void)
{
    int n, status;

    if (symh_dev_devices_local && symh_dev_devices_count() > 0) {
        /* Brought up locally before symh_init: adopted as they are (with their resources and
         * the allocations made from them); the choice symh_init's check made is dropped. */
        symh_dev_devices_local = 0;
        symh_dev_devices_choice.ops = NULL;
        atomic_fetch_add(&symh_dev_devices_generation, 1); /* every init starts on device 0 */
        symh_debug("devices: symh_init adopts the %d device(s) brought up locally",
                   symh_dev_devices_count());
        return SYMH_OK;
    }
    if (symh_dev_devices_choice.ops == NULL) {
        char msg[256];

        /* Not checked first (a caller other than symh_init): choose now. */
        status = symh_dev_devices_check_config(msg, sizeof(msg));
        if (status != SYMH_OK) {
            symh_error("%s", msg);
            return status;
        }
    }
    n = symh_dev_devices_choice.count;
    status = symh_dev_devices_start(symh_dev_devices_choice.kind, n);
    if (status != SYMH_OK)
        goto err_choice;
    /* Before the table: the initial device resources hand out this backend's memory. */
    symh_dev = symh_dev_devices_choice.ops;
    status = symh_dev_mr_table_init(n);
    if (status != SYMH_OK) {
        symh_dev = &symh_dev_host_ops;
        symh_dev_devices_stop(symh_dev_devices_choice.kind);
        goto err_choice;
    }
    symh_dev_devices_kind = symh_dev_devices_choice.kind;
    atomic_fetch_add(&symh_dev_devices_generation, 1);
    atomic_store(&symh_dev_devices_n, n);
    if (symh_dev_devices_choice.note[0] != '\0')
        symh_info("devices: SYMH_DEVICE_BACKEND=auto: no GPU backend can start, using the host "
                  "backend (%s)",
                  symh_dev_devices_choice.note);
    symh_debug("devices: %d %s device(s)", n, symh_dev->name);
    symh_dev_devices_choice.ops = NULL;
    return SYMH_OK;

err_choice:
    symh_dev_devices_choice.ops = NULL;
    return status;
}

void symh_dev_devices_fini(void)
{
    symh_dev_devices_local = 0;
    atomic_store(&symh_dev_devices_n, 0);
    symh_dev_mr_table_fini();
    symh_dev_devices_stop(symh_dev_devices_kind);
    symh_dev = &symh_dev_host_ops;
    symh_dev_devices_kind = SYMH_DEVICE_KIND_HOST;
    symh_dev_devices_choice.ops = NULL;
}

static void (*symh_dev_devices_exit_hook)(void);

/* At exit: what is still local goes down (the registry's hook first: its allocations). */
static void symh_dev_devices_local_exit(void)
{
    pthread_mutex_lock(&symh_dev_devices_lock);
    if (symh_dev_devices_local) {
        if (symh_dev_devices_exit_hook != NULL)
            symh_dev_devices_exit_hook();
        symh_dev_devices_fini();
    }
    pthread_mutex_unlock(&symh_dev_devices_lock);
}

int symh_dev_devices_local_up(void (*exit_hook)(void), int (*up_hook)(void))
{
    static int registered;
    int status = SYMH_OK;

    pthread_mutex_lock(&symh_dev_devices_lock);
    if (atomic_load(&symh_dev_devices_n) == 0) {
        status = symh_dev_devices_init();
        if (status == SYMH_OK) {
            symh_dev_devices_local = 1;
            symh_debug("devices: brought up locally (no symh_init)");
        }
    }
    if (status == SYMH_OK && exit_hook != NULL)
        symh_dev_devices_exit_hook = exit_hook;
    if (status == SYMH_OK && up_hook != NULL)
        status = up_hook();
    if (!registered && atexit(symh_dev_devices_local_exit) == 0)
        registered = 1;
    pthread_mutex_unlock(&symh_dev_devices_lock);
    return status;
}

int symh_dev_devices_local_mode(void)
{
    return symh_dev_devices_local;
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

int symh_dev_devices_resolve(const char *func, int device, unsigned accept, int *resolved)
{
    int n = symh_dev_devices_count();

    if (device >= 0 && device < n) {
        *resolved = device;
        return SYMH_OK;
    }
    if (device == SYMH_DEVICE_CURRENT && (accept & SYMH_DEV_DEVICES_CURRENT_OK)) {
        *resolved = symh_dev_devices_current();
        return SYMH_OK;
    }
    if (device == SYMH_DEVICE_ANY && (accept & SYMH_DEV_DEVICES_ANY_OK)) {
        *resolved = SYMH_DEVICE_ANY;
        return SYMH_OK;
    }
    symh_error("%s: no device %d (%d is not a device id of the %s backend: 0 to %d%s%s)", func,
               device, device, symh_dev->name, n - 1,
               (accept & SYMH_DEV_DEVICES_CURRENT_OK) ? ", or SYMH_DEVICE_CURRENT" : "",
               (accept & SYMH_DEV_DEVICES_ANY_OK) ? ", or SYMH_DEVICE_ANY" : "");
    return SYMH_ERR_NO_DEVICE;
}

int symh_device_count(void)
{
    SYMH_DEV_DEVICES_ENSURE(-1);
    symh_status_set(SYMH_OK);
    return symh_dev_devices_count();
}

int symh_device_get(void)
{
    SYMH_DEV_DEVICES_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    symh_status_set(SYMH_OK);
    return symh_dev_devices_current();
}

int symh_device_set(int device)
{
    int status;

    SYMH_DEV_DEVICES_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    status = symh_dev_devices_resolve(__func__, device, 0, &device);
    if (status != SYMH_OK)
        return symh_status_set(status);
    symh_dev_devices_tls.generation = atomic_load(&symh_dev_devices_generation);
    symh_dev_devices_tls.device = device;
    return symh_status_set(SYMH_OK);
}

symh_device_kind_t symh_device_kind(int device)
{
    int status;

    SYMH_DEV_DEVICES_ENSURE(SYMH_DEVICE_KIND_HOST);
    status = symh_dev_devices_resolve(__func__, device, SYMH_DEV_DEVICES_CURRENT_OK, &device);
    symh_status_set(status);
    if (status != SYMH_OK)
        return SYMH_DEVICE_KIND_HOST;
    return symh_dev_devices_kind; /* every device of a PE is on the one backend */
}
