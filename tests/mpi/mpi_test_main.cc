// main() of every multi-PE GoogleTest binary: output from PE 0 only, and the whole job aborted
// on the first failure on any PE, so no PE waits forever for a peer that stopped. A warning or
// error symheap logs outside every test (a suite's symh_init and symh_finalize) aborts it too.
//
// SYMHTEST_NODE_SIZE=k (set by symh_add_mpi_test's ENVS) gives PE i the SYMH_HOSTID "node<i/k>",
// so one machine stands in for several nodes; without it the tests expect the nodes the PEs
// really share (one machine, or the namespace nodes of tests/cluster/cluster.sh). Binaries built
// with SYMH_TEST_APP_INITS_MPI call MPI_Init_thread themselves before the tests; the others leave
// MPI to symh_init.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

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

namespace
{

// The node of every world rank on real hosts: the world rank of the node's first PE, from MPI's
// shared-memory split (the hosts the PEs really share: one machine, or the nodes of
// tests/cluster/cluster.sh). On one host (Open MPI's local size is the world's) that needs no
// communication; across hosts it is learnt once, collectively, at the first point every PE passes
// with MPI up (main, a test's start, or the first expected route asked for: the PEs run the same
// tests in the same order).
std::vector<int> symh_test_real_nodes;

void symh_test_learn_nodes()
{
    int initialized = 0, finalized = 0;
    if (!symh_test_real_nodes.empty() || symh_test_node_size() > 0)
        return;
    // Every rank on this host (Open MPI says so to each process): one node, and no collective,
    // so that a test may ask for routes on some PEs only (test_mpi_hang asks on all but one).
    const char *local_size = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    const char *world_size = getenv("OMPI_COMM_WORLD_SIZE");
    if (local_size && world_size && atoi(local_size) == atoi(world_size) && atoi(world_size) > 0) {
        symh_test_real_nodes.assign((size_t)atoi(world_size), 0);
        return;
    }
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
        return;
    int rank = 0, size = 0, leader = 0;
    MPI_Comm node;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    leader = rank;
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    MPI_Comm_free(&node);
    std::vector<int> nodes(size);
    MPI_Allgather(&leader, 1, MPI_INT, nodes.data(), 1, MPI_INT, MPI_COMM_WORLD);
    symh_test_real_nodes = nodes;
}

} // namespace

int symh_test_node_of(int rank)
{
    if (int k = symh_test_node_size())
        return rank / k;
    symh_test_learn_nodes(); // collective when not learnt yet (see above)
    if (symh_test_real_nodes.empty())
        return 0; // MPI not up: one PE, one node
    return symh_test_real_nodes.at(rank);
}

bool symh_test_same_node(int a, int b)
{
    return symh_test_node_of(a) == symh_test_node_of(b);
}

int symh_test_local_rank(int rank)
{
    int local = 0;
    for (int pe = 0; pe < rank; ++pe)
        local += symh_test_same_node(pe, rank);
    return local;
}

int symh_test_local_size(int rank, int n)
{
    int local = 0;
    for (int pe = 0; pe < n; ++pe)
        local += symh_test_same_node(pe, rank);
    return local;
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
    const char *no_mixed = getenv("SYMH_DISABLE_MIXED_IPC"), *chosen = getenv("SYMH_NIC");
    std::string transport = t ? t : "auto", built = nic ? nic : "none";
    int mine = me();
    bool same_node = symh_test_same_node(pe, mine);

    if (chosen && std::string(chosen) != "auto")
        built = chosen; // SYMH_NIC: the NIC between nodes under auto

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

bool expected_reachable(int pe)
{
    return expected_route(pe) != "none";
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

// Ends the whole job (MPI_Abort while MPI is up), so no PE waits for this one.
[[noreturn]] void symh_test_abort_job()
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
}

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
        symh_test_abort_job();
    }
};

// What runs outside every test: a suite's SetUpTestSuite (symh_init) before its first test and
// its TearDownTestSuite (symh_finalize) after its last. SymhTest's own check covers a test's
// SetUp to TearDown only (its SetUp forgets what came before), so this listener checks the
// gaps on every PE: the init and finalize of a healthy job log no warning or error at the
// default level, and a line there ends the job with a non-zero exit status.
class SilentOutsideTests : public ::testing::EmptyTestEventListener
{
    void OnTestStart(const ::testing::TestInfo &test) override
    {
        symh_test_learn_nodes();
        check(std::string("before ") + test.test_suite_name() + "." + test.name() +
              " (its suite's SetUpTestSuite: symh_init)");
    }
    void OnTestEnd(const ::testing::TestInfo &test) override
    {
        check(std::string("after ") + test.test_suite_name() + "." + test.name() +
              " (after its fixture's TearDown)");
    }
    void OnTestSuiteEnd(const ::testing::TestSuite &suite) override
    {
        check(std::string("after the tests of ") + suite.name() +
              " (its TearDownTestSuite: symh_finalize)");
    }
    static void check(const std::string &when)
    {
        std::string lines = symh_shim_log_unexpected();
        symh_shim_log_reset_unexpected();
        if (lines.empty())
            return;
        fprintf(stderr, "[rank %d] FAILED: unexpected warning or error logged %s:\n%s",
                symh_test_world_rank(), when.c_str(), lines.c_str());
        fflush(stderr);
        symh_test_abort_job();
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
    symh_test_learn_nodes(); // now when the test program started MPI, else at a test's start
    ::testing::TestEventListeners &listeners = ::testing::UnitTest::GetInstance()->listeners();
    if (rank != 0)
        delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new AbortOnFailure);
    listeners.Append(new SilentOutsideTests);
    // Lines of a suite-level symh_init before the first test's SetUp are recorded too.
    symh_shim_log_install();
    symh_shim_log_reset_unexpected();

    int failed = RUN_ALL_TESTS();
#ifdef SYMH_TEST_APP_INITS_MPI
    MPI_Finalize();
#endif
    return failed;
}
