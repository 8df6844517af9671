/* registration: the registry's life cycle and local buffer registration
 * (symh_buffer_register, symh_buffer_unregister, symh_buffer_unregister_all). */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>

#include <symheap/registration.h>

#include "core/core_status.h"
#include "device/dev_devices.h"
#include "registration/reg_dev_alloc.h"
#include "registration/reg_registry.h"

symh_reg_map_t *symh_reg_registry;

static const symh_reg_nic_hooks_t *_Atomic symh_reg_nic;

void symh_reg_set_nic_hooks(const symh_reg_nic_hooks_t *hooks)
{
    atomic_store(&symh_reg_nic, hooks);
}

const symh_reg_nic_hooks_t *symh_reg_get_nic_hooks(void)
{
    return atomic_load(&symh_reg_nic);
}

int symh_reg_nic_map(const char *func, symh_reg_entry_t *entry)
{
    const symh_reg_nic_hooks_t *hooks = atomic_load(&symh_reg_nic);
    int status;

    entry->tl_handles[0] = NULL;
    if (hooks == NULL)
        return SYMH_OK;
    status = hooks->map((void *)entry->base, entry->length, &entry->tl_handles[0]);
    if (status != SYMH_OK) {
        symh_error("%s: the NIC transport cannot map [%#" PRIxPTR ", +%zu): %s", func, entry->base,
                   entry->length, symh_status_string(status));
        entry->tl_handles[0] = NULL;
    }
    return status;
}

void symh_reg_nic_unmap(const symh_reg_entry_t *entry)
{
    const symh_reg_nic_hooks_t *hooks = atomic_load(&symh_reg_nic);

    if (hooks != NULL && entry->tl_handles[0] != NULL)
        hooks->unmap(entry->tl_handles[0]);
}

static const char *const symh_reg_kind_names[] = {
    [SYMH_REG_KIND_HEAP] = "the symmetric heap",
    [SYMH_REG_KIND_USER] = "a registered buffer",
    [SYMH_REG_KIND_SYMM_ALIAS] = "a symmetric registration",
    [SYMH_REG_KIND_VMM] = "a VMM mapping",
    [SYMH_REG_KIND_DEVICE] = "a device allocation",
};

int symh_reg_init(void)
{
    symh_reg_map_t *map;
    int status;

    if (symh_reg_registry != NULL) /* brought up locally before symh_init: adopted */
        return SYMH_OK;
    status = symh_reg_map_create(&map);
    if (status != SYMH_OK)
        symh_error("cannot create the allocation registry");
    else
        __atomic_store_n(&symh_reg_registry, map, __ATOMIC_RELEASE);
    return status;
}

/* At the exit of a program that never called symh_init (the devices' lock held). */
static void symh_reg_local_exit(void)
{
    symh_dev_alloc_fini("at exit");
    symh_reg_fini();
}

int symh_reg_ensure(void)
{
    return symh_dev_devices_local_up(symh_reg_local_exit, symh_reg_init);
}

/* Every entry goes, and with it its NIC mapping (the transport stops after the registry). */
static int symh_reg_keep_none(const symh_reg_entry_t *entry, void *arg)
{
    (void)arg;
    symh_reg_nic_unmap(entry);
    return 0;
}

void symh_reg_fini(void)
{
    if (symh_reg_registry == NULL)
        return;
    symh_reg_map_remove_if(symh_reg_registry, symh_reg_keep_none, NULL);
    symh_reg_map_destroy(symh_reg_registry);
    symh_reg_registry = NULL;
}

int symh_buffer_register(void *addr, size_t length)
{
    symh_reg_entry_t entry = { 0 }, conflict;
    int status;

    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    if (addr == NULL || length == 0 || (uintptr_t)addr > UINTPTR_MAX - length) {
        symh_error("symh_buffer_register: %s", addr == NULL  ? "addr is NULL"
                                               : length == 0 ? "length is 0"
                                                             : "addr + length overflows");
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    entry.base = (uintptr_t)addr;
    entry.length = length;
    entry.kind = SYMH_REG_KIND_USER;
    entry.device = -1;
    status = symh_reg_nic_map("symh_buffer_register", &entry);
    if (status != SYMH_OK)
        return symh_status_set(status);
    status = symh_reg_map_insert(symh_reg_registry, &entry, &conflict);
    if (status != SYMH_OK)
        symh_reg_nic_unmap(&entry);
    if (status == SYMH_ERR_OVERLAP)
        symh_error("symh_buffer_register: [%p, +%zu) overlaps %s at [%#" PRIxPTR ", +%zu)", addr,
                   length, symh_reg_kind_names[conflict.kind], conflict.base, conflict.length);
    else if (status != SYMH_OK)
        symh_error("symh_buffer_register: cannot record [%p, +%zu): %s", addr, length,
                   symh_status_string(status));
    return symh_status_set(status);
}

int symh_buffer_unregister(void *addr)
{
    symh_reg_entry_t entry;

    SYMH_REG_ENSURE(SYMH_ERR_NOT_INITIALIZED);
    if (addr == NULL) {
        symh_error("symh_buffer_unregister: addr is NULL");
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    if (symh_reg_map_lookup(symh_reg_registry, (uintptr_t)addr, &entry) != SYMH_OK ||
        entry.kind != SYMH_REG_KIND_USER) {
        symh_error("symh_buffer_unregister: %p is not in a registered buffer", addr);
        return symh_status_set(SYMH_ERR_NOT_REGISTERED);
    }
    /* One writer at a time is the map's rule; registration is local and the lookup above and
     * the removal name the same entry unless another thread unregisters it in between, which
     * the removal then reports. */
    if (symh_reg_map_remove(symh_reg_registry, (uintptr_t)addr, &entry) != SYMH_OK) {
        symh_error("symh_buffer_unregister: %p was unregistered concurrently", addr);
        return symh_status_set(SYMH_ERR_NOT_REGISTERED);
    }
    symh_reg_nic_unmap(&entry);
    return symh_status_set(SYMH_OK);
}

static int symh_reg_keep_non_user(const symh_reg_entry_t *entry, void *arg)
{
    (void)arg;
    if (entry->kind != SYMH_REG_KIND_USER)
        return 1;
    symh_reg_nic_unmap(entry); /* leaving: the NIC's mapping goes with it */
    return 0;
}

void symh_buffer_unregister_all(void)
{
    SYMH_REG_ENSURE();
    symh_reg_map_remove_if(symh_reg_registry, symh_reg_keep_non_user, NULL);
    symh_status_set(SYMH_OK);
}
