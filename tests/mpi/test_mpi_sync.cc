// Multi-PE tests of the OpenSHMEM 1.5 routines built on RMA and atomics (docs/signals.md,
// docs/locks.md, docs/rma.md): put-with-signal in a producer/consumer ring that checks every byte
// after the wait, SET and ADD, the nbi forms completed by quiet; the non-blocking fetching
// atomics; every array and vector wait/test with status masks and every comparison; a lock
// contended by every PE guarding a plain counter (in the heap and a global), and test_lock; the
// sized RMA forms and the small routines (malloc_with_hints, team_ptr, query_thread, pcontrol);
// every misuse.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <symheap.h>

#include "mpi_test_util.hpp"

namespace
{

using namespace symh_test;

// ---- signals ----------------------------------------------------------------------------------

class Signals : public SymhSuiteInitTest
{
};

// Each PE produces to its right neighbour and consumes from its left one: a round's data goes
// with put_signal (SET to the round number), the consumer waits for it, checks every byte, and
// acknowledges with an atomic set on the producer's ack word before the next round overwrites
// the buffer. Sizes below and above the one-message limit of the NIC path.
TEST_F(Signals, PipelineChecksEveryByteAfterTheWait)
{
    const size_t sizes[] = { 1, 8, 1000, 4096, 65536, 65536 + 24, 300000 };
    const size_t max = 300000;
    const int rounds = 6;
    auto *buf = (unsigned char *)symh_malloc(max);
    auto *sig = (uint64_t *)symh_calloc(2, sizeof(uint64_t)); // [0]: data signal, [1]: ack
    ASSERT_NE(nullptr, buf);
    ASSERT_NE(nullptr, sig);
    reg_vector<unsigned char> src(max);
    uint64_t step = 0;
    for (size_t size : sizes) {
        for (int r = 0; r < rounds; ++r) {
            ++step;
            for (size_t i = 0; i < size; ++i)
                src[i] = pattern(me(), step, i);
            if (r % 2 == 0)
                symh_putmem_signal(buf, src.data(), size, &sig[0], step, SYMH_SIGNAL_SET, right());
            else
                symh_uint8_put_signal(buf, src.data(), size, &sig[0], step, SYMH_SIGNAL_SET,
                                      right());
            ASSERT_EQ(SYMH_OK, symh_last_error()) << "size " << size;
            EXPECT_EQ(step, symh_signal_wait_until(&sig[0], SYMH_CMP_GE, step));
            for (size_t i = 0; i < size; ++i)
                if (buf[i] != pattern(left(), step, i)) {
                    ADD_FAILURE() << "size " << size << " round " << r << " byte " << i;
                    break;
                }
            symh_uint64_atomic_set(&sig[1], step, left());
            symh_uint64_wait_until(&sig[1], SYMH_CMP_GE, step); // the right PE has read it
        }
    }
    symh_barrier_all();
    symh_free(sig);
    symh_free(buf);
}

// Every PE puts its block into slot me() of every PE with ADD 1 (nbi): each PE's signal reaches
// the PE count exactly, and every slot is complete when it does.
TEST_F(Signals, AddFromEveryPeCountsEveryPut)
{
    const size_t block = 5000;
    const int n = npes();
    auto *slots = (unsigned char *)symh_malloc(block * (size_t)n);
    auto *sig = (uint64_t *)symh_calloc(1, sizeof(uint64_t));
    ASSERT_NE(nullptr, slots);
    ASSERT_NE(nullptr, sig);
    reg_vector<unsigned char> src(block);
    for (size_t i = 0; i < block; ++i)
        src[i] = pattern(me(), 1, i);
    for (int k = 0; k < n; ++k)
        symh_putmem_signal_nbi(slots + block * (size_t)me(), src.data(), block, sig, 1,
                               SYMH_SIGNAL_ADD, (me() + k) % n);
    symh_quiet();
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_EQ((uint64_t)n, symh_signal_wait_until(sig, SYMH_CMP_EQ, (uint64_t)n));
    for (int pe = 0; pe < n; ++pe)
        for (size_t i = 0; i < block; ++i)
            if (slots[block * (size_t)pe + i] != pattern(pe, 1, i)) {
                ADD_FAILURE() << "slot of PE " << pe << " byte " << i;
                break;
            }
    symh_barrier_all();
    EXPECT_EQ((uint64_t)n, symh_signal_fetch(sig));
    symh_free(sig);
    symh_free(slots);
}

// The typed and sized forms, and a put of no data (the signal alone).
TEST_F(Signals, TypedSizedAndEmptyForms)
{
    const size_t n = 9;
    auto *longs = (long *)symh_calloc(n, sizeof(long));
    auto *wide = (uint64_t *)symh_calloc(2 * n, sizeof(uint64_t)); // n elements of 128 bits
    auto *sig = (uint64_t *)symh_calloc(5, sizeof(uint64_t));
    ASSERT_TRUE(longs && wide && sig);
    reg_vector<long> src(n);
    reg_vector<uint64_t> src128(2 * n);
    for (size_t i = 0; i < n; ++i)
        src[i] = me() * 100 + (long)i;
    for (size_t i = 0; i < 2 * n; ++i)
        src128[i] = (uint64_t)me() << 32 | i;
    symh_long_put_signal(longs, src.data(), n, &sig[0], 7, SYMH_SIGNAL_SET, right());
    symh_put128_signal_nbi(wide, src128.data(), n, &sig[1], 3, SYMH_SIGNAL_ADD, right());
    symh_put64_signal(wide, src128.data(), 0, &sig[2], 11, SYMH_SIGNAL_SET, right());
    symh_putmem_signal(nullptr, nullptr, 0, &sig[3], 2, SYMH_SIGNAL_ADD, right());
    EXPECT_EQ(SYMH_OK, symh_last_error());
    // SET with no data and a dest outside the heap (UCX's one-message path once refused it).
    symh_putmem_signal(nullptr, nullptr, 0, &sig[4], 5, SYMH_SIGNAL_SET, right());
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_quiet();
    EXPECT_EQ(7u, symh_signal_wait_until(&sig[0], SYMH_CMP_EQ, 7));
    EXPECT_EQ(3u, symh_signal_wait_until(&sig[1], SYMH_CMP_EQ, 3));
    EXPECT_EQ(11u, symh_signal_wait_until(&sig[2], SYMH_CMP_EQ, 11));
    EXPECT_EQ(2u, symh_signal_wait_until(&sig[3], SYMH_CMP_EQ, 2));
    EXPECT_EQ(5u, symh_signal_wait_until(&sig[4], SYMH_CMP_EQ, 5));
    for (size_t i = 0; i < n; ++i)
        EXPECT_EQ(left() * 100 + (long)i, longs[i]);
    for (size_t i = 0; i < 2 * n; ++i)
        EXPECT_EQ((uint64_t)left() << 32 | i, wide[i]);
    symh_barrier_all();
    symh_free(sig);
    symh_free(wide);
    symh_free(longs);
}

TEST_F(Signals, MisuseSendsNothing)
{
    auto *buf = (unsigned char *)symh_calloc(64, 1);
    auto *sig = (uint64_t *)symh_calloc(2, sizeof(uint64_t));
    ASSERT_TRUE(buf && sig);
    reg_vector<unsigned char> src(64);
    memset(src.data(), 0x5A, 64);
    uint64_t on_stack = 0;
    expect_one_line("sig_op 7 is not SYMH_SIGNAL_SET",
                    [&] { symh_putmem_signal(buf, src.data(), 64, sig, 1, 7, right()); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    expect_one_line("is not a symmetric address", [&] {
        symh_putmem_signal_nbi(buf, src.data(), 64, &on_stack, 1, SYMH_SIGNAL_SET, right());
    });
    EXPECT_NE(SYMH_OK, symh_last_error());
    expect_one_line("is not aligned to 8 bytes", [&] {
        symh_putmem_signal(buf, src.data(), 64, (uint64_t *)(void *)(buf + 4), 1, SYMH_SIGNAL_SET,
                           right());
    });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    expect_one_line("pe -1 is out of range",
                    [&] { symh_putmem_signal(buf, src.data(), 64, sig, 1, SYMH_SIGNAL_SET, -1); });
    expect_one_line("source is NULL", [&] {
        symh_putmem_signal(buf, nullptr, 64, sig, 1, SYMH_SIGNAL_SET, right());
    });
    expect_one_line("is not a symmetric address", [&] { (void)symh_signal_fetch(&on_stack); });
    expect_one_line("cmp 9 is not one of",
                    [&] { EXPECT_EQ(0u, symh_signal_wait_until(sig, 9, 0)); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    symh_barrier_all();
    // Nothing of the refused calls arrived.
    for (int i = 0; i < 64; ++i)
        EXPECT_EQ(0, buf[i]) << i;
    EXPECT_EQ(0u, sig[0]);
    EXPECT_EQ(0u, symh_signal_fetch(sig));
    symh_barrier_all();
    symh_free(sig);
    symh_free(buf);
}

// ---- non-blocking fetching atomics ------------------------------------------------------------

class NbiAmo : public SymhSuiteInitTest
{
};

TEST_F(NbiAmo, FetchesLandByQuiet)
{
    const int n = npes();
    auto *w = (long *)symh_calloc(4, sizeof(long));
    auto *got = (long *)symh_calloc((size_t)n, sizeof(long));
    auto *bits = (uint64_t *)symh_calloc(1, sizeof(uint64_t));
    auto *d = (double *)symh_calloc(1, sizeof(double));
    ASSERT_TRUE(w && got && bits && d);
    long before = -1, inc = -1, old = -1;
    symh_long_atomic_fetch_add_nbi(&before, &w[0], 10, 0);
    symh_long_atomic_fetch_inc_nbi(&inc, &w[1], 0);
    symh_quiet();
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_long_p(&got[me()], before / 10 * 1000 + inc, 0);
    symh_uint64_atomic_fetch_or_nbi((uint64_t *)&old, bits, UINT64_C(1) << me(), 0);
    symh_quiet();
    symh_barrier_all();
    if (me() == 0) {
        EXPECT_EQ(10L * n, w[0]);
        EXPECT_EQ((long)n, w[1]);
        std::set<long> seen(got, got + n);
        EXPECT_EQ((size_t)n, seen.size()); // each PE saw a distinct old value
        EXPECT_EQ(n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1, *bits);
    }
    symh_barrier_all();
    // The one PE whose compare_swap found 0 wins; swap and fetch on a double; xor and and.
    long cs = -1;
    symh_long_atomic_compare_swap_nbi(&cs, &w[2], 0, me() + 1, 0);
    symh_quiet();
    symh_barrier_all(); // peers' NIC atomics need this PE's progress; MPI's collectives give none
    EXPECT_EQ(1, count_pes(cs == 0));
    symh_barrier_all();
    double prev = -1, now = -1;
    if (me() == npes() - 1) {
        symh_double_atomic_swap_nbi(&prev, d, 2.5, 0);
        symh_double_atomic_fetch_nbi(&now, d, 0);
        symh_quiet();
        EXPECT_EQ(0.0, prev);
        EXPECT_EQ(2.5, now);
        uint64_t x = 0;
        symh_uint64_atomic_fetch_xor_nbi(&x, bits, 1, 0);
        symh_uint64_atomic_fetch_and_nbi(&x, bits, 1, 0);
        symh_quiet();
        EXPECT_EQ((n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1) ^ 1, x);
    }
    symh_barrier_all();
    expect_one_line("fetch is NULL", [&] { symh_long_atomic_fetch_add_nbi(nullptr, w, 1, 0); });
    long keep = 42;
    expect_one_line("is not a symmetric address",
                    [&] { symh_long_atomic_fetch_inc_nbi(&keep, &keep, 0); });
    EXPECT_EQ(42, keep); // a refused call writes nothing to fetch
    symh_barrier_all();
    symh_free(d);
    symh_free(bits);
    symh_free(got);
    symh_free(w);
}

// ---- array and vector waits ---------------------------------------------------------------------

class Waits : public SymhSuiteInitTest
{
};

bool compare(int cmp, long long a, long long b)
{
    switch (cmp) {
    case SYMH_CMP_EQ:
        return a == b;
    case SYMH_CMP_NE:
        return a != b;
    case SYMH_CMP_GT:
        return a > b;
    case SYMH_CMP_GE:
        return a >= b;
    case SYMH_CMP_LT:
        return a < b;
    default:
        return a <= b;
    }
}

// One type's array forms, from the header's X-macro list.
template <typename T> struct ArrayOps {
    const char *name;
    int (*test_all)(T *, size_t, const int *, int, T);
    size_t (*test_any)(T *, size_t, const int *, int, T);
    size_t (*test_some)(T *, size_t, size_t *, const int *, int, T);
    int (*test_all_vector)(T *, size_t, const int *, int, T *);
    size_t (*test_any_vector)(T *, size_t, const int *, int, T *);
    size_t (*test_some_vector)(T *, size_t, size_t *, const int *, int, T *);
    void (*wait_all)(T *, size_t, const int *, int, T);
    size_t (*wait_any)(T *, size_t, const int *, int, T);
    size_t (*wait_some)(T *, size_t, size_t *, const int *, int, T);
    void (*wait_all_vector)(T *, size_t, const int *, int, T *);
    size_t (*wait_any_vector)(T *, size_t, const int *, int, T *);
    size_t (*wait_some_vector)(T *, size_t, size_t *, const int *, int, T *);
};

// Every test form, every comparison, with and without a mask, against the same computation in
// the test; then the wait forms where the answer is already there (they must return at once).
template <typename T> void run_arrays(const ArrayOps<T> &ops)
{
    SCOPED_TRACE(ops.name);
    const size_t n = 7;
    T *iv = (T *)symh_calloc(n, sizeof(T));
    ASSERT_NE(nullptr, iv);
    const T values[n] = { 3, 5, 5, 9, 1, 5, 7 };
    T cmp_values[n] = { 3, 4, 6, 9, 2, 5, 8 };
    const int mask[n] = { 0, 1, 0, 0, 1, 0, 0 };
    for (size_t i = 0; i < n; ++i)
        iv[i] = values[i];
    for (int cmp = SYMH_CMP_EQ; cmp <= SYMH_CMP_LE; ++cmp)
        for (const int *status : { (const int *)nullptr, mask })
            for (int vector = 0; vector < 2; ++vector) {
                SCOPED_TRACE("cmp " + std::to_string(cmp) + (status ? " masked" : "") +
                             (vector ? " vector" : ""));
                const T scalar = 5;
                std::vector<size_t> want;
                size_t included = 0;
                for (size_t i = 0; i < n; ++i) {
                    if (status && status[i])
                        continue;
                    ++included;
                    if (compare(cmp, (long long)values[i],
                                (long long)(vector ? cmp_values[i] : scalar)))
                        want.push_back(i);
                }
                size_t idx[n] = {};
                int all = vector ? ops.test_all_vector(iv, n, status, cmp, cmp_values)
                                 : ops.test_all(iv, n, status, cmp, scalar);
                size_t any = vector ? ops.test_any_vector(iv, n, status, cmp, cmp_values)
                                    : ops.test_any(iv, n, status, cmp, scalar);
                size_t some = vector ? ops.test_some_vector(iv, n, idx, status, cmp, cmp_values)
                                     : ops.test_some(iv, n, idx, status, cmp, scalar);
                EXPECT_EQ(SYMH_OK, symh_last_error());
                EXPECT_EQ(want.size() == included, all != 0);
                // _any: one of the matching indices (which one rotates from call to call),
                // SIZE_MAX when none matches.
                auto matches = [&](size_t i) {
                    return std::find(want.begin(), want.end(), i) != want.end();
                };
                if (want.empty())
                    EXPECT_EQ(SIZE_MAX, any);
                else
                    EXPECT_TRUE(matches(any)) << any;
                ASSERT_EQ(want.size(), some);
                for (size_t k = 0; k < some; ++k)
                    EXPECT_EQ(want[k], idx[k]);
                if (!want.empty()) { // the waits return at once with the same answers
                    size_t widx[n] = {};
                    EXPECT_TRUE(matches(vector ? ops.wait_any_vector(iv, n, status, cmp, cmp_values)
                                               : ops.wait_any(iv, n, status, cmp, scalar)));
                    EXPECT_EQ(want.size(),
                              vector ? ops.wait_some_vector(iv, n, widx, status, cmp, cmp_values)
                                     : ops.wait_some(iv, n, widx, status, cmp, scalar));
                    EXPECT_EQ(want[0], widx[0]);
                }
                if (want.size() == included) {
                    if (vector)
                        ops.wait_all_vector(iv, n, status, cmp, cmp_values);
                    else
                        ops.wait_all(iv, n, status, cmp, scalar);
                }
            }
    // No element, or every element excluded: at once, with the "nothing" answers.
    const int all_out[n] = { 1, 1, 1, 1, 1, 1, 1 };
    size_t idx[n];
    EXPECT_EQ(1, ops.test_all(iv, 0, nullptr, SYMH_CMP_EQ, 0));
    EXPECT_EQ(SIZE_MAX, ops.wait_any(iv, n, all_out, SYMH_CMP_EQ, 0));
    EXPECT_EQ(0u, ops.wait_some(iv, n, idx, all_out, SYMH_CMP_EQ, 0));
    ops.wait_all(iv, n, all_out, SYMH_CMP_EQ, 0);
    EXPECT_EQ(SIZE_MAX, ops.test_any(nullptr, 0, nullptr, SYMH_CMP_EQ, 0));
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_free(iv);
}

#define ARRAY_OPS(NAME, TYPE)                                                           \
    ArrayOps<TYPE>                                                                      \
    {                                                                                   \
#NAME, symh_##NAME##_test_all, symh_##NAME##_test_any, symh_##NAME##_test_some, \
            symh_##NAME##_test_all_vector, symh_##NAME##_test_any_vector,               \
            symh_##NAME##_test_some_vector, symh_##NAME##_wait_until_all,               \
            symh_##NAME##_wait_until_any, symh_##NAME##_wait_until_some,                \
            symh_##NAME##_wait_until_all_vector, symh_##NAME##_wait_until_any_vector,   \
            symh_##NAME##_wait_until_some_vector                                        \
    }

TEST_F(Waits, EveryFormTypeAndComparisonWithMasks)
{
#define RUN(NAME, TYPE) run_arrays<TYPE>(ARRAY_OPS(NAME, TYPE));
    SYMH_P2P_TYPES(RUN)
#undef RUN
}

// The waits wake on a peer's updates: the left neighbour sets elements of this PE's array one
// by one, and each wait returns when its condition holds.
TEST_F(Waits, WaitsWakeOnPeerUpdates)
{
    const size_t n = 8;
    long *iv = (long *)symh_calloc(n, sizeof(long));
    auto *ack = (long *)symh_calloc(1, sizeof(long));
    ASSERT_TRUE(iv && ack);
    // Phase 1: one element.
    symh_long_atomic_set(&iv[3], 5, right());
    EXPECT_EQ(3u, symh_long_wait_until_any(iv, n, nullptr, SYMH_CMP_EQ, 5));
    // Phase 2 starts once the right PE has seen phase 1 (else its wait_until_any could find
    // element 0 first): two more, excluding element 3; at least one is seen, only real ones
    // are listed.
    symh_long_atomic_set(ack, 1, left());
    symh_long_wait_until(ack, SYMH_CMP_EQ, 1);
    symh_long_atomic_set(&iv[0], 5, right());
    symh_long_atomic_set(&iv[6], 5, right());
    const int no3[n] = { 0, 0, 0, 1, 0, 0, 0, 0 };
    size_t idx[n];
    size_t got = symh_long_wait_until_some(iv, n, idx, no3, SYMH_CMP_EQ, 5);
    ASSERT_GE(got, 1u);
    ASSERT_LE(got, 2u);
    for (size_t k = 0; k < got; ++k)
        EXPECT_TRUE(idx[k] == 0 || idx[k] == 6) << idx[k];
    const int only[n] = { 0, 1, 1, 1, 1, 1, 0, 1 };
    symh_long_wait_until_all(iv, n, only, SYMH_CMP_EQ, 5);
    // Phase 3: the rest, to per-element values, through a vector wait.
    long want[n];
    for (size_t i = 0; i < n; ++i)
        want[i] = (i == 0 || i == 3 || i == 6) ? 5 : (long)(10 + i);
    for (size_t i = 0; i < n; ++i)
        if (want[i] != 5)
            symh_long_atomic_set(&iv[i], want[i], right());
    symh_long_wait_until_all_vector(iv, n, nullptr, SYMH_CMP_EQ, want);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all();
    symh_free(ack);
    symh_free(iv);
}

TEST_F(Waits, Misuse)
{
    long *iv = (long *)symh_calloc(4, sizeof(long));
    ASSERT_NE(nullptr, iv);
    long on_stack[4] = {};
    size_t idx[4];
    expect_one_line("cmp 6 is not one of",
                    [&] { EXPECT_EQ(0, symh_long_test_all(iv, 4, nullptr, 6, 0)); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    expect_one_line("is not a symmetric address", [&] {
        EXPECT_EQ(SIZE_MAX, symh_long_wait_until_any(on_stack, 4, nullptr, SYMH_CMP_EQ, 0));
    });
    expect_one_line("indices is NULL", [&] {
        EXPECT_EQ(0u, symh_long_test_some(iv, 4, nullptr, nullptr, SYMH_CMP_EQ, 0));
    });
    expect_one_line("cmp_values is NULL",
                    [&] { symh_long_wait_until_all_vector(iv, 4, nullptr, SYMH_CMP_EQ, nullptr); });
    expect_one_line("runs past the end",
                    [&] { (void)symh_long_test_any(iv, SIZE_MAX / 4, nullptr, SYMH_CMP_EQ, 0); });
    expect_one_line("cmp 6 is not one of", [&] {
        EXPECT_EQ(0u, symh_long_wait_until_some_vector(iv, 4, idx, nullptr, 6, on_stack));
    });
    symh_barrier_all();
    symh_free(iv);
}

// ---- locks --------------------------------------------------------------------------------------

class Locks : public SymhSuiteInitTest
{
};

// A lock word and a counter among the executable's globals (symmetric, docs/globals.md).
long global_lock;
long global_counter;

// Every PE increments a counter on PE 0 by a get and a put (no atomic) under the lock, `rounds`
// times: with mutual exclusion no increment is lost, and the lock word is clean afterwards.
void contend(long *lock, long *counter)
{
    const int rounds = 30;
    for (int r = 0; r < rounds; ++r) {
        symh_set_lock(lock);
        ASSERT_EQ(SYMH_OK, symh_last_error());
        long v = symh_long_g(counter, 0);
        symh_long_p(counter, v + 1, 0);
        symh_clear_lock(lock);
        ASSERT_EQ(SYMH_OK, symh_last_error());
    }
    symh_barrier_all();
    EXPECT_EQ((long)rounds * npes(), symh_long_g(counter, 0));
    EXPECT_EQ(0L, *lock); // every queue node and the tail are clean again
    symh_barrier_all();
}

TEST_F(Locks, ContendedHeapLockLosesNoIncrement)
{
    auto *lock = (long *)symh_calloc(1, sizeof(long));
    auto *counter = (long *)symh_calloc(1, sizeof(long));
    ASSERT_TRUE(lock && counter);
    contend(lock, counter);
    symh_free(counter);
    symh_free(lock);
}

TEST_F(Locks, ContendedGlobalLockLosesNoIncrement)
{
    contend(&global_lock, &global_counter);
}

TEST_F(Locks, TestLockTakesOnlyAFreeLock)
{
    auto *lock = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, lock);
    const int holder = npes() - 1;
    if (me() == holder) {
        EXPECT_EQ(0, symh_test_lock(lock)); // free: taken
    }
    symh_barrier_all();
    EXPECT_EQ(1, symh_test_lock(lock)); // held (by the holder itself too)
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all();
    if (me() == holder) {
        expect_one_line("already holds lock", [&] { symh_set_lock(lock); });
        symh_clear_lock(lock);
        EXPECT_EQ(SYMH_OK, symh_last_error());
    }
    symh_barrier_all();
    expect_one_line("does not hold lock", [&] { symh_clear_lock(lock); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    symh_barrier_all();
    // Free again: exactly one PE's test_lock wins at a time.
    int won = symh_test_lock(lock) == 0;
    symh_barrier_all();
    EXPECT_EQ(1, count_pes(won));
    if (won)
        symh_clear_lock(lock);
    symh_barrier_all();
    long on_stack = 0;
    expect_one_line("is not a symmetric address", [&] { symh_set_lock(&on_stack); });
    symh_barrier_all();
    symh_free(lock);
}

// ---- sized RMA and the small routines -----------------------------------------------------------

class Routines : public SymhSuiteInitTest
{
};

TEST_F(Routines, SizedRmaForms)
{
    const size_t n = 6;
    auto *sym = (uint64_t *)symh_calloc(4 * n, sizeof(uint64_t));
    ASSERT_NE(nullptr, sym);
    reg_vector<uint64_t> src(4 * n), out(4 * n);
    for (size_t i = 0; i < 4 * n; ++i)
        src[i] = (uint64_t)me() * 1000 + i;
    symh_put128(sym, src.data(), n, right());               // elements 0 .. 2n-1
    symh_iput32(sym + 2 * n, src.data(), 2, 2, n, right()); // every other uint32_t
    symh_put8_nbi(sym + 3 * n, src.data(), 3, right());
    symh_quiet();
    symh_barrier_all();
    for (size_t i = 0; i < 2 * n; ++i)
        EXPECT_EQ((uint64_t)left() * 1000 + i, sym[i]);
    symh_get64(out.data(), sym, 2 * n, right());
    for (size_t i = 0; i < 2 * n; ++i)
        EXPECT_EQ((uint64_t)me() * 1000 + i, out[i]);
    symh_iget16(out.data(), sym, 4, 4, 2, right());
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all();
    symh_free(sym);
}

TEST_F(Routines, MallocWithHintsTeamPtrQueryThreadPcontrol)
{
    void *a = symh_malloc_with_hints(1000, SYMH_MALLOC_ATOMICS_REMOTE | SYMH_MALLOC_SIGNAL_REMOTE);
    ASSERT_NE(nullptr, a);
    // A hint bit OpenSHMEM 1.5 does not define is ignored, without a line at the default level:
    // the allocation is made, symmetric, on every PE.
    void *b = a;
    std::string log = symh_captured_log([&] { b = symh_malloc_with_hints(64, 1L << 5); });
    ASSERT_NE(nullptr, b);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_EQ(0u, log_lines(log)) << log;
    symh_long_p(static_cast<long *>(b), me(), right());
    symh_barrier_all();
    EXPECT_EQ(left(), *static_cast<long *>(b));
    symh_free(b);
    log = symh_captured_log([&] { b = symh_malloc_with_hints(0, 0); });
    EXPECT_EQ(nullptr, b);
    for (int pe = 0; pe < npes(); ++pe)
        EXPECT_EQ(symh_ptr(a, pe), symh_team_ptr(SYMH_TEAM_WORLD, a, pe));
    expect_one_line("is not in the team",
                    [&] { EXPECT_EQ(nullptr, symh_team_ptr(SYMH_TEAM_WORLD, a, npes())); });
    expect_one_line("is not a live team",
                    [&] { EXPECT_EQ(nullptr, symh_team_ptr(SYMH_TEAM_INVALID, a, 0)); });
    int provided = -1;
    symh_query_thread(&provided);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_GE(provided, SYMH_THREAD_SINGLE);
    EXPECT_LE(provided, SYMH_THREAD_MULTIPLE);
    expect_one_line("provided is NULL", [] { symh_query_thread(nullptr); });
    symh_pcontrol(0);
    symh_pcontrol(2, "anything");
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_free(a);
}

} // namespace
