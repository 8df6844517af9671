/* collectives: a dissemination barrier over flags in the PEs' internal areas (node-local, mapped
 * by the IPC transport), carrying the agreement payload and the out-of-step check; the bootstrap
 * allgather as the fallback.
 *
 * Layout, at offset 0 of every PE's internal area (each item on its own 64-byte line, so a PE
 * polling one flag never shares a line with a store to another):
 *   line 2k + p, k < SYMH_COLL_BARRIER_MAX_ROUNDS, p in {0, 1}
 *                                  dissemination flag of round k for the barriers of epoch parity
 *                                  p: (epoch << 8) | class mask, written by PE (me - 2^k) mod n
 *   line 2 MAX_ROUNDS              central arrival counter (word 0) and the agreement's folded
 *                                  words (words 1-6; used on PE 0 only)
 *   line 2 MAX_ROUNDS + 1          central release flag: the arrival counter at the last release
 *                                  (word 0), and the folded verdict of that release (word 1)
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
 * Pair variant, for a job of two PEs (and one, which pairs with itself): the dissemination's one
 * round, plus the folded agreement words (below) stored into the partner's round-0 line before
 * the flag. One line transfer each way, both at once, against the central counter's three in a
 * row (add, add, release): 0.14 against 0.21 us per barrier_all on this project's machine.
 *
 * Central variant, chosen at init for 3 to 8 PEs, or more when PEs outnumber cores: each
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
 * The folded agreement (central and pair variants): an agreement whose payload compares at most
 * three words (a header word of sequence, operation and a "judge me" flag, the arguments, the
 * result: symh_malloc, symh_free, the symmetric registration's) also ORs each word w and its
 * complement ~w into PE 0's arrival line, next to the counter, before its arrival add (relaxed
 * ORs: the add releases them). All PEs have the same word iff no bit is set in both ORs. (A pair
 * stores its words into the partner's flag line instead, with plain stores, and each PE compares
 * them with its own: a locked OR costs a few ns, and at 2 PEs a barrier costs about 150 ns.) So the
 * last PE to arrive, which holds that line already, knows exactly whether every PE agrees
 * without reading any payload; it clears the ORs and stores that verdict next to every PE's
 * release flag, in the line each waiter already polls. When it says "agreed", no PE reads
 * another's slot: the agreement costs the barrier's own line transfers plus a few stores or ORs
 * on a line this PE holds anyway. Anything else (a PE that failed, an agreement of more words, a
 * call out of step) reads every PE's slot and runs the full judge, as do the dissemination and
 * bootstrap paths. The slots are written in every case, for that judge, the hang report and the
 * out-of-step line; since no peer reads them on the folded path, the writes stay in this PE's
 * cache.
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
/* The folded agreement: words 1..FOLD of the arrival line OR the words, words FOLD+1..2 FOLD
 * their complements; word 1 of the release line carries the verdict. */
#define SYMH_COLL_BARRIER_FOLD 3
/* A flag in the low byte of the folded header word: this PE failed locally, or its payload has
 * more words than are folded; either way the full judge must decide. */
#define SYMH_COLL_BARRIER_FOLD_JUDGE 1u

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
_Static_assert((1 + 2 * SYMH_COLL_BARRIER_FOLD) * sizeof(uint64_t) <= SYMH_COLL_BARRIER_LINE,
               "the counter and the folded words share the arrival line");
_Static_assert(SYMH_COLL_OP_COUNT <= 256, "an operation fits a byte of the folded header word");

static struct {
    int up;
    int shm;
    int n_rounds;
    int n_pes;
    int central;
    int pair; /* two PEs: symh_coll_barrier_pair */
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
    symh_cb.spin = cpus > 0 && symh_boot_info.machine_n_pes <= cpus
                       ? SYMH_COLL_BARRIER_SPIN_OWN_CORE
                       : SYMH_COLL_BARRIER_SPIN_OVERSUBSCRIBED;
    /* The counter holds the arrival count and one digit per class in 64 bits: up to 4095 PEs. */
    symh_cb.central = (symh_boot_info.machine_n_pes > cpus || n <= SYMH_COLL_BARRIER_CENTRAL_MAX) &&
                      symh_cb.digit_bits * (SYMH_COLL_CLASSES + 1) <= 64;
    /* One or two PEs: the pair exchange (one PE exchanges with itself). */
    symh_cb.pair = n <= 2;
    for (p = 0; symh_cb.pair && p < 2; ++p)
        symh_cb.signal[0][p] =
            (uint64_t *)(void *)(symh_cb.bases[(me + 1) % n] + SYMH_COLL_BARRIER_FLAG_OFF(0, p));
    symh_cb.shm = 1;
    symh_debug("barrier: shared memory, %s, spin %u",
               symh_cb.pair      ? "pair"
               : symh_cb.central ? "central counter"
                                 : "dissemination",
               symh_cb.spin);
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

/* Two PEs: each stores its flag (and, for an agreement, its folded words before it) into the
 * other's round-0 line of this epoch's parity and waits for its own: one line transfer each way,
 * at once, where the central counter needs three in a row (add, add, release). The same mask as
 * the dissemination (it is its one round), and the folded verdict computed by both PEs alike from
 * their own words and the partner's, read after the acquire. The partner writes this line again
 * only for epoch + 2, which needs this PE to enter epoch + 1 first, so the words are read before
 * they can change. `fold`, `agreed`: as for the central barrier. */
static uint64_t symh_coll_barrier_pair(uint64_t epoch, uint32_t op, const uint64_t *fold,
                                       int *agreed)
{
    unsigned p = (unsigned)(epoch & 1);
    uint64_t mask = 1u << symh_coll_op_class(op), value, clash = 0, header;
    uint64_t *out = symh_cb.signal[0][p];
    const uint64_t *in =
        (const uint64_t *)(const void *)(symh_cb.mine + SYMH_COLL_BARRIER_FLAG_OFF(0, p));
    symh_wait_t w;
    int j;

    for (j = 0; fold != NULL && j < SYMH_COLL_BARRIER_FOLD; ++j)
        __atomic_store_n(&out[1 + j], fold[j], __ATOMIC_RELAXED);
    __atomic_store_n(out, epoch << SYMH_COLL_BARRIER_MASK_BITS | mask, __ATOMIC_RELEASE);
    symh_wait_start(&w, symh_cb.spin);
    while (((value = __atomic_load_n(in, __ATOMIC_ACQUIRE)) >> SYMH_COLL_BARRIER_MASK_BITS) < epoch)
        if (symh_unlikely(symh_wait_step(&w)))
            symh_coll_barrier_hang(epoch, op, symh_wait_seconds(&w), NULL);
    mask |= value & ((1u << SYMH_COLL_BARRIER_MASK_BITS) - 1);
    if (fold != NULL) {
        /* Only meaningful when both are agreements (the caller checks the mask first). */
        header = fold[0] | __atomic_load_n(&in[1], __ATOMIC_RELAXED);
        for (j = 0; j < SYMH_COLL_BARRIER_FOLD; ++j)
            clash |= fold[j] ^ __atomic_load_n(&in[1 + j], __ATOMIC_RELAXED);
        *agreed = clash == 0 && (header & SYMH_COLL_BARRIER_FOLD_JUDGE) == 0;
    }
    return mask;
}

/* The classes present in a central barrier whose release moved the counter by `diff`. */
static uint64_t symh_coll_barrier_classes(uint64_t diff)
{
    unsigned w_bits = symh_cb.digit_bits, c;
    uint64_t digit = ((uint64_t)1 << w_bits) - 1, mask = 0;

    for (c = 0; c < SYMH_COLL_CLASSES; ++c)
        if ((diff >> (w_bits * (c + 1))) & digit)
            mask |= 1u << c;
    return mask;
}

/* The last arriver's verdict on the folded words (see the top of the file), read off PE 0's
 * arrival line, which its add just brought here; the ORs are cleared for the next agreement,
 * which no PE can start before the release that follows. */
static uint64_t symh_coll_barrier_fold_verdict(uint64_t *arrive)
{
    uint64_t clash = 0, header = __atomic_load_n(&arrive[1], __ATOMIC_RELAXED);
    int j;

    for (j = 0; j < SYMH_COLL_BARRIER_FOLD; ++j) {
        clash |= __atomic_load_n(&arrive[1 + j], __ATOMIC_RELAXED) &
                 __atomic_load_n(&arrive[1 + SYMH_COLL_BARRIER_FOLD + j], __ATOMIC_RELAXED);
        __atomic_store_n(&arrive[1 + j], 0, __ATOMIC_RELAXED);
        __atomic_store_n(&arrive[1 + SYMH_COLL_BARRIER_FOLD + j], 0, __ATOMIC_RELAXED);
    }
    /* Every word equal everywhere, and no header word asks for the judge. */
    return clash == 0 && (header & SYMH_COLL_BARRIER_FOLD_JUDGE) == 0;
}

/* `fold`: NULL, or the SYMH_COLL_BARRIER_FOLD words of this PE's agreement; then `*agreed` is set
 * to the folded verdict (1: every PE has the same words and none failed). */
static uint64_t symh_coll_barrier_central(uint64_t epoch, uint32_t op, const uint64_t *fold,
                                          int *agreed)
{
    uint64_t *arrive = (uint64_t *)(void *)(symh_cb.bases[0] + SYMH_COLL_BARRIER_ARRIVE_OFF);
    uint64_t *release = (uint64_t *)(void *)(symh_cb.mine + SYMH_COLL_BARRIER_RELEASE_OFF);
    unsigned w_bits = symh_cb.digit_bits;
    uint64_t digit = ((uint64_t)1 << w_bits) - 1, was = symh_cb.released, now, mask, verdict;
    uint64_t add = 1 + ((uint64_t)1 << (w_bits * (symh_coll_op_class(op) + 1)));
    symh_wait_t w;
    int pe, j;

    if (fold != NULL) {
        /* Relaxed: the arrival add below releases them, and the last arriver's add acquires
         * every earlier add (one release sequence). ORing 0 changes nothing, so it is skipped
         * (a zero argument or result costs one OR, not two). */
        for (j = 0; j < SYMH_COLL_BARRIER_FOLD; ++j) {
            if (fold[j] != 0)
                __atomic_fetch_or(&arrive[1 + j], fold[j], __ATOMIC_RELAXED);
            if (~fold[j] != 0)
                __atomic_fetch_or(&arrive[1 + SYMH_COLL_BARRIER_FOLD + j], ~fold[j],
                                  __ATOMIC_RELAXED);
        }
    }
    now = __atomic_add_fetch(arrive, add, __ATOMIC_ACQ_REL);
    if (((now - was) & digit) == (uint64_t)symh_cb.n_pes) {
        /* The agreements' digit only, so that a plain barrier releases at once. */
        uint64_t agreeing = ((now - was) >> (w_bits * (SYMH_COLL_CLASS_AGREE + 1))) & digit;

        verdict = 0;
        if (agreeing != 0) {
            /* Every agreement folded its words: judge and clear them, and tell every PE (a
             * barrier that is not all agreements is out of step: the caller reports it). */
            verdict = symh_coll_barrier_fold_verdict(arrive) && agreeing == (uint64_t)symh_cb.n_pes;
            for (pe = 0; pe < symh_cb.n_pes; ++pe)
                __atomic_store_n(
                    (uint64_t *)(void *)(symh_cb.bases[pe] + SYMH_COLL_BARRIER_RELEASE_OFF) + 1,
                    verdict, __ATOMIC_RELAXED);
        }
        for (pe = 0; pe < symh_cb.n_pes; ++pe)
            __atomic_store_n(
                (uint64_t *)(void *)(symh_cb.bases[pe] + SYMH_COLL_BARRIER_RELEASE_OFF), now,
                __ATOMIC_RELEASE);
    } else {
        symh_wait_start(&w, symh_cb.spin);
        while ((now = __atomic_load_n(release, __ATOMIC_ACQUIRE)) == was)
            if (symh_unlikely(symh_wait_step(&w)))
                symh_coll_barrier_hang(epoch, op, symh_wait_seconds(&w), NULL);
        /* Written by the last arriver before the release just acquired; read only when this
         * release is an agreement's (it is not written otherwise). */
        verdict = fold != NULL ? __atomic_load_n(release + 1, __ATOMIC_RELAXED) : 0;
    }
    mask = symh_coll_barrier_classes(now - was);
    symh_cb.released = now;
    if (agreed != NULL)
        *agreed = fold != NULL && verdict == 1;
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

/* The folded words of an agreement (see the top of the file): the header word (sequence,
 * operation, flags), then the first `nargs` arguments and the result, zeroes after them. A PE that
 * failed here, or whose payload has more words, folds only a header word that asks for the judge;
 * every agreement folds one, so the last arriver never judges a subset of the PEs. */
static void symh_coll_barrier_fold_words(const symh_coll_agree_t *mine, int nargs, uint64_t epoch,
                                         uint32_t op, uint64_t fold[SYMH_COLL_BARRIER_FOLD])
{
    uint64_t flags = 0;
    int j, k = 1;

    memset(fold, 0, SYMH_COLL_BARRIER_FOLD * sizeof(*fold));
    if (mine == NULL || nargs < 0 || nargs + 2 > SYMH_COLL_BARRIER_FOLD ||
        mine->status != SYMH_OK) {
        flags = SYMH_COLL_BARRIER_FOLD_JUDGE;
    } else {
        for (j = 0; j < nargs; ++j)
            fold[k++] = mine->args[j];
        fold[k] = mine->result;
    }
    /* The sequence modulo 2^48: on this path every call is one barrier of every PE, so the
     * sequences are equal anyway; the operation is below 256 (a static assertion). */
    fold[0] = epoch << 16 | (uint64_t)op << 8 | flags;
}

/* The barrier of call `op` with the payload `mine` (or none); `nargs` >= 0: an agreement that may
 * be decided by its folded words, and then `*agreed` is 1 and `all` is not filled in. */
static int symh_coll_barrier_exchange(uint32_t op, symh_coll_agree_t *mine, int nargs,
                                      symh_coll_agree_t *all, int *agreed)
{
    uint64_t epoch = ++symh_cb.epoch, mask, fold[SYMH_COLL_BARRIER_FOLD];
    symh_coll_agree_t header = { .seq = epoch, .op = op }, *slot;
    int pe, folded = 0;

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
    if (symh_cb.pair || symh_cb.central) {
        int agree = symh_coll_op_class(op) == SYMH_COLL_CLASS_AGREE;

        if (agree)
            symh_coll_barrier_fold_words(nargs >= 0 ? mine : NULL, nargs, epoch, op, fold);
        mask = symh_cb.pair ? symh_coll_barrier_pair(epoch, op, agree ? fold : NULL, &folded)
                            : symh_coll_barrier_central(epoch, op, agree ? fold : NULL, &folded);
    } else {
        mask = symh_coll_barrier_dissemination(epoch, op);
    }
    if (symh_likely(mask == 1u << symh_coll_op_class(op))) {
        if (agreed != NULL)
            *agreed = folded;
        for (pe = 0; !folded && all != NULL && pe < symh_cb.n_pes; ++pe)
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

int symh_coll_barrier_run(uint32_t op, symh_coll_agree_t *mine, symh_coll_agree_t *all)
{
    return symh_coll_barrier_exchange(op, mine, -1, all, NULL);
}

int symh_coll_barrier_agree(symh_coll_agree_t *mine, int nargs, symh_coll_agree_t *all, int *agreed)
{
    *agreed = 0;
    return symh_coll_barrier_exchange(mine->op, mine, nargs, all, agreed);
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
    status = symh_tl_nic_quiet(NULL);
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
