/* collectives: the layout of a team and of the teams' part of the internal area, private to
 * coll_team.c (the teams: creation, handles, splits, slots) and coll_team_sync.c (waits, signals,
 * the team's sync, the agreement exchange). The algorithms see a team through coll_team_slot.h
 * only (tools/check_includes.sh, rule `private`). */
#ifndef SYMH_COLL_TEAM_IMPL_H
#define SYMH_COLL_TEAM_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <symheap/team.h>

#include "collectives/coll_team_slot.h"

#define SYMH_TEAM_LIVE 0x7465616du /* "team" */

/* The check mailbox (SYMH_CHECK_COLLECTIVES) after the slots: per world PE that sends to this one,
 * two record banks and a count line; then this PE's outgoing record line. */
#define SYMH_TEAM_MAIL_PER_PE (3 * SYMH_TEAM_LINE)

struct symh_team {
    symh_coll_team_view_t v; /* first: what coll_team_slot.h's accessors read */
    uint32_t live;           /* SYMH_TEAM_LIVE while the team exists */
    uint32_t gen;            /* this team's generation, part of its handle (coll_team.c) */
    uint32_t busy;     /* SYMH_THREAD_MULTIPLE: a thread of this PE is in a collective on it */
    int slot;          /* its slot in every member's internal area */
    int start, stride; /* world PE of team PE i: start + i * stride when stride > 0 */
    unsigned spin;     /* pauses before a wait yields */
    symh_team_config_t config;
    uint64_t agreements; /* agreements (records bank = parity) */
};

/* The teams' part of this PE's internal area (coll_team.c lays it out at init). */
typedef struct {
    int up;
    int teams_max;
    size_t scratch;   /* bytes of each slot's scratch */
    size_t slot_size; /* bytes of a slot */
    size_t from_off;  /* offsets in a slot */
    size_t hdr_off;
    size_t records_off;
    size_t scratch_off;
    char *area;             /* this PE's first slot */
    char *mail;             /* this PE's check mailbox, after the slots */
    uint64_t *mail_sent;    /* n_pes: records this PE sent to each world PE's mailbox */
    uint64_t *mail_got;     /* n_pes: records this PE took from each world PE */
    struct symh_team *pool; /* teams_max entries: the team of slot s (0 and 1 unused) */
    uint64_t used;          /* bit s: slot s is live here */
} symh_coll_teams_t;

extern symh_coll_teams_t symh_coll_teams;

#endif /* SYMH_COLL_TEAM_IMPL_H */
