/* collectives: the teams as the layers above see them (docs/collectives.md "Teams"): their start
 * and end with symh_init and symh_finalize, and the bytes of the internal area they take. The
 * algorithms' view of a team is coll_team_slot.h; its layout, private to coll_team*.c,
 * coll_team_impl.h. */
#ifndef SYMH_COLL_TEAM_H
#define SYMH_COLL_TEAM_H

#include <stddef.h>

/* Collective over the world (after symh_coll_barrier_init): the slots, the world and shared teams.
 * Agrees SYMH_TEAMS_MAX and SYMH_COLL_SCRATCH across PEs. */
int symh_coll_team_init(void);
/* Local (after the closing barrier): frees every team, the predefined two included. */
void symh_coll_team_fini(void);
/* Reads SYMH_CHECK_COLLECTIVES for the collectives (coll_ops.c); called by symh_coll_team_init. */
void symh_coll_ops_configure(void);
/* Checks SYMH_TEAMS_MAX and SYMH_COLL_SCRATCH (before the bootstrap; msg says why). */
int symh_coll_team_check_config(char *msg, size_t msg_len);

/* Bytes of the internal area the collectives take (the barrier's region, then the teams'), for
 * this job's PEs (symh_boot_info) and the configuration as loaded now. */
size_t symh_coll_internal_size(void);

/* Bytes of the internal area the teams take, after the barrier's region, for n_pes PEs (from
 * SYMH_TEAMS_MAX and SYMH_COLL_SCRATCH as configured now). */
size_t symh_coll_team_area_size(int n_pes);

#endif /* SYMH_COLL_TEAM_H */
