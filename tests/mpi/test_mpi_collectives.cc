// Multi-PE tests of the collective routines (include/symheap/coll.h) over teams: broadcast,
// collect, fcollect, alltoall and alltoalls of every standard RMA type and in bytes (the *mem
// forms), and every reduction of every type of its list (complex ones from C,
// test_mpi_coll_complex.c), each against a plain reference computed here from deterministic
// inputs (a function of the world PE, the index and the case), on the world, a strided team, the
// rows and columns of a 2-D grid, single-PE teams, the shared team and a team split from a team;
// in place, zero counts, counts that are multiples of nothing and counts far larger than any
// scratch. Non-members take no part (their dest stays as it was). Misuse (an invalid or destroyed
// team, a root out of range, bad strides) fails on every member without hanging. With
// SYMH_CHECK_COLLECTIVES=1 every argument that differs between members is SYMH_ERR_MISMATCH on
// all of them (CollCheck.*). 10,000 mixed collectives back to back finish (a CTest timeout).
//
// SYMHTEST_COLL_QUICK=1 (the NIC and sanitizer configurations, tests/mpi/CMakeLists.txt) tests a
// few types of each size and signedness, fewer counts and the large counts on two teams.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <symheap.h>

#include "mpi_test_util.hpp"
#include "team_test_model.hpp"
#include "test_mpi_coll_complex.h"

namespace
{

using namespace symh_test;

// ---- configuration, buffers and teams -------------------------------------------------------

bool quick()
{
    const char *value = getenv("SYMHTEST_COLL_QUICK");
    return value != nullptr && std::string(value) == "1";
}

// Every type on the world and the even PEs; on the other teams, and everywhere in quick mode, one
// or two types of each size and kind (the typed entry points share their code by element size
// and operation, the teams their membership logic).
bool type_selected(const char *name, const TeamModel &t)
{
    if (!quick() && (t.name == "world" || t.name == "even PEs"))
        return true;
    static const char *const many[] = { "uchar", "ushort", "short",  "int",        "long", "uint64",
                                        "int8",  "float",  "double", "longdouble", "mem" };
    static const char *const few[] = { "uchar",  "int",        "long", "uint64",
                                       "double", "longdouble", "mem" };
    if (quick()) {
        for (const char *s : few)
            if (std::string(s) == name)
                return true;
        return false;
    }
    for (const char *s : many)
        if (std::string(s) == name)
            return true;
    return false;
}

std::vector<size_t> counts()
{
    if (quick())
        return { 0, 1, 7, 1000, 4099 };
    return { 0, 1, 3, 7, 1000, 4099 };
}

// Strided alltoalls move element by element over a NIC: smaller counts there.
std::vector<size_t> strided_counts()
{
    if (quick())
        return { 0, 1, 7, 100 };
    return counts();
}

const unsigned char poison = 0xa5;
const size_t buffer_bytes = (size_t)8 << 20; // each of source and dest
const size_t guard_bytes = 256;              // past what a call may write: must stay poisoned
const size_t watch_bytes = 64 << 10;         // of a non-member's dest: must stay poisoned

// The string's hash: a case's salt, the same on every member (the case's name is).
unsigned salt_of(const std::string &what)
{
    return (unsigned)(std::hash<std::string>{}(what)&0xffff);
}

// What the inputs are for: plain data, or the operands of an operation (chosen so that no
// partial result overflows and every floating-point one is exact).
enum class Gen { MOVE, SUM, PROD, MINMAX, AND, OR, XOR };

template <typename T> constexpr uint64_t move_mask()
{
    return sizeof(T) == 1 ? 0x7f : sizeof(T) == 2 ? 0x7fff : 0xffffff;
}

template <typename T> T gen(Gen g, int pe, size_t k, unsigned salt)
{
    constexpr bool fp = std::is_floating_point<T>::value;
    constexpr bool sgn = std::is_signed<T>::value;
    uint64_t h = (uint64_t)pe * 65599u + (uint64_t)k * 131u + (uint64_t)salt * 977u;
    switch (g) {
    case Gen::MOVE:
        return (T)(h & move_mask<T>());
    case Gen::SUM: {
        int v = (int)(h % 15) - (sgn ? 7 : 0); // |sum| <= 8 * 14
        if constexpr (fp)
            return (T)v * (T)0.5;
        return (T)v;
    }
    case Gen::PROD: {
        // A factor 2 on at most 3 of 8 consecutive PEs: |product| <= 8.
        int r = (int)(((uint64_t)pe + k + salt) % 3);
        if constexpr (fp)
            return r == 0 ? (T)2 : r == 1 ? (T)0.5 : (T)-1;
        return r == 0 ? (T)2 : (r == 1 || !sgn) ? (T)1 : (T)-1;
    }
    case Gen::MINMAX: {
        int64_t v = (int64_t)(h & move_mask<T>());
        if (sgn)
            v -= (int64_t)(move_mask<T>() / 2);
        return (T)v;
    }
    default:
        break;
    }
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        const unsigned bits = sizeof(T) * 8;
        U b1 = (U)((U)1 << (((uint64_t)pe * 3 + k) % bits));
        U b2 = (U)((U)1 << ((k * 5 + salt) % bits));
        U b3 = (U)((U)1 << (((uint64_t)pe * 7 + k * 3 + salt) % bits));
        U u = 0;
        if (g == Gen::AND)
            u = (U) ~(U)(b1 | b2);
        else if (g == Gen::OR)
            u = (U)(b1 | b3);
        else
            u = (U)(h * 0x9e3779b97f4a7c15ull);
        return (T)u;
    }
    return (T)0;
}

enum class Op { AND, OR, XOR, MAX, MIN, SUM, PROD };

Gen gen_of(Op op)
{
    switch (op) {
    case Op::AND:
        return Gen::AND;
    case Op::OR:
        return Gen::OR;
    case Op::XOR:
        return Gen::XOR;
    case Op::MAX:
    case Op::MIN:
        return Gen::MINMAX;
    case Op::SUM:
        return Gen::SUM;
    default:
        return Gen::PROD;
    }
}

template <typename T> T combine(Op op, T a, T b)
{
    switch (op) {
    case Op::MAX:
        return a < b ? b : a;
    case Op::MIN:
        return b < a ? b : a;
    case Op::SUM:
        return (T)(a + b);
    case Op::PROD:
        return (T)(a * b);
    default:
        break;
    }
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        U ua = (U)a, ub = (U)b;
        return (T)(op == Op::AND ? (U)(ua & ub) : op == Op::OR ? (U)(ua | ub) : (U)(ua ^ ub));
    }
    return a;
}

template <typename T> std::string show(T v)
{
    if constexpr (std::is_floating_point<T>::value)
        return std::to_string((long double)v);
    else if constexpr (std::is_signed<T>::value)
        return std::to_string((long long)v);
    else
        return std::to_string((unsigned long long)v);
}

// The buffers and teams of the Collectives suite, made once (symh_malloc and the splits are
// collective over the world).
struct Suite {
    unsigned char *src = nullptr, *dst = nullptr;
    std::vector<TeamModel> teams;  // tested
    std::vector<TeamModel> extras; // parents and by-products of the tested ones, destroyed last
};
Suite *suite = nullptr;

// Splits `parent` on its members, asserting SYMH_OK.
TeamModel split(const TeamModel &parent, const std::string &name, int start, int stride, int size)
{
    TeamModel t;
    t.name = name;
    t.members = strided_members(parent.members, start, stride, size);
    if (parent.has_me()) {
        EXPECT_EQ(SYMH_OK,
                  symh_team_split_strided(parent.team, start, stride, size, nullptr, 0, &t.team))
            << name;
        EXPECT_EQ(t.has_me(), t.team != SYMH_TEAM_INVALID) << name;
    }
    return t;
}

void split_2d(const TeamModel &parent, int xrange, const std::string &name, TeamModel &x,
              TeamModel &y)
{
    x.name = name + " row";
    y.name = name + " column";
    grid_members(parent.members, xrange, me(), x.members, y.members);
    EXPECT_EQ(SYMH_OK,
              symh_team_split_2d(parent.team, xrange, nullptr, 0, &x.team, nullptr, 0, &y.team))
        << name;
}

void make_suite()
{
    int n = npes();
    suite = new Suite;
    suite->src = static_cast<unsigned char *>(symh_malloc(buffer_bytes));
    suite->dst = static_cast<unsigned char *>(symh_malloc(buffer_bytes));
    ASSERT_NE(nullptr, suite->src);
    ASSERT_NE(nullptr, suite->dst);
    TeamModel w;
    w.name = "world";
    w.team = SYMH_TEAM_WORLD;
    w.members = world_members();
    TeamModel shared;
    shared.name = "shared";
    shared.team = SYMH_TEAM_SHARED;
    shared.members = shared_members(suite->src);
    TeamModel x3, y3, x1, y1;
    split_2d(w, 3, "grid of 3 columns", x3, y3);
    split_2d(w, 1, "grid of 1 column", x1, y1);
    x1.name = "single PE";
    // PEs 1 .. n-1 (PE 0 alone at one PE), then every other one of those: a team of a team.
    TeamModel tail = n > 1 ? split(w, "tail", 1, 1, n - 1) : split(w, "tail", 0, 1, 1);
    TeamModel odd = split(tail, "every other PE of the tail", 0, 2, (tail.size() + 1) / 2);
    suite->teams = { w, split(w, "even PEs", 0, 2, (n + 1) / 2), x3, y3, x1, shared, odd };
    suite->extras = { y1, tail };
}

void drop_suite()
{
    for (size_t i = suite->teams.size(); i-- > 0;)
        if (suite->teams[i].team != SYMH_TEAM_INVALID && suite->teams[i].name != "world" &&
            suite->teams[i].name != "shared")
            symh_team_destroy(suite->teams[i].team);
    for (size_t i = suite->extras.size(); i-- > 0;)
        if (suite->extras[i].team != SYMH_TEAM_INVALID)
            symh_team_destroy(suite->extras[i].team);
    symh_free(suite->dst);
    symh_free(suite->src);
    delete suite;
    suite = nullptr;
}

// Runs body(team) on the members of each tested team (or of `only`), one team after the other;
// the other PEs wait and then check that their dest did not change meanwhile (a non-member takes
// no part: nothing of the team's collectives may reach it). Their source holds a pattern no
// member's does, so a member that read it sees wrong data.
template <typename F> void for_each_team(F body, const std::vector<std::string> &only = {})
{
    for (const TeamModel &t : suite->teams) {
        if (!only.empty() && std::find(only.begin(), only.end(), t.name) == only.end())
            continue;
        bool member = t.has_me();
        if (!member) {
            memset(suite->dst, poison, watch_bytes);
            memset(suite->src, 0x5c, watch_bytes);
        }
        symh_barrier_all();
        if (member)
            body(t);
        symh_barrier_all();
        if (!member) {
            size_t b = 0;
            while (b < watch_bytes && suite->dst[b] == poison)
                ++b;
            ASSERT_EQ(watch_bytes, b) << "PE " << me() << " is not in " << t.name << " but byte "
                                      << b << " of its dest changed";
        }
    }
}

// ---- the checks of one case -----------------------------------------------------------------

// What a call must leave in dest: `want[i]` for every i < span where `written` (empty: all of
// them) says so, poison elsewhere and for guard_bytes past the span.
template <typename T> struct Expect {
    size_t span = 0;
    std::vector<T> want;
    std::vector<char> written;
};

template <typename T> bool is_poison(const T *p)
{
    const unsigned char *b = reinterpret_cast<const unsigned char *>(p);
    for (size_t i = 0; i < sizeof(T); ++i)
        if (b[i] != poison)
            return false;
    return true;
}

template <typename T>::testing::AssertionResult dest_is(const T *dest, const Expect<T> &e)
{
    for (size_t i = 0; i < e.span; ++i) {
        if (e.written.empty() || e.written[i]) {
            if (!(dest[i] == e.want[i]))
                return ::testing::AssertionFailure() << "element " << i << " is " << show(dest[i])
                                                     << ", want " << show(e.want[i]);
        } else if (!is_poison(&dest[i])) {
            return ::testing::AssertionFailure()
                   << "element " << i << " is not to be written but is " << show(dest[i]);
        }
    }
    const unsigned char *past = reinterpret_cast<const unsigned char *>(dest + e.span);
    for (size_t b = 0; b < guard_bytes; ++b)
        if (past[b] != poison)
            return ::testing::AssertionFailure()
                   << "byte " << b << " past the " << e.span << " elements written changed";
    return ::testing::AssertionSuccess();
}

// Poisons `span` elements of dest and the guard past them.
template <typename T> void poison_dest(T *dest, size_t span)
{
    ASSERT_LE(span * sizeof(T) + guard_bytes, buffer_bytes);
    memset(static_cast<void *>(dest), poison, span * sizeof(T) + guard_bytes);
}

template <typename T> void fill(T *src, size_t n, Gen g, unsigned salt)
{
    ASSERT_LE(n * sizeof(T), buffer_bytes);
    for (size_t i = 0; i < n; ++i)
        src[i] = gen<T>(g, me(), i, salt);
}

// Every member's dest is ready (poisoned) before any member's call may write it, then the call,
// then the checks.
template <typename T, typename Call>
void run_case(const TeamModel &t, const std::string &what, const T *dest, const Expect<T> &e,
              Call call)
{
    ASSERT_EQ(SYMH_OK, symh_team_sync(t.team)) << what;
    int status = call();
    ASSERT_EQ(SYMH_OK, status) << what;
    ASSERT_TRUE(dest_is(dest, e)) << what << " on " << t.name << " (PE " << me() << ")";
}

// ---- data movement --------------------------------------------------------------------------

template <typename T> struct MoveFns {
    const char *type;
    int (*broadcast)(symh_team_t, T *, const T *, size_t, int);
    int (*collect)(symh_team_t, T *, const T *, size_t);
    int (*fcollect)(symh_team_t, T *, const T *, size_t);
    int (*alltoall)(symh_team_t, T *, const T *, size_t);
    int (*alltoalls)(symh_team_t, T *, const T *, ptrdiff_t, ptrdiff_t, size_t);
};

// The MoveFns of TYPENAME.
#define SYMHTEST_MOVE_FNS(NAME)                                                        \
    {                                                                                  \
#NAME, symh_##NAME##_broadcast, symh_##NAME##_collect, symh_##NAME##_fcollect, \
            symh_##NAME##_alltoall, symh_##NAME##_alltoalls                            \
    }

int mem_broadcast(symh_team_t team, unsigned char *d, const unsigned char *s, size_t n, int root)
{
    return symh_broadcastmem(team, d, s, n, root);
}
int mem_collect(symh_team_t team, unsigned char *d, const unsigned char *s, size_t n)
{
    return symh_collectmem(team, d, s, n);
}
int mem_fcollect(symh_team_t team, unsigned char *d, const unsigned char *s, size_t n)
{
    return symh_fcollectmem(team, d, s, n);
}
int mem_alltoall(symh_team_t team, unsigned char *d, const unsigned char *s, size_t n)
{
    return symh_alltoallmem(team, d, s, n);
}
int mem_alltoalls(symh_team_t team, unsigned char *d, const unsigned char *s, ptrdiff_t dst,
                  ptrdiff_t sst, size_t n)
{
    return symh_alltoallsmem(team, d, s, dst, sst, n);
}
const MoveFns<unsigned char> mem_fns = { "mem",        mem_broadcast, mem_collect,
                                         mem_fcollect, mem_alltoall,  mem_alltoalls };

std::string name_of(const char *type, const char *call, size_t n, const std::string &more = "")
{
    return std::string("symh_") + type + "_" + call + " of " + std::to_string(n) + more;
}

template <typename T>
void broadcast_case(const TeamModel &t, const MoveFns<T> &f, size_t n, int root, bool in_place)
{
    std::string what = name_of(f.type, "broadcast", n,
                               ", root " + std::to_string(root) + (in_place ? ", in place" : ""));
    unsigned salt = salt_of(what + t.name);
    T *dst = reinterpret_cast<T *>(suite->dst);
    T *src = in_place ? dst : reinterpret_cast<T *>(suite->src);
    bool is_root = t.index_of(me()) == root;
    Expect<T> e;
    e.span = n;
    for (size_t k = 0; k < n; ++k)
        e.want.push_back(gen<T>(Gen::MOVE, t.members[(size_t)root], k, salt));
    poison_dest(dst, n);
    if (!in_place || is_root)
        fill(src, n, Gen::MOVE, salt);
    run_case(t, what, dst, e, [&] { return f.broadcast(t.team, dst, src, n, root); });
}

// Each member's count: n plus 0, 1 or 2 by its team number; with `some_empty`, every other
// member contributes nothing.
size_t collect_count(size_t n, int i, bool some_empty)
{
    if (some_empty)
        return i % 2 ? 0 : n;
    return n == 0 ? 0 : n + (size_t)(i % 3);
}

template <typename T>
void collect_case(const TeamModel &t, const MoveFns<T> &f, size_t n, bool some_empty = false)
{
    std::string what = name_of(f.type, "collect", n, some_empty ? ", every other PE empty" : "");
    unsigned salt = salt_of(what + t.name);
    T *dst = reinterpret_cast<T *>(suite->dst), *src = reinterpret_cast<T *>(suite->src);
    Expect<T> e;
    for (int j = 0; j < t.size(); ++j)
        for (size_t k = 0; k < collect_count(n, j, some_empty); ++k)
            e.want.push_back(gen<T>(Gen::MOVE, t.members[(size_t)j], k, salt));
    e.span = e.want.size();
    size_t mine = collect_count(n, t.index_of(me()), some_empty);
    poison_dest(dst, e.span);
    fill(src, mine, Gen::MOVE, salt);
    run_case(t, what, dst, e, [&] { return f.collect(t.team, dst, src, mine); });
}

template <typename T> void fcollect_case(const TeamModel &t, const MoveFns<T> &f, size_t n)
{
    std::string what = name_of(f.type, "fcollect", n);
    unsigned salt = salt_of(what + t.name);
    T *dst = reinterpret_cast<T *>(suite->dst), *src = reinterpret_cast<T *>(suite->src);
    Expect<T> e;
    for (int j = 0; j < t.size(); ++j)
        for (size_t k = 0; k < n; ++k)
            e.want.push_back(gen<T>(Gen::MOVE, t.members[(size_t)j], k, salt));
    e.span = e.want.size();
    poison_dest(dst, e.span);
    fill(src, n, Gen::MOVE, salt);
    run_case(t, what, dst, e, [&] { return f.fcollect(t.team, dst, src, n); });
}

// alltoall (dst_stride 0) or alltoalls: source[sst * (j * n + k)] of team PE i goes to
// dest[dst * (i * n + k)] of team PE j.
template <typename T>
void alltoall_case(const TeamModel &t, const MoveFns<T> &f, size_t n, ptrdiff_t dst_stride = 0,
                   ptrdiff_t src_stride = 0)
{
    bool strided = dst_stride != 0;
    size_t ds = strided ? (size_t)dst_stride : 1, ss = strided ? (size_t)src_stride : 1;
    std::string what =
        name_of(f.type, strided ? "alltoalls" : "alltoall", n,
                strided ? ", dst " + std::to_string(ds) + ", sst " + std::to_string(ss) : "");
    unsigned salt = salt_of(what + t.name);
    T *dst = reinterpret_cast<T *>(suite->dst), *src = reinterpret_cast<T *>(suite->src);
    size_t total = (size_t)t.size() * n, me_t = (size_t)t.index_of(me());
    Expect<T> e;
    e.span = total ? ds * (total - 1) + 1 : 0;
    e.want.resize(e.span);
    e.written.assign(e.span, 0);
    for (size_t j = 0; j < (size_t)t.size(); ++j)
        for (size_t k = 0; k < n; ++k) {
            size_t at = ds * (j * n + k);
            e.want[at] = gen<T>(Gen::MOVE, t.members[j], ss * (me_t * n + k), salt);
            e.written[at] = 1;
        }
    poison_dest(dst, e.span);
    fill(src, total ? ss * (total - 1) + 1 : 0, Gen::MOVE, salt);
    run_case(t, what, dst, e, [&] {
        return strided ? f.alltoalls(t.team, dst, src, dst_stride, src_stride, n)
                       : f.alltoall(t.team, dst, src, n);
    });
}

enum class Move { BROADCAST, COLLECT, FCOLLECT, ALLTOALL, ALLTOALLS };

template <typename T> void move_cases(const TeamModel &t, const MoveFns<T> &f, Move kind)
{
    if (!type_selected(f.type, t))
        return;
    static const ptrdiff_t strides[][2] = { { 1, 1 }, { 2, 1 }, { 1, 3 }, { 3, 2 } };
    std::vector<size_t> ns = kind == Move::ALLTOALLS ? strided_counts() : counts();
    for (size_t i = 0; i < ns.size(); ++i) {
        switch (kind) {
        case Move::BROADCAST:
            broadcast_case(t, f, ns[i], (int)(i % (size_t)t.size()), false);
            if (ns[i] == 7 || ns[i] == 4099) // the root's dest is its source
                broadcast_case(t, f, ns[i], t.size() - 1, true);
            break;
        case Move::COLLECT:
            collect_case(t, f, ns[i]);
            if (ns[i] == 7)
                collect_case(t, f, ns[i], true);
            break;
        case Move::FCOLLECT:
            fcollect_case(t, f, ns[i]);
            break;
        case Move::ALLTOALL:
            alltoall_case(t, f, ns[i]);
            break;
        case Move::ALLTOALLS:
            alltoall_case(t, f, ns[i], strides[i % 4][0], strides[i % 4][1]);
            break;
        }
    }
}

#define SYMH_TEST_MOVE_CASES(NAME, TYPE) \
    move_cases<TYPE>(t, MoveFns<TYPE> SYMHTEST_MOVE_FNS(NAME), kind);

// Every standard RMA type and the bytes of the *mem form.
void move_all_types(const TeamModel &t, Move kind)
{
    SYMH_RMA_TYPES(SYMH_TEST_MOVE_CASES)
    move_cases<unsigned char>(t, mem_fns, kind);
}

// ---- reductions -----------------------------------------------------------------------------

template <typename T> using ReduceFn = int (*)(symh_team_t, T *, const T *, size_t);

const char *op_name(Op op)
{
    static const char *const names[] = { "and", "or", "xor", "max", "min", "sum", "prod" };
    return names[(int)op];
}

template <typename T>
void reduce_case(const TeamModel &t, const char *type, Op op, ReduceFn<T> fn, size_t n,
                 bool in_place)
{
    std::string what = std::string("symh_") + type + "_" + op_name(op) + "_reduce of " +
                       std::to_string(n) + (in_place ? ", in place" : "");
    unsigned salt = salt_of(what + t.name);
    Gen g = gen_of(op);
    T *dst = reinterpret_cast<T *>(suite->dst);
    T *src = in_place ? dst : reinterpret_cast<T *>(suite->src);
    Expect<T> e;
    e.span = n;
    e.want.resize(n);
    for (size_t k = 0; k < n; ++k) {
        T acc = gen<T>(g, t.members[0], k, salt);
        for (size_t j = 1; j < t.members.size(); ++j)
            acc = combine(op, acc, gen<T>(g, t.members[j], k, salt));
        e.want[k] = acc;
    }
    poison_dest(dst, n);
    fill(src, n, g, salt);
    run_case(t, what, dst, e, [&] { return fn(t.team, dst, src, n); });
}

template <typename T> void reduce_cases(const TeamModel &t, const char *type, Op op, ReduceFn<T> fn)
{
    if (!type_selected(type, t))
        return;
    for (size_t n : counts()) {
        reduce_case(t, type, op, fn, n, false);
        if (n == 7 || n == 4099)
            reduce_case(t, type, op, fn, n, true);
    }
}

#define SYMH_TEST_REDUCE_BITWISE(NAME, TYPE)                         \
    reduce_cases<TYPE>(t, #NAME, Op::AND, symh_##NAME##_and_reduce); \
    reduce_cases<TYPE>(t, #NAME, Op::OR, symh_##NAME##_or_reduce);   \
    reduce_cases<TYPE>(t, #NAME, Op::XOR, symh_##NAME##_xor_reduce);
#define SYMH_TEST_REDUCE_MINMAX(NAME, TYPE)                          \
    reduce_cases<TYPE>(t, #NAME, Op::MAX, symh_##NAME##_max_reduce); \
    reduce_cases<TYPE>(t, #NAME, Op::MIN, symh_##NAME##_min_reduce);
#define SYMH_TEST_REDUCE_ARITH(NAME, TYPE)                           \
    reduce_cases<TYPE>(t, #NAME, Op::SUM, symh_##NAME##_sum_reduce); \
    reduce_cases<TYPE>(t, #NAME, Op::PROD, symh_##NAME##_prod_reduce);

// ---- before init ----------------------------------------------------------------------------

class CollectivesBeforeInit : public SymhTest
{
};

TEST_F(CollectivesBeforeInit, EveryKindFailsCleanly)
{
    long a[4] = { 0 }, b[4] = { 0 };
    std::vector<std::function<int()>> calls = {
        [&] { return symh_long_broadcast(SYMH_TEAM_WORLD, a, b, 1, 0); },
        [&] { return symh_long_collect(SYMH_TEAM_WORLD, a, b, 1); },
        [&] { return symh_long_fcollect(SYMH_TEAM_WORLD, a, b, 1); },
        [&] { return symh_long_alltoall(SYMH_TEAM_WORLD, a, b, 1); },
        [&] { return symh_long_alltoalls(SYMH_TEAM_WORLD, a, b, 1, 1, 1); },
        [&] { return symh_long_sum_reduce(SYMH_TEAM_WORLD, a, b, 1); },
        [&] { return symh_broadcastmem(SYMH_TEAM_WORLD, a, b, 8, 0); },
    };
    for (size_t i = 0; i < calls.size(); ++i) {
        int status = 0;
        std::string log = symh_captured_log([&] { status = calls[i](); });
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, status) << "call " << i;
        EXPECT_EQ(1u, log_lines(log)) << "call " << i << ": " << log;
    }
}

// ---- initialized: every collective, type and team -------------------------------------------

class Collectives : public SymhTest
{
  protected:
    static void SetUpTestSuite()
    {
        ASSERT_EQ(SYMH_OK, symh_init());
        make_suite();
    }
    static void TearDownTestSuite()
    {
        drop_suite();
        symh_finalize();
    }
};

TEST_F(Collectives, BroadcastEveryTypeOnEveryTeam)
{
    for_each_team([](const TeamModel &t) { move_all_types(t, Move::BROADCAST); });
}

TEST_F(Collectives, CollectEveryTypeOnEveryTeam)
{
    for_each_team([](const TeamModel &t) { move_all_types(t, Move::COLLECT); });
}

TEST_F(Collectives, FcollectEveryTypeOnEveryTeam)
{
    for_each_team([](const TeamModel &t) { move_all_types(t, Move::FCOLLECT); });
}

TEST_F(Collectives, AlltoallEveryTypeOnEveryTeam)
{
    for_each_team([](const TeamModel &t) { move_all_types(t, Move::ALLTOALL); });
}

TEST_F(Collectives, AlltoallsEveryTypeOnEveryTeam)
{
    for_each_team([](const TeamModel &t) { move_all_types(t, Move::ALLTOALLS); });
}

// Every pair of strides 1, 2 and 3, in three types of other sizes and in bytes.
TEST_F(Collectives, AlltoallsEveryStridePair)
{
    const MoveFns<long> lf = SYMHTEST_MOVE_FNS(long);
    const MoveFns<short> sf = SYMHTEST_MOVE_FNS(short);
    const MoveFns<long double> ldf = SYMHTEST_MOVE_FNS(longdouble);
    std::vector<size_t> ns = { 1, 5, 300 };
    if (quick())
        ns = { 1, 5 };
    for_each_team([&](const TeamModel &t) {
        for (ptrdiff_t ds = 1; ds <= 3; ++ds)
            for (ptrdiff_t ss = 1; ss <= 3; ++ss)
                for (size_t n : ns) {
                    alltoall_case(t, lf, n, ds, ss);
                    alltoall_case(t, mem_fns, n, ds, ss);
                    if (!quick()) {
                        alltoall_case(t, sf, n, ds, ss);
                        alltoall_case(t, ldf, n, ds, ss);
                    }
                }
    });
}

// Every root of each team (a few counts, two types).
TEST_F(Collectives, BroadcastFromEveryRoot)
{
    const MoveFns<long> lf = SYMHTEST_MOVE_FNS(long);
    for_each_team([&](const TeamModel &t) {
        for (int root = 0; root < t.size(); ++root) {
            broadcast_case(t, lf, 3, root, false);
            broadcast_case(t, mem_fns, 13, root, false);
            broadcast_case(t, lf, 5, root, true);
        }
    });
}

TEST_F(Collectives, BitwiseReductionsOfEveryTypeOnEveryTeam)
{
    for_each_team([](const TeamModel &t) { SYMH_REDUCE_BITWISE_TYPES(SYMH_TEST_REDUCE_BITWISE) });
}

TEST_F(Collectives, MaxMinReductionsOfEveryTypeOnEveryTeam)
{
    for_each_team([](const TeamModel &t) { SYMH_REDUCE_MINMAX_TYPES(SYMH_TEST_REDUCE_MINMAX) });
}

TEST_F(Collectives, SumProdReductionsOfEveryTypeOnEveryTeam)
{
    for_each_team([](const TeamModel &t) { SYMH_REDUCE_MINMAX_TYPES(SYMH_TEST_REDUCE_ARITH) });
}

TEST_F(Collectives, ComplexSumProdReductionsOnEveryTeam)
{
    for_each_team([](const TeamModel &t) {
        for (size_t n : { (size_t)1, (size_t)3, (size_t)1000, (size_t)4099 }) {
            char why[512] = "";
            ASSERT_EQ(0, symh_test_coll_complex(t.team, t.members.data(), t.size(), (int)n,
                                                suite->dst, suite->src, n, why, sizeof(why)))
                << why << " on " << t.name;
        }
    });
}

// Far more data than a team's scratch (SYMH_COLL_SCRATCH, 64 KiB by default): 100,000 longs
// (800 KB; 40,000 in quick mode) through every kind, 300,000 (2.4 MB) summed on the world, and
// counts around the scratch's size in elements. The library must pipeline.
TEST_F(Collectives, LargeCountsGoThroughWhole)
{
    const MoveFns<long> lf = SYMHTEST_MOVE_FNS(long);
    const size_t big = quick() ? 40000 : 100000;
    std::vector<std::string> only = { "world", "even PEs", "grid of 3 columns row",
                                      "every other PE of the tail" };
    if (quick())
        only = { "world", "even PEs" };
    for_each_team(
        [&](const TeamModel &t) {
            size_t size = (size_t)t.size();
            if (t.name == "world")
                reduce_case<long>(t, "long", Op::SUM, symh_long_sum_reduce, 300000, false);
            for (size_t n : { (size_t)8191, (size_t)8192, (size_t)8193, (size_t)16385 })
                reduce_case<long>(t, "long", Op::SUM, symh_long_sum_reduce, n, false);
            broadcast_case(t, lf, big, t.size() - 1, false);
            broadcast_case(t, lf, big, 0, true);
            fcollect_case(t, lf, big / size + 1);
            collect_case(t, lf, big / size / 2 + 17);
            alltoall_case(t, lf, big / size + 3);
            if (!quick())
                alltoall_case(t, lf, big / size / 4 + 1, 2, 1);
            reduce_case<long>(t, "long", Op::SUM, symh_long_sum_reduce, big, true);
            reduce_case<unsigned long>(t, "ulong", Op::XOR, symh_ulong_xor_reduce, big, false);
            reduce_case<double>(t, "double", Op::PROD, symh_double_prod_reduce, big, true);
            reduce_case<unsigned char>(t, "uchar", Op::MAX, symh_uchar_max_reduce, 3 * big, false);
        },
        only);
}

// Two disjoint teams (the even and the other PEs) reduce and broadcast at the same time, each
// with its own data: neither sees the other's.
TEST_F(Collectives, DisjointTeamsAtTheSameTimeStayApart)
{
    int n = npes();
    TeamModel w;
    w.name = "world";
    w.team = SYMH_TEAM_WORLD;
    w.members = world_members();
    TeamModel even = split(w, "even", 0, 2, (n + 1) / 2);
    TeamModel odd = n > 1 ? split(w, "odd", 1, 2, n / 2) : TeamModel();
    const TeamModel &mine = even.has_me() ? even : odd;
    symh_barrier_all();
    for (int round = 0; round < 200; ++round) {
        reduce_case<long>(mine, "long", Op::SUM, symh_long_sum_reduce, 1 + (size_t)round % 9,
                          false);
        broadcast_case(mine, mem_fns, 1 + (size_t)round % 17, round % mine.size(), false);
    }
    symh_barrier_all();
    if (odd.team != SYMH_TEAM_INVALID)
        symh_team_destroy(odd.team);
    if (even.team != SYMH_TEAM_INVALID)
        symh_team_destroy(even.team);
}

// ---- misuse ---------------------------------------------------------------------------------

// Every kind of collective, with `team`, `root` for the broadcasts and the strides `ds`, `ss`.
std::vector<std::pair<std::string, std::function<int()>>>
every_kind(symh_team_t team, int root, ptrdiff_t ds = 1, ptrdiff_t ss = 1)
{
    long *d = reinterpret_cast<long *>(suite->dst), *s = reinterpret_cast<long *>(suite->src);
    return {
        { "symh_long_broadcast", [=] { return symh_long_broadcast(team, d, s, 4, root); } },
        { "symh_broadcastmem", [=] { return symh_broadcastmem(team, d, s, 4, root); } },
        { "symh_long_collect", [=] { return symh_long_collect(team, d, s, 4); } },
        { "symh_collectmem", [=] { return symh_collectmem(team, d, s, 4); } },
        { "symh_long_fcollect", [=] { return symh_long_fcollect(team, d, s, 4); } },
        { "symh_fcollectmem", [=] { return symh_fcollectmem(team, d, s, 4); } },
        { "symh_long_alltoall", [=] { return symh_long_alltoall(team, d, s, 4); } },
        { "symh_alltoallmem", [=] { return symh_alltoallmem(team, d, s, 4); } },
        { "symh_long_alltoalls", [=] { return symh_long_alltoalls(team, d, s, ds, ss, 4); } },
        { "symh_alltoallsmem", [=] { return symh_alltoallsmem(team, d, s, ds, ss, 4); } },
        { "symh_long_sum_reduce", [=] { return symh_long_sum_reduce(team, d, s, 4); } },
        { "symh_int_max_reduce",
          [=] { return symh_int_max_reduce(team, (int *)d, (const int *)s, 4); } },
        { "symh_uint64_xor_reduce",
          [=] { return symh_uint64_xor_reduce(team, (uint64_t *)d, (const uint64_t *)s, 4); } },
        { "symh_double_prod_reduce",
          [=] { return symh_double_prod_reduce(team, (double *)d, (const double *)s, 4); } },
    };
}

bool dest_untouched()
{
    for (size_t b = 0; b < watch_bytes; ++b)
        if (suite->dst[b] != poison)
            return false;
    return true;
}

// SYMH_TEAM_INVALID and a destroyed team: SYMH_ERR_INVALID_ARG and one line from every call on
// every PE, at once (nothing to wait for), dest untouched.
TEST_F(Collectives, InvalidOrDestroyedTeamIsRefusedWithoutHanging)
{
    symh_team_t gone = SYMH_TEAM_INVALID;
    ASSERT_EQ(SYMH_OK, symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, npes(), nullptr, 0, &gone));
    symh_team_destroy(gone);
    for (symh_team_t team : { SYMH_TEAM_INVALID, gone }) {
        memset(suite->dst, poison, watch_bytes);
        for (auto &call : every_kind(team, 0)) {
            int status = 0;
            std::string log = symh_captured_log([&] { status = call.second(); });
            EXPECT_EQ(SYMH_ERR_INVALID_ARG, status) << call.first;
            EXPECT_EQ(1u, log_lines(log)) << call.first << ": " << log;
        }
        EXPECT_TRUE(dest_untouched());
    }
    // The world goes on.
    symh_barrier_all();
    broadcast_case(suite->teams[0], mem_fns, 9, npes() - 1, false);
}

// A root out of range, strides below 1, a NULL dest: SYMH_ERR_INVALID_ARG on every member (each
// checks locally), dest untouched, at most one line per PE and at least one for the job, and the
// team still in step.
TEST_F(Collectives, BadRootStridesOrDestFailOnEveryMember)
{
    const MoveFns<long> lf = SYMHTEST_MOVE_FNS(long);
    long *d = reinterpret_cast<long *>(suite->dst), *s = reinterpret_cast<long *>(suite->src);
    for (const TeamModel &t : suite->teams) {
        symh_team_t team = t.team;
        int size = t.size();
        std::vector<std::pair<std::string, std::function<int()>>> bad = {
            { "root -1", [=] { return symh_long_broadcast(team, d, s, 4, -1); } },
            { "root n_pes", [=] { return symh_long_broadcast(team, d, s, 4, size); } },
            { "mem root n_pes", [=] { return symh_broadcastmem(team, d, s, 4, size); } },
            { "dst 0", [=] { return symh_long_alltoalls(team, d, s, 0, 1, 4); } },
            { "sst 0", [=] { return symh_long_alltoalls(team, d, s, 1, 0, 4); } },
            { "sst -1", [=] { return symh_alltoallsmem(team, d, s, 1, -1, 4); } },
            { "NULL dest", [=] { return symh_long_sum_reduce(team, nullptr, s, 4); } },
            { "NULL dest fcollect", [=] { return symh_long_fcollect(team, nullptr, s, 4); } },
        };
        for (auto &b : bad) {
            memset(suite->dst, poison, watch_bytes);
            symh_barrier_all();
            int status = SYMH_ERR_INVALID_ARG;
            std::string log = symh_captured_log([&] {
                if (t.has_me())
                    status = b.second();
            });
            EXPECT_EQ(SYMH_ERR_INVALID_ARG, status) << b.first << " on " << t.name;
            EXPECT_LE(log_lines(log), 1u) << b.first << " on " << t.name << ": " << log;
            EXPECT_GE(job_lines(log), 1) << b.first << " on " << t.name;
            EXPECT_TRUE(dest_untouched()) << b.first << " on " << t.name;
        }
        symh_barrier_all();
        if (t.has_me())
            fcollect_case(t, lf, 5);
        symh_barrier_all();
    }
}

// ---- liveness -------------------------------------------------------------------------------

// 10,000 collectives of mixed kinds and small sizes back to back on the world (2,000 in quick
// mode: over a NIC each takes about a millisecond at 4 PEs on 2 cores), every result checked. Each
// kind has its own dest, and every cycle of six starts with the team's sync, so no call writes a
// dest its owner still reads. A collective whose waits spin instead of yielding (8 PEs on 2 cores)
// or that loses a wake-up fails by the CTest timeout.
TEST_F(Collectives, TenThousandMixedCollectivesFinish)
{
    const int n = npes(), me_ = me();
    long *src = reinterpret_cast<long *>(suite->src);
    long *bcast = reinterpret_cast<long *>(suite->dst);
    long *fcol = bcast + 64, *sum = fcol + 2 * (size_t)n, *a2a = sum + 64;
    int *imax = reinterpret_cast<int *>(a2a + (size_t)n + 64);
    int *isrc = reinterpret_cast<int *>(src + 2 * (size_t)n + 64);
    const int calls = quick() ? 2000 : 10000;
    for (int call = 0, cycle = 0; call < calls; ++cycle) {
        long c = cycle;
        for (int i = 0; i < 2 * n + 4; ++i)
            src[i] = c * 1000 + me_ * 10 + i;
        ASSERT_EQ(SYMH_OK, symh_team_sync(SYMH_TEAM_WORLD)) << "call " << call;
        int root = cycle % n;
        ASSERT_EQ(SYMH_OK, symh_long_broadcast(SYMH_TEAM_WORLD, bcast, src, 4, root));
        for (int i = 0; i < 4; ++i)
            ASSERT_EQ(c * 1000 + root * 10 + i, bcast[i]) << "broadcast, call " << call;
        ASSERT_EQ(SYMH_OK, symh_long_fcollect(SYMH_TEAM_WORLD, fcol, src, 2));
        for (int pe = 0; pe < n; ++pe)
            for (int i = 0; i < 2; ++i)
                ASSERT_EQ(c * 1000 + pe * 10 + i, fcol[2 * pe + i]) << "fcollect, call " << call;
        ASSERT_EQ(SYMH_OK, symh_long_sum_reduce(SYMH_TEAM_WORLD, sum, src, 3));
        for (int i = 0; i < 3; ++i)
            ASSERT_EQ(n * (c * 1000 + i) + 10L * n * (n - 1) / 2, sum[i]) << "sum, call " << call;
        ASSERT_EQ(SYMH_OK, symh_long_alltoall(SYMH_TEAM_WORLD, a2a, src, 1));
        for (int pe = 0; pe < n; ++pe)
            ASSERT_EQ(c * 1000 + pe * 10 + me_, a2a[pe]) << "alltoall, call " << call;
        isrc[0] = (int)(cycle % 7) * 100 + me_;
        ASSERT_EQ(SYMH_OK, symh_int_max_reduce(SYMH_TEAM_WORLD, imax, isrc, 1)) << "call " << call;
        ASSERT_EQ((int)(cycle % 7) * 100 + n - 1, imax[0]) << "max, call " << call;
        call += 6;
    }
}

// Every kind back to back with no sync between the calls, and a member a few milliseconds late in
// turn. Over the NIC the small calls end without a sync (through the banks of coll_ops.c, a sync
// when the scratch or the header rows run out): no call may reuse a bank that a late member
// still reads. Large calls (past a
// bank of the default scratch) are mixed in; they write dests directly. Each call has a dest of
// its own (the specification leaves a dest's reuse to the program: it must be ready to accept the
// data on every member), and every result is checked.
TEST_F(Collectives, BackToBackWithALateMember)
{
    for_each_team([](const TeamModel &t) {
        const int n = t.size(), mine = t.index_of(me());
        long *src = reinterpret_cast<long *>(suite->src);
        long *next = reinterpret_cast<long *>(suite->dst);
        const size_t big = 2100; // fcollect of 16.8 KB per member: past a 16 KiB bank
        auto fresh = [&](size_t count) {
            long *at = next;
            next += (count + 7) / 8 * 8;
            return at;
        };
        for (int it = 0; it < 12; ++it) {
            auto late = [&](int k) {
                if (it % 3 == 0 && (it + k) % n == mine)
                    std::this_thread::sleep_for(std::chrono::milliseconds(3));
            };
            auto val = [&](int pe, size_t i) { return it * 100000L + pe * 1000L + (long)i; };
            for (size_t i = 0; i < big; ++i)
                src[i] = val(mine, i);
            int root = it % n;
            long *dst = fresh(5);
            late(0);
            ASSERT_EQ(SYMH_OK, symh_long_broadcast(t.team, dst, src, 5, root));
            for (size_t i = 0; i < 5; ++i)
                ASSERT_EQ(val(root, i), dst[i]) << "broadcast " << it << " on " << t.name;
            // A burst from one root, which waits for nobody: it runs ahead of a late member by
            // as many calls as the banks allow.
            long *burst = fresh(10 * 3);
            if (it % 2 == 0 && (root + 1) % n == mine)
                std::this_thread::sleep_for(std::chrono::milliseconds(3));
            for (int k = 0; k < 10; ++k)
                ASSERT_EQ(SYMH_OK, symh_long_broadcast(t.team, burst + 3 * k, src + k, 3, root));
            for (int k = 0; k < 10; ++k)
                for (size_t i = 0; i < 3; ++i)
                    ASSERT_EQ(val(root, (size_t)k + i), burst[3 * k + i])
                        << "broadcast " << k << " of a burst " << it << " on " << t.name;
            // And a burst of broadcasts of 12 KiB each, more than the whole scratch (64 KiB) in
            // all: the root must not take a bank's bytes again before the late member read them.
            const size_t mid = 1536;
            long *wide = fresh(10 * mid);
            if (it % 2 == 1 && (root + 1) % n == mine)
                std::this_thread::sleep_for(std::chrono::milliseconds(3));
            for (int k = 0; k < 10; ++k)
                ASSERT_EQ(SYMH_OK, symh_long_broadcast(t.team, wide + mid * k, src + k, mid, root));
            for (int k = 0; k < 10; ++k)
                for (size_t i : { (size_t)0, mid - 1 })
                    ASSERT_EQ(val(root, (size_t)k + i), wide[mid * k + i])
                        << "broadcast " << k << " of a wide burst " << it << " on " << t.name;
            dst = fresh(3 * (size_t)n);
            late(1);
            ASSERT_EQ(SYMH_OK, symh_long_fcollect(t.team, dst, src, 3));
            for (int pe = 0; pe < n; ++pe)
                for (size_t i = 0; i < 3; ++i)
                    ASSERT_EQ(val(pe, i), dst[3 * pe + i]) << "fcollect " << it << " on " << t.name;
            dst = fresh(4);
            late(2);
            ASSERT_EQ(SYMH_OK, symh_long_sum_reduce(t.team, dst, src, 4));
            for (size_t i = 0; i < 4; ++i) {
                long want = 0;
                for (int pe = 0; pe < n; ++pe)
                    want += val(pe, i);
                ASSERT_EQ(want, dst[i]) << "sum " << it << " on " << t.name;
            }
            dst = fresh(2 * (size_t)n);
            late(3);
            ASSERT_EQ(SYMH_OK, symh_long_alltoall(t.team, dst, src, 2));
            for (int pe = 0; pe < n; ++pe)
                for (size_t i = 0; i < 2; ++i)
                    ASSERT_EQ(val(pe, 2 * (size_t)mine + i), dst[2 * pe + i])
                        << "alltoall " << it << " on " << t.name;
            dst = fresh(big * (size_t)n);
            late(4);
            ASSERT_EQ(SYMH_OK, symh_long_fcollect(t.team, dst, src, big));
            for (int pe = 0; pe < n; ++pe)
                for (size_t i : { (size_t)0, big / 2, big - 1 })
                    ASSERT_EQ(val(pe, i), dst[big * pe + i])
                        << "large fcollect " << it << " on " << t.name;
            dst = fresh((size_t)n * (size_t)(n + 1) / 2);
            late(5);
            ASSERT_EQ(SYMH_OK, symh_long_collect(t.team, dst, src, (size_t)mine + 1));
            for (int pe = 0, at = 0; pe < n; at += ++pe)
                for (int i = 0; i <= pe; ++i)
                    ASSERT_EQ(val(pe, (size_t)i), dst[at + i])
                        << "collect " << it << " on " << t.name;
            dst = fresh(big);
            late(6);
            ASSERT_EQ(SYMH_OK, symh_long_broadcast(t.team, dst, src, big, root));
            for (size_t i : { (size_t)0, big - 1 })
                ASSERT_EQ(val(root, i), dst[i]) << "large broadcast " << it << " on " << t.name;
        }
    });
}

// ---- SYMH_CHECK_COLLECTIVES=1 ---------------------------------------------------------------

// The suite sets SYMH_CHECK_COLLECTIVES=1 before its own symh_init: the members agree on the
// arguments first, and any difference is SYMH_ERR_MISMATCH on every member with one line for
// the job, nothing moved, and the next call in step works.
class CollCheck : public SymhTest
{
  protected:
    static void SetUpTestSuite()
    {
        setenv("SYMH_CHECK_COLLECTIVES", "1", 1);
        ASSERT_EQ(SYMH_OK, symh_init());
        make_suite();
    }
    static void TearDownTestSuite()
    {
        drop_suite();
        symh_finalize();
        unsetenv("SYMH_CHECK_COLLECTIVES");
    }

    // Runs call(odd) on the members of `t`, with odd true on its last member; expects every
    // member to fail with SYMH_ERR_MISMATCH, one line for the job, no dest changed; then a
    // call in step works. Collective over the world.
    template <typename F> static void expect_mismatch(const TeamModel &t, const char *what, F call)
    {
        memset(suite->dst, poison, watch_bytes);
        symh_barrier_all();
        int status = SYMH_ERR_MISMATCH;
        std::string log = symh_captured_log([&] {
            if (t.has_me())
                status = call(me() == t.members.back());
        });
        EXPECT_EQ(SYMH_ERR_MISMATCH, status) << what << " on " << t.name;
        EXPECT_EQ(npes(), count_pes(status == SYMH_ERR_MISMATCH)) << what;
        EXPECT_EQ(1, job_lines(log)) << what << " on " << t.name << ": " << log;
        EXPECT_TRUE(dest_untouched()) << what << " on " << t.name;
        symh_barrier_all();
        if (t.has_me())
            reduce_case<long>(t, "long", Op::SUM, symh_long_sum_reduce, 5, false);
        symh_barrier_all();
    }
};

TEST_F(CollCheck, CallsInStepStillWork)
{
    const MoveFns<int> f = { "int",
                             symh_int_broadcast,
                             symh_int_collect,
                             symh_int_fcollect,
                             symh_int_alltoall,
                             symh_int_alltoalls };
    for_each_team([&](const TeamModel &t) {
        broadcast_case(t, f, 7, t.size() - 1, false);
        collect_case(t, f, 7);
        collect_case(t, f, 3, true); // counts differ by PE: no mismatch
        fcollect_case(t, f, 7);
        alltoall_case(t, f, 7);
        alltoall_case(t, f, 7, 2, 3);
        reduce_case<int>(t, "int", Op::MAX, symh_int_max_reduce, 7, false);
        reduce_case<int>(t, "int", Op::SUM, symh_int_sum_reduce, 7, true);
        broadcast_case(t, mem_fns, 4099, 0, false);
    });
}

TEST_F(CollCheck, EveryArgumentThatDiffersIsAMismatchEverywhere)
{
    // Teams of the same size on every PE (so every PE skips the same ones).
    std::vector<std::string> teams = { "world", "even PEs", "every other PE of the tail" };
    for (const TeamModel &t : suite->teams) {
        if (std::find(teams.begin(), teams.end(), t.name) == teams.end())
            continue;
        if (t.size() < 2)
            continue; // one member cannot disagree with itself
        long *d = reinterpret_cast<long *>(suite->dst), *s = reinterpret_cast<long *>(suite->src);
        symh_team_t team = t.team;
        expect_mismatch(t, "root",
                        [&](bool odd) { return symh_long_broadcast(team, d, s, 4, odd ? 0 : 1); });
        expect_mismatch(t, "broadcast nelems",
                        [&](bool odd) { return symh_long_broadcast(team, d, s, odd ? 5 : 4, 0); });
        expect_mismatch(t, "broadcastmem nelems",
                        [&](bool odd) { return symh_broadcastmem(team, d, s, odd ? 31 : 32, 0); });
        expect_mismatch(t, "fcollect nelems",
                        [&](bool odd) { return symh_long_fcollect(team, d, s, odd ? 3 : 4); });
        expect_mismatch(t, "alltoall nelems",
                        [&](bool odd) { return symh_long_alltoall(team, d, s, odd ? 1 : 2); });
        expect_mismatch(t, "alltoalls nelems", [&](bool odd) {
            return symh_long_alltoalls(team, d, s, 1, 1, odd ? 1 : 2);
        });
        expect_mismatch(t, "alltoalls dst", [&](bool odd) {
            return symh_long_alltoalls(team, d, s, odd ? 2 : 1, 1, 2);
        });
        expect_mismatch(t, "alltoalls sst", [&](bool odd) {
            return symh_long_alltoalls(team, d, s, 1, odd ? 3 : 1, 2);
        });
        expect_mismatch(t, "reduce nelems",
                        [&](bool odd) { return symh_long_sum_reduce(team, d, s, odd ? 7 : 6); });
        expect_mismatch(t, "long_sum vs long_max", [&](bool odd) {
            return odd ? symh_long_max_reduce(team, d, s, 4) : symh_long_sum_reduce(team, d, s, 4);
        });
        expect_mismatch(t, "long_sum vs ulong_sum", [&](bool odd) {
            return odd ? symh_ulong_sum_reduce(team, (unsigned long *)d, (unsigned long *)s, 4)
                       : symh_long_sum_reduce(team, d, s, 4);
        });
        expect_mismatch(t, "long_sum vs int_sum", [&](bool odd) {
            return odd ? symh_int_sum_reduce(team, (int *)d, (int *)s, 4)
                       : symh_long_sum_reduce(team, d, s, 4);
        });
        expect_mismatch(t, "long_sum vs double_sum", [&](bool odd) {
            return odd ? symh_double_sum_reduce(team, (double *)d, (double *)s, 4)
                       : symh_long_sum_reduce(team, d, s, 4);
        });
        expect_mismatch(t, "uint64_and vs uint64_or", [&](bool odd) {
            return odd ? symh_uint64_or_reduce(team, (uint64_t *)d, (uint64_t *)s, 4)
                       : symh_uint64_and_reduce(team, (uint64_t *)d, (uint64_t *)s, 4);
        });
        expect_mismatch(t, "fcollect vs alltoall", [&](bool odd) {
            return odd ? symh_long_alltoall(team, d, s, 2) : symh_long_fcollect(team, d, s, 2);
        });
        expect_mismatch(t, "broadcast vs sum_reduce", [&](bool odd) {
            return odd ? symh_long_sum_reduce(team, d, s, 4)
                       : symh_long_broadcast(team, d, s, 4, 0);
        });
        expect_mismatch(t, "collect vs fcollect", [&](bool odd) {
            return odd ? symh_long_collect(team, d, s, 4) : symh_long_fcollect(team, d, s, 4);
        });
    }
}

// One PE names another team of the same PEs (a copy of the world) than the others: the check's
// records go through every PE's mailbox, not the team's slot, so they meet and see it.
TEST_F(CollCheck, AnotherTeamOfTheSamePesIsAMismatch)
{
    TeamModel w = suite->teams[0];
    symh_team_t dup = SYMH_TEAM_INVALID;
    ASSERT_EQ(SYMH_OK, symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, npes(), nullptr, 0, &dup));
    long *d = reinterpret_cast<long *>(suite->dst), *s = reinterpret_cast<long *>(suite->src);
    expect_mismatch(w, "team", [&](bool odd) {
        return symh_long_sum_reduce(odd ? dup : SYMH_TEAM_WORLD, d, s, 4);
    });
    symh_team_destroy(dup);
}

} // namespace
