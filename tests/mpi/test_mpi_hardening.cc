// Multi-PE tests of hostile use (each CTest entry runs one suite, tests/mpi/CMakeLists.txt):
// windows that cannot fit the address space of a node's PEs, stale and forged VMM handles, a
// child of fork() that writes into the job's memory or calls symheap, and a refused call in a
// loop, whose log stays bounded.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <regex>
#include <string>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <symheap.h>
#include <symheap/vmm.h>

#include "mpi_test_util.hpp"
#include "shim_heap_debug.h"

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

// ---- fork: a child is no PE (docs/heap.md "A child of fork") ---------------------------------

// A global of the executable: symmetric, so shared memory in the parent (docs/globals.md).
long symh_fork_global;

// Runs `body` in a child of fork() and returns its value as the child's exit status. The child
// leaves by _exit: no GoogleTest, MPI or atexit code of the parent runs there.
template <typename F> pid_t spawn(F body)
{
    fflush(nullptr); // the child's stdio buffers start empty
    pid_t pid = fork();
    if (pid == 0)
        _exit(body());
    return pid;
}

// The child's exit status; -signal when a signal ended it; -1000 when it had not ended after
// 20 s (it is killed then: a call that waits for peers who never come must not hang the job).
int reap(pid_t pid)
{
    int wstatus = 0;
    for (int i = 0; i < 2000; ++i) {
        pid_t done = waitpid(pid, &wstatus, WNOHANG);
        if (done == pid)
            return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -WTERMSIG(wstatus);
        struct timespec ten_ms = { 0, 10 * 1000 * 1000 };
        nanosleep(&ten_ms, nullptr);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &wstatus, 0);
    return -1000;
}

class Fork : public SymhSuiteInitTest
{
};

// The child writes into everything of the job it held before the fork: its heap, its view of a
// peer's heap (IPC), its internal area and its view of the peer's (the barrier's flags; written
// with the value they hold, so that a write that lands changes nothing); each must fault. Its
// globals are its own copy. No PE sees the child's writes.
TEST_F(Fork, AChildCannotWriteIntoTheJobsMemory)
{
    const int peer = (symh_test::me() + 1) % symh_test::npes();
    long *mine = (long *)symh_malloc(sizeof(long));
    ASSERT_NE(nullptr, mine);
    *mine = 1000 + symh_test::me();
    symh_fork_global = 2000 + symh_test::me();
    symh_barrier_all();
    long *peer_heap = (long *)symh_ptr(mine, peer); // NULL where a NIC transport routes the peer
    if (!symh_test::expected_mapped(peer)) {
        EXPECT_EQ(nullptr, peer_heap);
    }
    size_t internal_size = 0;
    char *internal = (char *)symh_shim_heap_internal(&internal_size);
    ASSERT_NE(nullptr, internal);
    char *peer_internal = (char *)symh_shim_peer_addr(internal, peer);

    pid_t pid = spawn([&] {
        int reached = 0; // a bit per target the child could write
        auto rewrite = [](char *at) {
            volatile char *c = at;
            *c = *c;
        };
        if (!symh_faults([&] { *(volatile long *)mine = -1; }))
            reached |= 1;
        if (peer_heap != nullptr && !symh_faults([&] { *(volatile long *)peer_heap = -2; }))
            reached |= 2;
        if (!symh_faults([&] { rewrite(internal); }) ||
            !symh_faults([&] { rewrite(internal + internal_size - 1); }))
            reached |= 4;
        if (peer_internal != nullptr && !symh_faults([&] { rewrite(peer_internal); }))
            reached |= 8;
        symh_fork_global = -3; // its own copy: no fault
        return reached;
    });
    ASSERT_GT(pid, 0);
    EXPECT_EQ(0, reap(pid)) << "bits of what the child wrote into: 1 its heap, 2 the peer's "
                               "heap, 4 its internal area, 8 the peer's";
    symh_barrier_all();
    EXPECT_EQ(1000 + symh_test::me(), *mine) << "a child's write reached this PE's heap";
    EXPECT_EQ(2000 + symh_test::me(), symh_fork_global) << "a child's write reached the globals";
    EXPECT_EQ(1000 + peer, symh_long_g(mine, peer));
    symh_barrier_all();
    symh_free(mine);
}

// Every symheap call of the child fails at once with one line naming the fork, and an error:
// none waits for the PEs (a collective), reaches a peer or touches the job's memory.
TEST_F(Fork, AChildsSymheapCallsFailWithOneLineEach)
{
    const int peer = (symh_test::me() + 1) % symh_test::npes();
    long *mine = (long *)symh_malloc(sizeof(long));
    ASSERT_NE(nullptr, mine);
    *mine = 1000 + symh_test::me();
    symh_barrier_all();

    pid_t pid = spawn([&] {
        int step = 0, first_bad = 0;
        // Runs `call`, which must log one line naming the fork and leave `expected` as the last
        // error; else records the first step that did not, and prints its log.
        auto expect_refused = [&](int expected, auto call) {
            ++step;
            std::string log = symh_captured_log(call);
            bool ok = log_lines(log) == 1 && contains(log, "child") && contains(log, "fork()") &&
                      contains(log, "PE " + std::to_string(symh_test::me())) &&
                      symh_last_error() == expected;
            if (!ok && first_bad == 0) {
                first_bad = step;
                std::string why = "[child of PE " + std::to_string(symh_test::me()) + "] step " +
                                  std::to_string(step) + ", last error " +
                                  std::to_string(symh_last_error()) + ":\n" + log;
                ssize_t n = write(2, why.data(), why.size());
                (void)n;
            }
        };
        const int not_init = SYMH_ERR_NOT_INITIALIZED;
        long local = 0, fetched = 0;
        expect_refused(not_init, [&] { fetched |= symh_malloc(64) != nullptr; });
        expect_refused(not_init, [&] { symh_free(mine); });
        expect_refused(not_init, [&] { symh_barrier_all(); });
        expect_refused(not_init, [&] { symh_sync_all(); });
        expect_refused(not_init, [&] { fetched |= symh_team_sync(SYMH_TEAM_WORLD) == SYMH_OK; });
        expect_refused(not_init, [&] {
            fetched |= symh_broadcastmem(SYMH_TEAM_WORLD, mine, mine, sizeof(long), 0) == SYMH_OK;
        });
        expect_refused(not_init, [&] { symh_long_p(mine, 7, peer); });
        expect_refused(not_init, [&] { fetched |= symh_long_g(mine, peer); });
        expect_refused(not_init, [&] { symh_long_put(mine, &local, 1, peer); });
        expect_refused(not_init, [&] { fetched |= symh_long_atomic_fetch_add(mine, 1, peer); });
        expect_refused(not_init, [&] { symh_long_wait_until(mine, SYMH_CMP_EQ, -5); });
        expect_refused(not_init, [&] { symh_quiet(); });
        expect_refused(not_init, [&] { symh_set_lock(mine); });
        expect_refused(not_init, [&] { fetched |= symh_ptr(mine, peer) != nullptr; });
        expect_refused(not_init, [&] { fetched |= symh_my_pe() != -1; });
        expect_refused(not_init, [&] { symh_finalize(); });
        expect_refused(not_init,
                       [&] { fetched |= symh_buffer_register(&local, sizeof(local)) == SYMH_OK; });
        symh_ctx_t ctx = SYMH_CTX_DEFAULT;
        expect_refused(not_init, [&] { fetched |= symh_ctx_create(0, &ctx) == SYMH_OK; });
        expect_refused(SYMH_ERR_UNSUPPORTED, [&] { fetched |= symh_init() == SYMH_OK; });
        ++step; // the queries answer as for no PE, without a line
        std::string quiet = symh_captured_log([&] {
            fetched |= symh_initialized() != 0;
            fetched |= symh_team_my_pe(SYMH_TEAM_WORLD) != -1;
        });
        if (first_bad == 0 && (fetched != 0 || !quiet.empty()))
            first_bad = step; // a call that succeeded, or says symheap is up here
        return first_bad;
    });
    ASSERT_GT(pid, 0);
    EXPECT_EQ(0, reap(pid)) << "the first call of the child's that was not refused with one line";
    symh_barrier_all();
    EXPECT_EQ(1000 + symh_test::me(), *mine) << "the child's symh_free or put reached the heap";
    symh_barrier_all();
    symh_free(mine);
}

// After symh_finalize MPI stays up until the process exits (docs/init.md). A child that fork()
// makes then and that ends with exit() leaves its parent's MPI alone (its MPI_Finalize waited
// for the peers forever), and the parent's MPI still works.
class ForkAfterFinalize : public SymhTest
{
};

TEST_F(ForkAfterFinalize, AChildsExitLeavesTheParentsMpiAlone)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    symh_finalize();
    fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0)
        exit(0); // the atexit handlers run, as in any child that returns from main
    ASSERT_GT(pid, 0);
    EXPECT_EQ(0, reap(pid));
    EXPECT_EQ(MPI_SUCCESS, MPI_Barrier(MPI_COMM_WORLD));
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
