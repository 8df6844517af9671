// Multi-PE tests of communication contexts (docs/contexts.md): many contexts per PE, created,
// used and destroyed; every family of RMA, atomics and signals through a context; a quiet on one
// context completing its own traffic while another has traffic outstanding; four threads each
// with a private context doing puts, atomics and quiet at once; a team context's PE numbering;
// destroy completing what was outstanding; contexts left to symh_finalize; every misuse.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <symheap.h>

#include "mpi_test_util.hpp"
#include "shim_fault.h"

namespace
{

using namespace symh_test;

// A handle no call may leave in place: failures must write SYMH_CTX_INVALID over it.
symh_ctx_t sentinel_ctx()
{
    return (symh_ctx_t)sentinel();
}

// The suite runs at SYMH_THREAD_MULTIPLE, so that private contexts can be used from several
// threads at once (and the NIC transports take their thread-safe modes).
class Contexts : public SymhTest
{
  protected:
    static void SetUpTestSuite()
    {
        int provided = -1;
        ASSERT_EQ(SYMH_OK, symh_init_thread(SYMH_THREAD_MULTIPLE, &provided));
        ASSERT_EQ(SYMH_THREAD_MULTIPLE, provided);
    }
    static void TearDownTestSuite()
    {
        symh_finalize();
    }
    void TearDown() override
    {
        symh_barrier_all();
        SymhTest::TearDown();
    }
};
} // namespace

TEST_F(Contexts, DefaultContextIsTheWorldsAndTheHandlesAreDistinct)
{
    symh_team_t team = SYMH_TEAM_INVALID;
    EXPECT_EQ(SYMH_OK, symh_ctx_get_team(SYMH_CTX_DEFAULT, &team));
    EXPECT_EQ(SYMH_TEAM_WORLD, team);
    EXPECT_NE(SYMH_CTX_DEFAULT, SYMH_CTX_INVALID);
    symh_ctx_t a = SYMH_CTX_INVALID, b = SYMH_CTX_INVALID;
    ASSERT_EQ(SYMH_OK, symh_ctx_create(0, &a));
    ASSERT_EQ(SYMH_OK, symh_ctx_create(SYMH_CTX_SERIALIZED | SYMH_CTX_NOSTORE, &b));
    EXPECT_NE(a, b);
    EXPECT_NE(SYMH_CTX_DEFAULT, a);
    EXPECT_EQ(SYMH_OK, symh_ctx_get_team(a, &team));
    EXPECT_EQ(SYMH_TEAM_WORLD, team);
    symh_ctx_destroy(a);
    symh_ctx_destroy(b);
    EXPECT_EQ(SYMH_OK, symh_last_error());
}

// Many contexts at once, each carrying its own puts to the right PE, then all destroyed; a second
// round reuses what the first freed.
TEST_F(Contexts, ManyContextsPerPeEachCarryingItsOwnPuts)
{
    const int n = 8;
    auto *slots = (long *)symh_calloc(n, sizeof(long));
    ASSERT_NE(nullptr, slots);
    for (int round = 0; round < 2; ++round) {
        std::vector<symh_ctx_t> ctxs(n, SYMH_CTX_INVALID);
        for (int i = 0; i < n; ++i) {
            long opts = i % 3 == 0 ? 0 : i % 3 == 1 ? SYMH_CTX_PRIVATE : SYMH_CTX_SERIALIZED;
            ASSERT_EQ(SYMH_OK, symh_ctx_create(opts, &ctxs[i])) << i;
            ASSERT_NE(SYMH_CTX_INVALID, ctxs[i]);
        }
        symh_barrier_all();
        for (int i = 0; i < n; ++i)
            symh_ctx_long_p(ctxs[i], &slots[i], (long)me() * 1000 + round * 100 + i, right());
        for (int i = 0; i < n; ++i)
            symh_ctx_quiet(ctxs[i]);
        symh_barrier_all();
        for (int i = 0; i < n; ++i)
            EXPECT_EQ((long)left() * 1000 + round * 100 + i, slots[i]) << i;
        for (int i = 0; i < n; ++i)
            symh_ctx_destroy(ctxs[i]);
        EXPECT_EQ(SYMH_OK, symh_last_error());
    }
    symh_free(slots);
}

// Every family through one context: contiguous, typed, sized, strided, single elements, the nbi
// forms, the atomics (blocking and nbi) and put-with-signal; each result checked.
TEST_F(Contexts, EveryFamilyGoesThroughAContext)
{
    symh_ctx_t ctx = SYMH_CTX_INVALID;
    ASSERT_EQ(SYMH_OK, symh_ctx_create(0, &ctx));
    const size_t n = 64;
    auto *buf = (long *)symh_calloc(8 * n, sizeof(long));
    auto *word = (uint64_t *)symh_calloc(4, sizeof(uint64_t));
    ASSERT_NE(nullptr, buf);
    ASSERT_NE(nullptr, word);
    reg_vector<long> src(n), back(n);
    for (size_t i = 0; i < n; ++i)
        src[i] = (long)me() * 100000 + (long)i;
    symh_barrier_all();
    symh_ctx_putmem(ctx, buf, src.data(), n * sizeof(long), right());
    symh_ctx_long_put(ctx, buf + n, src.data(), n, right());
    symh_ctx_put64_nbi(ctx, buf + 2 * n, src.data(), n, right());
    symh_ctx_long_put_nbi(ctx, buf + 3 * n, src.data(), n, right());
    symh_ctx_long_iput(ctx, buf + 4 * n, src.data(), 2, 1, n / 2, right());
    symh_ctx_long_p(ctx, buf + 5 * n, 4242, right());
    ASSERT_EQ(SYMH_OK, symh_last_error());
    symh_ctx_quiet(ctx);
    symh_barrier_all();
    for (size_t i = 0; i < n; ++i) {
        long want = (long)left() * 100000 + (long)i;
        ASSERT_EQ(want, buf[i]) << i;
        ASSERT_EQ(want, buf[n + i]) << i;
        ASSERT_EQ(want, buf[2 * n + i]) << i;
        ASSERT_EQ(want, buf[3 * n + i]) << i;
        if (i < n / 2) {
            ASSERT_EQ(want, buf[4 * n + 2 * i]) << i;
        }
    }
    EXPECT_EQ(4242, buf[5 * n]);
    symh_barrier_all();
    // Gets back from the right PE: what this PE put there.
    symh_ctx_long_get(ctx, back.data(), buf, n, right());
    for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(src[i], back[i]) << i;
    std::memset(back.data(), 0, n * sizeof(long));
    symh_ctx_getmem_nbi(ctx, back.data(), buf + n, n * sizeof(long), right());
    symh_ctx_quiet(ctx);
    for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(src[i], back[i]) << i;
    EXPECT_EQ(4242, symh_ctx_long_g(ctx, buf + 5 * n, right()));
    symh_ctx_long_iget(ctx, back.data(), buf + 4 * n, 1, 2, n / 2, right());
    for (size_t i = 0; i < n / 2; ++i)
        ASSERT_EQ(src[i], back[i]) << i;
    symh_barrier_all();

    // Atomics on PE 0's word from every PE, through the context.
    uint64_t old = 0;
    symh_ctx_uint64_atomic_add(ctx, &word[0], 1, 0);
    symh_ctx_uint64_atomic_fetch_add_nbi(ctx, &old, &word[0], 2, 0);
    (void)symh_ctx_uint64_atomic_fetch_inc(ctx, &word[0], 0);
    symh_ctx_uint64_atomic_or(ctx, &word[1], UINT64_C(1) << me(), 0);
    symh_ctx_quiet(ctx);
    ASSERT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all();
    EXPECT_EQ((uint64_t)npes() * 4, symh_ctx_uint64_atomic_fetch(ctx, &word[0], 0));
    EXPECT_EQ(npes() >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << npes()) - 1,
              symh_ctx_uint64_atomic_fetch(ctx, &word[1], 0));
    EXPECT_EQ(0u, symh_ctx_uint64_atomic_compare_swap(ctx, &word[2], 7, 9, right()));
    symh_barrier_all();

    // Put-with-signal through the context: the data is there when the signal is.
    symh_ctx_long_put_signal(ctx, buf + 6 * n, src.data(), n, &word[3], 1, SYMH_SIGNAL_ADD,
                             right());
    ASSERT_EQ(SYMH_OK, symh_last_error());
    EXPECT_EQ(1u, symh_signal_wait_until(&word[3], SYMH_CMP_GE, 1));
    for (size_t i = 0; i < n; ++i)
        ASSERT_EQ((long)left() * 100000 + (long)i, buf[6 * n + i]) << i;
    symh_ctx_fence(ctx);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all();
    symh_ctx_destroy(ctx);
    symh_free(word);
    symh_free(buf);
}

// A quiet on context B completes B's puts while context A still has a large transfer issued; A's
// data is complete after A's own quiet.
TEST_F(Contexts, QuietOnOneContextCompletesItsOwnWhileAnotherHasTrafficOutstanding)
{
    const size_t big = 4u << 20, small = 4096;
    auto *a_buf = (char *)symh_malloc(big);
    auto *b_buf = (char *)symh_malloc(small);
    auto *flag = (uint64_t *)symh_calloc(1, sizeof(uint64_t));
    ASSERT_NE(nullptr, a_buf);
    ASSERT_NE(nullptr, b_buf);
    ASSERT_NE(nullptr, flag);
    reg_vector<char> a_src(big), b_src(small);
    std::memset(a_src.data(), 'a' + me() % 16, big);
    std::memset(b_src.data(), 'B' + me() % 16, small);
    symh_ctx_t a = SYMH_CTX_INVALID, b = SYMH_CTX_INVALID;
    ASSERT_EQ(SYMH_OK, symh_ctx_create(SYMH_CTX_PRIVATE, &a));
    ASSERT_EQ(SYMH_OK, symh_ctx_create(SYMH_CTX_PRIVATE, &b));
    symh_barrier_all();
    for (int rep = 0; rep < 4; ++rep)
        symh_ctx_putmem_nbi(a, a_buf, a_src.data(), big, right());
    symh_ctx_putmem_nbi(b, b_buf, b_src.data(), small, right());
    symh_ctx_quiet(b);
    ASSERT_EQ(SYMH_OK, symh_last_error());
    // B's data is complete at the target: tell it so (through the default context).
    symh_uint64_atomic_set(flag, 1, right());
    symh_uint64_wait_until(flag, SYMH_CMP_EQ, 1);
    for (size_t i = 0; i < small; ++i)
        ASSERT_EQ((char)('B' + left() % 16), b_buf[i]) << i;
    symh_ctx_quiet(a);
    symh_barrier_all();
    for (size_t i = 0; i < big; i += 4093)
        ASSERT_EQ((char)('a' + left() % 16), a_buf[i]) << i;
    symh_ctx_destroy(a);
    symh_ctx_destroy(b);
    symh_free(flag);
    symh_free(b_buf);
    symh_free(a_buf);
}

// Four threads, each with a private context of its own: puts into their own slots of the right
// PE, atomics on one counter of PE 0, a quiet, gets back; every word and the sum exact.
TEST_F(Contexts, FourThreadsWithPrivateContextsAtOnce)
{
    const int threads = 4, per_thread = 150;
    auto *slots = (long *)symh_calloc((size_t)threads * per_thread, sizeof(long));
    auto *sum = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, slots);
    ASSERT_NE(nullptr, sum);
    symh_barrier_all();
    std::atomic<int> failures{ 0 };
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            symh_ctx_t ctx = SYMH_CTX_INVALID;
            if (symh_ctx_create(SYMH_CTX_PRIVATE, &ctx) != SYMH_OK) {
                failures++;
                return;
            }
            for (int i = 0; i < per_thread; ++i) {
                long v = (long)me() * 100000 + t * 1000 + i;
                symh_ctx_long_p(ctx, &slots[t * per_thread + i], v, right());
                symh_ctx_long_atomic_add(ctx, sum, 1, 0);
                if (symh_last_error() != SYMH_OK)
                    failures++;
            }
            symh_ctx_quiet(ctx);
            for (int i = 0; i < per_thread; i += 10)
                if (symh_ctx_long_g(ctx, &slots[t * per_thread + i], right()) !=
                    (long)me() * 100000 + t * 1000 + i)
                    failures++;
            symh_ctx_destroy(ctx);
            if (symh_last_error() != SYMH_OK)
                failures++;
        });
    }
    for (auto &th : pool)
        th.join();
    EXPECT_EQ(0, failures.load());
    symh_barrier_all();
    for (int t = 0; t < threads; ++t)
        for (int i = 0; i < per_thread; ++i)
            ASSERT_EQ((long)left() * 100000 + t * 1000 + i, slots[t * per_thread + i])
                << t << " " << i;
    if (me() == 0) {
        EXPECT_EQ((long)npes() * threads * per_thread, *sum);
    }
    symh_barrier_all();
    symh_free(sum);
    symh_free(slots);
}

// A context of a team numbers PEs by the team: PE i of the context is the team's PE i.
TEST_F(Contexts, TeamContextUsesTheTeamsNumbering)
{
    // The odd world PEs, or every PE when there is one.
    int start = npes() > 1 ? 1 : 0, size = npes() > 1 ? npes() / 2 : 1;
    symh_team_t team = SYMH_TEAM_INVALID;
    ASSERT_EQ(SYMH_OK, symh_team_split_strided(SYMH_TEAM_WORLD, start, 2, size, nullptr, 0, &team));
    auto *slot = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, slot);
    symh_barrier_all();
    if (team != SYMH_TEAM_INVALID) {
        symh_ctx_t ctx = SYMH_CTX_INVALID;
        ASSERT_EQ(SYMH_OK, symh_team_create_ctx(team, 0, &ctx));
        symh_team_t got = SYMH_TEAM_INVALID;
        EXPECT_EQ(SYMH_OK, symh_ctx_get_team(ctx, &got));
        EXPECT_EQ(team, got);
        int my = symh_team_my_pe(team), n = symh_team_n_pes(team);
        // To the team's next PE, by team number.
        symh_ctx_long_p(ctx, slot, 1000 + me(), (my + 1) % n);
        ASSERT_EQ(SYMH_OK, symh_last_error());
        symh_ctx_quiet(ctx);
        symh_team_sync(team);
        int prev_world = start + ((my + n - 1) % n) * 2;
        EXPECT_EQ(1000 + prev_world, *slot);
        // Team PE n is outside it.
        expect_one_line("out of range of the context's team",
                        [&] { symh_ctx_long_p(ctx, slot, 1, n); });
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
        symh_ctx_destroy(ctx);
        symh_team_destroy(team);
    } else {
        // OpenSHMEM defines this result (SYMH_CTX_INVALID, nonzero): returned without a line.
        symh_ctx_t ctx = sentinel_ctx();
        EXPECT_EQ(0u, log_lines(symh_captured_log(
                          [&] { EXPECT_NE(SYMH_OK, symh_team_create_ctx(team, 0, &ctx)); })));
        EXPECT_EQ(SYMH_CTX_INVALID, ctx);
    }
    symh_barrier_all();
    symh_free(slot);
}

// Destroying a context completes what was issued on it.
TEST_F(Contexts, DestroyCompletesOutstandingPuts)
{
    const size_t bytes = 1u << 20;
    auto *buf = (char *)symh_malloc(bytes);
    ASSERT_NE(nullptr, buf);
    reg_vector<char> src(bytes);
    std::memset(src.data(), 'x' + me() % 4, bytes);
    symh_ctx_t ctx = SYMH_CTX_INVALID;
    ASSERT_EQ(SYMH_OK, symh_ctx_create(0, &ctx));
    symh_barrier_all();
    symh_ctx_putmem_nbi(ctx, buf, src.data(), bytes, right());
    symh_ctx_destroy(ctx);
    symh_barrier_all();
    for (size_t i = 0; i < bytes; i += 4099)
        ASSERT_EQ((char)('x' + left() % 4), buf[i]) << i;
    symh_free(buf);
}

// Every misuse: one line, nothing done, symh_last_error() set.
TEST_F(Contexts, MisuseIsRefusedWithOneLine)
{
    auto *slot = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, slot);
    symh_barrier_all();
    expect_one_line("SYMH_CTX_INVALID", [&] { symh_ctx_long_p(SYMH_CTX_INVALID, slot, 5, me()); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    EXPECT_EQ(0, *slot);
    expect_one_line("SYMH_CTX_INVALID", [&] { symh_ctx_quiet(SYMH_CTX_INVALID); });
    expect_one_line("SYMH_CTX_INVALID",
                    [&] { (void)symh_ctx_long_atomic_fetch_add(SYMH_CTX_INVALID, slot, 1, me()); });
    EXPECT_EQ(0, *slot);

    symh_ctx_t ctx = SYMH_CTX_INVALID;
    ASSERT_EQ(SYMH_OK, symh_ctx_create(0, &ctx));
    symh_ctx_destroy(ctx);
    expect_one_line("not a live context", [&] { symh_ctx_long_p(ctx, slot, 6, me()); });
    EXPECT_EQ(0, *slot);
    expect_one_line("not a live context", [&] { symh_ctx_destroy(ctx); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());

    // Defined by OpenSHMEM (SYMH_TEAM_INVALID, nonzero): returned without a line.
    symh_team_t team = SYMH_TEAM_WORLD;
    EXPECT_EQ(0u, log_lines(symh_captured_log(
                      [&] { EXPECT_NE(SYMH_OK, symh_ctx_get_team(SYMH_CTX_INVALID, &team)); })));
    EXPECT_EQ(SYMH_TEAM_INVALID, team);
    expect_one_line("cannot be destroyed", [&] { symh_ctx_destroy(SYMH_CTX_DEFAULT); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    // Destroying SYMH_CTX_INVALID does nothing and says nothing.
    EXPECT_EQ(0u, log_lines(symh_captured_log([&] { symh_ctx_destroy(SYMH_CTX_INVALID); })));
    EXPECT_EQ(SYMH_OK, symh_last_error());

    symh_ctx_t out = sentinel_ctx();
    expect_one_line("unknown option bits",
                    [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_ctx_create(1L << 9, &out)); });
    EXPECT_EQ(SYMH_CTX_INVALID, out);
    expect_one_line("ctx is NULL",
                    [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_ctx_create(0, nullptr)); });
    EXPECT_EQ(0u, log_lines(symh_captured_log([&] {
                  EXPECT_NE(SYMH_OK, symh_team_create_ctx(SYMH_TEAM_INVALID, 0, &out));
              })));
    EXPECT_EQ(SYMH_CTX_INVALID, out);
    expect_one_line("pe", [&] { symh_ctx_long_p(SYMH_CTX_DEFAULT, slot, 1, npes()); });
    symh_barrier_all();
    symh_free(slot);
}

// A NIC transport that cannot make a channel (fault injection at its one failure site): one line
// naming symh_ctx_create, a failed status, SYMH_CTX_INVALID, and the next creation works. Without
// a NIC the site is never reached and the context is made.
TEST_F(Contexts, ChannelFailureIsOneLineAndNoContext)
{
    symh_ctx_t ctx = sentinel_ctx();
    symh_shim_fault_arm("", 0);
    std::string log = symh_captured_log([&] { (void)symh_ctx_create(0, &ctx); });
    const char *fired = symh_shim_fault_fired();
    symh_shim_fault_arm(nullptr, 0);
    bool nic = false; // a NIC transport is active when it routes some peer
    for (int pe = 0; pe < npes(); ++pe)
        nic = nic || is_nic(expected_route(pe));
    EXPECT_EQ(nic, fired != nullptr) << "a channel is made exactly when a NIC transport is active";
    if (fired != nullptr) {
        EXPECT_EQ(1u, log_lines(log)) << log;
        EXPECT_NE(std::string::npos, log.find("symh_ctx_create")) << log;
        EXPECT_NE(std::string::npos, log.find("channel")) << log;
        EXPECT_EQ(SYMH_CTX_INVALID, ctx);
        EXPECT_EQ(SYMH_ERR_TRANSPORT, symh_last_error());
        EXPECT_TRUE(std::string(fired) == "ucx: channel" || std::string(fired) == "ofi: channel")
            << fired;
        ASSERT_EQ(SYMH_OK, symh_ctx_create(0, &ctx));
    } else {
        EXPECT_EQ(0u, log_lines(log)) << log;
        ASSERT_NE(SYMH_CTX_INVALID, ctx);
    }
    symh_ctx_destroy(ctx);
    EXPECT_EQ(SYMH_OK, symh_last_error());
}

// Contexts the program leaves are destroyed by symh_finalize (the leak checkers of the sanitizer
// builds see whatever is not); created last, so the suite's finalize meets them.
TEST_F(Contexts, ContextsLeftToFinalize)
{
    symh_ctx_t left_over[3];
    for (auto &ctx : left_over)
        ASSERT_EQ(SYMH_OK, symh_ctx_create(SYMH_CTX_PRIVATE, &ctx));
    auto *slot = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, slot);
    symh_barrier_all();
    symh_ctx_long_atomic_add(left_over[1], slot, 1, 0);
    symh_barrier_all();
    if (me() == 0) {
        EXPECT_EQ((long)npes(), *slot);
    }
}
