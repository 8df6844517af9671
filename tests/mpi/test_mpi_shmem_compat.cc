// Multi-PE tests of the OpenSHMEM routines with logic of their own (src/shmem/,
// docs/openshmem-compat.md): the active-set collectives on the whole world and on strided subsets
// while the other PEs do not call, each checking the values and that pSync is back to
// SHMEM_SYNC_VALUE; pSync reused by consecutive barriers; start_pes; shmem_align's rules;
// shmem_info_get_version; and (ShmemEnv, run by their own CTest entries) SHMEM_SYMMETRIC_SIZE
// and its precedence under SYMH_HEAP_SIZE.
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <symheap.h>

#include "mpi_test_util.hpp"
#include <shmem.h>

namespace
{

using namespace symh_test;

constexpr int kSyncWords = 8; // more than any routine uses (SHMEM_*_SYNC_SIZE in shmem.h)

struct ActiveSet {
    int start, log_stride, size;
    const char *name;
    bool has(int pe) const
    {
        int stride = 1 << log_stride;
        return pe >= start && (pe - start) % stride == 0 && (pe - start) / stride < size;
    }
    int pe(int index) const
    {
        return start + index * (1 << log_stride);
    }
    int index(int pe) const
    {
        return (pe - start) >> log_stride;
    }
};

// The whole world, the odd PEs, and the PEs from 1 on with stride 2 up to 4 (at 8 PEs: 1, 5).
std::vector<ActiveSet> active_sets()
{
    std::vector<ActiveSet> sets{ { 0, 0, npes(), "world" } };
    if (npes() >= 2)
        sets.push_back({ 1, 1, npes() / 2, "odd" });
    if (npes() >= 4)
        sets.push_back({ npes() > 5 ? 1 : 0, 2, npes() > 5 ? 2 : 1, "stride4" });
    return sets;
}

class ShmemCompat : public SymhTest
{
  protected:
    static void SetUpTestSuite()
    {
        start_pes(0);
        ASSERT_EQ(1, symh_initialized());
    }
    static void TearDownTestSuite()
    {
        symh_finalize();
    }
    void SetUp() override
    {
        SymhTest::SetUp();
        psync_ = static_cast<long *>(symh_calloc(kSyncWords, sizeof(long)));
        ASSERT_NE(nullptr, psync_);
    }
    void TearDown() override
    {
        symh_free(psync_);
        SymhTest::TearDown();
    }
    // Every word of pSync is SHMEM_SYNC_VALUE (0) on this PE.
    void expect_psync_clear(const char *what)
    {
        for (int i = 0; i < kSyncWords; ++i)
            EXPECT_EQ(0, __atomic_load_n(&psync_[i], __ATOMIC_ACQUIRE))
                << what << ": pSync[" << i << "] on PE " << me();
    }
    long *psync_ = nullptr;
};

TEST_F(ShmemCompat, InfoGetVersionIsTheSpecifications)
{
    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    EXPECT_EQ(1, major);
    EXPECT_EQ(5, minor);
}

TEST_F(ShmemCompat, StartPesAgainIsANoOp)
{
    start_pes(npes() + 3); // npes is ignored
    EXPECT_EQ(1, symh_initialized());
    EXPECT_EQ(npes(), symh_n_pes());
    EXPECT_EQ(me(), symh_my_pe());
}

TEST_F(ShmemCompat, AlignTakesAnyPowerOfTwo)
{
    for (size_t a : { 1, 2, 4, 8, 64, 4096 }) {
        void *p = shmem_align(a, 100);
        ASSERT_NE(nullptr, p) << a;
        EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(p) % a) << a;
        EXPECT_EQ(1, symh_addr_accessible(p, (me() + 1) % npes()));
        symh_free(p);
    }
    // symh_align's refusals: NULL on every PE, one line for the job.
    std::string log = symh_captured_log([] { EXPECT_EQ(nullptr, shmem_align(24, 100)); });
    EXPECT_LE(log_lines(log), 1u) << log;
    EXPECT_EQ(1, count_pes(log.find("not a power of two") != std::string::npos)) << log;
    log = symh_captured_log([] { EXPECT_EQ(nullptr, shmem_align(8, 0)); });
    EXPECT_LE(log_lines(log), 1u) << log;
    EXPECT_EQ(1, count_pes(log.find("size 0") != std::string::npos)) << log;
}

// Two barriers a round on the same pSync: between them every member reads the counter that all
// members added to before the first; a member that ran ahead would be counted too early.
TEST_F(ShmemCompat, BarrierReusesPsyncRoundAfterRound)
{
    long *counter = static_cast<long *>(symh_calloc(1, sizeof(long)));
    ASSERT_NE(nullptr, counter);
    for (const ActiveSet &set : active_sets()) {
        if (set.has(me())) {
            for (int round = 1; round <= 100; ++round) {
                symh_long_atomic_add(counter, 1, set.pe(0));
                shmem_barrier(set.start, set.log_stride, set.size, psync_);
                ASSERT_EQ((long)set.size * round, symh_long_g(counter, set.pe(0)))
                    << set.name << " round " << round;
                shmem_barrier(set.start, set.log_stride, set.size, psync_);
            }
            expect_psync_clear(set.name);
        }
        symh_barrier_all();
        *counter = 0;
        symh_barrier_all();
    }
    symh_free(counter);
}

// Element `i` of PE `pe`'s contribution.
template <typename T> T value(int pe, size_t i, int round)
{
    return (T)(((uint64_t)pe << 40) + ((uint64_t)round << 20) + i + 1);
}

template <typename T> void run_broadcast(long *psync, const ActiveSet &set)
{
    const size_t n = 1000;
    T *src = static_cast<T *>(symh_malloc(n * sizeof(T)));
    T *dst = static_cast<T *>(symh_malloc(n * sizeof(T)));
    long *bar = static_cast<long *>(symh_calloc(kSyncWords, sizeof(long)));
    ASSERT_NE(nullptr, src);
    ASSERT_NE(nullptr, dst);
    for (int round = 0; round < 4 && set.has(me()); ++round) {
        int root = round % set.size;
        for (size_t i = 0; i < n; ++i) {
            src[i] = value<T>(me(), i, round);
            dst[i] = (T)-1;
        }
        shmem_barrier(set.start, set.log_stride, set.size, bar); // dst ready everywhere
        if (sizeof(T) == 4)
            shmem_broadcast32(dst, src, n, root, set.start, set.log_stride, set.size, psync);
        else
            shmem_broadcast64(dst, src, n, root, set.start, set.log_stride, set.size, psync);
        for (size_t i = 0; i < n; ++i) {
            T want = set.index(me()) == root ? (T)-1 : value<T>(set.pe(root), i, round);
            ASSERT_EQ(want, dst[i]) << set.name << " root " << root << " element " << i;
        }
        for (int w = 0; w < kSyncWords; ++w)
            ASSERT_EQ(0, psync[w]) << set.name;
        shmem_barrier(set.start, set.log_stride, set.size, bar); // pSync free again
    }
    symh_barrier_all();
    symh_free(bar);
    symh_free(dst);
    symh_free(src);
}

TEST_F(ShmemCompat, BroadcastReachesEveryMemberButTheRoot)
{
    for (const ActiveSet &set : active_sets()) {
        run_broadcast<uint32_t>(psync_, set);
        run_broadcast<uint64_t>(psync_, set);
    }
}

// collect (member i gives i % 3 + 1 elements, one member none), fcollect, alltoall, alltoalls.
enum class Kind { collect, fcollect, alltoall, alltoalls };

template <typename T> void run_exchange(long *psync, const ActiveSet &set, Kind kind)
{
    const size_t n = 37, dst_stride = 2, src_stride = 3;
    const size_t cap = n * dst_stride * src_stride * (size_t)npes() + 64;
    T *src = static_cast<T *>(symh_malloc(cap * sizeof(T)));
    T *dst = static_cast<T *>(symh_malloc(cap * sizeof(T)));
    long *bar = static_cast<long *>(symh_calloc(kSyncWords, sizeof(long)));
    ASSERT_NE(nullptr, src);
    ASSERT_NE(nullptr, dst);
    auto count = [&](int index) { return index == 1 ? (size_t)0 : (size_t)(index % 3 + 1); };
    for (int round = 0; round < 3 && set.has(me()); ++round) {
        int mine = set.index(me());
        for (size_t i = 0; i < cap; ++i) {
            src[i] = value<T>(me(), i, round);
            dst[i] = (T)-1;
        }
        shmem_barrier(set.start, set.log_stride, set.size, bar);
        bool w32 = sizeof(T) == 4;
        switch (kind) {
        case Kind::collect:
            (w32 ? shmem_collect32 : shmem_collect64)(dst, src, count(mine), set.start,
                                                      set.log_stride, set.size, psync);
            break;
        case Kind::fcollect:
            (w32 ? shmem_fcollect32 : shmem_fcollect64)(dst, src, n, set.start, set.log_stride,
                                                        set.size, psync);
            break;
        case Kind::alltoall:
            (w32 ? shmem_alltoall32 : shmem_alltoall64)(dst, src, n, set.start, set.log_stride,
                                                        set.size, psync);
            break;
        case Kind::alltoalls:
            (w32 ? shmem_alltoalls32 : shmem_alltoalls64)(
                dst, src, dst_stride, src_stride, n, set.start, set.log_stride, set.size, psync);
            break;
        }
        std::vector<T> want(cap, (T)-1);
        size_t at = 0;
        for (int j = 0; j < set.size; ++j) {
            int pe = set.pe(j);
            switch (kind) {
            case Kind::collect:
                for (size_t i = 0; i < count(j); ++i)
                    want[at++] = value<T>(pe, i, round);
                break;
            case Kind::fcollect:
                for (size_t i = 0; i < n; ++i)
                    want[j * n + i] = value<T>(pe, i, round);
                break;
            case Kind::alltoall:
                for (size_t i = 0; i < n; ++i)
                    want[j * n + i] = value<T>(pe, mine * n + i, round);
                break;
            case Kind::alltoalls:
                for (size_t i = 0; i < n; ++i)
                    want[dst_stride * (j * n + i)] =
                        value<T>(pe, src_stride * (mine * n + i), round);
                break;
            }
        }
        for (size_t i = 0; i < cap; ++i)
            ASSERT_EQ(want[i], dst[i]) << set.name << " kind " << (int)kind << " element " << i;
        for (int w = 0; w < kSyncWords; ++w)
            ASSERT_EQ(0, psync[w]) << set.name << " kind " << (int)kind;
        shmem_barrier(set.start, set.log_stride, set.size, bar);
    }
    symh_barrier_all();
    symh_free(bar);
    symh_free(dst);
    symh_free(src);
}

TEST_F(ShmemCompat, CollectAndFcollectConcatenateInSetOrder)
{
    for (const ActiveSet &set : active_sets())
        for (Kind kind : { Kind::collect, Kind::fcollect }) {
            run_exchange<uint32_t>(psync_, set, kind);
            run_exchange<uint64_t>(psync_, set, kind);
        }
}

TEST_F(ShmemCompat, AlltoallAndAlltoallsExchangeBlocks)
{
    for (const ActiveSet &set : active_sets())
        for (Kind kind : { Kind::alltoall, Kind::alltoalls }) {
            run_exchange<uint32_t>(psync_, set, kind);
            run_exchange<uint64_t>(psync_, set, kind);
        }
}

// One reduction over every set, out of place and in place, pWrk as the specification sizes it.
template <typename T, typename Call, typename Op>
void run_reduce(long *psync, const char *name, Call call, Op op, T (*contribution)(int, size_t))
{
    const int n = 1500; // over one 8 KiB chunk for every type
    T *src = static_cast<T *>(symh_malloc(n * sizeof(T)));
    T *dst = static_cast<T *>(symh_malloc(n * sizeof(T)));
    T *wrk = static_cast<T *>(symh_malloc((n / 2 + 1) * sizeof(T)));
    long *bar = static_cast<long *>(symh_calloc(kSyncWords, sizeof(long)));
    ASSERT_NE(nullptr, src);
    ASSERT_NE(nullptr, dst);
    for (const ActiveSet &set : active_sets()) {
        for (int in_place = 0; in_place < 2 && set.has(me()); ++in_place) {
            for (int i = 0; i < n; ++i)
                src[i] = contribution(me(), (size_t)i);
            T *out = in_place ? src : dst;
            shmem_barrier(set.start, set.log_stride, set.size, bar);
            call(out, src, n, set.start, set.log_stride, set.size, wrk, psync);
            for (int i = 0; i < n; ++i) {
                T want = contribution(set.pe(0), (size_t)i);
                for (int j = 1; j < set.size; ++j)
                    want = op(want, contribution(set.pe(j), (size_t)i));
                ASSERT_EQ(want, out[i])
                    << name << " " << set.name << " in place " << in_place << " element " << i;
            }
            for (int w = 0; w < kSyncWords; ++w)
                ASSERT_EQ(0, psync[w]) << name << " " << set.name;
            shmem_barrier(set.start, set.log_stride, set.size, bar);
        }
        symh_barrier_all();
    }
    symh_free(bar);
    symh_free(wrk);
    symh_free(dst);
    symh_free(src);
}

template <typename T> T small(int pe, size_t i)
{
    return (T)((pe * 7 + (int)i * 3) % 11 + 1);
}
template <typename T> T bits(int pe, size_t i)
{
    return (T)(((size_t)1 << ((size_t)pe % 13)) | (i & 0x3f0));
}
template <typename T> T signed_values(int pe, size_t i)
{
    return (T)((int)((pe * 37 + i * 11) % 101) - 50);
}
template <typename T> T factor(int pe, size_t i)
{
    return (T)(((pe + i) % 3 == 0) ? 2 : 1); // products stay exact
}

TEST_F(ShmemCompat, ReductionsOfSeveralTypes)
{
    run_reduce<int>(psync_, "int_sum", shmem_int_sum_to_all, std::plus<int>(), small<int>);
    run_reduce<long>(
        psync_, "long_max", shmem_long_max_to_all, [](long a, long b) { return a > b ? a : b; },
        signed_values<long>);
    run_reduce<long long>(
        psync_, "longlong_min", shmem_longlong_min_to_all,
        [](long long a, long long b) { return a < b ? a : b; }, signed_values<long long>);
    run_reduce<short>(
        psync_, "short_and", shmem_short_and_to_all,
        [](short a, short b) { return (short)(a & b); }, bits<short>);
    run_reduce<int>(psync_, "int_or", shmem_int_or_to_all, std::bit_or<int>(), bits<int>);
    run_reduce<long>(psync_, "long_xor", shmem_long_xor_to_all, std::bit_xor<long>(), bits<long>);
    run_reduce<double>(psync_, "double_sum", shmem_double_sum_to_all, std::plus<double>(),
                       small<double>);
    run_reduce<float>(psync_, "float_prod", shmem_float_prod_to_all, std::multiplies<float>(),
                      factor<float>);
    run_reduce<long double>(
        psync_, "longdouble_max", shmem_longdouble_max_to_all,
        [](long double a, long double b) { return a > b ? a : b; }, signed_values<long double>);
    run_reduce<short>(
        psync_, "short_prod", shmem_short_prod_to_all,
        [](short a, short b) { return (short)(a * b); }, factor<short>);
    expect_psync_clear("reductions");
}

TEST_F(ShmemCompat, MisuseIsOneLineAndNoHang)
{
    // A PE outside the set, and a set past the last PE: every PE logs and returns at once.
    if (npes() > 1)
        expect_one_line("is not in the active set",
                        [&] { shmem_barrier((me() + 1) % npes(), 0, 1, psync_); });
    expect_one_line("is not valid", [&] { shmem_barrier(npes(), 0, 1, psync_); });
    expect_one_line("is not valid", [&] { shmem_barrier(0, 0, 0, psync_); });
    expect_one_line("past the last PE", [&] { shmem_barrier(0, 0, npes() + 1, psync_); });
    expect_one_line("nreduce -1 is negative", [&] {
        shmem_int_sum_to_all(nullptr, nullptr, -1, 0, 0, npes(), nullptr, psync_);
    });
    expect_psync_clear("misuse");
    symh_barrier_all();
}

// SHMEM_SYMMETRIC_SIZE sizes the heap unless SYMH_HEAP_SIZE is set (CTest entries shmem_env.*
// set SYMHTEST_HEAP_BYTES to what the environment asks for).
TEST_F(ShmemCompat, EnvHeapSizeFollowsTheVariables)
{
    const char *want_text = std::getenv("SYMHTEST_HEAP_BYTES");
    ASSERT_NE(nullptr, want_text) << "run by the shmem_env CTest entries";
    size_t want = std::strtoull(want_text, nullptr, 10);
    symh_heap_stats_t stats{};
    ASSERT_EQ(SYMH_OK, symh_heap_stats(&stats));
    EXPECT_GE(stats.size, want);
    EXPECT_LT(stats.size, want + (2u << 20));
}

} // namespace
