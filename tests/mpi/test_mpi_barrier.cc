// Multi-PE tests of symh_barrier_all / symh_sync_all and of the agreement riding on them: the
// barrier orders every PE's stores and puts before it with loads after it (checked on the
// values, round after round), many barriers finish quickly even with 8 PEs on 2 cores,
// collective allocation still agrees (and disagrees) correctly when its payload rides the
// shared-memory barrier, the job uses shared memory exactly when every PE is on one node, and
// both calls fail cleanly before init.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <string>

#include <symheap.h>
#include <symheap/barrier.h>
#include <symheap/rma.h>

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

class Barrier : public InitSuite
{
  protected:
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

// Each PE's slots: one per PE and per round parity, written only by that PE.
class RoundSlots
{
  public:
    RoundSlots() : n_(npes())
    {
        slots_ = static_cast<uint64_t *>(symh_calloc(2 * (size_t)n_, sizeof(uint64_t)));
    }
    ~RoundSlots()
    {
        symh_free(slots_);
    }
    bool ok() const
    {
        return slots_ != nullptr;
    }
    // Writes this round's value into this PE's slot on every PE, by the route the configuration
    // gives each peer (a store through the mapped copy, or a NIC put).
    void write(uint64_t round)
    {
        uint64_t value = round * 1000 + (uint64_t)me();
        uint64_t *mine = &slots_[(round % 2) * (size_t)n_ + (size_t)me()];
        for (int pe = 0; pe < n_; ++pe) {
            if (expected_mapped(pe)) {
                auto *peer = static_cast<volatile uint64_t *>(symh_ptr(mine, pe));
                ASSERT_NE(nullptr, peer) << "PE " << pe << " is routed " << expected_route(pe);
                *peer = value;
            } else {
                symh_uint64_p(mine, value, pe);
            }
        }
        ASSERT_EQ(SYMH_OK, symh_last_error()) << "round " << round;
    }
    // After the round's barrier every PE's value of this round is here. A barrier that let this
    // PE through before a peer wrote shows that peer's value of two rounds before (or 0).
    void check(uint64_t round, const char *call) const
    {
        const volatile uint64_t *here = &slots_[(round % 2) * (size_t)n_];
        for (int pe = 0; pe < n_; ++pe)
            ASSERT_EQ(round * 1000 + (uint64_t)pe, here[pe])
                << "after " << call << " of round " << round << ", the slot of PE " << pe;
    }

  private:
    int n_;
    uint64_t *slots_;
};

// Every PE writes round r into its slot on every PE (stores to mapped peers, puts to the
// others), passes the barrier and must then find round r in every PE's slot. Two slots per PE,
// by the round's parity: a PE one round ahead writes the other one, and it cannot be two
// rounds ahead before this PE has arrived at the next barrier. symh_barrier_all completes the
// puts itself; symh_sync_all does not, so symh_quiet comes first there.
TEST_F(Barrier, OrdersStoresBeforeItWithLoadsAfterIt)
{
    RoundSlots slots;
    ASSERT_TRUE(slots.ok());
    symh_barrier_all();
    for (uint64_t round = 1; round <= 2000; ++round) {
        slots.write(round);
        if (round % 2) {
            symh_barrier_all();
        } else {
            symh_quiet();
            symh_sync_all();
        }
        ASSERT_EQ(SYMH_OK, symh_last_error());
        slots.check(round, round % 2 ? "symh_barrier_all" : "symh_sync_all");
    }
    symh_barrier_all();
}

// 10,000 barriers, every one checked like the test above (one barrier per round): a barrier
// that returns early fails on the values. A spinning barrier with 8 PEs on 2 cores would take
// minutes; the yielding one takes seconds, and the CTest TIMEOUT (tests/mpi/CMakeLists.txt) is
// set a few times above that, so such a slow barrier fails there.
TEST_F(Barrier, TenThousandBarriersFinish)
{
    RoundSlots slots;
    ASSERT_TRUE(slots.ok());
    symh_barrier_all();
    for (uint64_t round = 1; round <= 10000; ++round) {
        slots.write(round);
        if (round % 2) {
            symh_quiet();
            symh_sync_all();
        } else {
            symh_barrier_all();
        }
        slots.check(round, round % 2 ? "symh_sync_all" : "symh_barrier_all");
    }
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all();
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
