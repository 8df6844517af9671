// Multi-PE tests of the symmetric heap: symmetric offsets, alignment, calloc, realloc, free, and
// every misuse of the heap issue: NULL everywhere (agreement), one log line for the whole job,
// the heap left exactly as it was, no PE left waiting.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <symheap.h>

#include "mpi_test_util.hpp"
#include "shim_heap_debug.h"

namespace
{

using namespace symh_test;

uint64_t offset_of(const void *p)
{
    return (uint64_t)((const char *)p - (const char *)symh_shim_heap_base());
}

symh_heap_stats_t stats()
{
    symh_heap_stats_t s{};
    EXPECT_EQ(SYMH_OK, symh_heap_stats(&s));
    return s;
}

// The heap size this job asked for: SYMH_HEAP_SIZE as the test was started with ("<n>" with an
// optional suffix k, m, g or t, powers of 1024, docs/environment.md), else the default 1 GiB.
// Parsed here, not by the library, so a library that ignored or misread it fails.
size_t configured_heap_size()
{
    const char *env = getenv("SYMH_HEAP_SIZE");
    if (env == nullptr)
        return (size_t)1 << 30;
    char *end = nullptr;
    size_t size = strtoull(env, &end, 10);
    const std::string suffixes = "kmgt";
    size_t at = *end != '\0' ? suffixes.find((char)tolower((unsigned char)*end)) : 0;
    EXPECT_TRUE(end != env && (*end == '\0' || (at != std::string::npos && end[1] == '\0')))
        << "SYMH_HEAP_SIZE=" << env << " is not a size this test reads";
    if (*end != '\0' && at != std::string::npos)
        size <<= 10 * (at + 1);
    return size;
}

bool operator==(const symh_heap_stats_t &a, const symh_heap_stats_t &b)
{
    return a.size == b.size && a.used == b.used && a.free == b.free &&
           a.largest_free == b.largest_free && a.allocations == b.allocations;
}

// ---- before init ----------------------------------------------------------------------------

class HeapBeforeInit : public SymhTest
{
};

TEST_F(HeapBeforeInit, EveryCallFailsCleanly)
{
    int local = 0;
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(nullptr, symh_malloc(64));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        EXPECT_EQ(nullptr, symh_align(256, 64));
        EXPECT_EQ(nullptr, symh_calloc(4, 4));
        EXPECT_EQ(nullptr, symh_realloc(nullptr, 64));
        symh_free(&local);
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        symh_heap_stats_t s;
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_heap_stats(&s));
    });
    for (const char *fn :
         { "symh_malloc", "symh_align", "symh_calloc", "symh_realloc", "symh_free" })
        EXPECT_EQ(1u, count_lines(log, std::string(fn) + ": symheap is not initialized")) << log;
}

// ---- initialized ----------------------------------------------------------------------------

class Heap : public InitSuite
{
  protected:
    void SetUp() override
    {
        SymhTest::SetUp();
        before = stats();
    }
    void TearDown() override
    {
        // Every test gives back what it took: nothing leaked, on any PE.
        EXPECT_TRUE(stats() == before) << "heap not back to its state before the test";
        SymhTest::TearDown();
    }
    // Runs a misuse on every PE; checks that it logged exactly one line in the whole job, that
    // contains `expect`, and that the heap is exactly as before.
    template <typename F> void expect_one_line(const std::string &expect, F action)
    {
        symh_heap_stats_t was = stats();
        std::string log = symh_captured_log(action);
        size_t lines = count_lines(log, "\n");
        EXPECT_EQ(1, count_pes(lines > 0)) << "one PE speaks for the job:\n" << log;
        EXPECT_LE(lines, 1u) << log;
        EXPECT_EQ(1, count_pes(log.find(expect) != std::string::npos))
            << "expected '" << expect << "' in:\n"
            << log;
        EXPECT_TRUE(stats() == was) << "a failed call changed the heap";
    }
    symh_heap_stats_t before{};
};

TEST_F(Heap, StatsDescribeAnEmptyHeap)
{
    symh_heap_stats_t s = stats();
    EXPECT_EQ(configured_heap_size(), s.size) << "SYMH_HEAP_SIZE is the heap's size";
    EXPECT_EQ(0u, s.used);
    EXPECT_EQ(s.size, s.free);
    EXPECT_EQ(s.size, s.largest_free);
    EXPECT_EQ(0u, s.allocations);
    EXPECT_TRUE(same_everywhere(s.size));
    EXPECT_EQ(0u, (uintptr_t)symh_shim_heap_base() % (1ULL << 30)) << "heap base 1 GiB aligned";

    std::string log =
        symh_captured_log([] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_heap_stats(nullptr)); });
    EXPECT_NE(std::string::npos, log.find("stats is NULL")) << log;
}

TEST_F(Heap, MallocIsSymmetricAlignedAndUsable)
{
    std::vector<char *> blocks;
    for (size_t size : { 1, 7, 128, 1000, 4096, 65537, 1 << 20 }) {
        char *p = (char *)symh_malloc(size);
        ASSERT_NE(nullptr, p) << size;
        EXPECT_EQ(SYMH_OK, symh_last_error());
        EXPECT_EQ(0u, (uintptr_t)p % 128) << size;
        EXPECT_TRUE(same_everywhere(offset_of(p))) << "size " << size;
        memset(p, me() & 0xff, size); // the whole range is this PE's to write
        blocks.push_back(p);
    }
    symh_heap_stats_t s = stats();
    EXPECT_EQ(blocks.size(), s.allocations);
    EXPECT_GE(s.used, 1u + 7 + 128 + 1000 + 4096 + 65537 + (1 << 20));
    EXPECT_EQ(s.size - s.used, s.free);
    for (char *p : blocks) {
        symh_free(p);
        EXPECT_EQ(SYMH_OK, symh_last_error());
    }
}

// The allocation routines end in a barrier_all (OpenSHMEM): non-blocking puts issued before
// symh_malloc and symh_free are complete at their targets when those return, on every route
// (over a NIC only the agreement's quiet completes them here; no barrier or quiet in between).
TEST_F(Heap, AllocationCompletesEarlierPuts)
{
    // To the PE two places on (at 4 PEs and more), whom the agreement's messages may reach
    // through other PEs. Over tcp (UCX, libfabric) the dissemination barrier's own message from
    // this PE follows the data on the same connection, so there this passes even without the
    // quiet (checked by removing it); it guards wires without that ordering (RDMA).
    const size_t bytes = 4 << 20;
    int hop = npes() >= 4 ? 2 : 1;
    int right = (me() + hop) % npes(), left = (me() + npes() - hop) % npes();
    char *buf = (char *)symh_calloc(bytes, 1);
    ASSERT_NE(nullptr, buf);
    reg_vector<char> src(bytes);
    for (int round = 0; round < 2; ++round) {
        memset(src.data(), 'a' + (me() + round) % 16, bytes);
        symh_putmem_nbi(buf, src.data(), bytes, right);
        ASSERT_EQ(SYMH_OK, symh_last_error());
        char *p = (char *)symh_malloc(64); // round 0: the malloc completes the puts
        ASSERT_NE(nullptr, p);
        if (round == 1) {
            symh_free(p); // round 1: the free does
            p = nullptr;
        }
        for (size_t i = 0; i < bytes; i += 4093)
            ASSERT_EQ((char)('a' + (left + round) % 16), buf[i]) << "round " << round << " " << i;
        symh_free(p);
        symh_barrier_all(); // nobody puts the next round while a peer still checks this one
    }
    symh_free(buf);
}

TEST_F(Heap, NodeLocalPeersHeapsAreMappedAtTheSameOffsets)
{
    long *mine = (long *)symh_malloc(4096);
    ASSERT_NE(nullptr, mine);
    for (int i = 0; i < 512; ++i)
        mine[i] = 1000L * me() + i;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int pe = 0; pe < npes(); ++pe) {
        const long *theirs = (const long *)symh_shim_peer_addr(mine, pe);
        if (!expected_mapped(pe)) {
            EXPECT_EQ(nullptr, theirs) << "PE " << pe << " is routed " << expected_route(pe);
            continue;
        }
        ASSERT_NE(nullptr, theirs) << pe;
        EXPECT_EQ(1000L * pe, theirs[0]) << pe;
        EXPECT_EQ(1000L * pe + 511, theirs[511]) << pe;
    }
    MPI_Barrier(MPI_COMM_WORLD); // nobody frees while a peer still reads
    symh_free(mine);
}

TEST_F(Heap, TransportOpsReachPeersLikeTheDataPath)
{
    int n = npes(), right = (me() + 1) % n;
    long long *slot = (long long *)symh_calloc(2, sizeof(long long));
    ASSERT_NE(nullptr, slot);
    // Every route but "none" carries the ops (self and ipc through the ipc table).
    auto reaches = [](int pe) { return expected_route(pe) != "none"; };
    std::string route = expected_route(right);
    EXPECT_EQ(route == "self" ? "ipc" : route, std::string(symh_shim_ops_name(right)));

    long long token = 1000LL * me() + 3;
    EXPECT_EQ(reaches(right) ? SYMH_OK : SYMH_ERR_UNSUPPORTED,
              symh_shim_ops_put(&slot[0], &token, sizeof(token), right));
    long long old = -1;
    EXPECT_EQ(reaches(0) ? SYMH_OK : SYMH_ERR_UNSUPPORTED,
              symh_shim_ops_fetch_add64(&slot[1], me() + 1, &old, 0));
    EXPECT_EQ(SYMH_OK, symh_shim_nic_quiet());
    symh_barrier_all();
    int left = (me() + n - 1) % n;
    if (reaches(left)) {
        EXPECT_EQ(1000LL * left + 3, slot[0]) << "put through the ops table";
        long long back = 0;
        EXPECT_EQ(SYMH_OK, symh_shim_ops_get(&back, &slot[0], sizeof(back), me()));
        EXPECT_EQ(1000LL * left + 3, back) << "get through the ops table (this PE)";
    }
    long long added = reaches(0) ? me() + 1 : 0, adders = 0;
    MPI_Allreduce(&added, &adders, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me() == 0) {
        EXPECT_EQ(adders, slot[1]) << "fetch-add through the ops table";
    }
    MPI_Barrier(MPI_COMM_WORLD);
    symh_free(slot);
}

TEST_F(Heap, AlignHonoursEveryPowerOfTwo)
{
    size_t heap = stats().size;
    for (size_t alignment = sizeof(void *); alignment <= (1ULL << 30); alignment <<= 1) {
        // A small "obstacle" takes offset 0 so that alignment really matters, while the next
        // aligned offset still lies inside the heap (offset 0 is aligned to anything up to the
        // heap base alignment).
        void *obstacle = alignment * 2 <= heap ? symh_malloc(64) : nullptr;
        void *p = symh_align(alignment, 100);
        ASSERT_NE(nullptr, p) << alignment;
        EXPECT_EQ(0u, (uintptr_t)p % alignment) << alignment;
        EXPECT_TRUE(same_everywhere(offset_of(p))) << alignment;
        symh_free(p);
        symh_free(obstacle);
    }
    // Up to 128 it is malloc.
    void *a = symh_align(64, 300);
    uint64_t with_align = offset_of(a);
    symh_free(a);
    void *m = symh_malloc(300);
    EXPECT_EQ(with_align, offset_of(m));
    symh_free(m);
}

TEST_F(Heap, BadAlignmentsAreRefusedEverywhere)
{
    for (size_t alignment : { 0, 1, 2, 4, 3, 12, 24, 1000, 4097 }) {
        std::string expect = alignment >= 1 && (alignment & (alignment - 1)) == 0
                                 ? "is not a multiple of sizeof(void *)"
                                 : "is not a power of two";
        expect_one_line("symh_align: alignment " + std::to_string(alignment) + " " + expect,
                        [alignment] {
                            EXPECT_EQ(nullptr, symh_align(alignment, 64));
                            EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
                        });
    }
    size_t huge = symh_shim_heap_base_alignment() << 1;
    expect_one_line("exceeds the heap base alignment", [huge] {
        EXPECT_EQ(nullptr, symh_align(huge, 64));
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    });
}

TEST_F(Heap, ZeroSizesReturnNull)
{
    expect_one_line("symh_malloc: size 0", [] {
        EXPECT_EQ(nullptr, symh_malloc(0));
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    });
    expect_one_line("symh_calloc: count 0", [] { EXPECT_EQ(nullptr, symh_calloc(0, 8)); });
    expect_one_line("symh_calloc: size 0", [] { EXPECT_EQ(nullptr, symh_calloc(8, 0)); });
    expect_one_line("symh_align: size 0", [] { EXPECT_EQ(nullptr, symh_align(256, 0)); });
    expect_one_line("symh_realloc: NULL with size 0",
                    [] { EXPECT_EQ(nullptr, symh_realloc(nullptr, 0)); });
}

TEST_F(Heap, CallocOverflowIsRefused)
{
    expect_one_line("overflows size_t", [] {
        EXPECT_EQ(nullptr, symh_calloc(SIZE_MAX / 2, 3));
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    });
}

TEST_F(Heap, CallocZeroesWhatMallocDirtied)
{
    const size_t n = 1 << 20;
    char *dirty = (char *)symh_malloc(n);
    ASSERT_NE(nullptr, dirty);
    memset(dirty, 0xa5, n);
    symh_free(dirty);
    uint32_t *zero = (uint32_t *)symh_calloc(n / 4, 4);
    ASSERT_NE(nullptr, zero);
    EXPECT_EQ((void *)dirty, (void *)zero) << "the same block comes back";
    size_t nonzero = 0;
    for (size_t i = 0; i < n / 4; ++i)
        nonzero += zero[i] != 0;
    EXPECT_EQ(0u, nonzero);
    symh_free(zero);
}

// The configured size, not the library's own count of it: all of it can be had in one block,
// one byte more cannot.
TEST_F(Heap, RequestLargerThanTheHeap)
{
    const size_t configured = configured_heap_size();
    void *whole = symh_malloc(configured);
    EXPECT_NE(nullptr, whole) << "the whole heap of SYMH_HEAP_SIZE " << configured << " bytes";
    symh_free(whole);
    expect_one_line("symh_malloc: " + std::to_string(configured + 1) +
                        " bytes exceed the whole heap (" + std::to_string(configured) + " bytes",
                    [configured] {
                        EXPECT_EQ(nullptr, symh_malloc(configured + 1));
                        EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_last_error());
                    });
    expect_one_line("exceed the whole heap", [] {
        EXPECT_EQ(nullptr, symh_malloc(SIZE_MAX));
        EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_last_error());
    });
}

TEST_F(Heap, ExhaustionOnOnePeFailsEveryPe)
{
    // The last PE fills its heap behind the collectives' back (an asymmetric state).
    bool starved = me() == npes() - 1;
    size_t heap = stats().size;
    std::vector<size_t> hogs;
    if (starved) {
        size_t offset;
        while (symh_shim_heap_local_alloc(heap / 64, &offset) == SYMH_OK)
            hogs.push_back(offset);
    }
    symh_heap_stats_t was = stats();
    std::string log = symh_captured_log([starved, heap] {
        EXPECT_EQ(nullptr, symh_malloc(heap / 2));
        EXPECT_EQ(starved ? SYMH_ERR_NO_MEMORY : SYMH_ERR_MISMATCH, symh_last_error());
    });
    EXPECT_TRUE(stats() == was) << "rolled back on the PEs where it had succeeded";
    bool named =
        log.find("heap exhausted on PE " + std::to_string(npes() - 1)) != std::string::npos;
    EXPECT_EQ(starved, named) << log;
    EXPECT_EQ(1, count_pes(named));
    for (size_t offset : hogs)
        EXPECT_EQ(SYMH_OK, symh_shim_heap_local_free(offset));
    void *p = symh_malloc(heap / 2);
    EXPECT_NE(nullptr, p) << "works again once the PE has room";
    symh_free(p);
}

TEST_F(Heap, DifferentArgumentsOnDifferentPes)
{
    ASSERT_GE(npes(), 2) << "one PE always agrees with itself (MULTI_PE_ONLY in CMake)";
    int last = npes() - 1;
    std::string expect = "symh_malloc: size 64 on PE 0 but 65 on PE 1";
    expect_one_line(expect, [] {
        EXPECT_EQ(nullptr, symh_malloc(me() == 0 ? 64 : 65));
        EXPECT_EQ(SYMH_ERR_MISMATCH, symh_last_error());
    });
    expect_one_line("symh_align: alignment 256 on PE 0 but 512 on PE " + std::to_string(last),
                    [last] { EXPECT_EQ(nullptr, symh_align(me() == last ? 512 : 256, 64)); });
    expect_one_line("symh_calloc: size 8 on PE 0 but 4 on PE " + std::to_string(last),
                    [last] { EXPECT_EQ(nullptr, symh_calloc(16, me() == last ? 4 : 8)); });
    // An invalid call on one PE: that PE reports its own code, the others a mismatch.
    expect_one_line("symh_malloc: size 64 on PE 0 but 0 on PE " + std::to_string(last), [last] {
        EXPECT_EQ(nullptr, symh_malloc(me() == last ? 0 : 64));
        EXPECT_EQ(me() == last ? SYMH_ERR_INVALID_ARG : SYMH_ERR_MISMATCH, symh_last_error());
    });
}

TEST_F(Heap, FreeMisuseFreesNothing)
{
    char *p = (char *)symh_malloc(1024);
    ASSERT_NE(nullptr, p);
    int on_stack = 0;
    void *foreign = malloc(64);

    // free(NULL) is a successful no-op (OpenSHMEM, C); no warning.
    std::string log = symh_captured_log([] {
        symh_free(nullptr);
        EXPECT_EQ(SYMH_OK, symh_last_error());
    });
    EXPECT_EQ(std::string::npos, log.find("error")) << log;

    expect_one_line("is not the start of a live allocation", [p] {
        symh_free(p + 128);
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    });
    expect_one_line("is not in the symmetric heap", [&on_stack] { symh_free(&on_stack); });
    expect_one_line("is not in the symmetric heap", [foreign] { symh_free(foreign); });
    if (npes() > 1) {
        char *q = (char *)symh_malloc(1024);
        expect_one_line("symh_free: ptr heap+", [p, q] {
            symh_free(me() == 0 ? p : q);
            EXPECT_EQ(SYMH_ERR_MISMATCH, symh_last_error());
        });
        symh_free(q);
    }
    p[1023] = 1; // still ours
    symh_free(p);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    expect_one_line("is not the start of a live allocation", [p] {
        symh_free(p); // again
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    });
    free(foreign);
}

TEST_F(Heap, ReallocKeepsContentsAndOffsetsAgree)
{
    unsigned char *p = (unsigned char *)symh_realloc(nullptr, 1000); // acts as malloc
    ASSERT_NE(nullptr, p);
    for (int i = 0; i < 1000; ++i)
        p[i] = (unsigned char)(i * 7 + me());
    void *obstacle = symh_malloc(64); // right after p: growing must move

    unsigned char *q = (unsigned char *)symh_realloc(p, 300000);
    ASSERT_NE(nullptr, q);
    EXPECT_NE(p, q) << "moved past the obstacle";
    EXPECT_TRUE(same_everywhere(offset_of(q)));
    for (int i = 0; i < 1000; ++i)
        ASSERT_EQ((unsigned char)(i * 7 + me()), q[i]) << i;

    unsigned char *r = (unsigned char *)symh_realloc(q, 500); // shrinks in place
    EXPECT_EQ(q, r);
    for (int i = 0; i < 500; ++i)
        ASSERT_EQ((unsigned char)(i * 7 + me()), r[i]) << i;
    unsigned char *s = (unsigned char *)symh_realloc(r, 200000); // grows in place (room behind)
    EXPECT_EQ(r, s);
    for (int i = 0; i < 500; ++i)
        ASSERT_EQ((unsigned char)(i * 7 + me()), s[i]) << i;

    EXPECT_EQ(nullptr, symh_realloc(s, 0)) << "size 0 frees";
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_free(obstacle);
}

TEST_F(Heap, ReallocMisuseLeavesTheOldBlock)
{
    unsigned char *p = (unsigned char *)symh_malloc(4096);
    ASSERT_NE(nullptr, p);
    memset(p, 0x5c, 4096);
    int on_stack = 0;

    expect_one_line("symh_realloc:", [p] {
        EXPECT_EQ(nullptr, symh_realloc(p + 256, 8192));
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    });
    expect_one_line("is not in the symmetric heap",
                    [&on_stack] { EXPECT_EQ(nullptr, symh_realloc(&on_stack, 64)); });
    void *foreign = malloc(64);
    expect_one_line("is not in the symmetric heap", [foreign] {
        EXPECT_EQ(nullptr, symh_realloc(foreign, 64));
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    });
    free(foreign);
    expect_one_line("exceed the whole heap", [p] {
        EXPECT_EQ(nullptr, symh_realloc(p, SIZE_MAX / 2));
        EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_last_error());
    });
    if (npes() > 1) {
        int last = npes() - 1;
        expect_one_line("symh_realloc: size 8192 on PE 0 but 16384 on PE " + std::to_string(last),
                        [p, last] {
                            EXPECT_EQ(nullptr, symh_realloc(p, me() == last ? 16384 : 8192));
                            EXPECT_EQ(SYMH_ERR_MISMATCH, symh_last_error());
                        });
        void *q = symh_malloc(64);
        expect_one_line("symh_realloc: ptr heap+", [p, q] {
            EXPECT_EQ(nullptr, symh_realloc(me() == 0 ? (void *)p : q, 64));
        });
        symh_free(q);
    }
    for (int i = 0; i < 4096; ++i)
        ASSERT_EQ(0x5c, p[i]) << "old contents kept at " << i;
    symh_free(p);
    expect_one_line("is not the start of a live allocation",
                    [p] { EXPECT_EQ(nullptr, symh_realloc(p, 64)); }); // freed
}

TEST_F(Heap, ReallocFailingOnOnePeRollsBackEverywhere)
{
    // Growing needs a move; the last PE has no room for the new block.
    unsigned char *p = (unsigned char *)symh_malloc(1 << 20);
    void *obstacle = symh_malloc(64);
    memset(p, 0x3e, 1 << 20);
    bool starved = me() == npes() - 1;
    size_t heap = stats().size;
    std::vector<size_t> hogs;
    size_t offset;
    if (starved)
        while (symh_shim_heap_local_alloc(heap / 64, &offset) == SYMH_OK)
            hogs.push_back(offset);
    symh_heap_stats_t was = stats();
    symh_captured_log([p, starved, heap] {
        EXPECT_EQ(nullptr, symh_realloc(p, heap / 4));
        EXPECT_EQ(starved ? SYMH_ERR_NO_MEMORY : SYMH_ERR_MISMATCH, symh_last_error());
    });
    EXPECT_TRUE(stats() == was);
    for (size_t o : hogs)
        symh_shim_heap_local_free(o);
    for (int i = 0; i < (1 << 20); i += 4093)
        ASSERT_EQ(0x3e, p[i]);
    symh_free(obstacle);
    symh_free(p);
}

TEST_F(Heap, LongRandomSequenceStaysSymmetric)
{
    std::mt19937_64 rng(20261130); // the same seed on every PE
    std::vector<std::pair<char *, size_t>> live;
    std::vector<uint64_t> offsets;
    for (int op = 0; op < 3000; ++op) {
        unsigned kind = rng() % 10;
        if (kind < 5 || live.empty()) {
            size_t size = 1 + rng() % (1 << (rng() % 18));
            char *p;
            if (kind == 0)
                p = (char *)symh_align((size_t)1 << (3 + rng() % 14), size);
            else if (kind == 1)
                p = (char *)symh_calloc(size, 1);
            else
                p = (char *)symh_malloc(size);
            ASSERT_NE(nullptr, p) << op;
            p[0] = p[size - 1] = (char)op;
            live.push_back({ p, size });
            offsets.push_back(offset_of(p));
        } else if (kind < 7) {
            size_t i = rng() % live.size();
            size_t size = 1 + rng() % (1 << (rng() % 18));
            char *p = (char *)symh_realloc(live[i].first, size);
            ASSERT_NE(nullptr, p) << op;
            live[i] = { p, size };
            offsets.push_back(offset_of(p));
        } else {
            size_t i = rng() % live.size();
            symh_free(live[i].first);
            live.erase(live.begin() + (long)i);
        }
    }
    // Every PE saw the same offsets, in the same order.
    std::vector<uint64_t> first(offsets.size());
    if (me() == 0)
        first = offsets;
    MPI_Bcast(first.data(), (int)first.size(), MPI_UINT64_T, 0, MPI_COMM_WORLD);
    EXPECT_TRUE(first == offsets);
    for (auto &block : live)
        symh_free(block.first);
}

class HeapAfterFinalize : public SymhTest
{
};

TEST_F(HeapAfterFinalize, EveryCallFailsCleanly)
{
    symh_finalize();
    std::string log = symh_captured_log([] {
        EXPECT_EQ(nullptr, symh_malloc(64));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        symh_free(nullptr);
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
    });
    EXPECT_EQ(1u, count_lines(log, "symh_malloc: symheap is not initialized")) << log;
    // A new init gives a fresh, empty heap.
    ASSERT_EQ(SYMH_OK, symh_init());
    EXPECT_EQ(0u, stats().allocations);
    symh_finalize();
}

} // namespace
