/* tests/shim: C side of shim_heap_debug.h. */
#include "shim_heap_debug.h"

#include "heap/heap_window.h"
#include "transport/tl_ipc.h"

int symh_shim_heap_local_alloc(size_t size, size_t *offset)
{
    return symh_heap_debug_local_alloc(size, offset);
}

int symh_shim_heap_local_free(size_t offset)
{
    return symh_heap_debug_local_free(offset);
}

void *symh_shim_heap_base(void)
{
    return symh_heap_window.heap;
}

size_t symh_shim_heap_base_alignment(void)
{
    return symh_heap_window.heap_alignment;
}

void *symh_shim_peer_addr(const void *addr, int pe)
{
    char *base = symh_tl_ipc_peer_base(pe);

    return base == NULL ? NULL : base + ((const char *)addr - symh_tl_window.base);
}
