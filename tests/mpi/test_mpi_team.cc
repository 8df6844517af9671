// Multi-PE tests of teams (include/symheap/team.h): the queries on the predefined teams and on
// SYMH_TEAM_INVALID; translate_pe between any two teams (world, shared, strided, the rows and
// columns of 2-D grids, single-PE teams, a team split from a team) against a plain model of
// membership (team_test_model.hpp); splits that leave PEs out; 2-D grids of many shapes; 200
// split/destroy cycles leaving nothing behind; the team limit (SYMH_TEAMS_MAX, default 64, the
// predefined two included); arguments that differ between PEs; and misuse (an invalid or
// destroyed team, a NULL output, a team that does not fit its parent), each a negative status
// on every PE concerned, no hang and no crash; and under SYMH_THREAD_MULTIPLE a second thread's
// collective on a team another thread of its PE is in is refused, while another team works.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <symheap.h>

#include "mpi_test_util.hpp"
#include "team_test_model.hpp"

namespace
{

using namespace symh_test;

// ---- helpers --------------------------------------------------------------------------------

// Splits `parent` (called on its members only) and checks the outcome: SYMH_OK, a handle exactly
// on the members of the model's new team.
TeamModel split(const TeamModel &parent, const std::string &name, int start, int stride, int size,
                int num_contexts = -1)
{
    TeamModel t;
    t.name = name;
    t.members = strided_members(parent.members, start, stride, size);
    if (!parent.has_me())
        return t;
    symh_team_config_t config{};
    config.num_contexts = num_contexts;
    long mask = num_contexts >= 0 ? SYMH_TEAM_NUM_CONTEXTS : 0;
    symh_team_t team = (symh_team_t)sentinel();
    EXPECT_EQ(SYMH_OK, symh_team_split_strided(parent.team, start, stride, size,
                                               num_contexts >= 0 ? &config : nullptr, mask, &team))
        << name << ": split of " << parent.name << " (" << start << ", " << stride << ", " << size
        << ")";
    EXPECT_EQ(t.has_me(), team != SYMH_TEAM_INVALID) << name;
    t.team = team == (symh_team_t)sentinel() ? SYMH_TEAM_INVALID : team;
    return t;
}

// Splits `parent` (its members only) into the grid of `xrange` columns; checks SYMH_OK and that
// every member gets both teams.
void split_2d(const TeamModel &parent, int xrange, TeamModel &x, TeamModel &y, int x_contexts = -1)
{
    x = TeamModel();
    y = TeamModel();
    x.name = parent.name + " row (xrange " + std::to_string(xrange) + ")";
    y.name = parent.name + " column (xrange " + std::to_string(xrange) + ")";
    grid_members(parent.members, xrange, me(), x.members, y.members);
    if (!parent.has_me())
        return;
    symh_team_config_t config{};
    config.num_contexts = x_contexts;
    long mask = x_contexts >= 0 ? SYMH_TEAM_NUM_CONTEXTS : 0;
    EXPECT_EQ(SYMH_OK, symh_team_split_2d(parent.team, xrange, x_contexts >= 0 ? &config : nullptr,
                                          mask, &x.team, nullptr, 0, &y.team))
        << x.name;
    EXPECT_NE(SYMH_TEAM_INVALID, x.team) << x.name;
    EXPECT_NE(SYMH_TEAM_INVALID, y.team) << y.name;
}

void destroy(TeamModel &t)
{
    if (t.team != SYMH_TEAM_INVALID) {
        symh_team_destroy(t.team);
        EXPECT_EQ(SYMH_OK, symh_last_error()) << "destroy of " << t.name;
    }
    t.team = SYMH_TEAM_INVALID;
}

TeamModel world()
{
    TeamModel t;
    t.name = "world";
    t.team = SYMH_TEAM_WORLD;
    t.members = world_members();
    return t;
}

// The model's answers to the local queries, on a member and elsewhere.
void check_queries(const TeamModel &t)
{
    if (!t.has_me()) {
        EXPECT_EQ(SYMH_TEAM_INVALID, t.team) << t.name;
        return;
    }
    EXPECT_EQ(t.index_of(me()), symh_team_my_pe(t.team)) << t.name;
    EXPECT_EQ(t.size(), symh_team_n_pes(t.team)) << t.name;
}

// translate_pe from every PE number of `src` (and one past either end) into `dest`, as the model
// says: the index in dest of the same world PE, -1 where it is none of dest's, and -1 from a team
// this PE holds no handle of. PE numbers out of range may log (a misuse); in range, a PE that is
// not in dest is an ordinary answer and logs nothing.
void check_translate(const TeamModel &src, const TeamModel &dest)
{
    if (!src.has_me()) {
        symh_captured_log([&] {
            EXPECT_EQ(-1, symh_team_translate_pe(SYMH_TEAM_INVALID, 0, dest.team)) << src.name;
        });
        return;
    }
    for (int i = 0; i < src.size(); ++i) {
        int expected = dest.has_me() ? dest.index_of(src.members[(size_t)i]) : -1;
        ASSERT_EQ(expected, symh_team_translate_pe(src.team, i, dest.team))
            << "PE " << i << " of " << src.name << " in " << dest.name;
    }
    symh_captured_log([&] {
        EXPECT_EQ(-1, symh_team_translate_pe(src.team, -1, dest.team)) << src.name;
        EXPECT_EQ(-1, symh_team_translate_pe(src.team, src.size(), dest.team)) << src.name;
    });
}

// Whether every PE returned `status` and holds SYMH_TEAM_INVALID (collective over the world).
void expect_failed_everywhere(int expected, int status, symh_team_t team, const char *what)
{
    EXPECT_EQ(expected, status) << what;
    EXPECT_EQ(SYMH_TEAM_INVALID, team) << what;
    EXPECT_EQ(npes(), count_pes(status == expected && team == SYMH_TEAM_INVALID)) << what;
}

symh_heap_stats_t heap_stats()
{
    symh_heap_stats_t s{};
    EXPECT_EQ(SYMH_OK, symh_heap_stats(&s));
    return s;
}

// ---- before init ----------------------------------------------------------------------------

class TeamBeforeInit : public SymhTest
{
};

TEST_F(TeamBeforeInit, QueriesAnswerMinusOneAndSplitsFail)
{
    symh_team_t team = (symh_team_t)sentinel();
    int status = 0;
    symh_captured_log([&] {
        EXPECT_EQ(-1, symh_team_my_pe(SYMH_TEAM_WORLD));
        EXPECT_EQ(-1, symh_team_n_pes(SYMH_TEAM_WORLD));
        EXPECT_EQ(-1, symh_team_n_pes(SYMH_TEAM_SHARED));
        EXPECT_EQ(-1, symh_team_translate_pe(SYMH_TEAM_WORLD, 0, SYMH_TEAM_WORLD));
        status = symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, 1, nullptr, 0, &team);
    });
    EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, status);
    EXPECT_EQ(SYMH_TEAM_INVALID, team);
    std::string log = symh_captured_log([&] { status = symh_team_sync(SYMH_TEAM_WORLD); });
    EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, status);
    EXPECT_EQ(1u, log_lines(log)) << log;
}

// ---- initialized ----------------------------------------------------------------------------

class Team : public SymhSuiteInitTest
{
};

TEST_F(Team, PredefinedTeamsAnswerTheirQueries)
{
    EXPECT_EQ(symh_my_pe(), symh_team_my_pe(SYMH_TEAM_WORLD));
    EXPECT_EQ(me(), symh_team_my_pe(SYMH_TEAM_WORLD));
    EXPECT_EQ(npes(), symh_team_n_pes(SYMH_TEAM_WORLD));
    symh_captured_log([] {
        EXPECT_EQ(-1, symh_team_my_pe(SYMH_TEAM_INVALID));
        EXPECT_EQ(-1, symh_team_n_pes(SYMH_TEAM_INVALID));
    });

    // The shared team: the PEs whose heap this PE maps, in world order; this PE among them, and
    // never a PE of another (pretend) node; every PE the configuration maps is in it.
    long *object = static_cast<long *>(symh_malloc(sizeof(long)));
    ASSERT_NE(nullptr, object);
    TeamModel shared;
    shared.name = "shared";
    shared.team = SYMH_TEAM_SHARED;
    shared.members = shared_members(object);
    ASSERT_TRUE(shared.has_me());
    for (int pe : shared.members)
        EXPECT_TRUE(symh_test_same_node(pe, me())) << "PE " << pe << " is on another node";
    for (int pe = 0; pe < npes(); ++pe) {
        if (expected_mapped(pe)) {
            EXPECT_GE(shared.index_of(pe), 0) << "PE " << pe << " is mapped but not shared";
        }
    }
    check_queries(shared);
    TeamModel w = world();
    check_translate(shared, w);
    check_translate(w, shared);
    check_translate(shared, shared);
    symh_free(object);
}

TEST_F(Team, GetConfigFillsWhatTheMaskNamesAndRefusesMisuse)
{
    symh_team_config_t config{};
    EXPECT_EQ(SYMH_OK, symh_team_get_config(SYMH_TEAM_WORLD, 0, nullptr));
    EXPECT_EQ(SYMH_OK, symh_team_get_config(SYMH_TEAM_WORLD, SYMH_TEAM_NUM_CONTEXTS, &config));
    EXPECT_EQ(SYMH_OK, symh_team_get_config(SYMH_TEAM_SHARED, SYMH_TEAM_NUM_CONTEXTS, &config));

    // A team made with a hint gives it back.
    TeamModel even = split(world(), "even", 0, 2, (npes() + 1) / 2, 3);
    if (even.has_me()) {
        config.num_contexts = -7;
        EXPECT_EQ(SYMH_OK, symh_team_get_config(even.team, SYMH_TEAM_NUM_CONTEXTS, &config));
        EXPECT_EQ(3, config.num_contexts);
    }

    int status = 0;
    std::string log = symh_captured_log(
        [&] { status = symh_team_get_config(SYMH_TEAM_INVALID, SYMH_TEAM_NUM_CONTEXTS, &config); });
    EXPECT_LT(status, 0); // OpenSHMEM's nonzero for SYMH_TEAM_INVALID, without a line
    EXPECT_EQ(0u, log_lines(log)) << log;
    log = symh_captured_log(
        [&] { status = symh_team_get_config(SYMH_TEAM_WORLD, SYMH_TEAM_NUM_CONTEXTS, nullptr); });
    EXPECT_LT(status, 0);
    EXPECT_EQ(1u, log_lines(log)) << log;
    log = symh_captured_log(
        [&] { status = symh_team_get_config(SYMH_TEAM_WORLD, 1L << 9, &config); });
    EXPECT_LT(status, 0);
    EXPECT_EQ(1u, log_lines(log)) << log;
    destroy(even);
}

// Every pair of teams, translated both ways, against the model.
TEST_F(Team, TranslateBetweenAnyTwoTeamsFollowsTheModel)
{
    int n = npes();
    long *object = static_cast<long *>(symh_malloc(sizeof(long)));
    ASSERT_NE(nullptr, object);
    std::vector<TeamModel> teams;
    teams.push_back(world());
    TeamModel shared;
    shared.name = "shared";
    shared.team = SYMH_TEAM_SHARED;
    shared.members = shared_members(object);
    teams.push_back(shared);
    teams.push_back(split(teams[0], "even", 0, 2, (n + 1) / 2));
    // PEs 1 .. n-1 (PE 0 alone at one PE), then every other PE of that: a team of a team.
    TeamModel tail =
        n > 1 ? split(teams[0], "tail", 1, 1, n - 1) : split(teams[0], "tail", 0, 1, 1);
    TeamModel odd = split(tail, "odd (of tail)", 0, 2, (tail.size() + 1) / 2);
    teams.push_back(tail);
    teams.push_back(odd);
    // The last PE alone (any stride goes with size 1), and a team of the even team's tail.
    teams.push_back(split(teams[0], "last", n - 1, 0, 1));
    TeamModel x3, y3, x1, y1;
    split_2d(teams[0], 3, x3, y3);
    split_2d(teams[0], 1, x1, y1); // rows of one PE each: every PE in a single-PE team
    teams.push_back(x3);
    teams.push_back(y3);
    teams.push_back(x1);
    teams.push_back(y1);
    TeamModel even = teams[2];
    teams.push_back(split(even, "even minus its first", even.size() > 1 ? 1 : 0, 1,
                          even.size() > 1 ? even.size() - 1 : 1));

    for (const TeamModel &t : teams)
        check_queries(t);
    for (const TeamModel &a : teams)
        for (const TeamModel &b : teams)
            check_translate(a, b);

    // Created last, destroyed first; the predefined two stay.
    for (size_t i = teams.size(); i-- > 2;)
        destroy(teams[i]);
    symh_free(object);
}

TEST_F(Team, SplitsThatLeavePesOutGiveThemInvalidAndSucceed)
{
    int n = npes();
    std::vector<TeamModel> teams;
    if (n > 1)
        teams.push_back(split(world(), "odd", 1, 2, n / 2));
    teams.push_back(split(world(), "first", 0, 1, 1));
    teams.push_back(split(world(), "last, stride 0", n - 1, 0, 1));
    teams.push_back(split(world(), "last, stride -3", n - 1, -3, 1));
    teams.push_back(split(world(), "all but the last", 0, 1, n > 1 ? n - 1 : 1));
    for (const TeamModel &t : teams) {
        check_queries(t);
        if (t.has_me()) {
            EXPECT_EQ(SYMH_OK, symh_team_sync(t.team)) << t.name;
        }
    }
    // Every PE got SYMH_OK (split checks it) and the members of each team agree on its size.
    for (TeamModel &t : teams)
        destroy(t);
    symh_sync_all();
}

TEST_F(Team, Split2dGivesRowsAndColumnsOfEveryShape)
{
    int n = npes();
    std::vector<int> xranges = { 1, 2, 3, n, n + 1, 3 * n + 2 };
    if (n > 2)
        xranges.push_back(n - 1);
    TeamModel w = world();
    for (int xrange : xranges) {
        TeamModel x, y;
        split_2d(w, xrange, x, y, xrange);
        check_queries(x);
        check_queries(y);
        check_translate(x, w);
        check_translate(y, w);
        check_translate(x, y); // a row and a column share this PE only
        check_translate(y, x);
        symh_team_config_t config{};
        EXPECT_EQ(SYMH_OK, symh_team_get_config(x.team, SYMH_TEAM_NUM_CONTEXTS, &config));
        EXPECT_EQ(xrange, config.num_contexts) << x.name;
        EXPECT_EQ(SYMH_OK, symh_team_sync(x.team)) << x.name;
        EXPECT_EQ(SYMH_OK, symh_team_sync(y.team)) << y.name;
        destroy(y);
        destroy(x);
    }
    // A grid over a team that is not the world: the even PEs, in columns of two.
    TeamModel even = split(w, "even", 0, 2, (n + 1) / 2);
    TeamModel x, y;
    split_2d(even, 2, x, y);
    check_queries(x);
    check_queries(y);
    check_translate(x, even);
    check_translate(y, w);
    if (x.has_me()) {
        EXPECT_EQ(SYMH_OK, symh_team_sync(y.team));
        destroy(y);
        destroy(x);
    }
    destroy(even);
}

// A barrier of the team: each member adds 1 to a counter on the team's PE 0 and completes the
// add (quiet) before the sync; after round r's sync that PE must see at least r adds per member.
// A sync that let a member out before another entered shows fewer.
TEST_F(Team, SyncWaitsForEveryMember)
{
    int n = npes();
    long *counter = static_cast<long *>(symh_calloc(1, sizeof(long)));
    ASSERT_NE(nullptr, counter);
    std::vector<TeamModel> teams = { world(),
                                     split(world(), "odd", n > 1 ? 1 : 0, 2, n / 2 + (n == 1)) };
    for (TeamModel &t : teams) {
        if (t.has_me()) {
            int root = t.members[0];
            for (long round = 1; round <= 300; ++round) {
                symh_long_atomic_add(counter, 1, root);
                symh_quiet();
                ASSERT_EQ(SYMH_OK, symh_team_sync(t.team)) << t.name;
                if (me() == root) {
                    long seen = symh_long_atomic_fetch(counter, root);
                    ASSERT_GE(seen, round * t.size()) << t.name << ", round " << round;
                }
            }
        }
        symh_barrier_all();
        if (me() == t.members[0])
            *counter = 0;
        symh_barrier_all();
    }
    destroy(teams[1]);
    symh_free(counter);
}

// 200 cycles of split (strided and 2-D, of the world and of a team) and destroy, each team used
// once: no team slot or scratch is left behind (the limit of 64 would stop the cycles after a
// few dozen), collectives on the world still work, the heap is as it was, and the limit is still
// all there (the next test).
TEST_F(Team, TwoHundredSplitDestroyCyclesLeaveNothingBehind)
{
    int n = npes();
    long *data = static_cast<long *>(symh_calloc(2, sizeof(long)));
    ASSERT_NE(nullptr, data);
    symh_heap_stats_t before = heap_stats();
    TeamModel w = world();
    for (int cycle = 0; cycle < 200; ++cycle) {
        std::vector<TeamModel> made;
        switch (cycle % 4) {
        case 0:
            made.push_back(split(w, "dup", 0, 1, n));
            break;
        case 1:
            made.push_back(split(w, "even", 0, 2, (n + 1) / 2));
            break;
        case 2: {
            TeamModel x, y;
            split_2d(w, 1 + cycle % 5, x, y);
            made.push_back(x);
            made.push_back(y);
            break;
        }
        default: {
            TeamModel parent = split(w, "dup", 0, 1, n);
            made.push_back(parent);
            made.push_back(split(parent, "tail of dup", n > 1 ? 1 : 0, 1, n > 1 ? n - 1 : 1));
            break;
        }
        }
        for (const TeamModel &t : made) {
            check_queries(t);
            if (!t.has_me())
                continue;
            if (cycle % 10 == 0) {
                data[0] = me() + 1;
                ASSERT_EQ(SYMH_OK, symh_team_sync(t.team));
                ASSERT_EQ(SYMH_OK, symh_long_sum_reduce(t.team, data + 1, data, 1)) << t.name;
                long sum = 0;
                for (int pe : t.members)
                    sum += pe + 1;
                ASSERT_EQ(sum, data[1]) << t.name << ", cycle " << cycle;
            } else {
                ASSERT_EQ(SYMH_OK, symh_team_sync(t.team)) << t.name;
            }
        }
        for (size_t i = made.size(); i-- > 0;)
            destroy(made[i]);
    }
    // The world's collectives after all that.
    data[0] = 10 + me();
    symh_barrier_all();
    ASSERT_EQ(SYMH_OK, symh_long_sum_reduce(SYMH_TEAM_WORLD, data + 1, data, 1));
    EXPECT_EQ(10L * n + (long)n * (n - 1) / 2, data[1]);
    symh_barrier_all();
    data[1] = -1;
    symh_barrier_all();
    ASSERT_EQ(SYMH_OK, symh_long_broadcast(SYMH_TEAM_WORLD, data + 1, data, 1, n - 1));
    EXPECT_EQ(10L + n - 1, data[1]);
    symh_heap_stats_t after = heap_stats();
    EXPECT_EQ(before.used, after.used);
    EXPECT_EQ(before.allocations, after.allocations);
    symh_free(data);
}

// The default limit: 64 live teams, the world and the shared team among them. 62 more splits
// succeed; the next fails on every PE with SYMH_ERR_LIMIT and one line for the job; after a
// destroy one more succeeds.
TEST_F(Team, DefaultLimitIsSixtyFourLiveTeams)
{
    if (getenv("SYMH_TEAMS_MAX") != nullptr)
        GTEST_SKIP() << "SYMH_TEAMS_MAX is set";
    int n = npes();
    std::vector<TeamModel> made;
    for (int i = 0; i < 62; ++i)
        made.push_back(split(world(), "dup " + std::to_string(i), 0, 1, n));
    symh_team_t team = (symh_team_t)sentinel();
    int status = 0;
    std::string log = symh_captured_log(
        [&] { status = symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, n, nullptr, 0, &team); });
    expect_failed_everywhere(SYMH_ERR_LIMIT, status, team, "the 63rd split");
    EXPECT_EQ(1, job_lines(log)) << log;
    destroy(made.back());
    made.back() = split(world(), "dup again", 0, 1, n);
    for (size_t i = made.size(); i-- > 0;)
        destroy(made[i]);
}

// One PE passes other arguments than the rest: every PE gets SYMH_TEAM_INVALID and
// SYMH_ERR_MISMATCH, one line for the job, and the next split in step works.
TEST_F(Team, MismatchedSplitArgumentsFailEverywhere)
{
    int n = npes(), odd_one = n - 1;
    struct Args {
        const char *what;
        int start, stride, size, start1, stride1, size1;
    };
    const Args cases[] = {
        { "start", 0, 1, 1, 1, 1, 1 },
        { "stride", 0, 1, 2, 0, 2, 2 },
        { "size", 0, 1, n, 0, 1, n - 1 },
    };
    for (const Args &a : cases) {
        if (std::string(a.what) == "stride" && n < 3)
            continue; // stride 2 of two PEs does not fit: a misuse, not a mismatch
        bool odd = me() == odd_one;
        symh_team_t team = (symh_team_t)sentinel();
        int status = 0;
        std::string log = symh_captured_log([&] {
            status = symh_team_split_strided(SYMH_TEAM_WORLD, odd ? a.start1 : a.start,
                                             odd ? a.stride1 : a.stride, odd ? a.size1 : a.size,
                                             nullptr, 0, &team);
        });
        expect_failed_everywhere(SYMH_ERR_MISMATCH, status, team, a.what);
        EXPECT_EQ(1, job_lines(log)) << a.what << ": " << log;
    }
    // split_2d: another xrange on one PE; both teams invalid everywhere.
    symh_team_t x = (symh_team_t)sentinel(), y = (symh_team_t)sentinel();
    int status = 0;
    std::string log = symh_captured_log([&] {
        status = symh_team_split_2d(SYMH_TEAM_WORLD, me() == odd_one ? 1 : 2, nullptr, 0, &x,
                                    nullptr, 0, &y);
    });
    expect_failed_everywhere(SYMH_ERR_MISMATCH, status, x, "split_2d xrange");
    EXPECT_EQ(SYMH_TEAM_INVALID, y);
    EXPECT_EQ(1, job_lines(log)) << log;

    // Over a team that is not the world (the even PEs), when it has two members or more.
    TeamModel even = split(world(), "even", 0, 2, (n + 1) / 2);
    if (even.size() >= 2) {
        symh_team_t team = (symh_team_t)sentinel();
        status = SYMH_ERR_MISMATCH;
        log = symh_captured_log([&] {
            if (even.has_me())
                status = symh_team_split_strided(
                    even.team, 0, 1, me() == even.members.back() ? 1 : 2, nullptr, 0, &team);
            else
                team = SYMH_TEAM_INVALID;
        });
        expect_failed_everywhere(SYMH_ERR_MISMATCH, status, team, "split of even, size");
        EXPECT_EQ(1, job_lines(log)) << log;
    }
    destroy(even);

    // In step again.
    TeamModel dup = split(world(), "dup", 0, 1, n);
    check_queries(dup);
    EXPECT_EQ(SYMH_OK, symh_team_sync(dup.team));
    destroy(dup);
}

// A team that does not fit the parent, a bad xrange, a NULL output: the same negative status on
// every PE, SYMH_TEAM_INVALID, one line for the job.
TEST_F(Team, SplitsThatDoNotFitTheParentFailEverywhere)
{
    int n = npes();
    struct Args {
        const char *what;
        int start, stride, size;
    };
    std::vector<Args> cases = {
        { "start -1", -1, 1, 1 },        { "start n", n, 1, 1 },
        { "size 0", 0, 1, 0 },           { "size -1", 0, 1, -1 },
        { "size n + 1", 0, 1, n + 1 },   { "last PE past the end", 1, 1, n },
        { "stride 0, size 2", 0, 0, 2 }, { "stride -1, size 2", n - 1, -1, 2 },
        { "stride n", 0, n, 2 },
    };
    for (const Args &a : cases) {
        symh_team_t team = (symh_team_t)sentinel();
        int status = 0;
        std::string log = symh_captured_log([&] {
            status = symh_team_split_strided(SYMH_TEAM_WORLD, a.start, a.stride, a.size, nullptr, 0,
                                             &team);
        });
        EXPECT_LT(status, 0) << a.what;
        EXPECT_EQ(SYMH_TEAM_INVALID, team) << a.what;
        EXPECT_TRUE(same_everywhere((uint64_t)(int64_t)status)) << a.what;
        EXPECT_EQ(npes(), count_pes(team == SYMH_TEAM_INVALID)) << a.what;
        EXPECT_EQ(1, job_lines(log)) << a.what << ": " << log;
    }
    for (int xrange : { 0, -1 }) {
        symh_team_t x = (symh_team_t)sentinel(), y = (symh_team_t)sentinel();
        int status = 0;
        std::string log = symh_captured_log([&] {
            status = symh_team_split_2d(SYMH_TEAM_WORLD, xrange, nullptr, 0, &x, nullptr, 0, &y);
        });
        EXPECT_LT(status, 0) << "xrange " << xrange;
        EXPECT_EQ(SYMH_TEAM_INVALID, x);
        EXPECT_EQ(SYMH_TEAM_INVALID, y);
        EXPECT_TRUE(same_everywhere((uint64_t)(int64_t)status)) << "xrange " << xrange;
        EXPECT_EQ(1, job_lines(log)) << log;
    }
    // A NULL output on every PE.
    int status = 0;
    std::string log = symh_captured_log(
        [&] { status = symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, n, nullptr, 0, nullptr); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, status);
    EXPECT_EQ(npes(), count_pes(status == SYMH_ERR_INVALID_ARG));
    EXPECT_GE(job_lines(log), 1) << log;
    symh_team_t y = (symh_team_t)sentinel();
    log = symh_captured_log([&] {
        status = symh_team_split_2d(SYMH_TEAM_WORLD, 2, nullptr, 0, nullptr, nullptr, 0, &y);
    });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, status);
    EXPECT_EQ(SYMH_TEAM_INVALID, y);
    EXPECT_EQ(npes(), count_pes(status == SYMH_ERR_INVALID_ARG));
    // Still in step.
    TeamModel dup = split(world(), "dup", 0, 1, n);
    EXPECT_EQ(SYMH_OK, symh_team_sync(dup.team));
    destroy(dup);
}

// A NULL output on one PE only: that PE's own check fails (SYMH_ERR_INVALID_ARG), the others get
// a negative status and no team.
TEST_F(Team, NullOutputOnOnePeFailsTheSplitEverywhere)
{
    int n = npes();
    symh_team_t team = (symh_team_t)sentinel();
    int status = 0;
    bool odd = me() == n - 1;
    std::string log = symh_captured_log([&] {
        status =
            symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, n, nullptr, 0, odd ? nullptr : &team);
    });
    if (odd) {
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, status);
    } else {
        EXPECT_LT(status, 0);
        EXPECT_EQ(SYMH_TEAM_INVALID, team);
    }
    EXPECT_EQ(npes(), count_pes(status < 0));
    EXPECT_GE(job_lines(log), 1) << log;
}

// An invalid or destroyed team: every local query answers -1 or a negative status, a split from
// it or a sync on it fails with SYMH_ERR_INVALID_ARG at once (nothing to wait for), and
// destroying a predefined team is refused with one line, leaving the world working. OpenSHMEM
// defines the results for SYMH_TEAM_INVALID (queries -1, get_config and the splits nonzero with
// SYMH_TEAM_INVALID out, destroy nothing): those come without a line; the sync on it, which the
// specification leaves undefined, and everything on a destroyed team say one.
TEST_F(Team, InvalidAndDestroyedTeamsAreRefusedWithoutHanging)
{
    int n = npes();
    TeamModel dup = split(world(), "dup", 0, 1, n);
    symh_team_t gone = dup.team;
    destroy(dup);
    for (symh_team_t team : { SYMH_TEAM_INVALID, gone }) {
        const char *what = team == SYMH_TEAM_INVALID ? "SYMH_TEAM_INVALID" : "a destroyed team";
        symh_team_config_t config{};
        symh_team_t out = (symh_team_t)sentinel(), x = (symh_team_t)sentinel(),
                    y = (symh_team_t)sentinel();
        int split_status = 0, split2d_status = 0, sync_status = 0, config_status = 0;
        std::string log = symh_captured_log([&] {
            EXPECT_EQ(-1, symh_team_my_pe(team)) << what;
            EXPECT_EQ(-1, symh_team_n_pes(team)) << what;
            EXPECT_EQ(-1, symh_team_translate_pe(team, 0, SYMH_TEAM_WORLD)) << what;
            EXPECT_EQ(-1, symh_team_translate_pe(SYMH_TEAM_WORLD, 0, team)) << what;
            config_status = symh_team_get_config(team, SYMH_TEAM_NUM_CONTEXTS, &config);
            split_status = symh_team_split_strided(team, 0, 1, 1, nullptr, 0, &out);
            split2d_status = symh_team_split_2d(team, 1, nullptr, 0, &x, nullptr, 0, &y);
            sync_status = symh_team_sync(team);
        });
        EXPECT_LT(config_status, 0) << what;
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, split_status) << what;
        EXPECT_EQ(SYMH_TEAM_INVALID, out) << what;
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, split2d_status) << what;
        EXPECT_EQ(SYMH_TEAM_INVALID, x) << what;
        EXPECT_EQ(SYMH_TEAM_INVALID, y) << what;
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, sync_status) << what;
        if (team == SYMH_TEAM_INVALID)
            EXPECT_EQ(1u, log_lines(log)) << what << ": " << log;
        else
            EXPECT_GE(log_lines(log), 3u) << what << ": " << log;
    }
    for (symh_team_t team : { SYMH_TEAM_WORLD, SYMH_TEAM_SHARED }) {
        std::string log = symh_captured_log([&] { symh_team_destroy(team); });
        EXPECT_LT(symh_last_error(), 0);
        EXPECT_EQ(1u, log_lines(log)) << log;
    }
    std::string quiet = symh_captured_log([&] { symh_team_destroy(SYMH_TEAM_INVALID); });
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_EQ(0u, log_lines(quiet)) << quiet;
    EXPECT_EQ(n, symh_team_n_pes(SYMH_TEAM_WORLD));
    EXPECT_EQ(me(), symh_team_my_pe(SYMH_TEAM_WORLD));
    EXPECT_LE(1, symh_team_n_pes(SYMH_TEAM_SHARED));
    EXPECT_EQ(SYMH_OK, symh_team_sync(SYMH_TEAM_WORLD));
    EXPECT_EQ(SYMH_OK, symh_team_sync(SYMH_TEAM_SHARED));
    TeamModel again = split(world(), "dup after the refusals", 0, 1, n);
    check_queries(again);
    destroy(again);
}

// A destroyed team's handle names nothing, even after the next split takes its slot: the queries
// answer -1 and a collective on it is refused, while the new team answers as itself (a handle
// that named the slot alone would give the new team's size through the old handle).
TEST_F(Team, DestroyedHandleDoesNotNameTheNextTeam)
{
    int n = npes();
    for (int round = 0; round < 3; ++round) {
        TeamModel first = split(world(), "first", 0, 1, n);
        symh_team_t stale = first.team;
        destroy(first);
        TeamModel next = split(world(), "next", 0, 1, n);
        ASSERT_NE(SYMH_TEAM_INVALID, next.team);
        EXPECT_NE(stale, next.team);
        EXPECT_EQ(-1, symh_team_n_pes(stale)) << "round " << round;
        EXPECT_EQ(-1, symh_team_my_pe(stale));
        EXPECT_EQ(-1, symh_team_translate_pe(stale, 0, SYMH_TEAM_WORLD));
        expect_one_line("not a live team", [&] { (void)symh_team_sync(stale); });
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
        EXPECT_EQ(n, symh_team_n_pes(next.team));
        EXPECT_EQ(me(), symh_team_my_pe(next.team));
        destroy(next);
    }
}

// ---- a limit of four (SYMH_TEAMS_MAX set by the test before its own symh_init) ---------------

class TeamLimit : public SymhTest
{
};

TEST_F(TeamLimit, FourLiveTeamsThenEveryPeFailsTogether)
{
    setenv("SYMH_TEAMS_MAX", "4", 1);
    ASSERT_EQ(SYMH_OK, symh_init());
    int n = npes();
    TeamModel w = world();
    // World and shared are two of the four.
    TeamModel a = split(w, "a", 0, 1, n), b = split(w, "b", 0, 1, n);
    symh_team_t team = (symh_team_t)sentinel();
    int status = 0;
    std::string log = symh_captured_log(
        [&] { status = symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, n, nullptr, 0, &team); });
    expect_failed_everywhere(SYMH_ERR_LIMIT, status, team, "a fifth live team");
    EXPECT_EQ(1, job_lines(log)) << log;
    // A grid needs two: with one free, neither is made, everywhere, and the free one stays free.
    destroy(b);
    symh_team_t x = (symh_team_t)sentinel(), y = (symh_team_t)sentinel();
    log = symh_captured_log(
        [&] { status = symh_team_split_2d(SYMH_TEAM_WORLD, 2, nullptr, 0, &x, nullptr, 0, &y); });
    expect_failed_everywhere(SYMH_ERR_LIMIT, status, x, "a grid with one team free");
    EXPECT_EQ(SYMH_TEAM_INVALID, y);
    EXPECT_EQ(1, job_lines(log)) << log;
    b = split(w, "b again", 0, 1, n);
    destroy(b);
    destroy(a);

    // No free team on one member only: PE 0 holds two teams the others are not in.
    TeamModel first1 = split(w, "first 1", 0, 1, 1), first2 = split(w, "first 2", 0, 1, 1);
    team = (symh_team_t)sentinel();
    log = symh_captured_log(
        [&] { status = symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, n, nullptr, 0, &team); });
    expect_failed_everywhere(SYMH_ERR_LIMIT, status, team, "PE 0 at its limit");
    EXPECT_EQ(1, job_lines(log)) << log;
    destroy(first2);
    destroy(first1);
    // Two free again everywhere: a grid fits.
    TeamModel gx, gy;
    split_2d(w, 2, gx, gy);
    check_queries(gx);
    check_queries(gy);
    destroy(gy);
    destroy(gx);

    symh_finalize();
    unsetenv("SYMH_TEAMS_MAX");
    EXPECT_EQ(-1, symh_team_my_pe(SYMH_TEAM_WORLD));
    EXPECT_EQ(-1, symh_team_n_pes(SYMH_TEAM_WORLD));
}

// ---- threads (SYMH_THREAD_MULTIPLE, by the test's own symh_init_thread) ---------------------

class TeamThreads : public SymhTest
{
};

// Two threads of PE 0 call symh_long_sum_reduce on team `a` at once while the other PEs hold
// back. Whichever claims the team waits inside for them; the other is refused at once
// (SYMH_ERR_MISMATCH, one line, no result written on any PE) and, while the first is provably
// still inside (the peers join it only when this thread tells them, after its next call), makes a
// reduction on team `b` (the same PEs, another team), which works. Then the peers join the first
// call on `a`, which completes, and `a` goes on in step.
TEST_F(TeamThreads, SecondThreadOnTheSameTeamIsRefusedWhileAnotherTeamWorks)
{
    int provided = -1;
    ASSERT_EQ(SYMH_OK, symh_init_thread(SYMH_THREAD_MULTIPLE, &provided));
    ASSERT_EQ(SYMH_THREAD_MULTIPLE, provided) << "MPI does not provide MPI_THREAD_MULTIPLE here";
    int n = npes();
    const long sum = (long)n * (n + 1) / 2; // of every PE's me() + 1
    TeamModel a = split(world(), "a", 0, 1, n), b = split(world(), "b", 0, 1, n);
    // dest[0], dest[1]: thread 0's and thread 1's result on `a`; dest[2]: the result on `b`;
    // go: set on the peers by the refused thread to 1 + the index of the thread inside `a`.
    long *src = static_cast<long *>(symh_malloc(sizeof(long)));
    long *dest = static_cast<long *>(symh_malloc(3 * sizeof(long)));
    int *go = static_cast<int *>(symh_calloc(1, sizeof(int)));
    ASSERT_NE(nullptr, src);
    ASSERT_NE(nullptr, dest);
    ASSERT_NE(nullptr, go);
    *src = me() + 1;
    for (int i = 0; i < 3; ++i)
        dest[i] = -1;
    symh_barrier_all(); // every PE's results poisoned before anyone writes them
    symh_heap_stats_t before = heap_stats();
    int inside = -1; // the thread whose call on `a` went through
    if (me() == 0) {
        int status[2] = { SYMH_ERR_INVALID_ARG, SYMH_ERR_INVALID_ARG };
        std::atomic<bool> returned[2] = { { false }, { false } };
        std::atomic<int> refused{ -1 };
        std::string log = symh_captured_log([&] {
            auto body = [&](int i) {
                status[i] = symh_long_sum_reduce(a.team, dest + i, src, 1);
                returned[i] = true;
                if (status[i] == SYMH_OK)
                    return;
                // Refused: the other thread holds `a` and cannot leave it before the peers are
                // told, below. A failure here ends the job at once (no peer is left waiting).
                refused = i;
                EXPECT_EQ(SYMH_ERR_MISMATCH, status[i]);
                EXPECT_EQ(-1, dest[i]) << "the refused call wrote its result";
                EXPECT_EQ(SYMH_OK, symh_long_sum_reduce(b.team, dest + 2, src, 1))
                    << "a collective on another team was refused";
                EXPECT_FALSE(returned[1 - i].load()) << "a call on a returned without its peers";
                for (int pe = 1; pe < n; ++pe)
                    symh_int_p(go, 2 - i, pe);
            };
            std::thread t0(body, 0), t1(body, 1);
            t0.join();
            t1.join();
        });
        ASSERT_NE(-1, refused.load()) << "both threads' calls on one team went through";
        inside = 1 - refused.load();
        EXPECT_EQ(SYMH_OK, status[inside]);
        EXPECT_EQ(1u, log_lines(log)) << log;
        EXPECT_EQ(1u, count_lines(log, "symh_long_sum_reduce: called on PE 0 while another thread "
                                       "of this PE is in a collective on the same team"))
            << log;
    } else {
        std::string log = symh_captured_log([&] {
            EXPECT_EQ(SYMH_OK, symh_long_sum_reduce(b.team, dest + 2, src, 1));
            symh_int_wait_until(go, SYMH_CMP_NE, 0);
            inside = *go - 1;
            EXPECT_EQ(SYMH_OK, symh_long_sum_reduce(a.team, dest + inside, src, 1));
        });
        EXPECT_EQ(0u, log_lines(log)) << log;
    }
    ASSERT_TRUE(inside == 0 || inside == 1);
    symh_barrier_all();
    EXPECT_EQ(sum, dest[inside]);
    EXPECT_EQ(-1, dest[1 - inside]) << "the refused call wrote a result on PE " << me();
    EXPECT_EQ(sum, dest[2]);
    symh_heap_stats_t after = heap_stats();
    EXPECT_EQ(before.used, after.used);
    EXPECT_EQ(before.allocations, after.allocations);
    // `a` in step on every PE: the refused call counted nowhere.
    *src = 10 * (me() + 1);
    symh_barrier_all();
    EXPECT_EQ(SYMH_OK, symh_long_sum_reduce(a.team, dest + 1 - inside, src, 1));
    EXPECT_EQ(10 * sum, dest[1 - inside]);
    EXPECT_EQ(SYMH_OK, symh_team_sync(a.team));
    destroy(b);
    destroy(a);
    symh_free(go);
    symh_free(dest);
    symh_free(src);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_finalize();
}

} // namespace
