/* transport: the generic part of the NIC domain (tl_nic.h): which transport is active, the
 * window bases and key slots both transports share, the check of the local side, and the
 * hooks that keep the bootstrap's waits and the registry's buffers working with the NIC. */
#include "transport/tl_nic.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/init.h>
#include <symheap/status.h>

#include "bootstrap/boot.h"
#include "core/core_config.h"
#include "core/core_fault.h"
#include "core/core_log.h"
#include "registration/reg_registry.h"
#include "transport/tl_data.h"
#include "transport/tl_ipc.h"
#include "transport/tl_rma.h"
#include "transport/tl_route.h"
#include "transport/tl_symm.h"

const symh_tl_nic_t *symh_tl_nic;
uintptr_t *symh_tl_nic_base;
int symh_tl_nic_n_slots;
uintptr_t *symh_tl_nic_data_base;

/* The live symmetric regions' window offsets and lengths, by slot (slots 0 and 1 unused here: the
 * heap is found by the window's layout, the globals by their segment). The slot of each region
 * by the granule it starts at is the address space's (symh_space.regions.slot_at, allocated and
 * written here): the resolver finds a region and its slot with one more load. */
static struct {
    size_t *offset;
    size_t *length;
    int top; /* slots 1 .. top - 1 may be live */
} symh_tl_nic_slots;

_Thread_local symh_tl_nic_counts_t symh_tl_nic_counts;
_Thread_local symh_reg_map_hint_t symh_tl_nic_hint;

int symh_tl_nic_routed(int pe)
{
    /* Every PE once the NIC is active: it carries every atomic of the job, to IPC peers and to
     * this PE too (so a route of its own is no longer the question). */
    (void)pe;
    return symh_tl_nic != NULL;
}

/* The registration layer's hooks, pointed at the active transport's map_local/unmap_local. */
static symh_reg_nic_hooks_t symh_tl_nic_hooks;

/* SYMH_NIC_REGISTERED_ONLY=1 (read at init): local memory symheap does not know is refused. */
static int symh_tl_nic_registered_only;

int symh_tl_nic_init(void)
{
    symh_tl_id_t id = symh_tl_route_nic();
    const symh_tl_nic_t *nic = symh_tl_table[id].nic;
    int n = symh_boot_info.n_pes, status;
    uintptr_t mine = (uintptr_t)symh_tl_window.base, my_data = symh_space.globals.lo;

    symh_tl_nic_fini();
    /* The decision is the same on every PE (it follows from the configuration and the node
     * grouping every PE shares), so either all take part in the collective start or none. */
    if (!symh_tl_route_nic_needed() || nic == NULL)
        return SYMH_OK;
    symh_tl_nic_n_slots =
        SYMH_TL_NIC_FIRST_SYMM_SLOT + (int)symh_config_size(SYMH_CFG_MAX_SYMM_REGIONS);
    symh_tl_nic_base = symh_fault_calloc((size_t)n, sizeof(*symh_tl_nic_base), "nic: tables");
    symh_tl_nic_data_base = calloc((size_t)n, sizeof(*symh_tl_nic_data_base));
    symh_tl_nic_slots.offset = calloc((size_t)symh_tl_nic_n_slots, sizeof(size_t));
    symh_tl_nic_slots.length = calloc((size_t)symh_tl_nic_n_slots, sizeof(size_t));
    symh_space.regions.n_slot_at =
        symh_space.regions.head != NULL ? symh_space.regions.size >> symh_space.regions.shift : 0;
    symh_space.regions.slot_at = calloc(symh_space.regions.n_slot_at + 1, sizeof(int));
    status = symh_tl_nic_base == NULL || symh_tl_nic_data_base == NULL ||
                     symh_tl_nic_slots.offset == NULL || symh_tl_nic_slots.length == NULL ||
                     symh_space.regions.slot_at == NULL
                 ? SYMH_ERR_NO_MEMORY
                 : SYMH_OK;
    if (status != SYMH_OK)
        symh_error("symh_init: cannot allocate the %s transport's tables", symh_tl_name(id));
    /* Every PE has its tables before the exchange into them, or none exchanges. */
    status = symh_boot_agree(status, NULL);
    if (status == SYMH_OK)
        status = symh_boot->allgather(&mine, symh_tl_nic_base, sizeof(mine));
    if (status == SYMH_OK)
        status = symh_boot->allgather(&my_data, symh_tl_nic_data_base, sizeof(my_data));
    if (status != SYMH_OK) {
        symh_tl_nic_fini();
        return status;
    }
    symh_tl_nic_slots.top = SYMH_TL_NIC_FIRST_SYMM_SLOT;
    symh_tl_nic_registered_only = symh_config_bool(SYMH_CFG_NIC_REGISTERED_ONLY);
    symh_tl_nic = nic; /* routed() counts this PE from here on */
    status = nic->init(symh_tl_window.base, symh_tl_window.heap_offset + symh_tl_window.heap_size,
                       symh_boot_info.thread_level == SYMH_THREAD_MULTIPLE);
    /* The executable's globals as their own slot (collective; the sizes were agreed at init, so
     * every PE takes part or none does). */
    if (status == SYMH_OK && symh_space.globals.size != 0) {
        status = nic->map_symm(SYMH_TL_NIC_DATA_SLOT, (void *)symh_space.globals.lo,
                               symh_space.globals.size, SYMH_OK);
        if (status != SYMH_OK)
            nic->fini();
    }
    if (status != SYMH_OK) {
        symh_tl_nic = NULL;
        symh_tl_nic_fini();
        return status;
    }
    symh_boot_set_progress(symh_tl_nic_progress);
    symh_tl_nic_hooks = (symh_reg_nic_hooks_t){ .map = nic->map_local, .unmap = nic->unmap_local };
    symh_reg_set_nic_hooks(&symh_tl_nic_hooks);
    symh_tl_rma.amo_ops = &nic->ops;
    symh_debug("symh_init: the %s transport is up", nic->ops.name);
    return SYMH_OK;
}

void symh_tl_nic_close(void)
{
    const symh_tl_nic_t *nic = symh_tl_nic;

    if (nic == NULL)
        return;
    nic->close(); /* symh_finalize has quieted every channel before */
    /* The bootstrap's barrier drives the transport while it waits (the progress hook is still
     * installed): a peer still closing its endpoints to this PE gets the progress it needs. */
    if (symh_boot->barrier() != SYMH_OK)
        symh_warn("symh_finalize: the barrier after closing the %s transport's connections failed",
                  nic->ops.name);
}

void symh_tl_nic_fini(void)
{
    const symh_tl_nic_t *nic = symh_tl_nic;

    if (nic != NULL) {
        symh_reg_set_nic_hooks(NULL);
        symh_boot_set_progress(NULL);
        symh_tl_rma.amo_ops = NULL;
        if (nic->ops.quiet(NULL) != SYMH_OK)
            symh_warn("symh_finalize: the %s transport's last quiet failed", nic->ops.name);
        nic->fini();
        symh_tl_nic = NULL;
    }
    free(symh_tl_nic_base);
    free(symh_tl_nic_data_base);
    free(symh_tl_nic_slots.offset);
    free(symh_tl_nic_slots.length);
    free(symh_space.regions.slot_at);
    symh_space.regions.slot_at = NULL;
    symh_space.regions.n_slot_at = 0;
    symh_tl_nic_base = NULL;
    symh_tl_nic_data_base = NULL;
    memset(&symh_tl_nic_slots, 0, sizeof(symh_tl_nic_slots));
    symh_tl_nic_n_slots = 0;
}

/* The local side of a transfer (symh_tl_nic_local without the checks); *entry = the registry
 * entry holding `addr` (this thread's copy), or NULL when none does or a key slot holds it. */
static int symh_tl_nic_find(const void *addr, size_t bytes, symh_tl_local_t *local,
                            const symh_reg_entry_t **entry)
{
    uintptr_t a = (uintptr_t)addr;
    symh_space_target_t at;
    const symh_reg_entry_t *e;

    *entry = NULL;
    local->handle = NULL;
    local->slot = symh_space_resolve(addr, bytes, &at) ? at.slot : -1;
    if (local->slot >= 0)
        return SYMH_OK;
    if (symh_reg_registry == NULL)
        return SYMH_ERR_NOT_REGISTERED;
    ++symh_tl_nic_counts.lookups;
    if (symh_reg_map_lookup_hinted(symh_reg_registry, a, &symh_tl_nic_hint, &e) != SYMH_OK)
        return SYMH_ERR_NOT_REGISTERED;
    *entry = e;
    if (e->tl_handles[0] == NULL || bytes > e->length - (a - e->base))
        return SYMH_ERR_NOT_REGISTERED;
    local->handle = e->tl_handles[0];
    return SYMH_OK;
}

int symh_tl_nic_lookup(const void *addr, size_t bytes, symh_tl_local_t *local)
{
    const symh_reg_entry_t *entry;

    return symh_tl_nic_find(addr, bytes, local, &entry);
}

int symh_tl_nic_local(const char *func, const void *addr, size_t bytes, symh_tl_local_t *local)
{
    const symh_reg_entry_t *entry;

    if (symh_tl_nic_find(addr, bytes, local, &entry) == SYMH_OK)
        return SYMH_OK;
    if (symh_dev != symh_dev_host && entry != NULL && entry->kind == SYMH_REG_KIND_DEVICE) {
        /* GPU memory is not mapped for the NIC (symh_dev_alloc_do): the NIC libraries symheap
         * is built with may not handle it, and a CPU copy of it would fault. */
        symh_error("%s: the local buffer [%p, +%zu) is %s device memory, which the %s transport "
                   "does not carry; stage it through host memory; nothing sent",
                   func, addr, bytes, symh_dev->name,
                   symh_tl_nic != NULL ? symh_tl_nic->ops.name : "NIC");
        return SYMH_ERR_UNSUPPORTED;
    }
    /* Any other memory: the transport's own path for memory it was not given a handle of
     * (docs/transports.md "Any local memory"), unless the strict rule is asked for. */
    if (!symh_tl_nic_registered_only)
        return SYMH_OK;
    symh_error("%s: the local buffer [%p, +%zu) is not registered for the %s transport (use the "
               "symmetric heap, a symmetric region, symh_buffer_register or symh_dev_alloc); "
               "nothing sent",
               func, addr, bytes, symh_tl_nic != NULL ? symh_tl_nic->ops.name : "NIC");
    return SYMH_ERR_NOT_REGISTERED;
}

/* Collective, on a step that failed everywhere (map_symm's agreement: the failing PEs kept their
 * own status, the others got SYMH_ERR_MISMATCH): the status of the lowest PE whose own part
 * failed, on every PE. Symmetric registration reports one code for the job, that PE's (as it
 * reports one PE's reason); SYMH_ERR_MISMATCH when no PE has another. */
static int symh_tl_nic_culprit_status(int status)
{
    int64_t culprit = status != SYMH_ERR_MISMATCH ? symh_boot_info.my_pe : symh_boot_info.n_pes;
    int32_t code = status;

    if (symh_boot->allreduce(&culprit, 1, SYMH_BOOT_REDUCE_MIN) != SYMH_OK)
        return SYMH_ERR_BOOTSTRAP;
    if (culprit >= symh_boot_info.n_pes)
        return status;
    if (symh_boot->bcast(&code, sizeof(code), (int)culprit) != SYMH_OK)
        return SYMH_ERR_BOOTSTRAP;
    return code;
}

/* Records `slot` (0: none) as the slot of the region at `window_offset` for the data path. */
static void symh_tl_nic_slot_mark(size_t window_offset, int slot)
{
    size_t g = (window_offset - symh_space.regions.window_offset) >> symh_space.regions.shift;

    if (window_offset >= symh_space.regions.window_offset && g < symh_space.regions.n_slot_at)
        __atomic_store_n(&symh_space.regions.slot_at[g], slot, __ATOMIC_RELEASE);
}

int symh_tl_nic_symm_add(size_t window_offset, void *addr, size_t length, int status)
{
    int s;

    if (symh_tl_nic == NULL)
        return status;
    /* Slots are taken in the same order on every PE (registration is collective), so the
     * lowest free one is the same everywhere; a PE that failed before still takes it. */
    for (s = SYMH_TL_NIC_FIRST_SYMM_SLOT;
         s < symh_tl_nic_n_slots && symh_tl_nic_slots.length[s] != 0; ++s)
        ;
    if (s == symh_tl_nic_n_slots) {
        /* The same on every PE (slots follow collective calls), so nobody exchanges; the limit
         * of regions (SYMH_MAX_SYMM_REGIONS) refuses such a call before it gets here. */
        symh_error("symh_buffer_register_symmetric: no free key slot of the %s transport",
                   symh_tl_nic->ops.name);
        return status == SYMH_OK ? SYMH_ERR_LIMIT : status;
    }
    symh_tl_nic_slots.offset[s] = window_offset;
    symh_tl_nic_slots.length[s] = length;
    if (s >= symh_tl_nic_slots.top)
        symh_tl_nic_slots.top = s + 1;
    status = symh_tl_nic->map_symm(s, addr, length, status);
    if (status != SYMH_OK)
        return symh_tl_nic_culprit_status(status);
    symh_tl_nic_slot_mark(window_offset, s);
    return SYMH_OK;
}

void symh_tl_nic_symm_remove(size_t window_offset)
{
    int s;

    if (symh_tl_nic == NULL)
        return;
    for (s = SYMH_TL_NIC_FIRST_SYMM_SLOT; s < symh_tl_nic_slots.top; ++s) {
        if (symh_tl_nic_slots.length[s] != 0 && symh_tl_nic_slots.offset[s] == window_offset) {
            symh_tl_nic_slot_mark(window_offset, 0);
            symh_tl_nic->unmap_symm(s);
            symh_tl_nic_slots.length[s] = 0;
            symh_tl_nic_slots.offset[s] = 0;
        }
    }
}

void symh_tl_nic_progress(void)
{
    const symh_tl_nic_t *nic = symh_tl_nic;

    if (nic != NULL)
        (void)nic->ops.progress();
}

int symh_tl_nic_quiet(symh_tl_chan_t *chan)
{
    const symh_tl_nic_t *nic = symh_tl_nic;

    return nic == NULL ? SYMH_OK : nic->ops.quiet(chan);
}

int symh_tl_nic_fence(symh_tl_chan_t *chan)
{
    const symh_tl_nic_t *nic = symh_tl_nic;

    return nic == NULL ? SYMH_OK : nic->ops.fence(chan);
}
