/* registration: the public VMM API (symh_vmm_*, symh_physmem_*) over the device backend's VMM
 * primitives. Mappings live in the allocation registry (kind SYMH_REG_KIND_VMM, mem = the
 * physical object's record, owner = this file's per-mapping record); reservations in a map of
 * their own.
 *
 * A symh_physmem_t is not a pointer: it is (generation << 32 | slot + 1) in a table of slots,
 * checked against the table before anything is read, so a destroyed, doubled or forged handle is
 * refused (SYMH_ERR_INVALID_ARG, one line) instead of reading freed memory. Generations come from
 * one counter for the life of the process, so a handle from before symh_finalize never names an
 * object of a later symh_init (until 2^32 creations). Reservations and mappings are named by
 * address and found in interval maps, which needs no such table. */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/vmm.h>

#include "core/core_status.h"
#include "device/dev.h"
#include "device/dev_devices.h"
#include "registration/reg_registry.h"
#include "registration/reg_vmm.h"

/* A physical object stays allocated while the user's handle or any mapping references it: the
 * registry entries of mappings point at it, and later layers export it from there. */
typedef struct symh_vmm_object {
    symh_dev_mem_t *mem;
    int device;
    size_t size;
    size_t refs;                         /* the user's handle (until destroy) + one per mapping */
    struct symh_vmm_object *prev, *next; /* live objects, for finalize */
} symh_vmm_object_t;

/* One slot per user handle; a free slot has obj NULL and links the free list by next_free. */
typedef struct {
    symh_vmm_object_t *obj;
    uint32_t generation;
    uint32_t next_free; /* slot + 1; 0 ends the list */
} symh_vmm_slot_t;

typedef struct {
    size_t mappings; /* live mappings inside it */
} symh_vmm_resv_t;

typedef struct {
    symh_vmm_object_t *pm;
    size_t offset;
    symh_vmm_resv_t *resv;
    unsigned char *access; /* one symh_access_mode_t per page */
} symh_vmm_mapping_t;

/* Every VMM call that changes state (and get_access) holds this; the registry's own lock makes
 * its lookups safe for readers elsewhere. */
static pthread_mutex_t symh_vmm_lock = PTHREAD_MUTEX_INITIALIZER;
static symh_reg_map_t *symh_vmm_reservations;
static symh_vmm_object_t *symh_vmm_objects;
static struct {
    symh_vmm_slot_t *slots;
    uint32_t count, cap;
    uint32_t free_head;  /* slot + 1; 0: none free */
    uint32_t generation; /* of the last handle made; never reset */
} symh_vmm_handles;

static size_t symh_vmm_page(void)
{
    return symh_dev->granularity(0, 0);
}

static int symh_vmm_aligned(uintptr_t value)
{
    return value % symh_vmm_page() == 0;
}

static int symh_vmm_mode_valid(symh_access_mode_t mode)
{
    return mode == SYMH_ACCESS_NONE || mode == SYMH_ACCESS_READ || mode == SYMH_ACCESS_READ_WRITE;
}

static symh_dev_access_t symh_vmm_dev_access(symh_access_mode_t mode)
{
    switch (mode) {
    case SYMH_ACCESS_READ:
        return SYMH_DEV_ACCESS_READ;
    case SYMH_ACCESS_READ_WRITE:
        return SYMH_DEV_ACCESS_READ_WRITE;
    default:
        return SYMH_DEV_ACCESS_NONE;
    }
}

static symh_physmem_t *symh_vmm_handle_make(uint32_t slot, uint32_t generation)
{
    return (symh_physmem_t *)(uintptr_t)(((uint64_t)generation << 32) | (uint64_t)(slot + 1));
}

/* The object behind a live user handle, or NULL after logging why: only the table is read, never
 * what a stale handle named. Lock held. */
static symh_vmm_object_t *symh_vmm_handle_find(const char *func, const symh_physmem_t *pm)
{
    uint64_t value = (uint64_t)(uintptr_t)pm, slot = (value & UINT32_MAX) - 1;

    if (pm == NULL) {
        symh_error("%s: pm is NULL", func);
        return NULL;
    }
    if (slot < symh_vmm_handles.count && symh_vmm_handles.slots[slot].obj != NULL &&
        symh_vmm_handles.slots[slot].generation == (uint32_t)(value >> 32))
        return symh_vmm_handles.slots[slot].obj;
    symh_error("%s: pm %p is not a live physical object (already destroyed, or never created)",
               func, (const void *)pm);
    return NULL;
}

/* A new handle for `obj`, or NULL when the table cannot grow. Lock held. */
static symh_physmem_t *symh_vmm_handle_new(symh_vmm_object_t *obj)
{
    symh_vmm_slot_t *slot;
    uint32_t index;

    if (symh_vmm_handles.free_head == 0) {
        if (symh_vmm_handles.count == symh_vmm_handles.cap) {
            uint32_t cap = symh_vmm_handles.cap ? symh_vmm_handles.cap * 2 : 64;
            symh_vmm_slot_t *slots = cap > symh_vmm_handles.cap && cap < UINT32_MAX
                                         ? realloc(symh_vmm_handles.slots, cap * sizeof(*slots))
                                         : NULL;

            if (slots == NULL)
                return NULL;
            symh_vmm_handles.slots = slots;
            symh_vmm_handles.cap = cap;
        }
        symh_vmm_handles.slots[symh_vmm_handles.count].next_free = 0;
        symh_vmm_handles.free_head = ++symh_vmm_handles.count;
    }
    index = symh_vmm_handles.free_head - 1;
    slot = &symh_vmm_handles.slots[index];
    symh_vmm_handles.free_head = slot->next_free;
    if (++symh_vmm_handles.generation == 0) /* 0 is never a generation: no handle is NULL-ish */
        ++symh_vmm_handles.generation;
    slot->obj = obj;
    slot->generation = symh_vmm_handles.generation;
    return symh_vmm_handle_make(index, slot->generation);
}

/* Retires a live handle (symh_vmm_handle_find accepted it): its slot goes back to the free list.
 * Lock held. */
static void symh_vmm_handle_retire(const symh_physmem_t *pm)
{
    uint32_t index = (uint32_t)((uint64_t)(uintptr_t)pm & UINT32_MAX) - 1;

    symh_vmm_handles.slots[index].obj = NULL;
    symh_vmm_handles.slots[index].next_free = symh_vmm_handles.free_head;
    symh_vmm_handles.free_head = index + 1;
}

/* Drops one reference; the last one releases the backend object. Called with the lock held. */
static void symh_vmm_physmem_put(symh_vmm_object_t *pm)
{
    if (--pm->refs != 0)
        return;
    symh_dev->mem_release(pm->mem);
    if (pm->prev != NULL)
        pm->prev->next = pm->next;
    else
        symh_vmm_objects = pm->next;
    if (pm->next != NULL)
        pm->next->prev = pm->prev;
    free(pm);
}

size_t symh_vmm_granularity(int device, symh_granularity_mode_t mode)
{
    SYMH_CHECK_INIT(symh_reg_registry != NULL, 0);
    if (symh_dev_devices_resolve(__func__, device, 0, &device) != SYMH_OK) {
        symh_status_set(SYMH_ERR_NO_DEVICE);
        return 0;
    }
    if (mode != SYMH_GRANULARITY_MINIMUM && mode != SYMH_GRANULARITY_RECOMMENDED) {
        symh_error("symh_vmm_granularity: unknown mode %d", (int)mode);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return 0;
    }
    symh_status_set(SYMH_OK);
    return symh_dev->granularity(device, mode == SYMH_GRANULARITY_RECOMMENDED);
}

int symh_vmm_reserve(size_t size, void *hint, void **va)
{
    size_t page, recommended, alignment;
    symh_reg_entry_t entry = { 0 };
    symh_vmm_resv_t *resv;
    void *p;
    int status;

    SYMH_CHECK_INIT(symh_reg_registry != NULL, SYMH_ERR_NOT_INITIALIZED);
    page = symh_vmm_page();
    if (va == NULL || size == 0 || size % page != 0 || !symh_vmm_aligned((uintptr_t)hint) ||
        (uintptr_t)hint > UINTPTR_MAX - size) {
        symh_error("symh_vmm_reserve: %s (granularity %zu)",
                   va == NULL               ? "va is NULL"
                   : size == 0              ? "size is 0"
                   : size % page != 0       ? "size is not a multiple of the granularity"
                   : (uintptr_t)hint % page ? "hint is not a multiple of the granularity"
                                            : "hint + size overflows",
                   page);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    /* The backend places reservations itself; a hint only asks for an alignment as good as its
     * own (so a released range of the same size tends to come back), and sizes that are
     * multiples of the recommended granularity get that alignment (large pages). */
    recommended = symh_dev->granularity(0, 1);
    alignment = size % recommended == 0 ? recommended : page;
    if (hint != NULL)
        while (alignment > page && (uintptr_t)hint % alignment != 0)
            alignment >>= 1;
    resv = calloc(1, sizeof(*resv));
    if (resv == NULL) {
        symh_error("symh_vmm_reserve: out of memory for the reservation record");
        return symh_status_set(SYMH_ERR_NO_MEMORY);
    }
    pthread_mutex_lock(&symh_vmm_lock);
    if (symh_vmm_reservations == NULL &&
        (status = symh_reg_map_create(&symh_vmm_reservations)) != SYMH_OK) {
        symh_error("symh_vmm_reserve: cannot create the reservation map");
        goto err_unlock;
    }
    status = symh_dev->reserve(size, alignment, &p);
    if (status != SYMH_OK)
        goto err_unlock; /* the backend logged why */
    entry.base = (uintptr_t)p;
    entry.length = size;
    entry.kind = SYMH_REG_KIND_VMM;
    entry.device = -1;
    strcpy(entry.label, "vmm reservation");
    entry.owner = resv;
    status = symh_reg_map_insert(symh_vmm_reservations, &entry, NULL);
    if (status != SYMH_OK) {
        symh_error("symh_vmm_reserve: cannot record [%p, +%zu): %s", p, size,
                   symh_status_string(status));
        symh_dev->release(p, size);
        goto err_unlock;
    }
    pthread_mutex_unlock(&symh_vmm_lock);
    if (hint != NULL && p != hint)
        symh_debug("symh_vmm_reserve: hint %p not honoured, reserved at %p", hint, p);
    *va = p;
    return symh_status_set(SYMH_OK);

err_unlock:
    pthread_mutex_unlock(&symh_vmm_lock);
    free(resv);
    return symh_status_set(status);
}

int symh_vmm_release(void *va, size_t size)
{
    symh_reg_entry_t entry;
    symh_vmm_resv_t *resv;
    int status;

    SYMH_CHECK_INIT(symh_reg_registry != NULL, SYMH_ERR_NOT_INITIALIZED);
    pthread_mutex_lock(&symh_vmm_lock);
    if (va == NULL || symh_vmm_reservations == NULL ||
        symh_reg_map_lookup(symh_vmm_reservations, (uintptr_t)va, &entry) != SYMH_OK ||
        entry.base != (uintptr_t)va || entry.length != size) {
        symh_error("symh_vmm_release: [%p, +%zu) is not exactly a reservation", va, size);
        status = SYMH_ERR_INVALID_ARG;
        goto out;
    }
    resv = entry.owner;
    if (resv->mappings != 0) {
        symh_error("symh_vmm_release: [%p, +%zu) still has %zu mapping(s)", va, size,
                   resv->mappings);
        status = SYMH_ERR_INVALID_ARG;
        goto out;
    }
    status = symh_dev->release(va, size);
    if (status != SYMH_OK)
        goto out; /* the backend logged why; the reservation stays recorded */
    symh_reg_map_remove(symh_vmm_reservations, (uintptr_t)va, NULL);
    free(resv);
out:
    pthread_mutex_unlock(&symh_vmm_lock);
    return symh_status_set(status);
}

int symh_physmem_create(int device, size_t size, symh_physmem_t **pm)
{
    size_t page;
    symh_vmm_object_t *p;
    symh_physmem_t *handle;
    int status;

    SYMH_CHECK_INIT(symh_reg_registry != NULL, SYMH_ERR_NOT_INITIALIZED);
    status = symh_dev_devices_resolve(__func__, device, 0, &device);
    if (status != SYMH_OK)
        return symh_status_set(status);
    page = symh_vmm_page();
    if (pm == NULL || size == 0 || size % page != 0) {
        symh_error("symh_physmem_create: %s (granularity %zu)",
                   pm == NULL  ? "pm is NULL"
                   : size == 0 ? "size is 0"
                               : "size is not a multiple of the granularity",
                   page);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    p = calloc(1, sizeof(*p));
    if (p == NULL) {
        symh_error("symh_physmem_create: out of memory for the handle");
        return symh_status_set(SYMH_ERR_NO_MEMORY);
    }
    status = symh_dev->mem_create(device, size, &p->mem);
    if (status != SYMH_OK) {
        free(p); /* the backend logged why */
        return symh_status_set(status);
    }
    p->device = device;
    p->size = size;
    p->refs = 1;
    pthread_mutex_lock(&symh_vmm_lock);
    handle = symh_vmm_handle_new(p);
    if (handle == NULL) {
        pthread_mutex_unlock(&symh_vmm_lock);
        symh_error("symh_physmem_create: out of memory for the handle table");
        symh_dev->mem_release(p->mem);
        free(p);
        return symh_status_set(SYMH_ERR_NO_MEMORY);
    }
    p->next = symh_vmm_objects;
    if (p->next != NULL)
        p->next->prev = p;
    symh_vmm_objects = p;
    pthread_mutex_unlock(&symh_vmm_lock);
    *pm = handle;
    return symh_status_set(SYMH_OK);
}

int symh_physmem_destroy(symh_physmem_t *pm)
{
    symh_vmm_object_t *obj;

    SYMH_CHECK_INIT(symh_reg_registry != NULL, SYMH_ERR_NOT_INITIALIZED);
    pthread_mutex_lock(&symh_vmm_lock);
    obj = symh_vmm_handle_find(__func__, pm);
    if (obj != NULL) {
        symh_vmm_handle_retire(pm);
        symh_vmm_physmem_put(obj); /* mappings keep the object, not the handle */
    }
    pthread_mutex_unlock(&symh_vmm_lock);
    return symh_status_set(obj != NULL ? SYMH_OK : SYMH_ERR_INVALID_ARG);
}

/* Size and device of a live handle's object: SYMH_OK, else logged and SYMH_ERR_INVALID_ARG. */
static int symh_vmm_handle_query(const char *func, const symh_physmem_t *pm, size_t *size,
                                 int *device)
{
    symh_vmm_object_t *obj;

    pthread_mutex_lock(&symh_vmm_lock);
    obj = symh_vmm_handle_find(func, pm);
    if (obj != NULL) {
        *size = obj->size;
        *device = obj->device;
    }
    pthread_mutex_unlock(&symh_vmm_lock);
    return symh_status_set(obj != NULL ? SYMH_OK : SYMH_ERR_INVALID_ARG);
}

size_t symh_physmem_size(const symh_physmem_t *pm)
{
    size_t size = 0;
    int device;

    SYMH_CHECK_INIT(symh_reg_registry != NULL, 0);
    return symh_vmm_handle_query(__func__, pm, &size, &device) == SYMH_OK ? size : 0;
}

int symh_physmem_device(const symh_physmem_t *pm)
{
    size_t size;
    int device = -1;

    SYMH_CHECK_INIT(symh_reg_registry != NULL, -1);
    return symh_vmm_handle_query(__func__, pm, &size, &device) == SYMH_OK ? device : -1;
}

int symh_physmem_map(symh_physmem_t *pm, void *va, size_t size, symh_access_mode_t mode,
                     size_t offset, void **mapped)
{
    symh_reg_entry_t resv_entry, entry = { 0 }, conflict;
    symh_vmm_object_t *obj;
    symh_vmm_mapping_t *m;
    const char *why = NULL;
    size_t page;
    int status;

    SYMH_CHECK_INIT(symh_reg_registry != NULL, SYMH_ERR_NOT_INITIALIZED);
    page = symh_vmm_page();
    if (pm == NULL)
        why = "pm is NULL";
    else if (mapped == NULL)
        why = "mapped is NULL";
    else if (va == NULL)
        why = "va is NULL";
    else if (size == 0)
        why = "size is 0";
    else if (!symh_vmm_aligned((uintptr_t)va) || size % page || offset % page)
        why = "va, size or offset is not a multiple of the granularity";
    else if (!symh_vmm_mode_valid(mode))
        why = "unknown access mode";
    else if ((uintptr_t)va > UINTPTR_MAX - size)
        why = "va + size overflows";
    if (why != NULL) {
        symh_error("symh_physmem_map: %s (va %p, size %zu, offset %zu)", why, va, size, offset);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    m = calloc(1, sizeof(*m));
    if (m != NULL)
        m->access = malloc(size / page);
    if (m == NULL || m->access == NULL) {
        symh_error("symh_physmem_map: out of memory for the mapping record");
        status = SYMH_ERR_NO_MEMORY;
        goto err_free;
    }
    memset(m->access, (int)mode, size / page);
    pthread_mutex_lock(&symh_vmm_lock);
    obj = symh_vmm_handle_find(__func__, pm);
    if (obj == NULL) {
        status = SYMH_ERR_INVALID_ARG;
        goto err_unlock;
    }
    if (offset > obj->size || size > obj->size - offset) {
        symh_error("symh_physmem_map: offset + size is past the end of the physical object (va "
                   "%p, size %zu, offset %zu, object %zu)",
                   va, size, offset, obj->size);
        status = SYMH_ERR_INVALID_ARG;
        goto err_unlock;
    }
    if (symh_vmm_reservations == NULL ||
        symh_reg_map_lookup(symh_vmm_reservations, (uintptr_t)va, &resv_entry) != SYMH_OK ||
        (uintptr_t)va + size > resv_entry.base + resv_entry.length) {
        symh_error("symh_physmem_map: [%p, +%zu) is not inside one reservation", va, size);
        status = SYMH_ERR_INVALID_ARG;
        goto err_unlock;
    }
    entry.base = (uintptr_t)va;
    entry.length = size;
    entry.kind = SYMH_REG_KIND_VMM;
    entry.device = obj->device;
    strcpy(entry.label, "vmm mapping");
    entry.mem = obj;
    entry.owner = m;
    status = symh_reg_map_insert(symh_reg_registry, &entry, &conflict);
    if (status != SYMH_OK) {
        if (status == SYMH_ERR_OVERLAP)
            symh_error("symh_physmem_map: [%p, +%zu) overlaps %s at [%#" PRIxPTR ", +%zu)", va,
                       size,
                       conflict.kind == SYMH_REG_KIND_VMM ? "a VMM mapping" : "a registration",
                       conflict.base, conflict.length);
        else
            symh_error("symh_physmem_map: cannot record [%p, +%zu): %s", va, size,
                       symh_status_string(status));
        status = status == SYMH_ERR_OVERLAP ? SYMH_ERR_INVALID_ARG : status;
        goto err_unlock;
    }
    status = symh_dev->map(obj->mem, offset, va, size, symh_vmm_dev_access(mode));
    if (status != SYMH_OK) {
        symh_reg_map_remove(symh_reg_registry, (uintptr_t)va, NULL); /* the backend logged why */
        goto err_unlock;
    }
    m->pm = obj;
    m->offset = offset;
    m->resv = resv_entry.owner;
    m->resv->mappings++;
    obj->refs++;
    pthread_mutex_unlock(&symh_vmm_lock);
    *mapped = va;
    return symh_status_set(SYMH_OK);

err_unlock:
    pthread_mutex_unlock(&symh_vmm_lock);
err_free:
    if (m != NULL)
        free(m->access);
    free(m);
    return symh_status_set(status);
}

/* Finds the one mapping holding [ptr, ptr + size) into *entry; logs and returns
 * SYMH_ERR_INVALID_ARG otherwise. `whole`: the range must be the whole mapping. Lock held. */
static int symh_vmm_find(const char *func, const void *ptr, size_t size, int whole,
                         symh_reg_entry_t *entry)
{
    const char *why = NULL;

    if (ptr == NULL)
        why = "ptr is NULL";
    else if (size == 0)
        why = "size is 0";
    else if (!symh_vmm_aligned((uintptr_t)ptr) || size % symh_vmm_page())
        why = "ptr or size is not a multiple of the granularity";
    else if ((uintptr_t)ptr > UINTPTR_MAX - size)
        why = "ptr + size overflows";
    else if (symh_reg_map_lookup(symh_reg_registry, (uintptr_t)ptr, entry) != SYMH_OK ||
             entry->kind != SYMH_REG_KIND_VMM)
        why = "is not mapped";
    else if ((uintptr_t)ptr + size > entry->base + entry->length)
        why = "crosses the end of its mapping";
    else if (whole && (entry->base != (uintptr_t)ptr || entry->length != size))
        why = "is not a whole mapping";
    if (why == NULL)
        return SYMH_OK;
    symh_error("%s: [%p, +%zu) %s", func, ptr, size, why);
    return SYMH_ERR_INVALID_ARG;
}

int symh_vmm_set_access(void *ptr, size_t size, symh_access_mode_t mode)
{
    symh_reg_entry_t entry;
    symh_vmm_mapping_t *m;
    size_t page;
    int status;

    SYMH_CHECK_INIT(symh_reg_registry != NULL, SYMH_ERR_NOT_INITIALIZED);
    if (!symh_vmm_mode_valid(mode)) {
        symh_error("symh_vmm_set_access: unknown access mode %d", (int)mode);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    pthread_mutex_lock(&symh_vmm_lock);
    status = symh_vmm_find(__func__, ptr, size, 0, &entry);
    if (status == SYMH_OK)
        status = symh_dev->set_access(ptr, size, symh_vmm_dev_access(mode));
    if (status == SYMH_OK) {
        page = symh_vmm_page();
        m = entry.owner;
        memset(m->access + ((uintptr_t)ptr - entry.base) / page, (int)mode, size / page);
    }
    pthread_mutex_unlock(&symh_vmm_lock);
    return symh_status_set(status);
}

int symh_vmm_get_access(const void *ptr, size_t size, symh_access_mode_t *mode)
{
    symh_reg_entry_t entry;
    const unsigned char *first;
    size_t page, i, n;
    int status;

    SYMH_CHECK_INIT(symh_reg_registry != NULL, SYMH_ERR_NOT_INITIALIZED);
    if (mode == NULL) {
        symh_error("symh_vmm_get_access: mode is NULL");
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    pthread_mutex_lock(&symh_vmm_lock);
    status = symh_vmm_find(__func__, ptr, size, 0, &entry);
    if (status == SYMH_OK) {
        page = symh_vmm_page();
        first = ((symh_vmm_mapping_t *)entry.owner)->access + ((uintptr_t)ptr - entry.base) / page;
        n = size / page;
        for (i = 1; i < n && first[i] == first[0]; ++i)
            ;
        if (i < n) {
            symh_error("symh_vmm_get_access: [%p, +%zu) has pages of different access modes", ptr,
                       size);
            status = SYMH_ERR_INVALID_ARG;
        } else {
            *mode = (symh_access_mode_t)first[0];
        }
    }
    pthread_mutex_unlock(&symh_vmm_lock);
    return symh_status_set(status);
}

/* Undoes one mapping recorded as `entry` (already out of the registry or about to be). Lock
 * held. */
static int symh_vmm_unmap_entry(const symh_reg_entry_t *entry)
{
    symh_vmm_mapping_t *m = entry->owner;
    int status = symh_dev->unmap((void *)entry->base, entry->length);

    if (status != SYMH_OK)
        return status;
    m->resv->mappings--;
    symh_vmm_physmem_put(m->pm);
    free(m->access);
    free(m);
    return SYMH_OK;
}

int symh_vmm_unmap(void *ptr, size_t size)
{
    symh_reg_entry_t entry;
    int status;

    SYMH_CHECK_INIT(symh_reg_registry != NULL, SYMH_ERR_NOT_INITIALIZED);
    pthread_mutex_lock(&symh_vmm_lock);
    status = symh_vmm_find(__func__, ptr, size, 1, &entry);
    if (status == SYMH_OK)
        status = symh_vmm_unmap_entry(&entry); /* on failure the backend logged why */
    if (status == SYMH_OK)
        symh_reg_map_remove(symh_reg_registry, (uintptr_t)ptr, NULL);
    pthread_mutex_unlock(&symh_vmm_lock);
    return symh_status_set(status);
}

static int symh_vmm_drop_mapping(const symh_reg_entry_t *entry, void *arg)
{
    size_t *count = arg;

    if (entry->kind != SYMH_REG_KIND_VMM)
        return 1;
    symh_vmm_unmap_entry(entry);
    ++*count;
    return 0;
}

static int symh_vmm_drop_reservation(const symh_reg_entry_t *entry, void *arg)
{
    size_t *count = arg;

    symh_dev->release((void *)entry->base, entry->length);
    free(entry->owner);
    ++*count;
    return 0;
}

void symh_vmm_fini(void)
{
    size_t mappings = 0, reservations = 0, objects = 0;

    pthread_mutex_lock(&symh_vmm_lock);
    if (symh_reg_registry != NULL)
        symh_reg_map_remove_if(symh_reg_registry, symh_vmm_drop_mapping, &mappings);
    if (symh_vmm_reservations != NULL) {
        symh_reg_map_remove_if(symh_vmm_reservations, symh_vmm_drop_reservation, &reservations);
        symh_reg_map_destroy(symh_vmm_reservations);
        symh_vmm_reservations = NULL;
    }
    /* What is left is only referenced by user handles never destroyed. */
    while (symh_vmm_objects != NULL) {
        symh_vmm_objects->refs = 1;
        symh_vmm_physmem_put(symh_vmm_objects);
        ++objects;
    }
    /* Every handle dies here; the generation counter lives on, so none of them names a later
     * object. */
    free(symh_vmm_handles.slots);
    symh_vmm_handles.slots = NULL;
    symh_vmm_handles.count = symh_vmm_handles.cap = symh_vmm_handles.free_head = 0;
    pthread_mutex_unlock(&symh_vmm_lock);
    if (mappings + reservations + objects != 0)
        symh_debug("symh_finalize: released %zu VMM mapping(s), %zu reservation(s) and %zu "
                   "physical object(s) left by the application",
                   mappings, reservations, objects);
}

int symh_vmm_pieces(const void *addr, size_t length, symh_vmm_piece_t *pieces, int max, int *n)
{
    uintptr_t at = (uintptr_t)addr, end = (uintptr_t)addr + length;
    int count = 0, status = SYMH_OK;

    pthread_mutex_lock(&symh_vmm_lock);
    while (at < end && status == SYMH_OK) {
        symh_reg_entry_t entry;
        const symh_vmm_mapping_t *m;
        size_t take;

        if (symh_reg_map_lookup(symh_reg_registry, at, &entry) != SYMH_OK ||
            entry.kind != SYMH_REG_KIND_VMM) {
            status = SYMH_ERR_UNSUPPORTED;
            break;
        }
        if (count == max) {
            status = SYMH_ERR_LIMIT;
            break;
        }
        m = entry.owner;
        take = entry.base + entry.length - at;
        if (take > end - at)
            take = end - at;
        pieces[count].mem = m->pm->mem;
        pieces[count].offset = m->offset + (at - entry.base);
        pieces[count].size = take;
        ++count;
        at += take;
    }
    pthread_mutex_unlock(&symh_vmm_lock);
    *n = count;
    return status;
}
