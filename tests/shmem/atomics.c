/* Atomic memory operations (OpenSHMEM 1.5 section 9.8): the standard, extended and bitwise AMOs
 * on the heap and on globals, contended from every PE; the non-blocking fetching forms (1.5);
 * the C11 type-generic forms. */
#include "conf.h"

#include <stdint.h>

/* Open MPI 4.1's OSHMEM gets some AMOs wrong: shmem_int_atomic_compare_swap (4 bytes) aborts
 * with "stack smashing detected" inside liboshmem, and shmem_uint/ulong_atomic_fetch_and leave
 * the bits set. The 4-byte compare-and-swaps and the bitwise AMOs run only where the
 * implementation says 1.5 (symheap always). */
#define CSWAP_OK(TYPE) (CONF_HAVE_15 || sizeof(TYPE) == 8)

static long global_counter;
static unsigned long global_bits;

#define STANDARD_AMOS(TYPENAME, TYPE)                                                         \
    do {                                                                                      \
        TYPE *v = shmem_malloc(sizeof(TYPE));                                                 \
        *v = 0;                                                                               \
        shmem_barrier_all();                                                                  \
        /* every PE adds (me + 1) and increments once on PE 0 */                              \
        shmem_##TYPENAME##_atomic_add(v, (TYPE)(me + 1), 0);                                  \
        TYPE old = shmem_##TYPENAME##_atomic_fetch_inc(v, 0);                                 \
        CHECK(old >= (TYPE)(me + 1));                                                         \
        shmem_##TYPENAME##_atomic_inc(v, 0);                                                  \
        (void)shmem_##TYPENAME##_atomic_fetch_add(v, (TYPE)2, 0);                             \
        shmem_barrier_all();                                                                  \
        TYPE want = (TYPE)(npes * (npes + 1) / 2 + 4 * npes);                                 \
        CHECK(shmem_##TYPENAME##_atomic_fetch(v, 0) == want);                                 \
        shmem_barrier_all();                                                                  \
        if (me == 0 && CSWAP_OK(TYPE)) {                                                      \
            CHECK(shmem_##TYPENAME##_atomic_compare_swap(v, (TYPE)1, (TYPE)5, npes - 1) ==    \
                  (npes == 1 ? want : (TYPE)0));                                              \
        }                                                                                     \
        shmem_barrier_all();                                                                  \
        /* exactly one PE wins the compare-and-swap on PE 0 */                                \
        if (CSWAP_OK(TYPE)) {                                                                 \
            TYPE seen = shmem_##TYPENAME##_atomic_compare_swap(v, want, (TYPE)(100 + me), 0); \
            if (seen == want)                                                                 \
                shmem_long_atomic_inc(&winners, 0);                                           \
        } else if (me == 0) {                                                                 \
            winners = 1;                                                                      \
        }                                                                                     \
        shmem_barrier_all();                                                                  \
        if (me == 0)                                                                          \
            CHECK_EQ(winners, 1);                                                             \
        winners = 0;                                                                          \
        shmem_barrier_all();                                                                  \
        TYPE prev_val = shmem_##TYPENAME##_atomic_swap(v, (TYPE)7, 0);                        \
        CHECK(prev_val != (TYPE)0);                                                           \
        shmem_barrier_all();                                                                  \
        CHECK(shmem_##TYPENAME##_atomic_fetch(v, 0) == (TYPE)7);                              \
        shmem_barrier_all();                                                                  \
        shmem_free(v);                                                                        \
    } while (0)

#define BITWISE_AMOS(TYPENAME, TYPE)                                                            \
    do {                                                                                        \
        if (!CONF_HAVE_15)                                                                      \
            break;                                                                              \
        TYPE *b = shmem_malloc(sizeof(TYPE));                                                   \
        *b = 0;                                                                                 \
        shmem_barrier_all();                                                                    \
        shmem_##TYPENAME##_atomic_or(b, (TYPE)1 << me, 0);                                      \
        shmem_barrier_all();                                                                    \
        TYPE all = (TYPE)(((TYPE)1 << npes) - 1);                                               \
        CHECK(shmem_##TYPENAME##_atomic_fetch_or(b, (TYPE)0, 0) == all);                        \
        shmem_barrier_all();                                                                    \
        TYPE f = shmem_##TYPENAME##_atomic_fetch_and(b, (TYPE) ~((TYPE)1 << me), 0);            \
        CHECK((f & ((TYPE)1 << me)) != 0);                                                      \
        shmem_barrier_all();                                                                    \
        CHECK(shmem_##TYPENAME##_atomic_fetch_or(b, (TYPE)0, 0) == (TYPE)0);                    \
        shmem_barrier_all();                                                                    \
        shmem_##TYPENAME##_atomic_xor(b, (TYPE)3, 0);                                           \
        (void)shmem_##TYPENAME##_atomic_fetch_xor(b, (TYPE)1, 0);                               \
        (void)shmem_##TYPENAME##_atomic_fetch_or(b, (TYPE)0, 0);                                \
        shmem_##TYPENAME##_atomic_and(b, (TYPE) ~(TYPE)0, 0);                                   \
        shmem_barrier_all();                                                                    \
        /* 3 xor'd npes times, 1 xor'd npes times */                                            \
        CHECK(shmem_##TYPENAME##_atomic_fetch_or(b, (TYPE)0, 0) == (TYPE)((npes % 2) ? 2 : 0)); \
        shmem_barrier_all();                                                                    \
        shmem_free(b);                                                                          \
    } while (0)

static long winners;

int main(void)
{
    conf_program = "atomics";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    STANDARD_AMOS(int, int);
    STANDARD_AMOS(long, long);
    STANDARD_AMOS(longlong, long long);
    STANDARD_AMOS(uint, unsigned int);
    STANDARD_AMOS(ulong, unsigned long);
    STANDARD_AMOS(ulonglong, unsigned long long);
#if CONF_HAVE_15
    /* The fixed-width, size and ptrdiff standard AMOs (1.4 lists them, but Open MPI 4.1's
     * OSHMEM has only their bitwise forms: compiled where the implementation says 1.5). */
    STANDARD_AMOS(int32, int32_t);
    STANDARD_AMOS(int64, int64_t);
    STANDARD_AMOS(uint32, uint32_t);
    STANDARD_AMOS(uint64, uint64_t);
    STANDARD_AMOS(size, size_t);
    STANDARD_AMOS(ptrdiff, ptrdiff_t);
#endif

    BITWISE_AMOS(uint, unsigned int);
    BITWISE_AMOS(ulong, unsigned long);
    BITWISE_AMOS(ulonglong, unsigned long long);
    BITWISE_AMOS(int32, int32_t);
    BITWISE_AMOS(int64, int64_t);
    BITWISE_AMOS(uint32, uint32_t);
    BITWISE_AMOS(uint64, uint64_t);

    /* The extended AMOs on float and double: fetch, set, swap. */
    static double dv;
    static float fv;
    shmem_barrier_all();
    if (me == npes - 1) {
        shmem_double_atomic_set(&dv, 2.5, 0);
        shmem_float_atomic_set(&fv, 1.25f, 0);
    }
    shmem_barrier_all();
    CHECK(shmem_double_atomic_fetch(&dv, 0) == 2.5);
    CHECK(shmem_float_atomic_fetch(&fv, 0) == 1.25f);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(shmem_double_atomic_swap(&dv, 4.0, npes - 1) == (npes == 1 ? 2.5 : 0.0));
        CHECK(shmem_float_atomic_swap(&fv, 3.0f, npes - 1) == (npes == 1 ? 1.25f : 0.0f));
    }
    shmem_barrier_all();
    CHECK(shmem_double_atomic_fetch(&dv, npes - 1) == 4.0);

    /* Contention on a global: 1000 fetch-adds from every PE, no update lost. */
    global_counter = 0;
    shmem_barrier_all();
    long seen_max = -1;
    for (int i = 0; i < 1000; i++) {
        long before = shmem_long_atomic_fetch_add(&global_counter, 1, 0);
        CHECK(before > seen_max);
        seen_max = before;
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ(global_counter, 1000L * npes);

    /* The C11 type-generic forms. */
    shmem_barrier_all();
    global_counter = 0;
    global_bits = 0;
    shmem_barrier_all();
    shmem_atomic_add(&global_counter, 3L, 0);
    long f = shmem_atomic_fetch_add(&global_counter, 1L, 0);
    CHECK(f >= 3);
    shmem_atomic_inc(&global_counter, 0);
    shmem_barrier_all();
    CHECK_EQ(shmem_atomic_fetch(&global_counter, 0), 5L * npes);
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(shmem_atomic_compare_swap(&global_counter, 5L * npes, -1L, 0), 5L * npes);
        CHECK_EQ(shmem_atomic_swap(&global_counter, 9L, 0), -1);
        shmem_atomic_set(&global_bits, 6UL, 0);
        CHECK_EQ(shmem_atomic_fetch_inc(&global_counter, 0), 9);
    }
    shmem_barrier_all();
    CHECK_EQ(shmem_atomic_fetch(&global_counter, 0), 10);
    CHECK_EQ(shmem_atomic_fetch(&global_bits, 0), 6);

#if CONF_HAVE_15
    /* Non-blocking fetching AMOs: the fetched value is there after shmem_quiet. */
    shmem_barrier_all();
    global_counter = 0;
    shmem_barrier_all();
    long fetched[4] = { -1, -1, -1, -1 };
    shmem_long_atomic_fetch_add_nbi(&fetched[0], &global_counter, 10, 0);
    shmem_quiet();
    shmem_long_atomic_fetch_inc_nbi(&fetched[1], &global_counter, 0);
    shmem_quiet();
    shmem_barrier_all();
    shmem_long_atomic_fetch_nbi(&fetched[2], &global_counter, 0);
    shmem_long_atomic_compare_swap_nbi(&fetched[3], &global_counter, -5, 0, 0);
    shmem_quiet();
    CHECK(fetched[0] >= 0 && fetched[0] <= 11L * (npes - 1));
    CHECK(fetched[1] >= 10);
    CHECK_EQ(fetched[2], 11L * npes);
    CHECK_EQ(fetched[3], 11L * npes);
    unsigned long ubits = 99;
    shmem_barrier_all();
    shmem_ulong_atomic_fetch_or_nbi(&ubits, &global_bits, 1UL << me, 0);
    shmem_quiet();
    CHECK((ubits & 6UL) == 6UL);
    unsigned long swapped = 0;
    shmem_barrier_all();
    if (me == 0) {
        shmem_ulong_atomic_swap_nbi(&swapped, &global_bits, 0, 0);
        shmem_quiet();
        CHECK_EQ(swapped, 6UL | ((1UL << npes) - 1));
    }
#endif
    conf_done();
    return 0;
}
