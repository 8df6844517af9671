// Multi-PE tests of init/finalize when symheap starts MPI itself: PE numbering, re-init, thread
// levels, node grouping (SYMH_HOSTID), routes, and configuration errors agreed by every PE.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <symheap.h>

#include "mpi_test_util.hpp"

namespace
{

using namespace symh_test;

class Boot : public SymhTest
{
};

int world_size()
{
    int size = 1, initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) {
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        return size;
    }
    // Before MPI_Init (a test run alone, by a filter) the launcher's environment says.
    for (const char *var : { "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE" })
        if (const char *value = getenv(var))
            return atoi(value);
    return size;
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

// symh_pe_transport as a string ("(null)" for NULL).
std::string transport_of(int pe)
{
    const char *route = symh_pe_transport(pe);
    return route != nullptr ? route : "(null)";
}

// Must run first: nothing has started MPI yet.
TEST_F(Boot, CallsBeforeInitFailWithoutStartingMpi)
{
    std::string log = symh_captured_log([] {
        EXPECT_EQ(0, symh_initialized());
        EXPECT_EQ(-1, symh_my_pe());
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        EXPECT_EQ(-1, symh_n_pes());
        EXPECT_EQ(nullptr, symh_pe_transport(0));
        symh_finalize();
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
    });
    EXPECT_TRUE(contains(log, "symh_my_pe: symheap is not initialized")) << log;
    EXPECT_TRUE(contains(log, "symh_finalize: symheap is not initialized")) << log;
    int initialized = 1;
    MPI_Initialized(&initialized);
    EXPECT_EQ(0, initialized);
}

TEST_F(Boot, InitStartsMpiAndFinalizeDefersMpiFinalize)
{
    int provided = -1;
    ASSERT_EQ(SYMH_OK, symh_init_thread(SYMH_THREAD_MULTIPLE, &provided));
    int initialized = 0, finalized = 1, mpi_level = -1;
    MPI_Initialized(&initialized);
    EXPECT_EQ(1, initialized);
    MPI_Query_thread(&mpi_level);
    int expected = mpi_level >= MPI_THREAD_MULTIPLE     ? SYMH_THREAD_MULTIPLE
                   : mpi_level >= MPI_THREAD_SERIALIZED ? SYMH_THREAD_SERIALIZED
                   : mpi_level >= MPI_THREAD_FUNNELED   ? SYMH_THREAD_FUNNELED
                                                        : SYMH_THREAD_SINGLE;
    EXPECT_EQ(expected, provided);
    EXPECT_EQ(1, symh_initialized());
    EXPECT_EQ(SYMH_OK, symh_last_error());

    symh_finalize();
    EXPECT_EQ(0, symh_initialized());
    MPI_Finalized(&finalized);
    EXPECT_EQ(0, finalized) << "MPI_Finalize must wait for process exit so init can run again";
}

TEST_F(Boot, PesAreNumberedLikeTheWorld)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    EXPECT_EQ(rank, symh_my_pe());
    EXPECT_EQ(world_size(), symh_n_pes());
    EXPECT_EQ(SYMH_OK, symh_last_error());

    // A second init while initialized changes nothing.
    int provided = -1;
    EXPECT_EQ(SYMH_OK, symh_init_thread(SYMH_THREAD_MULTIPLE, &provided));
    EXPECT_EQ(SYMH_THREAD_SINGLE, provided) << "the level of the running init is reported";
    EXPECT_EQ(rank, symh_my_pe());
    symh_finalize();
    EXPECT_EQ(-1, symh_captured_log_value([] { return symh_my_pe(); }));
}

TEST_F(Boot, NodeGroupingAndRoutes)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    // The nodes: SYMHTEST_NODE_SIZE's pretend ones, else the hosts the PEs really share.
    int me = symh_my_pe(), n = symh_n_pes();
    EXPECT_EQ(symh_test_local_rank(me), symh_local_pe());
    EXPECT_EQ(symh_test_local_size(me, n), symh_local_n_pes());

    // The route of every PE is the one the configuration gives it (expected_route: the NIC
    // transport auto picks in this build for PEs on other nodes), not merely "not ipc".
    for (int pe = 0; pe < n; ++pe) {
        const char *route = symh_pe_transport(pe);
        ASSERT_NE(nullptr, route) << pe;
        if (pe == me) {
            EXPECT_STREQ("self", route);
        } else if (symh_test_same_node(pe, me)) {
            EXPECT_STREQ("ipc", route) << pe;
        }
        EXPECT_EQ(expected_route(pe), std::string(route))
            << "PE " << pe << " (node " << symh_test_node_of(pe) << ", mine "
            << symh_test_node_of(me) << ")";
    }
    std::string log = symh_captured_log([n] {
        EXPECT_EQ(nullptr, symh_pe_transport(n));
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
        EXPECT_EQ(nullptr, symh_pe_transport(-1));
    });
    EXPECT_TRUE(contains(log, "PE " + std::to_string(n) + " is out of range")) << log;
    symh_finalize();
}

TEST_F(Boot, BootstrapCollectivesMoveTheRightBytes)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    int me = symh_my_pe(), n = symh_n_pes();

    std::vector<long> all(n, -1);
    long mine = 1000L * me + 7;
    ASSERT_EQ(SYMH_OK, symh_shim_boot_allgather(&mine, all.data(), sizeof(long)));
    for (int pe = 0; pe < n; ++pe)
        EXPECT_EQ(1000L * pe + 7, all[pe]) << pe;

    // Block i of `out` must come from PE i and be the block that PE addressed to this one.
    std::vector<int> to(2 * n), from(2 * n, -1);
    for (int pe = 0; pe < n; ++pe) {
        to[2 * pe] = me;
        to[2 * pe + 1] = pe;
    }
    ASSERT_EQ(SYMH_OK, symh_shim_boot_alltoall(to.data(), from.data(), 2 * sizeof(int)));
    for (int pe = 0; pe < n; ++pe) {
        EXPECT_EQ(pe, from[2 * pe]);
        EXPECT_EQ(me, from[2 * pe + 1]);
    }

    char text[32] = "";
    if (me == n - 1)
        snprintf(text, sizeof(text), "from the last PE %d", me);
    ASSERT_EQ(SYMH_OK, symh_shim_boot_bcast(text, sizeof(text), n - 1));
    EXPECT_EQ("from the last PE " + std::to_string(n - 1), std::string(text));
    EXPECT_EQ(SYMH_OK, symh_shim_boot_barrier());
    symh_finalize();
}

TEST_F(Boot, InitFinalizeManyTimes)
{
    for (int round = 0; round < 5; ++round) {
        ASSERT_EQ(SYMH_OK, symh_init()) << round;
        EXPECT_EQ(world_size(), symh_n_pes());
        symh_finalize();
        EXPECT_EQ(0, symh_initialized());
    }
}

TEST_F(Boot, InvalidThreadLevelIsRefused)
{
    for (int level : { -1, 4, 100 }) {
        int provided = 77;
        std::string log = symh_captured_log(
            [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_init_thread(level, &provided)); });
        EXPECT_EQ(77, provided);
        EXPECT_TRUE(contains(log, "requested thread level " + std::to_string(level))) << log;
        EXPECT_EQ(0, symh_initialized());
    }
}

TEST_F(Boot, InvalidValueFailsEveryPeWithOneMessage)
{
    setenv("SYMH_HEAP_SIZE", "12q", 1);
    std::string log = symh_captured_log([] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_init()); });
    unsetenv("SYMH_HEAP_SIZE");
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    EXPECT_EQ(0, symh_initialized());
    bool named = contains(log, "SYMH_HEAP_SIZE='12q'");
    EXPECT_EQ(1, count_pes(named)) << "exactly one PE explains the failure";
    if (symh_test_world_rank() == 0) {
        EXPECT_TRUE(named) << log;
    }

    ASSERT_EQ(SYMH_OK, symh_init()) << "a corrected environment initializes";
    symh_finalize();
}

TEST_F(Boot, HeapSizeThatCannotMakeAWindowFailsWithOneMessage)
{
    for (const char *value : { "0", "100t" }) {
        setenv("SYMH_HEAP_SIZE", value, 1);
        std::string log = symh_captured_log([] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_init()); });
        unsetenv("SYMH_HEAP_SIZE");
        bool named = contains(log, std::string("SYMH_HEAP_SIZE=") + value);
        EXPECT_EQ(symh_test_world_rank() == 0, named) << log;
        EXPECT_EQ(1, count_pes(named)) << value;
        EXPECT_EQ(0, symh_initialized());
    }
}

TEST_F(Boot, InvalidValueOnOnePeFailsThemAll)
{
    int last = world_size() - 1;
    bool mine = symh_test_world_rank() == last;
    if (mine)
        setenv("SYMH_LOG_LEVEL", "chatty", 1);
    std::string log = symh_captured_log([mine] {
        // The PE with the bad value reports it; the others learn that a peer failed.
        EXPECT_EQ(mine ? SYMH_ERR_INVALID_ARG : SYMH_ERR_MISMATCH, symh_init());
    });
    unsetenv("SYMH_LOG_LEVEL");
    EXPECT_EQ(0, symh_initialized());
    bool named = contains(log, "SYMH_LOG_LEVEL='chatty'");
    EXPECT_EQ(mine, named) << log;
    EXPECT_EQ(1, count_pes(named));
}

// A job-wide setting (docs/environment.md) that differs between the PEs fails symh_init on every
// PE at once, with one line naming the variable, each value and its PEs; values that are equal
// in another spelling (1g and 1024m) agree. Alone, a PE has no one to differ from.
TEST_F(Boot, JobWideSettingThatDiffersFailsEveryPeWithOneLine)
{
    struct Case {
        const char *name, *value, *others; // the last PE's value, and the others' (nullptr: unset)
        bool differs;
    };
    const Case cases[] = {
        { "SYMH_CHECK_COLLECTIVES", "1", nullptr, true },
        { "SYMH_DISABLE_MIXED_IPC", "1", "0", true },
        { "SYMH_TEAMS_MAX", "8", nullptr, true },
        { "SYMH_COLL_SCRATCH", "128k", "64k", true },
        { "SYMH_HEAP_SIZE", "64m", "32m", true },
        { "SYMH_HEAP_SIZE", "64m", "65536k", false },
        { "SHMEM_SYMMETRIC_SIZE", "1g", nullptr, false }, // the default heap is 1g too
    };
    int last = world_size() - 1;
    bool mine = symh_test_world_rank() == last;
    for (const Case &c : cases) {
        SCOPED_TRACE(std::string(c.name) + "=" + c.value);
        if (mine)
            setenv(c.name, c.value, 1);
        else if (c.others != nullptr)
            setenv(c.name, c.others, 1);
        int status = SYMH_OK;
        double start = MPI_Wtime();
        std::string log = symh_captured_log([&] { status = symh_init(); });
        double took = MPI_Wtime() - start;
        unsetenv(c.name);
        if (!c.differs || world_size() == 1) {
            EXPECT_EQ(SYMH_OK, status) << log;
            EXPECT_EQ(0u, log_lines(log)) << log;
            if (status == SYMH_OK)
                symh_finalize();
            continue;
        }
        EXPECT_EQ(SYMH_ERR_MISMATCH, status);
        EXPECT_EQ(0, symh_initialized());
        EXPECT_LT(took, 1.0) << "the difference is found at once, not by a timeout";
        std::string on_last = std::string("on PE ") + std::to_string(last);
        bool named = contains(log, std::string(c.name) + " differs between the PEs") &&
                     contains(log, on_last) && contains(log, "job-wide");
        EXPECT_EQ(symh_test_world_rank() == 0, named) << log;
        EXPECT_EQ(1, count_pes(log_lines(log) == 1)) << "one line for the job: " << log;
    }
    ASSERT_EQ(SYMH_OK, symh_init()) << "nothing was left half-initialized";
    symh_finalize();
}

TEST_F(Boot, UnknownVariableWarnsOnce)
{
    setenv("SYMH_HEAP_SIZ", "1g", 1);
    std::string log = symh_captured_log([] { ASSERT_EQ(SYMH_OK, symh_init()); });
    unsetenv("SYMH_HEAP_SIZ");
    bool warned = contains(log, "unknown environment variable SYMH_HEAP_SIZ ");
    EXPECT_EQ(symh_my_pe() == 0, warned) << log;
    EXPECT_EQ(1, count_pes(warned));
    symh_finalize();
}

TEST_F(Boot, TransportsNotBuiltInAreRefused)
{
    // CTest filters this test out of builds that have both transports (tests/mpi/CMakeLists.txt);
    // the thread-sanitizer build of ./dev.sh test is made without libfabric for it.
    std::string built = symh_shim_tl_nic_built();
    ASSERT_FALSE(contains(built, "ucx") && contains(built, "ofi")) << "nothing to refuse here";
    for (const char *nic : { "ucx", "ofi" }) {
        if (contains(built, nic))
            continue; // built in: the transport configurations (label transport) test it
        setenv("SYMH_TRANSPORT", nic, 1);
        std::string log = symh_captured_log([] { EXPECT_EQ(SYMH_ERR_UNSUPPORTED, symh_init()); });
        bool named = contains(log, std::string("SYMH_TRANSPORT=") + nic + ": this build has no");
        EXPECT_EQ(symh_test_world_rank() == 0, named) << log;
        EXPECT_EQ(1, count_pes(named)) << "exactly one PE explains the failure";
        EXPECT_EQ(0, symh_initialized());
    }
    unsetenv("SYMH_TRANSPORT");
}

TEST_F(Boot, TransportRefusedOnOnePeFailsThemAll)
{
    std::string built = symh_shim_tl_nic_built();
    const char *nic = !contains(built, "ucx") ? "ucx" : !contains(built, "ofi") ? "ofi" : nullptr;
    ASSERT_NE(nullptr, nic) << "both transports built in: CTest filters this test out";
    bool mine = symh_test_world_rank() == world_size() - 1;
    if (mine)
        setenv("SYMH_TRANSPORT", nic, 1);
    std::string log = symh_captured_log(
        [mine] { EXPECT_EQ(mine ? SYMH_ERR_UNSUPPORTED : SYMH_ERR_MISMATCH, symh_init()); });
    unsetenv("SYMH_TRANSPORT");
    EXPECT_EQ(mine, contains(log, "this build has no")) << log;
    EXPECT_EQ(0, symh_initialized());
    ASSERT_EQ(SYMH_OK, symh_init()) << "nothing was left half-initialized";
    symh_finalize();
}

// SYMH_NIC picks the NIC transport between nodes while IPC stays on the node; it must not
// contradict a forced transport, and must name one this build has (docs/transports.md).
TEST_F(Boot, NicChoiceKeepsIpcOnTheNodeAndRefusesContradictions)
{
    std::string built = symh_shim_tl_nic_built();
    for (const char *nic : { "ucx", "ofi" }) {
        setenv("SYMH_NIC", nic, 1);
        setenv("SYMH_TRANSPORT", "ipc", 1);
        std::string log = symh_captured_log([] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_init()); });
        bool named =
            contains(log, std::string("SYMH_NIC=") + nic + " contradicts SYMH_TRANSPORT=ipc");
        EXPECT_EQ(symh_test_world_rank() == 0, named) << log;
        EXPECT_EQ(1, count_pes(named));
        const char *other = std::string(nic) == "ucx" ? "ofi" : "ucx";
        if (contains(built, other)) {
            setenv("SYMH_TRANSPORT", other, 1);
            log = symh_captured_log([] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_init()); });
            named = contains(log, std::string("SYMH_NIC=") + nic +
                                      " contradicts SYMH_TRANSPORT=" + other);
            EXPECT_EQ(symh_test_world_rank() == 0, named) << log;
        }
        unsetenv("SYMH_TRANSPORT");
        if (!contains(built, nic)) {
            log = symh_captured_log([] { EXPECT_EQ(SYMH_ERR_UNSUPPORTED, symh_init()); });
            EXPECT_EQ(symh_test_world_rank() == 0,
                      contains(log, std::string("SYMH_NIC=") + nic + ": this build has no"))
                << log;
            continue;
        }
        // Accepted: the node through IPC, other nodes (pretend or real) through `nic`.
        ASSERT_EQ(SYMH_OK, symh_init());
        for (int pe = 0; pe < symh_n_pes(); ++pe)
            if (pe != symh_my_pe()) {
                EXPECT_EQ(symh_test_same_node(pe, symh_my_pe()) ? std::string("ipc") : nic,
                          transport_of(pe))
                    << pe;
                EXPECT_EQ(expected_route(pe), transport_of(pe)) << pe;
            }
        symh_finalize();
    }
    unsetenv("SYMH_NIC");
}

TEST_F(Boot, IpcOnlyContradictsDisabledMixedIpc)
{
    setenv("SYMH_TRANSPORT", "ipc", 1);
    setenv("SYMH_DISABLE_MIXED_IPC", "1", 1);
    std::string log = symh_captured_log([] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_init()); });
    bool named = contains(log, "SYMH_TRANSPORT=ipc contradicts SYMH_DISABLE_MIXED_IPC=1");
    EXPECT_EQ(symh_test_world_rank() == 0, named) << log;
    EXPECT_EQ(1, count_pes(named));

    // Without the contradiction: ipc reaches only the node, mixed-off sends the node to the NIC
    // transport auto picks in this build (SYMHTEST_NIC; "none" in a build without one).
    unsetenv("SYMH_DISABLE_MIXED_IPC");
    ASSERT_EQ(SYMH_OK, symh_init());
    int me = symh_my_pe(), n = symh_n_pes();
    for (int pe = 0; pe < n; ++pe)
        if (pe != me) {
            EXPECT_STREQ(symh_test_same_node(pe, me) ? "ipc" : "none", symh_pe_transport(pe)) << pe;
            EXPECT_EQ(expected_route(pe), transport_of(pe)) << pe;
        }
    symh_finalize();

    unsetenv("SYMH_TRANSPORT");
    setenv("SYMH_DISABLE_MIXED_IPC", "1", 1);
    ASSERT_EQ(SYMH_OK, symh_init());
    // SYMHTEST_NIC (CTest's) must name what auto picks in this build, UCX before libfabric,
    // or expected_route would expect the wrong transport (or none).
    std::string built = symh_shim_tl_nic_built();
    const char *nic = getenv("SYMHTEST_NIC");
    EXPECT_EQ(built.empty() ? "none" : built.substr(0, built.find(' ')),
              std::string(nic != nullptr ? nic : "none"))
        << "built in: " << built;
    for (int pe = 0; pe < n; ++pe)
        if (pe != me) {
            EXPECT_EQ(expected_route(pe), transport_of(pe)) << pe;
        }
    symh_finalize();
    unsetenv("SYMH_DISABLE_MIXED_IPC");
}

} // namespace
