/* Distributed locking (OpenSHMEM 1.5 section 9.11): shmem_set_lock, shmem_clear_lock and
 * shmem_test_lock on a lock in the symmetric heap and on a global lock, contended by every PE
 * guarding a plain (non-atomic) read-modify-write of a counter on one PE: no increment is lost,
 * since shmem_clear_lock completes the critical section's puts before it releases the lock. */
#include "conf.h"

#define ROUNDS 200

static long global_lock;
static long global_counter;

/* ROUNDS critical sections per PE: read the counter on PE owner, write it back plus one. */
static void contend(long *lock, long *counter, int owner)
{
    for (int i = 0; i < ROUNDS; i++) {
        shmem_set_lock(lock);
        long c = shmem_long_g(counter, owner);
        shmem_long_p(counter, c + 1, owner);
        shmem_clear_lock(lock);
    }
}

/* test_lock: 0 when it took the lock, 1 (and the lock untouched) when another PE holds it. */
static void test_lock_semantics(long *lock, long *counter, int me, int npes)
{
    int holder = npes - 1;
    *counter = 0;
    shmem_barrier_all();
    if (me == holder)
        CHECK_EQ(shmem_test_lock(lock), 0);
    shmem_barrier_all();
    if (me != holder)
        CHECK_EQ(shmem_test_lock(lock), 1);
    shmem_barrier_all();
    if (me == holder)
        shmem_clear_lock(lock);
        /* now every PE polls until it holds the lock, once, and counts itself on PE 0. Open MPI
         * 4.1's OSHMEM hangs in this loop at 2 PEs and more (two PEs polling shmem_test_lock while
         * the holder clears it): it takes the lock with shmem_set_lock there. */
#if CONF_HAVE_15
    while (shmem_test_lock(lock) != 0) {
    }
#else
    shmem_set_lock(lock);
#endif
    long c = shmem_long_g(counter, 0);
    shmem_long_p(counter, c + 1, 0);
    shmem_clear_lock(lock);
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ(*counter, npes);
    shmem_barrier_all();
}

int main(void)
{
    conf_program = "locks";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    /* A lock on the heap (zeroed, as a lock must start), the counter on the last PE. */
    long *heap_lock = shmem_calloc(1, sizeof(long));
    long *heap_counter = shmem_calloc(1, sizeof(long));
    CHECK(heap_lock != NULL && heap_counter != NULL);
    shmem_barrier_all();
    contend(heap_lock, heap_counter, npes - 1);
    shmem_barrier_all();
    if (me == npes - 1)
        CHECK_EQ(*heap_counter, (long)ROUNDS * npes);

    /* A global lock, the global counter on PE 0; the heap lock at the same time guarding the
     * heap counter on PE 0 (two locks held in turn by one PE). */
    *heap_counter = 0;
    shmem_barrier_all();
    for (int i = 0; i < ROUNDS; i++) {
        shmem_set_lock(&global_lock);
        long c = shmem_long_g(&global_counter, 0);
        shmem_long_p(&global_counter, c + 2, 0);
        shmem_set_lock(heap_lock);
        long h = shmem_long_g(heap_counter, 0);
        shmem_long_p(heap_counter, h + 1, 0);
        shmem_clear_lock(heap_lock);
        shmem_clear_lock(&global_lock);
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(global_counter, 2L * ROUNDS * npes);
        CHECK_EQ(*heap_counter, (long)ROUNDS * npes);
    }
    shmem_barrier_all();

    /* The counter guarded on each PE in turn: the lock is one object, whichever PE's data it
     * guards. */
    global_counter = 0;
    shmem_barrier_all();
    for (int owner = 0; owner < npes; owner++)
        contend(&global_lock, &global_counter, owner);
    shmem_barrier_all();
    CHECK_EQ(global_counter, (long)ROUNDS * npes);

    test_lock_semantics(heap_lock, heap_counter, me, npes);
    test_lock_semantics(&global_lock, &global_counter, me, npes);

    shmem_barrier_all();
    shmem_free(heap_counter);
    shmem_free(heap_lock);
    conf_done();
    return 0;
}
