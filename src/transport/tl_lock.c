/* transport: the distributed locks (docs/locks.md), an MCS queue lock built on the word
 * atomics of tl_amo.h, so it works on every transport and over any symmetric long. Each PE's
 * copy of the lock word is that PE's queue node; PE 0's copy also holds the queue's tail:
 *
 *   bits  0..31  NEXT: the PE queued right behind this one, plus 1 (0: none yet)
 *   bit   32     WAIT: this PE is queued and waits for its predecessor to hand over
 *   bit   33     HELD: this PE holds the lock
 *   bits 34..63  TAIL (PE 0's copy): the last PE queued, plus 1 (0: the lock is free)
 *
 * set_lock marks itself WAIT, swaps itself in as the tail (a compare-and-swap loop on PE 0's
 * word that leaves the node bits alone), and, behind a predecessor, writes its number into the
 * predecessor's NEXT and waits on its own word until the predecessor clears WAIT. clear_lock
 * completes the holder's operations, then hands over to NEXT, or swings the tail back to 0 when
 * no one is queued (waiting for NEXT when a PE is between its swap and its write). Every
 * read-modify-write is an atomic of the job's atomic route; waiting is a load of this PE's own
 * word, with the NIC's progress and the hang watch. */
#include <stdint.h>

#include <symheap/lock.h>
#include <symheap/rma.h>

#include "core/core_wait.h"
#include "transport/tl_amo.h"
#include "transport/tl_nic.h"
#include "transport/tl_rma.h"

_Static_assert(sizeof(long) == sizeof(uint64_t), "lock words are 64-bit longs");

#define SYMH_TL_LOCK_NEXT       UINT64_C(0xffffffff)
#define SYMH_TL_LOCK_WAIT       (UINT64_C(1) << 32)
#define SYMH_TL_LOCK_HELD       (UINT64_C(1) << 33)
#define SYMH_TL_LOCK_TAIL_SHIFT 34
#define SYMH_TL_LOCK_TAIL       (~UINT64_C(0) << SYMH_TL_LOCK_TAIL_SHIFT)
#define SYMH_TL_LOCK_HOME       0 /* the PE whose word holds the tail */
#define SYMH_TL_LOCK_SPINS      256

/* One call's lock: its access (naming the public function), and this PE's own word mapped. */
typedef struct {
    symh_tl_rma_access_t access;
    uint64_t *word; /* the lock symmetric address (the same on every PE's side) */
    const uint64_t *mine;
    int me;
} symh_tl_lock_t;

static int symh_tl_lock_open(symh_tl_lock_t *l, const char *func, long *lock)
{
    l->access = (symh_tl_rma_access_t){ func, "lock", sizeof(uint64_t), _Alignof(uint64_t),
                                        SYMH_TL_RMA_BLOCKING };
    SYMH_TL_RMA_CHECK_UP_IN(func, 0);
    l->me = symh_tl_rma.my_pe;
    l->word = (uint64_t *)(void *)lock;
    l->mine = (const uint64_t *)symh_tl_rma_xlate(&l->access, lock, 1, l->me);
    return l->mine != NULL;
}

static int symh_tl_lock_amo(symh_tl_lock_t *l, symh_tl_amo_op_t op, uint64_t value,
                            const uint64_t *cond, uint64_t *fetched, int pe)
{
    return symh_tl_amo_word(&l->access, NULL, op, l->word, &value, cond, fetched, pe);
}

/* This PE's word, as the atomics of the job's route left it. */
static uint64_t symh_tl_lock_mine(const symh_tl_lock_t *l)
{
    if (symh_tl_nic != NULL) /* a NIC-delivered update may need this PE's progress */
        symh_tl_nic_progress();
    return __atomic_load_n(l->mine, __ATOMIC_ACQUIRE);
}

/* Waits until this PE's word has `bits` set (want 1) or clear (want 0); returns the word. */
static uint64_t symh_tl_lock_wait(const symh_tl_lock_t *l, uint64_t bits, int want,
                                  const char *what)
{
    uint64_t seen;
    symh_wait_t w;

    symh_wait_start(&w, SYMH_TL_LOCK_SPINS);
    while (((seen = symh_tl_lock_mine(l)) & bits) == 0 ? want : !want) {
        if (symh_unlikely(symh_wait_step(&w))) {
            symh_error("%s: PE %d has waited %.0f s on lock %p for %s (SYMH_HANG_TIMEOUT)",
                       l->access.func, l->me, symh_wait_seconds(&w), (void *)l->word, what);
            symh_wait_hang_reported();
        }
    }
    return seen;
}

/* Replaces the tail field of the home word with `to` when it is `from` (whatever it is when
 * from is UINT64_MAX), leaving PE 0's node bits alone. Returns the tail it found (equal to
 * `from` when it swapped), or UINT64_MAX on a refused access or a transport failure. */
static uint64_t symh_tl_lock_swap_tail(symh_tl_lock_t *l, uint64_t from, uint64_t to)
{
    uint64_t old, seen, tail;

    if (symh_tl_lock_amo(l, SYMH_TL_AMO_FETCH, 0, NULL, &old, SYMH_TL_LOCK_HOME) != SYMH_OK)
        return UINT64_MAX;
    for (;;) {
        tail = old >> SYMH_TL_LOCK_TAIL_SHIFT;
        if (from != UINT64_MAX && tail != from)
            return tail;
        if (symh_tl_lock_amo(l, SYMH_TL_AMO_CSWAP,
                             (old & ~SYMH_TL_LOCK_TAIL) | (to << SYMH_TL_LOCK_TAIL_SHIFT), &old,
                             &seen, SYMH_TL_LOCK_HOME) != SYMH_OK)
            return UINT64_MAX;
        if (seen == old)
            return tail;
        old = seen; /* the tail or PE 0's node bits moved: try again on what is there now */
    }
}

void symh_set_lock(long *lock)
{
    uint64_t me1, pred;
    symh_tl_lock_t l;

    if (!symh_tl_lock_open(&l, __func__, lock))
        return;
    if (symh_tl_lock_mine(&l) & SYMH_TL_LOCK_HELD) {
        symh_error("symh_set_lock: PE %d already holds lock %p", l.me, (void *)lock);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    me1 = (uint64_t)l.me + 1;
    if (symh_tl_lock_amo(&l, SYMH_TL_AMO_OR, SYMH_TL_LOCK_WAIT, NULL, NULL, l.me) != SYMH_OK ||
        (pred = symh_tl_lock_swap_tail(&l, UINT64_MAX, me1)) == UINT64_MAX)
        return;
    if (pred != 0) {
        if (symh_tl_lock_amo(&l, SYMH_TL_AMO_OR, me1, NULL, NULL, (int)pred - 1) != SYMH_OK)
            return;
        (void)symh_tl_lock_wait(&l, SYMH_TL_LOCK_WAIT, 0, "its predecessor to hand it over");
        if (symh_tl_lock_amo(&l, SYMH_TL_AMO_OR, SYMH_TL_LOCK_HELD, NULL, NULL, l.me) != SYMH_OK)
            return;
    } else if (symh_tl_lock_amo(&l, SYMH_TL_AMO_XOR, SYMH_TL_LOCK_WAIT | SYMH_TL_LOCK_HELD, NULL,
                                NULL, l.me) != SYMH_OK) {
        return;
    }
    symh_status_set(SYMH_OK);
}

void symh_clear_lock(long *lock)
{
    uint64_t own, next, me1, tail;
    symh_tl_lock_t l;

    if (!symh_tl_lock_open(&l, __func__, lock))
        return;
    own = symh_tl_lock_mine(&l);
    if ((own & SYMH_TL_LOCK_HELD) == 0) {
        symh_error("symh_clear_lock: PE %d does not hold lock %p", l.me, (void *)lock);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    symh_quiet(); /* the critical section's puts and atomics complete first */
    if (symh_last_error() != SYMH_OK)
        return;
    me1 = (uint64_t)l.me + 1;
    next = own & SYMH_TL_LOCK_NEXT;
    if (next == 0) {
        /* Nobody queued behind: free the lock, unless a PE swapped itself in meanwhile; then
         * wait for it to write its number into NEXT. */
        tail = symh_tl_lock_swap_tail(&l, me1, 0);
        if (tail == UINT64_MAX)
            return;
        if (tail == me1) {
            (void)symh_tl_lock_amo(&l, SYMH_TL_AMO_AND, ~SYMH_TL_LOCK_HELD, NULL, NULL, l.me);
            return;
        }
        next =
            symh_tl_lock_wait(&l, SYMH_TL_LOCK_NEXT, 1, "the next PE to queue") & SYMH_TL_LOCK_NEXT;
    }
    /* This node is clean again before the next PE can queue behind this one. */
    if (symh_tl_lock_amo(&l, SYMH_TL_AMO_AND, ~(SYMH_TL_LOCK_NEXT | SYMH_TL_LOCK_HELD), NULL, NULL,
                         l.me) != SYMH_OK)
        return;
    (void)symh_tl_lock_amo(&l, SYMH_TL_AMO_AND, ~SYMH_TL_LOCK_WAIT, NULL, NULL, (int)next - 1);
}

int symh_test_lock(long *lock)
{
    uint64_t me1, tail;
    symh_tl_lock_t l;

    if (!symh_tl_lock_open(&l, __func__, lock))
        return 1;
    if (symh_tl_lock_mine(&l) & SYMH_TL_LOCK_HELD) {
        symh_status_set(SYMH_OK);
        return 1;
    }
    /* Only a free lock is taken: the tail goes from 0 to this PE, or nothing changes. */
    me1 = (uint64_t)l.me + 1;
    tail = symh_tl_lock_swap_tail(&l, 0, me1);
    if (tail == UINT64_MAX)
        return 1;
    if (tail != 0) {
        symh_status_set(SYMH_OK);
        return 1;
    }
    if (symh_tl_lock_amo(&l, SYMH_TL_AMO_OR, SYMH_TL_LOCK_HELD, NULL, NULL, l.me) != SYMH_OK)
        return 1;
    return 0;
}
