/* collectives: teams (symh_team_*): their creation, handles, splits and destruction, their slots
 * in the internal area, and the contexts of a team (symh_ctx_create: the world's). Waits, signals,
 * the team sync and the agreement exchange: coll_team_sync.c; the slot layout and the two ways to
 * run: coll_team_slot.h; the algorithms on top: coll_ops.c; docs/collectives.md "Teams". */
#include "collectives/coll_team.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <symheap/barrier.h>
#include <symheap/ctx.h>
#include <symheap/init.h>
#include <symheap/rma.h>
#include <symheap/status.h>
#include <symheap/team.h>

#include "bootstrap/boot.h"
#include "collectives/coll_agree.h"
#include "collectives/coll_barrier.h"
#include "collectives/coll_team_impl.h"
#include "collectives/coll_team_slot.h"
#include "core/core_config.h"
#include "core/core_log.h"
#include "core/core_status.h"
#include "core/core_util.h"
#include "core/core_wait.h"
#include "transport/tl.h"
#include "transport/tl_ctx.h"
#include "transport/tl_ipc.h"
#include "transport/tl_nic.h"
#include "transport/tl_rma.h"

#define SYMH_TEAM_SLOT_WORLD  0
#define SYMH_TEAM_SLOT_SHARED 1
#define SYMH_TEAMS_LIMIT      64 /* a split's record carries the slots in use as one 64-bit mask */
#define SYMH_TEAM_ALIGN       4096
#define SYMH_TEAM_SCRATCH_MIN ((size_t)4 << 10)
#define SYMH_TEAM_SCRATCH_MAX ((size_t)16 << 20)
#define SYMH_TEAM_SPIN_OWN    1000

/* Agreement ops of the team routines themselves (the collectives' are coll_ops.c's). */
#define SYMH_TEAM_OP_SPLIT_STRIDED 1
#define SYMH_TEAM_OP_SPLIT_2D_X    2
#define SYMH_TEAM_OP_SPLIT_2D_Y    3

unsigned char symh_team_world_handle[8];
unsigned char symh_team_shared_handle[8];
static struct symh_team symh_team_world_object, symh_team_shared_object;

symh_coll_teams_t symh_coll_teams;

/* The last generation given to a split team; never reset, so that no handle of an earlier team,
 * or of an earlier symh_init, names a later one. */
static uint32_t symh_team_gens;

static size_t symh_team_round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* Where the teams' slots start in the internal area: after the barrier's region. */
static size_t symh_team_area_offset(int n_pes)
{
    return symh_team_round_up(symh_coll_barrier_region_size(n_pes), SYMH_TEAM_ALIGN);
}

static void symh_team_layout(int n_pes, size_t *from, size_t *hdr, size_t *records,
                             size_t *scratch_off, size_t *scratch, size_t *slot)
{
    size_t s = symh_config_size(SYMH_CFG_COLL_SCRATCH);

    if (s < SYMH_TEAM_SCRATCH_MIN)
        s = SYMH_TEAM_SCRATCH_MIN;
    if (s > SYMH_TEAM_SCRATCH_MAX)
        s = SYMH_TEAM_SCRATCH_MAX;
    /* A NIC reduction splits half the scratch into one block per member: at least four of the
     * widest elements (16 bytes) each. */
    if (s < (size_t)n_pes * 128)
        s = (size_t)n_pes * 128;
    s = symh_team_round_up(s, SYMH_TEAM_LINE);
    *from = SYMH_TEAM_CTRL_SIZE;
    *hdr = symh_team_round_up(*from + (size_t)n_pes * sizeof(uint64_t), SYMH_TEAM_LINE);
    *records = symh_team_round_up(*hdr + SYMH_TEAM_USES * (size_t)n_pes * sizeof(uint64_t),
                                  SYMH_TEAM_LINE);
    *scratch_off = *records + 2 * (size_t)n_pes * SYMH_TEAM_RECORD;
    *scratch = s;
    *slot = symh_team_round_up(*scratch_off + s, SYMH_TEAM_ALIGN);
}

static int symh_team_max_config(void)
{
    size_t n = symh_config_size(SYMH_CFG_TEAMS_MAX);

    return n < 2 ? 2 : n > SYMH_TEAMS_LIMIT ? SYMH_TEAMS_LIMIT : (int)n;
}

int symh_coll_team_check_config(char *msg, size_t msg_len)
{
    size_t n = symh_config_size(SYMH_CFG_TEAMS_MAX), s = symh_config_size(SYMH_CFG_COLL_SCRATCH);

    if (n < 2 || n > SYMH_TEAMS_LIMIT) {
        snprintf(msg, msg_len,
                 "SYMH_TEAMS_MAX=%s: the number of live teams must be 2 to %d (the world and "
                 "shared teams count)",
                 symh_config_text(SYMH_CFG_TEAMS_MAX), SYMH_TEAMS_LIMIT);
        return SYMH_ERR_INVALID_ARG;
    }
    if (s < SYMH_TEAM_SCRATCH_MIN || s > SYMH_TEAM_SCRATCH_MAX) {
        snprintf(msg, msg_len, "SYMH_COLL_SCRATCH=%s: the scratch of a team must be 4k to 16m",
                 symh_config_text(SYMH_CFG_COLL_SCRATCH));
        return SYMH_ERR_INVALID_ARG;
    }
    return SYMH_OK;
}

static size_t symh_team_mail_size(int n_pes)
{
    return symh_team_round_up((size_t)n_pes * SYMH_TEAM_MAIL_PER_PE + SYMH_TEAM_LINE,
                              SYMH_TEAM_ALIGN);
}

size_t symh_coll_team_area_size(int n_pes)
{
    size_t from, hdr, records, scratch_off, scratch, slot;

    symh_team_layout(n_pes, &from, &hdr, &records, &scratch_off, &scratch, &slot);
    return symh_team_area_offset(n_pes) + (size_t)symh_team_max_config() * slot +
           symh_team_mail_size(n_pes);
}

size_t symh_coll_internal_size(void)
{
    return symh_coll_team_area_size(symh_boot_info.n_pes);
}

int symh_coll_team_slot_index(const struct symh_team *t)
{
    return t->slot;
}

char *symh_coll_team_scratch(const struct symh_team *t)
{
    return t->v.mine + symh_coll_teams.scratch_off;
}

size_t symh_coll_team_scratch_size(void)
{
    return symh_coll_teams.scratch;
}

uint64_t *symh_coll_team_from(const struct symh_team *t, int pe)
{
    return (uint64_t *)(void *)(t->v.mine + symh_coll_team_from_offset(pe));
}

size_t symh_coll_team_from_offset(int pe)
{
    return symh_coll_teams.from_off + (size_t)pe * sizeof(uint64_t);
}

size_t symh_coll_team_hdr_offset(uint64_t use, int pe)
{
    return symh_coll_teams.hdr_off +
           ((size_t)(use % SYMH_TEAM_USES) * (size_t)symh_boot_info.n_pes + (size_t)pe) *
               sizeof(uint64_t);
}

static char *symh_team_slot_base(int slot)
{
    return symh_coll_teams.area + (size_t)slot * symh_coll_teams.slot_size;
}

/* Zeroes what the algorithms count in (ctrl, from, records); the scratch needs no reset. */
static void symh_team_slot_clear(int slot)
{
    memset(symh_team_slot_base(slot), 0, symh_coll_teams.scratch_off);
}

/* Fills in a team of the `n` world PEs `pes` (taken over) on `slot`. */
/* The node steps of a team over the NIC whose members map their node-mates (`paths` bit 1 on
 * every member): the members of this PE's node (group, ascending), the lowest of each node
 * (leaders, ascending) and this PE's rank among them. Left off (hier 0) when no node holds two
 * members. */
static int symh_team_setup_nodes(struct symh_team *t)
{
    const int *node = symh_boot_info.node_of_pe;
    int i, j, mine = node[symh_boot_info.my_pe];

    t->v.group = malloc((size_t)t->v.n_pes * sizeof(int));
    t->v.leaders = malloc((size_t)t->v.n_pes * sizeof(int));
    if (t->v.group == NULL || t->v.leaders == NULL)
        return SYMH_ERR_NO_MEMORY;
    t->v.my_leader_rank = -1;
    for (i = 0; i < t->v.n_pes; ++i) {
        for (j = 0; j < i && node[t->v.pes[j]] != node[t->v.pes[i]]; ++j)
            ;
        if (j == i) {
            if (i == t->v.my_pe)
                t->v.my_leader_rank = t->v.n_leaders;
            t->v.leaders[t->v.n_leaders++] = i;
        }
        if (node[t->v.pes[i]] == mine)
            t->v.group[t->v.group_n++] = i;
    }
    t->v.hier = t->v.n_leaders < t->v.n_pes;
    return SYMH_OK;
}

static int symh_team_setup(struct symh_team *t, int slot, int *pes, int n, int paths,
                           const symh_team_config_t *config)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int i, me = symh_boot_info.my_pe;

    memset(t, 0, sizeof(*t));
    if (++symh_team_gens == 0) /* never 0 after a wrap: each split's team a generation of its own */
        ++symh_team_gens;
    t->gen = symh_team_gens;
    t->v.peers = calloc((size_t)n, sizeof(*t->v.peers));
    t->v.algo.root_uses = calloc((size_t)n, sizeof(*t->v.algo.root_uses));
    t->v.algo.checked = calloc((size_t)n, sizeof(*t->v.algo.checked));
    if (t->v.peers == NULL || t->v.algo.root_uses == NULL || t->v.algo.checked == NULL) {
        free(t->v.peers);
        free(t->v.algo.root_uses);
        free(t->v.algo.checked);
        free(pes);
        return SYMH_ERR_NO_MEMORY;
    }
    t->slot = slot;
    t->v.pes = pes;
    t->v.n_pes = n;
    t->v.my_pe = -1;
    t->v.mine = symh_team_slot_base(slot);
    t->start = pes[0];
    t->stride = n > 1 ? pes[1] - pes[0] : 1;
    for (i = 0; i < n; ++i) {
        char *base = symh_tl_rma.peer_base[pes[i]];

        if (pes[i] == me)
            t->v.my_pe = i;
        if (pes[i] == me)
            t->v.peers[i] = t->v.mine;
        else if (base != NULL)
            t->v.peers[i] = base + (t->v.mine - symh_tl_window.base);
        if (i > 0 && pes[i] - pes[i - 1] != t->stride)
            t->stride = 0; /* not strided: translation searches pes */
    }
    t->v.all_mapped = paths & 1;
    if (!t->v.all_mapped && (paths & 2) && symh_team_setup_nodes(t) != SYMH_OK) {
        free(t->v.group);
        free(t->v.leaders);
        free(t->v.peers);
        free(t->v.algo.root_uses);
        free(t->v.algo.checked);
        free(pes);
        return SYMH_ERR_NO_MEMORY;
    }
    t->spin = cpus > 0 && symh_boot_info.machine_n_pes <= cpus ? SYMH_TEAM_SPIN_OWN : 0;
    if (config != NULL)
        t->config = *config;
    symh_coll_teams.used |= (uint64_t)1 << slot;
    __atomic_store_n(&t->live, SYMH_TEAM_LIVE, __ATOMIC_RELEASE);
    return SYMH_OK;
}

static void symh_team_teardown(struct symh_team *t)
{
    __atomic_store_n(&t->live, 0, __ATOMIC_RELEASE);
    symh_coll_teams.used &= ~((uint64_t)1 << t->slot);
    symh_team_slot_clear(t->slot);
    free(t->v.pes);
    free(t->v.peers);
    free(t->v.algo.root_uses);
    free(t->v.algo.checked);
    free(t->v.group);
    free(t->v.leaders);
    t->v.pes = NULL;
    t->v.peers = NULL;
    t->v.algo.root_uses = NULL;
    t->v.algo.checked = NULL;
    t->v.group = NULL;
    t->v.leaders = NULL;
}

static int symh_team_mapped(int pe)
{
    return pe == symh_boot_info.my_pe || symh_tl_rma.peer_base[pe] != NULL;
}

/* The paths bits this PE sees for a team of the `n` world PEs `pes`: 1 = it maps every member,
 * 2 = it maps every member on its node. */
static int symh_team_paths(const int *pes, int n)
{
    int i, all = 1, node = 1, mine = symh_boot_info.node_of_pe[symh_boot_info.my_pe];

    for (i = 0; i < n; ++i) {
        if (symh_team_mapped(pes[i]))
            continue;
        all = 0;
        if (symh_boot_info.node_of_pe[pes[i]] == mine)
            node = 0;
    }
    return all | node << 1;
}

int symh_coll_team_init(void)
{
    int n = symh_boot_info.n_pes, me = symh_boot_info.my_pe, i, k, status = SYMH_OK;
    int *world = malloc((size_t)n * sizeof(int)), *shared = malloc((size_t)n * sizeof(int));
    size_t need;
    int64_t agree[7];

    memset(&symh_coll_teams, 0, sizeof(symh_coll_teams));
    symh_coll_teams.teams_max = symh_team_max_config();
    symh_team_layout(n, &symh_coll_teams.from_off, &symh_coll_teams.hdr_off,
                     &symh_coll_teams.records_off, &symh_coll_teams.scratch_off,
                     &symh_coll_teams.scratch, &symh_coll_teams.slot_size);
    need = symh_coll_team_area_size(n);
    symh_coll_teams.mail_sent = calloc((size_t)n, sizeof(uint64_t));
    symh_coll_teams.mail_got = calloc((size_t)n, sizeof(uint64_t));
    if (world == NULL || shared == NULL || symh_coll_teams.mail_sent == NULL ||
        symh_coll_teams.mail_got == NULL ||
        (symh_coll_teams.pool =
             calloc((size_t)symh_coll_teams.teams_max, sizeof(*symh_coll_teams.pool))) == NULL) {
        symh_error("symh_init: cannot allocate the team tables of %d PEs", n);
        status = SYMH_ERR_NO_MEMORY;
    } else if (symh_tl_window.internal_size < need) {
        symh_error("symh_init: the internal area of %zu bytes cannot hold the teams' %zu bytes",
                   symh_tl_window.internal_size, need);
        status = SYMH_ERR_NO_MEMORY;
    }
    /* Every PE must lay its slots out alike: the same limits, and one decision on the world
     * team's path. MIN and MAX of each value must match. */
    agree[0] = agree[1] = symh_coll_teams.teams_max;
    agree[2] = agree[3] = (int64_t)symh_coll_teams.scratch;
    agree[4] = status == SYMH_OK ? 1 : 0;
    for (i = 0; i < n && world != NULL; ++i)
        world[i] = i;
    k = world != NULL ? symh_team_paths(world, n) : 0;
    agree[5] = k & 1;
    agree[6] = k >> 1 & 1;
    agree[1] = -agree[1];
    agree[3] = -agree[3];
    if (symh_boot->allreduce(agree, 7, SYMH_BOOT_REDUCE_MIN) != SYMH_OK && status == SYMH_OK)
        status = SYMH_ERR_BOOTSTRAP;
    if (status == SYMH_OK && agree[4] == 0)
        status = SYMH_ERR_NO_MEMORY; /* another PE failed and said so */
    if (status == SYMH_OK && (agree[0] != -agree[1] || agree[2] != -agree[3])) {
        if (me == 0)
            symh_error("symh_init: PEs have different SYMH_TEAMS_MAX (%" PRId64 "..%" PRId64
                       ") or SYMH_COLL_SCRATCH (%" PRId64 "..%" PRId64 "): set them alike",
                       agree[0], -agree[1], agree[2], -agree[3]);
        status = SYMH_ERR_MISMATCH;
    }
    if (status != SYMH_OK) {
        free(world);
        free(shared);
        free(symh_coll_teams.pool);
        free(symh_coll_teams.mail_sent);
        free(symh_coll_teams.mail_got);
        memset(&symh_coll_teams, 0, sizeof(symh_coll_teams));
        return status;
    }
    symh_coll_teams.area = symh_tl_window.base + symh_team_area_offset(n);
    memset(symh_coll_teams.area, 0,
           (size_t)symh_coll_teams.teams_max * symh_coll_teams.slot_size + symh_team_mail_size(n));
    symh_coll_teams.mail =
        symh_coll_teams.area + (size_t)symh_coll_teams.teams_max * symh_coll_teams.slot_size;
    for (i = 0, k = 0; i < n; ++i)
        if (symh_team_mapped(i))
            shared[k++] = i;
    status = symh_team_setup(&symh_team_world_object, SYMH_TEAM_SLOT_WORLD, world, n,
                             (int)(agree[5] | agree[6] << 1), NULL);
    if (status == SYMH_OK)
        status =
            symh_team_setup(&symh_team_shared_object, SYMH_TEAM_SLOT_SHARED, shared, k, 1, NULL);
    else
        free(shared);
    if (status != SYMH_OK) {
        symh_error("symh_init: cannot allocate the predefined teams");
        symh_coll_team_fini();
        return status;
    }
    symh_coll_ops_configure();
    symh_coll_teams.up = 1;
    symh_debug("teams: %d slots of %zu bytes (scratch %zu); world %s, shared team of %d PE(s)",
               symh_coll_teams.teams_max, symh_coll_teams.slot_size, symh_coll_teams.scratch,
               agree[5]                        ? "over shared memory"
               : symh_team_world_object.v.hier ? "over shared memory, then the NIC between nodes"
                                               : "over the NIC",
               k);
    return SYMH_OK;
}

void symh_coll_team_fini(void)
{
    int s;

    for (s = 0; s < symh_coll_teams.teams_max && symh_coll_teams.pool != NULL; ++s)
        if (symh_coll_teams.pool[s].live == SYMH_TEAM_LIVE)
            symh_team_teardown(&symh_coll_teams.pool[s]);
    if (symh_team_world_object.live == SYMH_TEAM_LIVE)
        symh_team_teardown(&symh_team_world_object);
    if (symh_team_shared_object.live == SYMH_TEAM_LIVE)
        symh_team_teardown(&symh_team_shared_object);
    free(symh_coll_teams.pool);
    free(symh_coll_teams.mail_sent);
    free(symh_coll_teams.mail_got);
    memset(&symh_coll_teams, 0, sizeof(symh_coll_teams));
}

/* A split team's handle: its slot and its generation, odd so that it is never the address of
 * the predefined teams' handles (symh_team_world_handle, symh_team_shared_handle) nor 0
 * (SYMH_TEAM_INVALID). The slot alone would not do: a destroyed team's slot is the next split's,
 * and its old handle would name the new team (a program that kept it would get the new team's
 * size where OpenSHMEM says -1). The generation differs, so the old handle names nothing. */
#define SYMH_TEAM_HANDLE_SLOT_BITS 19

static symh_team_t symh_team_handle(const struct symh_team *t)
{
    uintptr_t h =
        ((uintptr_t)t->gen << (SYMH_TEAM_HANDLE_SLOT_BITS + 1)) | ((uintptr_t)t->slot << 1) | 1u;

    return (symh_team_t)(void *)h;
}

struct symh_team *symh_coll_team_get(symh_team_t team)
{
    uintptr_t h = (uintptr_t)(void *)team, slot;
    struct symh_team *t;

    if (team == SYMH_TEAM_WORLD || team == SYMH_TEAM_SHARED) {
        t = team == SYMH_TEAM_WORLD ? &symh_team_world_object : &symh_team_shared_object;
        return __atomic_load_n(&t->live, __ATOMIC_ACQUIRE) == SYMH_TEAM_LIVE ? t : NULL;
    }
    if ((h & 1u) == 0 || symh_coll_teams.pool == NULL)
        return NULL;
    slot = (h >> 1) & (((uintptr_t)1 << SYMH_TEAM_HANDLE_SLOT_BITS) - 1);
    if (slot >= (uintptr_t)symh_coll_teams.teams_max)
        return NULL;
    t = &symh_coll_teams.pool[slot];
    if (__atomic_load_n(&t->live, __ATOMIC_ACQUIRE) != SYMH_TEAM_LIVE ||
        (uint32_t)(h >> (SYMH_TEAM_HANDLE_SLOT_BITS + 1)) != t->gen)
        return NULL;
    return t;
}

struct symh_team *symh_coll_team_check(const char *func, symh_team_t team)
{
    struct symh_team *t = symh_coll_team_get(team);

    /* A child of fork keeps the teams' state but is no member (core_status.h). */
    if (symh_likely(t != NULL && symh_status_fork_pe < 0))
        return t;
    if (!symh_coll_teams.up || symh_status_fork_pe >= 0) {
        SYMH_LOG_NOT_INITIALIZED(func);
        symh_status_set(SYMH_ERR_NOT_INITIALIZED);
        return NULL;
    }
    symh_error("%s: team %p is %s on PE %d; nothing done", func, (void *)team,
               team == SYMH_TEAM_INVALID ? "SYMH_TEAM_INVALID" : "not a live team (destroyed?)",
               symh_boot_info.my_pe);
    symh_status_set(SYMH_ERR_INVALID_ARG);
    return NULL;
}

int symh_coll_team_claim(struct symh_team *t, const char *func)
{
    uint32_t idle = 0;

    if (symh_likely(symh_boot_info.thread_level != SYMH_THREAD_MULTIPLE))
        return SYMH_OK;
    if (__atomic_compare_exchange_n(&t->busy, &idle, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return SYMH_OK;
    symh_error("%s: called on PE %d while another thread of this PE is in a collective on the same "
               "team: collective calls on one team must not overlap (OpenSHMEM 1.5, threads); "
               "nothing done",
               func, symh_boot_info.my_pe);
    return symh_status_set(SYMH_ERR_MISMATCH);
}

void symh_coll_team_release(struct symh_team *t)
{
    if (symh_boot_info.thread_level == SYMH_THREAD_MULTIPLE)
        __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

/* ---- queries ------------------------------------------------------------------------------ */

/* The numbering queries answer -1 without a line for a team that is not live (OpenSHMEM), and
 * in a child of fork, which is in no team (core_status.h). */
int symh_team_my_pe(symh_team_t team)
{
    struct symh_team *t = symh_coll_team_get(team);

    return t != NULL && symh_status_fork_pe < 0 ? t->v.my_pe : -1;
}

int symh_team_n_pes(symh_team_t team)
{
    struct symh_team *t = symh_coll_team_get(team);

    return t != NULL && symh_status_fork_pe < 0 ? t->v.n_pes : -1;
}

int symh_team_get_config(symh_team_t team, long config_mask, symh_team_config_t *config)
{
    struct symh_team *t;

    if (team == SYMH_TEAM_INVALID) /* OpenSHMEM: nonzero, and nothing to report */
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    t = symh_coll_team_check(__func__, team);
    if (t == NULL)
        return symh_last_error();
    if ((config_mask & ~SYMH_TEAM_NUM_CONTEXTS) != 0 || (config_mask != 0 && config == NULL)) {
        symh_error("symh_team_get_config: config_mask %#lx with config %p: the mask may only "
                   "hold SYMH_TEAM_NUM_CONTEXTS, and needs a config to fill",
                   (unsigned long)config_mask, (void *)config);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    if (config_mask & SYMH_TEAM_NUM_CONTEXTS)
        config->num_contexts = t->config.num_contexts;
    return symh_status_set(SYMH_OK);
}

/* The team number of world PE `world` in t, or -1. */
static int symh_team_index_of(const struct symh_team *t, int world)
{
    int lo = 0, hi = t->v.n_pes - 1;

    if (t->stride > 0) {
        int d = world - t->start;

        return d >= 0 && d % t->stride == 0 && d / t->stride < t->v.n_pes ? d / t->stride : -1;
    }
    while (lo <= hi) { /* pes ascends */
        int mid = lo + (hi - lo) / 2;

        if (t->v.pes[mid] == world)
            return mid;
        if (t->v.pes[mid] < world)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int symh_team_translate_pe(symh_team_t src_team, int src_pe, symh_team_t dest_team)
{
    struct symh_team *s = symh_coll_team_get(src_team), *d = symh_coll_team_get(dest_team);

    if (s == NULL || d == NULL || src_pe < 0 || src_pe >= s->v.n_pes || symh_status_fork_pe >= 0)
        return -1;
    return symh_team_index_of(d, s->v.pes[src_pe]);
}

void *symh_team_ptr(symh_team_t team, const void *dest, int pe)
{
    struct symh_team *t = symh_coll_team_get(team);

    SYMH_CHECK_INIT(symh_status_initialized, NULL);
    if (t == NULL) {
        symh_error("symh_team_ptr: team %p is not a live team", (void *)team);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return NULL;
    }
    if (pe < 0 || pe >= t->v.n_pes) {
        symh_error("symh_team_ptr: pe %d is not in the team (0..%d)", pe, t->v.n_pes - 1);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return NULL;
    }
    return symh_ptr(dest, t->v.pes[pe]); /* sets the status, logs a misuse of dest */
}

/* A context numbered by the team (tl_ctx.h): the world's needs no translation. */
int symh_team_create_ctx(symh_team_t team, long options, symh_ctx_t *ctx)
{
    struct symh_team *t;

    if (ctx != NULL)
        *ctx = SYMH_CTX_INVALID;
    if (team == SYMH_TEAM_INVALID) /* OpenSHMEM: SYMH_CTX_INVALID and nonzero, quietly */
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    t = symh_coll_team_check(__func__, team);
    if (t == NULL)
        return symh_last_error();
    return symh_tl_ctx_create(__func__, options, team, team == SYMH_TEAM_WORLD ? NULL : t->v.pes,
                              t->v.n_pes, ctx);
}

/* The world team's contexts: the transport keeps contexts and the team handle each was made
 * from, and the world's handle is the collectives' (the transport may not reach up to it). */
int symh_ctx_create(long options, symh_ctx_t *ctx)
{
    return symh_tl_ctx_create(__func__, options, SYMH_TEAM_WORLD, NULL, 0, ctx);
}

int symh_ctx_get_team(symh_ctx_t ctx, symh_team_t *team)
{
    struct symh_ctx *c;

    if (team == NULL) {
        symh_error("symh_ctx_get_team: team is NULL");
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    *team = SYMH_TEAM_INVALID;
    if (ctx == SYMH_CTX_INVALID) /* OpenSHMEM: SYMH_TEAM_INVALID and nonzero, quietly */
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    SYMH_TL_RMA_CHECK_UP(SYMH_ERR_NOT_INITIALIZED);
    if (ctx == SYMH_CTX_DEFAULT) {
        *team = SYMH_TEAM_WORLD;
        return symh_status_set(SYMH_OK);
    }
    c = symh_tl_ctx_check(__func__, ctx);
    if (c == NULL)
        return SYMH_ERR_INVALID_ARG;
    *team = c->team;
    return symh_status_set(SYMH_OK);
}

/* ---- splits ------------------------------------------------------------------------------- */

/* What one PE asks of a split: the new team it joins (parent numbers start, stride, size; size 0
 * when it joins none) and the arguments every PE of the parent must agree on. */
typedef struct {
    uint32_t op;
    int start, stride, size;
    uint64_t common[3]; /* compared between every PE: see symh_team_split */
    const symh_team_config_t *config;
    long mask;
    char why[256]; /* this PE's local failure, logged only by the lowest failing PE of the parent */
} symh_team_ask_t;

static const char *const symh_team_common_names[3][3] = {
    { "start", "stride", "size" },               /* split_strided */
    { "xrange", "config_mask", "num_contexts" }, /* split_2d, either axis */
    { "xrange", "config_mask", "num_contexts" },
};

/* Parent numbers of members of the team ask describes, ascending: a member's k-th. */
static int symh_team_ask_member(const symh_team_ask_t *ask, int k)
{
    return ask->start + k * ask->stride;
}

/* Collective over parent: one team per distinct ask (PEs whose asks name the same team join it).
 * Every PE of the parent gets the same status; *out the new team or SYMH_TEAM_INVALID. */
static int symh_team_split(struct symh_team *parent, const symh_team_ask_t *ask, int local,
                           symh_team_t *out, const char *func)
{
    symh_team_record_t mine, ref;
    const symh_team_record_t *all = NULL;
    const char *why = ask->why;
    int n = parent->v.n_pes, me = parent->v.my_pe, pe, k, slot = -1, status, i, bad = -1,
        bad_arg = -1;
    int *pes = NULL, member_paths = 3;
    char list[256];
    size_t len = 0;

    *out = SYMH_TEAM_INVALID;
    memset(&mine, 0, sizeof(mine));
    mine.op = ask->op;
    mine.status = local;
    mine.args[0] = ask->common[0];
    mine.args[1] = ask->common[1];
    mine.args[2] = ask->common[2];
    mine.args[3] = (uint64_t)(uint32_t)ask->start << 32 | (uint32_t)ask->stride;
    mine.args[4] = (uint64_t)(uint32_t)ask->size;
    mine.used_slots = symh_coll_teams.used;
    char nomem[96];

    if (local == SYMH_OK && ask->size > 0) {
        pes = malloc((size_t)ask->size * sizeof(int));
        if (pes == NULL) {
            snprintf(nomem, sizeof(nomem), "%s: cannot allocate a team of %d PEs on PE %d", func,
                     ask->size, symh_boot_info.my_pe);
            mine.status = SYMH_ERR_NO_MEMORY;
            why = nomem;
        } else {
            for (k = 0; k < ask->size; ++k)
                pes[k] = parent->v.pes[symh_team_ask_member(ask, k)];
            member_paths = symh_team_paths(pes, ask->size);
        }
    }
    mine.flags = (uint64_t)member_paths;

    status = symh_coll_team_claim(parent, func);
    if (status == SYMH_OK) {
        status = symh_coll_team_exchange(parent, &mine, &all, func);
        symh_coll_team_release(parent);
    }
    if (status != SYMH_OK) {
        free(pes);
        return symh_status_set(status);
    }
    /* The judge: the same records on every PE, so the same verdict. */
    ref = all[0];
    for (pe = 0; pe < n && bad < 0; ++pe) {
        if (all[pe].status != SYMH_OK || all[pe].op != ref.op)
            bad = pe;
        for (i = 0; i < 3 && bad < 0; ++i)
            if (all[pe].args[i] != ref.args[i]) {
                bad = pe;
                bad_arg = i;
            }
    }
    if (bad >= 0) {
        status = all[bad].status != SYMH_OK ? all[bad].status : SYMH_ERR_MISMATCH;
        if (me == 0 && all[bad].status == SYMH_OK) {
            int shown = 0;

            list[0] = '\0';
            for (pe = 0; pe < n; ++pe) {
                int differs = all[pe].op != ref.op ||
                              (bad_arg >= 0 && all[pe].args[bad_arg] != ref.args[bad_arg]);

                if (differs && len < sizeof(list) - 32) {
                    len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d (%" PRId64 ")",
                                            shown++ ? ", " : "", parent->v.pes[pe],
                                            bad_arg >= 0 ? (int64_t)all[pe].args[bad_arg] : -1);
                }
            }
            if (bad_arg >= 0)
                symh_error("%s: the PEs of the parent team passed different %s: team PE 0 (world "
                           "PE %d) %" PRId64 ", world PE(s) %s; no team made",
                           func, symh_team_common_names[ref.op - 1][bad_arg], parent->v.pes[0],
                           (int64_t)ref.args[bad_arg], list);
            else
                symh_error("%s: the PEs of the parent team are in different splits (world PE(s) "
                           "%s differ from team PE 0); no team made",
                           func, list);
        } else if (all[bad].status != SYMH_OK && bad == me) {
            /* One line for the job: the lowest failing PE's own reason. */
            symh_error("%s; no team made on any PE of the parent", why);
        }
        free(pes);
        return symh_status_set(status);
    }
    /* The slot: the lowest free on every member of each new team. A PE joining no team still
     * judges the others (a full slot table anywhere fails the whole split, as a failed allocation
     * fails every PE). */
    for (pe = 0; pe < n; ++pe) {
        uint64_t team_used = 0;
        int team_paths = 3, j, pstart = (int)(all[pe].args[3] >> 32),
            pstride = (int)(uint32_t)all[pe].args[3], psize = (int)all[pe].args[4], s;

        if (psize == 0)
            continue;
        for (j = 0; j < psize; ++j) {
            const symh_team_record_t *r = &all[pstart + j * pstride];

            team_used |= r->used_slots;
            team_paths &= (int)(r->flags & 3);
        }
        for (s = 2; s < symh_coll_teams.teams_max && ((team_used >> s) & 1); ++s)
            ;
        if (s >= symh_coll_teams.teams_max) {
            if (me == 0)
                symh_error("%s: no free team on some member of the new team of world PE %d (%d "
                           "live teams, SYMH_TEAMS_MAX=%d with the world and shared teams); "
                           "destroy a team or raise SYMH_TEAMS_MAX",
                           func, parent->v.pes[pe], symh_coll_teams.teams_max,
                           symh_coll_teams.teams_max);
            free(pes);
            return symh_status_set(SYMH_ERR_LIMIT);
        }
        if (pe == me) {
            slot = s;
            member_paths = team_paths;
        }
    }
    if (ask->size == 0)
        return symh_status_set(SYMH_OK); /* left out: SYMH_TEAM_INVALID */
    status = symh_team_setup(&symh_coll_teams.pool[slot], slot, pes, ask->size, member_paths,
                             (ask->mask & SYMH_TEAM_NUM_CONTEXTS) ? ask->config : NULL);
    if (status != SYMH_OK) {
        /* Only the peers array can fail here; the others have the team: nothing consistent can
         * follow, so say so (the split's own agreement covered every earlier failure). */
        symh_error("%s: cannot allocate the team's tables on PE %d after the split was agreed",
                   func, symh_boot_info.my_pe);
        return symh_status_set(status);
    }
    *out = symh_team_handle(&symh_coll_teams.pool[slot]);
    return symh_status_set(SYMH_OK);
}

/* The local checks of a split's config: SYMH_OK or the status (the reason in why). */
static int symh_team_check_config_arg(const char *func, const symh_team_config_t *config, long mask,
                                      char *why, size_t why_len)
{
    if ((mask & ~SYMH_TEAM_NUM_CONTEXTS) != 0 || (mask != 0 && config == NULL) ||
        ((mask & SYMH_TEAM_NUM_CONTEXTS) && config->num_contexts < 0)) {
        snprintf(why, why_len,
                 "%s: config_mask %#lx with config %p: the mask may only hold "
                 "SYMH_TEAM_NUM_CONTEXTS, needs a config, and num_contexts must be >= 0",
                 func, (unsigned long)mask, (const void *)config);
        return SYMH_ERR_INVALID_ARG;
    }
    return SYMH_OK;
}

int symh_team_split_strided(symh_team_t parent_team, int start, int stride, int size,
                            const symh_team_config_t *config, long config_mask,
                            symh_team_t *new_team)
{
    static const char func[] = "symh_team_split_strided";
    struct symh_team *parent;
    symh_team_ask_t ask;
    symh_team_t made;
    int local = SYMH_OK, status;
    long last;

    if (new_team != NULL)
        *new_team = SYMH_TEAM_INVALID;
    if (parent_team == SYMH_TEAM_INVALID) /* OpenSHMEM: no team, nonzero, quietly */
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    parent = symh_coll_team_check(func, parent_team);
    if (parent == NULL)
        return symh_last_error();
    memset(&ask, 0, sizeof(ask));
    if (new_team == NULL) {
        snprintf(ask.why, sizeof(ask.why), "%s: new_team is NULL on PE %d", func,
                 symh_boot_info.my_pe);
        local = SYMH_ERR_INVALID_ARG;
    }
    if (local == SYMH_OK)
        local = symh_team_check_config_arg(func, config, config_mask, ask.why, sizeof(ask.why));
    last = (long)start + (long)(size - 1) * (long)stride;
    if (local == SYMH_OK && (size < 1 || start < 0 || start >= parent->v.n_pes ||
                             (size > 1 && stride < 1) || last >= parent->v.n_pes)) {
        snprintf(ask.why, sizeof(ask.why),
                 "%s: start %d, stride %d, size %d do not fit the parent team of %d PEs (start "
                 "and every member within it, size >= 1, stride >= 1 unless size is 1)",
                 func, start, stride, size, parent->v.n_pes);
        local = SYMH_ERR_INVALID_ARG;
    }
    ask.op = SYMH_TEAM_OP_SPLIT_STRIDED;
    ask.common[0] = (uint64_t)(int64_t)start;
    ask.common[1] = (uint64_t)(int64_t)stride;
    ask.common[2] = (uint64_t)(int64_t)size;
    ask.config = config;
    ask.mask = config_mask;
    if (size == 1)
        stride = 1;
    if (local == SYMH_OK) {
        int d = parent->v.my_pe - start;

        if (d >= 0 && d % stride == 0 && d / stride < size) {
            ask.start = start;
            ask.stride = stride;
            ask.size = size;
        }
    }
    status = symh_team_split(parent, &ask, local, &made, func);
    if (new_team != NULL)
        *new_team = made;
    return status;
}

/* The arguments of one axis of a 2-D split that every PE must agree on. */
static void symh_team_ask_axis(symh_team_ask_t *ask, uint32_t op, int xrange,
                               const symh_team_config_t *config, long mask)
{
    ask->op = op;
    ask->common[0] = (uint64_t)(int64_t)xrange;
    ask->common[1] = (uint64_t)mask;
    ask->common[2] =
        (mask & SYMH_TEAM_NUM_CONTEXTS) && config != NULL ? (uint64_t)config->num_contexts : 0;
    ask->config = config;
    ask->mask = mask;
}

int symh_team_split_2d(symh_team_t parent_team, int xrange, const symh_team_config_t *xaxis_config,
                       long xaxis_mask, symh_team_t *xaxis_team,
                       const symh_team_config_t *yaxis_config, long yaxis_mask,
                       symh_team_t *yaxis_team)
{
    static const char func[] = "symh_team_split_2d";
    struct symh_team *parent;
    symh_team_ask_t ask;
    symh_team_t x = SYMH_TEAM_INVALID, y = SYMH_TEAM_INVALID;
    int local = SYMH_OK, status, n, me, cols;

    if (xaxis_team != NULL)
        *xaxis_team = SYMH_TEAM_INVALID;
    if (yaxis_team != NULL)
        *yaxis_team = SYMH_TEAM_INVALID;
    if (parent_team == SYMH_TEAM_INVALID) /* OpenSHMEM: no teams, nonzero, quietly */
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    parent = symh_coll_team_check(func, parent_team);
    if (parent == NULL)
        return symh_last_error();
    n = parent->v.n_pes;
    me = parent->v.my_pe;
    memset(&ask, 0, sizeof(ask));
    if (xaxis_team == NULL || yaxis_team == NULL || xrange < 1) {
        snprintf(ask.why, sizeof(ask.why),
                 "%s: xrange %d (must be >= 1), xaxis_team %p, yaxis_team %p (must not be NULL)",
                 func, xrange, (void *)xaxis_team, (void *)yaxis_team);
        local = SYMH_ERR_INVALID_ARG;
    }
    if (local == SYMH_OK)
        local =
            symh_team_check_config_arg(func, xaxis_config, xaxis_mask, ask.why, sizeof(ask.why));
    if (local == SYMH_OK)
        local =
            symh_team_check_config_arg(func, yaxis_config, yaxis_mask, ask.why, sizeof(ask.why));
    cols = xrange > n ? n : xrange < 1 ? 1 : xrange;

    /* The row: consecutive parent PEs. */
    symh_team_ask_axis(&ask, SYMH_TEAM_OP_SPLIT_2D_X, xrange, xaxis_config, xaxis_mask);
    if (local == SYMH_OK) {
        ask.start = me / cols * cols;
        ask.stride = 1;
        ask.size = n - ask.start < cols ? n - ask.start : cols;
    }
    status = symh_team_split(parent, &ask, local, &x, func);
    /* The column: parent PEs cols apart. The row's split gave every PE the same status, so
     * either every PE splits again or none does. */
    symh_team_ask_axis(&ask, SYMH_TEAM_OP_SPLIT_2D_Y, xrange, yaxis_config, yaxis_mask);
    if (local == SYMH_OK && status == SYMH_OK) {
        ask.start = me % cols;
        ask.stride = cols;
        ask.size = (n - ask.start + cols - 1) / cols;
    } else {
        ask.size = 0;
    }
    if (status == SYMH_OK)
        status = symh_team_split(parent, &ask, local, &y, func);
    if (status != SYMH_OK && x != SYMH_TEAM_INVALID) {
        symh_team_destroy(x); /* collective over the row: every row's PEs all failed alike */
        x = SYMH_TEAM_INVALID;
    }
    if (xaxis_team != NULL)
        *xaxis_team = x;
    if (yaxis_team != NULL)
        *yaxis_team = y;
    return symh_status_set(status);
}

void symh_team_destroy(symh_team_t team)
{
    struct symh_team *t;

    if (team == SYMH_TEAM_INVALID) { /* OpenSHMEM: no operation */
        symh_status_set(SYMH_OK);
        return;
    }
    t = symh_coll_team_check(__func__, team);
    if (t == NULL)
        return;
    if (t == &symh_team_world_object || t == &symh_team_shared_object) {
        symh_error("symh_team_destroy: %s is predefined and cannot be destroyed; nothing done",
                   t == &symh_team_world_object ? "SYMH_TEAM_WORLD" : "SYMH_TEAM_SHARED");
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    if (symh_coll_team_claim(t, "symh_team_destroy") != SYMH_OK)
        return;
    /* No member frees the slot while a peer may still signal into it: after the sync nobody
     * writes to it (every signal a member sends in a sync is one its partner waits for). */
    symh_status_set(symh_coll_team_sync(t, "symh_team_destroy"));
    symh_team_teardown(t);
}

int symh_team_sync(symh_team_t team)
{
    struct symh_team *t = symh_coll_team_check(__func__, team);
    int status;

    if (t == NULL)
        return symh_last_error();
    if (t == &symh_team_world_object) {
        symh_sync_all();
        return symh_last_error();
    }
    if (symh_coll_team_claim(t, "symh_team_sync") != SYMH_OK)
        return symh_last_error();
    t->v.calls++;
    status = symh_coll_team_sync(t, "symh_team_sync");
    symh_coll_team_release(t);
    return symh_status_set(status);
}
