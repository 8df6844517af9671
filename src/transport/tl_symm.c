/* transport: mapping, sharing and translation of symmetric regions (tl_symm.h). */
#include "transport/tl_symm.h"

#include <stdlib.h>
#include <string.h>

#include <symheap/status.h>

#include "core/core_log.h"
#include "device/dev.h"

size_t symh_tl_symm_granule(void)
{
    return symh_dev->granularity(0, 1);
}

int symh_tl_symm_init(void)
{
    size_t granule = symh_tl_symm_granule(), n;
    unsigned shift = 0;

    symh_tl_symm_fini();
    while (((size_t)1 << shift) < granule)
        ++shift;
    if (((size_t)1 << shift) != granule || symh_tl_window.symm_size % granule != 0) {
        symh_error("symmetric area: %zu bytes is not a multiple of a power-of-two granule %zu",
                   symh_tl_window.symm_size, granule);
        return SYMH_ERR_INVALID_ARG;
    }
    n = symh_tl_window.symm_size >> shift;
    symh_space.regions.head = calloc(n > 0 ? n : 1, sizeof(*symh_space.regions.head));
    symh_space.regions.length = calloc(n > 0 ? n : 1, sizeof(*symh_space.regions.length));
    if (symh_space.regions.head == NULL || symh_space.regions.length == NULL) {
        symh_error("symmetric area: cannot allocate the table of %zu granules", n);
        symh_tl_symm_fini();
        return SYMH_ERR_NO_MEMORY;
    }
    symh_space.regions.lo = (uintptr_t)symh_tl_window.base + symh_tl_window.symm_offset;
    symh_space.regions.size = symh_tl_window.symm_size;
    symh_space.regions.window_offset = symh_tl_window.symm_offset;
    symh_space.regions.shift = shift;
    return SYMH_OK;
}

void symh_tl_symm_fini(void)
{
    free(symh_space.regions.head);
    free(symh_space.regions.length);
    /* The NIC's slot table (slot_at) is the NIC's to free (symh_tl_nic_fini). */
    symh_space.regions.head = NULL;
    symh_space.regions.length = NULL;
    symh_space.regions.lo = 0;
    symh_space.regions.size = 0;
    symh_space.regions.window_offset = 0;
    symh_space.regions.shift = 0;
}

/* Marks the granules of [offset, +length) as region `head` (0: none). */
static void symh_tl_symm_mark(size_t offset, size_t length, uint32_t head)
{
    size_t g = offset >> symh_space.regions.shift,
           end = (offset + length + ((size_t)1 << symh_space.regions.shift) - 1) >>
                 symh_space.regions.shift;

    for (; g < end; ++g)
        __atomic_store_n(&symh_space.regions.head[g], head, __ATOMIC_RELEASE);
}

int symh_tl_symm_add(size_t offset, size_t length, int n, symh_tl_ipc_object_t *pieces, int status)
{
    size_t at = 0;
    int i;

    if (status == SYMH_OK &&
        (symh_space.regions.head == NULL || offset % ((size_t)1 << symh_space.regions.shift) != 0 ||
         offset > symh_space.regions.size || length > symh_space.regions.size - offset)) {
        symh_error("symmetric area: region [%#zx, +%zu) does not fit the %zu-byte area", offset,
                   length, symh_space.regions.size);
        status = SYMH_ERR_INVALID_ARG;
    }
    /* The alias in this PE's own window. */
    for (i = 0; i < n && status == SYMH_OK; ++i) {
        pieces[i].offset = symh_space.regions.window_offset + offset + at;
        status = symh_dev->map(pieces[i].mem, pieces[i].mem_offset,
                               symh_tl_window.base + pieces[i].offset, pieces[i].size,
                               SYMH_DEV_ACCESS_READ_WRITE);
        at += pieces[i].size;
    }
    if (status == SYMH_OK && at != length) {
        symh_error("symmetric area: pieces of %zu bytes for a %zu-byte region", at, length);
        status = SYMH_ERR_INVALID_ARG;
    }
    status = symh_tl_ipc_share(offset, n, pieces, status);
    if (status == SYMH_OK) {
        symh_space.regions.length[offset >> symh_space.regions.shift] = length;
        symh_tl_symm_mark(offset, length, (uint32_t)((offset >> symh_space.regions.shift) + 1));
    }
    return status;
}

void symh_tl_symm_remove(size_t offset, size_t length)
{
    size_t span;

    if (symh_space.regions.head == NULL || offset > symh_space.regions.size ||
        length > symh_space.regions.size - offset)
        return;
    span = (length + ((size_t)1 << symh_space.regions.shift) - 1) &
           ~(((size_t)1 << symh_space.regions.shift) - 1);
    if (span > symh_space.regions.size - offset)
        span = symh_space.regions.size - offset;
    symh_tl_symm_mark(offset, length, 0);
    symh_dev->unmap(symh_tl_window.base + symh_space.regions.window_offset + offset, span);
    symh_tl_ipc_unshare(symh_space.regions.window_offset + offset, span);
}
