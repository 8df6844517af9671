// Multi-PE tests of hostile use (each CTest entry runs one suite, tests/mpi/CMakeLists.txt):
// windows that cannot fit the address space of a node's PEs, stale and forged VMM handles, and a
// refused call in a loop, whose log stays bounded.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <regex>
#include <string>
#include <unistd.h>

#include <symheap.h>
#include <symheap/vmm.h>

#include "mpi_test_util.hpp"

namespace
{

using symh_test::count_lines;
using symh_test::count_pes;
using symh_test::log_lines;

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

// ---- address space: every PE reserves its window and one per node-local IPC peer -----------

class WindowSpace : public SymhTest
{
};

// Fits one window (the 1-PE runs would start) but not one per PE of a node of 2 or 3.
void expect_no_room(const char *var, const char *value)
{
    setenv(var, value, 1);
    std::string log = symh_captured_log([] { EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_init()); });
    unsetenv(var);
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_last_error());
    EXPECT_EQ(0, symh_initialized());
    bool named = contains(log, std::string(var) + "=" + value);
    EXPECT_EQ(1, count_pes(named)) << "one line per job: " << log;
    if (symh_test::me() == 0) {
        EXPECT_TRUE(named) << log;
        EXPECT_EQ(1u, count_lines(log, " error ")) << log;
        EXPECT_TRUE(contains(log, "SYMH_HEAP_SIZE=")) << log;
        EXPECT_TRUE(contains(log, "SYMH_SYMM_AREA_SIZE=")) << log;
        std::string pes = std::to_string(symh_test::npes()) + " windows (one per node-local PE";
        EXPECT_TRUE(contains(log, pes)) << "names the node-local PE count: " << log;
        EXPECT_TRUE(std::regex_search(log, std::regex(R"(needs [0-9.]+ TiB \([0-9]+ bytes\))")))
            << log;
        EXPECT_FALSE(contains(log, "mmap")) << "the check runs before any reservation: " << log;
    }
}

TEST_F(WindowSpace, ASymmetricAreaTooLargeForTheNodeFailsEveryPeWithOneLine)
{
    expect_no_room("SYMH_SYMM_AREA_SIZE", "63t");
}

TEST_F(WindowSpace, AHeapTooLargeForTheNodeFailsEveryPeWithOneLine)
{
    expect_no_room("SYMH_HEAP_SIZE", "20t");
}

TEST_F(WindowSpace, ACorrectedEnvironmentInitializes)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    symh_finalize();
}

// ---- VMM handles: checked against a table, never dereferenced -------------------------------

class VmmHandles : public SymhSuiteInitTest
{
  protected:
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    // Runs `call`, expecting SYMH_ERR_INVALID_ARG and one line naming a dead handle.
    template <typename F> void expect_dead(F call)
    {
        std::string log = symh_captured_log([&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, call()); });
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
        EXPECT_EQ(1u, log_lines(log)) << log;
        EXPECT_TRUE(contains(log, "is not a live physical object")) << log;
    }
};

TEST_F(VmmHandles, DestroyingTwiceIsRefused)
{
    symh_physmem_t *pm = nullptr;
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, page, &pm));
    ASSERT_EQ(SYMH_OK, symh_physmem_destroy(pm));
    expect_dead([&] { return symh_physmem_destroy(pm); });
    expect_dead([&] { return symh_physmem_destroy(pm); });
}

TEST_F(VmmHandles, EveryCallRefusesADestroyedHandle)
{
    symh_physmem_t *pm = nullptr;
    void *va = nullptr, *mapped = nullptr;
    ASSERT_EQ(SYMH_OK, symh_vmm_reserve(page, nullptr, &va));
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, page, &pm));
    ASSERT_EQ(SYMH_OK, symh_physmem_destroy(pm));
    expect_dead([&] {
        EXPECT_EQ(0u, symh_physmem_size(pm));
        return symh_last_error();
    });
    expect_dead([&] {
        EXPECT_EQ(-1, symh_physmem_device(pm));
        return symh_last_error();
    });
    expect_dead([&] { return symh_physmem_map(pm, va, page, SYMH_ACCESS_READ_WRITE, 0, &mapped); });
    EXPECT_EQ(nullptr, mapped);
    EXPECT_EQ(SYMH_OK, symh_vmm_release(va, page)) << "nothing was mapped";
}

TEST_F(VmmHandles, AStaleHandleDoesNotReachTheObjectThatReusedItsPlace)
{
    symh_physmem_t *old_pm = nullptr, *new_pm = nullptr;
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, page, &old_pm));
    ASSERT_EQ(SYMH_OK, symh_physmem_destroy(old_pm));
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, 2 * page, &new_pm));
    expect_dead([&] { return symh_physmem_destroy(old_pm); });
    EXPECT_EQ(2 * page, symh_physmem_size(new_pm)) << "the new object is untouched";
    EXPECT_EQ(SYMH_OK, symh_physmem_destroy(new_pm));
}

TEST_F(VmmHandles, ForgedHandlesAreRefused)
{
    char stack_bytes[64] = { 0 };
    for (symh_physmem_t *forged :
         { (symh_physmem_t *)(uintptr_t)0x1234, (symh_physmem_t *)(void *)stack_bytes,
           (symh_physmem_t *)(uintptr_t)UINTPTR_MAX })
        expect_dead([&] { return symh_physmem_destroy(forged); });
}

TEST_F(VmmHandles, AHandleFromBeforeFinalizeIsRefusedAfterANewInit)
{
    symh_physmem_t *pm = nullptr;
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, page, &pm));
    symh_finalize(); // frees the object the application left
    ASSERT_EQ(SYMH_OK, symh_init());
    symh_physmem_t *fresh = nullptr;
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, page, &fresh));
    expect_dead([&] { return symh_physmem_destroy(pm); });
    EXPECT_EQ(SYMH_OK, symh_physmem_destroy(fresh));
}

// ---- a refused call in a loop: the log stays bounded ----------------------------------------

class LogFlood : public SymhTest
{
};

unsigned long suppressed(const std::string &log)
{
    static const std::regex summary(R"(([0-9]+) similar lines suppressed)");
    unsigned long sum = 0;
    for (std::sregex_iterator it(log.begin(), log.end(), summary), end; it != end; ++it)
        sum += std::stoul((*it)[1].str());
    return sum;
}

TEST_F(LogFlood, TestingANonSymmetricAddressInALoopLogsABoundedNumberOfLines)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    const int calls = 10000;
    int not_symmetric = 0; // on the stack, outside the heap
    std::string log = symh_captured_log([&] {
        for (int i = 0; i < calls; ++i)
            EXPECT_EQ(0, symh_int_test(&not_symmetric, SYMH_CMP_EQ, 0));
    });
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    size_t refused = count_lines(log, "is not a symmetric address");
    EXPECT_GE(refused, 10u) << log;
    EXPECT_LE(log_lines(log), 20u) << log;
    // The rest is counted, and what is still pending is told at finalize.
    std::string at_finalize = symh_captured_log([] { symh_finalize(); });
    EXPECT_EQ((unsigned long)calls - refused, suppressed(log) + suppressed(at_finalize))
        << log << at_finalize;
    EXPECT_TRUE(contains(at_finalize, "similar lines suppressed (tl_rma.c:")) << at_finalize;
}

} // namespace
