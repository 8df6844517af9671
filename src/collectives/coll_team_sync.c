/* collectives: what every team collective runs on (coll_team_slot.h): the waits and signals
 * between a team's members, the team's sync and the agreement exchange (the team's records, and
 * SYMH_CHECK_COLLECTIVES's mailboxes). The teams themselves: coll_team.c; docs/collectives.md
 * "Teams". */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include <symheap/status.h>

#include "bootstrap/boot.h"
#include "collectives/coll_team_impl.h"
#include "collectives/coll_team_slot.h"
#include "core/core_log.h"
#include "core/core_status.h"
#include "core/core_util.h"
#include "core/core_wait.h"
#include "transport/tl.h"
#include "transport/tl_nic.h"
#include "transport/tl_rma.h"

/* Shared-memory teams up to this size sync by dissemination when every PE has a core. */
#define SYMH_TEAM_DISS_SHM_MAX 2

/* ---- waits and signals ---------------------------------------------------------------------- */

/* The hang line of a team wait (once per wait). */
static void symh_team_wait_hang(const struct symh_team *t, const symh_wait_t *w, const char *func,
                                int waited_pe)
{
    symh_error("%s (call %" PRIu64 " of a team of %d PEs) has waited %.0f s on PE %d (team PE %d) "
               "for team PE %d (world PE %d) (SYMH_HANG_TIMEOUT)",
               func, t->v.calls, t->v.n_pes, symh_wait_seconds(w), symh_boot_info.my_pe, t->v.my_pe,
               waited_pe, t->v.pes[waited_pe]);
    symh_wait_hang_reported();
}

void symh_coll_team_wait(const struct symh_team *t, const uint64_t *word, uint64_t value,
                         const char *func, int waited_pe)
{
    symh_wait_t w;

    if (symh_likely(__atomic_load_n(word, __ATOMIC_ACQUIRE) >= value))
        return;
    symh_wait_start(&w, t->spin);
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < value) {
        symh_tl_nic_progress(); /* peers elsewhere may need this PE's progress meanwhile */
        if (symh_unlikely(symh_wait_step(&w)))
            symh_team_wait_hang(t, &w, func, waited_pe);
    }
}

int symh_coll_team_wait_equal(const struct symh_team *t, const uint64_t *words, int n,
                              uint64_t value, const char *func, int waited_pe)
{
    symh_wait_t w;
    int i;

    symh_wait_start(&w, t->spin);
    for (;;) {
        for (i = 0; i < n; ++i)
            if (__atomic_load_n(&words[i], __ATOMIC_ACQUIRE) == value)
                return i;
        symh_tl_nic_progress(); /* peers elsewhere may need this PE's progress meanwhile */
        if (symh_unlikely(symh_wait_step(&w)))
            symh_team_wait_hang(t, &w, func, waited_pe);
    }
}

int symh_coll_team_order(const struct symh_team *t)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return t->v.all_mapped ? SYMH_OK : symh_tl_nic_fence(NULL);
}

int symh_coll_team_post(const struct symh_team *t, int pe, size_t offset, uint64_t value)
{
    char *mapped = t->v.peers[pe];
    uint64_t *out = (uint64_t *)(void *)(t->v.mine + SYMH_TEAM_CTRL_VALUE + 8);
    const symh_tl_ops_t *ops;
    int world = t->v.pes[pe];

    if (mapped != NULL) {
        __atomic_store_n((uint64_t *)(void *)(mapped + offset), value, __ATOMIC_RELEASE);
        return SYMH_OK;
    }
    /* A put_signal of no data where the route has it (one message, where UCX's put over tcp is
     * a message and its acknowledgement); else a put from the slot's outbox word, which the NIC
     * has registered (a stack word is not, for providers that want local descriptors), that
     * returns with it reusable. */
    ops = symh_tl_ops_of(world);
    if (ops->put_signal != NULL)
        return ops->put_signal(NULL, t->v.mine + offset, NULL, 0,
                               (uint64_t *)(void *)(t->v.mine + offset), value, world);
    *out = value;
    return ops->put(NULL, t->v.mine + offset, out, sizeof(*out), world, NULL, NULL);
}

int symh_coll_team_put(const struct symh_team *t, int pe, void *dest, const void *source,
                       size_t bytes)
{
    char *mapped = symh_coll_team_peer_addr(t, pe, dest);
    int world = t->v.pes[pe];

    if (bytes == 0)
        return SYMH_OK;
    if (mapped != NULL) {
        memmove(mapped, source, bytes);
        return SYMH_OK;
    }
    return symh_tl_ops_of(world)->put_nbi(NULL, dest, source, bytes, world, NULL, NULL);
}

int symh_coll_team_put_signal(const struct symh_team *t, int pe, void *dest, const void *source,
                              size_t bytes, size_t offset, uint64_t value)
{
    const symh_tl_ops_t *ops;
    int world = t->v.pes[pe], status;

    if (t->v.peers[pe] != NULL) {
        if (bytes > 0)
            memmove(symh_coll_team_peer_addr(t, pe, dest), source, bytes);
        __atomic_store_n((uint64_t *)(void *)(t->v.peers[pe] + offset), value, __ATOMIC_RELEASE);
        return SYMH_OK;
    }
    ops = symh_tl_ops_of(world);
    if (ops->put_signal != NULL)
        return ops->put_signal(NULL, dest, source, bytes, (uint64_t *)(void *)(t->v.mine + offset),
                               value, world);
    status = symh_coll_team_put(t, pe, dest, source, bytes);
    if (status == SYMH_OK)
        status = symh_coll_team_order(t);
    return status == SYMH_OK ? symh_coll_team_post(t, pe, offset, value) : status;
}

/* ---- sync --------------------------------------------------------------------------------- */

/* Every member adds 1 to team PE 0's arrival count; the one whose add completes the count of this
 * sync releases every member (coll_barrier.c's central variant, one wait per PE). */
static void symh_team_sync_shm(struct symh_team *t, const char *func)
{
    uint64_t e = ++t->v.syncs, now;
    int pe;

    now = __atomic_add_fetch((uint64_t *)(void *)(t->v.peers[0] + SYMH_TEAM_CTRL_ARRIVE), 1,
                             __ATOMIC_ACQ_REL);
    if (now == e * (uint64_t)t->v.n_pes) {
        for (pe = 0; pe < t->v.n_pes; ++pe)
            __atomic_store_n((uint64_t *)(void *)(t->v.peers[pe] + SYMH_TEAM_CTRL_RELEASE), e,
                             __ATOMIC_RELEASE);
        return;
    }
    symh_coll_team_wait(t, (const uint64_t *)(const void *)(t->v.mine + SYMH_TEAM_CTRL_RELEASE), e,
                        func, 0);
}

/* Dissemination over `l` of the team's PEs (team numbers `who`, NULL: all, rank `r` of this PE
 * among them): in round k a PE signals rank (r + 2^k) mod l and waits for the signal of rank
 * (r - 2^k) mod l; each round's word has one writer and counts the syncs, e. */
static int symh_team_dissemination(struct symh_team *t, const int *who, int l, int r, uint64_t e,
                                   const char *func)
{
    int k, status = SYMH_OK;
    long dist;

    for (k = 0, dist = 1; status == SYMH_OK && dist < l; ++k, dist <<= 1) {
        int to = (int)((r + dist) % l), from = (int)((r - dist % l + l) % l);
        size_t word = SYMH_TEAM_CTRL_DISS + (size_t)k * 8;

        status = symh_coll_team_post(t, who != NULL ? who[to] : to, word, e);
        if (status == SYMH_OK)
            symh_coll_team_wait(t, (const uint64_t *)(const void *)(t->v.mine + word), e, func,
                                who != NULL ? who[from] : from);
    }
    return status;
}

/* Over the NIC. The quiet first makes this PE's puts complete at their targets before any member
 * can leave. Flat: a dissemination over every member. With node steps: each member adds 1 to its
 * node leader's arrival count (a CPU atomic), the leaders run the dissemination among themselves
 * and then release their node's members (CPU stores): one NIC round trip per round between nodes
 * only. */
static int symh_team_sync_nic(struct symh_team *t, const char *func)
{
    uint64_t e = ++t->v.syncs;
    int status, i;

    status = symh_tl_nic_quiet(NULL);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!t->v.hier)
        return status != SYMH_OK
                   ? status
                   : symh_team_dissemination(t, NULL, t->v.n_pes, t->v.my_pe, e, func);
    if (t->v.my_leader_rank < 0) {
        __atomic_add_fetch((uint64_t *)(void *)(t->v.peers[t->v.group[0]] + SYMH_TEAM_CTRL_ARRIVE),
                           1, __ATOMIC_ACQ_REL);
        symh_coll_team_wait(t, (const uint64_t *)(const void *)(t->v.mine + SYMH_TEAM_CTRL_RELEASE),
                            e, func, t->v.group[0]);
        return status;
    }
    symh_coll_team_wait(t, (const uint64_t *)(const void *)(t->v.mine + SYMH_TEAM_CTRL_ARRIVE),
                        e * (uint64_t)(t->v.group_n - 1), func, t->v.group[t->v.group_n - 1]);
    if (status == SYMH_OK)
        status =
            symh_team_dissemination(t, t->v.leaders, t->v.n_leaders, t->v.my_leader_rank, e, func);
    /* Released even after a failure, so no member of the node waits for ever. */
    for (i = 1; i < t->v.group_n; ++i)
        __atomic_store_n((uint64_t *)(void *)(t->v.peers[t->v.group[i]] + SYMH_TEAM_CTRL_RELEASE),
                         e, __ATOMIC_RELEASE);
    return status;
}

int symh_coll_team_sync(struct symh_team *t, const char *func)
{
    int status;

    if (t->v.n_pes == 1)
        return SYMH_OK;
    if (t->v.all_mapped) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        /* Every member on its own core: the dissemination's waits overlap (two PEs: one line
         * each way at once, against the counter's three in a row); PEs that outnumber cores wait
         * once each on the central counter instead. */
        if (t->spin > 0 && t->v.n_pes <= SYMH_TEAM_DISS_SHM_MAX)
            return symh_team_dissemination(t, NULL, t->v.n_pes, t->v.my_pe, ++t->v.syncs, func);
        symh_team_sync_shm(t, func);
        return SYMH_OK;
    }
    status = symh_team_sync_nic(t, func);
    if (status != SYMH_OK)
        symh_error("%s: the team's sync failed on PE %d: %s", func, symh_boot_info.my_pe,
                   symh_status_string(status));
    return status;
}

/* ---- agreement ---------------------------------------------------------------------------- */

int symh_coll_team_exchange(struct symh_team *t, const symh_team_record_t *mine,
                            const symh_team_record_t **all, const char *func)
{
    size_t bank = symh_coll_teams.records_off +
                  (size_t)(t->agreements++ & 1) * (size_t)t->v.n_pes * SYMH_TEAM_RECORD;
    symh_team_record_t *records = (symh_team_record_t *)(void *)(t->v.mine + bank);
    symh_team_record_t *own = &records[t->v.my_pe];
    int pe, status = SYMH_OK;

    /* Two banks: a member writes bank b of agreement a + 2 only after agreement a + 1, which
     * every member enters after reading agreement a's records. */
    *own = *mine;
    for (pe = 0; pe < t->v.n_pes && status == SYMH_OK; ++pe)
        if (pe != t->v.my_pe)
            status = symh_coll_team_put(t, pe, own, own, sizeof(*own));
    if (status == SYMH_OK)
        status = symh_coll_team_sync(t, func);
    *all = records;
    return status;
}

/* SYMH_CHECK_COLLECTIVES: records go through each PE's mailbox, indexed by world PE, not through
 * the team's slot, so that members that name different teams still meet (and see the difference)
 * instead of waiting in different slots. Each ordered pair of PEs counts its records; a sender
 * writes bank c & 1 of its c-th record to a receiver, then adds 1 to its count line there (a CPU
 * atomic when mapped, else the NIC's: one path per word, whatever the team). Bank b is written
 * again only after the receiver's record of the next exchange arrived, which it sends after it
 * read this one. */
int symh_coll_team_check_exchange(const struct symh_team *t, const symh_team_record_t *mine,
                                  symh_team_record_t *all, const char *func)
{
    static const uint64_t one = 1;
    char *out = symh_coll_teams.mail + (size_t)symh_boot_info.n_pes * SYMH_TEAM_MAIL_PER_PE;
    size_t from_me = (size_t)symh_boot_info.my_pe * SYMH_TEAM_MAIL_PER_PE;
    int pe, status = SYMH_OK;

    memcpy(out, mine, sizeof(*mine));
    for (pe = 0; pe < t->v.n_pes && status == SYMH_OK; ++pe) {
        int w = t->v.pes[pe];
        uint64_t c = symh_coll_teams.mail_sent[w]++;
        char *bank = symh_coll_teams.mail + from_me + (size_t)(c & 1) * SYMH_TEAM_LINE;
        char *count = symh_coll_teams.mail + from_me + 2 * SYMH_TEAM_LINE;
        char *base = w == symh_boot_info.my_pe ? symh_tl_window.base : symh_tl_rma.peer_base[w];

        if (base != NULL) {
            memcpy(base + (bank - symh_tl_window.base), out, sizeof(*mine));
            __atomic_add_fetch((uint64_t *)(void *)(base + (count - symh_tl_window.base)), 1,
                               __ATOMIC_RELEASE);
            continue;
        }
        status = symh_tl_ops_of(w)->put(NULL, bank, out, sizeof(*mine), w, NULL, NULL);
        if (status == SYMH_OK)
            status = symh_tl_nic_fence(NULL);
        if (status == SYMH_OK)
            status = symh_tl_rma.amo_ops->amo(NULL, SYMH_TL_AMO_ADD, count, sizeof(uint64_t), &one,
                                              NULL, NULL, w);
    }
    for (pe = 0; pe < t->v.n_pes && status == SYMH_OK; ++pe) {
        int w = t->v.pes[pe];
        uint64_t c = symh_coll_teams.mail_got[w]++;
        char *box = symh_coll_teams.mail + (size_t)w * SYMH_TEAM_MAIL_PER_PE;

        symh_coll_team_wait(t, (const uint64_t *)(const void *)(box + 2 * SYMH_TEAM_LINE), c + 1,
                            func, pe);
        memcpy(&all[pe], box + (size_t)(c & 1) * SYMH_TEAM_LINE, sizeof(all[pe]));
    }
    return status;
}
