/* collectives: what a team collective's algorithm (coll_ops.c) may know of a team (docs/
 * collectives.md "Teams"): its members and this PE's rank, the slots of the internal area it
 * signals in, the waits and signals between members, the team's sync and the agreement exchange.
 * The team itself is opaque here: its layout (coll_team_impl.h) is private to coll_team*.c; the
 * accessors below read the part the data path needs inline.
 *
 * Every team owns one slot of every member's internal area, at the same offset on each member (the
 * slot number is agreed at the split), so a slot address is symmetric: a node-local member reaches
 * a peer's slot by load/store, any other member by the NIC (the internal area is in the NIC's key
 * slot 0). Slot layout (offsets from the slot's start):
 *   ctrl     words the algorithms signal and poll (SYMH_TEAM_CTRL_*), one 64-byte line each
 *   from     one counter per team PE: data signals from that PE (the NIC path of reductions),
 *            or small broadcasts of that PE this PE has read (the shared-memory path)
 *   hdr      SYMH_TEAM_USES rows of one word per team PE: the last bank use whose data that PE
 *            has put here (the NIC path's small collectives)
 *   records  two banks of one 64-byte agreement record per team PE (by the parity of the agreement)
 *   scratch  SYMH_COLL_SCRATCH bytes: what no user buffer can hold (a reduction's incoming chunks,
 *            collect's sizes); a collective larger than it is pipelined through it.
 * Every word only grows (64-bit counters of calls, never reset while the team lives), so a value
 * is never confused with an earlier one and nothing is cleared between calls. A slot is zeroed when
 * its team is destroyed, after a sync that no member leaves while a peer may still write to it.
 *
 * Two ways to run: when every member is load/store mapped (all_mapped, fixed at creation and the
 * same on every member), the collectives read and write peers' buffers directly and signal with CPU
 * atomics and stores; otherwise (a team across nodes, or with the NIC for node-local peers) they
 * put through each member's route and signal by posts (symh_coll_team_post: a put of the word's
 * new value, ordered behind the data by a fence), each word with one writer per call, which keeps
 * to one path (docs/transports.md). No signal is a NIC atomic: an atomic waits a round trip. */
#ifndef SYMH_COLL_TEAM_SLOT_H
#define SYMH_COLL_TEAM_SLOT_H

#include <stddef.h>
#include <stdint.h>

#include <symheap/team.h>

#include "core/core_util.h"
#include "transport/tl_data.h"

#define SYMH_TEAM_LINE 64
/* ctrl words (byte offsets in the slot):
 *   ARRIVE   team PE 0's: the shared-memory sync's arrival count
 *   RELEASE  the shared-memory sync's release
 *   POST     [0] the call this PE posted, [1] its value (collect's size)
 *   DONE     broadcast over shared memory, this PE as root of a large one: members done reading
 *   BCAST    broadcast over the NIC: data arrived from the parent
 *   VALUE    words this PE puts from: [0] collect's size over the NIC, [1] the value of a post
 *   BPOST    broadcast over shared memory, this PE as root: two lines (banks) for small ones,
 *            each [0] the call it holds and up to 56 bytes of data; a third line, [0] the call
 *            whose data the root's source holds (large ones)
 *   DISS     32 words: dissemination round k's count */
#define SYMH_TEAM_CTRL_ARRIVE  (0 * SYMH_TEAM_LINE)
#define SYMH_TEAM_CTRL_RELEASE (1 * SYMH_TEAM_LINE)
#define SYMH_TEAM_CTRL_POST    (2 * SYMH_TEAM_LINE)
#define SYMH_TEAM_CTRL_DONE    (3 * SYMH_TEAM_LINE)
#define SYMH_TEAM_CTRL_BCAST   (4 * SYMH_TEAM_LINE)
#define SYMH_TEAM_CTRL_VALUE   (5 * SYMH_TEAM_LINE)
#define SYMH_TEAM_CTRL_BPOST   (6 * SYMH_TEAM_LINE)
#define SYMH_TEAM_CTRL_DISS    (9 * SYMH_TEAM_LINE)
#define SYMH_TEAM_CTRL_SIZE    (9 * SYMH_TEAM_LINE + 32 * 8)
#define SYMH_TEAM_RECORD       64
/* A team over the NIC syncs at least once every this many bank uses (its small collectives):
 * the header rows of a slot. */
#define SYMH_TEAM_USES 32

/* The agreement record of one PE: what it was asked (op, args), what it found (status), and for a
 * split the slots in use on it and whether it maps its new team. */
typedef struct {
    uint32_t op;
    int32_t status;
    uint64_t args[5];
    uint64_t used_slots; /* a split: bit s set when slot s is live here */
    uint64_t flags;      /* a split: bit 0 = this PE maps every member of its new team, bit 1 every
                          * member on its node */
} symh_team_record_t;

_Static_assert(sizeof(symh_team_record_t) == SYMH_TEAM_RECORD, "a record is one line");

/* A team: opaque to the algorithms. */
struct symh_team;

/* What the algorithms count in a team, theirs to read and write (coll_ops.c); the team keeps it
 * (zeroed at creation, with an entry per member in each array) and never reads it. */
typedef struct {
    uint64_t done_due;           /* broadcast as root of large ones: reads of its source so far */
    uint64_t *root_uses;         /* n_pes: small shared-memory broadcasts each member rooted */
    symh_team_record_t *checked; /* n_pes: SYMH_CHECK_COLLECTIVES's records of one call */
    uint64_t chunks;             /* NIC reductions: chunks exchanged */
    uint64_t bank_uses;          /* NIC small collectives: banks used so far */
    uint64_t bank_synced;        /* bank_uses at the team's last sync */
    uint64_t bank_syncs;         /* the team's syncs when bank_synced was taken */
    size_t ring;                 /* bytes of the scratch the banks took since that sync */
    uint64_t small_reduces;      /* small reductions over shared memory (their bank's parity) */
} symh_coll_team_algo_t;

/* The part of a team the accessors below read inline: the first member of every team
 * (coll_team_impl.h), written by coll_team*.c only. Read it through the accessors, never by its
 * fields, so that the rest of the layout can change without the algorithms. */
typedef struct {
    int n_pes;
    int my_pe;      /* this PE's number in the team */
    int *pes;       /* n_pes world PEs, in team order (ascending) */
    char *mine;     /* this PE's slot */
    char **peers;   /* n_pes: each member's slot as mapped here, NULL where not mapped */
    int all_mapped; /* every member is load/store mapped here (see the top of this file) */
    /* Over the NIC with node steps (hier): this PE's node's members and the lowest member of each
     * node, as team numbers, ascending; this PE's rank among those (-1: not one). */
    int hier, group_n, n_leaders, my_leader_rank;
    int *group, *leaders;
    uint64_t calls; /* collective calls so far, counted the same on every member */
    uint64_t syncs; /* syncs so far, the internal ones included */
    symh_coll_team_algo_t algo;
} symh_coll_team_view_t;

static inline const symh_coll_team_view_t *symh_coll_team_view(const struct symh_team *t)
{
    return (const symh_coll_team_view_t *)(const void *)t;
}

/* ---- members and slots (inline: the data path reads them) ------------------------------------ */

static inline int symh_coll_team_n_pes(const struct symh_team *t)
{
    return symh_coll_team_view(t)->n_pes;
}

static inline int symh_coll_team_my_pe(const struct symh_team *t)
{
    return symh_coll_team_view(t)->my_pe;
}

/* The world PE of team PE `pe`. */
static inline int symh_coll_team_world_pe(const struct symh_team *t, int pe)
{
    return symh_coll_team_view(t)->pes[pe];
}

/* This PE's slot, and team PE `pe`'s as mapped here (NULL where that member is not mapped). */
static inline char *symh_coll_team_my_slot(const struct symh_team *t)
{
    return symh_coll_team_view(t)->mine;
}

static inline char *symh_coll_team_peer_slot(const struct symh_team *t, int pe)
{
    return symh_coll_team_view(t)->peers[pe];
}

/* The word at byte `offset` of this PE's slot. */
static inline uint64_t *symh_coll_team_word(const struct symh_team *t, size_t offset)
{
    return (uint64_t *)(void *)(symh_coll_team_view(t)->mine + offset);
}

/* Whether every member is load/store mapped; whether the team runs node steps over the NIC
 * (hier), this PE's node's members (group, team numbers), the lowest member of each node
 * (leaders) and this PE's rank among those (-1: not one). */
static inline int symh_coll_team_all_mapped(const struct symh_team *t)
{
    return symh_coll_team_view(t)->all_mapped;
}

static inline int symh_coll_team_hier(const struct symh_team *t)
{
    return symh_coll_team_view(t)->hier;
}

static inline int symh_coll_team_group_n(const struct symh_team *t)
{
    return symh_coll_team_view(t)->group_n;
}

static inline int symh_coll_team_group(const struct symh_team *t, int i)
{
    return symh_coll_team_view(t)->group[i];
}

static inline int symh_coll_team_n_leaders(const struct symh_team *t)
{
    return symh_coll_team_view(t)->n_leaders;
}

static inline int symh_coll_team_leader(const struct symh_team *t, int l)
{
    return symh_coll_team_view(t)->leaders[l];
}

static inline int symh_coll_team_my_leader_rank(const struct symh_team *t)
{
    return symh_coll_team_view(t)->my_leader_rank;
}

/* The team's collective calls so far (what CTRL_POST carries), and the start of the next one. */
static inline uint64_t symh_coll_team_calls(const struct symh_team *t)
{
    return symh_coll_team_view(t)->calls;
}

static inline void symh_coll_team_call_begin(struct symh_team *t)
{
    ((symh_coll_team_view_t *)(void *)t)->calls++;
}

/* The team's syncs so far (each symh_coll_team_sync, on any path, adds one). */
static inline uint64_t symh_coll_team_syncs(const struct symh_team *t)
{
    return symh_coll_team_view(t)->syncs;
}

/* The algorithms' counters of the team. */
static inline symh_coll_team_algo_t *symh_coll_team_algo(struct symh_team *t)
{
    return &((symh_coll_team_view_t *)(void *)t)->algo;
}

/* The load/store address of symmetric `addr` on team PE `pe` (this PE's own for itself), or NULL
 * when that member is not mapped here. */
static inline char *symh_coll_team_peer_addr(const struct symh_team *t, int pe, const void *addr)
{
    const symh_coll_team_view_t *v = symh_coll_team_view(t);
    char *slot = v->peers[pe];

    if (slot == NULL)
        return NULL;
    /* A global of the executable is at its own offset from each PE's data segment. */
    if (symh_unlikely(symh_space_in_globals((uintptr_t)addr)))
        return symh_tl_data.peer_base[v->pes[pe]] + ((uintptr_t)addr - symh_space.globals.lo);
    return slot + ((const char *)addr - v->mine);
}

/* The number of the team's slot (the same on every member; SYMH_CHECK_COLLECTIVES compares it). */
int symh_coll_team_slot_index(const struct symh_team *t);

/* The scratch of a team's slot here, and its size (the same for every team). */
char *symh_coll_team_scratch(const struct symh_team *t);
size_t symh_coll_team_scratch_size(void);
/* The NIC path's small collectives (coll_ops.c "the NIC path's banks"): the offset in a slot of
 * the header word (row use % SYMH_TEAM_USES) that team PE `pe` posts bank use `use` to once its
 * data for that use is here. */
size_t symh_coll_team_hdr_offset(uint64_t use, int pe);
/* The `from` counter of team PE `pe` in this PE's slot, and its offset in a slot. */
uint64_t *symh_coll_team_from(const struct symh_team *t, int pe);
size_t symh_coll_team_from_offset(int pe);

/* ---- the call (coll_team.c) ------------------------------------------------------------------ */

/* The team behind a handle, or NULL when it names no live team (not initialized, invalid,
 * destroyed): O(1), without dereferencing a handle that is not one of symheap's. */
struct symh_team *symh_coll_team_get(symh_team_t team);
/* The same with one line naming `func` and SYMH_ERR_INVALID_ARG recorded when it is NULL. */
struct symh_team *symh_coll_team_check(const char *func, symh_team_t team);

/* Claims the team for this thread's collective call: under SYMH_THREAD_MULTIPLE a second thread
 * of this PE calling a collective on a team while another is in one gets SYMH_ERR_MISMATCH and one
 * line naming `func` (OpenSHMEM: collectives on one team must not overlap); SYMH_OK otherwise,
 * paired with one symh_coll_team_release. */
int symh_coll_team_claim(struct symh_team *t, const char *func);
void symh_coll_team_release(struct symh_team *t);

/* ---- waits, signals, sync and agreement (coll_team_sync.c) ----------------------------------- */

/* Waits until the word at `word` (local or mapped) reaches `value`, driving the NIC meanwhile;
 * after SYMH_HANG_TIMEOUT one line names `func`, the team's call and the PE waited for. */
void symh_coll_team_wait(const struct symh_team *t, const uint64_t *word, uint64_t value,
                         const char *func, int waited_pe);
/* Waits until one of the `n` words at `words` equals `value`; returns its index (hang line as
 * symh_coll_team_wait). */
int symh_coll_team_wait_equal(const struct symh_team *t, const uint64_t *words, int n,
                              uint64_t value, const char *func, int waited_pe);
/* Stores `value` into the word at byte `offset` of team PE `pe`'s slot: a CPU store where that
 * member is mapped, else a put through its route (after symh_coll_team_order, for data sent
 * before). Every word posted to has one writer in a call and only grows, so a put that does not
 * wait for the target (a signal, not a round-trip atomic) cannot be confused with another: the
 * next value to the same word is ordered behind it by the next order or sync. */
int symh_coll_team_post(const struct symh_team *t, int pe, size_t offset, uint64_t value);
/* Puts `bytes` from local `source` to symmetric `dest` on team PE `pe`, then posts `value` to the
 * word at `offset` of its slot, the data visible there before the value: one message where the
 * route has put_signal (UCX), else a put, symh_coll_team_order and a post. `source` may be reused
 * on return only where the route's put_signal or a mapped copy took it (else at the next sync);
 * the callers send from memory that stays put until then. */
int symh_coll_team_put_signal(const struct symh_team *t, int pe, void *dest, const void *source,
                              size_t bytes, size_t offset, uint64_t value);
/* Orders the data this PE sent to members before the signals it sends next. */
int symh_coll_team_order(const struct symh_team *t);
/* Puts `bytes` from local `source` (symmetric or this PE's slot) to symmetric `dest` on team PE
 * `pe`: a copy when mapped, else a non-blocking put through the PE's route, which the next
 * symh_coll_team_order orders before later signals and the next sync completes (source stays
 * untouched until then). */
int symh_coll_team_put(const struct symh_team *t, int pe, void *dest, const void *source,
                       size_t bytes);

/* Collective over the team: returns once every member has called it; RMA this PE issued before
 * (collective data included) is complete at its targets when any member returns. */
int symh_coll_team_sync(struct symh_team *t, const char *func);

/* Collective over the team: every member's record, exchanged (records bank of this agreement,
 * this PE's own included); *all points to the n_pes records, valid until the team's next
 * agreement but one. */
int symh_coll_team_exchange(struct symh_team *t, const symh_team_record_t *mine,
                            const symh_team_record_t **all, const char *func);

/* The same for SYMH_CHECK_COLLECTIVES, through every PE's check mailbox instead of the team's slot
 * (members that name different teams meet there too): the n_pes records, in team order, are
 * copied into all. */
int symh_coll_team_check_exchange(const struct symh_team *t, const symh_team_record_t *mine,
                                  symh_team_record_t *all, const char *func);

#endif /* SYMH_COLL_TEAM_SLOT_H */
