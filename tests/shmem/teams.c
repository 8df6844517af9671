/* Teams (OpenSHMEM 1.5 section 9.4): the predefined teams (SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED,
 * SHMEM_TEAM_INVALID), shmem_team_split_strided (including a split of a split),
 * shmem_team_split_2d (even and uneven rows), shmem_team_my_pe, shmem_team_n_pes,
 * shmem_team_translate_pe, shmem_team_get_config, shmem_team_sync, shmem_team_ptr and
 * shmem_team_destroy. Teams are new in 1.5: an implementation that says 1.4 skips them all. */
#include "conf.h"

#if CONF_HAVE_15

static long team_slots[64];
static long team_counter;

/* Membership of team t of n members whose team PE i is world PE world_of(i): the numbering,
 * the translations both ways, and a put-and-sync ring through team numbers. */
static void check_team(shmem_team_t t, int n, int my_team_pe, const int *world_of)
{
    int me = shmem_my_pe();
    CHECK_EQ(shmem_team_n_pes(t), n);
    CHECK_EQ(shmem_team_my_pe(t), my_team_pe);
    CHECK_EQ(world_of[my_team_pe], me);
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, t), my_team_pe);
    for (int i = 0; i < n; i++) {
        CHECK_EQ(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD), world_of[i]);
        CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, world_of[i], t), i);
    }
    CHECK_EQ(shmem_team_translate_pe(t, n, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ(shmem_team_translate_pe(t, -1, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ(shmem_team_translate_pe(t, my_team_pe, t), my_team_pe);

    /* Every member writes its team number into slot [its number] of every member; after a
     * quiet and a team sync every member sees all n. */
    CHECK_EQ(shmem_team_sync(t), 0);
    for (int i = 0; i < n; i++)
        shmem_long_p(&team_slots[my_team_pe], 1000 + my_team_pe, world_of[i]);
    shmem_quiet();
    CHECK_EQ(shmem_team_sync(t), 0);
    for (int i = 0; i < n; i++)
        CHECK_EQ(team_slots[i], 1000 + i);
    CHECK_EQ(shmem_team_sync(t), 0);
    for (int i = 0; i < n; i++)
        team_slots[i] = 0;

    /* An atomic count on the team's first member, made visible by quiet + team sync. */
    shmem_long_atomic_inc(&team_counter, world_of[0]);
    shmem_quiet();
    CHECK_EQ(shmem_team_sync(t), 0);
    if (my_team_pe == 0) {
        CHECK_EQ(team_counter, n);
        team_counter = 0;
    }
    CHECK_EQ(shmem_team_sync(t), 0);
}

int main(void)
{
    conf_program = "teams";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int world_of[64];
    CHECK(npes <= 64);

    /* The world team is every PE, numbered as shmem_my_pe; the invalid handle answers -1. */
    for (int i = 0; i < npes; i++)
        world_of[i] = i;
    check_team(SHMEM_TEAM_WORLD, npes, me, world_of);
    CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID), -1);
    shmem_team_config_t cfg;
    cfg.num_contexts = -1;
    CHECK_EQ(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
    CHECK(cfg.num_contexts >= 0);

    /* SHMEM_TEAM_SHARED: the calling PE is a member, and shmem_team_ptr gives a load/store
     * address of every member's object (each reads its owner's value). */
    long *heap = shmem_malloc(8 * sizeof(long));
    CHECK(heap != NULL);
    for (int i = 0; i < 8; i++)
        heap[i] = 100L * me + i;
    shmem_barrier_all();
    int nshared = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    int my_shared = shmem_team_my_pe(SHMEM_TEAM_SHARED);
    CHECK(nshared >= 1 && nshared <= npes);
    CHECK(my_shared >= 0 && my_shared < nshared);
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_SHARED, my_shared, SHMEM_TEAM_WORLD), me);
    for (int i = 0; i < nshared; i++) {
        int wpe = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
        CHECK(wpe >= 0 && wpe < npes);
        long *p = shmem_team_ptr(SHMEM_TEAM_SHARED, heap, i);
        CHECK(p != NULL);
        CHECK_EQ(((volatile long *)p)[3], 100L * wpe + 3);
        CHECK(shmem_ptr(heap, wpe) != NULL);
    }
    CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, heap, my_shared) == heap);
    /* shmem_team_ptr on the world team takes world numbers. */
    for (int pe = 0; pe < npes; pe++) {
        long *p = shmem_team_ptr(SHMEM_TEAM_WORLD, &heap[5], pe);
        if (p != NULL)
            CHECK_EQ(*(volatile long *)p, 100L * pe + 5);
    }
    shmem_barrier_all();

    /* split_strided: the even world PEs, asking for 2 contexts. */
    shmem_team_t evens = SHMEM_TEAM_INVALID;
    shmem_team_config_t want = { .num_contexts = 2 };
    int nevens = (npes + 1) / 2;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, nevens, &want,
                                      SHMEM_TEAM_NUM_CONTEXTS, &evens),
             0);
    if (me % 2 == 0) {
        CHECK(evens != SHMEM_TEAM_INVALID);
        for (int i = 0; i < nevens; i++)
            world_of[i] = 2 * i;
        check_team(evens, nevens, me / 2, world_of);
        cfg.num_contexts = -1;
        CHECK_EQ(shmem_team_get_config(evens, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
        CHECK_EQ(cfg.num_contexts, 2);
        /* team_ptr on the evens team takes evens numbers */
        for (int i = 0; i < nevens; i++) {
            long *p = shmem_team_ptr(evens, &heap[1], i);
            if (p != NULL)
                CHECK_EQ(*(volatile long *)p, 100L * (2 * i) + 1);
        }
        /* a split of the split: its last member alone (translations through both levels) */
        shmem_team_t last = SHMEM_TEAM_INVALID;
        CHECK_EQ(shmem_team_split_strided(evens, nevens - 1, 1, 1, NULL, 0, &last), 0);
        if (me / 2 == nevens - 1) {
            CHECK(last != SHMEM_TEAM_INVALID);
            CHECK_EQ(shmem_team_n_pes(last), 1);
            CHECK_EQ(shmem_team_my_pe(last), 0);
            CHECK_EQ(shmem_team_translate_pe(last, 0, evens), nevens - 1);
            CHECK_EQ(shmem_team_translate_pe(last, 0, SHMEM_TEAM_WORLD), me);
            CHECK_EQ(shmem_team_sync(last), 0);
            shmem_team_destroy(last);
        } else {
            CHECK(last == SHMEM_TEAM_INVALID);
            CHECK_EQ(shmem_team_translate_pe(evens, me / 2, SHMEM_TEAM_WORLD), me);
        }
    } else {
        /* not a member: the invalid handle, and no number in the team */
        CHECK(evens == SHMEM_TEAM_INVALID);
        CHECK_EQ(shmem_team_my_pe(evens), -1);
    }
    /* From the world, odd PEs have no number in the evens team (as seen by its members). */
    if (me == 0 && npes > 1)
        CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, evens), -1);
    shmem_barrier_all();

    /* split_strided: the world in one team with stride 1 starting at the last PE's half. */
    shmem_team_t upper = SHMEM_TEAM_INVALID;
    int ustart = npes / 2, usize = npes - npes / 2;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, ustart, 1, usize, NULL, 0, &upper), 0);
    if (me >= ustart) {
        for (int i = 0; i < usize; i++)
            world_of[i] = ustart + i;
        check_team(upper, usize, me - ustart, world_of);
        if (me % 2 == 0 && evens != SHMEM_TEAM_INVALID) {
            /* translate between two split teams directly */
            CHECK_EQ(shmem_team_translate_pe(upper, me - ustart, evens), me / 2);
            CHECK_EQ(shmem_team_translate_pe(evens, me / 2, upper), me - ustart);
        }
    } else {
        CHECK(upper == SHMEM_TEAM_INVALID);
    }
    shmem_barrier_all();
    if (upper != SHMEM_TEAM_INVALID)
        shmem_team_destroy(upper);
    if (evens != SHMEM_TEAM_INVALID)
        shmem_team_destroy(evens);
    shmem_barrier_all();

    /* split_2d with rows of xrange consecutive PEs (the last row short when xrange does not
     * divide npes): the x-axis team is my row, the y-axis team my column. */
    for (int xrange = 1; xrange <= 3; xrange++) {
        if (xrange > npes)
            break;
        shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
        shmem_team_config_t xc = { .num_contexts = 1 }, yc = { .num_contexts = 0 };
        CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, &xc, SHMEM_TEAM_NUM_CONTEXTS, &xt,
                                     &yc, SHMEM_TEAM_NUM_CONTEXTS, &yt),
                 0);
        CHECK(xt != SHMEM_TEAM_INVALID);
        CHECK(yt != SHMEM_TEAM_INVALID);
        int row = me / xrange, col = me % xrange;
        int rowlen = npes - row * xrange < xrange ? npes - row * xrange : xrange;
        for (int i = 0; i < rowlen; i++)
            world_of[i] = row * xrange + i;
        check_team(xt, rowlen, col, world_of);
        shmem_barrier_all();
        int collen = 0;
        for (int r = 0; r * xrange + col < npes; r++)
            world_of[collen++] = r * xrange + col;
        check_team(yt, collen, row, world_of);
        cfg.num_contexts = -1;
        CHECK_EQ(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
        CHECK_EQ(cfg.num_contexts, 1);
        /* my row's first PE is in my column team (as its row number) only in column 0 */
        CHECK_EQ(shmem_team_translate_pe(xt, 0, yt), col == 0 ? row : -1);
        shmem_barrier_all();
        shmem_team_destroy(xt);
        shmem_team_destroy(yt);
        shmem_barrier_all();
    }

    /* Teams come and go: many create-destroy rounds (a leak of team resources would run out). */
    for (int round = 0; round < 40; round++) {
        shmem_team_t t = SHMEM_TEAM_INVALID;
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t), 0);
        CHECK_EQ(shmem_team_my_pe(t), me);
        shmem_team_destroy(t);
    }

    shmem_barrier_all();
    shmem_free(heap);
    conf_done();
    return 0;
}

#else

int main(void)
{
    conf_program = "teams";
    shmem_init();
    if (shmem_my_pe() == 0)
        printf("SKIP teams: teams are OpenSHMEM 1.5; this implementation says %d.%d\n",
               SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    shmem_finalize();
    return CONF_EXIT_NOT_APPLICABLE;
}

#endif
