// Multi-PE tests of RMA, atomics and point-to-point synchronization over the node-local IPC
// transport: ring and all-to-all transfers of 1 B .. 4 MiB, every typed family, strided and
// non-blocking forms, fence ordering, atomics under contention, token rings, the pointer queries
// and every misuse (one log line, nothing written, the error recorded), ranges bounded by their
// allocation included.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <sched.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <symheap.h>
#include <symheap/rma.h>

#include "mpi_test_util.hpp"

namespace
{

using namespace symh_test;

// Quiet and barrier in one: a NIC transport's peers keep progressing while it waits.
void barrier()
{
    symh_barrier_all();
}

// ---- before init ------------------------------------------------------------------------------

class RmaBeforeInit : public SymhTest
{
};

TEST_F(RmaBeforeInit, EveryCallFailsCleanly)
{
    int local = 0;
    std::string log = symh_captured_log([&] {
        symh_putmem(&local, &local, sizeof(local), 0);
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        symh_getmem(&local, &local, sizeof(local), 0);
        symh_int_p(&local, 1, 0);
        EXPECT_EQ(0, symh_int_g(&local, 0));
        symh_quiet();
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        EXPECT_EQ(0L, symh_long_atomic_fetch_add((long *)&local, 1, 0));
        EXPECT_EQ(0, symh_int_test(&local, SYMH_CMP_EQ, 0));
        EXPECT_EQ(nullptr, symh_ptr(&local, 0));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
    });
    for (const char *fn : { "symh_putmem", "symh_getmem", "symh_int_p", "symh_int_g", "symh_quiet",
                            "symh_long_atomic_fetch_add", "symh_int_test", "symh_ptr" })
        EXPECT_EQ(1u, count_lines(log, std::string(fn) + ": symheap is not initialized")) << log;
    EXPECT_EQ(0, local);
}

// ---- initialized ------------------------------------------------------------------------------

class Rma : public InitSuite
{
  protected:
};

const size_t kSizes[] = {
    1, 2, 3, 7, 8, 15, 64, 127, 1000, 4096, 65537, 1u << 20, (4u << 20) - 1, 4u << 20
};

TEST_F(Rma, PutmemGetmemRingEverySize)
{
    const size_t max = 4u << 20;
    auto *buf = (unsigned char *)symh_malloc(max + 64);
    ASSERT_NE(nullptr, buf);
    reg_vector<unsigned char> src(max), got(max);
    for (size_t size : kSizes) {
        memset(buf, 0xEE, max + 64);
        for (size_t i = 0; i < size; ++i)
            src[i] = pattern(me(), size, i);
        barrier();
        symh_putmem(buf, src.data(), size, right());
        EXPECT_EQ(SYMH_OK, symh_last_error());
        barrier();
        for (size_t i = 0; i < size; ++i)
            if (buf[i] != pattern(left(), size, i)) {
                ADD_FAILURE() << "putmem size " << size << " byte " << i;
                break;
            }
        EXPECT_EQ(0xEE, buf[size]) << "putmem of " << size << " wrote past its end";
        // The right neighbour's buffer holds what this PE put there.
        symh_getmem_nbi(got.data(), buf, size, right());
        symh_quiet();
        EXPECT_EQ(0, memcmp(got.data(), src.data(), size)) << "getmem size " << size;
        symh_getmem(got.data(), buf, size, right());
        EXPECT_EQ(0, memcmp(got.data(), src.data(), size)) << "getmem size " << size;
        barrier();
    }
    symh_free(buf);
}

TEST_F(Rma, PutmemGetmemAllToAll)
{
    const int n = npes();
    for (size_t size : { (size_t)1, (size_t)13, (size_t)4096, (size_t)65539, (size_t)(1u << 20) }) {
        auto *buf = (unsigned char *)symh_malloc(size * n);
        ASSERT_NE(nullptr, buf);
        reg_vector<unsigned char> src(size), got(size);
        for (size_t i = 0; i < size; ++i)
            src[i] = pattern(me(), size, i);
        barrier();
        for (int k = 0; k < n; ++k)
            symh_putmem_nbi(buf + size * me(), src.data(), size, (me() + k) % n);
        barrier();
        for (int pe = 0; pe < n; ++pe)
            for (size_t i = 0; i < size; ++i)
                if (buf[size * pe + i] != pattern(pe, size, i)) {
                    ADD_FAILURE() << "slot of PE " << pe << " size " << size << " byte " << i;
                    break;
                }
        for (int pe = 0; pe < n; ++pe) {
            symh_getmem(got.data(), buf + size * me(), size, pe);
            EXPECT_EQ(0, memcmp(got.data(), src.data(), size)) << "from PE " << pe;
        }
        barrier();
        symh_free(buf);
    }
}

// One typed family: its functions, taken from the X-macro list of the public header.
template <typename T> struct TypedOps {
    const char *name;
    void (*put)(T *, const T *, size_t, int);
    void (*get)(T *, const T *, size_t, int);
    void (*put_nbi)(T *, const T *, size_t, int);
    void (*get_nbi)(T *, const T *, size_t, int);
    void (*p)(T *, T, int);
    T (*g)(const T *, int);
    void (*iput)(T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int);
    void (*iget)(T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int);
};

template <typename T> T value_of(int pe, size_t i)
{
    return (T)((pe * 13 + (int)i) % 100);
}

template <typename T> void run_typed(const TypedOps<T> &ops)
{
    SCOPED_TRACE(ops.name);
    const size_t n = 37;
    const T sentinel = (T)101;
    T *sym = (T *)symh_malloc(3 * n * sizeof(T));
    ASSERT_NE(nullptr, sym);
    reg_vector<T> mine(n), out(3 * n);
    for (size_t i = 0; i < n; ++i)
        mine[i] = value_of<T>(me(), i);
    for (size_t i = 0; i < 3 * n; ++i)
        sym[i] = sentinel;
    barrier();
    ops.put(sym, mine.data(), n, right());
    ops.put_nbi(sym + n, mine.data(), n, right());
    for (size_t i = 0; i < n; ++i)
        ops.p(sym + 2 * n + i, mine[i], right());
    EXPECT_EQ(SYMH_OK, symh_last_error());
    barrier();
    for (size_t i = 0; i < 3 * n; ++i)
        ASSERT_TRUE(sym[i] == value_of<T>(left(), i % n)) << "element " << i;
    ops.get(out.data(), sym, n, right());
    ops.get_nbi(out.data() + n, sym + n, n, right());
    symh_quiet();
    for (size_t i = 0; i < n; ++i)
        out[2 * n + i] = ops.g(sym + 2 * n + i, right());
    for (size_t i = 0; i < 3 * n; ++i)
        ASSERT_TRUE(out[i] == value_of<T>(me(), i % n)) << "element " << i;
    barrier();

    // Strided: every third remote element from every second local one, then back.
    for (size_t i = 0; i < 3 * n; ++i)
        sym[i] = sentinel;
    barrier();
    ops.iput(sym, mine.data(), 3, 2, 10, right());
    barrier();
    for (size_t i = 0; i < 3 * n; ++i) {
        bool hit = i % 3 == 0 && i / 3 < 10;
        ASSERT_TRUE(sym[i] == (hit ? value_of<T>(left(), 2 * (i / 3)) : sentinel)) << i;
    }
    for (size_t i = 0; i < 3 * n; ++i)
        out[i] = sentinel;
    ops.iget(out.data(), sym, 2, 3, 10, right());
    for (size_t i = 0; i < 3 * n; ++i) {
        bool hit = i % 2 == 0 && i / 2 < 10;
        ASSERT_TRUE(out[i] == (hit ? value_of<T>(me(), 2 * (i / 2) * 1) : sentinel)) << i;
    }
    barrier();
    symh_free(sym);
}

TEST_F(Rma, EveryTypedFamilyRing)
{
#define RUN_TYPED(NAME, TYPE)                                                                      \
    run_typed<TYPE>(TypedOps<TYPE>{ #NAME, symh_##NAME##_put, symh_##NAME##_get,                   \
                                    symh_##NAME##_put_nbi, symh_##NAME##_get_nbi, symh_##NAME##_p, \
                                    symh_##NAME##_g, symh_##NAME##_iput, symh_##NAME##_iget });
    SYMH_RMA_TYPES(RUN_TYPED)
#undef RUN_TYPED
}

TEST_F(Rma, FenceOrdersDataBeforeFlag)
{
    const size_t words = 1024;
    auto *data = (long *)symh_malloc(words * sizeof(long));
    auto *flag = (long *)symh_calloc(2, sizeof(long)); // [0] data ready, [1] data consumed
    ASSERT_NE(nullptr, data);
    ASSERT_NE(nullptr, flag);
    reg_vector<long> src(words);
    for (long round = 1; round <= 200; ++round) {
        for (size_t i = 0; i < words; ++i)
            src[i] = round * 100000 + me() * 1000 + (long)i;
        // The right neighbour has consumed the previous round before it is overwritten.
        symh_long_wait_until(&flag[1], SYMH_CMP_GE, round - 1);
        symh_long_put(data, src.data(), words, right());
        symh_fence();
        symh_long_p(&flag[0], round, right());
        symh_long_wait_until(&flag[0], SYMH_CMP_GE, round);
        for (size_t i = 0; i < words; ++i)
            if (data[i] != round * 100000 + left() * 1000 + (long)i)
                FAIL() << "round " << round << " word " << i << " seen before its data";
        symh_long_atomic_set(&flag[1], round, left());
    }
    barrier();
    symh_free(flag);
    symh_free(data);
}

TEST_F(Rma, AtomicAddUnderContentionIsExact)
{
    auto *counter = (long *)symh_calloc(2, sizeof(long));
    ASSERT_NE(nullptr, counter);
    const int iters = 20000;
    for (int i = 0; i < iters; ++i) {
        symh_long_atomic_add(&counter[0], 1, 0);
        long old = symh_long_atomic_fetch_inc(&counter[1], 0);
        ASSERT_GE(old, 0);
    }
    barrier();
    EXPECT_EQ((long)iters * npes(), symh_long_atomic_fetch(&counter[0], 0));
    EXPECT_EQ((long)iters * npes(), symh_long_atomic_fetch(&counter[1], 0));
    barrier();
    symh_free(counter);
}

// Every standard AMO type: inc, add, fetch_add, fetch_inc, compare_swap, swap, set, fetch.
template <typename T> struct StandardAmoOps {
    const char *name;
    T (*fetch)(const T *, int);
    void (*set)(T *, T, int);
    T (*swap)(T *, T, int);
    T (*compare_swap)(T *, T, T, int);
    T (*fetch_inc)(T *, int);
    void (*inc)(T *, int);
    T (*fetch_add)(T *, T, int);
    void (*add)(T *, T, int);
};

template <typename T> void run_standard_amo(const StandardAmoOps<T> &ops)
{
    SCOPED_TRACE(ops.name);
    T *v = (T *)symh_calloc(4, sizeof(T));
    ASSERT_NE(nullptr, v);
    for (int i = 0; i < 100; ++i) {
        ops.inc(&v[0], 0);
        ops.add(&v[0], (T)2, 0);
        (void)ops.fetch_inc(&v[0], 0);
        (void)ops.fetch_add(&v[0], (T)3, 0);
    }
    // Each PE claims slot 1 of its right neighbour exactly once.
    EXPECT_TRUE(ops.compare_swap(&v[1], (T)0, (T)(me() + 1), right()) == (T)0);
    EXPECT_TRUE(ops.compare_swap(&v[1], (T)0, (T)99, right()) == (T)(me() + 1));
    ops.set(&v[2], (T)(me() + 5), right());
    barrier();
    EXPECT_TRUE(ops.fetch(&v[0], 0) == (T)(700 * npes()));
    EXPECT_TRUE(v[1] == (T)(left() + 1));
    EXPECT_TRUE(ops.swap(&v[2], (T)7, me()) == (T)(left() + 5));
    EXPECT_TRUE(ops.fetch(&v[2], me()) == (T)7);
    barrier();
    symh_free(v);
}

TEST_F(Rma, EveryStandardAmoType)
{
#define RUN_AMO(NAME, TYPE)                                                                     \
    run_standard_amo<TYPE>(StandardAmoOps<TYPE>{                                                \
        #NAME, symh_##NAME##_atomic_fetch, symh_##NAME##_atomic_set, symh_##NAME##_atomic_swap, \
        symh_##NAME##_atomic_compare_swap, symh_##NAME##_atomic_fetch_inc,                      \
        symh_##NAME##_atomic_inc, symh_##NAME##_atomic_fetch_add, symh_##NAME##_atomic_add });
    SYMH_AMO_STANDARD_TYPES(RUN_AMO)
#undef RUN_AMO
}

TEST_F(Rma, CompareSwapLockProtectsAPlainCounter)
{
    auto *lock = (int *)symh_calloc(1, sizeof(int));
    auto *counter = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, lock);
    ASSERT_NE(nullptr, counter);
    const int iters = 300;
    for (int i = 0; i < iters; ++i) {
        while (symh_int_atomic_compare_swap(lock, 0, me() + 1, 0) != 0)
            sched_yield();
        long v = symh_long_g(counter, 0);
        symh_long_p(counter, v + 1, 0);
        symh_quiet();
        EXPECT_EQ(me() + 1, symh_int_atomic_swap(lock, 0, 0));
    }
    barrier();
    EXPECT_EQ((long)iters * npes(), symh_long_g(counter, 0));
    barrier();
    symh_free(counter);
    symh_free(lock);
}

TEST_F(Rma, FloatAndDoubleFetchSetSwap)
{
    auto *f = (float *)symh_calloc(1, sizeof(float));
    auto *d = (double *)symh_calloc(1, sizeof(double));
    ASSERT_NE(nullptr, f);
    ASSERT_NE(nullptr, d);
    symh_float_atomic_set(f, (float)me() + 0.5f, right());
    symh_double_atomic_set(d, (double)me() + 0.25, right());
    barrier();
    EXPECT_EQ((float)left() + 0.5f, symh_float_atomic_fetch(f, me()));
    EXPECT_EQ((double)left() + 0.25, symh_double_atomic_fetch(d, me()));
    barrier();
    EXPECT_EQ((float)me() + 0.5f, symh_float_atomic_swap(f, -1.5f, right()));
    EXPECT_EQ((double)me() + 0.25, symh_double_atomic_swap(d, -2.75, right()));
    barrier();
    EXPECT_EQ(-1.5f, *f);
    EXPECT_EQ(-2.75, *d);
    barrier();
    symh_free(d);
    symh_free(f);
}

template <typename T> struct BitwiseOps {
    const char *name;
    T (*fetch_and)(T *, T, int);
    T (*fetch_or)(T *, T, int);
    T (*fetch_xor)(T *, T, int);
    void (*and_)(T *, T, int);
    void (*or_)(T *, T, int);
    void (*xor_)(T *, T, int);
};

template <typename T> void run_bitwise(const BitwiseOps<T> &ops)
{
    SCOPED_TRACE(ops.name);
    T *v = (T *)symh_calloc(2, sizeof(T));
    ASSERT_NE(nullptr, v);
    const T bit = (T)((T)1 << me()), all = (T)(((T)1 << npes()) - 1);
    ops.or_(&v[0], bit, 0);
    (void)ops.fetch_or(&v[1], bit, 0);
    barrier();
    EXPECT_TRUE(ops.fetch_xor(&v[0], (T)0, 0) == all);
    EXPECT_TRUE(ops.fetch_and(&v[1], (T) ~(T)0, 0) == all);
    barrier();
    ops.xor_(&v[0], bit, 0); // clears this PE's bit
    T was = ops.fetch_and(&v[1], (T)~bit, 0);
    EXPECT_TRUE((was & bit) == bit);
    barrier();
    EXPECT_TRUE(ops.fetch_or(&v[0], (T)0, 0) == (T)0);
    EXPECT_TRUE(ops.fetch_xor(&v[1], (T)0, 0) == (T)0);
    ops.and_(&v[0], (T)0, 0);
    barrier();
    symh_free(v);
}

TEST_F(Rma, EveryBitwiseAmoType)
{
#define RUN_BITWISE(NAME, TYPE)                                                                   \
    run_bitwise<TYPE>(BitwiseOps<TYPE>{ #NAME, symh_##NAME##_atomic_fetch_and,                    \
                                        symh_##NAME##_atomic_fetch_or,                            \
                                        symh_##NAME##_atomic_fetch_xor, symh_##NAME##_atomic_and, \
                                        symh_##NAME##_atomic_or, symh_##NAME##_atomic_xor });
    SYMH_AMO_BITWISE_TYPES(RUN_BITWISE)
#undef RUN_BITWISE
}

// A token passes round the ring `rounds` times; PE 0 starts each round.
void token_ring(long *token, long rounds, bool poll_with_test)
{
    for (long r = 1; r <= rounds; ++r) {
        if (me() != 0) {
            if (poll_with_test)
                while (!symh_long_test(token, SYMH_CMP_GE, r))
                    sched_yield();
            else
                symh_long_wait_until(token, SYMH_CMP_GE, r);
        }
        symh_long_p(token, r, right());
        if (me() == 0)
            symh_long_wait_until(token, SYMH_CMP_EQ, r);
    }
}

TEST_F(Rma, TokenRingWithTest)
{
    auto *token = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, token);
    token_ring(token, 100, true);
    EXPECT_EQ(100, *token);
    barrier();
    symh_free(token);
}

// 8 PEs on 2 cores: the waits must yield, or this takes minutes (the CTest timeout catches it).
TEST_F(Rma, ThousandRoundTokenRing)
{
    auto *token = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, token);
    token_ring(token, 1000, false);
    EXPECT_EQ(1000, *token);
    barrier();
    symh_free(token);
}

TEST_F(Rma, EveryComparison)
{
    auto *v = (int *)symh_malloc(sizeof(int));
    ASSERT_NE(nullptr, v);
    *v = 5;
    const struct {
        int cmp;
        int lt, eq, gt; // results against 6, 5, 4
    } cases[] = { { SYMH_CMP_EQ, 0, 1, 0 }, { SYMH_CMP_NE, 1, 0, 1 }, { SYMH_CMP_GT, 0, 0, 1 },
                  { SYMH_CMP_GE, 0, 1, 1 }, { SYMH_CMP_LT, 1, 0, 0 }, { SYMH_CMP_LE, 1, 1, 0 } };
    for (const auto &c : cases) {
        EXPECT_EQ(c.lt, symh_int_test(v, c.cmp, 6)) << c.cmp;
        EXPECT_EQ(c.eq, symh_int_test(v, c.cmp, 5)) << c.cmp;
        EXPECT_EQ(c.gt, symh_int_test(v, c.cmp, 4)) << c.cmp;
        EXPECT_EQ(SYMH_OK, symh_last_error());
    }
    // Each holds now, so the waits return at once.
    symh_int_wait_until(v, SYMH_CMP_EQ, 5);
    symh_int_wait_until(v, SYMH_CMP_NE, 4);
    symh_int_wait_until(v, SYMH_CMP_GT, 4);
    symh_int_wait_until(v, SYMH_CMP_GE, 5);
    symh_int_wait_until(v, SYMH_CMP_LT, 6);
    symh_int_wait_until(v, SYMH_CMP_LE, 5);
    barrier();
    symh_free(v);
}

TEST_F(Rma, PointerQueries)
{
    auto *buf = (int *)symh_malloc(sizeof(int));
    ASSERT_NE(nullptr, buf);
    int local = 0;
    for (int pe = 0; pe < npes(); ++pe) {
        EXPECT_EQ(expected_reachable(pe) ? 1 : 0, symh_pe_accessible(pe)) << expected_route(pe);
        EXPECT_EQ(expected_reachable(pe) ? 1 : 0, symh_addr_accessible(buf, pe));
        EXPECT_EQ(0, symh_addr_accessible(&local, pe));
        EXPECT_EQ(expected_mapped(pe), symh_ptr(buf, pe) != nullptr) << expected_route(pe);
    }
    EXPECT_EQ(buf, symh_ptr(buf, me()));
    EXPECT_EQ(0, symh_pe_accessible(-1));
    EXPECT_EQ(0, symh_pe_accessible(npes()));
    EXPECT_EQ(0, symh_addr_accessible(buf, npes()));
    EXPECT_EQ(SYMH_OK, symh_last_error());
    if (expected_mapped(right())) {
        *(int *)symh_ptr(buf, right()) = 1000 + me();
    } else {
        symh_int_p(buf, 1000 + me(), right()); // a NIC peer: no load/store address
    }
    barrier();
    EXPECT_EQ(1000 + left(), *buf);
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(nullptr, symh_ptr(&local, 0));
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
        EXPECT_EQ(nullptr, symh_ptr(buf, npes()));
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    });
    EXPECT_EQ(1u, count_lines(log, "symh_ptr: dest ")) << log;
    EXPECT_EQ(1u, count_lines(log, "symh_ptr: pe ")) << log;
    barrier();
    symh_free(buf);
}

// ---- misuse -------------------------------------------------------------------------------------

class RmaMisuse : public Rma
{
  protected:
    static const size_t kBytes = 256;
    void SetUp() override
    {
        Rma::SetUp();
        target = (unsigned char *)symh_malloc(kBytes);
        sentinel = (unsigned char *)symh_malloc(kBytes);
        ASSERT_NE(nullptr, target);
        ASSERT_NE(nullptr, sentinel);
        memset(target, 0x11, kBytes);
        memset(sentinel, 0x5A, kBytes);
        memset(src, 0x77, sizeof(src));
        barrier();
    }
    void TearDown() override
    {
        barrier();
        for (size_t i = 0; i < kBytes; ++i) {
            ASSERT_EQ(0x11, target[i]) << "a refused call wrote to the target, byte " << i;
            ASSERT_EQ(0x5A, sentinel[i]) << "a refused call wrote past the target, byte " << i;
        }
        barrier();
        symh_free(sentinel);
        symh_free(target);
        Rma::TearDown();
    }
    // Runs one misuse; it must log one line containing `expect` and record `status`.
    template <typename F> void expect_refused(const std::string &expect, int status, F action)
    {
        std::string log = symh_captured_log([&] {
            action();
            EXPECT_EQ(status, symh_last_error()) << expect;
        });
        EXPECT_EQ(1u, count_lines(log, "\n")) << log;
        EXPECT_NE(std::string::npos, log.find(expect)) << "expected '" << expect << "' in " << log;
    }
    unsigned char *target = nullptr, *sentinel = nullptr;
    unsigned char src[2 * kBytes];
};

TEST_F(RmaMisuse, PeOutOfRange)
{
    expect_refused("symh_putmem: pe " + std::to_string(npes()) + " is out of range",
                   SYMH_ERR_INVALID_ARG, [&] { symh_putmem(target, src, 8, npes()); });
    expect_refused("symh_getmem: pe -1 is out of range", SYMH_ERR_INVALID_ARG,
                   [&] { symh_getmem(src, target, 8, -1); });
    expect_refused("symh_int_p: pe -7 is out of range", SYMH_ERR_INVALID_ARG,
                   [&] { symh_int_p((int *)target, 3, -7); });
    expect_refused("symh_long_atomic_add: pe " + std::to_string(npes() + 3), SYMH_ERR_INVALID_ARG,
                   [&] { symh_long_atomic_add((long *)target, 3, npes() + 3); });
}

TEST_F(RmaMisuse, NotSymmetric)
{
    unsigned char stack[64];
    memset(stack, 0x33, sizeof(stack));
    expect_refused("symh_putmem: dest ", SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_putmem(stack, src, 8, right()); });
    expect_refused("is not a symmetric address", SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_getmem(target, stack, 8, right()); });
    expect_refused("symh_int_iput: dest ", SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_int_iput((int *)stack, (int *)src, 1, 1, 4, right()); });
    expect_refused("symh_int_atomic_swap: dest ", SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_int_atomic_swap((int *)stack, 1, right()); });
    expect_refused("symh_long_wait_until: ivar ", SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_long_wait_until((long *)stack, SYMH_CMP_EQ, 0); });
    expect_refused("symh_putmem: dest ", SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_putmem(nullptr, src, 8, right()); });
    for (unsigned char c : stack)
        ASSERT_EQ(0x33, c);
}

TEST_F(RmaMisuse, RangePastTheEndOfTheHeap)
{
    symh_heap_stats_t s{};
    ASSERT_EQ(SYMH_OK, symh_heap_stats(&s));
    expect_refused("runs past the end of the symmetric heap", SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_putmem(target, src, SIZE_MAX, right()); });
    expect_refused("symh_getmem: source ", SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_getmem(src, target, s.size + 1, right()); });
    // nelems * 8 overflows size_t to a small number: still refused.
    expect_refused("symh_long_put: dest ", SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_long_put((long *)target, (long *)src, SIZE_MAX / 8 + 2, right()); });
    expect_refused("symh_int_iput: dest ", SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_int_iput((int *)target, (int *)src, PTRDIFF_MAX, 1, 3, right()); });
}

TEST_F(RmaMisuse, Misaligned)
{
    expect_refused("symh_int_p: dest ", SYMH_ERR_INVALID_ARG,
                   [&] { symh_int_p((int *)(target + 1), 1, right()); });
    expect_refused("is not aligned to 8 bytes", SYMH_ERR_INVALID_ARG,
                   [&] { symh_long_put((long *)(target + 4), (long *)src, 2, right()); });
    expect_refused("symh_uint64_atomic_fetch_add: dest ", SYMH_ERR_INVALID_ARG,
                   [&] { symh_uint64_atomic_fetch_add((uint64_t *)(target + 2), 1, right()); });
    expect_refused("symh_double_atomic_set: dest ", SYMH_ERR_INVALID_ARG,
                   [&] { symh_double_atomic_set((double *)(target + 3), 1.0, right()); });
    expect_refused("symh_int_test: ivar ", SYMH_ERR_INVALID_ARG,
                   [&] { EXPECT_EQ(0, symh_int_test((int *)(target + 1), SYMH_CMP_NE, 0)); });
}

TEST_F(RmaMisuse, BadArguments)
{
    expect_refused("symh_putmem: source is NULL", SYMH_ERR_INVALID_ARG,
                   [&] { symh_putmem(target, nullptr, 8, right()); });
    expect_refused("symh_getmem: dest is NULL", SYMH_ERR_INVALID_ARG,
                   [&] { symh_getmem(nullptr, target, 8, right()); });
    expect_refused("symh_int_iput: strides must be positive (dst 0, sst 1)", SYMH_ERR_INVALID_ARG,
                   [&] { symh_int_iput((int *)target, (int *)src, 0, 1, 4, right()); });
    expect_refused("symh_int_iget: strides must be positive (dst 1, sst -2)", SYMH_ERR_INVALID_ARG,
                   [&] { symh_int_iget((int *)src, (int *)target, 1, -2, 4, right()); });
    expect_refused("symh_int_wait_until: cmp 6 is not one of", SYMH_ERR_INVALID_ARG,
                   [&] { symh_int_wait_until((int *)target, 6, 0); });
    expect_refused("symh_long_test: cmp -1 is not one of", SYMH_ERR_INVALID_ARG,
                   [&] { EXPECT_EQ(0, symh_long_test((long *)target, -1, 0)); });
}

TEST_F(RmaMisuse, ZeroLengthIsANoOpEvenWithNull)
{
    std::string log = symh_captured_log([&] {
        symh_putmem(target, src, 8, npes()); // leaves an error behind
        symh_putmem(nullptr, nullptr, 0, 12345);
        EXPECT_EQ(SYMH_OK, symh_last_error());
        symh_putmem(target, src, 8, -1);
        symh_getmem_nbi(nullptr, nullptr, 0, -3);
        EXPECT_EQ(SYMH_OK, symh_last_error());
        symh_putmem(target, src, 8, -1);
        symh_double_put(nullptr, nullptr, 0, npes());
        EXPECT_EQ(SYMH_OK, symh_last_error());
        symh_int_iput(nullptr, nullptr, 0, 0, 0, -1);
        EXPECT_EQ(SYMH_OK, symh_last_error());
        symh_longdouble_iget(nullptr, nullptr, 1, 1, 0, npes());
        EXPECT_EQ(SYMH_OK, symh_last_error());
    });
    EXPECT_EQ(3u, count_lines(log, "\n")) << log;
}

TEST_F(RmaMisuse, ASuccessfulCallClearsTheError)
{
    expect_refused("symh_putmem: pe", SYMH_ERR_INVALID_ARG,
                   [&] { symh_putmem(target, src, 8, -1); });
    unsigned char got[8];
    symh_getmem(got, target, sizeof(got), me());
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_EQ(0x11, got[0]);
}

// Run with PEs split into pretend nodes (rma_node2): peers on other nodes have no route here.
// Which PEs those are comes from the configuration (expected_route), not from the library.
TEST_F(RmaMisuse, UnreachablePe)
{
    int far = -1;
    for (int pe = 0; pe < npes(); ++pe) {
        EXPECT_EQ(expected_reachable(pe) ? 1 : 0, symh_pe_accessible(pe))
            << "PE " << pe << " is routed " << expected_route(pe) << " by the configuration";
        if (far < 0 && !expected_reachable(pe))
            far = pe;
    }
    ASSERT_GE(far, 0) << "run with pretend nodes (rma_node2): every PE is reachable here";
    const std::string route = "no load/store route to PE " + std::to_string(far);
    expect_refused("symh_putmem: " + route, SYMH_ERR_UNSUPPORTED,
                   [&] { symh_putmem(target, src, 8, far); });
    expect_refused("symh_int_g: " + route, SYMH_ERR_UNSUPPORTED,
                   [&] { EXPECT_EQ(0, symh_int_g((int *)target, far)); });
    expect_refused("symh_long_atomic_fetch_add: " + route, SYMH_ERR_UNSUPPORTED,
                   [&] { EXPECT_EQ(0, symh_long_atomic_fetch_add((long *)target, 1, far)); });
    expect_refused("symh_uint64_iget: " + route, SYMH_ERR_UNSUPPORTED,
                   [&] { symh_uint64_iget((uint64_t *)src, (uint64_t *)target, 1, 2, 4, far); });
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(nullptr, symh_ptr(target, far));
        EXPECT_EQ(SYMH_ERR_UNSUPPORTED, symh_last_error());
        EXPECT_EQ(0, symh_addr_accessible(target, far));
    });
    EXPECT_EQ(0u, count_lines(log, "\n")) << "an unreachable PE is an answer, not misuse: " << log;
}

// ---- bounds by allocation (docs/rma.md "Bounds by allocation") -------------------------------

// `target` and `sentinel` of RmaMisuse, next to each other: a range that runs past the target's
// end runs into the sentinel, which TearDown checks untouched on every PE (each PE is the right
// neighbour of another), after a barrier.
class RmaBounds : public RmaMisuse
{
  protected:
    void SetUp() override
    {
        RmaMisuse::SetUp();
        ASSERT_EQ(target + kBytes, sentinel) << "the two allocations are not neighbours";
    }
    // The start of the line for a range that runs past the end of the target.
    static std::string past(const void *alloc, size_t bytes)
    {
        char text[96];
        snprintf(text, sizeof(text), "runs past the end of its allocation (%p, %zu bytes", alloc,
                 bytes);
        return text;
    }
};

TEST_F(RmaBounds, CrossingIntoTheNextAllocationIsRefused)
{
    const std::string end = past(target, kBytes);
    for (int pe : { right(), me() }) {
        expect_refused("symh_putmem: dest ", SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_putmem(target + 200, src, 57, pe); });
        expect_refused(end, SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_putmem_nbi(target, src, kBytes + 1, pe); });
        expect_refused("symh_getmem: source ", SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_getmem(src, target + kBytes - 1, 2, pe); });
        expect_refused(end, SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_long_put((long *)target + 30, (long *)src, 3, pe); });
        expect_refused("symh_long_get_nbi: source ", SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_long_get_nbi((long *)src, (long *)target, 33, pe); });
        // Strided: 5 ints 16 apart span 65 ints, 260 bytes.
        expect_refused("symh_int_iput: dest ", SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_int_iput((int *)target, (int *)src, 16, 1, 5, pe); });
        expect_refused(end, SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_int_iget((int *)src, (int *)target, 1, 16, 5, pe); });
        // From the sentinel into freed heap after it.
        expect_refused(past(sentinel, kBytes), SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_putmem(sentinel + 8, src, kBytes, pe); });
    }
}

TEST_F(RmaBounds, FreedHeapIsRefused)
{
    auto *freed = (unsigned char *)symh_malloc(kBytes);
    auto *after = (unsigned char *)symh_malloc(kBytes);
    ASSERT_NE(nullptr, freed);
    ASSERT_NE(nullptr, after);
    symh_free(freed);
    const std::string line = "is in freed heap";
    for (int pe : { right(), me() }) {
        expect_refused("symh_putmem: dest ", SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_putmem(freed, src, 8, pe); });
        // Starts in freed heap, ends in a live allocation.
        expect_refused(line, SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_putmem(freed + 8, src, kBytes, pe); });
        expect_refused("symh_int_p: dest ", SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_int_p((int *)freed, 1, pe); });
        expect_refused(line, SYMH_ERR_NOT_REGISTERED,
                       [&] { EXPECT_EQ(0, symh_long_g((long *)freed, pe)); });
        expect_refused("symh_long_atomic_fetch_add: dest ", SYMH_ERR_NOT_REGISTERED,
                       [&] { EXPECT_EQ(0, symh_long_atomic_fetch_add((long *)freed, 1, pe)); });
        expect_refused(line, SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_uint64_atomic_or((uint64_t *)freed, 1, pe); });
    }
    expect_refused("symh_long_wait_until: ivar ", SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_long_wait_until((long *)freed, SYMH_CMP_NE, 0); });
    expect_refused(line, SYMH_ERR_NOT_REGISTERED,
                   [&] { EXPECT_EQ(0, symh_int_test((int *)freed, SYMH_CMP_EQ, 0)); });
    // An address query moves no data: bounded by the heap, as symh_addr_accessible is.
    EXPECT_EQ(freed, symh_ptr(freed, me()));
    barrier();
    symh_free(after);
}

TEST_F(RmaBounds, ExactlyFillingAnAllocationSucceeds)
{
    auto *big = (unsigned char *)symh_malloc(5 * 8192);
    ASSERT_NE(nullptr, big);
    reg_vector<unsigned char> data(5 * 8192);
    memset(data.data(), 0x22, 5 * 8192);
    barrier();
    symh_putmem(target, data.data(), kBytes, right());
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_long_put_nbi((long *)target, (long *)data.data(), kBytes / sizeof(long), right());
    symh_quiet();
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_int_iput((int *)target, (int *)data.data(), 21, 1, 4, right()); // spans 64 ints
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_long_atomic_set((long *)(target + kBytes - 8), 0x2222222222222222L, right());
    EXPECT_EQ(SYMH_OK, symh_last_error());
    reg_vector<unsigned char> got(kBytes);
    symh_getmem(got.data(), target, kBytes, right());
    EXPECT_EQ(SYMH_OK, symh_last_error());
    // Across several 8 KiB units of the map (the out-of-line walk), to the last byte.
    symh_putmem(big + 100, data.data(), 5 * 8192 - 100, right());
    EXPECT_EQ(SYMH_OK, symh_last_error());
    barrier();
    for (size_t i = 0; i < kBytes; ++i)
        ASSERT_EQ(0x22, target[i]) << "byte " << i;
    for (size_t i = 100; i < 5 * 8192; ++i)
        ASSERT_EQ(0x22, big[i]) << "byte " << i;
    memset(target, 0x11, kBytes); // as TearDown expects; the sentinel must be untouched
    barrier();
    symh_free(big);
}

TEST_F(RmaBounds, ReallocatedBlocksHaveTheirNewBounds)
{
    auto *block = (unsigned char *)symh_malloc(kBytes);
    ASSERT_NE(nullptr, block);
    auto *grown = (unsigned char *)symh_realloc(block, 4 * kBytes);
    ASSERT_NE(nullptr, grown);
    reg_vector<unsigned char> data(4 * kBytes + 1);
    memset(data.data(), 0x33, 4 * kBytes + 1);
    symh_putmem(grown, data.data(), 4 * kBytes, right());
    EXPECT_EQ(SYMH_OK, symh_last_error());
    expect_refused(past(grown, 4 * kBytes), SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_putmem(grown, data.data(), 4 * kBytes + 1, right()); });
    if (grown != block) // moved: the old block is freed heap now
        expect_refused("is in freed heap", SYMH_ERR_NOT_REGISTERED,
                       [&] { symh_putmem(block, data.data(), 8, right()); });
    auto *shrunk = (unsigned char *)symh_realloc(grown, 128);
    ASSERT_EQ(grown, shrunk) << "a shrinking realloc stays in place";
    symh_putmem(shrunk, data.data(), 128, right());
    EXPECT_EQ(SYMH_OK, symh_last_error());
    expect_refused(past(shrunk, 128), SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_putmem(shrunk, data.data(), 129, right()); });
    expect_refused("is in freed heap", SYMH_ERR_NOT_REGISTERED,
                   [&] { symh_putmem(shrunk + 128, data.data(), 8, right()); });
    barrier();
    symh_free(shrunk);
}

// ---- after finalize ---------------------------------------------------------------------------

class RmaAfterFinalize : public SymhTest
{
};

TEST_F(RmaAfterFinalize, EveryCallFailsCleanly)
{
    MPI_Barrier(MPI_COMM_WORLD);
    symh_finalize();
    long local = 0;
    std::string log = symh_captured_log([&] {
        symh_long_p(&local, 1, 0);
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        symh_fence();
        EXPECT_EQ(0L, symh_long_atomic_fetch(&local, 0));
    });
    EXPECT_EQ(1u, count_lines(log, "symh_long_p: symheap is not initialized")) << log;
    EXPECT_EQ(1u, count_lines(log, "symh_fence: symheap is not initialized")) << log;
    EXPECT_EQ(1u, count_lines(log, "symh_long_atomic_fetch: symheap is not initialized")) << log;
    // A new init works again, with a fresh translation.
    ASSERT_EQ(SYMH_OK, symh_init());
    auto *v = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, v);
    symh_long_atomic_inc(v, me());
    EXPECT_EQ(1, *v);
    barrier();
    symh_free(v);
    symh_finalize();
}

} // namespace
