// Multi-PE test of NIC deliveries that wait_until watches (docs/transports.md "Completion,
// ordering and progress"): a token goes around the ring of PEs 50 times, each hop a p + quiet
// through the route to the right neighbour (the NIC, or IPC inside a pretend node), each wait a
// wait_until on the token changing. Every PE records the values it saw and PE 0 checks all of
// them: a wrong, duplicated or reordered delivery fails on the values, a lost one under the hang
// watch CTest sets (SYMH_HANG_TIMEOUT=10, SYMH_HANG_ABORT=1: the wait's line, then the job ends).
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <string>
#include <vector>

#include <symheap.h>
#include <symheap/rma.h>

#include "mpi_test_util.hpp"

namespace
{

using namespace symh_test;

class NicRing : public SymhSuiteInitTest
{
};

// Hop h (1, 2, ...) carries the value h from PE (h - 1) % n to PE h % n: PE i > 0 sees
// lap * n + i in lap `lap`, PE 0 sees (lap + 1) * n.
long expected_value(int pe, int n, int lap)
{
    return pe == 0 ? (long)(lap + 1) * n : (long)lap * n + pe;
}

TEST_F(NicRing, EveryPeSeesEveryValueOfTheTokenInTurn)
{
    const int laps = 50;
    int n = npes(), right = (me() + 1) % n;
    ASSERT_GE(n, 2) << "a ring needs two PEs";
    ASSERT_LT(0, count_pes(is_nic(expected_route(right)))) << "no hop of the ring is NIC-routed";
    EXPECT_EQ(expected_route(right), std::string(symh_pe_transport(right)));
    auto *token = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, token);
    symh_barrier_all();
    std::vector<long> seen(laps, -1);
    long last = 0;
    if (me() == 0) {
        symh_long_p(token, 1, right);
        symh_quiet();
    }
    for (int lap = 0; lap < laps; ++lap) {
        // Only the left neighbour writes the token, once per lap, after this PE passed it on.
        symh_long_wait_until(token, SYMH_CMP_NE, last);
        last = *(volatile long *)token;
        seen[lap] = last;
        if (me() != 0 || lap < laps - 1) { // the last hop ends at PE 0
            symh_long_p(token, last + 1, right);
            symh_quiet();
        }
    }
    EXPECT_EQ(SYMH_OK, symh_last_error());
    // A PE in a plain MPI call drives no NIC: the last hop's quiet completes before the gather.
    symh_barrier_all();
    std::vector<long> all(me() == 0 ? (size_t)n * laps : 0);
    MPI_Gather(seen.data(), laps, MPI_LONG, all.data(), laps, MPI_LONG, 0, MPI_COMM_WORLD);
    if (me() == 0) {
        for (int pe = 0; pe < n; ++pe)
            for (int lap = 0; lap < laps; ++lap)
                ASSERT_EQ(expected_value(pe, n, lap), all[(size_t)pe * laps + lap])
                    << "PE " << pe << " lap " << lap;
    }
    symh_free(token);
}

} // namespace
