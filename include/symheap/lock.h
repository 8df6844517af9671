/* symheap public header: distributed locks (OpenSHMEM 1.5 "Distributed Locking Routines" under
 * the symh_ prefix; docs/locks.md). A lock is a symmetric long (a heap word or a global),
 * zero on every PE before first use, that every PE sets and clears through the same address.
 * Waiting PEs queue in arrival order (an MCS queue through atomics, on every transport), so a
 * contended lock is granted first come, first served. */
#ifndef SYMHEAP_LOCK_H
#define SYMHEAP_LOCK_H

#include <symheap/defs.h>

SYMH_BEGIN_C_DECLS

/* The lock word's type: OpenSHMEM's routines take `long *`. */
typedef long symh_lock_t;

/* Waits until this PE holds the lock. Setting a lock this PE already holds logs one line and
 * returns (it would otherwise wait forever). */
SYMH_API void symh_set_lock(long *lock);
/* Completes this PE's puts and atomics (symh_quiet), then hands the lock to the next PE in the
 * queue, or frees it. Clearing a lock this PE does not hold logs one line and changes nothing. */
SYMH_API void symh_clear_lock(long *lock);
/* Takes the lock if no PE holds it or waits for it: 0 when this PE now holds it, 1 when it was
 * held (by this PE too) or wanted, and on misuse (logged). Never waits. */
SYMH_API int symh_test_lock(long *lock);

SYMH_END_C_DECLS

#endif /* SYMHEAP_LOCK_H */
