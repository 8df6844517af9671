/* Point-to-point synchronization (OpenSHMEM 1.5 section 9.10): shmem_TYPENAME_wait_until and
 * shmem_TYPENAME_test for every comparison on several types, each wait woken by the left
 * neighbour's put or atomic; the 1.5 array forms (wait_until_all/any/some, test_all/any/some and
 * their _vector forms) with and without a status mask; the C11 type-generic forms. */
#include "conf.h"

#include <stdint.h>

static long global_flag;
static int global_ivars[64];

/* One variable per PE, written by the left neighbour: six rounds, one per comparison, each woken
 * by a new value (a barrier between rounds, so no value overtakes the wait it is meant for).
 * SET(dest, value, pe) is the write: a put, or an atomic set where the type has AMOs. */
#define SCALAR_WAITS(TYPENAME, TYPE, SET)                               \
    do {                                                                \
        TYPE *v = shmem_malloc(sizeof(TYPE));                           \
        *v = 0;                                                         \
        CHECK_EQ(shmem_##TYPENAME##_test(v, SHMEM_CMP_EQ, (TYPE)5), 0); \
        shmem_barrier_all();                                            \
        SET(TYPENAME, v, (TYPE)5, right);                               \
        shmem_##TYPENAME##_wait_until(v, SHMEM_CMP_EQ, (TYPE)5);        \
        CHECK(*v == (TYPE)5);                                           \
        /* every comparison on the value now there */                   \
        CHECK_EQ(shmem_##TYPENAME##_test(v, SHMEM_CMP_EQ, (TYPE)5), 1); \
        CHECK_EQ(shmem_##TYPENAME##_test(v, SHMEM_CMP_NE, (TYPE)5), 0); \
        CHECK_EQ(shmem_##TYPENAME##_test(v, SHMEM_CMP_NE, (TYPE)4), 1); \
        CHECK_EQ(shmem_##TYPENAME##_test(v, SHMEM_CMP_GT, (TYPE)4), 1); \
        CHECK_EQ(shmem_##TYPENAME##_test(v, SHMEM_CMP_GT, (TYPE)5), 0); \
        CHECK_EQ(shmem_##TYPENAME##_test(v, SHMEM_CMP_GE, (TYPE)5), 1); \
        CHECK_EQ(shmem_##TYPENAME##_test(v, SHMEM_CMP_GE, (TYPE)6), 0); \
        CHECK_EQ(shmem_##TYPENAME##_test(v, SHMEM_CMP_LT, (TYPE)6), 1); \
        CHECK_EQ(shmem_##TYPENAME##_test(v, SHMEM_CMP_LT, (TYPE)5), 0); \
        CHECK_EQ(shmem_##TYPENAME##_test(v, SHMEM_CMP_LE, (TYPE)5), 1); \
        CHECK_EQ(shmem_##TYPENAME##_test(v, SHMEM_CMP_LE, (TYPE)4), 0); \
        /* a wait already satisfied returns at once */                  \
        shmem_##TYPENAME##_wait_until(v, SHMEM_CMP_GE, (TYPE)5);        \
        shmem_barrier_all();                                            \
        SET(TYPENAME, v, (TYPE)6, right);                               \
        shmem_##TYPENAME##_wait_until(v, SHMEM_CMP_NE, (TYPE)5);        \
        CHECK(*v == (TYPE)6);                                           \
        shmem_barrier_all();                                            \
        SET(TYPENAME, v, (TYPE)9, right);                               \
        shmem_##TYPENAME##_wait_until(v, SHMEM_CMP_GT, (TYPE)8);        \
        CHECK(*v == (TYPE)9);                                           \
        shmem_barrier_all();                                            \
        SET(TYPENAME, v, (TYPE)12, right);                              \
        shmem_##TYPENAME##_wait_until(v, SHMEM_CMP_GE, (TYPE)12);       \
        CHECK(*v == (TYPE)12);                                          \
        shmem_barrier_all();                                            \
        SET(TYPENAME, v, (TYPE)3, right);                               \
        shmem_##TYPENAME##_wait_until(v, SHMEM_CMP_LT, (TYPE)12);       \
        CHECK(*v == (TYPE)3);                                           \
        shmem_barrier_all();                                            \
        SET(TYPENAME, v, (TYPE)1, right);                               \
        shmem_##TYPENAME##_wait_until(v, SHMEM_CMP_LE, (TYPE)2);        \
        CHECK(*v == (TYPE)1);                                           \
        shmem_barrier_all();                                            \
        /* shmem_test polled until the neighbour's write arrives */     \
        SET(TYPENAME, v, (TYPE)20, right);                              \
        while (!shmem_##TYPENAME##_test(v, SHMEM_CMP_EQ, (TYPE)20)) {   \
        }                                                               \
        CHECK(*v == (TYPE)20);                                          \
        shmem_barrier_all();                                            \
        shmem_free(v);                                                  \
    } while (0)

#define BY_PUT(TYPENAME, dest, value, pe) shmem_##TYPENAME##_p(dest, value, pe)
#define BY_AMO(TYPENAME, dest, value, pe) shmem_##TYPENAME##_atomic_set(dest, value, pe)

#if CONF_HAVE_15
/* The array forms on an array of npes variables, slot p written by PE p on every PE. RESET
 * zeroes the array between rounds, fenced by barriers on both sides. */
#define RESET(ivars)                      \
    do {                                  \
        shmem_barrier_all();              \
        for (int i_ = 0; i_ < npes; i_++) \
            (ivars)[i_] = 0;              \
        shmem_barrier_all();              \
    } while (0)

#define ARRAY_WAITS(TYPENAME, TYPE)                                                                \
    do {                                                                                           \
        TYPE *iv = shmem_calloc((size_t)npes, sizeof(TYPE));                                       \
        size_t n = (size_t)npes;                                                                   \
        shmem_barrier_all();                                                                       \
        /* wait_until_all: every PE writes 1 into its slot everywhere */                           \
        CHECK_EQ(shmem_##TYPENAME##_test_all(iv, n, NULL, SHMEM_CMP_EQ, (TYPE)1), 0);              \
        for (int p = 0; p < npes; p++)                                                             \
            shmem_##TYPENAME##_p(&iv[me], (TYPE)1, p);                                             \
        shmem_##TYPENAME##_wait_until_all(iv, n, NULL, SHMEM_CMP_EQ, (TYPE)1);                     \
        for (int p = 0; p < npes; p++)                                                             \
            CHECK(iv[p] == (TYPE)1);                                                               \
        CHECK_EQ(shmem_##TYPENAME##_test_all(iv, n, NULL, SHMEM_CMP_EQ, (TYPE)1), 1);              \
        CHECK_EQ(shmem_##TYPENAME##_test_all(iv, n, NULL, SHMEM_CMP_GT, (TYPE)1), 0);              \
        CHECK(shmem_##TYPENAME##_test_any(iv, n, NULL, SHMEM_CMP_EQ, (TYPE)1) < n);                \
        CHECK_EQ(shmem_##TYPENAME##_test_any(iv, n, NULL, SHMEM_CMP_NE, (TYPE)1), SIZE_MAX);       \
        RESET(iv);                                                                                 \
        /* a status mask: only the even PEs write, the odd slots are excluded */                   \
        for (int p = 0; p < npes; p++)                                                             \
            status[p] = p % 2;                                                                     \
        if (me % 2 == 0)                                                                           \
            for (int p = 0; p < npes; p++)                                                         \
                shmem_##TYPENAME##_p(&iv[me], (TYPE)2, p);                                         \
        shmem_##TYPENAME##_wait_until_all(iv, n, status, SHMEM_CMP_EQ, (TYPE)2);                   \
        for (int p = 0; p < npes; p++)                                                             \
            CHECK(iv[p] == (TYPE)(p % 2 ? 0 : 2));                                                 \
        CHECK_EQ(shmem_##TYPENAME##_test_all(iv, n, status, SHMEM_CMP_EQ, (TYPE)2), 1);            \
        CHECK_EQ(shmem_##TYPENAME##_test_all(iv, n, NULL, SHMEM_CMP_EQ, (TYPE)2), npes == 1);      \
        /* every slot excluded: any answers SIZE_MAX, some answers 0 */                            \
        for (int p = 0; p < npes; p++)                                                             \
            status[p] = 1;                                                                         \
        CHECK_EQ(shmem_##TYPENAME##_wait_until_any(iv, n, status, SHMEM_CMP_EQ, (TYPE)2),          \
                 SIZE_MAX);                                                                        \
        CHECK_EQ(shmem_##TYPENAME##_test_any(iv, n, status, SHMEM_CMP_EQ, (TYPE)2), SIZE_MAX);     \
        CHECK_EQ(shmem_##TYPENAME##_wait_until_some(iv, n, idx, status, SHMEM_CMP_EQ, (TYPE)2),    \
                 0);                                                                               \
        CHECK_EQ(shmem_##TYPENAME##_test_some(iv, n, idx, status, SHMEM_CMP_EQ, (TYPE)2), 0);      \
        RESET(iv);                                                                                 \
        /* wait_until_any: only the left neighbour writes, into its slot */                        \
        CHECK_EQ(shmem_##TYPENAME##_test_any(iv, n, NULL, SHMEM_CMP_EQ, (TYPE)3), SIZE_MAX);       \
        CHECK_EQ(shmem_##TYPENAME##_test_some(iv, n, idx, NULL, SHMEM_CMP_EQ, (TYPE)3), 0);        \
        shmem_barrier_all(); /* nobody writes before everyone has looked */                        \
        shmem_##TYPENAME##_p(&iv[me], (TYPE)3, right);                                             \
        CHECK_EQ(shmem_##TYPENAME##_wait_until_any(iv, n, NULL, SHMEM_CMP_EQ, (TYPE)3), left);     \
        CHECK_EQ(shmem_##TYPENAME##_test_any(iv, n, NULL, SHMEM_CMP_GE, (TYPE)3), left);           \
        for (int p = 0; p < npes; p++)                                                             \
            status[p] = p == left;                                                                 \
        CHECK_EQ(shmem_##TYPENAME##_test_any(iv, n, status, SHMEM_CMP_EQ, (TYPE)3), SIZE_MAX);     \
        CHECK_EQ(shmem_##TYPENAME##_test_some(iv, n, idx, NULL, SHMEM_CMP_EQ, (TYPE)3), 1);        \
        CHECK_EQ(idx[0], left);                                                                    \
        RESET(iv);                                                                                 \
        /* wait_until_some: every PE writes; collect the indices until all were seen */            \
        for (int p = 0; p < npes; p++)                                                             \
            status[p] = 0;                                                                         \
        for (int p = 0; p < npes; p++)                                                             \
            shmem_##TYPENAME##_p(&iv[me], (TYPE)4, p);                                             \
        size_t seen = 0;                                                                           \
        while (seen < n) {                                                                         \
            size_t k =                                                                             \
                shmem_##TYPENAME##_wait_until_some(iv, n, idx, status, SHMEM_CMP_EQ, (TYPE)4);     \
            CHECK(k >= 1 && k <= n - seen);                                                        \
            for (size_t j = 0; j < k; j++) {                                                       \
                CHECK(idx[j] < n);                                                                 \
                CHECK_EQ(status[idx[j]], 0); /* never an excluded one */                           \
                CHECK(iv[idx[j]] == (TYPE)4);                                                      \
                status[idx[j]] = 1;                                                                \
            }                                                                                      \
            seen += k;                                                                             \
        }                                                                                          \
        CHECK_EQ(shmem_##TYPENAME##_test_some(iv, n, idx, NULL, SHMEM_CMP_EQ, (TYPE)4), npes);     \
        RESET(iv);                                                                                 \
        /* the _vector forms: slot p must reach 10 + p */                                          \
        for (int p = 0; p < npes; p++) {                                                           \
            want[p] = (TYPE)(10 + p);                                                              \
            status[p] = 0;                                                                         \
        }                                                                                          \
        CHECK_EQ(shmem_##TYPENAME##_test_all_vector(iv, n, NULL, SHMEM_CMP_EQ, want), 0);          \
        CHECK_EQ(shmem_##TYPENAME##_test_any_vector(iv, n, NULL, SHMEM_CMP_GE, want), SIZE_MAX);   \
        CHECK_EQ(shmem_##TYPENAME##_test_some_vector(iv, n, idx, NULL, SHMEM_CMP_EQ, want), 0);    \
        shmem_barrier_all();                                                                       \
        shmem_##TYPENAME##_p(&iv[me], (TYPE)(10 + me), right);                                     \
        CHECK_EQ(shmem_##TYPENAME##_wait_until_any_vector(iv, n, NULL, SHMEM_CMP_EQ, want), left); \
        shmem_barrier_all();                                                                       \
        for (int p = 0; p < npes; p++)                                                             \
            shmem_##TYPENAME##_p(&iv[me], (TYPE)(10 + me), p);                                     \
        shmem_##TYPENAME##_wait_until_all_vector(iv, n, NULL, SHMEM_CMP_EQ, want);                 \
        for (int p = 0; p < npes; p++)                                                             \
            CHECK(iv[p] == (TYPE)(10 + p));                                                        \
        CHECK_EQ(shmem_##TYPENAME##_test_all_vector(iv, n, NULL, SHMEM_CMP_LE, want), 1);          \
        CHECK_EQ(shmem_##TYPENAME##_test_all_vector(iv, n, NULL, SHMEM_CMP_LT, want), 0);          \
        CHECK_EQ(shmem_##TYPENAME##_wait_until_some_vector(iv, n, idx, NULL, SHMEM_CMP_GE, want),  \
                 npes);                                                                            \
        CHECK_EQ(shmem_##TYPENAME##_test_some_vector(iv, n, idx, NULL, SHMEM_CMP_EQ, want), npes); \
        status[0] = 1;                                                                             \
        CHECK_EQ(shmem_##TYPENAME##_test_some_vector(iv, n, idx, status, SHMEM_CMP_EQ, want),      \
                 npes - 1);                                                                        \
        for (int j = 0; j < npes - 1; j++)                                                         \
            CHECK(idx[j] != 0);                                                                    \
        size_t a = shmem_##TYPENAME##_test_any_vector(iv, n, status, SHMEM_CMP_EQ, want);          \
        CHECK(npes == 1 ? a == SIZE_MAX : (a >= 1 && a < n));                                      \
        status[0] = 0;                                                                             \
        shmem_barrier_all();                                                                       \
        shmem_free(iv);                                                                            \
    } while (0)
#endif

int main(void)
{
    conf_program = "p2p";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes;
    int left = (me + npes - 1) % npes;
    CHECK(npes <= 64);
    (void)left; /* only the 1.5 array forms use it */

    SCALAR_WAITS(short, short, BY_PUT);
    SCALAR_WAITS(ushort, unsigned short, BY_PUT);
    SCALAR_WAITS(int, int, BY_AMO);
    SCALAR_WAITS(long, long, BY_AMO);
    SCALAR_WAITS(longlong, long long, BY_AMO);
    SCALAR_WAITS(uint, unsigned int, BY_PUT);
    SCALAR_WAITS(ulong, unsigned long, BY_AMO);
    SCALAR_WAITS(ulonglong, unsigned long long, BY_PUT);
    SCALAR_WAITS(int32, int32_t, BY_PUT);
    SCALAR_WAITS(int64, int64_t, BY_PUT);
    SCALAR_WAITS(uint32, uint32_t, BY_PUT);
    SCALAR_WAITS(uint64, uint64_t, BY_PUT);
    SCALAR_WAITS(size, size_t, BY_PUT);
    SCALAR_WAITS(ptrdiff, ptrdiff_t, BY_PUT);

    /* A global variable, woken by an atomic add from the left neighbour, with the generic
     * forms (C11 _Generic on the pointer type). */
    global_flag = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(&global_flag, 7, right);
    shmem_wait_until(&global_flag, SHMEM_CMP_EQ, 7L);
    CHECK_EQ(shmem_test(&global_flag, SHMEM_CMP_GT, 6L), 1);
    CHECK_EQ(shmem_test(&global_flag, SHMEM_CMP_LT, 6L), 0);
    shmem_barrier_all();
    shmem_int_atomic_inc(&global_ivars[0], right);
    shmem_wait_until(&global_ivars[0], SHMEM_CMP_GE, 1);
    CHECK_EQ(global_ivars[0], 1);
    shmem_barrier_all();

#if CONF_HAVE_15
    int status[64];
    size_t idx[64];
    {
        int want[64];
        ARRAY_WAITS(int, int);
    }
    {
        long want[64];
        ARRAY_WAITS(long, long);
    }
    {
        uint64_t want[64];
        ARRAY_WAITS(uint64, uint64_t);
    }
    {
        size_t want[64];
        ARRAY_WAITS(size, size_t);
    }

    /* The generic array forms on a global int array. */
    for (int p = 0; p < npes; p++)
        global_ivars[p] = 0;
    shmem_barrier_all();
    for (int p = 0; p < npes; p++)
        shmem_int_atomic_set(&global_ivars[me], 30 + me, p);
    int gwant[64];
    for (int p = 0; p < npes; p++)
        gwant[p] = 30 + p;
    shmem_wait_until_all_vector(global_ivars, (size_t)npes, NULL, SHMEM_CMP_EQ, gwant);
    shmem_wait_until_all(global_ivars, (size_t)npes, NULL, SHMEM_CMP_GE, 30);
    CHECK(shmem_wait_until_any(global_ivars, (size_t)npes, NULL, SHMEM_CMP_GE, 30) < (size_t)npes);
    CHECK_EQ(shmem_wait_until_some(global_ivars, (size_t)npes, idx, NULL, SHMEM_CMP_GE, 30), npes);
    CHECK_EQ(shmem_test_all(global_ivars, (size_t)npes, NULL, SHMEM_CMP_GE, 30), 1);
    CHECK_EQ(shmem_test_any(global_ivars, (size_t)npes, NULL, SHMEM_CMP_LT, 30), SIZE_MAX);
    CHECK_EQ(shmem_test_some(global_ivars, (size_t)npes, idx, NULL, SHMEM_CMP_NE, 30), npes - 1);
    CHECK_EQ(shmem_test_all_vector(global_ivars, (size_t)npes, NULL, SHMEM_CMP_EQ, gwant), 1);
    CHECK_EQ(shmem_test_any_vector(global_ivars, (size_t)npes, NULL, SHMEM_CMP_NE, gwant),
             SIZE_MAX);
    CHECK_EQ(shmem_test_some_vector(global_ivars, (size_t)npes, idx, NULL, SHMEM_CMP_EQ, gwant),
             npes);
    CHECK(shmem_wait_until_any_vector(global_ivars, (size_t)npes, NULL, SHMEM_CMP_EQ, gwant) <
          (size_t)npes);
    CHECK_EQ(
        shmem_wait_until_some_vector(global_ivars, (size_t)npes, idx, NULL, SHMEM_CMP_EQ, gwant),
        npes);
#endif

    conf_done();
    return 0;
}
