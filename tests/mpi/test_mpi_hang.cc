// Multi-PE tests of SYMH_HANG_TIMEOUT (docs/collectives.md "A hang says where it is"): a PE that
// has waited that long in a collective, a wait_until or symh_finalize logs one line saying which
// call it is in, its sequence number and which PEs have not arrived, then keeps waiting; with
// SYMH_HANG_ABORT=1 it ends the job instead (HangAbort, run by hang_abort.sh, never directly).
// Every test sets the variables itself before symh_init, so the other binaries never see them.
// The late PE does not guess how long the others take to report: it joins only once each PE that
// must report has logged its line (a marker file each, written by a log hook), so the tests count
// lines and depend on no wall-clock window.
#define OMPI_SKIP_MPICXX  1 /* the C API only */
#define MPICH_SKIP_MPICXX 1
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include <mpi.h>
#include <symheap.h>

#include "mpi_test_util.hpp"
#include "shim_core.h"

namespace
{

using namespace symh_test;

// The PE that arrives late: the last one.
int late_pe()
{
    return npes() - 1;
}

// What this PE's hang line says of the late PE: its number when this PE can see its arrival
// (the late PE's window is mapped here by IPC), else that none of the PEs it can see is missing.
std::string missing_part()
{
    if (!expected_mapped(late_pe()))
        return "have not arrived: none of those visible here";
    return "have not arrived: " + std::to_string(late_pe());
}

// The job's marker directory (made by PE 0, its name broadcast) and this PE's marker in it: a
// PE's log hook creates the marker when the PE logs its hang line.
std::string marker_dir;
std::string marker_of(int pe)
{
    return marker_dir + "/pe" + std::to_string(pe);
}
void mark_hang_line(const char *line)
{
    if (std::strstr(line, "has waited") == nullptr ||
        std::strstr(line, "SYMH_HANG_TIMEOUT") == nullptr)
        return;
    int fd = open(marker_of(me()).c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

class Hang : public SymhTest
{
  protected:
    void SetUp() override
    {
        SymhTest::SetUp();
        symh_shim_log_set_hook(mark_hang_line);
        setenv("SYMH_HANG_TIMEOUT", "1", 1);
        ASSERT_EQ(SYMH_OK, symh_init()); // MPI is up from here (symheap started it)
        char name[256] = "";
        if (me() == 0) {
            std::string pattern =
                std::string(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") + "/symh_hang_XXXXXX";
            std::strncpy(name, pattern.c_str(), sizeof(name) - 1);
            ASSERT_NE(nullptr, mkdtemp(name));
        }
        MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, MPI_COMM_WORLD);
        marker_dir = name;
    }
    void TearDown() override
    {
        if (symh_initialized())
            symh_finalize();
        symh_shim_log_set_hook(nullptr);
        unsetenv("SYMH_HANG_TIMEOUT");
        MPI_Barrier(MPI_COMM_WORLD);
        if (me() == 0) {
            for (int pe = 0; pe < npes(); ++pe)
                unlink(marker_of(pe).c_str());
            rmdir(marker_dir.c_str());
        }
        SymhTest::TearDown();
    }
    // The late PE stays out of symheap until each PE of `reporters` has logged its hang line
    // (a CTest TIMEOUT ends a test whose line never comes), then joins.
    template <typename P> static void be_late_until(P reporters)
    {
        for (;;) {
            bool all = true;
            for (int pe = 0; pe < npes(); ++pe)
                if (reporters(pe) && access(marker_of(pe).c_str(), F_OK) != 0)
                    all = false;
            if (all)
                return;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    // Every PE makes collective call `action`, the late PE once the others have said they wait:
    // the late PE logs nothing, every other PE exactly one line naming `call` and the late PE.
    template <typename F> static void expect_one_hang_line(const std::string &call, F action)
    {
        std::string log = symh_captured_log([&] {
            if (me() == late_pe())
                be_late_until([](int pe) { return pe != late_pe(); });
            action();
        });
        if (me() == late_pe()) {
            EXPECT_EQ("", log);
            return;
        }
        EXPECT_EQ(1u, count_lines(log, "\n")) << log;
        EXPECT_EQ(1u, count_lines(log, call + " has waited")) << log;
        EXPECT_EQ(1u, count_lines(log, missing_part())) << log;
        EXPECT_EQ(1u, count_lines(log, "(SYMH_HANG_TIMEOUT)")) << log;
    }
};

// Every PE but the late one waits in symh_barrier_all and says so once (not once a second),
// naming the call, its number in the world team and the PE that has not arrived.
TEST_F(Hang, BarrierSaysWhoHasNotArrived)
{
    symh_sync_all(); // call 1: the barrier below is call 2
    expect_one_hang_line("symh_barrier_all (call 2 of the world team)", [] { symh_barrier_all(); });
    EXPECT_EQ(SYMH_OK, symh_last_error());
}

// The same for an agreement: symh_malloc names itself.
TEST_F(Hang, MallocSaysWhoHasNotArrived)
{
    void *p = nullptr;
    expect_one_hang_line("symh_malloc (call 1 of the world team)", [&] { p = symh_malloc(64); });
    ASSERT_NE(nullptr, p);
    symh_free(p);
}

// PE 0 waits for a flag that the late PE puts only after its delay: one line with the variable,
// the comparison and the value it sees.
TEST_F(Hang, WaitUntilSaysWhatItWaitsFor)
{
    int *flag = (int *)symh_calloc(1, sizeof(int));
    ASSERT_NE(nullptr, flag);
    std::string log = symh_captured_log([&] {
        if (me() == 0) {
            symh_int_wait_until(flag, SYMH_CMP_EQ, 7);
        } else if (me() == late_pe()) {
            be_late_until([](int pe) { return pe == 0; });
            symh_int_p(flag, 7, 0);
            symh_quiet();
        }
        EXPECT_EQ(SYMH_OK, symh_last_error());
        symh_barrier_all(); // PEs 1 .. late - 1 wait here for PE 0 and the late PE, and say so
    });
    symh_free(flag);
    if (me() == late_pe()) {
        EXPECT_EQ("", log);
    }
    if (me() != 0)
        return;
    EXPECT_EQ(1u, count_lines(log, "\n")) << log;
    EXPECT_EQ(1u, count_lines(log, "symh_int_wait_until: PE 0 has waited")) << log;
    EXPECT_EQ(1u, count_lines(log, "SYMH_CMP_EQ 7; it is 0 (SYMH_HANG_TIMEOUT)")) << log;
}

// symh_finalize waits for the late PE's finalize, and says so once.
TEST_F(Hang, FinalizeSaysWhoHasNotArrived)
{
    expect_one_hang_line("symh_finalize (call 1 of the world team)", [] { symh_finalize(); });
    EXPECT_EQ(0, symh_initialized());
}

// SYMH_HANG_TIMEOUT=0 turns the watch off: a long wait says nothing.
TEST_F(Hang, ZeroTurnsTheWatchOff)
{
    symh_finalize();
    setenv("SYMH_HANG_TIMEOUT", "0", 1);
    ASSERT_EQ(SYMH_OK, symh_init());
    std::string log = symh_captured_log([] {
        if (me() == late_pe()) // twice the timeout the watch would have had: nothing to wait for
            std::this_thread::sleep_for(std::chrono::milliseconds(2000));
        symh_barrier_all();
    });
    EXPECT_EQ("", log);
}

// Run only by hang_abort.sh (with SYMH_HANG_TIMEOUT=1 SYMH_HANG_ABORT=1): the late PE never
// comes, PE 0's barrier logs its line and ends the job with exit status 124.
TEST(HangAbort, EndsTheJob)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    if (me() == late_pe())
        std::this_thread::sleep_for(std::chrono::seconds(60));
    symh_barrier_all();
    ADD_FAILURE() << "symh_barrier_all returned although a PE never arrived";
    symh_finalize();
}

} // namespace
