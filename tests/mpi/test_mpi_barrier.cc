// Multi-PE tests of symh_barrier_all / symh_sync_all and of the agreement riding on them: the
// barrier orders stores before it with loads after it, many barriers finish quickly even with
// 8 PEs on 2 cores, collective allocation still agrees (and disagrees) correctly when its payload
// rides the shared-memory barrier, the job uses shared memory exactly when every PE is on one
// node, and both calls fail cleanly before init.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <string>

#include <symheap.h>
#include <symheap/barrier.h>

#include "mpi_test_util.hpp"
#include "shim_coll.h"
#include "shim_heap_debug.h"

namespace
{

using namespace symh_test;

// ---- before init ----------------------------------------------------------------------------

class BarrierBeforeInit : public SymhTest
{
};

TEST_F(BarrierBeforeInit, FailsCleanlyWithOneLine)
{
    std::string log = symh_captured_log([] {
        symh_barrier_all();
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        symh_sync_all();
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
    });
    EXPECT_EQ(1u, count_lines(log, "symh_barrier_all: symheap is not initialized")) << log;
    EXPECT_EQ(1u, count_lines(log, "symh_sync_all: symheap is not initialized")) << log;
}

// ---- initialized ----------------------------------------------------------------------------

class Barrier : public SymhTest
{
  protected:
    static void SetUpTestSuite()
    {
        ASSERT_EQ(SYMH_OK, symh_init());
    }
};

TEST_F(Barrier, SharedMemoryExactlyWhenEveryPeIsOnOneNode)
{
    // Shared memory needs every PE mapped everywhere: one node, and no NIC forced onto it.
    bool all_mapped = true;
    for (int pe = 0; pe < npes(); ++pe)
        all_mapped = all_mapped && expected_mapped(pe);
    EXPECT_EQ(count_pes(all_mapped) == npes() ? 1 : 0, symh_shim_coll_uses_shm());
    // The choice is the job's, never a PE's own.
    EXPECT_TRUE(same_everywhere((uint64_t)symh_shim_coll_uses_shm()));
}

// Every PE stores round r into its own block, passes the barrier, and must then see r in every
// peer's block it can load from. A barrier that let a PE through before a peer's store would
// show r - 1. The second barrier keeps the next round's store away from this round's readers.
TEST_F(Barrier, OrdersStoresBeforeItWithLoadsAfterIt)
{
    int n = npes(), me = symh_my_pe(), reachable = 0;
    auto *block = static_cast<volatile uint64_t *>(symh_malloc(sizeof(uint64_t)));
    ASSERT_NE(nullptr, block);
    *block = 0;
    symh_barrier_all();
    for (uint64_t round = 1; round <= 2000; ++round) {
        *block = round * 1000 + (uint64_t)me;
        symh_barrier_all();
        ASSERT_EQ(SYMH_OK, symh_last_error());
        reachable = 0;
        for (int pe = 0; pe < n; ++pe) {
            auto *peer = static_cast<volatile uint64_t *>(
                symh_shim_peer_addr(const_cast<uint64_t *>(block), pe));
            if (peer == nullptr)
                continue;
            ++reachable;
            ASSERT_EQ(round * 1000 + (uint64_t)pe, *peer) << "round " << round << ", PE " << pe;
        }
        symh_sync_all();
        ASSERT_EQ(SYMH_OK, symh_last_error());
    }
    EXPECT_GE(reachable, 1); // itself at least
    if (symh_shim_coll_uses_shm()) {
        EXPECT_EQ(n, reachable);
    }
    symh_free(const_cast<uint64_t *>(block));
}

// 10,000 barriers: a spinning barrier with 8 PEs on 2 cores would take minutes (the ctest
// timeout catches it); the shared-memory barrier yields and takes well under a second.
TEST_F(Barrier, TenThousandBarriersFinish)
{
    for (int i = 0; i < 10000; ++i) {
        if (i % 2)
            symh_barrier_all();
        else
            symh_sync_all();
    }
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_TRUE(same_everywhere(0));
}

// Agreements back to back, with plain barriers in between so the payload slot parity shifts:
// when all PEs ask the same, the same offset everywhere; when one PE asks another size, NULL
// everywhere and one line for the job. A fast PE overwriting a payload a slow PE still reads
// would make PEs disagree about the verdict, which the checks below catch.
TEST_F(Barrier, AgreementOverTheBarrierStaysCorrect)
{
    int n = npes(), me = symh_my_pe();
    for (int i = 0; i < 1500; ++i) {
        bool odd_one = n > 1 && i % 5 == 3;
        size_t size = 64 + 64 * (size_t)(i % 4);
        if (odd_one && me == i % n)
            size += 8;
        void *p = nullptr;
        std::string log = symh_captured_log([&] { p = symh_malloc(size); });
        if (odd_one) {
            ASSERT_EQ(nullptr, p) << "iteration " << i;
            ASSERT_EQ(me == 0 ? 1u : 0u, count_lines(log, "\n")) << log;
        } else {
            ASSERT_NE(nullptr, p) << "iteration " << i;
            ASSERT_EQ("", log);
        }
        if (i % 50 == 0) {
            ASSERT_EQ(n, count_pes((p == nullptr) == odd_one));
        }
        for (int k = 0; k < i % 3; ++k)
            symh_sync_all();
        symh_free(p);
    }
    void *p = symh_malloc(128);
    ASSERT_NE(nullptr, p);
    EXPECT_TRUE(same_everywhere((uint64_t)((char *)p - (char *)symh_shim_heap_base())));
    symh_free(p);
}

// After finalize both calls fail cleanly again; a new init starts a fresh barrier (flags zeroed,
// epochs from 1) that works, agreement included.
class BarrierAfterFinalize : public SymhTest
{
};

TEST_F(BarrierAfterFinalize, FailsCleanlyThenWorksAfterANewInit)
{
    symh_finalize();
    std::string log = symh_captured_log([] {
        symh_barrier_all();
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        symh_sync_all();
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
    });
    EXPECT_EQ(1u, count_lines(log, "symh_barrier_all: symheap is not initialized")) << log;
    EXPECT_EQ(1u, count_lines(log, "symh_sync_all: symheap is not initialized")) << log;
    ASSERT_EQ(SYMH_OK, symh_init());
    for (int i = 0; i < 100; ++i)
        symh_barrier_all();
    EXPECT_EQ(SYMH_OK, symh_last_error());
    void *p = symh_malloc(256);
    ASSERT_NE(nullptr, p);
    EXPECT_TRUE(same_everywhere((uint64_t)((char *)p - (char *)symh_shim_heap_base())));
    symh_free(p);
    symh_finalize();
}

} // namespace
