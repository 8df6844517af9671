/* device: the public memory resource calls (argument checks, name, upstream, destroy) and the
 * base resources: device memory (host memory on the host backend), host and pinned host. */
#include "device/dev_mr.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <symheap/device.h>

#include "core/core_status.h"
#include "core/core_util.h"
#include "device/dev.h"
#include "device/dev_devices.h"

/* The checks every allocate and deallocate share; logs one line naming the bad value. */
static int symh_dev_mr_check_args(const char *func, const symh_mr_t *mr, const void *ptr,
                                  size_t bytes, size_t alignment)
{
    if (mr == NULL) {
        symh_error("%s: the memory resource is NULL", func);
        return SYMH_ERR_INVALID_ARG;
    }
    if (ptr == NULL) {
        symh_error("%s: the pointer is NULL (%s resource)", func, mr->ops->name);
        return SYMH_ERR_INVALID_ARG;
    }
    if (bytes == 0) {
        symh_error("%s: zero bytes (%s resource)", func, mr->ops->name);
        return SYMH_ERR_INVALID_ARG;
    }
    if (!symh_dev_mr_is_pow2(alignment)) {
        symh_error("%s: alignment %zu is not a power of two (%s resource)", func, alignment,
                   mr->ops->name);
        return SYMH_ERR_INVALID_ARG;
    }
    return SYMH_OK;
}

int symh_mr_allocate(symh_mr_t *mr, size_t bytes, size_t alignment, void **ptr)
{
    void *p = NULL;
    int status = symh_dev_mr_check_args(__func__, mr, ptr, bytes, alignment);

    if (status == SYMH_OK)
        status = symh_dev_mr_allocate(mr, bytes, alignment, &p);
    if (status == SYMH_OK)
        *ptr = p;
    return symh_status_set(status);
}

int symh_mr_deallocate(symh_mr_t *mr, void *ptr, size_t bytes, size_t alignment)
{
    int status = symh_dev_mr_check_args(__func__, mr, ptr, bytes, alignment);

    if (status == SYMH_OK)
        status = symh_dev_mr_deallocate(mr, ptr, bytes, alignment);
    return symh_status_set(status);
}

const char *symh_mr_name(const symh_mr_t *mr)
{
    if (mr == NULL) {
        symh_error("symh_mr_name: the memory resource is NULL");
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return NULL;
    }
    symh_status_set(SYMH_OK);
    return mr->ops->name;
}

symh_mr_t *symh_mr_get_upstream(const symh_mr_t *mr)
{
    if (mr == NULL) {
        symh_error("symh_mr_get_upstream: the memory resource is NULL");
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return NULL;
    }
    symh_status_set(SYMH_OK);
    return mr->upstream;
}

void symh_mr_destroy(symh_mr_t *mr)
{
    int device;

    if (mr == NULL) {
        symh_status_set(SYMH_OK);
        return;
    }
    if (mr->initial) {
        symh_error("symh_mr_destroy: the initial %s resource of device %d belongs to the "
                   "runtime (symh_finalize destroys it)",
                   mr->ops->name, mr->device);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    if (symh_dev_mr_table_holds(mr, &device)) {
        symh_error("symh_mr_destroy: the %s resource is set for device %d; set another "
                   "resource for it first",
                   mr->ops->name, device);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    mr->ops->destroy(mr);
    symh_status_set(SYMH_OK);
}

void symh_dev_mr_base_init(symh_mr_t *mr, const symh_mr_ops_t *ops, symh_mr_t *upstream)
{
    mr->ops = ops;
    mr->upstream = upstream;
    mr->device = -1;
    mr->initial = 0;
}

/* ---- host: the host backend's allocations, whatever backend device memory uses ------------ */

static int symh_dev_mr_host_allocate(symh_mr_t *mr, size_t bytes, size_t alignment, void **ptr)
{
    (void)mr;
    return symh_dev_host->alloc(-1, bytes, alignment, ptr);
}

static int symh_dev_mr_host_deallocate(symh_mr_t *mr, void *ptr, size_t bytes, size_t alignment)
{
    (void)mr;
    (void)bytes;
    (void)alignment;
    return symh_dev_host->free(-1, ptr);
}

static void symh_dev_mr_plain_destroy(symh_mr_t *mr)
{
    free(mr);
}

static const symh_mr_ops_t symh_dev_mr_host_ops = {
    .name = "host",
    .allocate = symh_dev_mr_host_allocate,
    .deallocate = symh_dev_mr_host_deallocate,
    .destroy = symh_dev_mr_plain_destroy,
};

/* ---- device: the backend's device allocations ------------------------------------------- */

/* The resource remembers its device and the backend that was active when it was made: its
 * memory is that backend's (host memory on the host backend, GPU memory on CUDA and HIP), and
 * is freed through it even if a later symh_init selects another. */
typedef struct {
    symh_mr_t super;
    const symh_dev_ops_t *backend;
} symh_dev_mr_device_t;

static int symh_dev_mr_device_allocate(symh_mr_t *mr, size_t bytes, size_t alignment, void **ptr)
{
    const symh_dev_mr_device_t *d = symh_container_of(mr, symh_dev_mr_device_t, super);

    return d->backend->alloc(mr->device, bytes, alignment, ptr);
}

static int symh_dev_mr_device_deallocate(symh_mr_t *mr, void *ptr, size_t bytes, size_t alignment)
{
    const symh_dev_mr_device_t *d = symh_container_of(mr, symh_dev_mr_device_t, super);

    (void)bytes;
    (void)alignment;
    return d->backend->free(mr->device, ptr);
}

static const symh_mr_ops_t symh_dev_mr_device_ops = {
    .name = "device",
    .allocate = symh_dev_mr_device_allocate,
    .deallocate = symh_dev_mr_device_deallocate,
    .destroy = symh_dev_mr_plain_destroy,
};

/* ---- pinned host: page-aligned, page-rounded blocks, locked best effort -------------------- */

static atomic_int symh_dev_mr_mlock_warned;

static size_t symh_dev_mr_page(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

/* Whole pages per allocation, so unlocking one block never unlocks a neighbour's pages. */
static int symh_dev_mr_pinned_allocate(symh_mr_t *mr, size_t bytes, size_t alignment, void **ptr)
{
    size_t page = symh_dev_mr_page(), size;
    void *p;
    int status;

    (void)mr;
    if (bytes > SIZE_MAX - page) {
        symh_error("symh_mr_allocate: pinned_host resource: cannot allocate %zu bytes", bytes);
        return SYMH_ERR_NO_MEMORY;
    }
    size = (bytes + page - 1) / page * page;
    status = symh_dev_host->alloc(-1, size, alignment > page ? alignment : page, &p);
    if (status != SYMH_OK)
        return status;
    /* RLIMIT_MEMLOCK often forbids it (containers, ordinary users): the memory is still good
     * host memory, so this is not an error. Said once per process. */
    if (mlock(p, size) != 0 && atomic_exchange(&symh_dev_mr_mlock_warned, 1) == 0)
        symh_debug("pinned_host resource: mlock of %zu bytes failed (%s); memory stays "
                   "pageable",
                   size, strerror(errno));
    *ptr = p;
    return SYMH_OK;
}

static int symh_dev_mr_pinned_deallocate(symh_mr_t *mr, void *ptr, size_t bytes, size_t alignment)
{
    size_t page = symh_dev_mr_page();

    (void)mr;
    (void)alignment;
    munlock(ptr, (bytes + page - 1) / page * page); /* pages never locked: a harmless no-op */
    return symh_dev_host->free(-1, ptr);
}

static const symh_mr_ops_t symh_dev_mr_pinned_ops = {
    .name = "pinned_host",
    .allocate = symh_dev_mr_pinned_allocate,
    .deallocate = symh_dev_mr_pinned_deallocate,
    .destroy = symh_dev_mr_plain_destroy,
};

static symh_mr_t *symh_dev_mr_base_new(const char *func, const symh_mr_ops_t *ops)
{
    symh_mr_t *mr = malloc(sizeof(*mr));

    if (mr == NULL) {
        symh_error("%s: out of memory", func);
        symh_status_set(SYMH_ERR_NO_MEMORY);
        return NULL;
    }
    symh_dev_mr_base_init(mr, ops, NULL);
    symh_status_set(SYMH_OK);
    return mr;
}

symh_mr_t *symh_dev_mr_device_new(int device)
{
    symh_dev_mr_device_t *d = malloc(sizeof(*d));

    if (d == NULL)
        return NULL;
    symh_dev_mr_base_init(&d->super, &symh_dev_mr_device_ops, NULL);
    d->super.device = device;
    d->backend = symh_dev;
    return &d->super;
}

symh_mr_t *symh_mr_device_create(int device)
{
    symh_mr_t *mr;
    int status;

    SYMH_DEV_DEVICES_ENSURE(NULL);
    status = symh_dev_devices_resolve(__func__, device, SYMH_DEV_DEVICES_CURRENT_OK, &device);
    if (status != SYMH_OK) {
        symh_status_set(status);
        return NULL;
    }
    mr = symh_dev_mr_device_new(device);
    if (mr == NULL) {
        symh_error("symh_mr_device_create: out of memory");
        symh_status_set(SYMH_ERR_NO_MEMORY);
        return NULL;
    }
    symh_status_set(SYMH_OK);
    return mr;
}

symh_mr_t *symh_mr_host_create(void)
{
    return symh_dev_mr_base_new(__func__, &symh_dev_mr_host_ops);
}

symh_mr_t *symh_mr_pinned_host_create(void)
{
    return symh_dev_mr_base_new(__func__, &symh_dev_mr_pinned_ops);
}
