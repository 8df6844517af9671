// Helpers shared by the multi-PE tests (see mpi_test_main.cc).
#ifndef SYMH_MPI_TEST_UTIL_HPP
#define SYMH_MPI_TEST_UTIL_HPP

#include <symheap.h>

#include "symh_gtest.hpp"

// A fixture whose test suite brings symheap up before its first test and down after its last.
class SymhSuiteInitTest : public SymhTest
{
  protected:
    static void SetUpTestSuite()
    {
        ASSERT_EQ(SYMH_OK, symh_init());
    }
    static void TearDownTestSuite()
    {
        symh_finalize();
    }
};

// This process's rank in MPI_COMM_WORLD (from the launcher's environment before MPI_Init).
int symh_test_world_rank();
// SYMHTEST_NODE_SIZE, or 0 when the PEs are not split into pretend nodes.
int symh_test_node_size();

#include <cstddef>
#include <cstdint>
#include <string>

// Short names for the tests (the definitions are in mpi_test_main.cc; they use MPI_COMM_WORLD,
// which every multi-PE test binary has initialized by the time a test runs).
namespace symh_test
{
int me();                             // symh_test_world_rank()
int npes();                           // the size of MPI_COMM_WORLD
int count_pes(bool flag);             // on how many PEs `flag` holds (collective)
bool same_everywhere(uint64_t value); // whether every PE passed the same value (collective)

// Lines of a captured log.
inline size_t log_lines(const std::string &log)
{
    size_t n = 0;
    for (char c : log)
        n += c == '\n';
    return n;
}

// Runs `action`, expecting exactly one log line, mentioning `text`.
template <typename F> void expect_one_line(const char *text, F action)
{
    std::string log = symh_captured_log(action);
    EXPECT_EQ(1u, log_lines(log)) << log;
    EXPECT_NE(std::string::npos, log.find(text)) << log;
}

// A pointer no call may write: outputs must keep it on failure.
inline void *sentinel()
{
    return (void *)(uintptr_t)0x5a5a;
}
} // namespace symh_test

#endif
