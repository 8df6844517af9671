/* The OpenSHMEM profiling interface (docs/openshmem.md "Profiling"): this program is linked with
 * a profiling library (profile_wrap.c) that defines shmem_malloc, shmem_putmem,
 * shmem_int_atomic_fetch_add, shmem_barrier_all, shmem_long_sum_reduce and shmem_pcontrol, counts
 * them and forwards to pshmem_. Every call below, through the typed names, the C11 generic names
 * and the deprecated ones that OpenSHMEM defines in terms of them, must reach the library's
 * routine once and give its usual result; a direct pshmem_ call must bypass the counter. */
#include "conf.h"

#include <string.h>

#include "profile_wrap.h"

int main(void)
{
    long want[PROFILE_COUNT] = { 0 };
    int me, npes, next, i;
    long *box, mine, sum;
    int *counter, old;

    conf_program = "profile";
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    next = (me + 1) % npes;

    box = shmem_malloc(2 * sizeof(long));
    counter = shmem_malloc(sizeof(int));
    want[PROFILE_MALLOC] += 2;
    CHECK(box != NULL && counter != NULL);
    *counter = 0;
    shmem_barrier_all();
    want[PROFILE_BARRIER_ALL]++;

    /* putmem: ours into the next PE's box[0]. */
    mine = 100 + me;
    shmem_putmem(&box[0], &mine, sizeof mine, next);
    want[PROFILE_PUTMEM]++;
    shmem_quiet();
    /* A direct pshmem_ call is not counted. */
    pshmem_putmem(&box[1], &mine, sizeof mine, next);
    shmem_barrier_all();
    want[PROFILE_BARRIER_ALL]++;
    CHECK_EQ(box[0], 100 + (me + npes - 1) % npes);
    CHECK_EQ(box[1], 100 + (me + npes - 1) % npes);

    /* fetch-add on PE 0's counter, through the typed and the generic name. */
    old = shmem_int_atomic_fetch_add(counter, 1, 0);
    CHECK(old >= 0 && old < 2 * npes);
    old = shmem_atomic_fetch_add(counter, 1, 0);
    CHECK(old >= 0 && old < 2 * npes);
    want[PROFILE_INT_FETCH_ADD] += 2;
    shmem_barrier_all();
    want[PROFILE_BARRIER_ALL]++;
    if (me == 0)
        CHECK_EQ(*counter, 2 * npes);

    /* A typed reduction, then its generic name. */
    box[0] = me + 1;
    shmem_barrier_all();
    want[PROFILE_BARRIER_ALL]++;
    CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &box[1], &box[0], 1), 0);
    sum = box[1];
    CHECK_EQ(sum, (long)npes * (npes + 1) / 2);
    CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, &box[1], &box[0], 1), 0);
    CHECK_EQ(box[1], sum);
    want[PROFILE_LONG_SUM_REDUCE] += 2;

    shmem_pcontrol(1);
    shmem_pcontrol(0, "ignored");
    want[PROFILE_PCONTROL] += 2;

    /* The library never calls the profiled names itself: the counts are the program's calls. */
    for (i = 0; i < PROFILE_COUNT; i++)
        CHECK_EQ(profile_count(i), want[i]);

    shmem_free(counter);
    shmem_free(box);
    shmem_finalize();
    if (me == 0)
        printf("profile: every profiled routine counted once per call, results correct\n");
    return 0;
}
