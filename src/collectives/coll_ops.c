/* collectives: broadcast, collect, fcollect, alltoall(s) and the reductions over any team
 * (docs/collectives.md "Team collectives"), which see a team through coll_team_slot.h only. Each
 * has two algorithms, chosen by the team's path: over shared memory when every member is mapped
 * (a broadcast its readers copy from the root once it posts, reductions where each member combines
 * one slice read straight from every member's source and stores it into every member's dest, pushes
 * into peers' buffers for the rest), and over each member's route otherwise: small calls through
 * the banks of the receivers' scratch without a sync (a binomial broadcast, Bruck's allgather,
 * recursive doubling, direct all-to-all; "the NIC path's banks" below), large ones into dests
 * directly and a closing sync (a binomial broadcast, direct puts, reduce-scatter + allgather), with
 * node steps first where members map their node-mates. Every algorithm leaves the state it used
 * (ctrl words, headers, scratch) ready for the team's next call. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/coll.h>
#include <symheap/status.h>
#include <symheap/team.h>

#include "bootstrap/boot.h"
#include "collectives/coll_team.h"
#include "collectives/coll_team_slot.h"
#include "core/core_config.h"
#include "core/core_log.h"
#include "core/core_status.h"
#include "core/core_util.h"
#include "transport/tl_rma.h"

/* Reductions of at most this many bytes per member go through the scratch in one sync. */
#define SYMH_COLL_REDUCE_SMALL 1024
/* A reduction's slice is combined through a stack buffer of this many bytes. */
#define SYMH_COLL_TMP_BYTES 8192

typedef void (*symh_coll_combine_t)(void *acc, const void *in, size_t n);

typedef enum {
    SYMH_COLL_K_BROADCAST = 1,
    SYMH_COLL_K_COLLECT,
    SYMH_COLL_K_FCOLLECT,
    SYMH_COLL_K_ALLTOALL,
    SYMH_COLL_K_ALLTOALLS,
    SYMH_COLL_K_REDUCE
} symh_coll_kind_t;

static const char *const symh_coll_kind_names[] = { "?",        "broadcast", "collect", "fcollect",
                                                    "alltoall", "alltoalls", "reduce" };

/* Type numbers for the agreement records: 0 = the *mem forms (bytes). */
enum {
    SYMH_COLL_T_MEM = 0,
#define SYMH_COLL_T_ENUM(NAME, TYPE) SYMH_COLL_T_##NAME,
    SYMH_RMA_TYPES(SYMH_COLL_T_ENUM) SYMH_REDUCE_COMPLEX_TYPES(SYMH_COLL_T_ENUM)
#undef SYMH_COLL_T_ENUM
        SYMH_COLL_T_COUNT
};

static const char *const symh_coll_type_names[SYMH_COLL_T_COUNT] = {
    [SYMH_COLL_T_MEM] = "mem",
#define SYMH_COLL_T_NAME(NAME, TYPE) [SYMH_COLL_T_##NAME] = #NAME,
    SYMH_RMA_TYPES(SYMH_COLL_T_NAME) SYMH_REDUCE_COMPLEX_TYPES(SYMH_COLL_T_NAME)
#undef SYMH_COLL_T_NAME
};

enum {
    SYMH_COLL_R_NONE = 0,
    SYMH_COLL_R_and,
    SYMH_COLL_R_or,
    SYMH_COLL_R_xor,
    SYMH_COLL_R_max,
    SYMH_COLL_R_min,
    SYMH_COLL_R_sum,
    SYMH_COLL_R_prod,
    SYMH_COLL_R_COUNT
};

static const char *const symh_coll_redop_names[SYMH_COLL_R_COUNT] = { "",    "and", "or",  "xor",
                                                                      "max", "min", "sum", "prod" };

/* What one public entry point is: a constant of each (the X-macros below). */
typedef struct {
    const char *func;
    uint8_t kind, type, redop;
    size_t elem; /* bytes per element */
    symh_coll_combine_t combine;
} symh_coll_desc_t;

static int symh_coll_check_on; /* SYMH_CHECK_COLLECTIVES, read at init */

/* ---- argument checks and the opt-in agreement ----------------------------------------------- */

static void symh_coll_call_name(uint32_t op, char *buf, size_t len)
{
    unsigned kind = op >> 16 & 0xff, type = op >> 8 & 0xff, redop = op & 0xff;
    const char *tn = type < SYMH_COLL_T_COUNT ? symh_coll_type_names[type] : "?";
    const char *kn = kind <= SYMH_COLL_K_REDUCE ? symh_coll_kind_names[kind] : "?";

    if (kind == SYMH_COLL_K_REDUCE)
        snprintf(buf, len, "symh_%s_%s_reduce", tn,
                 redop < SYMH_COLL_R_COUNT ? symh_coll_redop_names[redop] : "?");
    else if (type == SYMH_COLL_T_MEM)
        snprintf(buf, len, "symh_%smem", kn);
    else
        snprintf(buf, len, "symh_%s_%s", tn, kn);
}

/* Argument i of a check record (4: the team, as its slot and size in args[4] and its first and
 * last PE in flags). */
static int symh_coll_arg_differs(const symh_team_record_t *a, const symh_team_record_t *b, int i)
{
    return a->args[i] != b->args[i] || (i == 4 && a->flags != b->flags);
}

static void symh_coll_arg_text(const symh_team_record_t *r, int i, char *buf, size_t len)
{
    if (i == 4)
        snprintf(buf, len, "a team of %u PEs, world PEs %u to %u, slot %u",
                 (unsigned)(uint32_t)r->args[4], (unsigned)(r->flags >> 32),
                 (unsigned)(uint32_t)r->flags, (unsigned)(r->args[4] >> 32));
    else
        snprintf(buf, len, "%" PRId64, (int64_t)r->args[i]);
}

/* Collective over the team (SYMH_CHECK_COLLECTIVES=1): every member's call, arguments and local
 * status; SYMH_OK when all match and all are fine, else the same status on every member (one line
 * for the job, by team PE 0 or the PE that failed). */
static int symh_coll_agree_args(struct symh_team *t, const symh_coll_desc_t *d, int local,
                                const uint64_t args[4])
{
    const int n = symh_coll_team_n_pes(t), me = symh_coll_team_my_pe(t);
    static const char *const arg_names[5] = { "PE_root", "nelems", "dst", "sst", "team" };
    symh_team_record_t mine;
    const symh_team_record_t *all = NULL;
    int pe, i, bad = -1, bad_arg = -1, status;
    char name0[64], name[64], list[320];
    size_t len = 0;

    memset(&mine, 0, sizeof(mine));
    mine.op = (uint32_t)d->kind << 16 | (uint32_t)d->type << 8 | d->redop;
    mine.status = local;
    for (i = 0; i < 4; ++i)
        mine.args[i] = args[i];
    /* The team: its slot, size and first and last PE (a team of other PEs, or another team of the
     * same PEs, differs in one of them). */
    mine.args[4] = (uint64_t)(uint32_t)symh_coll_team_slot_index(t) << 32 | (uint32_t)n;
    mine.flags = (uint64_t)(uint32_t)symh_coll_team_world_pe(t, 0) << 32 |
                 (uint32_t)symh_coll_team_world_pe(t, n - 1);
    status = symh_coll_team_check_exchange(t, &mine, symh_coll_team_algo(t)->checked, d->func);
    if (status != SYMH_OK)
        return status;
    all = symh_coll_team_algo(t)->checked;
    for (pe = 0; pe < n && bad < 0; ++pe) {
        if (all[pe].status != SYMH_OK || all[pe].op != all[0].op)
            bad = pe;
        for (i = 0; i < 5 && bad < 0; ++i)
            if (symh_coll_arg_differs(&all[pe], &all[0], i)) {
                bad = pe;
                bad_arg = i;
            }
    }
    if (bad < 0)
        return SYMH_OK;
    if (all[bad].status != SYMH_OK) {
        if (me == 0 && bad != 0)
            symh_error("%s: team PE %d (world PE %d) refused its arguments (%s); nothing done on "
                       "any member",
                       d->func, bad, symh_coll_team_world_pe(t, bad),
                       symh_status_string(all[bad].status));
        return all[bad].status;
    }
    if (me == 0) {
        int shown = 0;

        list[0] = '\0';
        for (pe = 0; pe < n; ++pe) {
            if (bad_arg < 0 && all[pe].op != all[0].op) {
                symh_coll_call_name(all[pe].op, name, sizeof(name));
                if (len < sizeof(list) - 48)
                    len +=
                        (size_t)snprintf(list + len, sizeof(list) - len, "%s%d in %s",
                                         shown++ ? ", " : "", symh_coll_team_world_pe(t, pe), name);
            } else if (bad_arg >= 0 && symh_coll_arg_differs(&all[pe], &all[0], bad_arg)) {
                symh_coll_arg_text(&all[pe], bad_arg, name, sizeof(name));
                if (len < sizeof(list) - 48)
                    len +=
                        (size_t)snprintf(list + len, sizeof(list) - len, "%s%d (%s)",
                                         shown++ ? ", " : "", symh_coll_team_world_pe(t, pe), name);
            }
        }
        symh_coll_call_name(all[0].op, name0, sizeof(name0));
        if (bad_arg < 0) {
            symh_error("%s: the members are in different collectives (SYMH_CHECK_COLLECTIVES): "
                       "team PE 0 (world PE %d) in %s, world PE(s) %s; nothing done",
                       d->func, symh_coll_team_world_pe(t, 0), name0, list);
        } else {
            symh_coll_arg_text(&all[0], bad_arg, name0, sizeof(name0));
            symh_error("%s: the members passed different %s (SYMH_CHECK_COLLECTIVES): team PE 0 "
                       "(world PE %d) %s, world PE(s) %s; nothing done",
                       d->func, arg_names[bad_arg], symh_coll_team_world_pe(t, 0), name0, list);
        }
    }
    return SYMH_ERR_MISMATCH;
}

/* Whether [addr, addr + bytes) is symmetric here; logs naming the function and argument. */
static int symh_coll_check_buffer(const struct symh_team *t0, const char *func, const char *arg,
                                  const void *addr, size_t bytes)
{
    const symh_tl_rma_access_t access = { func, arg, 1, 1, 0 };
    char *mapped;

    if (bytes == 0 || t0 == NULL) /* no team (or not initialized): symh_coll_begin says so */
        return SYMH_OK;
    if (addr == NULL) {
        symh_error("%s: %s is NULL", func, arg);
        return SYMH_ERR_INVALID_ARG;
    }
    if (!symh_tl_rma_target(&access, addr, bytes, symh_tl_rma.my_pe, &mapped))
        return symh_last_error();
    return SYMH_OK;
}

/* The start of every team collective: the team, then the local checks `local` (already done by
 * the caller), then under SYMH_CHECK_COLLECTIVES the agreement. NULL with the status in *status
 * when nothing is to be done (*status SYMH_OK: a zero count). */
static struct symh_team *symh_coll_begin(const symh_coll_desc_t *d, symh_team_t team, int local,
                                         size_t count, const uint64_t args[4], int *status)
{
    struct symh_team *t = symh_coll_team_check(d->func, team);

    if (t == NULL || (*status = symh_coll_team_claim(t, d->func)) != SYMH_OK) {
        if (t == NULL)
            *status = symh_last_error();
        return NULL;
    }
    if (symh_unlikely(symh_coll_check_on))
        *status = symh_coll_agree_args(t, d, local, args);
    else
        *status = local;
    if (*status != SYMH_OK || count == 0) {
        symh_coll_team_release(t);
        return NULL;
    }
    return t;
}

/* The end of a team collective that symh_coll_begin let through. */
static int symh_coll_end(struct symh_team *t, int status)
{
    symh_coll_team_release(t);
    return symh_status_set(status);
}

/* Counts the call; on a team of one PE does it (dest = source) and returns 1. */
static int symh_coll_alone(struct symh_team *t, void *dest, const void *source, size_t bytes)
{
    symh_coll_team_call_begin(t);
    if (symh_coll_team_n_pes(t) > 1)
        return 0;
    if (dest != source)
        memmove(dest, source, bytes);
    return 1;
}

/* ---- the NIC path's banks ---------------------------------------------------------------------
 *
 * Small collectives of a team over the NIC (neither all mapped nor with node steps) end without a
 * sync: every message goes into a bank of its receiver's scratch and is announced by a post of
 * the bank use's number into the header word its sender owns in that use's row
 * (symh_coll_team_hdr_offset); the receiver waits for the header and reads the bank. Each use
 * takes the next free bytes of the scratch (a ring that every member advances alike, since every
 * member makes the same calls with the same sizes) and one header row, and nothing is written
 * twice between two syncs of the team: when the scratch or the SYMH_TEAM_USES rows run out, the
 * next use starts with a sync (a member enters one only after leaving its earlier calls, so every
 * bank and row is free again after it). A small collective costs one sync in up to
 * SYMH_TEAM_USES instead of one each. A collective that writes into members' dests or their whole
 * scratch directly starts with a sync when some use is not yet settled (symh_coll_settle): a
 * member still copying a bank into its dest must not have that dest written by a later call. */

/* The largest bank a small collective takes: a quarter of the scratch. */
static size_t symh_coll_bank_max(void)
{
    return symh_coll_team_scratch_size() / 4;
}

/* After a sync of the team (any: the algorithms', the agreement's, symh_team_sync) every member
 * has left its earlier calls, so every bank they used is free again. */
static symh_coll_team_algo_t *symh_coll_banks(struct symh_team *t)
{
    symh_coll_team_algo_t *a = symh_coll_team_algo(t);
    uint64_t syncs = symh_coll_team_syncs(t);

    if (a->bank_syncs != syncs) {
        a->bank_syncs = syncs;
        a->bank_synced = a->bank_uses;
        a->ring = 0;
    }
    return a;
}

/* The next bank use, of `bytes`: *bank is where its data lies in every member's scratch (this
 * PE's own here), after the sync it may need. */
static int symh_coll_bank_begin(struct symh_team *t, size_t bytes, const char *func, uint64_t *use,
                                char **bank)
{
    size_t need = (bytes + SYMH_TEAM_LINE - 1) / SYMH_TEAM_LINE * SYMH_TEAM_LINE;
    symh_coll_team_algo_t *a = symh_coll_banks(t);
    int status = SYMH_OK;

    if (a->bank_uses + 1 > a->bank_synced + SYMH_TEAM_USES ||
        a->ring + need > symh_coll_team_scratch_size()) {
        status = symh_coll_team_sync(t, func);
        a = symh_coll_banks(t);
    }
    *use = ++a->bank_uses;
    *bank = symh_coll_team_scratch(t) + a->ring;
    a->ring += need;
    return status;
}

/* Before a collective that writes into members' dests or scratch directly. */
static int symh_coll_settle(struct symh_team *t, const char *func)
{
    symh_coll_team_algo_t *a = symh_coll_banks(t);

    return a->bank_uses > a->bank_synced ? symh_coll_team_sync(t, func) : SYMH_OK;
}

/* Waits until team PE `pe`'s data for `use` is in this PE's bank. */
static void symh_coll_bank_wait(const struct symh_team *t, int pe, uint64_t use, const char *func)
{
    symh_coll_team_wait(t, symh_coll_team_word(t, symh_coll_team_hdr_offset(use, pe)), use, func,
                        pe);
}

/* Puts `bytes` from this PE's `source` (in its bank, which stays put until the bank's next use)
 * to `dest` (in its bank's coordinates) on team PE `pe` and posts `use` to this PE's header there:
 * one message of a bank use (symh_coll_team_put_signal). */
static int symh_coll_bank_send(const struct symh_team *t, int pe, uint64_t use, char *dest,
                               const char *source, size_t bytes)
{
    return symh_coll_team_put_signal(t, pe, dest, source, bytes,
                                     symh_coll_team_hdr_offset(use, symh_coll_team_my_pe(t)), use);
}

/* Bruck's allgather of `bytes` from each member through the bank of one use: in round k (distance
 * 2^k) a member sends the blocks it holds, at most 2^k, to team PE (me - 2^k) and receives as many
 * from (me + 2^k), ceil(log2 n) rounds in all. On return *blocks is the bank, where block i holds
 * team PE (me + i) mod n's. */
static int symh_coll_bruck(struct symh_team *t, const char *source, size_t bytes, char **blocks,
                           const char *func)
{
    int n = symh_coll_team_n_pes(t), me = symh_coll_team_my_pe(t), status;
    uint64_t use;
    char *bank;
    long dist;

    status = symh_coll_bank_begin(t, (size_t)n * bytes, func, &use, &bank);
    *blocks = bank;
    if (status != SYMH_OK)
        return status;
    memcpy(bank, source, bytes);
    for (dist = 1; status == SYMH_OK && dist < n; dist <<= 1) {
        size_t have = (size_t)(dist < n - dist ? dist : n - dist);

        status = symh_coll_bank_send(t, (int)((me - dist + n) % n), use,
                                     bank + (size_t)dist * bytes, bank, have * bytes);
        if (status == SYMH_OK)
            symh_coll_bank_wait(t, (int)((me + dist) % n), use, func);
    }
    return status;
}

/* ---- broadcast ------------------------------------------------------------------------------- */

/* Bytes of a small broadcast carried in the post line itself, and the largest small one (through
 * a scratch bank). */
#define SYMH_COLL_BCAST_INLINE (SYMH_TEAM_LINE - 8)
#define SYMH_COLL_BCAST_SMALL  4096

/* Small broadcasts go through the root's bank k & 1 for the root's k-th small one (every member
 * counts each root's small broadcasts, so every member knows the bank): the root waits until
 * every member has read its use k - 2 of that bank, copies its source into the bank (the post line
 * itself up to 56 bytes, else a 4 KiB half of its scratch), stores the call number in the post
 * line and returns at once (its source is free). A reader waits for that call number in the
 * root's post line of the bank, copies, and records in its own `from` word for the root how many
 * of the root's small broadcasts it has read: a store to its own line, which the root reads only
 * when it reuses the bank. One line crosses per reader when the data fits the line. Larger ones
 * are read straight from the root's source, and the root waits for every reader (DONE) before it
 * returns. */
static int symh_coll_bcast_shm(struct symh_team *t, char *dest, const char *source, size_t bytes,
                               int root, const char *func)
{
    const int n = symh_coll_team_n_pes(t), me = symh_coll_team_my_pe(t);
    char *bposts = symh_coll_team_peer_slot(t, root) + SYMH_TEAM_CTRL_BPOST;
    uint64_t *done = (uint64_t *)(void *)(symh_coll_team_peer_slot(t, root) + SYMH_TEAM_CTRL_DONE);
    uint64_t k;
    char *line, *data;
    int pe;

    /* Banks in the first half of the scratch (the second is the small reductions'). */
    size_t bank_size = symh_coll_team_scratch_size() / 4 < SYMH_COLL_BCAST_SMALL
                           ? symh_coll_team_scratch_size() / 4
                           : SYMH_COLL_BCAST_SMALL;

    if (bytes > bank_size) {
        uint64_t *post = (uint64_t *)(void *)(bposts + 2 * SYMH_TEAM_LINE);

        if (me == root) {
            if (dest != source)
                memmove(dest, source, bytes);
            __atomic_store_n(post, symh_coll_team_calls(t), __ATOMIC_RELEASE);
            symh_coll_team_algo(t)->done_due += (uint64_t)(n - 1);
            /* The source may be reused once this returns: every reader has copied it. */
            symh_coll_team_wait(t, done, symh_coll_team_algo(t)->done_due, func, root);
            return SYMH_OK;
        }
        symh_coll_team_wait_equal(t, post, 1, symh_coll_team_calls(t), func, root);
        memcpy(dest, symh_coll_team_peer_addr(t, root, source), bytes);
        __atomic_add_fetch(done, 1, __ATOMIC_RELEASE);
        return SYMH_OK;
    }
    k = symh_coll_team_algo(t)->root_uses[root]++;
    line = bposts + (size_t)(k & 1) * SYMH_TEAM_LINE;
    data = bytes <= SYMH_COLL_BCAST_INLINE
               ? line + 8
               : symh_coll_team_peer_slot(t, root) +
                     (symh_coll_team_scratch(t) - symh_coll_team_my_slot(t)) +
                     (size_t)(k & 1) * bank_size;
    if (me == root) {
        for (pe = 0; k >= 2 && pe < n; ++pe)
            if (pe != root)
                symh_coll_team_wait(
                    t,
                    (const uint64_t *)(const void *)(symh_coll_team_peer_slot(t, pe) +
                                                     symh_coll_team_from_offset(root)),
                    k - 1, func, pe);
        memcpy(data, source, bytes);
        if (dest != source)
            memmove(dest, source, bytes);
        __atomic_store_n((uint64_t *)(void *)line, symh_coll_team_calls(t), __ATOMIC_RELEASE);
        return SYMH_OK;
    }
    symh_coll_team_wait_equal(t, (const uint64_t *)(const void *)line, 1, symh_coll_team_calls(t),
                              func, root);
    memcpy(dest, data, bytes);
    __atomic_store_n(symh_coll_team_from(t, root), k + 1, __ATOMIC_RELEASE);
    return SYMH_OK;
}

/* Binomial tree over the team numbers relative to the root: a PE receives from its parent (its
 * number less its highest bit) and sends to its children (its number plus each higher power of
 * two). Small ones go through the bank of one use (the root first copies its source there, so it
 * returns at once); larger ones are put into the children's dests, announced by a post of the call
 * number into their BCAST word, and end with a sync. */
static int symh_coll_bcast_nic(struct symh_team *t, char *dest, const char *source, size_t bytes,
                               int root, const char *func)
{
    int n = symh_coll_team_n_pes(t), r = (symh_coll_team_my_pe(t) - root + n) % n, status,
        parent = -1;
    int small = bytes <= symh_coll_bank_max();
    long mask = 1, m;
    uint64_t use = 0;
    char *bank = NULL;

    status = small ? symh_coll_bank_begin(t, bytes, func, &use, &bank) : symh_coll_settle(t, func);
    if (status != SYMH_OK)
        return status;
    if (r != 0) {
        while ((mask << 1) <= r)
            mask <<= 1;
        parent = (int)((r - mask + root) % n);
        mask <<= 1;
    }
    if (r == 0 && small)
        memcpy(bank, source, bytes);
    if (r == 0 && dest != source)
        memmove(dest, source, bytes);
    if (r != 0 && small) {
        symh_coll_bank_wait(t, parent, use, func);
        memcpy(dest, bank, bytes);
    } else if (r != 0) {
        symh_coll_team_wait(t, symh_coll_team_word(t, SYMH_TEAM_CTRL_BCAST),
                            symh_coll_team_calls(t), func, parent);
    }
    if (small) {
        for (m = mask; status == SYMH_OK && r + m < n; m <<= 1)
            status = symh_coll_bank_send(t, (int)((r + m + root) % n), use, bank, bank, bytes);
        return status;
    }
    for (m = mask; status == SYMH_OK && r + m < n; m <<= 1)
        status = symh_coll_team_put(t, (int)((r + m + root) % n), dest, dest, bytes);
    if (status == SYMH_OK && r + mask < n)
        status = symh_coll_team_order(t);
    for (m = mask; status == SYMH_OK && r + m < n; m <<= 1)
        status = symh_coll_team_post(t, (int)((r + m + root) % n), SYMH_TEAM_CTRL_BCAST,
                                     symh_coll_team_calls(t));
    /* No member starts the team's next call while this one's data may be on its way. */
    if (status == SYMH_OK)
        status = symh_coll_team_sync(t, func);
    return status;
}

/* With node steps: the root stores into its node's dests and puts into the dest of the leader of
 * every other node, then signals each; those leaders store into their node's dests; then a sync. */
static int symh_coll_bcast_hier(struct symh_team *t, char *dest, const char *source, size_t bytes,
                                int root, const char *func)
{
    const int me = symh_coll_team_my_pe(t);
    const int *node = symh_boot_info.node_of_pe;
    int root_node = node[symh_coll_team_world_pe(t, root)], status = SYMH_OK, i, l;

    if (me == root) {
        if (dest != source)
            memmove(dest, source, bytes);
        for (l = 0; l < symh_coll_team_n_leaders(t) && status == SYMH_OK; ++l)
            if (node[symh_coll_team_world_pe(t, symh_coll_team_leader(t, l))] != root_node)
                status = symh_coll_team_put(t, symh_coll_team_leader(t, l), dest, dest, bytes);
        if (status == SYMH_OK)
            status = symh_coll_team_order(t);
        for (l = 0; l < symh_coll_team_n_leaders(t) && status == SYMH_OK; ++l)
            if (node[symh_coll_team_world_pe(t, symh_coll_team_leader(t, l))] != root_node)
                status = symh_coll_team_post(t, symh_coll_team_leader(t, l), SYMH_TEAM_CTRL_BCAST,
                                             symh_coll_team_calls(t));
    } else if (symh_coll_team_my_leader_rank(t) >= 0 &&
               node[symh_coll_team_world_pe(t, me)] != root_node) {
        symh_coll_team_wait(t, symh_coll_team_word(t, SYMH_TEAM_CTRL_BCAST),
                            symh_coll_team_calls(t), func, root);
    }
    if ((me == root || (symh_coll_team_my_leader_rank(t) >= 0 &&
                        node[symh_coll_team_world_pe(t, me)] != root_node)))
        for (i = 0; i < symh_coll_team_group_n(t); ++i)
            if (symh_coll_team_group(t, i) != me)
                memcpy(symh_coll_team_peer_addr(t, symh_coll_team_group(t, i), dest), dest, bytes);
    /* Every member's dest is written before its node's arrival in the sync. */
    if (status == SYMH_OK)
        status = symh_coll_team_sync(t, func);
    return status;
}

static int symh_coll_broadcast(const symh_coll_desc_t *d, symh_team_t team, void *dest,
                               const void *source, size_t nelems, int root)
{
    size_t bytes = nelems * d->elem;
    const uint64_t args[4] = { (uint64_t)(int64_t)root, nelems, 0, 0 };
    struct symh_team *t0 = symh_coll_team_get(team), *t;
    int local = SYMH_OK, status;

    if (t0 != NULL && (root < 0 || root >= symh_coll_team_n_pes(t0))) {
        symh_error("%s: PE_root %d is not a PE of the team (0 to %d)", d->func, root,
                   symh_coll_team_n_pes(t0) - 1);
        local = SYMH_ERR_INVALID_ARG;
    }
    if (local == SYMH_OK && nelems > SIZE_MAX / d->elem)
        local = SYMH_ERR_INVALID_ARG;
    if (local == SYMH_OK)
        local = symh_coll_check_buffer(t0, d->func, "dest", dest, bytes);
    if (local == SYMH_OK && t0 != NULL && symh_coll_team_my_pe(t0) == root)
        local = symh_coll_check_buffer(t0, d->func, "source", source, bytes);
    t = symh_coll_begin(d, team, local, nelems, args, &status);
    if (t == NULL)
        return symh_status_set(status);
    if (symh_coll_alone(t, dest, source, bytes))
        return symh_coll_end(t, SYMH_OK);
    if (symh_coll_team_all_mapped(t))
        status = symh_coll_bcast_shm(t, dest, source, bytes, root, d->func);
    else if (symh_coll_team_hier(t))
        status = symh_coll_bcast_hier(t, dest, source, bytes, root, d->func);
    else
        status = symh_coll_bcast_nic(t, dest, source, bytes, root, d->func);
    return symh_coll_end(t, status);
}

/* ---- collect, fcollect ----------------------------------------------------------------------- */

/* Whether the team takes the NIC path's banks for `bytes` of one use. */
static int symh_coll_banked(const struct symh_team *t, size_t bytes)
{
    return !symh_coll_team_all_mapped(t) && !symh_coll_team_hier(t) &&
           bytes <= symh_coll_bank_max();
}

/* Puts this PE's `bytes` at `offset` of every member's dest, then syncs. */
static int symh_coll_push_all(struct symh_team *t, char *dest, size_t offset, const char *source,
                              size_t bytes, const char *func)
{
    int k, status = symh_coll_settle(t, func);

    for (k = 0; k < symh_coll_team_n_pes(t) && status == SYMH_OK; ++k)
        status = symh_coll_team_put(t, (symh_coll_team_my_pe(t) + k) % symh_coll_team_n_pes(t),
                                    dest + offset, source, bytes);
    if (status == SYMH_OK)
        status = symh_coll_team_sync(t, func);
    return status;
}

static int symh_coll_fcollect(const symh_coll_desc_t *d, symh_team_t team, void *dest,
                              const void *source, size_t nelems)
{
    const uint64_t args[4] = { 0, nelems, 0, 0 };
    struct symh_team *t0 = symh_coll_team_get(team), *t;
    size_t bytes = nelems * d->elem;
    int local = SYMH_OK, status;

    if (nelems > SIZE_MAX / d->elem / (t0 != NULL ? (size_t)symh_coll_team_n_pes(t0) : 1))
        local = SYMH_ERR_INVALID_ARG;
    if (local == SYMH_OK)
        local = symh_coll_check_buffer(t0, d->func, "source", source, bytes);
    if (local == SYMH_OK && t0 != NULL)
        local = symh_coll_check_buffer(t0, d->func, "dest", dest,
                                       bytes * (size_t)symh_coll_team_n_pes(t0));
    t = symh_coll_begin(d, team, local, nelems, args, &status);
    if (t == NULL)
        return symh_status_set(status);
    symh_coll_team_call_begin(t);
    if (symh_coll_banked(t, bytes * (size_t)symh_coll_team_n_pes(t))) {
        /* Bruck's allgather, then the blocks out of their rotation into dest. */
        size_t me = (size_t)symh_coll_team_my_pe(t), n = (size_t)symh_coll_team_n_pes(t);
        char *blocks;

        status = symh_coll_bruck(t, source, bytes, &blocks, d->func);
        if (status == SYMH_OK) {
            memcpy((char *)dest + me * bytes, blocks, (n - me) * bytes);
            memcpy(dest, blocks + (n - me) * bytes, me * bytes);
        }
    } else {
        status = symh_coll_push_all(t, dest, (size_t)symh_coll_team_my_pe(t) * bytes, source, bytes,
                                    d->func);
    }
    return symh_coll_end(t, status);
}

static int symh_coll_collect(const symh_coll_desc_t *d, symh_team_t team, void *dest,
                             const void *source, size_t nelems)
{
    const uint64_t args[4] = { 0, 0, 0, 0 }; /* counts may differ between members */
    struct symh_team *t0 = symh_coll_team_get(team), *t;
    size_t bytes = nelems * d->elem, offset = 0, total = 0;
    int local = SYMH_OK, status = SYMH_OK, pe, n, me;
    uint64_t *value;

    if (nelems > SIZE_MAX / d->elem)
        local = SYMH_ERR_INVALID_ARG;
    if (local == SYMH_OK)
        local = symh_coll_check_buffer(t0, d->func, "source", source, bytes);
    /* A member with nothing to give still takes part: only an invalid team ends the call. */
    t = symh_coll_begin(d, team, local, 1, args, &status);
    if (t == NULL)
        return symh_status_set(status);
    n = symh_coll_team_n_pes(t);
    me = symh_coll_team_my_pe(t);
    symh_coll_team_call_begin(t);
    value = symh_coll_team_word(t, SYMH_TEAM_CTRL_VALUE);
    if (symh_coll_team_all_mapped(t)) {
        value = symh_coll_team_word(t, SYMH_TEAM_CTRL_POST);
        __atomic_store_n(&value[1], bytes, __ATOMIC_RELAXED);
        __atomic_store_n(&value[0], symh_coll_team_calls(t), __ATOMIC_RELEASE);
        for (pe = 0; pe < n; ++pe) {
            const uint64_t *post =
                (const uint64_t *)(const void *)(symh_coll_team_peer_slot(t, pe) +
                                                 SYMH_TEAM_CTRL_POST);
            uint64_t b;

            symh_coll_team_wait(t, post, symh_coll_team_calls(t), d->func, pe);
            b = __atomic_load_n(&post[1], __ATOMIC_RELAXED);
            if (pe < me)
                offset += b;
            total += b;
        }
    } else if (!symh_coll_team_hier(t)) {
        /* The sizes by Bruck's allgather (block i: team PE (me + i) mod n's). */
        char *blocks;
        uint64_t b;

        *value = bytes;
        status = symh_coll_bruck(t, (const char *)value, sizeof(*value), &blocks, d->func);
        for (pe = 0; pe < n && status == SYMH_OK; ++pe) {
            memcpy(&b, blocks + (size_t)((pe - me + n) % n) * sizeof(b), sizeof(b));
            if (pe < me)
                offset += b;
            total += b;
        }
        if (status == SYMH_OK && symh_coll_banked(t, total)) {
            uint64_t use;
            char *bank;

            local = symh_coll_check_buffer(t, d->func, "dest", dest, total);
            status = symh_coll_bank_begin(t, total, d->func, &use, &bank);
            /* Each member's data at its offset of every member's bank, then dest from the bank. */
            if (status == SYMH_OK)
                memcpy(bank + offset, source, bytes);
            for (pe = 0; pe < n && status == SYMH_OK; ++pe)
                if (pe != me)
                    status = symh_coll_bank_send(t, pe, use, bank + offset, bank + offset, bytes);
            for (pe = 0; pe < n && status == SYMH_OK; ++pe)
                if (pe != me)
                    symh_coll_bank_wait(t, pe, use, d->func);
            if (status == SYMH_OK && local == SYMH_OK)
                memcpy(dest, bank, total);
            return symh_coll_end(t, status != SYMH_OK ? status : local);
        }
    } else {
        uint64_t *sizes = (uint64_t *)(void *)symh_coll_team_scratch(t);

        *value = bytes;
        for (pe = 0; pe < n && status == SYMH_OK; ++pe)
            status = symh_coll_team_put(t, pe, &sizes[me], value, sizeof(*value));
        if (status == SYMH_OK)
            status = symh_coll_team_sync(t, d->func);
        for (pe = 0; pe < n; ++pe) {
            if (pe < me)
                offset += sizes[pe];
            total += sizes[pe];
        }
    }
    if (status == SYMH_OK) {
        /* A dest too small here still takes part in the sync, sending nothing. */
        local = symh_coll_check_buffer(t, d->func, "dest", dest, total);
        status = symh_coll_push_all(t, dest, offset, source, local == SYMH_OK ? bytes : 0, d->func);
        if (local != SYMH_OK)
            status = local;
    }
    return symh_coll_end(t, status);
}

/* ---- alltoall, alltoalls ------------------------------------------------------------------- */

/* Elements `i` of `n` of size `es`, from stride `from_st` to stride `to_st`. */
static void symh_coll_strided_copy(char *to, ptrdiff_t to_st, const char *from, ptrdiff_t from_st,
                                   size_t n, size_t es)
{
    size_t i;

    if (to_st == 1 && from_st == 1) {
        memcpy(to, from, n * es);
        return;
    }
    for (i = 0; i < n; ++i)
        memcpy(to + i * (size_t)to_st * es, from + i * (size_t)from_st * es, es);
}

/* Through the bank of one use: each member packs its block for every member into the second half
 * of its own bank, puts it into block `me` of that member's bank and posts; then unpacks every
 * member's block from its bank into dest (its own block from the packing). */
static int symh_coll_alltoalls_bank(struct symh_team *t, char *dest, const char *source,
                                    ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t es,
                                    const char *func)
{
    size_t block = nelems * es, n = (size_t)symh_coll_team_n_pes(t),
           me = (size_t)symh_coll_team_my_pe(t);
    uint64_t use;
    char *bank, *out;
    int status = symh_coll_bank_begin(t, 2 * n * block, func, &use, &bank), k;

    out = bank + n * block;
    for (k = 1; k <= symh_coll_team_n_pes(t) && status == SYMH_OK; ++k) {
        size_t pe = (me + (size_t)k) % n;

        symh_coll_strided_copy(out + pe * block, 1, source + pe * nelems * (size_t)sst * es, sst,
                               nelems, es);
        if (pe != me)
            status =
                symh_coll_bank_send(t, (int)pe, use, bank + me * block, out + pe * block, block);
    }
    for (k = 0; k < symh_coll_team_n_pes(t) && status == SYMH_OK; ++k) {
        size_t pe = (me + (size_t)k) % n;

        if (pe != me)
            symh_coll_bank_wait(t, (int)pe, use, func);
        symh_coll_strided_copy(dest + pe * nelems * (size_t)dst * es, dst,
                               pe == me ? out + me * block : bank + pe * block, 1, nelems, es);
    }
    return status;
}

static int symh_coll_alltoalls(const symh_coll_desc_t *d, symh_team_t team, void *dest,
                               const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)
{
    const uint64_t args[4] = { 0, nelems, (uint64_t)dst, (uint64_t)sst };
    struct symh_team *t0 = symh_coll_team_get(team), *t;
    size_t es = d->elem, n = t0 != NULL ? (size_t)symh_coll_team_n_pes(t0) : 1, span;
    int local = SYMH_OK, status = SYMH_OK, k;

    if (dst < 1 || sst < 1) {
        symh_error("%s: strides dst %td and sst %td must be >= 1", d->func, dst, sst);
        local = SYMH_ERR_INVALID_ARG;
    } else if (nelems > SIZE_MAX / es / n / (size_t)(dst > sst ? dst : sst)) {
        local = SYMH_ERR_INVALID_ARG;
    }
    if (local == SYMH_OK && nelems > 0) {
        span = ((n * nelems - 1) * (size_t)sst + 1) * es;
        local = symh_coll_check_buffer(t0, d->func, "source", source, span);
        span = ((n * nelems - 1) * (size_t)dst + 1) * es;
        if (local == SYMH_OK)
            local = symh_coll_check_buffer(t0, d->func, "dest", dest, span);
    }
    t = symh_coll_begin(d, team, local, nelems, args, &status);
    if (t == NULL)
        return symh_status_set(status);
    symh_coll_team_call_begin(t);
    if (symh_coll_banked(t, 2 * (size_t)symh_coll_team_n_pes(t) * nelems * es)) {
        status = symh_coll_alltoalls_bank(t, dest, source, dst, sst, nelems, es, d->func);
        return symh_coll_end(t, status);
    }
    status = symh_coll_settle(t, d->func);
    for (k = 0; k < symh_coll_team_n_pes(t) && status == SYMH_OK; ++k) {
        int pe = (symh_coll_team_my_pe(t) + k) % symh_coll_team_n_pes(t);
        const char *from = (const char *)source + (size_t)pe * nelems * (size_t)sst * es;
        char *to = (char *)dest + (size_t)symh_coll_team_my_pe(t) * nelems * (size_t)dst * es;
        size_t i;

        if (dst == 1 && sst == 1) {
            status = symh_coll_team_put(t, pe, to, from, nelems * es);
            continue;
        }
        for (i = 0; i < nelems && status == SYMH_OK; ++i)
            status = symh_coll_team_put(t, pe, to + i * (size_t)dst * es,
                                        from + i * (size_t)sst * es, es);
    }
    if (status == SYMH_OK)
        status = symh_coll_team_sync(t, d->func);
    return symh_coll_end(t, status);
}

/* ---- reductions --------------------------------------------------------------------------------
 */

/* Small reductions over shared memory, in one sync instead of two: each member stores its source
 * into its block of bank k & 1 (the k-th small reduction of the team) in every member's scratch
 * (second half), syncs, and combines the blocks of its own bank in team order into dest. A member
 * writes bank b again for reduction k + 2 only after the sync of reduction k + 1, which no member
 * enters before it has combined reduction k. */
static int symh_coll_reduce_small(struct symh_team *t, const symh_coll_desc_t *d, char *dest,
                                  const char *source, size_t nreduce)
{
    const int n = symh_coll_team_n_pes(t), me = symh_coll_team_my_pe(t);
    size_t bytes = nreduce * d->elem, quarter = symh_coll_team_scratch_size() / 4;
    char *bank = symh_coll_team_scratch(t) + 2 * quarter +
                 (size_t)(symh_coll_team_algo(t)->small_reduces++ & 1) * quarter;
    char *mine = bank + (size_t)me * bytes;
    int pe;

    for (pe = 0; pe < n; ++pe)
        memcpy(symh_coll_team_peer_addr(t, (me + pe) % n, mine), source, bytes);
    symh_coll_team_sync(t, d->func);
    memcpy(dest, bank, bytes);
    for (pe = 1; pe < n; ++pe)
        d->combine(dest, bank + (size_t)pe * bytes, nreduce);
    return SYMH_OK;
}

/* Each member combines its slice of the elements, reading every member's source in team order
 * through a stack buffer, and stores the result into every member's dest. In place is safe: only
 * the slice's owner reads or writes its elements anywhere. */
static int symh_coll_reduce_shm(struct symh_team *t, const symh_coll_desc_t *d, char *dest,
                                const char *source, size_t nreduce)
{
    union {
        long double align;
        char bytes[SYMH_COLL_TMP_BYTES];
    } tmp;
    size_t es = d->elem, chunk = SYMH_COLL_TMP_BYTES / es, n = (size_t)symh_coll_team_n_pes(t);
    size_t me = (size_t)symh_coll_team_my_pe(t),
           lo = nreduce / n * me + (me < nreduce % n ? me : nreduce % n);
    size_t hi = lo + nreduce / n + (me < nreduce % n ? 1 : 0), off;
    int pe;

    symh_coll_team_sync(t, d->func); /* every source is ready */
    for (off = lo; off < hi; off += chunk) {
        size_t cnt = hi - off < chunk ? hi - off : chunk;

        memcpy(tmp.bytes, symh_coll_team_peer_addr(t, 0, source + off * es), cnt * es);
        for (pe = 1; pe < symh_coll_team_n_pes(t); ++pe)
            d->combine(tmp.bytes, symh_coll_team_peer_addr(t, pe, source + off * es), cnt);
        for (pe = 0; pe < symh_coll_team_n_pes(t); ++pe)
            memcpy(
                symh_coll_team_peer_addr(
                    t, (symh_coll_team_my_pe(t) + pe) % symh_coll_team_n_pes(t), dest + off * es),
                tmp.bytes, cnt * es);
    }
    return symh_coll_team_sync(t, d->func); /* every slice is in every dest */
}

/* Recursive doubling through the bank of one use, for any team size: with p2 the largest power of
 * two not above n, team PE p2 + i first sends its source to team PE i, which folds it in; the
 * first p2 members then exchange their partial results with partner me ^ 2^k in round k and fold
 * in the partner's (log2 p2 rounds); team PE i finally sends the result to p2 + i. Each round's
 * partial result goes to its own part of the bank (a put may still read the one before), and
 * every fold is the lower team PE's operand first, so every member ends with the same bits.
 * Bank parts: [0] this PE's source, [1] the fold-in or the result from outside the first p2,
 * then per round the partner's part and the fold's result. */
static size_t symh_coll_reduce_bank_parts(int n)
{
    size_t parts = 2;
    int p2;

    for (p2 = 1; p2 * 2 <= n; p2 *= 2)
        parts += 2;
    return parts;
}

static int symh_coll_reduce_bank(struct symh_team *t, const symh_coll_desc_t *d, char *dest,
                                 const char *source, size_t nreduce)
{
    size_t bytes = nreduce * d->elem;
    int n = symh_coll_team_n_pes(t), me = symh_coll_team_my_pe(t), p2 = 1, bit, round, status;
    uint64_t use;
    char *bank, *acc;

    while (p2 * 2 <= n)
        p2 *= 2;
    status = symh_coll_bank_begin(t, bytes * symh_coll_reduce_bank_parts(n), d->func, &use, &bank);
    acc = bank;
    if (status != SYMH_OK)
        return status;
    memcpy(acc, source, bytes);
    if (me >= p2) { /* outside the first p2: send, then receive the result */
        status = symh_coll_bank_send(t, me - p2, use, bank + bytes, acc, bytes);
        if (status == SYMH_OK) {
            symh_coll_bank_wait(t, me - p2, use, d->func);
            memcpy(dest, bank + bytes, bytes);
        }
        return status;
    }
    if (me + p2 < n) {
        symh_coll_bank_wait(t, me + p2, use, d->func);
        d->combine(acc, bank + bytes, nreduce);
    }
    for (round = 0, bit = 1; status == SYMH_OK && bit < p2; ++round, bit <<= 1) {
        int partner = me ^ bit;
        char *theirs = bank + (size_t)(2 + 2 * round) * bytes, *next = theirs + bytes;

        status = symh_coll_bank_send(t, partner, use, theirs, acc, bytes);
        if (status != SYMH_OK)
            break;
        symh_coll_bank_wait(t, partner, use, d->func);
        memcpy(next, partner > me ? acc : theirs, bytes);
        d->combine(next, partner > me ? theirs : acc, nreduce);
        acc = next;
    }
    if (status == SYMH_OK && me + p2 < n)
        status = symh_coll_bank_send(t, me + p2, use, bank + bytes, acc, bytes);
    if (status == SYMH_OK)
        memcpy(dest, acc, bytes);
    return status;
}

/* Reduce-scatter then allgather, chunk by chunk through the scratch (two halves by the parity of
 * the team's chunk count): in each chunk team PE s owns a slice of the elements; every member puts
 * its source's part of slice s into block `me` of s's half and posts the chunk's number to its
 * `from` word there; s folds the n blocks in team order into its dest and puts the result into
 * every member's dest. A member writes a half again two chunks later, after the chunk between,
 * which needs every member's part of it, which each member sends only after finishing the chunk
 * before. One sync at the end: every dest is complete. In place is safe: each member overwrites
 * only its own slice of its dest, whose part it sent nowhere, and a slice of another's dest only
 * after that member's part of it has arrived (so was read). */
static int symh_coll_reduce_nic(struct symh_team *t, const symh_coll_desc_t *d, char *dest,
                                const char *source, size_t nreduce)
{
    size_t es = d->elem, half = symh_coll_team_scratch_size() / 2,
           n = (size_t)symh_coll_team_n_pes(t);
    size_t block = half / n / es, me = (size_t)symh_coll_team_my_pe(t), off;
    int k, status = symh_coll_settle(t, d->func);

    for (off = 0; off < nreduce && status == SYMH_OK; off += block * n) {
        size_t cnt = nreduce - off < block * n ? nreduce - off : block * n, q = cnt / n;
        size_t lo = q * me + (me < cnt % n ? me : cnt % n), m = q + (me < cnt % n ? 1 : 0);
        char *bank =
            symh_coll_team_scratch(t) + (size_t)(symh_coll_team_algo(t)->chunks & 1) * half;
        char *out = dest + (off + lo) * es;
        uint64_t seq = ++symh_coll_team_algo(t)->chunks;

        for (k = 1; k < symh_coll_team_n_pes(t) && status == SYMH_OK; ++k) {
            size_t s = (me + (size_t)k) % n, slo = q * s + (s < cnt % n ? s : cnt % n);
            size_t sm = q + (s < cnt % n ? 1 : 0);

            status = symh_coll_team_put_signal(
                t, (int)s, bank + me * block * es, source + (off + slo) * es, sm * es,
                symh_coll_team_from_offset(symh_coll_team_my_pe(t)), seq);
        }
        memcpy(bank + me * block * es, source + (off + lo) * es, m * es);
        for (k = 1; k < symh_coll_team_n_pes(t) && status == SYMH_OK; ++k) {
            int pe = (int)((me + (size_t)k) % n);

            symh_coll_team_wait(t, symh_coll_team_from(t, pe), seq, d->func, pe);
        }
        if (status != SYMH_OK || m == 0)
            continue;
        memcpy(out, bank, m * es);
        for (k = 1; k < symh_coll_team_n_pes(t); ++k)
            d->combine(out, bank + (size_t)k * block * es, m);
        for (k = 1; k < symh_coll_team_n_pes(t) && status == SYMH_OK; ++k)
            status = symh_coll_team_put(t, (int)((me + (size_t)k) % n), out, out, m * es);
    }
    if (status == SYMH_OK)
        status = symh_coll_team_sync(t, d->func);
    return status;
}

/* With node steps: after a sync (every source ready), each node leader combines its node's sources
 * in team order chunk by chunk into its block of its scratch, exchanges the blocks with the other
 * leaders as symh_coll_reduce_nic does among all members, combines them in node order and stores
 * the result into its node's dests; the others only wait in the closing sync. */
static int symh_coll_reduce_hier(struct symh_team *t, const symh_coll_desc_t *d, char *dest,
                                 const char *source, size_t nreduce)
{
    size_t es = d->elem, half = symh_coll_team_scratch_size() / 2, off;
    size_t block = half / (size_t)symh_coll_team_n_leaders(t) / es;
    int l, g, status = symh_coll_team_sync(t, d->func), me = symh_coll_team_my_leader_rank(t);

    if (block > SYMH_COLL_TMP_BYTES / es * 4)
        block = SYMH_COLL_TMP_BYTES / es * 4;
    for (off = 0; me >= 0 && off < nreduce && status == SYMH_OK; off += block) {
        size_t cnt = nreduce - off < block ? nreduce - off : block, bytes = cnt * es;
        char *bank =
            symh_coll_team_scratch(t) + (size_t)(symh_coll_team_algo(t)->chunks & 1) * half;
        char *mine = bank + (size_t)me * block * es, *out = dest + off * es;

        memcpy(mine, symh_coll_team_peer_addr(t, symh_coll_team_group(t, 0), source + off * es),
               bytes);
        for (g = 1; g < symh_coll_team_group_n(t); ++g)
            d->combine(mine,
                       symh_coll_team_peer_addr(t, symh_coll_team_group(t, g), source + off * es),
                       cnt);
        for (l = 0; l < symh_coll_team_n_leaders(t) && status == SYMH_OK; ++l)
            if (l != me)
                status = symh_coll_team_put(t, symh_coll_team_leader(t, l), mine, mine, bytes);
        if (status == SYMH_OK)
            status = symh_coll_team_order(t);
        ++symh_coll_team_algo(t)->chunks;
        for (l = 0; l < symh_coll_team_n_leaders(t) && status == SYMH_OK; ++l)
            if (l != me)
                status = symh_coll_team_post(t, symh_coll_team_leader(t, l),
                                             symh_coll_team_from_offset(me),
                                             symh_coll_team_algo(t)->chunks);
        for (l = 0; l < symh_coll_team_n_leaders(t) && status == SYMH_OK; ++l)
            if (l != me)
                symh_coll_team_wait(t, symh_coll_team_from(t, l), symh_coll_team_algo(t)->chunks,
                                    d->func, symh_coll_team_leader(t, l));
        if (status != SYMH_OK)
            break;
        memcpy(out, bank, bytes);
        for (l = 1; l < symh_coll_team_n_leaders(t); ++l)
            d->combine(out, bank + (size_t)l * block * es, cnt);
        for (g = 0; g < symh_coll_team_group_n(t); ++g)
            if (symh_coll_team_group(t, g) != symh_coll_team_my_pe(t))
                memcpy(symh_coll_team_peer_addr(t, symh_coll_team_group(t, g), out), out, bytes);
    }
    /* Closed even after a failure, so no member of the node waits for ever. */
    l = symh_coll_team_sync(t, d->func);
    return status != SYMH_OK ? status : l;
}

static int symh_coll_reduce(const symh_coll_desc_t *d, symh_team_t team, void *dest,
                            const void *source, size_t nreduce)
{
    const uint64_t args[4] = { 0, nreduce, 0, 0 };
    size_t bytes = nreduce * d->elem;
    struct symh_team *t0 = symh_coll_team_get(team), *t;
    int local = SYMH_OK, status;

    if (nreduce > SIZE_MAX / d->elem)
        local = SYMH_ERR_INVALID_ARG;
    if (local == SYMH_OK)
        local = symh_coll_check_buffer(t0, d->func, "source", source, bytes);
    if (local == SYMH_OK)
        local = symh_coll_check_buffer(t0, d->func, "dest", dest, bytes);
    if (local == SYMH_OK && dest != source && nreduce > 0 &&
        (const char *)dest < (const char *)source + bytes &&
        (const char *)source < (const char *)dest + bytes) {
        symh_error("%s: dest and source overlap without being the same object", d->func);
        local = SYMH_ERR_INVALID_ARG;
    }
    t = symh_coll_begin(d, team, local, nreduce, args, &status);
    if (t == NULL)
        return symh_status_set(status);
    if (symh_coll_alone(t, dest, source, bytes))
        return symh_coll_end(t, SYMH_OK);
    if (symh_coll_team_all_mapped(t) &&
        bytes * (size_t)symh_coll_team_n_pes(t) <= symh_coll_team_scratch_size() / 4 &&
        bytes <= SYMH_COLL_REDUCE_SMALL)
        status = symh_coll_reduce_small(t, d, dest, source, nreduce);
    else if (symh_coll_team_all_mapped(t))
        status = symh_coll_reduce_shm(t, d, dest, source, nreduce);
    else if (symh_coll_team_hier(t))
        status = symh_coll_reduce_hier(t, d, dest, source, nreduce);
    else if (symh_coll_banked(t, bytes * symh_coll_reduce_bank_parts(symh_coll_team_n_pes(t))))
        status = symh_coll_reduce_bank(t, d, dest, source, nreduce);
    else
        status = symh_coll_reduce_nic(t, d, dest, source, nreduce);
    return symh_coll_end(t, status);
}

void symh_coll_ops_configure(void)
{
    symh_coll_check_on = symh_config_bool(SYMH_CFG_CHECK_COLLECTIVES);
}

/* ---- the public entry points ------------------------------------------------------------------
 */

#define SYMH_COLL_DESC(name, kind, type, redop, elem, combine) \
    static const symh_coll_desc_t name = { __func__, kind, type, redop, elem, combine }

int symh_broadcastmem(symh_team_t team, void *dest, const void *source, size_t nelems, int PE_root)
{
    SYMH_COLL_DESC(d, SYMH_COLL_K_BROADCAST, SYMH_COLL_T_MEM, 0, 1, NULL);
    return symh_coll_broadcast(&d, team, dest, source, nelems, PE_root);
}

int symh_collectmem(symh_team_t team, void *dest, const void *source, size_t nelems)
{
    SYMH_COLL_DESC(d, SYMH_COLL_K_COLLECT, SYMH_COLL_T_MEM, 0, 1, NULL);
    return symh_coll_collect(&d, team, dest, source, nelems);
}

int symh_fcollectmem(symh_team_t team, void *dest, const void *source, size_t nelems)
{
    SYMH_COLL_DESC(d, SYMH_COLL_K_FCOLLECT, SYMH_COLL_T_MEM, 0, 1, NULL);
    return symh_coll_fcollect(&d, team, dest, source, nelems);
}

int symh_alltoallmem(symh_team_t team, void *dest, const void *source, size_t nelems)
{
    SYMH_COLL_DESC(d, SYMH_COLL_K_ALLTOALL, SYMH_COLL_T_MEM, 0, 1, NULL);
    return symh_coll_alltoalls(&d, team, dest, source, 1, 1, nelems);
}

int symh_alltoallsmem(symh_team_t team, void *dest, const void *source, ptrdiff_t dst,
                      ptrdiff_t sst, size_t nelems)
{
    SYMH_COLL_DESC(d, SYMH_COLL_K_ALLTOALLS, SYMH_COLL_T_MEM, 0, 1, NULL);
    return symh_coll_alltoalls(&d, team, dest, source, dst, sst, nelems);
}

/* Each typed collective of the table (SYMH_COLL_FOR_EACH, <symheap/coll.h>) with its OpenSHMEM
 * names (SYMH_SHMEM_ALIASES_symh, <symheap/rma.h>). The body of each KIND; the argument names
 * are the table's. */
#define SYMH_COLL_BODY_(NAME, TYPE, K, CALL)                                           \
    {                                                                                  \
        SYMH_COLL_DESC(d, SYMH_COLL_K_##K, SYMH_COLL_T_##NAME, 0, sizeof(TYPE), NULL); \
        return CALL;                                                                   \
    }
#define SYMH_COLL_BODY_BROADCAST(NAME, TYPE) \
    SYMH_COLL_BODY_(NAME, TYPE, BROADCAST,   \
                    symh_coll_broadcast(&d, team, dest, source, nelems, PE_root))
#define SYMH_COLL_BODY_COLLECT(NAME, TYPE) \
    SYMH_COLL_BODY_(NAME, TYPE, COLLECT, symh_coll_collect(&d, team, dest, source, nelems))
#define SYMH_COLL_BODY_FCOLLECT(NAME, TYPE) \
    SYMH_COLL_BODY_(NAME, TYPE, FCOLLECT, symh_coll_fcollect(&d, team, dest, source, nelems))
#define SYMH_COLL_BODY_ALLTOALL(NAME, TYPE) \
    SYMH_COLL_BODY_(NAME, TYPE, ALLTOALL, symh_coll_alltoalls(&d, team, dest, source, 1, 1, nelems))
#define SYMH_COLL_BODY_ALLTOALLS(NAME, TYPE) \
    SYMH_COLL_BODY_(NAME, TYPE, ALLTOALLS,   \
                    symh_coll_alltoalls(&d, team, dest, source, dst, sst, nelems))
#define SYMH_COLL_DEFINE(P, CP, CA, NAME, TYPE, KIND, OP, R, S, PARAMS, ARGS) \
    R P##_##NAME##S PARAMS SYMH_COLL_BODY_##KIND(NAME, TYPE) SYMH_SHMEM_ALIASES_symh(NAME##S)
SYMH_COLL_FOR_EACH(SYMH_COLL_DEFINE, symh)

/* The combining functions, one per (type, operation): acc[i] = acc[i] OP in[i]. Each reduction
 * also gets its OpenSHMEM names (SYMH_SHMEM_ALIASES_symh, <symheap/rma.h>). */
#define SYMH_COLL_REDUCE_OP(NAME, TYPE, OP)                                                       \
    static void symh_coll_combine_##NAME##_##OP(void *acc, const void *in, size_t n)              \
    {                                                                                             \
        TYPE *a = acc;                                                                            \
        const TYPE *b = in;                                                                       \
        size_t i;                                                                                 \
                                                                                                  \
        for (i = 0; i < n; ++i)                                                                   \
            a[i] = (TYPE)SYMH_REDUCE_OP_##OP(a[i], b[i]);                                         \
    }                                                                                             \
    int symh_##NAME##_##OP##_reduce(symh_team_t team, TYPE *dest, const TYPE *source,             \
                                    size_t nreduce)                                               \
    {                                                                                             \
        SYMH_COLL_DESC(d, SYMH_COLL_K_REDUCE, SYMH_COLL_T_##NAME, SYMH_COLL_R_##OP, sizeof(TYPE), \
                       symh_coll_combine_##NAME##_##OP);                                          \
        return symh_coll_reduce(&d, team, dest, source, nreduce);                                 \
    }                                                                                             \
    SYMH_SHMEM_ALIASES_symh(NAME##_##OP##_reduce)
SYMH_REDUCE_FOR_EACH(SYMH_COLL_REDUCE_OP)
