/* tests/shim: the collectives layer for the multi-PE tests. */
#include "shim_coll.h"

#include "collectives/coll_agree.h"
#include "collectives/coll_barrier.h"

int symh_shim_coll_uses_shm(void)
{
    return symh_coll_barrier_uses_shm();
}

int symh_shim_coll_busy(void)
{
    return (int)symh_coll_busy_op();
}
