/* tests/shim: the collectives layer (src/collectives/coll_barrier.h) for the multi-PE tests. */
#ifndef SYMH_SHIM_COLL_H
#define SYMH_SHIM_COLL_H

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the barrier and the agreement run over shared memory, 0 on the bootstrap fallback. */
int symh_shim_coll_uses_shm(void);
/* Not 0 while a thread of this PE is inside a collective call (SYMH_THREAD_MULTIPLE only). */
int symh_shim_coll_busy(void);

#ifdef __cplusplus
}
#endif

#endif /* SYMH_SHIM_COLL_H */
