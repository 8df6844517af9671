/* heap: the symmetric window: reservation, the internal area and the heap as physical objects of
 * the device backend, mapped at fixed offsets that are the same on every PE. */
#include "heap/heap_window.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <symheap/status.h>

#include "collectives/coll_team.h"
#include "core/core_config.h"
#include "core/core_log.h"

symh_heap_window_t symh_heap_window;

#define SYMH_HEAP_MIN_BASE_ALIGNMENT ((size_t)1 << 30)

static size_t symh_heap_round_up(size_t value, size_t granule)
{
    return (value + granule - 1) / granule * granule;
}

/* The heap base is aligned to the heap's size rounded up to a power of two (at least 1 GiB), so
 * every alignment the heap can hold is honoured at the same offset on every PE. */
static size_t symh_heap_base_alignment(size_t heap_size)
{
    size_t alignment = SYMH_HEAP_MIN_BASE_ALIGNMENT;

    while (alignment < heap_size)
        alignment <<= 1;
    return alignment;
}

int symh_heap_check_config(char *msg, size_t msg_len)
{
    size_t page = symh_dev_host->granularity(0, 0);
    size_t heap = symh_config_size(SYMH_CFG_HEAP_SIZE);
    size_t symm = symh_config_size(SYMH_CFG_SYMM_AREA_SIZE);
    const size_t limit = (size_t)1 << 46; /* 64 TiB: half of a 47-bit user address space */

    if (heap == 0) {
        snprintf(msg, msg_len, "SYMH_HEAP_SIZE=%s: the heap needs at least one page",
                 symh_config_text(SYMH_CFG_HEAP_SIZE));
        return SYMH_ERR_INVALID_ARG;
    }
    if (heap > limit || symm > limit || symh_heap_round_up(heap, page) + symm > limit) {
        snprintf(msg, msg_len,
                 "SYMH_HEAP_SIZE=%s with SYMH_SYMM_AREA_SIZE=%s exceeds the %zu-byte address "
                 "space a window may take",
                 symh_config_text(SYMH_CFG_HEAP_SIZE), symh_config_text(SYMH_CFG_SYMM_AREA_SIZE),
                 limit);
        return SYMH_ERR_INVALID_ARG;
    }
    return SYMH_OK;
}

/* The sizes of the window SYMH_HEAP_SIZE and SYMH_SYMM_AREA_SIZE make (no address yet). */
static void symh_heap_window_layout(symh_heap_window_t *w)
{
    size_t page = symh_dev_host->granularity(0, 0);
    size_t recommended = symh_dev_host->granularity(0, 1);

    memset(w, 0, sizeof(*w));
    /* The barrier's region and every team's slot (collectives/coll_team.h). */
    w->internal_size = symh_heap_round_up(symh_coll_internal_size(), recommended);
    w->heap_size = symh_heap_round_up(symh_config_size(SYMH_CFG_HEAP_SIZE), page);
    w->symm_size = symh_heap_round_up(symh_config_size(SYMH_CFG_SYMM_AREA_SIZE), recommended);
    w->heap_alignment = symh_heap_base_alignment(w->heap_size);
    /* [guard | internal | heap | symm]: the heap starts on the reservation's aligned start
     * plus one alignment unit, so the internal area sits right below it. */
    w->reservation_size = w->heap_alignment + w->heap_size + w->symm_size;
    w->size = w->internal_size + w->heap_size + w->symm_size;
}

/* Each PE reserves its own window and, for each node-local peer IPC maps, a copy of the peer's
 * (tl_ipc.c: one alignment unit + the window), so the address space a PE needs grows with the
 * PEs of its node: 63 TiB of SYMH_SYMM_AREA_SIZE fits one window in a 47-bit (128 TiB) space but
 * not two. One trial PROT_NONE reservation of the whole (plus the over-reservation by one
 * alignment unit that each aligned reserve makes while it runs) asks the kernel, which knows the
 * layout, RLIMIT_AS and what sanitizers keep; it is given back at once. Not through the backend's
 * reserve: that one logs its failure on every PE, and this answer is logged once per job. */
int symh_heap_check_space(int n_windows, char *msg, size_t msg_len)
{
    const double tib = (double)((size_t)1 << 40);
    symh_heap_window_t w;
    size_t each, total;
    void *p = MAP_FAILED;

    symh_heap_window_layout(&w);
    each = w.reservation_size + w.internal_size;
    if (n_windows >= 1 && each <= (SIZE_MAX - w.heap_alignment) / (size_t)n_windows) {
        total = each * (size_t)n_windows + w.heap_alignment;
        p = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    } else {
        total = SIZE_MAX;
    }
    if (p != MAP_FAILED) {
        munmap(p, total);
        return SYMH_OK;
    }
    snprintf(msg, msg_len,
             "SYMH_HEAP_SIZE=%s with SYMH_SYMM_AREA_SIZE=%s needs %.1f TiB (%zu bytes) of address "
             "space on each PE: %d windows (one per node-local PE mapped by IPC, this one "
             "included) of %.1f TiB with alignment, more than a PE can reserve; lower them, or "
             "reach node-local peers through a NIC transport (SYMH_DISABLE_MIXED_IPC=1)",
             symh_config_text(SYMH_CFG_HEAP_SIZE), symh_config_text(SYMH_CFG_SYMM_AREA_SIZE),
             (double)total / tib, total, n_windows, (double)each / tib);
    return SYMH_ERR_NO_MEMORY;
}

int symh_heap_window_init(void)
{
    symh_heap_window_t *w = &symh_heap_window;
    int status;

    symh_heap_window_layout(w);
    status =
        symh_dev_host->reserve(w->reservation_size, w->heap_alignment, (void **)&w->reservation);
    if (status != SYMH_OK) {
        symh_error("symh_init: cannot reserve %zu bytes of address space for the symmetric "
                   "window (SYMH_HEAP_SIZE=%s)",
                   w->reservation_size, symh_config_text(SYMH_CFG_HEAP_SIZE));
        return status;
    }
    w->heap = w->reservation + w->heap_alignment;
    w->internal = w->heap - w->internal_size;
    w->symm = w->heap + w->heap_size;
    w->base = w->internal;

    status = symh_dev_host->mem_create(0, w->internal_size, &w->internal_mem);
    if (status != SYMH_OK)
        goto err_release;
    status = symh_dev_host->map(w->internal_mem, 0, w->internal, w->internal_size,
                                SYMH_DEV_ACCESS_READ_WRITE);
    if (status != SYMH_OK)
        goto err_internal_mem;
    status = symh_dev_host->mem_create(0, w->heap_size, &w->heap_mem);
    if (status != SYMH_OK)
        goto err_internal_map;
    status = symh_dev_host->map(w->heap_mem, 0, w->heap, w->heap_size, SYMH_DEV_ACCESS_READ_WRITE);
    if (status != SYMH_OK)
        goto err_heap_mem;
    symh_debug("window at %p: internal %zu, heap %zu at %p, symmetric area %zu", (void *)w->base,
               w->internal_size, w->heap_size, (void *)w->heap, w->symm_size);
    return SYMH_OK;

err_heap_mem:
    symh_dev_host->mem_release(w->heap_mem);
err_internal_map:
    symh_dev_host->unmap(w->internal, w->internal_size);
err_internal_mem:
    symh_dev_host->mem_release(w->internal_mem);
err_release:
    symh_dev_host->release(w->reservation, w->reservation_size);
    memset(w, 0, sizeof(*w));
    return status;
}

int symh_heap_populate(char *why, size_t why_len)
{
    return symh_dev_host->populate(symh_heap_window.heap_mem, why, why_len);
}

void symh_heap_window_fini(void)
{
    symh_heap_window_t *w = &symh_heap_window;

    if (w->reservation == NULL)
        return;
    symh_dev_host->unmap(w->heap, w->heap_size);
    symh_dev_host->mem_release(w->heap_mem);
    symh_dev_host->unmap(w->internal, w->internal_size);
    symh_dev_host->mem_release(w->internal_mem);
    symh_dev_host->release(w->reservation, w->reservation_size);
    memset(w, 0, sizeof(*w));
}
