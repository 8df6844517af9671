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
// The node of world rank `rank` (a number equal for PEs of one node): the pretend node of
// SYMHTEST_NODE_SIZE, else the host it really runs on (MPI's shared-memory split). The first
// call with MPI up is collective: mpi_test_main.cc makes it at a point every PE passes.
int symh_test_node_of(int rank);
bool symh_test_same_node(int a, int b);
// Rank `rank`'s index among the PEs of its node, and their number (of the first n ranks).
int symh_test_local_rank(int rank);
int symh_test_local_size(int rank, int n);

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <symheap/registration.h>

// Short names for the tests (the definitions are in mpi_test_main.cc; they use MPI_COMM_WORLD,
// which every multi-PE test binary has initialized by the time a test runs).
namespace symh_test
{
int me();                 // symh_test_world_rank()
int npes();               // the size of MPI_COMM_WORLD
int count_pes(bool flag); // on how many PEs `flag` holds (collective)
// The route this job's configuration gives PE `pe` from this PE, as symh_pe_transport names it
// ("self", "ipc", "ucx", "ofi", "none"), from SYMH_TRANSPORT, SYMH_DISABLE_MIXED_IPC, the pretend
// nodes (SYMHTEST_NODE_SIZE) and SYMHTEST_NIC (the NIC transport auto picks in this build, set
// by CTest). Tests compare the runtime's answers with it.
std::string expected_route(int pe);
// Whether `pe` is reachable by load/store from this PE under the configuration.
bool expected_mapped(int pe);
// Whether `pe` has any route from this PE under the configuration (RMA reaches it).
bool expected_reachable(int pe);
// Whether a route (as symh_pe_transport names it) is a NIC transport.
inline bool is_nic(const std::string &route)
{
    return route == "ucx" || route == "ofi";
}
bool same_everywhere(uint64_t value); // whether every PE passed the same value (collective)

// Lines of a captured log.
inline size_t log_lines(const std::string &log)
{
    size_t n = 0;
    for (char c : log)
        n += c == '\n';
    return n;
}

// The ring's neighbours of this PE in the world.
inline int right()
{
    return (me() + 1) % npes();
}
inline int left()
{
    return (me() + npes() - 1) % npes();
}

// The byte `i` of what PE `pe` sends in the round or size `salt`: differs between neighbours,
// rounds and nearby offsets, so a misplaced or stale byte shows.
inline unsigned char pattern(int pe, size_t salt, size_t i)
{
    return (unsigned char)(pe * 31 + salt * 7 + i * 13 + (i >> 8));
}

// A suite whose tests run with symheap up: symh_init before its first test (the test main
// finalizes at the end).
class InitSuite : public SymhTest
{
  protected:
    static void SetUpTestSuite()
    {
        ASSERT_EQ(SYMH_OK, symh_init());
    }
};

// Occurrences of `part` in a captured log.
inline size_t count_lines(const std::string &log, const std::string &part)
{
    size_t n = 0;
    for (size_t at = log.find(part); at != std::string::npos; at = log.find(part, at + 1))
        ++n;
    return n;
}

// Runs `action`, expecting exactly one log line, mentioning `text`.
template <typename F> void expect_one_line(const char *text, F action)
{
    std::string log = symh_captured_log(action);
    EXPECT_EQ(1u, log_lines(log)) << log;
    EXPECT_NE(std::string::npos, log.find(text)) << log;
}

// Local memory of the zero-copy path of every transport: page-aligned, zeroed and registered
// with symh_buffer_register for its lifetime (a NIC transport takes unregistered memory on a
// slower path, and refuses it under SYMH_NIC_REGISTERED_ONLY=1, docs/rma.md). Trivially copyable
// element types only; construct after symh_init.
template <typename T> class reg_vector
{
  public:
    explicit reg_vector(size_t n) : n_(n), bytes_((n * sizeof(T) + 4095) / 4096 * 4096 + 4096)
    {
        p_ = static_cast<T *>(std::aligned_alloc(4096, bytes_));
        std::memset(static_cast<void *>(p_), 0, bytes_);
        registered_ = symh_buffer_register(p_, bytes_) == SYMH_OK;
    }
    ~reg_vector()
    {
        if (registered_)
            symh_buffer_unregister(p_);
        std::free(p_);
    }
    reg_vector(const reg_vector &) = delete;
    reg_vector &operator=(const reg_vector &) = delete;
    T *data()
    {
        return p_;
    }
    const T *data() const
    {
        return p_;
    }
    size_t size() const
    {
        return n_;
    }
    T &operator[](size_t i)
    {
        return p_[i];
    }
    const T &operator[](size_t i) const
    {
        return p_[i];
    }
    T *begin()
    {
        return p_;
    }
    T *end()
    {
        return p_ + n_;
    }

  private:
    size_t n_, bytes_;
    T *p_;
    bool registered_;
};

// A pointer no call may write: outputs must keep it on failure.
inline void *sentinel()
{
    return (void *)(uintptr_t)0x5a5a;
}
} // namespace symh_test

#endif
