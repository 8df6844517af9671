/* collectives: a dissemination barrier over flags in the PEs' internal areas (node-local, mapped
 * by the IPC transport), carrying the agreement payload and the out-of-step check; the bootstrap
 * allgather as the fallback.
 *
 * Layout, at offset 0 of every PE's internal area (each item on its own 64-byte line, so a PE
 * polling one flag never shares a line with a store to another):
 *   line 2k + p, k < SYMH_COLL_BARRIER_MAX_ROUNDS, p in {0, 1}
 *                                  dissemination flag of round k for the barriers of epoch parity
 *                                  p: (epoch << 8) | class mask, written by PE (me - 2^k) mod n
 *   line 2 MAX_ROUNDS              central arrival counter (used on PE 0 only)
 *   line 2 MAX_ROUNDS + 1          central release flag: the arrival counter at the last release
 *   line 2 MAX_ROUNDS + 2 + p      this PE's header (sequence number, operation) and agreement
 *                                  payload of the calls whose epoch has parity p (written by this
 *                                  PE only)
 *
 * Epochs: every PE counts its collective calls of the world team (epoch 1, 2, ...; the same
 * sequence everywhere when the program calls collectives in the same order, which is what the
 * check below verifies). In barrier e, round k, a PE stores (e << 8 | mask) (release) into the
 * round-k, parity-(e & 1) flag of PE (me + 2^k) mod n and waits until its own such flag carries
 * epoch e (acquire). Each flag has one writer and only grows. A partner may be one barrier ahead
 * (it left barrier e and entered e + 1 before this PE read its round-k flag of e), but not two
 * (barrier e + 1 needs this PE to enter it), so with one flag per parity the value this PE waits
 * for is never overwritten before it is read. After ceil(log2 n) rounds every PE's arrival has
 * reached every PE through a chain of release/acquire pairs, so whatever a PE wrote before the
 * barrier happens before what any PE does after it. 64-bit epochs do not wrap.
 *
 * Out of step: each call has a class (coll_agree.h: barrier_all, sync_all, agreement,
 * finalize), one bit of `mask`. A PE ORs its partner's mask into its own before the next round,
 * so after the last round every PE holds the OR over all PEs (dissemination is an allreduce for
 * an idempotent operation): a mask of more than one bit means the PEs are in different kinds of
 * calls, and every PE fails the call. It costs no store and no load more than the plain barrier.
 *
 * Central variant, chosen at init when PEs outnumber cores or the job is small (<= 8 PEs): each
 * PE adds 1 + 2^(w (class + 1)) to PE 0's arrival counter (acq_rel), where w is the bit width of
 * n_pes, so the low w bits count arrivals and one w-bit digit per class counts the PEs in that
 * class (no digit overflows: it counts at most n_pes < 2^w). The PE whose add brings the count to
 * n_pes since the last release is the last; it stores the counter's value (release) into every
 * PE's release flag; the others wait for their own flag to change. Every PE then reads the
 * classes of the whole barrier off the difference between the new and the previous release value,
 * again at no extra cost. One wait per PE instead of log2(n) dependent waits, which matters when
 * each wait may cost a context switch (8 PEs on 2 cores). The counter only grows (mod 2^64, and
 * the difference of two release values is always in (0, 2^64)), so nothing is reset. The arrival
 * RMWs form one release sequence, so the last arriver's acquire sees every PE's stores before
 * the barrier, and its release passes them on.
 *
 * Why a payload slot cannot be overwritten while a peer still reads it: PE a writes slot e & 1
 * before barrier e and every PE reads it after barrier e. The next write of that slot is before
 * barrier e + 2, so PE a has completed barrier e + 1 by then, which needs every PE to have
 * entered barrier e + 1, which each PE does only after it finished reading the payloads of
 * barrier e. Two slots are therefore enough for any number of PEs and any mix of plain barriers
 * and agreements, since both advance the same epoch. The header (sequence, operation) is stored
 * atomically, because the hang report reads it while its owner may be writing the next one. */
#include "collectives/coll_barrier.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <symheap/barrier.h>

#include "bootstrap/boot.h"
#include "core/core_log.h"
#include "core/core_status.h"
#include "core/core_wait.h"
#include "transport/tl_ipc.h"
#include "transport/tl_nic.h"

#define SYMH_COLL_BARRIER_LINE           64
#define SYMH_COLL_BARRIER_MAX_ROUNDS     32 /* n_pes is an int: at most 31 rounds */
#define SYMH_COLL_BARRIER_FLAG_OFF(k, p) ((size_t)(2 * (k) + (p)) * SYMH_COLL_BARRIER_LINE)
#define SYMH_COLL_BARRIER_ARRIVE_OFF     SYMH_COLL_BARRIER_FLAG_OFF(SYMH_COLL_BARRIER_MAX_ROUNDS, 0)
#define SYMH_COLL_BARRIER_RELEASE_OFF    (SYMH_COLL_BARRIER_ARRIVE_OFF + SYMH_COLL_BARRIER_LINE)
#define SYMH_COLL_BARRIER_SLOT_OFF(p) \
    ((size_t)(2 * SYMH_COLL_BARRIER_MAX_ROUNDS + 2 + (p)) * SYMH_COLL_BARRIER_LINE)
/* Jobs up to this size use the central barrier even when every PE has its own core. */
#define SYMH_COLL_BARRIER_CENTRAL_MAX 8
#define SYMH_COLL_BARRIER_SIZE        SYMH_COLL_BARRIER_SLOT_OFF(2)
/* The class mask of a dissemination flag: its low 8 bits. */
#define SYMH_COLL_BARRIER_MASK_BITS 8

/* Polls before yielding: when every PE has a core, a partner usually arrives within a few
 * hundred pauses; when PEs outnumber cores, the partner needs our core, so yield at once
 * (8 PEs on 2 cores would otherwise burn whole time slices spinning). */
#define SYMH_COLL_BARRIER_SPIN_OWN_CORE       1000
#define SYMH_COLL_BARRIER_SPIN_OVERSUBSCRIBED 0

_Static_assert(sizeof(symh_coll_agree_t) <= SYMH_COLL_BARRIER_LINE,
               "an agreement payload fits one line of the internal area");
_Static_assert(offsetof(symh_coll_agree_t, seq) == 0 && offsetof(symh_coll_agree_t, op) == 8 &&
                   offsetof(symh_coll_agree_t, status) == 12,
               "the header (seq, op) leads the payload: the body is copied from `status` on");
_Static_assert(SYMH_COLL_CLASSES <= SYMH_COLL_BARRIER_MASK_BITS, "a class mask fits a flag");

static struct {
    int up;
    int shm;
    int n_rounds;
    int n_pes;
    int central;
    unsigned spin;
    unsigned digit_bits; /* central: w, the bit width of n_pes */
    uint64_t epoch;      /* collective calls of the world team so far: the sequence number */
    uint64_t released;   /* central: the arrival counter at the last release seen here */
    uint32_t boot_op;    /* the call in the bootstrap now (the hang hook reads it) */
    char *mine;          /* this PE's internal area */
    char **bases;        /* n_pes internal areas, as mapped here */
    symh_coll_agree_t *gathered; /* n_pes payloads: the bootstrap path, the out-of-step report */
    uint64_t *signal[SYMH_COLL_BARRIER_MAX_ROUNDS][2]; /* round k, parity p: where this PE stores */
} symh_cb;

static void symh_coll_barrier_boot_hang(const char *call, double seconds);

size_t symh_coll_barrier_region_size(int n_pes)
{
    (void)n_pes; /* two slots per PE suffice whatever the job size (see the top of this file) */
    return SYMH_COLL_BARRIER_SIZE;
}

/* Whether the barrier region fits this PE's internal area (then it holds at least the headers
 * that the hang report reads, whichever path the barrier takes). */
static int symh_coll_barrier_has_region(void)
{
    if (symh_tl_window.base != NULL && symh_tl_window.internal_size >= SYMH_COLL_BARRIER_SIZE)
        return 1;
    symh_debug("barrier: internal area of %zu bytes cannot hold the %zu-byte barrier region",
               symh_tl_window.internal_size, (size_t)SYMH_COLL_BARRIER_SIZE);
    return 0;
}

/* Whether this PE can run the shared-memory barrier: every PE mapped. */
static int symh_coll_barrier_can_shm(void)
{
    int pe;

    for (pe = 0; pe < symh_boot_info.n_pes; ++pe) {
        if (symh_tl_ipc_peer_base(pe) == NULL) {
            symh_debug("barrier: PE %d is not mapped here", pe);
            return 0;
        }
    }
    return 1;
}

/* Sets up the shared-memory path once every PE said it can run it. */
static void symh_coll_barrier_setup_shm(void)
{
    int n = symh_boot_info.n_pes, me = symh_boot_info.my_pe, pe, k, p;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    for (pe = 0; pe < n; ++pe)
        symh_cb.bases[pe] = symh_tl_ipc_peer_base(pe);
    while ((1L << symh_cb.n_rounds) < n)
        ++symh_cb.n_rounds;
    for (k = 0; k < symh_cb.n_rounds; ++k) {
        int to = (int)(((long)me + (1L << k)) % n);

        for (p = 0; p < 2; ++p)
            symh_cb.signal[k][p] =
                (uint64_t *)(void *)(symh_cb.bases[to] + SYMH_COLL_BARRIER_FLAG_OFF(k, p));
    }
    while ((1L << symh_cb.digit_bits) <= n)
        ++symh_cb.digit_bits;
    symh_cb.spin = cpus > 0 && symh_boot_info.local_n_pes <= cpus
                       ? SYMH_COLL_BARRIER_SPIN_OWN_CORE
                       : SYMH_COLL_BARRIER_SPIN_OVERSUBSCRIBED;
    /* The counter holds the arrival count and one digit per class in 64 bits: up to 4095 PEs. */
    symh_cb.central = (symh_boot_info.local_n_pes > cpus || n <= SYMH_COLL_BARRIER_CENTRAL_MAX) &&
                      symh_cb.digit_bits * (SYMH_COLL_CLASSES + 1) <= 64;
    symh_cb.shm = 1;
    symh_debug("barrier: shared memory, %s, spin %u",
               symh_cb.central ? "central counter" : "dissemination", symh_cb.spin);
}

int symh_coll_barrier_init(void)
{
    int n = symh_boot_info.n_pes;
    int64_t all_can;
    int status = SYMH_OK;

    memset(&symh_cb, 0, sizeof(symh_cb));
    symh_cb.n_pes = n;
    symh_cb.bases = calloc((size_t)n, sizeof(*symh_cb.bases));
    symh_cb.gathered = calloc((size_t)n, sizeof(*symh_cb.gathered));
    if (symh_cb.bases == NULL || symh_cb.gathered == NULL) {
        symh_error("symh_init: cannot allocate the barrier tables of %d PEs", n);
        status = SYMH_ERR_NO_MEMORY;
    }
    all_can = status == SYMH_OK && symh_coll_barrier_has_region();
    if (all_can) {
        /* Zeroed before the allreduce below, which no PE leaves before every PE has zeroed, so
         * no peer's first signal can be wiped out. */
        symh_cb.mine = symh_tl_window.base;
        memset(symh_cb.mine, 0, SYMH_COLL_BARRIER_SIZE);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        all_can = symh_coll_barrier_can_shm();
    }
    /* One decision for the whole job: a PE that cannot reach everyone makes all fall back. A PE
     * that failed takes part too (the runtime's agreement then fails every PE). */
    if (symh_boot->allreduce(&all_can, 1, SYMH_BOOT_REDUCE_MIN) != SYMH_OK && status == SYMH_OK)
        status = SYMH_ERR_BOOTSTRAP;
    if (status != SYMH_OK)
        goto err_alloc;
    if (all_can) {
        symh_coll_barrier_setup_shm();
    } else {
        /* The headers of the node-local PEs stay readable for the hang report. */
        for (int pe = 0; pe < n && symh_cb.mine != NULL; ++pe)
            symh_cb.bases[pe] = symh_tl_ipc_peer_base(pe);
        symh_debug("barrier: bootstrap (not every PE is node-local and mapped)");
    }
    symh_boot_set_hang_report(symh_coll_barrier_boot_hang);
    symh_cb.up = 1;
    return SYMH_OK;

err_alloc:
    free(symh_cb.bases);
    free(symh_cb.gathered);
    memset(&symh_cb, 0, sizeof(symh_cb));
    return status;
}

void symh_coll_barrier_fini(void)
{
    symh_boot_set_hang_report(NULL);
    free(symh_cb.bases);
    free(symh_cb.gathered);
    memset(&symh_cb, 0, sizeof(symh_cb));
}

int symh_coll_barrier_up(void)
{
    return symh_cb.up;
}

int symh_coll_barrier_uses_shm(void)
{
    return symh_cb.shm;
}

static symh_coll_agree_t *symh_coll_barrier_slot(int pe, uint64_t epoch)
{
    return (symh_coll_agree_t *)(void *)(symh_cb.bases[pe] + SYMH_COLL_BARRIER_SLOT_OFF(epoch & 1));
}

/* The hang line of a collective call: the PEs whose header for this epoch is not there yet have
 * not arrived (each PE writes it before it signals anyone or enters the bootstrap). On the
 * bootstrap path only the node-local PEs' headers are mapped here; the others are counted as
 * not visible. `via` names the bootstrap's MPI call, NULL on the shared-memory path. */
static void symh_coll_barrier_hang(uint64_t epoch, uint32_t op, double seconds, const char *via)
{
    char list[640], tail[80] = "";
    size_t len = 0;
    int pe, missing = 0, unseen = 0;

    list[0] = '\0';
    for (pe = 0; pe < symh_cb.n_pes; ++pe) {
        if (symh_cb.bases == NULL || symh_cb.bases[pe] == NULL) {
            ++unseen;
            continue;
        }
        if (__atomic_load_n(&symh_coll_barrier_slot(pe, epoch)->seq, __ATOMIC_RELAXED) == epoch)
            continue;
        ++missing;
        if (len < sizeof(list) - 16)
            len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d", missing > 1 ? ", " : "",
                                    pe);
        else if (len < sizeof(list) - 4)
            len += (size_t)snprintf(list + len, sizeof(list) - len, ", ...");
    }
    if (unseen > 0)
        snprintf(tail, sizeof(tail), "; %d PE(s) on other nodes not visible from here", unseen);
    symh_error("%s (call %" PRIu64 " of the world team) has waited %.0f s on PE %d%s%s%s: %d PE(s) "
               "have not arrived: %s%s (SYMH_HANG_TIMEOUT)",
               symh_coll_op_name(op), epoch, seconds, symh_boot_info.my_pe,
               via != NULL ? " (bootstrap " : "", via != NULL ? via : "", via != NULL ? ")" : "",
               missing, missing > 0 ? list : "none of those visible here", tail);
    symh_wait_hang_reported();
}

/* The bootstrap's hang hook: the collective call in progress, if any, names itself. */
static void symh_coll_barrier_boot_hang(const char *call, double seconds)
{
    uint32_t op = __atomic_load_n(&symh_cb.boot_op, __ATOMIC_RELAXED);

    if (op == SYMH_COLL_OP_NONE) {
        symh_error("bootstrap %s (a step of symheap's own) has waited %.0f s on PE %d for the "
                   "other PEs (SYMH_HANG_TIMEOUT)",
                   call, seconds, symh_boot_info.my_pe);
        symh_wait_hang_reported();
        return;
    }
    symh_coll_barrier_hang(symh_cb.epoch, op, seconds, call);
}

static uint64_t symh_coll_barrier_dissemination(uint64_t epoch, uint32_t op)
{
    uint64_t mask = 1u << symh_coll_op_class(op), value;
    unsigned p = (unsigned)(epoch & 1);
    symh_wait_t w;
    int k;

    for (k = 0; k < symh_cb.n_rounds; ++k) {
        const uint64_t *flag =
            (const uint64_t *)(const void *)(symh_cb.mine + SYMH_COLL_BARRIER_FLAG_OFF(k, p));

        __atomic_store_n(symh_cb.signal[k][p], epoch << SYMH_COLL_BARRIER_MASK_BITS | mask,
                         __ATOMIC_RELEASE);
        symh_wait_start(&w, symh_cb.spin);
        while (((value = __atomic_load_n(flag, __ATOMIC_ACQUIRE)) >> SYMH_COLL_BARRIER_MASK_BITS) <
               epoch)
            if (symh_unlikely(symh_wait_step(&w)))
                symh_coll_barrier_hang(epoch, op, symh_wait_seconds(&w), NULL);
        mask |= value & ((1u << SYMH_COLL_BARRIER_MASK_BITS) - 1);
    }
    return mask;
}

static uint64_t symh_coll_barrier_central(uint64_t epoch, uint32_t op)
{
    uint64_t *arrive = (uint64_t *)(void *)(symh_cb.bases[0] + SYMH_COLL_BARRIER_ARRIVE_OFF);
    uint64_t *release = (uint64_t *)(void *)(symh_cb.mine + SYMH_COLL_BARRIER_RELEASE_OFF);
    unsigned w_bits = symh_cb.digit_bits, c;
    uint64_t digit = ((uint64_t)1 << w_bits) - 1, was = symh_cb.released, now, diff, mask = 0;
    uint64_t add = 1 + ((uint64_t)1 << (w_bits * (symh_coll_op_class(op) + 1)));
    symh_wait_t w;
    int pe;

    now = __atomic_add_fetch(arrive, add, __ATOMIC_ACQ_REL);
    if (((now - was) & digit) == (uint64_t)symh_cb.n_pes) {
        for (pe = 0; pe < symh_cb.n_pes; ++pe)
            __atomic_store_n(
                (uint64_t *)(void *)(symh_cb.bases[pe] + SYMH_COLL_BARRIER_RELEASE_OFF), now,
                __ATOMIC_RELEASE);
    } else {
        symh_wait_start(&w, symh_cb.spin);
        while ((now = __atomic_load_n(release, __ATOMIC_ACQUIRE)) == was)
            if (symh_unlikely(symh_wait_step(&w)))
                symh_coll_barrier_hang(epoch, op, symh_wait_seconds(&w), NULL);
    }
    symh_cb.released = now;
    diff = now - was;
    for (c = 0; c < SYMH_COLL_CLASSES; ++c)
        if ((diff >> (w_bits * (c + 1))) & digit)
            mask |= 1u << c;
    return mask;
}

/* Collective over the bootstrap: one allgather of every PE's payload, for plain barriers too, so
 * that calls out of step meet in the same MPI operation instead of mismatched ones. */
static int symh_coll_barrier_boot(const symh_coll_agree_t *header, symh_coll_agree_t *all)
{
    symh_coll_agree_t *out = all != NULL ? all : symh_cb.gathered;
    unsigned cls = symh_coll_op_class(header->op);
    int status, pe;

    if (symh_cb.mine != NULL) { /* for the hang report of node-local peers */
        symh_coll_agree_t *slot = symh_coll_barrier_slot(symh_boot_info.my_pe, header->seq);

        __atomic_store_n(&slot->op, header->op, __ATOMIC_RELAXED);
        __atomic_store_n(&slot->seq, header->seq, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&symh_cb.boot_op, header->op, __ATOMIC_RELAXED);
    status = symh_boot->allgather(header, out, sizeof(*header));
    __atomic_store_n(&symh_cb.boot_op, SYMH_COLL_OP_NONE, __ATOMIC_RELAXED);
    if (status != SYMH_OK)
        return status;
    for (pe = 0; pe < symh_cb.n_pes; ++pe)
        if (symh_coll_op_class(out[pe].op) != cls || out[pe].seq != header->seq)
            break;
    if (pe == symh_cb.n_pes)
        return SYMH_OK;
    if (symh_boot_info.my_pe == 0)
        symh_coll_report_out_of_step(out, symh_cb.n_pes);
    return SYMH_ERR_MISMATCH;
}

int symh_coll_barrier_run(uint32_t op, symh_coll_agree_t *mine, symh_coll_agree_t *all)
{
    uint64_t epoch = ++symh_cb.epoch, mask;
    symh_coll_agree_t header = { .seq = epoch, .op = op }, *slot;
    int pe;

    if (mine != NULL) {
        mine->seq = epoch;
        mine->op = op;
    }
    if (!symh_cb.shm)
        return symh_coll_barrier_boot(mine != NULL ? mine : &header, all);

    slot = symh_coll_barrier_slot(symh_boot_info.my_pe, epoch);
    if (mine != NULL)
        memcpy(&slot->status, &mine->status, sizeof(*mine) - offsetof(symh_coll_agree_t, status));
    __atomic_store_n(&slot->op, op, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->seq, epoch, __ATOMIC_RELAXED);
    mask = symh_cb.central ? symh_coll_barrier_central(epoch, op)
                           : symh_coll_barrier_dissemination(epoch, op);
    if (symh_likely(mask == 1u << symh_coll_op_class(op))) {
        for (pe = 0; all != NULL && pe < symh_cb.n_pes; ++pe)
            memcpy(&all[pe], symh_coll_barrier_slot(pe, epoch), sizeof(*all));
        return SYMH_OK;
    }
    /* Every PE knows; one speaks for the job, from every PE's header (all arrived). */
    if (symh_boot_info.my_pe == 0) {
        for (pe = 0; pe < symh_cb.n_pes; ++pe)
            memcpy(&symh_cb.gathered[pe], symh_coll_barrier_slot(pe, epoch),
                   sizeof(symh_cb.gathered[pe]));
        symh_coll_report_out_of_step(symh_cb.gathered, symh_cb.n_pes);
    }
    return SYMH_ERR_MISMATCH;
}

void symh_barrier_all(void)
{
    int status, barrier;

    SYMH_CHECK_INIT(symh_coll_barrier_up(), );
    if (symh_coll_enter(SYMH_COLL_OP_BARRIER_ALL) != SYMH_OK)
        return;
    /* The quiet of the IPC transport: its puts are plain stores, complete once ordered before
     * the barrier's release stores; a NIC transport completes its operations at their targets
     * (and the barrier's waits keep driving it for the peers that still complete theirs). */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    status = symh_tl_nic_quiet();
    if (status != SYMH_OK)
        symh_error("symh_barrier_all: the NIC transport's quiet failed: %s",
                   symh_status_string(status));
    barrier = symh_coll_barrier_run(SYMH_COLL_OP_BARRIER_ALL, NULL, NULL);
    symh_coll_leave();
    symh_status_set(barrier != SYMH_OK ? barrier : status);
}

void symh_sync_all(void)
{
    int status;

    SYMH_CHECK_INIT(symh_coll_barrier_up(), );
    if (symh_coll_enter(SYMH_COLL_OP_SYNC_ALL) != SYMH_OK)
        return;
    status = symh_coll_barrier_run(SYMH_COLL_OP_SYNC_ALL, NULL, NULL);
    symh_coll_leave();
    symh_status_set(status);
}
