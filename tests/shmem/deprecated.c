/* The deprecated API (OpenSHMEM 1.5 Annex: deprecated interfaces) that existing programs still
 * use: start_pes, _my_pe, _num_pes, shmalloc/shfree/shmemalign/shrealloc, the old AMO names
 * (shmem_<T>_fadd, finc, add, inc, cswap, swap, fetch, set), shmem_wait and shmem_wait_until,
 * the active-set collectives (shmem_barrier, broadcast32/64, collect32/64, fcollect32/64,
 * alltoall32/64, alltoalls32/64, the <T>_<op>_to_all reductions) with pSync and pWrk
 * initialised to SHMEM_SYNC_VALUE, on the world and on a strided active set whose other PEs do
 * not call, the cache routines (no-ops), the _SHMEM_* constants. */
#include "conf.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

#define N 8

static long psync_bar[SHMEM_BARRIER_SYNC_SIZE];
static long psync_bcast[SHMEM_BCAST_SYNC_SIZE];
static long psync_coll[SHMEM_COLLECT_SYNC_SIZE];
static long psync_a2a[SHMEM_ALLTOALL_SYNC_SIZE];
static long psync_a2as[SHMEM_ALLTOALLS_SYNC_SIZE];
static long psync_red[SHMEM_REDUCE_SYNC_SIZE];

static int32_t src32[64 * N], dst32[64 * N];
static int64_t src64[64 * N], dst64[64 * N];

static long old_counter;
static int old_ivar;
static double old_double;

static void init_psync(long *psync, int len)
{
    for (int i = 0; i < len; i++)
        psync[i] = SHMEM_SYNC_VALUE;
}

/* The active set (start, log2 stride, size): index of PE pe in it, or -1. */
static int set_index(int pe, int start, int logstride, int size)
{
    int off = pe - start;
    if (off < 0 || off % (1 << logstride) != 0 || off / (1 << logstride) >= size)
        return -1;
    return off / (1 << logstride);
}

/* Reductions of one type and op: source[i] = f(member index, i); want computed locally. */
#define TO_ALL(NAME, TYPE, OP, INIT, COMBINE)                                                     \
    do {                                                                                          \
        static TYPE rsrc[N], rdst[N];                                                             \
        static TYPE pwrk[N / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];                              \
        shmem_barrier_all();                                                                      \
        if (idx >= 0) {                                                                           \
            for (int i = 0; i < N; i++) {                                                         \
                int j = idx;                                                                      \
                rsrc[i] = (TYPE)(INIT);                                                           \
                rdst[i] = (TYPE)-1;                                                               \
            }                                                                                     \
            shmem_##NAME##_##OP##_to_all(rdst, rsrc, N, start, logstride, size, pwrk, psync_red); \
            for (int i = 0; i < N; i++) {                                                         \
                TYPE want = 0;                                                                    \
                for (int j = 0; j < size; j++) {                                                  \
                    TYPE x = (TYPE)(INIT);                                                        \
                    want = j == 0 ? x : (TYPE)(COMBINE);                                          \
                }                                                                                 \
                if (rdst[i] != want)                                                              \
                    CHECK_EQ((long long)rdst[i], (long long)want);                                \
            }                                                                                     \
        }                                                                                         \
    } while (0)

static void active_set(int me, int start, int logstride, int size)
{
    int idx = set_index(me, start, logstride, size);
    int stride = 1 << logstride;

    /* shmem_barrier: completes the puts of the members, the others do not call */
    shmem_barrier_all();
    if (idx >= 0) {
        int next = start + ((idx + 1) % size) * stride;
        int prev = start + ((idx + size - 1) % size) * stride;
        old_counter = -1;
        shmem_barrier(start, logstride, size, psync_bar);
        shmem_long_p(&old_counter, 40 + me, next);
        shmem_barrier(start, logstride, size, psync_bar);
        CHECK_EQ(old_counter, 40 + prev);
    }

    /* broadcast32/64: from the last member; the root's dest stays as it was */
    shmem_barrier_all();
    int root = size - 1;
    for (int i = 0; i < N; i++) {
        src32[i] = 1000 + me * N + i;
        src64[i] = ((int64_t)1 << 40) + me * N + i;
        dst32[i] = -1;
        dst64[i] = -1;
    }
    shmem_barrier_all();
    if (idx >= 0) {
        int rootpe = start + root * stride;
        shmem_broadcast32(dst32, src32, N, root, start, logstride, size, psync_bcast);
        shmem_barrier(start, logstride, size, psync_bar);
        shmem_broadcast64(dst64, src64, N, root, start, logstride, size, psync_bcast);
        for (int i = 0; i < N; i++) {
            CHECK_EQ(dst32[i], idx == root ? -1 : 1000 + rootpe * N + i);
            CHECK_EQ(dst64[i], idx == root ? -1 : ((int64_t)1 << 40) + rootpe * N + i);
        }
    }

    /* collect32/64: member j gives j + 1 elements; fcollect32/64: N each */
    shmem_barrier_all();
    for (int i = 0; i < 64 * N; i++) {
        dst32[i] = -1;
        dst64[i] = -1;
    }
    shmem_barrier_all();
    if (idx >= 0) {
        shmem_collect32(dst32, src32, (size_t)idx + 1, start, logstride, size, psync_coll);
        shmem_barrier(start, logstride, size, psync_bar);
        shmem_collect64(dst64, src64, (size_t)idx + 1, start, logstride, size, psync_coll);
        int k = 0;
        for (int j = 0; j < size; j++) {
            int pe = start + j * stride;
            for (int i = 0; i <= j; i++, k++) {
                CHECK_EQ(dst32[k], 1000 + pe * N + i);
                CHECK_EQ(dst64[k], ((int64_t)1 << 40) + pe * N + i);
            }
        }
        CHECK_EQ(dst32[k], -1);
        shmem_barrier(start, logstride, size, psync_bar);
        shmem_fcollect32(dst32, src32, N, start, logstride, size, psync_coll);
        shmem_barrier(start, logstride, size, psync_bar);
        shmem_fcollect64(dst64, src64, N, start, logstride, size, psync_coll);
        for (int j = 0; j < size; j++) {
            int pe = start + j * stride;
            for (int i = 0; i < N; i++) {
                CHECK_EQ(dst32[j * N + i], 1000 + pe * N + i);
                CHECK_EQ(dst64[j * N + i], ((int64_t)1 << 40) + pe * N + i);
            }
        }
    }

    /* alltoall32/64: block j of the source goes to member j; alltoalls32/64 with strides
     * (source stride 2, dest stride 3) */
    shmem_barrier_all();
    for (int j = 0; j < 64; j++)
        for (int e = 0; e < N; e++) {
            src32[j * N + e] = me * 1000 + j * 10 + e;
            src64[j * N + e] = ((int64_t)me << 33) + j * 10 + e;
        }
    for (int i = 0; i < 64 * N; i++) {
        dst32[i] = -1;
        dst64[i] = -1;
    }
    shmem_barrier_all();
    if (idx >= 0) {
        shmem_alltoall32(dst32, src32, N, start, logstride, size, psync_a2a);
        shmem_barrier(start, logstride, size, psync_bar);
        shmem_alltoall64(dst64, src64, N, start, logstride, size, psync_a2a);
        for (int j = 0; j < size; j++) {
            int pe = start + j * stride;
            for (int e = 0; e < N; e++) {
                CHECK_EQ(dst32[j * N + e], pe * 1000 + idx * 10 + e);
                CHECK_EQ(dst64[j * N + e], ((int64_t)pe << 33) + idx * 10 + e);
            }
        }
    }
    shmem_barrier_all();
    for (int i = 0; i < 64 * N; i++) {
        dst32[i] = -1;
        dst64[i] = -1;
    }
    shmem_barrier_all();
    if (idx >= 0 && size * 3 * 2 <= 64 * N) {
        /* member j's elements: source[2 * (j * 2 + e)], e < 2; into dest[3 * (i * 2 + e)] */
        shmem_alltoalls32(dst32, src32, 3, 2, 2, start, logstride, size, psync_a2as);
        shmem_barrier(start, logstride, size, psync_bar);
        shmem_alltoalls64(dst64, src64, 3, 2, 2, start, logstride, size, psync_a2as);
        for (int j = 0; j < size; j++) {
            int pe = start + j * stride;
            for (int e = 0; e < 2; e++) {
                int s = 2 * (idx * 2 + e); /* the sender's source index for me */
                CHECK_EQ(dst32[3 * (j * 2 + e)], pe * 1000 + (s / N) * 10 + s % N);
                CHECK_EQ(dst64[3 * (j * 2 + e)], ((int64_t)pe << 33) + (s / N) * 10 + s % N);
                CHECK_EQ(dst32[3 * (j * 2 + e) + 1], -1);
            }
        }
    }

    /* the to_all reductions, one pSync and pWrk, a barrier_all between calls */
    TO_ALL(int, int, sum, j + i, want + x);
    TO_ALL(long, long, max, (j * 7 + i) % 5, x > want ? x : want);
    TO_ALL(longlong, long long, min, 100 - j + i, x < want ? x : want);
    TO_ALL(short, short, and, 0xff ^ (1 << (j % 8)), want & x);
    TO_ALL(short, short, or, 1 << (j % 8) | i, want | x);
    TO_ALL(int, int, xor, j * 3 + i, want ^ x);
    TO_ALL(long, long, prod, 1 + (j + i) % 3, want * x);
    TO_ALL(double, double, sum, 0.5 * j + i, want + x);
    TO_ALL(float, float, min, 2.0f * i - j, x < want ? x : want);
    TO_ALL(longdouble, long double, max, (long double)(i * j % 4), x > want ? x : want);
    {
        static double _Complex csrc[N], cdst[N];
        static double _Complex cwrk[N / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
        shmem_barrier_all();
        if (idx >= 0) {
            for (int i = 0; i < N; i++)
                csrc[i] = (double)i + (double)idx * I;
            shmem_complexd_sum_to_all(cdst, csrc, N, start, logstride, size, cwrk, psync_red);
            for (int i = 0; i < N; i++) {
                CHECK(creal(cdst[i]) == (double)i * size);
                CHECK(cimag(cdst[i]) == (double)size * (size - 1) / 2);
            }
        }
    }
    shmem_barrier_all();
}

int main(void)
{
    conf_program = "deprecated";
    start_pes(0);
    int me = _my_pe(), npes = _num_pes();
    CHECK_EQ(me, shmem_my_pe());
    CHECK_EQ(npes, shmem_n_pes());
    CHECK(npes <= 64);

    /* The constants: each _SHMEM_X is SHMEM_X. */
    CHECK_EQ(_SHMEM_SYNC_VALUE, SHMEM_SYNC_VALUE);
    CHECK_EQ(_SHMEM_BARRIER_SYNC_SIZE, SHMEM_BARRIER_SYNC_SIZE);
    CHECK_EQ(_SHMEM_BCAST_SYNC_SIZE, SHMEM_BCAST_SYNC_SIZE);
    CHECK_EQ(_SHMEM_COLLECT_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE);
    CHECK_EQ(_SHMEM_REDUCE_SYNC_SIZE, SHMEM_REDUCE_SYNC_SIZE);
    CHECK_EQ(_SHMEM_REDUCE_MIN_WRKDATA_SIZE, SHMEM_REDUCE_MIN_WRKDATA_SIZE);
    CHECK_EQ(_SHMEM_MAJOR_VERSION, SHMEM_MAJOR_VERSION);
    CHECK_EQ(_SHMEM_MINOR_VERSION, SHMEM_MINOR_VERSION);
    CHECK_EQ(_SHMEM_MAX_NAME_LEN, SHMEM_MAX_NAME_LEN);
#if CONF_HAVE_15 /* Open MPI 4.1's OSHMEM lacks _SHMEM_VENDOR_STRING */
    CHECK(strcmp(_SHMEM_VENDOR_STRING, SHMEM_VENDOR_STRING) == 0);
#endif
    CHECK_EQ(_SHMEM_CMP_EQ, SHMEM_CMP_EQ);
    CHECK_EQ(_SHMEM_CMP_NE, SHMEM_CMP_NE);
    CHECK_EQ(_SHMEM_CMP_GT, SHMEM_CMP_GT);
    CHECK_EQ(_SHMEM_CMP_GE, SHMEM_CMP_GE);
    CHECK_EQ(_SHMEM_CMP_LT, SHMEM_CMP_LT);
    CHECK_EQ(_SHMEM_CMP_LE, SHMEM_CMP_LE);
    CHECK(SHMEM_BARRIER_SYNC_SIZE >= 1 && SHMEM_REDUCE_MIN_WRKDATA_SIZE >= 1);

    /* The memory routines: symmetric (a ring of puts into each block), contents kept by
     * shrealloc, shmemalign aligned. */
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *a = shmalloc(16 * sizeof(long));
    long *b = shmemalign(256, 32 * sizeof(long));
    CHECK(a != NULL && b != NULL);
    CHECK_EQ((uintptr_t)b % 256, 0);
    for (int i = 0; i < 16; i++)
        a[i] = me * 100 + i;
    shmem_barrier_all();
    long ring[16];
    shmem_long_get(ring, a, 16, right);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(ring[i], right * 100 + i);
    shmem_barrier_all();
    a = shrealloc(a, 4096 * sizeof(long));
    CHECK(a != NULL);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(a[i], me * 100 + i);
    a[4095] = me;
    shmem_barrier_all();
    CHECK_EQ(shmem_long_g(&a[4095], left), left);
    shmem_long_p(&b[31], me, right);
    shmem_barrier_all();
    CHECK_EQ(b[31], left);
    shmem_barrier_all();
    shfree(b);
    shfree(a);

    /* The old AMO names on a global counter on PE 0 and on a heap int. */
    int *iv = shmalloc(sizeof(int));
    *iv = 0;
    old_counter = 0;
    shmem_barrier_all();
    shmem_long_add(&old_counter, me + 1, 0);
    shmem_long_inc(&old_counter, 0);
    CHECK(shmem_long_fadd(&old_counter, 2, 0) >= 0);
    CHECK(shmem_long_finc(&old_counter, 0) >= 0);
    shmem_int_inc(iv, 0);
    shmem_int_add(iv, 2, 0);
    (void)shmem_int_finc(iv, 0);
    (void)shmem_int_fadd(iv, 4, 0);
    shmem_barrier_all();
    long total = (long)npes * (npes + 1) / 2 + 4L * npes;
    CHECK_EQ(shmem_long_fetch(&old_counter, 0), total);
    CHECK_EQ(shmem_int_fetch(iv, 0), 8 * npes);
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(shmem_long_cswap(&old_counter, total, -5, npes - 1), npes == 1 ? total : 0);
        CHECK_EQ(shmem_long_swap(&old_counter, 9, npes - 1), npes == 1 ? -5 : 0);
#if CONF_HAVE_15 /* Open MPI 4.1's 4-byte compare-and-swap smashes its stack (atomics.c) */
        CHECK_EQ(shmem_int_cswap(iv, 8 * npes, 3, 0), 8 * npes);
#else
        CHECK_EQ(shmem_int_swap(iv, 3, 0), 8 * npes);
#endif
        CHECK_EQ(shmem_int_swap(iv, 4, 0), 3);
    }
    shmem_barrier_all();
    CHECK_EQ(shmem_long_fetch(&old_counter, npes - 1), 9);
    CHECK_EQ(shmem_int_fetch(iv, 0), 4);
    shmem_barrier_all();
    shmem_long_set(&old_counter, 0, me);
    shmem_double_set(&old_double, 1.5, right);
    shmem_barrier_all();
    CHECK(shmem_double_fetch(&old_double, me) == 1.5);
    CHECK_EQ(shmem_long_fetch(&old_counter, left), 0);
    shmem_barrier_all();
    shfree(iv);

    /* shmem_wait (until != value), shmem_long_wait, shmem_wait_until, shmem_int_wait_until:
     * woken by the left neighbour. */
    old_counter = 0;
    old_ivar = 0;
    shmem_barrier_all();
    shmem_long_p(&old_counter, 1, right);
    shmem_wait(&old_counter, 0);
    CHECK_EQ(old_counter, 1);
    shmem_barrier_all();
    shmem_long_p(&old_counter, 2, right);
    shmem_long_wait(&old_counter, 1);
    CHECK_EQ(old_counter, 2);
    shmem_barrier_all();
    shmem_long_atomic_set(&old_counter, 5, right);
    shmem_wait_until(&old_counter, SHMEM_CMP_GT, 4L);
    shmem_int_p(&old_ivar, 6, right);
    shmem_int_wait_until(&old_ivar, _SHMEM_CMP_EQ, 6);
    CHECK_EQ(old_ivar, 6);
    shmem_barrier_all();

    /* The cache routines: no-ops. */
    shmem_set_cache_inv();
    shmem_set_cache_line_inv(&old_counter);
    shmem_clear_cache_inv();
    shmem_clear_cache_line_inv(&old_counter);
    shmem_udcflush();
    shmem_udcflush_line(&old_counter);

    /* The active-set collectives: pSync initialised once (each call restores it). */
    init_psync(psync_bar, SHMEM_BARRIER_SYNC_SIZE);
    init_psync(psync_bcast, SHMEM_BCAST_SYNC_SIZE);
    init_psync(psync_coll, SHMEM_COLLECT_SYNC_SIZE);
    init_psync(psync_a2a, SHMEM_ALLTOALL_SYNC_SIZE);
    init_psync(psync_a2as, SHMEM_ALLTOALLS_SYNC_SIZE);
    init_psync(psync_red, SHMEM_REDUCE_SYNC_SIZE);
    shmem_barrier_all();
    active_set(me, 0, 0, npes);           /* the world */
    active_set(me, 0, 1, (npes + 1) / 2); /* the even PEs */
    if (npes > 1)
        active_set(me, 1, 0, npes - 1); /* all but PE 0 */
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        CHECK_EQ(psync_red[i], SHMEM_SYNC_VALUE);
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        CHECK_EQ(psync_bar[i], SHMEM_SYNC_VALUE);

    conf_done();
    return 0;
}
