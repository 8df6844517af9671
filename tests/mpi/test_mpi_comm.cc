// Multi-PE tests of init when the application started MPI itself (MPI_THREAD_MULTIPLE):
// symh_init reuses MPI and never finalizes it, and symh_init_comm makes a sub-communicator's
// ranks the PEs.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <string>
#include <vector>

#include <symheap_mpi.h>

#include "mpi_test_util.hpp"

namespace
{

class Comm : public SymhTest
{
};

int rank_of(MPI_Comm comm)
{
    int rank = -1;
    MPI_Comm_rank(comm, &rank);
    return rank;
}

int size_of(MPI_Comm comm)
{
    int size = -1;
    MPI_Comm_size(comm, &size);
    return size;
}

TEST_F(Comm, InitReusesTheApplicationsMpiAndLeavesItRunning)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    EXPECT_EQ(rank_of(MPI_COMM_WORLD), symh_my_pe());
    EXPECT_EQ(size_of(MPI_COMM_WORLD), symh_n_pes());
    symh_finalize();
    int finalized = 1;
    MPI_Finalized(&finalized);
    EXPECT_EQ(0, finalized);
    EXPECT_EQ(MPI_SUCCESS, MPI_Barrier(MPI_COMM_WORLD)) << "the application's MPI still works";
}

TEST_F(Comm, ThreadLevelIsTheLowerOfRequestAndMpi)
{
    int mpi_level = -1;
    MPI_Query_thread(&mpi_level);
    for (int requested = SYMH_THREAD_SINGLE; requested <= SYMH_THREAD_MULTIPLE; ++requested) {
        int provided = -1;
        ASSERT_EQ(SYMH_OK, symh_init_thread(requested, &provided));
        int mpi_as_symh = mpi_level == MPI_THREAD_MULTIPLE     ? SYMH_THREAD_MULTIPLE
                          : mpi_level == MPI_THREAD_SERIALIZED ? SYMH_THREAD_SERIALIZED
                          : mpi_level == MPI_THREAD_FUNNELED   ? SYMH_THREAD_FUNNELED
                                                               : SYMH_THREAD_SINGLE;
        EXPECT_EQ(std::min(requested, mpi_as_symh), provided) << requested;
        symh_finalize();
    }
}

TEST_F(Comm, InitCommWorld)
{
    ASSERT_EQ(SYMH_OK, symh_init_comm(MPI_COMM_WORLD));
    EXPECT_EQ(rank_of(MPI_COMM_WORLD), symh_my_pe());
    EXPECT_EQ(size_of(MPI_COMM_WORLD), symh_n_pes());
    symh_finalize();
}

TEST_F(Comm, SubCommunicatorRanksAreThePes)
{
    int world = rank_of(MPI_COMM_WORLD);
    MPI_Comm sub;
    // Two halves by parity, numbered in reverse, so PE numbers differ from world ranks.
    MPI_Comm_split(MPI_COMM_WORLD, world % 2, -world, &sub);
    ASSERT_EQ(SYMH_OK, symh_init_comm(sub));
    int sub_rank = rank_of(sub), sub_size = size_of(sub);
    // symheap keeps its own duplicate: the caller may free its handle right away.
    MPI_Comm_free(&sub);
    EXPECT_EQ(sub_rank, symh_my_pe());
    EXPECT_EQ(sub_size, symh_n_pes());

    // Node-local ranks count only this communicator's PEs on the node.
    std::vector<int> worlds(sub_size);
    MPI_Comm again;
    MPI_Comm_split(MPI_COMM_WORLD, world % 2, -world, &again);
    MPI_Allgather(&world, 1, MPI_INT, worlds.data(), 1, MPI_INT, again);
    MPI_Comm_free(&again);
    int local = 0, local_n = 0;
    for (int pe = 0; pe < sub_size; ++pe) {
        bool same_node = symh_test_same_node(worlds[pe], world);
        local_n += same_node;
        local += same_node && pe < sub_rank;
    }
    EXPECT_EQ(local, symh_local_pe());
    EXPECT_EQ(local_n, symh_local_n_pes());
    symh_finalize();
}

TEST_F(Comm, NullCommunicatorIsRefused)
{
    std::string log =
        symh_captured_log([] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_init_comm(MPI_COMM_NULL)); });
    EXPECT_NE(std::string::npos, log.find("comm is MPI_COMM_NULL")) << log;
    EXPECT_EQ(0, symh_initialized());
}

TEST_F(Comm, IntercommunicatorIsRefused)
{
    int world = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    ASSERT_GE(n, 2) << "an intercommunicator needs two groups (MULTI_PE_ONLY in CMake)";
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, world % 2, world, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, world % 2 == 0 ? 1 : 0, 99, &inter);
    std::string log =
        symh_captured_log([inter] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_init_comm(inter)); });
    EXPECT_NE(std::string::npos, log.find("comm is an intercommunicator")) << log;
    EXPECT_EQ(0, symh_initialized());
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

TEST_F(Comm, InitCommWhileInitializedChangesNothing)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    MPI_Comm self_dup;
    MPI_Comm_dup(MPI_COMM_SELF, &self_dup);
    EXPECT_EQ(SYMH_OK, symh_init_comm(self_dup));
    EXPECT_EQ(size_of(MPI_COMM_WORLD), symh_n_pes());
    MPI_Comm_free(&self_dup);
    symh_finalize();
}

} // namespace
