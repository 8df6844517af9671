// main() of every multi-PE GoogleTest binary: output from PE 0 only, and the whole job aborted
// on the first failure on any PE, so no PE waits forever for a peer that stopped.
//
// SYMHTEST_NODE_SIZE=k (set by symh_add_mpi_test's ENVS) gives PE i the SYMH_HOSTID "node<i/k>",
// so one machine stands in for several nodes. Binaries built with SYMH_TEST_APP_INITS_MPI call
// MPI_Init_thread themselves before the tests; the others leave MPI to symh_init.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include "mpi_test_util.hpp"

int symh_test_world_rank()
{
    int initialized = 0, finalized = 0, rank = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        return rank;
    }
    // Before MPI_Init the launcher's environment tells the rank (0 when run alone).
    for (const char *var : { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK" })
        if (const char *value = getenv(var))
            return atoi(value);
    return 0;
}

int symh_test_node_size()
{
    const char *value = getenv("SYMHTEST_NODE_SIZE");
    return value ? atoi(value) : 0;
}

namespace symh_test
{

int me()
{
    return symh_test_world_rank();
}

int npes()
{
    int n = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

std::string expected_route(int pe)
{
    const char *t = getenv("SYMH_TRANSPORT"), *nic = getenv("SYMHTEST_NIC");
    const char *no_mixed = getenv("SYMH_DISABLE_MIXED_IPC");
    std::string transport = t ? t : "auto", built = nic ? nic : "none";
    int k = symh_test_node_size(), mine = me();
    bool same_node = k == 0 || pe / k == mine / k;

    if (pe == mine)
        return "self";
    if (transport == "ipc")
        return same_node ? "ipc" : "none";
    if (transport == "ucx" || transport == "ofi")
        return transport;
    return same_node && !(no_mixed && std::string(no_mixed) == "1") ? "ipc" : built;
}

bool expected_mapped(int pe)
{
    std::string route = expected_route(pe);
    return route == "self" || route == "ipc";
}

int count_pes(bool flag)
{
    int mine = flag ? 1 : 0, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

bool same_everywhere(uint64_t value)
{
    uint64_t lo = 0, hi = 0;
    MPI_Allreduce(&value, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&value, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

} // namespace symh_test

namespace
{

class AbortOnFailure : public ::testing::EmptyTestEventListener
{
    void OnTestPartResult(const ::testing::TestPartResult &result) override
    {
        if (!result.failed())
            return;
        int rank = symh_test_world_rank();
        fprintf(stderr, "[rank %d] FAILED at %s:%d\n%s\n", rank,
                result.file_name() ? result.file_name() : "?", result.line_number(),
                result.summary());
        fflush(stderr);
        int initialized = 0, finalized = 0;
        MPI_Initialized(&initialized);
        MPI_Finalized(&finalized);
        if (initialized && !finalized)
            MPI_Abort(MPI_COMM_WORLD, 1);
        _exit(1);
    }
};

} // namespace

int main(int argc, char **argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    int rank = symh_test_world_rank();

    if (int node_size = symh_test_node_size()) {
        std::string hostid = "node" + std::to_string(rank / node_size);
        setenv("SYMH_HOSTID", hostid.c_str(), 1);
    }
#ifdef SYMH_TEST_APP_INITS_MPI
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
#endif
    ::testing::TestEventListeners &listeners = ::testing::UnitTest::GetInstance()->listeners();
    if (rank != 0)
        delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new AbortOnFailure);

    int failed = RUN_ALL_TESTS();
#ifdef SYMH_TEST_APP_INITS_MPI
    MPI_Finalize();
#endif
    return failed;
}
