/* collectives: a dissemination barrier over flags in the PEs' internal areas (node-local, mapped
 * by the IPC transport), carrying the agreement payload; the bootstrap barrier as the fallback.
 *
 * Layout, at offset 0 of every PE's internal area (each item on its own 64-byte line, so a PE
 * polling one flag never shares a line with a store to another):
 *   line k, k < SYMH_COLL_BARRIER_MAX_ROUNDS   dissemination flag of round k: the highest
 *                                              barrier epoch that PE (me - 2^k) mod n_pes has
 *                                              signalled to this PE
 *   line MAX_ROUNDS                            central arrival counter (used on PE 0 only)
 *   line MAX_ROUNDS + 1                        central release flag: the highest epoch released
 *   line MAX_ROUNDS + 2 + p, p in {0, 1}       this PE's agreement payload of the barriers whose
 *                                              epoch has parity p (written by this PE only)
 *
 * Epochs: every PE counts its barriers (epoch 1, 2, ...; the same sequence everywhere because the
 * barrier is collective). In barrier e, round k, a PE stores e (release) into the round-k flag of
 * PE (me + 2^k) mod n and waits until its own round-k flag is >= e (acquire). Each flag has one
 * writer and only grows, so nothing is ever reset: a partner already in barrier e + 1 may store
 * e + 1 before this PE has seen e, and ">= e" accepts that, then ">= e + 1" holds in the next
 * barrier too. After ceil(log2 n) rounds every PE's arrival has reached every PE through a chain
 * of release/acquire pairs, so whatever a PE wrote before the barrier happens before what any PE
 * does after it. 64-bit epochs do not wrap.
 *
 * Central variant, chosen at init when PEs outnumber cores or the job is small (<= 8 PEs): each
 * PE adds 1 to PE 0's arrival counter (acq_rel); the PE that brings it to epoch * n_pes is the
 * last, and stores epoch (release) into every PE's release flag; the others wait for their own
 * flag to reach epoch. One wait per PE instead of log2(n) dependent waits, which matters when
 * each wait may cost a context switch (8 PEs on 2 cores); the counter and flags only grow, so
 * nothing is reset either. The arrival RMWs form one release sequence, so the last arriver's
 * acquire sees every PE's stores before the barrier, and its release passes them on.
 *
 * Why a payload slot cannot be overwritten while a peer still reads it: PE a writes slot e & 1
 * before barrier e and every PE reads it after barrier e. The next write of that slot is before
 * barrier e + 2, so PE a has completed barrier e + 1 by then, which needs every PE to have
 * entered barrier e + 1, which each PE does only after it finished reading the payloads of
 * barrier e. Two slots are therefore enough for any number of PEs and any mix of plain barriers
 * and agreements, since both advance the same epoch. */
#include "collectives/coll_barrier.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <symheap/barrier.h>

#include "bootstrap/boot.h"
#include "core/core_log.h"
#include "core/core_status.h"
#include "transport/tl_ipc.h"
#include "transport/tl_nic.h"

#define SYMH_COLL_BARRIER_LINE        64
#define SYMH_COLL_BARRIER_MAX_ROUNDS  32 /* n_pes is an int: at most 31 rounds */
#define SYMH_COLL_BARRIER_FLAG_OFF(k) ((size_t)(k)*SYMH_COLL_BARRIER_LINE)
#define SYMH_COLL_BARRIER_ARRIVE_OFF  ((size_t)SYMH_COLL_BARRIER_MAX_ROUNDS * SYMH_COLL_BARRIER_LINE)
#define SYMH_COLL_BARRIER_RELEASE_OFF (SYMH_COLL_BARRIER_ARRIVE_OFF + SYMH_COLL_BARRIER_LINE)
#define SYMH_COLL_BARRIER_SLOT_OFF(p) \
    ((size_t)(SYMH_COLL_BARRIER_MAX_ROUNDS + 2 + (p)) * SYMH_COLL_BARRIER_LINE)
/* Jobs up to this size use the central barrier even when every PE has its own core. */
#define SYMH_COLL_BARRIER_CENTRAL_MAX 8
#define SYMH_COLL_BARRIER_SIZE        SYMH_COLL_BARRIER_SLOT_OFF(2)

/* Polls before yielding: when every PE has a core, a partner usually arrives within a few
 * hundred pauses; when PEs outnumber cores, the partner needs our core, so yield at once
 * (8 PEs on 2 cores would otherwise burn whole time slices spinning). */
#define SYMH_COLL_BARRIER_SPIN_OWN_CORE       1000
#define SYMH_COLL_BARRIER_SPIN_OVERSUBSCRIBED 0

_Static_assert(sizeof(symh_coll_agree_t) <= SYMH_COLL_BARRIER_LINE,
               "an agreement payload fits one line of the internal area");

static struct {
    int up;
    int shm;
    int n_rounds;
    int n_pes;
    int central;
    unsigned spin;
    uint64_t epoch;
    char *mine;                                     /* this PE's internal area */
    char **bases;                                   /* n_pes internal areas, as mapped here */
    uint64_t *signal[SYMH_COLL_BARRIER_MAX_ROUNDS]; /* round k: the flag this PE stores to */
} symh_cb;

static inline void symh_coll_barrier_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline void symh_coll_barrier_wait(const uint64_t *flag, uint64_t epoch)
{
    unsigned spins = 0;

    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < epoch) {
        if (spins < symh_cb.spin) {
            ++spins;
            symh_coll_barrier_pause();
        } else {
            sched_yield();
        }
    }
}

size_t symh_coll_barrier_region_size(int n_pes)
{
    (void)n_pes; /* two slots per PE suffice whatever the job size (see the top of this file) */
    return SYMH_COLL_BARRIER_SIZE;
}

/* Whether this PE can run the shared-memory barrier: every PE mapped, the region fits. */
static int symh_coll_barrier_can_shm(void)
{
    int pe;

    if (symh_tl_window.base == NULL || symh_tl_window.internal_size < SYMH_COLL_BARRIER_SIZE) {
        symh_debug("barrier: internal area of %zu bytes cannot hold the %zu-byte barrier region",
                   symh_tl_window.internal_size, (size_t)SYMH_COLL_BARRIER_SIZE);
        return 0;
    }
    for (pe = 0; pe < symh_boot_info.n_pes; ++pe) {
        if (symh_tl_ipc_peer_base(pe) == NULL) {
            symh_debug("barrier: PE %d is not mapped here", pe);
            return 0;
        }
    }
    return 1;
}

int symh_coll_barrier_init(void)
{
    int n = symh_boot_info.n_pes, me = symh_boot_info.my_pe, pe, k, can, all_can = 1;
    int *cans;
    long cpus;
    int status;

    memset(&symh_cb, 0, sizeof(symh_cb));
    symh_cb.n_pes = n;
    cans = malloc((size_t)n * sizeof(*cans));
    symh_cb.bases = calloc((size_t)n, sizeof(*symh_cb.bases));
    if (cans == NULL || symh_cb.bases == NULL) {
        symh_error("symh_init: cannot allocate the barrier tables of %d PEs", n);
        status = SYMH_ERR_NO_MEMORY;
        goto err_alloc;
    }
    can = symh_coll_barrier_can_shm();
    if (can) {
        /* Zeroed before the allgather below, which no PE leaves before every PE has zeroed, so
         * no peer's first signal can be wiped out. */
        symh_cb.mine = symh_tl_window.base;
        memset(symh_cb.mine, 0, SYMH_COLL_BARRIER_SIZE);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    /* One decision for the whole job: a PE that cannot reach everyone makes all fall back. */
    status = symh_boot->allgather(&can, cans, sizeof(can));
    if (status != SYMH_OK)
        goto err_alloc;
    for (pe = 0; pe < n; ++pe)
        all_can &= cans[pe] != 0;
    free(cans);
    cans = NULL;

    if (all_can) {
        for (pe = 0; pe < n; ++pe)
            symh_cb.bases[pe] = symh_tl_ipc_peer_base(pe);
        while ((1L << symh_cb.n_rounds) < n)
            ++symh_cb.n_rounds;
        for (k = 0; k < symh_cb.n_rounds; ++k) {
            int to = (int)(((long)me + (1L << k)) % n);

            symh_cb.signal[k] =
                (uint64_t *)(void *)(symh_cb.bases[to] + SYMH_COLL_BARRIER_FLAG_OFF(k));
        }
        cpus = sysconf(_SC_NPROCESSORS_ONLN);
        symh_cb.spin = cpus > 0 && symh_boot_info.local_n_pes <= cpus
                           ? SYMH_COLL_BARRIER_SPIN_OWN_CORE
                           : SYMH_COLL_BARRIER_SPIN_OVERSUBSCRIBED;
        symh_cb.central = symh_boot_info.local_n_pes > cpus || n <= SYMH_COLL_BARRIER_CENTRAL_MAX;
        symh_cb.shm = 1;
        symh_debug("barrier: shared memory, %s, spin %u",
                   symh_cb.central ? "central counter" : "dissemination", symh_cb.spin);
    } else {
        free(symh_cb.bases);
        symh_cb.bases = NULL;
        symh_cb.mine = NULL;
        symh_debug("barrier: bootstrap (not every PE is node-local and mapped)");
    }
    symh_cb.up = 1;
    return SYMH_OK;

err_alloc:
    free(cans);
    free(symh_cb.bases);
    memset(&symh_cb, 0, sizeof(symh_cb));
    return status;
}

void symh_coll_barrier_fini(void)
{
    free(symh_cb.bases);
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

static void symh_coll_barrier_dissemination(uint64_t epoch)
{
    int k;

    for (k = 0; k < symh_cb.n_rounds; ++k) {
        __atomic_store_n(symh_cb.signal[k], epoch, __ATOMIC_RELEASE);
        symh_coll_barrier_wait(
            (const uint64_t *)(const void *)(symh_cb.mine + SYMH_COLL_BARRIER_FLAG_OFF(k)), epoch);
    }
}

static void symh_coll_barrier_central(uint64_t epoch)
{
    uint64_t *arrive = (uint64_t *)(void *)(symh_cb.bases[0] + SYMH_COLL_BARRIER_ARRIVE_OFF);
    uint64_t *release = (uint64_t *)(void *)(symh_cb.mine + SYMH_COLL_BARRIER_RELEASE_OFF);
    int pe;

    if (__atomic_add_fetch(arrive, 1, __ATOMIC_ACQ_REL) == epoch * (uint64_t)symh_cb.n_pes) {
        for (pe = 0; pe < symh_cb.n_pes; ++pe)
            __atomic_store_n(
                (uint64_t *)(void *)(symh_cb.bases[pe] + SYMH_COLL_BARRIER_RELEASE_OFF), epoch,
                __ATOMIC_RELEASE);
        return;
    }
    symh_coll_barrier_wait(release, epoch);
}

void symh_coll_barrier_shm(const symh_coll_agree_t *mine, symh_coll_agree_t *all)
{
    uint64_t epoch = ++symh_cb.epoch;
    size_t slot = SYMH_COLL_BARRIER_SLOT_OFF(epoch & 1);
    int pe;

    if (mine != NULL)
        memcpy(symh_cb.mine + slot, mine, sizeof(*mine));
    if (symh_cb.central)
        symh_coll_barrier_central(epoch);
    else
        symh_coll_barrier_dissemination(epoch);
    if (all != NULL) {
        for (pe = 0; pe < symh_cb.n_pes; ++pe)
            memcpy(&all[pe], symh_cb.bases[pe] + slot, sizeof(*all));
    }
}

void symh_barrier_all(void)
{
    int status, barrier;

    SYMH_CHECK_INIT(symh_coll_barrier_up(), );
    /* The quiet of the IPC transport: its puts are plain stores, complete once ordered before
     * the barrier's release stores; a NIC transport completes its operations at their targets
     * (and the barrier's waits keep driving it for the peers that still complete theirs). */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    status = symh_tl_nic_quiet();
    if (status != SYMH_OK)
        symh_error("symh_barrier_all: the NIC transport's quiet failed: %s",
                   symh_status_string(status));
    barrier = symh_coll_barrier();
    symh_status_set(barrier != SYMH_OK ? barrier : status);
}

void symh_sync_all(void)
{
    SYMH_CHECK_INIT(symh_coll_barrier_up(), );
    symh_status_set(symh_coll_barrier());
}
