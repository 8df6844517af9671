// Multi-PE tests of the executable's globals and statics as symmetric objects (docs/globals.md):
// every standard RMA type as the target of put/get/p/g/iput, atomics, wait_until on a global
// flag, collectives into global arrays, a static local variable, symh_ptr and
// symh_addr_accessible, the refusal of a shared library's global (SYMH_ERR_NOT_SYMMETRIC), and
// init/finalize/init keeping the globals' values. Every transport configuration runs it.
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include <symheap.h>
#include <symheap/coll.h>
#include <symheap/rma.h>
#include <symheap/team.h>

#include "mpi_test_util.hpp"
#include "test_mpi_globals_lib.h"

// ---- the globals under test (outside any namespace: plain C-style globals and statics) -------

// Per standard RMA type: the target, the source of the puts and the destination of the gets.
#define SYMH_TEST_GLOBALS(NAME, TYPE) \
    TYPE symh_g_##NAME[8];            \
    static TYPE symh_s_##NAME[8];     \
    static TYPE symh_got_##NAME[2];
SYMH_RMA_TYPES(SYMH_TEST_GLOBALS)
#undef SYMH_TEST_GLOBALS

#define SYMH_TEST_AMO_GLOBALS(NAME, TYPE) TYPE symh_amo_##NAME;
SYMH_AMO_STANDARD_TYPES(SYMH_TEST_AMO_GLOBALS)
#undef SYMH_TEST_AMO_GLOBALS

long symh_g_lock;
uint64_t symh_g_swap;
long symh_g_flag;
static long symh_g_red_src[8], symh_g_red_dst[8];
static long symh_g_bcast[8], symh_g_bcast_src[8];
long symh_g_collect[2 * 64];
int symh_g_ptr_target = -1;
long symh_g_kept = 0x5eed; // an initialized global (.data), for init/finalize/init
long symh_g_forked;

namespace
{

using namespace symh_test;

template <typename T> T value(int pe, int k)
{
    return (T)(pe * 8 + k + 1);
}

// A static local variable: symmetric like any other static.
int *static_local()
{
    static int counter;
    return &counter;
}

class Globals : public SymhSuiteInitTest
{
};

// Per type: put of two elements, p of one, iput of two at stride 2 into the right neighbour's
// global, then get/g back; the untouched elements stay zero.
template <typename T> struct TypedFns {
    void (*put)(T *, const T *, size_t, int);
    void (*get)(T *, const T *, size_t, int);
    void (*p)(T *, T, int);
    T (*g)(const T *, int);
    void (*iput)(T *, const T *, ptrdiff_t, ptrdiff_t, size_t, int);
};

template <typename T> void check_type(const char *name, T *g, T *s, T *got, const TypedFns<T> &f)
{
    for (int k = 0; k < 8; ++k) {
        g[k] = 0;
        s[k] = value<T>(me(), k);
    }
    symh_barrier_all();
    f.put(g, s, 2, right());
    EXPECT_EQ(SYMH_OK, symh_last_error()) << name;
    f.p(&g[2], value<T>(me(), 2), right());
    f.iput(&g[4], &s[4], 2, 1, 2, right());
    EXPECT_EQ(SYMH_OK, symh_last_error()) << name;
    symh_barrier_all();
    const int from = left();
    EXPECT_TRUE(g[0] == value<T>(from, 0) && g[1] == value<T>(from, 1)) << name << " put";
    EXPECT_TRUE(g[2] == value<T>(from, 2)) << name << " p";
    EXPECT_TRUE(g[4] == value<T>(from, 4) && g[6] == value<T>(from, 5)) << name << " iput";
    EXPECT_TRUE(g[3] == 0 && g[5] == 0 && g[7] == 0) << name << " wrote outside its targets";
    // The right neighbour's global holds what this PE put there.
    f.get(got, g, 2, right());
    EXPECT_TRUE(got[0] == value<T>(me(), 0) && got[1] == value<T>(me(), 1)) << name << " get";
    EXPECT_TRUE(f.g(&g[2], right()) == value<T>(me(), 2)) << name << " g";
    EXPECT_EQ(SYMH_OK, symh_last_error()) << name;
    symh_barrier_all();
}

TEST_F(Globals, EveryStandardTypeIsATargetOfPutGetPGIput)
{
#define SYMH_TEST_CHECK(NAME, TYPE)                                                         \
    check_type<TYPE>(#NAME, symh_g_##NAME, symh_s_##NAME, symh_got_##NAME,                  \
                     TypedFns<TYPE>{ symh_##NAME##_put, symh_##NAME##_get, symh_##NAME##_p, \
                                     symh_##NAME##_g, symh_##NAME##_iput });
    SYMH_RMA_TYPES(SYMH_TEST_CHECK)
#undef SYMH_TEST_CHECK
}

TEST_F(Globals, AtomicsOnGlobals)
{
    const int n = npes();
#define SYMH_TEST_ZERO(NAME, TYPE) symh_amo_##NAME = 0;
    SYMH_AMO_STANDARD_TYPES(SYMH_TEST_ZERO)
#undef SYMH_TEST_ZERO
    symh_g_lock = 0;
    symh_g_swap = 0;
    symh_barrier_all();
    // Every PE adds 1 to each standard type's counter on PE 0.
#define SYMH_TEST_ADD(NAME, TYPE) (void)symh_##NAME##_atomic_fetch_add(&symh_amo_##NAME, 1, 0);
    SYMH_AMO_STANDARD_TYPES(SYMH_TEST_ADD)
#undef SYMH_TEST_ADD
    EXPECT_EQ(SYMH_OK, symh_last_error());
    // Exactly one PE takes the lock; every PE swaps its number into its right neighbour.
    long was = symh_long_atomic_compare_swap(&symh_g_lock, 0, me() + 1, 0);
    int won = was == 0 ? 1 : 0;
    uint64_t old = symh_uint64_atomic_swap(&symh_g_swap, (uint64_t)me() + 100, right());
    EXPECT_EQ(0u, old);
    symh_barrier_all();
    EXPECT_EQ(1, count_pes(won != 0));
    if (me() == 0) {
#define SYMH_TEST_SUM(NAME, TYPE) EXPECT_EQ((TYPE)n, symh_amo_##NAME) << #NAME;
        SYMH_AMO_STANDARD_TYPES(SYMH_TEST_SUM)
#undef SYMH_TEST_SUM
        EXPECT_GE(symh_g_lock, 1);
        EXPECT_LE(symh_g_lock, n);
    }
    EXPECT_EQ((uint64_t)left() + 100, symh_g_swap);
    EXPECT_EQ((long)n, symh_long_atomic_fetch(&symh_amo_long, 0));
    symh_barrier_all();
}

TEST_F(Globals, WaitUntilAGlobalFlagSetByAPeer)
{
    symh_g_flag = 0;
    symh_barrier_all();
    symh_long_p(&symh_g_flag, me() + 1, right());
    symh_long_wait_until(&symh_g_flag, SYMH_CMP_EQ, left() + 1);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_EQ(left() + 1, symh_g_flag);
    EXPECT_EQ(1, symh_long_test(&symh_g_flag, SYMH_CMP_GT, 0));
    symh_barrier_all();
}

TEST_F(Globals, CollectivesIntoGlobalArrays)
{
    const int n = npes();
    ASSERT_LE(n, 64);
    for (int k = 0; k < 8; ++k) {
        symh_g_red_src[k] = me() * 10 + k;
        symh_g_red_dst[k] = -1;
        symh_g_bcast[k] = -1;
        symh_g_bcast_src[k] = me() == 0 ? 500 + k : -1;
    }
    for (int k = 0; k < 2 * n; ++k)
        symh_g_collect[k] = -1;
    ASSERT_EQ(SYMH_OK, symh_long_sum_reduce(SYMH_TEAM_WORLD, symh_g_red_dst, symh_g_red_src, 8));
    long pes_sum = (long)n * (n - 1) / 2;
    for (int k = 0; k < 8; ++k)
        EXPECT_EQ(pes_sum * 10 + (long)k * n, symh_g_red_dst[k]) << k;
    ASSERT_EQ(SYMH_OK, symh_long_broadcast(SYMH_TEAM_WORLD, symh_g_bcast, symh_g_bcast_src, 8, 0));
    for (int k = 0; k < 8; ++k)
        EXPECT_EQ(500 + k, symh_g_bcast[k]) << k;
    // A heap source into a global destination.
    auto *mine = (long *)symh_malloc(2 * sizeof(long));
    ASSERT_NE(nullptr, mine);
    mine[0] = me();
    mine[1] = -me();
    ASSERT_EQ(SYMH_OK, symh_long_fcollect(SYMH_TEAM_WORLD, symh_g_collect, mine, 2));
    for (int pe = 0; pe < n; ++pe)
        EXPECT_TRUE(symh_g_collect[2 * pe] == pe && symh_g_collect[2 * pe + 1] == -pe) << pe;
    symh_free(mine);
}

TEST_F(Globals, StaticLocalVariable)
{
    int *counter = static_local();
    *counter = 0;
    symh_barrier_all();
    symh_int_atomic_add(counter, me() + 1, right());
    symh_barrier_all();
    EXPECT_EQ(left() + 1, *counter);
    EXPECT_EQ(me() + 1, symh_int_g(counter, right()));
    symh_barrier_all();
}

TEST_F(Globals, PointerQueries)
{
    int on_stack = 0;
    symh_g_ptr_target = 1000 + me();
    symh_barrier_all();
    for (int pe = 0; pe < npes(); ++pe) {
        EXPECT_EQ(expected_reachable(pe) ? 1 : 0, symh_addr_accessible(&symh_g_ptr_target, pe));
        EXPECT_EQ(expected_reachable(pe) ? 1 : 0, symh_addr_accessible(static_local(), pe));
        EXPECT_EQ(0, symh_addr_accessible(&on_stack, pe));
        int *remote = (int *)symh_ptr(&symh_g_ptr_target, pe);
        EXPECT_EQ(expected_mapped(pe), remote != nullptr) << expected_route(pe);
        if (remote != nullptr) {
            EXPECT_EQ(1000 + pe, *remote) << "symh_ptr on a global reads PE " << pe << "'s";
        }
    }
    EXPECT_EQ(&symh_g_ptr_target, symh_ptr(&symh_g_ptr_target, me()));
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all();
    // A store through symh_ptr lands in the neighbour's global.
    if (int *remote = (int *)symh_ptr(&symh_g_ptr_target, right()))
        *remote = 2000 + me();
    else
        symh_int_p(&symh_g_ptr_target, 2000 + me(), right());
    symh_barrier_all();
    EXPECT_EQ(2000 + left(), symh_g_ptr_target);
    symh_barrier_all();
}

TEST_F(Globals, RangePastTheEndOfTheGlobalsIsRefused)
{
    static long last; // some global; a huge count runs past the end of the segment
    std::string log = symh_captured_log([&] {
        symh_long_put(&last, &last, (size_t)1 << 40, right());
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    });
    EXPECT_EQ(1u, log_lines(log)) << log;
    EXPECT_EQ(1u, count_lines(log, "runs past the end of the executable's globals")) << log;
}

TEST_F(Globals, ASharedLibrarysGlobalIsRefused)
{
    int *lib = symh_test_globals_lib_array();
    lib[0] = 7;
    std::string log = symh_captured_log([&] {
        symh_int_p(lib, 1, right());
        EXPECT_EQ(SYMH_ERR_NOT_SYMMETRIC, symh_last_error());
        EXPECT_EQ(0, symh_int_g(lib, right()));
        EXPECT_EQ(SYMH_ERR_NOT_SYMMETRIC, symh_last_error());
        EXPECT_EQ(0, symh_int_atomic_fetch_add(lib, 1, right()));
        EXPECT_EQ(SYMH_ERR_NOT_SYMMETRIC, symh_last_error());
        EXPECT_EQ(nullptr, symh_ptr(lib, me()));
        EXPECT_EQ(SYMH_ERR_NOT_SYMMETRIC, symh_last_error());
    });
    EXPECT_EQ(4u, log_lines(log)) << log;
    EXPECT_EQ(4u, count_lines(log, "is a global of the shared library")) << log;
    EXPECT_EQ(4u, count_lines(log, "libsymh_test_globals")) << log;
    EXPECT_EQ(0, symh_addr_accessible(lib, me()));
    EXPECT_EQ(7, lib[0]);
    EXPECT_STRNE("unknown status", symh_status_string(SYMH_ERR_NOT_SYMMETRIC));
    symh_barrier_all();
}

// fork after symh_init: the child gets its own copy of the globals, as fork promises, although
// they are shared memory in the parent.
TEST_F(Globals, AForkedChildGetsItsOwnCopy)
{
    symh_g_forked = 1;
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        int ok = symh_g_forked == 1;
        symh_g_forked = 2; // the child's own copy
        _exit(ok && symh_g_forked == 2 ? 0 : 3);
    }
    int wstatus = 0;
    ASSERT_EQ(pid, waitpid(pid, &wstatus, 0));
    EXPECT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) << wstatus;
    EXPECT_EQ(1, symh_g_forked) << "the child's write reached the parent";
    symh_barrier_all();
}

// Runs after Globals (which finalized): the globals keep their values across finalize and init,
// and are symmetric again after each init.
class GlobalsReinit : public SymhTest
{
};

TEST_F(GlobalsReinit, InitFinalizeInitKeepsValuesAndWorks)
{
    EXPECT_EQ(0x5eed, symh_g_kept) << "the initializer of a .data global";
    symh_g_kept = 3000 + me(); // written between a finalize and the next init
    ASSERT_EQ(SYMH_OK, symh_init());
    EXPECT_EQ(3000 + me(), symh_g_kept);
    symh_barrier_all();
    symh_long_p(&symh_g_kept, 4000 + me(), right());
    symh_barrier_all();
    EXPECT_EQ(4000 + left(), symh_g_kept);
    symh_finalize();
    EXPECT_EQ(4000 + left(), symh_g_kept);
}

} // namespace
