/* core: the one spin-then-yield policy of symheap's wait loops, and the hang watch behind
 * SYMH_HANG_TIMEOUT / SYMH_HANG_ABORT (docs/collectives.md "A hang says where it is"). */
#ifndef SYMH_CORE_WAIT_H
#define SYMH_CORE_WAIT_H

#include <sched.h>
#include <stdint.h>

#include "core/core_util.h"

/* One wait in progress. The clock is read only once the wait yields, so a wait that ends while
 * spinning (the common case) costs no system call and no clock read. */
typedef struct {
    unsigned spins;      /* pauses so far */
    unsigned spin_limit; /* pauses before the first sched_yield */
    int expired;         /* the hang timeout passed (reported once per wait) */
    uint64_t since_ns;   /* symh_clock_now_ns() at the first yield; 0 before it */
} symh_wait_t;

/* SYMH_HANG_TIMEOUT in nanoseconds; 0: no hang watch. Set once at init. */
extern uint64_t symh_wait_timeout_ns;

static inline void symh_wait_start(symh_wait_t *w, unsigned spin_limit)
{
    w->spins = 0;
    w->spin_limit = spin_limit;
    w->expired = 0;
    w->since_ns = 0;
}

/* The slow part of symh_wait_step: reads the clock; 1 when the timeout has just passed. */
int symh_wait_check_clock(symh_wait_t *w);

/* One round of a wait loop whose condition is still false: pause while spinning, then yield the
 * core on every round (PEs that outnumber cores must let the PE they wait for run). Returns 1
 * exactly once per wait, when it has lasted SYMH_HANG_TIMEOUT: the caller then logs one line
 * saying where it is and calls symh_wait_hang_reported. */
static inline int symh_wait_step(symh_wait_t *w)
{
    if (w->spins < w->spin_limit) {
        ++w->spins;
        symh_cpu_relax();
        return 0;
    }
    sched_yield();
    if (symh_likely(symh_wait_timeout_ns == 0 || w->expired))
        return 0;
    return symh_wait_check_clock(w);
}

/* Seconds the wait has lasted so far (for the hang line). */
double symh_wait_seconds(const symh_wait_t *w);

/* Sets the hang watch from SYMH_HANG_TIMEOUT (seconds, 0 = off) and SYMH_HANG_ABORT; `exit_fn`
 * ends the whole job (symh_global_exit's mechanism, installed by the runtime). */
void symh_wait_configure(uint64_t timeout_s, int abort_job, void (*exit_fn)(int status));

/* Called after the hang line was logged: under SYMH_HANG_ABORT=1 ends the job with exit status
 * SYMH_WAIT_HANG_EXIT_STATUS, else returns and the caller keeps waiting. */
void symh_wait_hang_reported(void);

#define SYMH_WAIT_HANG_EXIT_STATUS 124 /* as timeout(1): "ran out of time" */

#endif /* SYMH_CORE_WAIT_H */
