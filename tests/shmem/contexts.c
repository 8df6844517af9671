/* Communication contexts (OpenSHMEM 1.5 section 9.5): shmem_ctx_create with each option,
 * shmem_ctx_destroy, the context forms of RMA, AMOs, fence and quiet, the C11 generic forms with
 * a context first; and (1.5) shmem_team_create_ctx, whose PE numbers are the team's, and
 * shmem_ctx_get_team. */
#include "conf.h"

#include <string.h>

static long ring[16];
static long flag;
static long counter;
static unsigned long bits;

/* RMA and AMOs through ctx to the right neighbour (world numbering), checked by the neighbour
 * after shmem_ctx_quiet and a barrier. With nostore set, only gets and fetches run. */
static void rma_amo(shmem_ctx_t ctx, int nostore)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *h = shmem_malloc(16 * sizeof(long));
    CHECK(h != NULL);
    for (int i = 0; i < 16; i++)
        h[i] = 10000L * me + i;
    counter = 0;
    bits = 0;
    shmem_barrier_all();

    long got[16];
    shmem_ctx_long_get(ctx, got, h, 16, right);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(got[i], 10000L * right + i);
    CHECK_EQ(shmem_ctx_long_g(ctx, &h[7], left), 10000L * left + 7);
    if (!nostore) { /* a NOSTORE context need not support quiet */
        memset(got, 0, sizeof got);
        shmem_ctx_long_get_nbi(ctx, got, h, 8, right);
        shmem_ctx_quiet(ctx);
        CHECK_EQ(got[7], 10000L * right + 7);
    }
    shmem_ctx_long_iget(ctx, got, h, 1, 2, 8, left);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(got[i], 10000L * left + 2 * i);
    memset(got, 0, sizeof got);
    shmem_ctx_getmem(ctx, got, &h[3], 3 * sizeof(long), right);
    CHECK_EQ(got[2], 10000L * right + 5);
    CHECK_EQ(shmem_ctx_long_atomic_fetch(ctx, &h[0], right), 10000L * right);
    shmem_barrier_all();
    if (nostore) {
        shmem_free(h);
        return;
    }

    /* Puts to the right neighbour. */
    long src[16];
    for (int i = 0; i < 16; i++)
        src[i] = -(100L * me + i);
    shmem_ctx_long_put(ctx, ring, src, 16, right);
    shmem_ctx_long_p(ctx, &h[0], 77 + me, right);
    shmem_ctx_long_put_nbi(ctx, &h[1], &src[1], 4, right);
    shmem_ctx_long_iput(ctx, &h[8], src, 2, 1, 4, right); /* h[8,10,12,14] = src[0..3] */
    shmem_ctx_putmem(ctx, &h[5], &src[5], 2 * sizeof(long), right);
    /* AMOs on the right neighbour's globals */
    shmem_ctx_long_atomic_add(ctx, &counter, 5, right);
    shmem_ctx_long_atomic_inc(ctx, &counter, right);
    CHECK(shmem_ctx_long_atomic_fetch_add(ctx, &counter, 10, right) >= 0);
    (void)shmem_ctx_long_atomic_fetch_inc(ctx, &counter, right);
    if (CONF_HAVE_15) { /* Open MPI 4.1's OSHMEM gets the ulong bitwise AMOs wrong (atomics.c) */
        shmem_ctx_ulong_atomic_or(ctx, &bits, 1UL << 3, right);
        (void)shmem_ctx_ulong_atomic_fetch_xor(ctx, &bits, 1UL << 4, right);
    } else {
        bits = (1UL << 3) | (1UL << 4);
    }
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < 16; i++)
        CHECK_EQ(ring[i], -(100L * left + i));
    CHECK_EQ(h[0], 77 + left);
    for (int i = 1; i < 5; i++)
        CHECK_EQ(h[i], -(100L * left + i));
    CHECK_EQ(h[5], -(100L * left + 5));
    CHECK_EQ(h[6], -(100L * left + 6));
    CHECK_EQ(h[7], 10000L * me + 7);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(h[8 + 2 * i], -(100L * left + i));
        CHECK_EQ(h[9 + 2 * i], 10000L * me + 9 + 2 * i);
    }
    CHECK_EQ(counter, 17);
    CHECK_EQ(bits, (1UL << 3) | (1UL << 4));
    shmem_barrier_all();

    /* compare_swap, swap, set on the left neighbour's counter (one writer each) */
    CHECK_EQ(shmem_ctx_long_atomic_compare_swap(ctx, &counter, 17, 40, right), 17);
    CHECK_EQ(shmem_ctx_long_atomic_compare_swap(ctx, &counter, 17, 50, right), 40);
    CHECK_EQ(shmem_ctx_long_atomic_swap(ctx, &counter, 41, right), 40);
    shmem_ctx_long_atomic_set(ctx, &flag, 3, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK_EQ(counter, 41);
    CHECK_EQ(flag, 3);
    flag = 0;
    shmem_barrier_all();

    /* Fence: data then flag through the same context; the flag's reader sees the data. */
    for (int round = 1; round <= 20; round++) {
        for (int i = 0; i < 16; i++)
            src[i] = 1000L * round + i;
        shmem_ctx_long_put(ctx, ring, src, 16, right);
        shmem_ctx_fence(ctx);
        shmem_ctx_long_atomic_set(ctx, &flag, round, right);
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, round);
        for (int i = 0; i < 16; i++)
            CHECK_EQ(ring[i], 1000L * round + i);
        shmem_barrier_all();
    }
    flag = 0;
    shmem_barrier_all();
    shmem_free(h);
}

int main(void)
{
    conf_program = "contexts";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    /* The default context works everywhere a context is taken. */
    rma_amo(SHMEM_CTX_DEFAULT, 0);

    /* Each option, and a combination; creation is local and may be repeated. */
    /* Open MPI 4.1's OSHMEM corrupts its malloc heap ("free(): invalid next size" at exit, 2 PEs
     * and more) once a SHMEM_CTX_NOSTORE context follows contexts made with the other options:
     * the NOSTORE one runs where the implementation says 1.5. */
    static const long options[] = {
        0,
        SHMEM_CTX_SERIALIZED,
        SHMEM_CTX_PRIVATE,
        SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE,
#if CONF_HAVE_15
        SHMEM_CTX_NOSTORE
#endif
    };
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
        shmem_ctx_t ctx;
        CHECK_EQ(shmem_ctx_create(options[k], &ctx), 0);
#if CONF_HAVE_15 /* SHMEM_CTX_INVALID is new in 1.5 */
        CHECK(ctx != SHMEM_CTX_INVALID);
#endif
        rma_amo(ctx, (options[k] & SHMEM_CTX_NOSTORE) != 0);
        shmem_ctx_destroy(ctx);
    }

    /* Several live contexts at once, destroyed out of order; each one's quiet completes its own
     * puts. */
    shmem_ctx_t many[8];
    for (int k = 0; k < 8; k++)
        CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &many[k]), 0);
    for (int k = 0; k < 8; k++) {
        shmem_ctx_long_p(many[k], &ring[k], 500 + 10 * me + k, right);
        shmem_ctx_quiet(many[k]);
    }
    shmem_barrier_all();
    for (int k = 0; k < 8; k++)
        CHECK_EQ(ring[k], 500 + 10 * left + k);
    for (int k = 7; k >= 0; k -= 2)
        shmem_ctx_destroy(many[k]);
    for (int k = 0; k < 8; k += 2)
        shmem_ctx_destroy(many[k]);
    shmem_barrier_all();

#if CONF_HAVE_15
    /* The C11 generic forms with a context first (1.5 lists them; Open MPI 4.1's OSHMEM has
     * only the plain generics). */
    shmem_ctx_t g;
    CHECK_EQ(shmem_ctx_create(0, &g), 0);
    long vals[4] = { 1 + me, 2 + me, 3 + me, 4 + me };
    counter = 0;
    shmem_barrier_all();
    shmem_put(g, ring, vals, 4, right);
    shmem_p(g, &ring[4], 9L + me, right);
    shmem_atomic_add(g, &counter, 2L, right);
    shmem_atomic_inc(g, &counter, right);
    CHECK(shmem_atomic_fetch_add(g, &counter, 1L, right) >= 0);
    shmem_ctx_quiet(g);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        CHECK_EQ(ring[i], i + 1 + left);
    CHECK_EQ(ring[4], 9 + left);
    CHECK_EQ(shmem_g(g, &ring[4], right), 9 + me);
    CHECK_EQ(shmem_atomic_fetch(g, &counter, right), 4);
    long back[4] = { 0 };
    shmem_get(g, back, ring, 4, right);
    CHECK_EQ(back[3], 4 + me);
    shmem_barrier_all();
    CHECK_EQ(shmem_atomic_compare_swap(g, &counter, 4L, 6L, me), 4);
    shmem_barrier_all();
    shmem_ctx_destroy(g);

    /* shmem_ctx_get_team: the world for the default context and for shmem_ctx_create's. */
    shmem_team_t t = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t), 0);
    CHECK(t == SHMEM_TEAM_WORLD);
    shmem_ctx_t w;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_SERIALIZED, &w), 0);
    t = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_ctx_get_team(w, &t), 0);
    CHECK(t == SHMEM_TEAM_WORLD);
    shmem_ctx_destroy(w);
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);

    /* shmem_team_create_ctx: PE numbers in the context's operations are the team's. The team:
     * the odd world PEs (stride 2 from 1), or at one PE the world itself. */
    shmem_team_t odds = SHMEM_TEAM_INVALID;
    int nodds = npes / 2;
    if (npes > 1)
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, nodds, NULL, 0, &odds), 0);
    else {
        odds = SHMEM_TEAM_WORLD;
        nodds = 1;
    }
    shmem_ctx_t tc = SHMEM_CTX_INVALID;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &tc) != 0);
    CHECK(tc == SHMEM_CTX_INVALID);
    if (odds != SHMEM_TEAM_INVALID) {
        int tme = shmem_team_my_pe(odds);
        int tright = (tme + 1) % nodds, tleft = (tme + nodds - 1) % nodds;
        CHECK_EQ(shmem_team_create_ctx(odds, SHMEM_CTX_PRIVATE, &tc), 0);
        CHECK(tc != SHMEM_CTX_INVALID);
        t = SHMEM_TEAM_INVALID;
        CHECK_EQ(shmem_ctx_get_team(tc, &t), 0);
        CHECK(t == odds);
        /* a put and an AMO to team PE tright land on world PE translate(tright) */
        shmem_ctx_long_p(tc, &ring[8], 3000 + me, tright);
        shmem_ctx_long_atomic_add(tc, &counter, 100, tright);
        CHECK_EQ(shmem_ctx_long_g(tc, &ring[9], tright), 20009); /* the last fence round */
        shmem_ctx_quiet(tc);
        CHECK_EQ(shmem_team_sync(odds), 0);
        CHECK_EQ(ring[8], 3000 + shmem_team_translate_pe(odds, tleft, SHMEM_TEAM_WORLD));
        CHECK_EQ(shmem_ctx_long_atomic_fetch(tc, &counter, tme), 106);
        CHECK_EQ(shmem_team_sync(odds), 0);
        shmem_ctx_destroy(tc);
    } else {
        CHECK_EQ(shmem_team_my_pe(odds), -1);
    }
    shmem_barrier_all();
    if (npes > 1 && odds != SHMEM_TEAM_INVALID)
        shmem_team_destroy(odds);
#endif
    conf_done();
    return 0;
}
