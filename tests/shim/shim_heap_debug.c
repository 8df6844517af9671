/* tests/shim: C side of shim_heap_debug.h. */
#include "shim_heap_debug.h"

#include "heap/heap_window.h"
#include "transport/tl.h"
#include "transport/tl_ipc.h"
#include "transport/tl_nic.h"

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

void *symh_shim_heap_internal(size_t *size)
{
    *size = symh_heap_window.internal_size;
    return symh_heap_window.internal;
}

void *symh_shim_peer_addr(const void *addr, int pe)
{
    char *base = symh_tl_ipc_peer_base(pe);

    return base == NULL ? NULL : base + ((const char *)addr - symh_tl_window.base);
}

const char *symh_shim_ops_name(int pe)
{
    return symh_tl_ops_of(pe)->name;
}

int symh_shim_ops_put(void *dest, const void *source, size_t bytes, int pe)
{
    return symh_tl_ops_of(pe)->put(NULL, dest, source, bytes, pe, NULL, NULL);
}

int symh_shim_ops_get(void *dest, const void *source, size_t bytes, int pe)
{
    return symh_tl_ops_of(pe)->get(NULL, dest, source, bytes, pe, NULL, NULL);
}

int symh_shim_ops_fetch_add64(void *dest, long long value, long long *fetched, int pe)
{
    return symh_tl_ops_of(pe)->amo(NULL, SYMH_TL_AMO_ADD, dest, sizeof(long long), &value, NULL,
                                   fetched, pe);
}

int symh_shim_nic_quiet(void)
{
    return symh_tl_nic_quiet(NULL);
}
