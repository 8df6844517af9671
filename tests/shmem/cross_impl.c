/* One plain OpenSHMEM program, built and run under symheap and under another implementation
 * (tests/shmem/cross_impl.sh: Open MPI's OSHMEM), whose PE 0 prints the same lines under both:
 * globals and the heap as targets of puts, gets and AMOs, a context, and (where the
 * implementation says 1.5) teams, which print nothing, so the output stays comparable. */
#include "conf.h"

#define LEN 8

static long ring[LEN];
static long counter;
static int ctx_target[LEN];

int main(void)
{
    conf_program = "cross_impl";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes;
    if (me == 0)
        printf("cross_impl: %d PEs\n", npes);

    /* A ring of puts into a global array. */
    long src[LEN];
    for (int i = 0; i < LEN; i++)
        src[i] = me * 100 + i * i;
    shmem_long_put(ring, src, LEN, right);
    shmem_barrier_all();
    if (me == 0) {
        printf("ring:");
        for (int i = 0; i < LEN; i++)
            printf(" %ld", ring[i]);
        printf("\n");
    }

    /* The heap: each PE fills its block, PE 0 gets every block and sums it. */
    double *block = shmem_malloc(LEN * sizeof(double));
    CHECK(block != NULL);
    for (int i = 0; i < LEN; i++)
        block[i] = 0.25 * (me + 1) * (i + 1);
    shmem_barrier_all();
    if (me == 0) {
        for (int p = 0; p < npes; p++) {
            double got[LEN], sum = 0;
            shmem_double_get(got, block, LEN, p);
            for (int i = 0; i < LEN; i++)
                sum += got[i];
            printf("heap block of PE %d: sum %.2f\n", p, sum);
        }
    }

    /* AMOs on a global counter on PE 0. */
    for (int i = 0; i < 10; i++)
        shmem_long_atomic_fetch_add(&counter, me + 1, 0);
    shmem_long_atomic_inc(&counter, 0);
    shmem_barrier_all();
    if (me == 0)
        printf("counter: %ld\n", counter);

    /* A context: puts on it, completed by its quiet, then seen after a barrier. */
    shmem_ctx_t ctx;
    int have_ctx = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0;
    CHECK(have_ctx);
    int vals[LEN];
    for (int i = 0; i < LEN; i++)
        vals[i] = 7 * me + i;
    shmem_ctx_int_put(ctx, ctx_target, vals, LEN, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    if (me == 0) {
        printf("context put:");
        for (int i = 0; i < LEN; i++)
            printf(" %d", ctx_target[i]);
        printf("\n");
    }
    shmem_ctx_destroy(ctx);

#if CONF_HAVE_15
    /* Teams (1.5): the even PEs in a strided team, a sum reduction over it and over the world
     * team; checked, not printed (Open MPI 4.1's OSHMEM has no teams). */
    shmem_team_t evens;
    int nevens = (npes + 1) / 2;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, nevens, NULL, 0, &evens), 0);
    long *in = shmem_malloc(sizeof(long)), *out = shmem_malloc(sizeof(long)); /* collective */
    if (me % 2 == 0) {
        CHECK_EQ(shmem_team_my_pe(evens), me / 2);
        CHECK_EQ(shmem_team_n_pes(evens), nevens);
        *in = me;
        CHECK_EQ(shmem_long_sum_reduce(evens, out, in, 1), 0);
        CHECK_EQ(*out, (long)nevens * (nevens - 1));
        shmem_team_sync(evens);
        shmem_team_destroy(evens);
    } else {
        CHECK(evens == SHMEM_TEAM_INVALID);
    }
    shmem_free(out);
    shmem_free(in);
    long *all = shmem_malloc(sizeof(long)), *sum = shmem_malloc(sizeof(long));
    *all = me + 1;
    CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sum, all, 1), 0);
    CHECK_EQ(*sum, (long)npes * (npes + 1) / 2);
    shmem_free(sum);
    shmem_free(all);
#endif

    shmem_barrier_all();
    shmem_free(block);
    conf_done();
    return 0;
}
