/* registration: the device allocator (symh_dev_alloc & co., docs/dev-alloc.md): allocations from
 * the per-device memory resources, recorded in the one allocation registry, freed through the
 * resource that made them; the registry policy for misuse. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/device.h>
#include <symheap/mr.h>

#include "core/core_config.h"
#include "core/core_status.h"
#include "device/dev.h"
#include "device/dev_devices.h"
#include "device/dev_mr.h"
#include "registration/reg_dev_alloc.h"
#include "registration/reg_registry.h"

/* -1: none set since symh_init, SYMH_REGISTRY applies. */
static atomic_int symh_dev_alloc_policy_override = -1;

/* Live allocations and bytes per device: the stats calls must not walk the registry. */
static struct {
    atomic_size_t allocs;
    atomic_size_t bytes;
} symh_dev_alloc_stats[SYMH_DEV_DEVICES_MAX];

symh_registry_policy_t symh_dev_alloc_policy(void)
{
    int policy = atomic_load_explicit(&symh_dev_alloc_policy_override, memory_order_relaxed);

    if (policy >= 0)
        return (symh_registry_policy_t)policy;
    return (symh_registry_policy_t)symh_config_choice(SYMH_CFG_REGISTRY);
}

/* A misuse under warn or error: one line, then the code (warn) or abort (error). */
static int symh_dev_alloc_misuse(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int symh_dev_alloc_misuse(int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (symh_dev_alloc_policy() == SYMH_REGISTRY_ERROR) {
        /* The one place besides symh_global_exit where the library ends the process
         * (docs/conventions.md): the user asked for it with SYMH_REGISTRY=error. */
        symh_error("%s (SYMH_REGISTRY=error: aborting)", msg);
        abort();
    }
    symh_warn("%s", msg);
    return code;
}

int symh_dev_alloc_check_copy(const char *func, const void *ptr, size_t nbytes)
{
    uintptr_t addr = (uintptr_t)ptr;
    symh_reg_entry_t entry;

    if (symh_reg_registry == NULL && symh_reg_ensure() != SYMH_OK)
        return SYMH_ERR_NOT_INITIALIZED;
    if (nbytes == 0 || symh_dev_alloc_policy() == SYMH_REGISTRY_OFF)
        return SYMH_OK;
    if (addr > UINTPTR_MAX - nbytes)
        return symh_dev_alloc_misuse(SYMH_ERR_NOT_REGISTERED,
                                     "%s: device range [%p, +%zu) wraps around the address space",
                                     func, ptr, nbytes);
    if (symh_reg_map_lookup(symh_reg_registry, addr, &entry) == SYMH_OK &&
        entry.kind == SYMH_REG_KIND_DEVICE) {
        if (nbytes <= entry.base + entry.length - addr)
            return SYMH_OK;
        return symh_dev_alloc_misuse(
            SYMH_ERR_NOT_REGISTERED,
            "%s: device range [%p, +%zu) ends %zu bytes past its allocation [%#" PRIxPTR
            ", +%zu) label \"%s\"; nothing copied",
            func, ptr, nbytes, (size_t)(addr + nbytes - (entry.base + entry.length)), entry.base,
            entry.length, entry.label);
    }
    /* The first byte is in no device allocation: the range must not run into one either (ending
     * in it, or covering it whole). */
    for (uintptr_t at = addr;
         symh_reg_map_next(symh_reg_registry, at, &entry) == SYMH_OK && entry.base < addr + nbytes;
         at = entry.base + entry.length) {
        if (entry.kind != SYMH_REG_KIND_DEVICE)
            continue;
        return symh_dev_alloc_misuse(SYMH_ERR_NOT_REGISTERED,
                                     "%s: device range [%p, +%zu) starts before the allocation "
                                     "[%#" PRIxPTR ", +%zu) label \"%s\" it %s; nothing copied",
                                     func, ptr, nbytes, entry.base, entry.length, entry.label,
                                     entry.base + entry.length < addr + nbytes ? "runs across"
                                                                               : "ends in");
    }
    if (symh_dev_alloc_policy() == SYMH_REGISTRY_ERROR)
        return symh_dev_alloc_misuse(SYMH_ERR_NOT_REGISTERED,
                                     "%s: device range [%p, +%zu) is not in a device allocation "
                                     "the registry knows; nothing copied",
                                     func, ptr, nbytes);
    symh_warn("%s: device range [%p, +%zu) is not in a device allocation the registry knows; "
              "copying it as before",
              func, ptr, nbytes);
    return SYMH_OK;
}

/* Checks the arguments of an allocation; writes the device. */
static int symh_dev_alloc_check_args(const char *func, void **ptr, size_t nbytes,
                                     const symh_dev_alloc_opts_t *opts, int *device)
{
    if (ptr == NULL || nbytes == 0) {
        symh_error("%s: %s", func, ptr == NULL ? "ptr is NULL" : "nbytes is 0");
        return SYMH_ERR_INVALID_ARG;
    }
    if (opts != NULL && opts->init_value != NULL &&
        (opts->init_size == 0 || nbytes % opts->init_size != 0)) {
        symh_error("%s: nbytes %zu is not a multiple of init_size %zu", func, nbytes,
                   opts->init_size);
        return SYMH_ERR_INVALID_ARG;
    }
    return symh_dev_devices_resolve(func, opts != NULL ? opts->device : SYMH_DEVICE_CURRENT,
                                    SYMH_DEV_DEVICES_CURRENT_OK, device);
}

/* Fills [p, p + nbytes) with copies of the init_size bytes at init_value: one host-to-device
 * copy of the pattern, then device-to-device copies doubling the filled prefix. */
static int symh_dev_alloc_fill(char *p, size_t nbytes, const void *init_value, size_t init_size)
{
    size_t done;

    if (init_size == 1)
        return symh_dev->fill(p, *(const unsigned char *)init_value, nbytes);
    if (symh_dev->copy(p, init_value, init_size) != SYMH_OK)
        return SYMH_ERR_COPY_FAILED;
    for (done = init_size; done < nbytes; done *= 2)
        if (symh_dev->copy(p + done, p, done < nbytes - done ? done : nbytes - done) != SYMH_OK)
            return SYMH_ERR_COPY_FAILED;
    return SYMH_OK;
}

static void symh_dev_alloc_count(int device, size_t nbytes, int sign)
{
    if (sign > 0) {
        atomic_fetch_add_explicit(&symh_dev_alloc_stats[device].allocs, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&symh_dev_alloc_stats[device].bytes, nbytes,
                                  memory_order_relaxed);
    } else {
        atomic_fetch_sub_explicit(&symh_dev_alloc_stats[device].allocs, 1, memory_order_relaxed);
        atomic_fetch_sub_explicit(&symh_dev_alloc_stats[device].bytes, nbytes,
                                  memory_order_relaxed);
    }
}

/* Allocates (arguments already checked) and records. */
static int symh_dev_alloc_do(const char *func, void **ptr, size_t nbytes,
                             const symh_dev_alloc_opts_t *opts, int device)
{
    symh_reg_entry_t entry, conflict;
    symh_mr_t *mr = symh_dev_mr_table_slot(device);
    void *p;
    int status;

    if (mr == NULL)
        return SYMH_ERR_NO_DEVICE;
    status = symh_dev_mr_allocate(mr, nbytes, SYMH_MR_DEFAULT_ALIGNMENT, &p);
    if (status != SYMH_OK) {
        symh_error("%s: cannot allocate %zu bytes on device %d (%s resource): %s", func, nbytes,
                   device, mr->ops->name, symh_status_string(status));
        return status;
    }
    if (opts != NULL && opts->init_value != NULL) {
        status = symh_dev_alloc_fill(p, nbytes, opts->init_value, opts->init_size);
        if (status != SYMH_OK) {
            symh_error("%s: cannot fill %zu bytes on device %d", func, nbytes, device);
            goto err_dealloc;
        }
    }
    /* Field by field: `= { 0 }` on the whole entry compiles to a `rep stos`, whose start-up
     * was half of this function's time (docs/dev-alloc.md). */
    entry.base = (uintptr_t)p;
    entry.length = nbytes;
    entry.kind = SYMH_REG_KIND_DEVICE;
    entry.device = device;
    entry.owner = mr;
    entry.mem = NULL;
    entry.tl_handles[0] = entry.tl_handles[1] = NULL;
    memset(entry.label, 0, sizeof(entry.label));
    if (opts != NULL && opts->label != NULL) /* truncated to 32, terminated by the memset */
        memcpy(entry.label, opts->label, strnlen(opts->label, SYMH_REG_LABEL_MAX));
    /* Host memory is mapped for the NIC (a valid local side without registration). GPU memory
     * is not: the NIC libraries may lack GPU support; a NIC operation on it is refused with its
     * own message (symh_tl_nic_local). */
    if (symh_dev == symh_dev_host) {
        status = symh_reg_nic_map(func, &entry);
        if (status != SYMH_OK)
            goto err_dealloc;
    }
    status = symh_reg_map_insert(symh_reg_registry, &entry, &conflict);
    if (status != SYMH_OK) {
        symh_reg_nic_unmap(&entry);
        if (status == SYMH_ERR_OVERLAP)
            symh_error("%s: new allocation [%p, +%zu) overlaps a registry range [%#" PRIxPTR
                       ", +%zu) (memory freed without unregistering it?)",
                       func, p, nbytes, conflict.base, conflict.length);
        else
            symh_error("%s: cannot record [%p, +%zu): %s", func, p, nbytes,
                       symh_status_string(status));
        goto err_dealloc;
    }
    symh_dev_alloc_count(device, nbytes, 1);
    *ptr = p;
    return SYMH_OK;

err_dealloc:
    symh_dev_mr_deallocate(mr, p, nbytes, SYMH_MR_DEFAULT_ALIGNMENT);
    return status;
}

/* Policy off: no checks. A recorded allocation leaves the registry (so that its address can be
 * recorded again); the memory goes to the current resource of the given (or current) device,
 * with the recorded bytes, or 1 byte when the registry does not know the pointer. */
static int symh_dev_alloc_free_legacy(const char *func, void **ptr, int device)
{
    symh_reg_entry_t entry;
    size_t nbytes = 1;
    symh_mr_t *mr;
    int dev, status;

    status =
        symh_dev_devices_resolve(func, device == SYMH_DEVICE_ANY ? SYMH_DEVICE_CURRENT : device,
                                 SYMH_DEV_DEVICES_CURRENT_OK, &dev);
    if (status != SYMH_OK)
        return status;
    mr = symh_mr_get_per_device(dev);
    if (mr == NULL)
        return SYMH_ERR_NO_DEVICE;
    if (symh_reg_map_lookup(symh_reg_registry, (uintptr_t)*ptr, &entry) == SYMH_OK &&
        entry.kind == SYMH_REG_KIND_DEVICE && entry.base == (uintptr_t)*ptr &&
        symh_reg_map_remove(symh_reg_registry, entry.base, &entry) == SYMH_OK) {
        nbytes = entry.length;
        symh_reg_nic_unmap(&entry);
        symh_dev_alloc_count(entry.device, entry.length, -1);
    }
    status = symh_mr_deallocate(mr, *ptr, nbytes, SYMH_MR_DEFAULT_ALIGNMENT);
    if (status == SYMH_OK)
        *ptr = NULL;
    return status;
}

/* What symh_dev_alloc_free_do accepts to remove: the start of a device allocation, on `device`
 * unless SYMH_DEVICE_ANY. */
typedef struct {
    uintptr_t addr;
    int device;
} symh_dev_alloc_take_t;

static int symh_dev_alloc_accept(const symh_reg_entry_t *entry, void *arg)
{
    const symh_dev_alloc_take_t *take = arg;

    if (entry->kind != SYMH_REG_KIND_DEVICE || entry->base != take->addr)
        return SYMH_ERR_NOT_REGISTERED;
    if (take->device != SYMH_DEVICE_ANY && take->device != entry->device)
        return SYMH_ERR_DEVICE_MISMATCH;
    return SYMH_OK;
}

/* Frees *ptr (not NULL) under the policy. check_device: compare `device` with the record. */
static int symh_dev_alloc_free_do(const char *func, void **ptr, int device, int check_device)
{
    uintptr_t addr = (uintptr_t)*ptr;
    symh_dev_alloc_take_t take;
    symh_reg_entry_t entry;
    int dev, status;

    if (symh_dev_alloc_policy() == SYMH_REGISTRY_OFF)
        return symh_dev_alloc_free_legacy(func, ptr, check_device ? device : SYMH_DEVICE_ANY);
    if (check_device) {
        status = symh_dev_devices_resolve(
            func, device, SYMH_DEV_DEVICES_CURRENT_OK | SYMH_DEV_DEVICES_ANY_OK, &dev);
        if (status != SYMH_OK)
            return status;
    } else {
        dev = SYMH_DEVICE_ANY;
    }
    /* One descent: find, check and remove under one write lock (no window for a concurrent free
     * of the same pointer); the checks' verdict is explained below, outside the lock. */
    take.addr = addr;
    take.device = dev;
    entry.length = 0; /* stays 0 when no range holds addr */
    status = symh_reg_map_take(symh_reg_registry, addr, symh_dev_alloc_accept, &take, &entry);
    if (status != SYMH_OK && entry.length == 0)
        return symh_dev_alloc_misuse(SYMH_ERR_NOT_REGISTERED,
                                     "%s: %p is not a live device allocation (double free, alias "
                                     "of a freed buffer or foreign pointer); nothing freed",
                                     func, *ptr);
    if (status != SYMH_OK && entry.kind != SYMH_REG_KIND_DEVICE)
        return symh_dev_alloc_misuse(SYMH_ERR_NOT_REGISTERED,
                                     "%s: %p is not a device allocation (foreign pointer into %s "
                                     "memory [%#" PRIxPTR ", +%zu)); nothing freed",
                                     func, *ptr,
                                     entry.kind == SYMH_REG_KIND_HEAP   ? "symmetric heap"
                                     : entry.kind == SYMH_REG_KIND_USER ? "registered"
                                                                        : "mapped",
                                     entry.base, entry.length);
    if (status != SYMH_OK && entry.base != addr)
        return symh_dev_alloc_misuse(SYMH_ERR_NOT_REGISTERED,
                                     "%s: %p is an interior pointer, %zu bytes into the device "
                                     "allocation [%#" PRIxPTR ", +%zu) label \"%s\"; nothing freed",
                                     func, *ptr, (size_t)(addr - entry.base), entry.base,
                                     entry.length, entry.label);
    if (status != SYMH_OK)
        return symh_dev_alloc_misuse(SYMH_ERR_DEVICE_MISMATCH,
                                     "%s: %p was allocated on device %d, not device %d; nothing "
                                     "freed",
                                     func, *ptr, entry.device, dev);
    symh_reg_nic_unmap(&entry);
    symh_dev_alloc_count(entry.device, entry.length, -1);
    status = symh_dev_mr_deallocate(entry.owner, *ptr, entry.length, SYMH_MR_DEFAULT_ALIGNMENT);
    if (status != SYMH_OK)
        symh_error("%s: the %s resource refused to free %p (%zu bytes, device %d): %s", func,
                   ((symh_mr_t *)entry.owner)->ops->name, *ptr, entry.length, entry.device,
                   symh_status_string(status));
    *ptr = NULL;
    return status;
}

int symh_dev_alloc(void **ptr, size_t nbytes, const symh_dev_alloc_opts_t *opts)
{
    int device, status;

    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    status = symh_dev_alloc_check_args(__func__, ptr, nbytes, opts, &device);
    if (status == SYMH_OK)
        status = symh_dev_alloc_do(__func__, ptr, nbytes, opts, device);
    return symh_status_set(status);
}

int symh_dev_alloc_replace(void **ptr, size_t nbytes, const symh_dev_alloc_opts_t *opts)
{
    int device, status;

    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    status = symh_dev_alloc_check_args(__func__, ptr, nbytes, opts, &device);
    if (status == SYMH_OK && *ptr != NULL)
        status = symh_dev_alloc_free_do(__func__, ptr, SYMH_DEVICE_ANY, 0);
    if (status == SYMH_OK)
        status = symh_dev_alloc_do(__func__, ptr, nbytes, opts, device);
    return symh_status_set(status);
}

int symh_dev_free(void **ptr, int device)
{
    int status = SYMH_OK;

    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    if (ptr == NULL) {
        symh_error("%s: ptr is NULL", __func__);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    if (*ptr != NULL)
        status = symh_dev_alloc_free_do(__func__, ptr, device, 1);
    return symh_status_set(status);
}

static int symh_dev_alloc_copy(const char *func, void *dst, const void *src, size_t nbytes,
                               const void *dev_side)
{
    int status;

    if (nbytes == 0)
        return SYMH_OK;
    if (dst == NULL || src == NULL) {
        symh_error("%s: %s is NULL", func, dst == NULL ? "dst" : "src");
        return SYMH_ERR_INVALID_ARG;
    }
    status = symh_dev_alloc_check_copy(func, dev_side, nbytes);
    if (status != SYMH_OK)
        return status;
    if (symh_dev->copy(dst, src, nbytes) != SYMH_OK) {
        symh_error("%s: the %s backend failed to copy %zu bytes from %p to %p", func,
                   symh_dev->name, nbytes, src, dst);
        return SYMH_ERR_COPY_FAILED;
    }
    return SYMH_OK;
}

int symh_dev_memcpy_to_device(void *dst, const void *src, size_t nbytes)
{
    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    return symh_status_set(symh_dev_alloc_copy(__func__, dst, src, nbytes, dst));
}

int symh_dev_memcpy_from_device(void *dst, const void *src, size_t nbytes)
{
    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    return symh_status_set(symh_dev_alloc_copy(__func__, dst, src, nbytes, src));
}

int symh_dev_assign_to_device(void **dst, const void *src, size_t nbytes)
{
    int device, status;

    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    if (src == NULL) {
        symh_error("%s: src is NULL", __func__);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    status = symh_dev_alloc_check_args(__func__, dst, nbytes, NULL, &device);
    if (status == SYMH_OK && *dst != NULL)
        status = symh_dev_alloc_free_do(__func__, dst, SYMH_DEVICE_ANY, 0);
    if (status == SYMH_OK)
        status = symh_dev_alloc_do(__func__, dst, nbytes, NULL, device);
    if (status == SYMH_OK && symh_dev->copy(*dst, src, nbytes) != SYMH_OK) {
        symh_error("%s: the %s backend failed to copy %zu bytes to %p", __func__, symh_dev->name,
                   nbytes, *dst);
        status = SYMH_ERR_COPY_FAILED; /* *dst stays allocated, its contents undefined */
    }
    return symh_status_set(status);
}

/* Collects the device entries of the registry (keep_device) or takes them out (take_device). */
typedef struct {
    symh_reg_entry_t *entries;
    size_t count, capacity;
    int failed;
} symh_dev_alloc_list_t;

static void symh_dev_alloc_list_add(symh_dev_alloc_list_t *list, const symh_reg_entry_t *entry)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 64;
        symh_reg_entry_t *entries = realloc(list->entries, capacity * sizeof(*entries));

        if (entries == NULL) {
            list->failed = 1;
            return;
        }
        list->entries = entries;
        list->capacity = capacity;
    }
    list->entries[list->count++] = *entry;
}

static int symh_dev_alloc_keep_device(const symh_reg_entry_t *entry, void *arg)
{
    if (entry->kind == SYMH_REG_KIND_DEVICE)
        symh_dev_alloc_list_add(arg, entry);
    return 1;
}

static int symh_dev_alloc_take_device(const symh_reg_entry_t *entry, void *arg)
{
    if (entry->kind != SYMH_REG_KIND_DEVICE)
        return 1;
    symh_dev_alloc_list_add(arg, entry);
    return 0;
}

int symh_dev_alloc_report(FILE *out)
{
    symh_dev_alloc_list_t list = { 0 };
    size_t i, bytes = 0;
    int status = SYMH_OK;

    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    if (out == NULL) {
        symh_error("%s: out is NULL", __func__);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    /* remove_if that keeps everything is the registry's walk, in address order. */
    symh_reg_map_remove_if(symh_reg_registry, symh_dev_alloc_keep_device, &list);
    if (list.failed) {
        symh_error("%s: cannot allocate the report", __func__);
        free(list.entries);
        return symh_status_set(SYMH_ERR_NO_MEMORY);
    }
    for (i = 0; i < list.count; ++i) {
        const symh_reg_entry_t *e = &list.entries[i];

        /* The report goes to the caller's FILE (check_includes allowance on the fprintf line). */
        if (fprintf(out, /* check_includes: allow printf (the caller's FILE) */
                    "symh live allocation: address=0x%016lx bytes=%zu device=%d label=\"%s\"\n",
                    (unsigned long)e->base, e->length, e->device, e->label) < 0)
            status = SYMH_ERR_SYSTEM;
        bytes += e->length;
    }
    if (fprintf(out, /* check_includes: allow printf (the caller's FILE) */
                "symh live allocations: %zu (%zu bytes)\n", list.count, bytes) < 0)
        status = SYMH_ERR_SYSTEM;
    if (status != SYMH_OK)
        symh_error("%s: cannot write the report", __func__);
    free(list.entries);
    return symh_status_set(status);
}

int symh_dev_get_alloc_stats(int device, size_t *allocs, size_t *bytes)
{
    size_t a = 0, b = 0;
    int i, dev, status;

    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    status = symh_dev_devices_resolve(__func__, device,
                                      SYMH_DEV_DEVICES_CURRENT_OK | SYMH_DEV_DEVICES_ANY_OK, &dev);
    if (status != SYMH_OK)
        return symh_status_set(status);
    if (dev == SYMH_DEVICE_ANY) {
        for (i = 0; i < symh_dev_devices_count(); ++i) {
            a += atomic_load_explicit(&symh_dev_alloc_stats[i].allocs, memory_order_relaxed);
            b += atomic_load_explicit(&symh_dev_alloc_stats[i].bytes, memory_order_relaxed);
        }
    } else {
        a = atomic_load_explicit(&symh_dev_alloc_stats[dev].allocs, memory_order_relaxed);
        b = atomic_load_explicit(&symh_dev_alloc_stats[dev].bytes, memory_order_relaxed);
    }
    if (allocs != NULL)
        *allocs = a;
    if (bytes != NULL)
        *bytes = b;
    return symh_status_set(SYMH_OK);
}

int symh_dev_alloc_query(const void *ptr, size_t nbytes, symh_dev_alloc_info_t *info)
{
    uintptr_t addr = (uintptr_t)ptr;
    symh_reg_entry_t entry;

    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    if (info == NULL) {
        symh_error("%s: info is NULL", __func__);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    memset(info, 0, sizeof(*info));
    if (symh_reg_map_lookup(symh_reg_registry, addr, &entry) != SYMH_OK ||
        entry.kind != SYMH_REG_KIND_DEVICE)
        return symh_status_set(SYMH_ERR_NOT_REGISTERED);
    info->base = (void *)entry.base;
    info->nbytes = entry.length;
    info->device = entry.device;
    _Static_assert(sizeof(info->label) == sizeof(entry.label), "label sizes");
    memcpy(info->label, entry.label, sizeof(info->label));
    if (addr > UINTPTR_MAX - nbytes || addr + nbytes > entry.base + entry.length)
        return symh_status_set(SYMH_ERR_NOT_REGISTERED);
    return symh_status_set(SYMH_OK);
}

int symh_registry_set_policy(symh_registry_policy_t policy)
{
    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    if (policy != SYMH_REGISTRY_OFF && policy != SYMH_REGISTRY_WARN &&
        policy != SYMH_REGISTRY_ERROR) {
        symh_error("%s: policy %d is not SYMH_REGISTRY_OFF, _WARN or _ERROR", __func__,
                   (int)policy);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    atomic_store(&symh_dev_alloc_policy_override, (int)policy);
    return symh_status_set(SYMH_OK);
}

symh_registry_policy_t symh_registry_get_policy(void)
{
    SYMH_REG_ENSURE(SYMH_REGISTRY_WARN);
    symh_status_set(SYMH_OK);
    return symh_dev_alloc_policy();
}

void symh_dev_alloc_fini(const char *who)
{
    symh_dev_alloc_list_t list = { 0 };
    size_t i, freed = 0, kept = 0, bytes = 0;
    int device;

    atomic_store(&symh_dev_alloc_policy_override, -1);
    if (symh_reg_registry == NULL)
        return;
    symh_reg_map_remove_if(symh_reg_registry, symh_dev_alloc_take_device, &list);
    for (i = 0; i < list.count; ++i) {
        const symh_reg_entry_t *e = &list.entries[i];

        bytes += e->length;
        symh_reg_nic_unmap(e);
        /* Only a resource still in the per-device table is known to be alive (a replaced one
         * may have been destroyed): the others' memory is left to the process exit. */
        if (symh_dev_mr_table_holds(e->owner, &device) &&
            symh_dev_mr_deallocate(e->owner, (void *)e->base, e->length,
                                   SYMH_MR_DEFAULT_ALIGNMENT) == SYMH_OK)
            ++freed;
        else
            ++kept;
    }
    if (list.count > 0 || list.failed)
        symh_warn("%s: %zu device allocation%s (%zu bytes) still live: %zu freed, %zu "
                  "left allocated (their resource is no longer set for a device)%s",
                  who, list.count, list.count == 1 ? "" : "s", bytes, freed, kept,
                  list.failed ? "; more could not be listed" : "");
    free(list.entries);
    for (i = 0; i < SYMH_DEV_DEVICES_MAX; ++i) {
        atomic_store(&symh_dev_alloc_stats[i].allocs, 0);
        atomic_store(&symh_dev_alloc_stats[i].bytes, 0);
    }
}
