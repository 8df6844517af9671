/* What programs from other suites and bindings rely on (docs/openshmem-conformance.md): the older
 * header path <mpp/shmem.h>; the C11 generics over every type of the specification's tables,
 * typedefs included (int32_t and int64_t for the bitwise AMOs, int8_t .. int64_t for the bitwise
 * reductions); shmem_test_any and shmem_wait_until_any returning each ready index in turn; the
 * deprecated broadcast with two pSync arrays alternated and no barrier between the calls;
 * shmem_malloc_with_hints with a hint bit the specification does not define; and the routines
 * whose result the specification defines for SHMEM_TEAM_INVALID and SHMEM_CTX_INVALID, which
 * must return it without a word on stderr. A hang (the broadcast's failure) ends the program
 * through alarm(). */
#define _POSIX_C_SOURCE 200809L

#include <mpp/shmem.h>
#include <mpp/shmemx.h>

#include "conf.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N_IVARS 8
#define N_BCAST 64

static int npes, me;

/* ---- the generics with the typedef types ------------------------------------------------- */

#if CONF_HAVE_15
static void generics(void)
{
    int32_t *w32 = shmem_calloc(1, sizeof(int32_t));
    int64_t *w64 = shmem_calloc(1, sizeof(int64_t));
    int8_t *s8 = shmem_malloc(4 * sizeof(int8_t)), *d8 = shmem_malloc(4 * sizeof(int8_t));
    int16_t *s16 = shmem_malloc(4 * sizeof(int16_t)), *d16 = shmem_malloc(4 * sizeof(int16_t));
    int32_t *s32 = shmem_malloc(4 * sizeof(int32_t)), *d32 = shmem_malloc(4 * sizeof(int32_t));
    int64_t *s64 = shmem_malloc(4 * sizeof(int64_t)), *d64 = shmem_malloc(4 * sizeof(int64_t));
    int root = npes - 1;
    int32_t f32;
    int64_t f64;

    /* Every PE sets its own bit in the last PE's words with the generic bitwise AMOs. */
    *w32 = 0;
    *w64 = 0;
    shmem_barrier_all();
    shmem_atomic_or(w32, (int32_t)1 << (me % 31), root);
    f64 = shmem_atomic_fetch_or(w64, (int64_t)1 << (me % 63), root);
    (void)f64;
    shmem_barrier_all();
    if (me == root) {
        int32_t want32 = 0;
        int64_t want64 = 0;
        for (int p = 0; p < npes; p++) {
            want32 |= (int32_t)1 << (p % 31);
            want64 |= (int64_t)1 << (p % 63);
        }
        CHECK_EQ(*w32, want32);
        CHECK_EQ(*w64, want64);
        /* and the others, on this PE's own words */
        f32 = shmem_atomic_fetch_and(w32, (int32_t)3, me);
        CHECK_EQ(f32, want32);
        shmem_atomic_xor(w32, (int32_t)1, me);
        CHECK_EQ(*w32, (want32 & 3) ^ 1);
        f64 = shmem_atomic_fetch_xor(w64, (int64_t)-1, me);
        CHECK_EQ(f64, want64);
        shmem_atomic_and(w64, (int64_t)0, me);
        CHECK_EQ(*w64, 0);
    }

    /* The generic bitwise reductions over int8_t .. int64_t: element k of PE p is p + k + 1. */
    for (int k = 0; k < 4; k++) {
        s8[k] = (int8_t)(me + k + 1);
        s16[k] = (int16_t)(me + k + 1);
        s32[k] = me + k + 1;
        s64[k] = me + k + 1;
    }
    shmem_barrier_all();
    CHECK_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, d8, s8, 4), 0);
    CHECK_EQ(shmem_and_reduce(SHMEM_TEAM_WORLD, d16, s16, 4), 0);
    CHECK_EQ(shmem_xor_reduce(SHMEM_TEAM_WORLD, d32, s32, 4), 0);
    CHECK_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, d64, s64, 4), 0);
    for (int k = 0; k < 4; k++) {
        long long o = 0, a = -1, x = 0;
        for (int p = 0; p < npes; p++) {
            o |= p + k + 1;
            a &= p + k + 1;
            x ^= p + k + 1;
        }
        CHECK_EQ(d8[k], (int8_t)o);
        CHECK_EQ(d16[k], (int16_t)a);
        CHECK_EQ(d32[k], (int32_t)x);
        CHECK_EQ(d64[k], (int64_t)o);
    }
    shmem_barrier_all();
    shmem_free(d64);
    shmem_free(s64);
    shmem_free(d32);
    shmem_free(s32);
    shmem_free(d16);
    shmem_free(s16);
    shmem_free(d8);
    shmem_free(s8);
    shmem_free(w64);
    shmem_free(w32);
}

/* ---- test_any and wait_until_any: every ready index in turn ------------------------------- */

static void any_in_turn(void)
{
    int *ivars = shmem_calloc(N_IVARS, sizeof(int));
    int seen[N_IVARS] = { 0 };
    int distinct = 0;

    /* All ready at once (this PE's own array: the routines read local memory). Without a status
     * mask, a program that counts the distinct indices it is given must get all of them. */
    for (int i = 0; i < N_IVARS; i++)
        ivars[i] = 1;
    for (int call = 0; call < 4 * N_IVARS && distinct < N_IVARS; call++) {
        size_t i = shmem_int_test_any(ivars, N_IVARS, NULL, SHMEM_CMP_EQ, 1);
        CHECK(i < N_IVARS);
        if (!seen[i]++)
            distinct++;
    }
    CHECK_EQ(distinct, N_IVARS);
    memset(seen, 0, sizeof(seen));
    distinct = 0;
    for (int call = 0; call < 4 * N_IVARS && distinct < N_IVARS; call++) {
        size_t i = shmem_int_wait_until_any(ivars, N_IVARS, NULL, SHMEM_CMP_NE, 0);
        CHECK(i < N_IVARS);
        if (!seen[i]++)
            distinct++;
    }
    CHECK_EQ(distinct, N_IVARS);
    /* Two ready out of eight: the answers alternate between them, through the generic. */
    for (int i = 0; i < N_IVARS; i++)
        ivars[i] = i == 2 || i == 6;
    size_t a = shmem_test_any(ivars, N_IVARS, NULL, SHMEM_CMP_EQ, 1);
    size_t b = shmem_test_any(ivars, N_IVARS, NULL, SHMEM_CMP_EQ, 1);
    CHECK((a == 2 && b == 6) || (a == 6 && b == 2));
    /* The specification's pattern with a status mask still sees each exactly once, the ready
     * flags coming from the left neighbour's puts. */
    shmem_barrier_all();
    for (int i = 0; i < N_IVARS; i++)
        ivars[i] = 0;
    shmem_barrier_all();
    for (int i = 0; i < N_IVARS; i++)
        shmem_int_atomic_set(&ivars[i], 1, (me + 1) % npes);
    int status[N_IVARS] = { 0 };
    for (int done = 0; done < N_IVARS;) {
        size_t i = shmem_int_test_any(ivars, N_IVARS, status, SHMEM_CMP_EQ, 1);
        if (i == SIZE_MAX)
            continue;
        CHECK(i < N_IVARS && status[i] == 0);
        status[i] = 1;
        done++;
    }
    CHECK_EQ(shmem_int_test_any(ivars, N_IVARS, status, SHMEM_CMP_EQ, 1), SIZE_MAX);
    shmem_barrier_all();
    shmem_free(ivars);
}

/* ---- handles the specification defines results for --------------------------------------- */

/* Runs `call` with stderr sent to a temporary file and says how many bytes it wrote there. */
static long quiet_bytes(void (*call)(void))
{
    FILE *tmp = tmpfile();
    int saved;
    long bytes;

    CHECK(tmp != NULL);
    fflush(stderr);
    saved = dup(2);
    CHECK(saved >= 0 && dup2(fileno(tmp), 2) == 2);
    call();
    fflush(stderr);
    CHECK(dup2(saved, 2) == 2);
    close(saved);
    fseek(tmp, 0, SEEK_END);
    bytes = ftell(tmp);
    fclose(tmp);
    return bytes;
}

static void invalid_handles_calls(void)
{
    shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD, t = SHMEM_TEAM_WORLD;
    shmem_team_config_t config = { 0 };
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;

    shmem_team_destroy(SHMEM_TEAM_INVALID);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &x, NULL, 0, &y) != 0);
    CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID);
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &config) != 0);
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0);
    CHECK(ctx == SHMEM_CTX_INVALID);
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
}

static void invalid_handles(void)
{
    CHECK_EQ(quiet_bytes(invalid_handles_calls), 0);
    shmem_barrier_all();
}

/* ---- malloc_with_hints with a bit of a later specification -------------------------------- */

static void unknown_hint(void)
{
    long hints = SHMEM_MALLOC_ATOMICS_REMOTE | (1L << 20);
    long *p = shmem_malloc_with_hints(4 * sizeof(long), hints);
    long mine = 100 + me;

    CHECK(p != NULL);
    shmem_long_put(&p[1], &mine, 1, (me + 1) % npes);
    shmem_barrier_all();
    CHECK_EQ(p[1], 100 + (me + npes - 1) % npes);
    shmem_barrier_all();
    shmem_free(p);
}
#endif

/* ---- the deprecated broadcast, two pSync arrays alternated --------------------------------- */

static long psync[2][SHMEM_BCAST_SYNC_SIZE];
static long bsrc[N_BCAST][4], bdst[N_BCAST][4];

static void alternating_broadcasts(void)
{
    int root = npes - 1;

    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        psync[0][i] = psync[1][i] = SHMEM_SYNC_VALUE;
    for (int k = 0; k < N_BCAST; k++)
        for (int j = 0; j < 4; j++) {
            bsrc[k][j] = 1000 + k;
            bdst[k][j] = -1;
        }
    shmem_barrier_all();
    /* Call k broadcasts bsrc[k] into bdst[k] on psync[k % 2], with no barrier between calls:
     * the specification's way to save the synchronization is to alternate two pSync arrays. */
    for (int k = 0; k < N_BCAST; k++)
        shmem_broadcast64(bdst[k], bsrc[k], 4, root, 0, 0, npes, psync[k % 2]);
    shmem_barrier_all();
    for (int k = 0; k < N_BCAST; k++)
        for (int j = 0; j < 4; j++)
            CHECK_EQ(bdst[k][j], me == root ? -1 : 1000 + k);
    shmem_barrier_all();
}

int main(void)
{
    conf_program = "interop";
    shmem_init();
    npes = shmem_n_pes();
    me = shmem_my_pe();
    alarm(60); /* a hang is a failure, not a CTest timeout */
#if CONF_HAVE_15
    generics();
    any_in_turn();
    invalid_handles();
    unknown_hint();
#endif
    alternating_broadcasts();
    conf_done();
    return 0;
}
