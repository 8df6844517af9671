/* shmem: the thin definitions of the OpenSHMEM routines whose signature differs from their
 * symh_ routine's, or whose symh_ routine is defined where they cannot be its aliases: strong
 * pshmem_X calling symh_X, weak shmem_X an alias of it (OpenSHMEM 1.5's profiling interface),
 * expanded from <shmem.h>'s own rows (SYMH_SHMEM_DEFINE_FORWARDERS). The routines of the AMO,
 * collective and reduction tables are aliases of their symh_ code instead (tl_amo.c,
 * coll_ops.c); those with logic of their own are in the other files of src/shmem/. */
#define SYMH_SHMEM_DEFINE_FORWARDERS
#include <shmem.h>

/* symheap has no profiling levels: the level and the rest are ignored. */
void pshmem_pcontrol(int level, ...)
{
    symh_pcontrol(level);
}
SYMH_SHMEM_WEAK_(shmem_pcontrol);
