/* symheap public header: teams (OpenSHMEM 1.5 "Team Management Routines" under the symh_ prefix;
 * docs/collectives.md "Teams"). A team is an ordered subset of the world's PEs; the predefined
 * teams are the world and the PEs of this node that the IPC transport maps (the shared team).
 * New teams are split from a parent, collectively over the parent; every member of a new team
 * gets the same handle value's meaning, a PE left out gets SYMH_TEAM_INVALID. */
#ifndef SYMHEAP_TEAM_H
#define SYMHEAP_TEAM_H

#include <symheap/defs.h>

SYMH_BEGIN_C_DECLS

/* An opaque handle; SYMH_TEAM_INVALID (a null handle) names no team. */
typedef struct symh_team *symh_team_t;

typedef struct {
    int num_contexts; /* contexts the team's creator will make on it (a hint) */
} symh_team_config_t;

/* Bits of the config_mask arguments: which fields of a symh_team_config_t are given. */
#define SYMH_TEAM_NUM_CONTEXTS (1L << 0)

#define SYMH_TEAM_INVALID ((symh_team_t)0)

/* What the predefined handles point at: fixed-size markers, not the teams themselves, so the
 * library's team object can change without changing its ABI (an executable that takes their
 * address gets a copy of each). Valid as handles between symh_init and symh_finalize; use the
 * macros, which are address constants (usable in static initializers). */
SYMH_API extern unsigned char symh_team_world_handle[8];
SYMH_API extern unsigned char symh_team_shared_handle[8];
#define SYMH_TEAM_WORLD  ((symh_team_t)(void *)symh_team_world_handle)
#define SYMH_TEAM_SHARED ((symh_team_t)(void *)symh_team_shared_handle)

/* Local. This PE's number in `team` and the team's size: -1 for SYMH_TEAM_INVALID, a destroyed
 * team, or before init. */
SYMH_API int symh_team_my_pe(symh_team_t team);
SYMH_API int symh_team_n_pes(symh_team_t team);
/* Local. Fills the fields of *config that config_mask names; SYMH_OK, or a negative status for an
 * invalid team, a NULL config with a nonzero mask, or an unknown mask bit. */
SYMH_API int symh_team_get_config(symh_team_t team, long config_mask, symh_team_config_t *config);
/* Local. The number in dest_team of PE src_pe of src_team; -1 when either team is invalid, src_pe
 * is not in src_team, or that PE is not a member of dest_team. */
SYMH_API int symh_team_translate_pe(symh_team_t src_team, int src_pe, symh_team_t dest_team);

/* Local. The load/store address of symmetric `dest` on PE `pe` of `team` (team numbering), as
 * symh_ptr; NULL when that PE is not reachable by load/store (SYMH_ERR_UNSUPPORTED, nothing
 * logged) or on misuse (an invalid team, pe not in it, dest not symmetric: logged). */
SYMH_API void *symh_team_ptr(symh_team_t team, const void *dest, int pe);

/* Collective over parent_team, with the same arguments on every member. The new team holds the
 * parent's PEs start, start + stride, ..., start + (size - 1) * stride (stride >= 1, or any
 * stride when size is 1), in that order. Members get the new handle, the other PEs of the parent
 * SYMH_TEAM_INVALID and SYMH_OK. Arguments that differ between PEs, a team that does not fit the
 * parent, or no free team on some member (SYMH_TEAMS_MAX live teams, the predefined two included)
 * give SYMH_TEAM_INVALID and the same negative status on every PE of the parent, with one line for
 * the job. config may be NULL when config_mask is 0. */
SYMH_API int symh_team_split_strided(symh_team_t parent_team, int start, int stride, int size,
                                     const symh_team_config_t *config, long config_mask,
                                     symh_team_t *new_team);
/* Collective over parent_team: a grid of xrange columns (min(xrange, size of the parent)) over the
 * parent's PEs in order. xaxis_team: this PE's row (consecutive PEs), yaxis_team: its column (PEs
 * xrange apart). All or nothing: on failure both are SYMH_TEAM_INVALID on every PE. */
SYMH_API int symh_team_split_2d(symh_team_t parent_team, int xrange,
                                const symh_team_config_t *xaxis_config, long xaxis_mask,
                                symh_team_t *xaxis_team, const symh_team_config_t *yaxis_config,
                                long yaxis_mask, symh_team_t *yaxis_team);
/* Collective over the team: waits until no member uses it any more and frees it. The predefined
 * teams and SYMH_TEAM_INVALID are refused (one line, symh_last_error()). */
SYMH_API void symh_team_destroy(symh_team_t team);
/* Collective over the team: returns once every member has called it (no ordering of RMA). */
SYMH_API int symh_team_sync(symh_team_t team);

SYMH_END_C_DECLS

#endif /* SYMHEAP_TEAM_H */
