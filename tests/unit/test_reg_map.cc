// Unit tests of the registry's interval map (src/registration/reg_map.c) through
// tests/shim/shim_reg.h: every insert case, lookups at the edges and in gaps, remove by start and
// interior address, remove_if, a long random sequence against a brute-force model, and lookups
// racing a writer (run under TSan in the thread-sanitizer build).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <symheap/status.h>

#include "shim_fault.h"
#include "shim_reg.h"
#include "symh_gtest.hpp"

namespace
{

symh_shim_reg_entry_t make_entry(uintptr_t base, size_t length, int kind = 1, int device = 0,
                                 const char *label = "")
{
    symh_shim_reg_entry_t e;

    std::memset(&e, 0, sizeof(e));
    e.base = base;
    e.length = length;
    e.kind = kind;
    e.device = device;
    std::snprintf(e.label, sizeof(e.label), "%s", label);
    e.owner = reinterpret_cast<void *>(base ^ 0x5a5a);
    e.mem = reinterpret_cast<void *>(length);
    e.tl_handles[0] = reinterpret_cast<void *>(base + 1);
    e.tl_handles[1] = reinterpret_cast<void *>(base + 2);
    return e;
}

bool same_entry(const symh_shim_reg_entry_t &a, const symh_shim_reg_entry_t &b)
{
    return a.base == b.base && a.length == b.length && a.kind == b.kind && a.device == b.device &&
           std::strcmp(a.label, b.label) == 0 && a.owner == b.owner && a.mem == b.mem &&
           a.tl_handles[0] == b.tl_handles[0] && a.tl_handles[1] == b.tl_handles[1];
}

class RegMapTest : public SymhTest
{
  protected:
    void SetUp() override
    {
        SymhTest::SetUp();
        ASSERT_EQ(SYMH_OK, symh_shim_reg_map_create(&map_));
    }
    void TearDown() override
    {
        if (map_ != nullptr) {
            EXPECT_EQ(SYMH_OK, symh_shim_reg_map_check(map_));
            symh_shim_reg_map_destroy(map_);
        }
        SymhTest::TearDown();
    }
    int insert(uintptr_t base, size_t length, symh_shim_reg_entry_t *conflict = nullptr)
    {
        symh_shim_reg_entry_t e = make_entry(base, length);

        return symh_shim_reg_map_insert(map_, &e, conflict);
    }
    // The base of the range holding addr, or 0 when none does.
    uintptr_t find(uintptr_t addr)
    {
        symh_shim_reg_entry_t e;

        if (symh_shim_reg_map_lookup(map_, addr, &e) != SYMH_OK)
            return 0;
        EXPECT_TRUE(addr >= e.base && addr - e.base < e.length);
        return e.base;
    }

    symh_shim_reg_map_t *map_ = nullptr;
};

TEST_F(RegMapTest, EmptyMap)
{
    symh_shim_reg_entry_t e;

    EXPECT_EQ(0u, symh_shim_reg_map_count(map_));
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_reg_map_lookup(map_, 0x1000, &e));
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_reg_map_lookup(map_, 0, &e));
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_reg_map_remove(map_, 0x1000, &e));
}

TEST_F(RegMapTest, InsertRefusesZeroLengthAndOverflow)
{
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, insert(0x1000, 0));
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, insert(UINTPTR_MAX, 1));
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, insert(UINTPTR_MAX - 15, 17));
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, insert(1, SIZE_MAX));
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_reg_map_insert(map_, nullptr, nullptr));
    EXPECT_EQ(0u, symh_shim_reg_map_count(map_));
    // The very top of the address space is fine as long as base + length does not wrap.
    EXPECT_EQ(SYMH_OK, insert(UINTPTR_MAX - 16, 16));
    EXPECT_EQ(UINTPTR_MAX - 16, find(UINTPTR_MAX - 1));
    EXPECT_EQ(0u, find(UINTPTR_MAX));
    EXPECT_EQ(SYMH_OK, insert(0, 16));
    EXPECT_EQ(0u, find(0)); // found, base 0
    EXPECT_EQ(SYMH_OK, symh_shim_reg_map_lookup(map_, 0, nullptr));
    EXPECT_EQ(2u, symh_shim_reg_map_count(map_));
}

// The common insert (no pool grows) returns SYMH_OK whatever the stack held before it: the stack
// under the call is filled with a failure code first, so a status the insert leaves unset reads
// back as that code (symh_init failed in Debug builds that way) instead of a lucky zero.
TEST_F(RegMapTest, InsertReturnsOkWhateverTheStackHeld)
{
    for (uintptr_t i = 0; i < 64; ++i) {
        symh_shim_stack_stain(SYMH_ERR_NO_MEMORY);
        ASSERT_EQ(SYMH_OK, insert(0x10000 + i * 0x100, 0x10)) << "insert " << i;
    }
    EXPECT_EQ(64u, symh_shim_reg_map_count(map_));
}

TEST_F(RegMapTest, InsertRefusesEveryOverlapAndReportsTheLowest)
{
    symh_shim_reg_entry_t c;

    ASSERT_EQ(SYMH_OK, insert(0x1000, 0x1000)); // [0x1000, 0x2000)
    ASSERT_EQ(SYMH_OK, insert(0x3000, 0x1000)); // [0x3000, 0x4000)

    struct {
        uintptr_t base;
        size_t length;
        uintptr_t conflict;
        const char *what;
    } cases[] = {
        { 0x1000, 0x1000, 0x1000, "exact duplicate" },
        { 0x0800, 0x1000, 0x1000, "partial at the start" },
        { 0x1800, 0x1000, 0x1000, "partial at the end" },
        { 0x1100, 0x0100, 0x1000, "contained" },
        { 0x1000, 0x0001, 0x1000, "first byte" },
        { 0x1fff, 0x0001, 0x1000, "last byte" },
        { 0x0800, 0x2000, 0x1000, "containing" },
        { 0x0000, 0x8000, 0x1000, "containing both: the lowest is reported" },
        { 0x1800, 0x2000, 0x1000, "spanning the gap into the next" },
        { 0x2000, 0x1001, 0x3000, "filling the gap and one byte more" },
        { 0x2fff, 0x0002, 0x3000, "partial at the start of the second" },
        { 0x3000, 0x2000, 0x3000, "same base, longer" },
    };
    for (const auto &t : cases) {
        std::memset(&c, 0, sizeof(c));
        EXPECT_EQ(SYMH_ERR_OVERLAP, insert(t.base, t.length, &c)) << t.what;
        EXPECT_EQ(t.conflict, c.base) << t.what;
        EXPECT_TRUE(same_entry(make_entry(t.conflict, 0x1000), c)) << t.what;
        EXPECT_EQ(SYMH_ERR_OVERLAP, insert(t.base, t.length, nullptr)) << t.what;
    }
    EXPECT_EQ(2u, symh_shim_reg_map_count(map_));
    EXPECT_EQ(0x1000u, find(0x1000));
    EXPECT_EQ(0u, find(0x2000));
    EXPECT_EQ(0x3000u, find(0x3fff));
}

TEST_F(RegMapTest, AdjacentRangesAreAccepted)
{
    ASSERT_EQ(SYMH_OK, insert(0x2000, 0x1000));
    EXPECT_EQ(SYMH_OK, insert(0x1000, 0x1000)); // ends where the first starts
    EXPECT_EQ(SYMH_OK, insert(0x3000, 0x1000)); // starts where the first ends
    EXPECT_EQ(SYMH_OK, insert(0x0fff, 1));      // one byte just below the lowest
    EXPECT_EQ(SYMH_ERR_OVERLAP, insert(0x0fff, 1));
    EXPECT_EQ(SYMH_ERR_OVERLAP, insert(0x0ffe, 2));
    EXPECT_EQ(0x1000u, find(0x1fff));
    EXPECT_EQ(0x2000u, find(0x2000));
    EXPECT_EQ(0x2000u, find(0x2fff));
    EXPECT_EQ(0x3000u, find(0x3000));
    EXPECT_EQ(0x0fffu, find(0x0fff));
    EXPECT_EQ(0u, find(0x4000));
    EXPECT_EQ(4u, symh_shim_reg_map_count(map_));
}

TEST_F(RegMapTest, LookupStartInteriorLastByteOnePastAndGaps)
{
    symh_shim_reg_entry_t e, in = make_entry(0x10000, 0x100, 3, 7, "vmm buffer");

    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_insert(map_, &in, nullptr));
    ASSERT_EQ(SYMH_OK, insert(0x20000, 0x100));
    for (uintptr_t a : { 0x10000u, 0x10001u, 0x10080u, 0x100ffu }) {
        ASSERT_EQ(SYMH_OK, symh_shim_reg_map_lookup(map_, a, &e)) << a;
        EXPECT_TRUE(same_entry(in, e)) << a;
    }
    for (uintptr_t a : { 0x0u, 0xffffu, 0x10100u, 0x1ffffu, 0x20100u, 0x7fffffffu })
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_reg_map_lookup(map_, a, &e)) << a;
}

TEST_F(RegMapTest, RemoveByStartOrInteriorAddress)
{
    symh_shim_reg_entry_t e, in = make_entry(0x5000, 0x1000, 4, 2, "device");

    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_insert(map_, &in, nullptr));
    ASSERT_EQ(SYMH_OK, insert(0x7000, 0x1000));
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, 0x5000, &e));
    EXPECT_TRUE(same_entry(in, e));
    EXPECT_EQ(0u, find(0x5000));
    EXPECT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, 0x7fff, nullptr)); // the last byte
    EXPECT_EQ(0u, symh_shim_reg_map_count(map_));
    // The freed space takes new ranges, of any shape.
    EXPECT_EQ(SYMH_OK, insert(0x4800, 0x3000));
    EXPECT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, 0x6000, nullptr));
}

TEST_F(RegMapTest, RemoveOfUnknownOrRemovedAddress)
{
    symh_shim_reg_entry_t e;

    ASSERT_EQ(SYMH_OK, insert(0x1000, 0x100));
    e = make_entry(0xdead, 1);
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_reg_map_remove(map_, 0x1100, &e));
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_reg_map_remove(map_, 0x0fff, &e));
    EXPECT_EQ(0xdeadu, e.base) << "the output is written only on success";
    EXPECT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, 0x1010, nullptr));
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_reg_map_remove(map_, 0x1010, nullptr));
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_reg_map_remove(map_, 0x1000, nullptr));
}

int keep_even_device(const symh_shim_reg_entry_t *e, void *arg)
{
    ++*static_cast<int *>(arg);
    return e->device % 2 == 0;
}

int keep_none(const symh_shim_reg_entry_t *, void *)
{
    return 0;
}

TEST_F(RegMapTest, RemoveIfAndCount)
{
    int calls = 0;

    for (int i = 0; i < 1000; ++i) {
        symh_shim_reg_entry_t e = make_entry(0x100000 + 0x1000 * (uintptr_t)i, 0x800, 1, i);

        ASSERT_EQ(SYMH_OK, symh_shim_reg_map_insert(map_, &e, nullptr));
    }
    EXPECT_EQ(1000u, symh_shim_reg_map_count(map_));
    EXPECT_EQ(500u, symh_shim_reg_map_remove_if(map_, keep_even_device, &calls));
    EXPECT_EQ(1000, calls);
    EXPECT_EQ(500u, symh_shim_reg_map_count(map_));
    EXPECT_EQ(SYMH_OK, symh_shim_reg_map_check(map_));
    for (int i = 0; i < 1000; ++i)
        EXPECT_EQ(i % 2 == 0 ? 0x100000 + 0x1000 * (uintptr_t)i : 0,
                  find(0x100000 + 0x1000 * (uintptr_t)i + 0x7ff))
            << i;
    calls = 0;
    EXPECT_EQ(0u, symh_shim_reg_map_remove_if(map_, keep_even_device, &calls));
    EXPECT_EQ(500, calls);
    // The records freed by remove_if are reused.
    EXPECT_EQ(SYMH_OK, insert(0x100000 + 0x1000, 0x800));
    EXPECT_EQ(SYMH_OK, symh_shim_reg_map_check(map_));
    EXPECT_EQ(501u, symh_shim_reg_map_remove_if(map_, keep_none, nullptr));
    EXPECT_EQ(0u, symh_shim_reg_map_count(map_));
    EXPECT_EQ(0u, find(0x100000));
}

// The removal epoch (reg_map.h): every removal changes it (remove, take, a remove_if that removed
// something), nothing else does (insert, lookup, a failed remove, a remove_if that kept all), and
// two maps never share one, a map created where another was destroyed included.
TEST_F(RegMapTest, RemovalEpochChangesWithEveryRemovalAndNothingElse)
{
    uint64_t e0 = symh_shim_reg_map_epoch(map_);
    EXPECT_NE(0u, e0) << "0 is an empty hint's epoch";
    ASSERT_EQ(SYMH_OK, insert(0x1000, 0x100));
    ASSERT_EQ(SYMH_OK, insert(0x2000, 0x100));
    ASSERT_EQ(SYMH_OK, insert(0x3000, 0x100));
    EXPECT_NE(0x1000u, find(0x2000));
    EXPECT_EQ(e0, symh_shim_reg_map_epoch(map_)) << "inserts and lookups keep it";
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_reg_map_remove(map_, 0x5000, nullptr));
    EXPECT_EQ(SYMH_ERR_OVERLAP, insert(0x1080, 0x100));
    EXPECT_EQ(e0, symh_shim_reg_map_epoch(map_)) << "failed calls keep it";
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, 0x1010, nullptr));
    uint64_t e1 = symh_shim_reg_map_epoch(map_);
    EXPECT_NE(e0, e1) << "a removal by an interior address";
    symh_shim_reg_entry_t found;
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_take_device(map_, 0x2000, 0, &found));
    uint64_t e2 = symh_shim_reg_map_epoch(map_);
    EXPECT_NE(e1, e2) << "a take";
    EXPECT_EQ(0u, symh_shim_reg_map_remove_if(
                      map_, [](const symh_shim_reg_entry_t *, void *) { return 1; }, nullptr));
    EXPECT_EQ(e2, symh_shim_reg_map_epoch(map_)) << "a remove_if that kept everything";
    EXPECT_EQ(1u, symh_shim_reg_map_remove_if(map_, keep_none, nullptr));
    uint64_t e3 = symh_shim_reg_map_epoch(map_);
    EXPECT_NE(e2, e3) << "a remove_if that removed";
    EXPECT_NE(e1, e3);
    EXPECT_NE(e0, e3);
    // Another map, at whatever address: an epoch of its own.
    symh_shim_reg_map_destroy(map_);
    map_ = nullptr;
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_create(&map_));
    uint64_t fresh = symh_shim_reg_map_epoch(map_);
    for (uint64_t old : { e0, e1, e2, e3 })
        EXPECT_NE(old, fresh);
}

// A hint answers a lookup in its range while the epoch holds; a removal anywhere in the map makes
// the next lookup search again, so an address unregistered and registered anew (another length,
// other handles) is never answered from the old copy; a miss leaves the hint as it was.
TEST_F(RegMapTest, HintAnswersUntilARemovalAndNeverWithAStaleEntry)
{
    symh_shim_reg_hint_t *hint = symh_shim_reg_hint_create();
    ASSERT_NE(nullptr, hint);
    symh_shim_reg_entry_t e, in = make_entry(0x10000, 0x1000, 1, 0, "first");
    int hit = -1;

    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_insert(map_, &in, nullptr));
    ASSERT_EQ(SYMH_OK, insert(0x20000, 0x1000));
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_lookup_hinted(map_, 0x10010, hint, &e, &hit));
    EXPECT_EQ(0, hit) << "an empty hint";
    EXPECT_TRUE(same_entry(in, e));
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_lookup_hinted(map_, 0x10fff, hint, &e, &hit));
    EXPECT_EQ(1, hit) << "the same range: from the hint";
    EXPECT_TRUE(same_entry(in, e));
    ASSERT_EQ(SYMH_OK, insert(0x30000, 0x1000));
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_lookup_hinted(map_, 0x10000, hint, &e, &hit));
    EXPECT_EQ(1, hit) << "an insert elsewhere keeps the hint valid";
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED,
              symh_shim_reg_map_lookup_hinted(map_, 0x11000, hint, &e, &hit))
        << "one past the hint's range, in a gap";
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_lookup_hinted(map_, 0x10800, hint, &e, &hit));
    EXPECT_EQ(1, hit) << "a miss leaves the hint";
    // A removal elsewhere: searched again, the same answer.
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, 0x30000, nullptr));
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_lookup_hinted(map_, 0x10800, hint, &e, &hit));
    EXPECT_EQ(0, hit) << "the epoch changed";
    EXPECT_TRUE(same_entry(in, e));
    // The hint's own range removed, and the address registered anew.
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, 0x10000, nullptr));
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED,
              symh_shim_reg_map_lookup_hinted(map_, 0x10010, hint, &e, &hit));
    EXPECT_EQ(0, hit);
    symh_shim_reg_entry_t again = make_entry(0x10000, 0x4000, 4, 1, "again");
    again.tl_handles[0] = reinterpret_cast<void *>(0xbeef);
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_insert(map_, &again, nullptr));
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_lookup_hinted(map_, 0x10010, hint, &e, &hit));
    EXPECT_EQ(0, hit) << "not from the old copy";
    EXPECT_TRUE(same_entry(again, e));
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_lookup_hinted(map_, 0x13fff, hint, &e, &hit));
    EXPECT_EQ(1, hit) << "the new range's last byte, from the refilled hint";
    EXPECT_EQ(reinterpret_cast<void *>(0xbeef), e.tl_handles[0]);
    symh_shim_reg_hint_destroy(hint);
}

// 100k random inserts, removes (by start, interior, or unknown address), lookups and the odd
// remove_if, against a std::map from base to length.
TEST_F(RegMapTest, RandomSequenceAgainstModel)
{
    std::map<uintptr_t, size_t> model;
    std::mt19937_64 rng(12345);
    // A small address space (64 Ki bytes at a high base), so that overlaps and gaps are common.
    const uintptr_t lo = (uintptr_t)1 << 40, span = 1 << 16;
    auto model_find = [&](uintptr_t a) -> std::map<uintptr_t, size_t>::iterator {
        auto it = model.upper_bound(a);
        if (it == model.begin())
            return model.end();
        --it;
        return a - it->first < it->second ? it : model.end();
    };

    for (int op = 0; op < 100000; ++op) {
        unsigned what = (unsigned)(rng() % 100);
        uintptr_t a = lo + rng() % span;

        if (what < 45) {
            size_t len = 1 + (size_t)(rng() % (rng() % 2 ? 16 : 1024));
            symh_shim_reg_entry_t c;
            int status = insert(a, len, &c);
            // The model's answer: the lowest range meeting [a, a + len).
            auto it = model.upper_bound(a);
            uintptr_t hit = 0;
            if (it != model.begin() && std::prev(it)->first + std::prev(it)->second > a)
                hit = std::prev(it)->first;
            else if (it != model.end() && it->first < a + len)
                hit = it->first;
            if (hit != 0) {
                ASSERT_EQ(SYMH_ERR_OVERLAP, status) << "op " << op;
                ASSERT_EQ(hit, c.base) << "op " << op;
            } else {
                ASSERT_EQ(SYMH_OK, status) << "op " << op;
                model[a] = len;
            }
        } else if (what < 75) {
            auto it = model_find(a);
            symh_shim_reg_entry_t e;
            int status;
            if (!model.empty() && rng() % 2) { // aim at a live range, at any byte of it
                it = model.lower_bound(lo + rng() % span);
                if (it == model.end())
                    it = model.begin();
                a = it->first + rng() % it->second;
            }
            status = symh_shim_reg_map_remove(map_, a, &e);
            if (it == model.end()) {
                ASSERT_EQ(SYMH_ERR_NOT_REGISTERED, status) << "op " << op;
            } else {
                ASSERT_EQ(SYMH_OK, status) << "op " << op;
                ASSERT_TRUE(same_entry(make_entry(it->first, it->second), e)) << "op " << op;
                model.erase(it);
            }
        } else if (what < 99) {
            auto it = model_find(a);
            symh_shim_reg_entry_t e;
            int status = symh_shim_reg_map_lookup(map_, a, &e);
            if (it == model.end()) {
                ASSERT_EQ(SYMH_ERR_NOT_REGISTERED, status) << "op " << op;
            } else {
                ASSERT_EQ(SYMH_OK, status) << "op " << op;
                ASSERT_TRUE(same_entry(make_entry(it->first, it->second), e)) << "op " << op;
            }
        } else {
            // Drops every range shorter than a threshold.
            size_t below = 1 + (size_t)(rng() % 64), removed = 0;
            auto keep = [](const symh_shim_reg_entry_t *e, void *arg) -> int {
                return e->length >= *static_cast<size_t *>(arg);
            };
            for (auto it = model.begin(); it != model.end();)
                if (it->second < below) {
                    it = model.erase(it);
                    ++removed;
                } else {
                    ++it;
                }
            ASSERT_EQ(removed, symh_shim_reg_map_remove_if(map_, keep, &below)) << "op " << op;
        }
        ASSERT_EQ(model.size(), symh_shim_reg_map_count(map_)) << "op " << op;
        if (op % 1000 == 0) {
            ASSERT_EQ(SYMH_OK, symh_shim_reg_map_check(map_)) << "op " << op;
        }
    }
}

// A tree several levels deep (200k ranges: leaves of 16, inner nodes of 32), grown in random
// order, shrunk by random removes at interior addresses and by remove_if, then grown again: every
// split, borrow and merge of leaves and inner nodes, and the root growing and collapsing, checked
// against the invariant walk and by looking up every range's first and last byte and gap.
TEST_F(RegMapTest, DeepTreeGrowsAndShrinks)
{
    const size_t n = 200000;
    const uintptr_t lo = (uintptr_t)1 << 40, stride = 0x100;
    std::mt19937_64 rng(4242);
    std::vector<size_t> order(n);
    std::vector<bool> live(n, false);
    size_t alive = 0;
    // Range i is [lo + i * stride, + 1 + i % 0x80): a gap after each one.
    auto base_of = [&](size_t i) { return lo + i * stride; };
    auto len_of = [](size_t i) { return (size_t)1 + i % 0x80; };
    auto verify = [&](const char *when) {
        ASSERT_EQ(SYMH_OK, symh_shim_reg_map_check(map_)) << when;
        ASSERT_EQ(alive, symh_shim_reg_map_count(map_)) << when;
        for (size_t i = 0; i < n; ++i) {
            uintptr_t b = base_of(i);
            ASSERT_EQ(live[i] ? b : 0, find(b)) << when << " range " << i;
            ASSERT_EQ(live[i] ? b : 0, find(b + len_of(i) - 1)) << when << " range " << i;
            ASSERT_EQ(0u, find(b + len_of(i))) << when << " range " << i;
        }
    };

    for (size_t i = 0; i < n; ++i)
        order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i : order) {
        symh_shim_reg_entry_t e = make_entry(base_of(i), len_of(i), 1, (int)(i % 7));

        ASSERT_EQ(SYMH_OK, symh_shim_reg_map_insert(map_, &e, nullptr)) << i;
        live[i] = true;
        ++alive;
    }
    verify("after inserting");

    // Remove 90 % in another random order, at any byte of each range.
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t k = 0; k < n * 9 / 10; ++k) {
        size_t i = order[k];
        symh_shim_reg_entry_t e;

        ASSERT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, base_of(i) + rng() % len_of(i), &e)) << i;
        ASSERT_EQ(base_of(i), e.base);
        live[i] = false;
        --alive;
        if (k % 20000 == 0) {
            ASSERT_EQ(SYMH_OK, symh_shim_reg_map_check(map_)) << "remove " << k;
        }
    }
    verify("after removing 90 %");

    // Grow back, then drop one device in seven with remove_if, then remove the rest.
    for (size_t k = 0; k < n * 9 / 10; k += 2) {
        size_t i = order[k];
        symh_shim_reg_entry_t e = make_entry(base_of(i), len_of(i), 1, (int)(i % 7));

        ASSERT_EQ(SYMH_OK, symh_shim_reg_map_insert(map_, &e, nullptr)) << i;
        live[i] = true;
        ++alive;
    }
    verify("after growing back");
    auto keep = [](const symh_shim_reg_entry_t *e, void *) -> int { return e->device != 3; };
    size_t dropped = 0;
    for (size_t i = 0; i < n; ++i)
        if (live[i] && i % 7 == 3) {
            live[i] = false;
            --alive;
            ++dropped;
        }
    ASSERT_EQ(dropped, symh_shim_reg_map_remove_if(map_, keep, nullptr));
    verify("after remove_if");
    for (size_t i = 0; i < n; ++i)
        if (live[i]) {
            ASSERT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, base_of(i), nullptr)) << i;
            live[i] = false;
            --alive;
        }
    verify("after removing everything");
    ASSERT_EQ(SYMH_OK, insert(lo, 1));
    EXPECT_EQ(lo, find(lo));
}

// A removal by base leaves no path to fix an ancestor key that named the removed base: such a
// key stays, a bound below the leaf's new first base. A range then inserted after the last one
// of the leaf to the left may reach past that key; the insert must raise the key, or lookups of
// its tail would descend to the right and miss it. Every range of a deep tree is tried, so the
// leaves' first ranges are among them whatever the leaf boundaries.
TEST_F(RegMapTest, RangeReachingPastARemovedFirstBaseIsFound)
{
    const size_t n = 3000;
    const uintptr_t lo = (uintptr_t)1 << 36, stride = 64;
    std::vector<bool> live(n, true);

    for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(SYMH_OK, insert(lo + i * stride, 16)) << i;
    // Ranges i = 3, 6, 9, ...: remove [b, +16) by its base, insert [b - 40, +48) (its base in the
    // gap after range i - 1, its end past b), and look up every byte of it.
    for (size_t i = 3; i < n; i += 3) {
        uintptr_t b = lo + i * stride;
        symh_shim_reg_entry_t e;

        ASSERT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, b, &e)) << i;
        ASSERT_EQ(b, e.base);
        ASSERT_EQ(SYMH_OK, insert(b - 40, 48)) << i;
        for (uintptr_t a = b - 40; a < b + 8; ++a)
            ASSERT_EQ(b - 40, find(a)) << i << " at " << (a - b);
        ASSERT_EQ(0u, find(b + 8)) << i;
        ASSERT_EQ(0u, find(b - 41)) << i;
        if (i % 300 == 0) {
            ASSERT_EQ(SYMH_OK, symh_shim_reg_map_check(map_)) << i;
        }
    }
    // Remove the moved ranges by base again and insert them back where they were.
    for (size_t i = 3; i < n; i += 3) {
        uintptr_t b = lo + i * stride;

        ASSERT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, b - 40, nullptr)) << i;
        ASSERT_EQ(SYMH_OK, insert(b, 16)) << i;
    }
    for (size_t i = 0; i < n; ++i) {
        uintptr_t b = lo + i * stride;

        ASSERT_EQ(b, find(b + 15)) << i;
        ASSERT_EQ(0u, find(b + 16)) << i;
    }
}

// next: the lowest range ending after an address, in the range's own leaf, in the next leaf of
// the chain, and where a removal by base left a separator at a base that is gone (the descent
// then reaches a leaf whose ranges all start above the address).
TEST_F(RegMapTest, NextFindsTheLowestRangeEndingAfterAnAddress)
{
    const size_t n = 2000;
    const uintptr_t lo = (uintptr_t)1 << 36, stride = 64;
    symh_shim_reg_entry_t e;

    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_reg_map_next(map_, lo, &e));
    for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(SYMH_OK, insert(lo + i * stride, 16)) << i;
    // Every other range removed by its base: leaves keep stale separators.
    for (size_t i = 1; i < n; i += 2)
        ASSERT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, lo + i * stride, nullptr)) << i;
    ASSERT_EQ(SYMH_OK, symh_shim_reg_map_next(map_, 0, &e));
    EXPECT_EQ(lo, e.base);
    for (size_t i = 0; i + 2 < n; i += 2) {
        uintptr_t b = lo + i * stride;

        // Inside a range: that range; from its end through the gap: the next live one.
        for (uintptr_t a : { b, b + 15 }) {
            ASSERT_EQ(SYMH_OK, symh_shim_reg_map_next(map_, a, &e)) << i;
            ASSERT_EQ(b, e.base) << i;
        }
        for (uintptr_t a : { b + 16, b + stride, b + 2 * stride - 1 }) {
            ASSERT_EQ(SYMH_OK, symh_shim_reg_map_next(map_, a, &e)) << i;
            ASSERT_EQ(b + 2 * stride, e.base) << i << " from +" << (a - b);
            ASSERT_EQ(16u, e.length);
        }
    }
    uintptr_t last = lo + (n - 2) * stride;
    EXPECT_EQ(SYMH_OK, symh_shim_reg_map_next(map_, last + 15, &e));
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_reg_map_next(map_, last + 16, &e));
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_reg_map_next(map_, UINTPTR_MAX, nullptr));
}

// take refuses through its accept callback (the device allocator's device-mismatch free) without
// changing anything, on both of its paths: by base (hash, no descent) while a leaf keeps more
// than a quarter of its ranges, and through a descent (interior addresses, and bases once the
// removals below have drained the leaves to their floor).
TEST_F(RegMapTest, TakeRefusedByAcceptChangesNothing)
{
    const size_t n = 2000;
    const uintptr_t lo = (uintptr_t)1 << 36, stride = 64;
    auto base_of = [&](size_t i) { return lo + i * stride; };

    for (size_t i = 0; i < n; ++i) {
        symh_shim_reg_entry_t e = make_entry(base_of(i), 32, 4, (int)(i % 3));
        ASSERT_EQ(SYMH_OK, symh_shim_reg_map_insert(map_, &e, nullptr)) << i;
    }
    size_t alive = n;
    for (size_t i = 0; i < n; ++i) {
        symh_shim_reg_entry_t found;
        const int right = (int)(i % 3), wrong = (right + 1) % 3;
        for (uintptr_t addr : { base_of(i), base_of(i) + 17 }) {
            std::memset(&found, 0, sizeof(found));
            ASSERT_EQ(SYMH_ERR_DEVICE_MISMATCH,
                      symh_shim_reg_map_take_device(map_, addr, wrong, &found))
                << i;
            EXPECT_EQ(base_of(i), found.base) << "the refused entry is reported";
            ASSERT_EQ(alive, symh_shim_reg_map_count(map_)) << i;
            ASSERT_EQ(base_of(i), find(addr)) << i << ": still there";
        }
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED,
                  symh_shim_reg_map_take_device(map_, base_of(i) + 32, right, nullptr))
            << "the gap after it";
        // Every other range goes, by its base or by an interior byte.
        if (i % 2 == 0) {
            ASSERT_EQ(SYMH_OK, symh_shim_reg_map_take_device(map_, base_of(i) + (i % 4 ? 0 : 5),
                                                             right, &found))
                << i;
            EXPECT_EQ(base_of(i), found.base);
            EXPECT_EQ(0u, find(base_of(i)));
            --alive;
        }
        if (i % 250 == 0) {
            ASSERT_EQ(SYMH_OK, symh_shim_reg_map_check(map_)) << i;
        }
    }
    ASSERT_EQ(alive, symh_shim_reg_map_count(map_));
}

// Entries whose every field derives from the base, so a reader can tell a torn copy.
symh_shim_reg_entry_t derived_entry(uintptr_t base)
{
    char label[24];

    std::snprintf(label, sizeof(label), "r%jx", (uintmax_t)base);
    return make_entry(base, 64 + (base >> 12) % 4000, (int)((base >> 12) % 5),
                      (int)((base >> 14) % 97), label);
}

TEST_F(RegMapTest, ReadersNeverSeeATornEntry)
{
    const uintptr_t lo = 0x10000000, slots = 2048;
    std::atomic<bool> done{ false };
    std::atomic<long> found{ 0 }, missed{ 0 }, bad{ 0 };
    std::vector<std::thread> readers;

    for (int r = 0; r < 4; ++r)
        readers.emplace_back([&, r] {
            std::mt19937_64 rng(77 + r);
            long f = 0, m = 0, b = 0;
            while (!done.load(std::memory_order_relaxed)) {
                uintptr_t a = lo + rng() % (slots * 0x1000);
                symh_shim_reg_entry_t e;
                int status = symh_shim_reg_map_lookup(map_, a, &e);
                if (status == SYMH_OK) {
                    ++f;
                    if (!(a >= e.base && a - e.base < e.length) ||
                        !same_entry(derived_entry(e.base), e))
                        ++b;
                } else if (status == SYMH_ERR_NOT_REGISTERED) {
                    ++m;
                } else {
                    ++b;
                }
                (void)symh_shim_reg_map_count(map_);
            }
            found += f;
            missed += m;
            bad += b;
        });

    std::mt19937_64 rng(99);
    std::vector<bool> live(slots, false);
    for (int op = 0; op < 50000; ++op) {
        size_t s = (size_t)(rng() % slots);
        uintptr_t base = lo + s * 0x1000;
        if (live[s]) {
            EXPECT_EQ(SYMH_OK, symh_shim_reg_map_remove(map_, base + rng() % 64, nullptr));
        } else {
            symh_shim_reg_entry_t e = derived_entry(base);
            EXPECT_EQ(SYMH_OK, symh_shim_reg_map_insert(map_, &e, nullptr));
        }
        live[s] = !live[s];
        if (op % 5000 == 4999) {
            auto keep = [](const symh_shim_reg_entry_t *e, void *) -> int {
                return e->device % 3 != 0;
            };
            symh_shim_reg_map_remove_if(map_, keep, nullptr);
            for (size_t i = 0; i < slots; ++i)
                if (live[i] && derived_entry(lo + i * 0x1000).device % 3 == 0)
                    live[i] = false;
        }
    }
    done = true;
    for (auto &t : readers)
        t.join();
    EXPECT_EQ(0, bad.load());
    EXPECT_GT(found.load(), 0);
    EXPECT_GT(missed.load(), 0);
}

} // namespace
