/* collectives: the barrier of every PE, over flags in the node's shared internal areas when every
 * PE is node-local and mapped by the IPC transport, else over the bootstrap. It also carries the
 * agreement payload (coll_agree.h) at no extra round trip. Layout and epoch scheme: coll_barrier.c
 * and docs/collectives.md. */
#ifndef SYMH_COLL_BARRIER_H
#define SYMH_COLL_BARRIER_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/coll_agree.h"

/* Collective; called after symh_tl_ipc_init (the window and the peers' mappings exist) and
 * before anything calls symh_barrier_all. Chooses, once and the same on every PE, the
 * shared-memory path or the bootstrap fallback. */
int symh_coll_barrier_init(void);
/* Local; the caller has passed a closing bootstrap barrier, so no peer still polls our flags. */
void symh_coll_barrier_fini(void);

/* 1 between symh_coll_barrier_init and symh_coll_barrier_fini. */
int symh_coll_barrier_up(void);
/* 1 when the barrier runs over shared memory, 0 on the bootstrap fallback. */
int symh_coll_barrier_uses_shm(void);

/* Collective: the world team's barrier for call `op` (shared memory when
 * symh_coll_barrier_uses_shm, else one bootstrap allgather). Fills in `mine`'s sequence number and
 * operation; when `mine` is not NULL, its payload is published before the barrier, and every PE's
 * payload is copied into `all` (n_pes entries, PE order) after it when `all` is not NULL.
 * SYMH_ERR_MISMATCH when the PEs are not all in the same kind of call (logged once, by PE 0, naming
 * every PE's call); a bootstrap error when the exchange failed. */
int symh_coll_barrier_run(uint32_t op, symh_coll_agree_t *mine, symh_coll_agree_t *all);

/* Collective: symh_coll_barrier_run for the agreement `mine` (its `op` set) whose judge compares
 * the first `nargs` arguments. On the central shared-memory barrier a payload of at most three
 * words (header, arguments, result) is also folded into the barrier's own lines: when every PE
 * has the same words and none failed, `*agreed` is 1 and `all` is left as it was (the judge would
 * say SYMH_COLL_AGREED, and no PE read another's payload). Otherwise `*agreed` is 0 and `all` is
 * filled in as by symh_coll_barrier_run, for the judge. */
int symh_coll_barrier_agree(symh_coll_agree_t *mine, int nargs, symh_coll_agree_t *all,
                            int *agreed);

/* Logs the one line of calls out of step from every PE's header (`all`, n entries). */
void symh_coll_report_out_of_step(const symh_coll_agree_t *all, int n);

/* Bytes of the internal area the barrier uses for `n_pes` PEs (at offset 0). */
size_t symh_coll_barrier_region_size(int n_pes);

#endif /* SYMH_COLL_BARRIER_H */
