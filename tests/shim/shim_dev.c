/* tests/shim: C side of shim_dev.h, forwarding to the host backend's ops table (and, for the
 * active_ pair, to the active backend's). */
#include "shim_dev.h"

#include <stdint.h>

#include <symheap/status.h>

#include "device/dev.h"
#include "heap/heap_window.h"

size_t symh_shim_dev_granularity(int recommended)
{
    return symh_dev_host_ops.granularity(0, recommended);
}

int symh_shim_dev_reserve(size_t size, size_t alignment, void **va)
{
    return symh_dev_host_ops.reserve(size, alignment, va);
}

int symh_shim_dev_release(void *va, size_t size)
{
    return symh_dev_host_ops.release(va, size);
}

int symh_shim_dev_mem_create(size_t size, symh_shim_mem_t **mem)
{
    return symh_dev_host_ops.mem_create(0, size, mem);
}

int symh_shim_dev_mem_release(symh_shim_mem_t *mem)
{
    return symh_dev_host_ops.mem_release(mem);
}

size_t symh_shim_dev_mem_size(const symh_shim_mem_t *mem)
{
    return symh_dev_host_ops.mem_size(mem);
}

int symh_shim_dev_map(symh_shim_mem_t *mem, size_t offset, void *va, size_t size, int access)
{
    return symh_dev_host_ops.map(mem, offset, va, size, (symh_dev_access_t)access);
}

int symh_shim_dev_set_access(void *va, size_t size, int access)
{
    return symh_dev_host_ops.set_access(va, size, (symh_dev_access_t)access);
}

int symh_shim_dev_unmap(void *va, size_t size)
{
    return symh_dev_host_ops.unmap(va, size);
}

int symh_shim_dev_export_fd(const symh_shim_mem_t *mem, int *fd)
{
    return symh_dev_host_ops.export_fd(mem, fd);
}

int symh_shim_dev_import_fd(int fd, symh_shim_mem_t **mem)
{
    return symh_dev_host_ops.import_fd(fd, mem);
}

int symh_shim_dev_fill(void *va, int byte, size_t size)
{
    return symh_dev_host_ops.fill(va, byte, size);
}

int symh_shim_dev_copy(void *dst, const void *src, size_t size)
{
    return symh_dev_host_ops.copy(dst, src, size);
}

int symh_shim_dev_active_fill(void *va, int byte, size_t size)
{
    return symh_dev->fill(va, byte, size);
}

int symh_shim_dev_active_copy(void *dst, const void *src, size_t size)
{
    return symh_dev->copy(dst, src, size);
}

int symh_shim_dev_pretend_gpu(int on)
{
    static symh_dev_ops_t pretend;

    if (!on) {
        symh_dev = symh_dev_host;
        return SYMH_OK;
    }
    if (symh_dev != symh_dev_host)
        return SYMH_ERR_UNSUPPORTED;
    pretend = symh_dev_host_ops;
    pretend.name = "pretend-gpu";
    symh_dev = &pretend;
    return SYMH_OK;
}

int symh_shim_dev_heap_export_fd(const void *addr, int *fd, size_t *offset)
{
    const symh_heap_window_t *w = &symh_heap_window;
    uintptr_t a = (uintptr_t)addr, heap = (uintptr_t)w->heap;

    if (w->heap_mem == NULL || a < heap || a - heap >= w->heap_size)
        return SYMH_ERR_INVALID_ARG;
    *offset = (size_t)(a - heap);
    return symh_dev_host->export_fd(w->heap_mem, fd);
}
