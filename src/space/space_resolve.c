/* space: the description of this PE's symmetric address space and the resolver's out-of-line
 * part (the globals, symheap's internal area, the symmetric regions). */
#include "space/space_resolve.h"

symh_space_t symh_space;

void symh_space_heap_set(void *window, size_t heap_offset, size_t heap_size)
{
    symh_space.window = (uintptr_t)window;
    symh_space.heap_offset = heap_offset;
    symh_space.heap_lo = (uintptr_t)window + heap_offset;
    symh_space.heap_size = heap_size;
}

void symh_space_heap_clear(void)
{
    /* heap_size 0 makes every heap address fail the inline compare even if read stale. */
    symh_space.heap_size = 0;
    symh_space.heap_lo = 0;
    symh_space.heap_offset = 0;
    symh_space.window = 0;
}

/* The NIC key slot of the region starting at `start` in the registration area, or -1. */
static int symh_space_region_slot(size_t start)
{
    size_t g = start >> symh_space.regions.shift;
    int slot;

    if (g >= symh_space.regions.n_slot_at)
        return -1;
    slot = __atomic_load_n(&symh_space.regions.slot_at[g], __ATOMIC_ACQUIRE);
    return slot >= SYMH_SPACE_FIRST_REGION_SLOT ? slot : -1;
}

symh_space_target_t symh_space_resolve_other(const void *addr)
{
    uintptr_t a = (uintptr_t)addr, goff = a - symh_space.globals.lo;
    size_t off = a - symh_space.window, heap_end = symh_space.heap_offset + symh_space.heap_size;
    size_t left, start;

    if (symh_space_in_globals(a)) /* each PE's globals are at their own address */
        return (symh_space_target_t){ .kind = SYMH_SPACE_GLOBALS,
                                      .offset = goff,
                                      .left = symh_space.globals.size - goff,
                                      .slot = SYMH_SPACE_GLOBALS_SLOT };
    if (a >= symh_space.window && off < symh_space.heap_offset && symh_space.heap_size != 0)
        return (symh_space_target_t){ .kind = SYMH_SPACE_INTERNAL,
                                      .offset = off,
                                      .left = heap_end - off,
                                      .slot = SYMH_SPACE_HEAP_SLOT };
    start = symh_space_region_find(a, &left);
    if (start != SIZE_MAX)
        return (symh_space_target_t){ .kind = SYMH_SPACE_REGION,
                                      .offset = a - symh_space.regions.lo +
                                                symh_space.regions.window_offset,
                                      .left = left,
                                      .slot = symh_space_region_slot(start) };
    return (symh_space_target_t){ .kind = SYMH_SPACE_NONE, .slot = -1 };
}
