// Tests of local buffer registration (symh_buffer_register / unregister / unregister_all): every
// case of the registration issue, one test each, with the error code and one log line.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <symheap.h>

#include "mpi_test_util.hpp"
#include "shim_reg.h"

namespace
{

using symh_test::InitSuite;
using symh_test::log_lines;

class RegBeforeInit : public SymhTest
{
};

// The registry needs no symh_init (docs/registration.md): it comes up locally on first use.
TEST_F(RegBeforeInit, EveryCallWorksWithoutInit)
{
    char buf[64];
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(SYMH_OK, symh_buffer_register(buf, sizeof(buf)));
        EXPECT_EQ(SYMH_OK, symh_buffer_unregister(buf));
        EXPECT_EQ(SYMH_OK, symh_buffer_register(buf, sizeof(buf)));
        symh_buffer_unregister_all();
        EXPECT_EQ(SYMH_OK, symh_last_error());
        EXPECT_EQ(SYMH_OK, symh_buffer_register(buf, sizeof(buf))) << "unregister_all removed it";
        EXPECT_EQ(SYMH_OK, symh_buffer_unregister(buf));
    });
    EXPECT_EQ("", log);
}

class Reg : public InitSuite
{
  protected:
    void SetUp() override
    {
        SymhTest::SetUp();
        buf.assign(1 << 16, 0);
        base = buf.data();
    }
    void TearDown() override
    {
        symh_buffer_unregister_all();
        SymhTest::TearDown();
    }
    // Runs `call`, expects `status` and exactly one log line containing `part`.
    template <typename F> void expect_refused(int status, const std::string &part, F call)
    {
        std::string log = symh_captured_log([&] { EXPECT_EQ(status, call()); });
        EXPECT_EQ(status, symh_last_error());
        EXPECT_EQ(1u, log_lines(log)) << log;
        EXPECT_NE(std::string::npos, log.find(part)) << log;
    }
    std::vector<char> buf;
    char *base = nullptr;
};

TEST_F(Reg, RegisterAndUnregister)
{
    EXPECT_EQ(SYMH_OK, symh_buffer_register(base, 4096));
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister(base));
    EXPECT_EQ(SYMH_OK, symh_buffer_register(base, 4096)) << "free to register again";
}

TEST_F(Reg, NullIsRefused)
{
    expect_refused(SYMH_ERR_INVALID_ARG, "addr is NULL",
                   [] { return symh_buffer_register(nullptr, 64); });
}

TEST_F(Reg, ZeroLengthIsRefused)
{
    expect_refused(SYMH_ERR_INVALID_ARG, "length is 0",
                   [this] { return symh_buffer_register(base, 0); });
}

TEST_F(Reg, OverflowIsRefused)
{
    void *high = (void *)(UINTPTR_MAX - 100);
    expect_refused(SYMH_ERR_INVALID_ARG, "addr + length overflows",
                   [high] { return symh_buffer_register(high, 4096); });
}

TEST_F(Reg, ExactDuplicateOverlaps)
{
    ASSERT_EQ(SYMH_OK, symh_buffer_register(base + 1024, 1024));
    expect_refused(SYMH_ERR_OVERLAP, "overlaps a registered buffer",
                   [this] { return symh_buffer_register(base + 1024, 1024); });
}

TEST_F(Reg, PartialOverlapAtTheStartIsRefused)
{
    ASSERT_EQ(SYMH_OK, symh_buffer_register(base + 1024, 1024));
    expect_refused(SYMH_ERR_OVERLAP, "overlaps",
                   [this] { return symh_buffer_register(base + 512, 1024); });
}

TEST_F(Reg, PartialOverlapAtTheEndIsRefused)
{
    ASSERT_EQ(SYMH_OK, symh_buffer_register(base + 1024, 1024));
    expect_refused(SYMH_ERR_OVERLAP, "overlaps",
                   [this] { return symh_buffer_register(base + 2047, 100); });
}

TEST_F(Reg, ContainedRangeIsRefused)
{
    ASSERT_EQ(SYMH_OK, symh_buffer_register(base + 1024, 1024));
    expect_refused(SYMH_ERR_OVERLAP, "overlaps",
                   [this] { return symh_buffer_register(base + 1100, 10); });
}

TEST_F(Reg, ContainingRangeIsRefused)
{
    ASSERT_EQ(SYMH_OK, symh_buffer_register(base + 1024, 1024));
    expect_refused(SYMH_ERR_OVERLAP, "overlaps",
                   [this] { return symh_buffer_register(base, 8192); });
}

TEST_F(Reg, AdjacentRangesAreAccepted)
{
    ASSERT_EQ(SYMH_OK, symh_buffer_register(base + 1024, 1024));
    EXPECT_EQ(SYMH_OK, symh_buffer_register(base, 1024)) << "ends where the other starts";
    EXPECT_EQ(SYMH_OK, symh_buffer_register(base + 2048, 1024)) << "starts where it ends";
}

TEST_F(Reg, TheHeapCountsAsRegistered)
{
    char *p = (char *)symh_malloc(4096);
    ASSERT_NE(nullptr, p);
    expect_refused(SYMH_ERR_OVERLAP, "overlaps the symmetric heap",
                   [p] { return symh_buffer_register(p + 100, 100); });
    expect_refused(SYMH_ERR_NOT_REGISTERED, "is not in a registered buffer",
                   [p] { return symh_buffer_unregister(p); });
    symh_free(p);
}

TEST_F(Reg, UnregisterByAnInteriorAddress)
{
    ASSERT_EQ(SYMH_OK, symh_buffer_register(base + 1024, 1024));
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister(base + 2047)); // the last byte
    EXPECT_EQ(SYMH_OK, symh_buffer_register(base + 1024, 1024));
}

TEST_F(Reg, UnregisterOfAnUnknownAddress)
{
    ASSERT_EQ(SYMH_OK, symh_buffer_register(base + 1024, 1024));
    expect_refused(SYMH_ERR_NOT_REGISTERED, "is not in a registered buffer",
                   [this] { return symh_buffer_unregister(base + 2048); }); // one past the end
}

TEST_F(Reg, UnregisterTwice)
{
    ASSERT_EQ(SYMH_OK, symh_buffer_register(base, 64));
    ASSERT_EQ(SYMH_OK, symh_buffer_unregister(base));
    expect_refused(SYMH_ERR_NOT_REGISTERED, "is not in a registered buffer",
                   [this] { return symh_buffer_unregister(base); });
}

TEST_F(Reg, UnregisterNull)
{
    expect_refused(SYMH_ERR_INVALID_ARG, "addr is NULL",
                   [] { return symh_buffer_unregister(nullptr); });
}

TEST_F(Reg, UnregisterAllLeavesTheHeap)
{
    for (int i = 0; i < 8; ++i)
        ASSERT_EQ(SYMH_OK, symh_buffer_register(base + i * 4096, 4096));
    symh_buffer_unregister_all();
    EXPECT_EQ(SYMH_OK, symh_last_error());
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(SYMH_OK, symh_buffer_register(base + i * 4096, 4096)) << i;
    char *p = (char *)symh_malloc(64);
    expect_refused(SYMH_ERR_OVERLAP, "overlaps the symmetric heap",
                   [p] { return symh_buffer_register(p, 64); });
    symh_free(p);
}

TEST_F(Reg, ARegisteredBufferIsALocalRmaSource)
{
    int n = symh_n_pes(), me = symh_my_pe();
    long *target = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, target);
    long *source = (long *)(void *)base;
    *source = 4200 + me;
    ASSERT_EQ(SYMH_OK, symh_buffer_register(source, sizeof(long)));
    symh_putmem(target, source, sizeof(long), (me + 1) % n);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all();
    EXPECT_EQ(4200 + (me + n - 1) % n, *target);
    symh_barrier_all();
    symh_free(target);
}

class RegAfterFinalize : public SymhTest
{
};

TEST_F(RegAfterFinalize, RegistrationsEndWithFinalize)
{
    char buf[64];
    ASSERT_EQ(SYMH_OK, symh_buffer_register(buf, sizeof(buf)));
    symh_finalize();
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(SYMH_OK, symh_buffer_register(buf, sizeof(buf))) << "a local registry, empty";
        EXPECT_EQ(SYMH_OK, symh_buffer_unregister(buf));
    });
    EXPECT_EQ("", log);
    ASSERT_EQ(SYMH_OK, symh_init());
    EXPECT_EQ(SYMH_OK, symh_buffer_register(buf, sizeof(buf))) << "a new init starts empty";
    symh_finalize();
}

// The registry owns the NIC mappings of what it records: a buffer still registered, and a device
// allocation still live, at symh_finalize are unmapped before the transport stops. Counted
// through hooks wrapping the active NIC transport's (or standing for one where none is up).
TEST_F(RegAfterFinalize, FinalizeUnmapsWhatIsStillMappedForTheNic)
{
    std::vector<char> a(4096), b(4096), c(4096);
    void *dev = nullptr;
    size_t maps = 0, unmaps = 0;

    ASSERT_EQ(SYMH_OK, symh_init());
    symh_shim_reg_nic_count();
    ASSERT_EQ(SYMH_OK, symh_buffer_register(a.data(), a.size()));
    ASSERT_EQ(SYMH_OK, symh_buffer_register(b.data(), b.size()));
    ASSERT_EQ(SYMH_OK, symh_buffer_register(c.data(), c.size()));
    ASSERT_EQ(SYMH_OK, symh_buffer_unregister(b.data()));
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&dev, 256, nullptr));
    symh_shim_reg_nic_counts(&maps, &unmaps);
    EXPECT_EQ(4u, maps);
    EXPECT_EQ(1u, unmaps);
    std::string log = symh_captured_log([] { symh_finalize(); }); // warns of the live allocation
    symh_shim_reg_nic_counts(&maps, &unmaps);
    symh_shim_reg_nic_uncount();
    EXPECT_EQ(4u, unmaps) << "a, c and the device allocation unmapped at finalize; " << log;
}

} // namespace
