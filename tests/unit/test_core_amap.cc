// Unit tests of the allocation map (src/core/core_amap.c): the bits the heap keeps for its live
// blocks and the checks the RMA data path asks of them, against a byte-per-granule model.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "shim_core.h"
#include "symh_gtest.hpp"

namespace
{

const size_t G = 128;  // granule
const size_t U = 8192; // bytes one word pair covers
enum { INSIDE = 0, FREED = 1, PAST_END = 2 };

class AMap : public SymhTest
{
  protected:
    void SetUp() override
    {
        SymhTest::SetUp();
        map = symh_shim_amap_create(kSize);
        ASSERT_NE(nullptr, map);
    }
    void TearDown() override
    {
        symh_shim_amap_destroy(map);
        SymhTest::TearDown();
    }
    int check(size_t offset, size_t bytes)
    {
        alloc_offset = alloc_bytes = 0;
        return symh_shim_amap_check(map, offset, bytes, &alloc_offset, &alloc_bytes);
    }
    static const size_t kSize = 256 * 1024;
    void *map = nullptr;
    size_t alloc_offset = 0, alloc_bytes = 0;
};

TEST_F(AMap, NeighboursFreedHeapAndExactFits)
{
    symh_shim_amap_mark(map, 0, 256);
    symh_shim_amap_mark(map, 256, 384);
    EXPECT_EQ(INSIDE, check(0, 256)); // exactly the allocation
    EXPECT_EQ(1, symh_shim_amap_fast_ok(map, 0, 256));
    EXPECT_EQ(1, symh_shim_amap_fast_ok(map, 248, 8));
    EXPECT_EQ(INSIDE, check(256, 384));
    EXPECT_EQ(PAST_END, check(0, 257)); // one byte into the neighbour
    EXPECT_EQ(0u, alloc_offset);
    EXPECT_EQ(256u, alloc_bytes);
    EXPECT_EQ(0, symh_shim_amap_fast_ok(map, 0, 257));
    EXPECT_EQ(0, symh_shim_amap_fast_ok(map, 255, 2));
    EXPECT_EQ(PAST_END, check(300, 400)); // from the second into freed heap
    EXPECT_EQ(256u, alloc_offset);
    EXPECT_EQ(384u, alloc_bytes);
    EXPECT_EQ(FREED, check(640, 8));
    EXPECT_EQ(0, symh_shim_amap_fast_ok(map, 640, 8));
    EXPECT_EQ(FREED, check(kSize - 8, 8)); // the last bytes of the heap
    symh_shim_amap_mark(map, 1024, 128);
    EXPECT_EQ(FREED, check(700, 400)); // starts in freed heap, ends in an allocation
    symh_shim_amap_unmark(map, 256, 384);
    EXPECT_EQ(FREED, check(256, 8));
    EXPECT_EQ(PAST_END, check(0, 300));
    EXPECT_EQ(256u, alloc_bytes);
}

TEST_F(AMap, RangesAcrossWordPairsAndLargeAllocations)
{
    symh_shim_amap_mark(map, U - G, 2 * G); // straddles the first pair's end
    EXPECT_EQ(1, symh_shim_amap_fast_ok(map, U - 8, 16)) << "across two pairs";
    EXPECT_EQ(INSIDE, check(U - 8, 16));
    EXPECT_EQ(INSIDE, check(U - G, 2 * G));
    EXPECT_EQ(1, symh_shim_amap_fast_ok(map, U, 8));
    const size_t big = 5 * U + 3 * G; // 5 pairs and a bit, from a pair boundary + G
    symh_shim_amap_mark(map, U + G, big);
    EXPECT_EQ(INSIDE, check(U + G, big));
    EXPECT_EQ(PAST_END, check(U, 2 * G)); // from the small one into the big one
    EXPECT_EQ(U - G, alloc_offset);
    EXPECT_EQ(2 * G, alloc_bytes);
    EXPECT_EQ(PAST_END, check(U + G + big - 8, 16)); // past the big one's end
    EXPECT_EQ(U + G, alloc_offset) << "the start is found from deep inside";
    EXPECT_EQ(big, alloc_bytes);
    EXPECT_EQ(PAST_END, check(4 * U + 5, big));
    EXPECT_EQ(big, alloc_bytes);
    // Allocations up to the end of the map.
    symh_shim_amap_mark(map, kSize - 3 * U, 3 * U - G);
    symh_shim_amap_mark(map, kSize - G, G);
    EXPECT_EQ(FREED, check(kSize - 3 * U - 8, 16));
    EXPECT_EQ(INSIDE, check(kSize - 3 * U, 3 * U - G));
    EXPECT_EQ(INSIDE, check(kSize - G, G));
    EXPECT_EQ(PAST_END, check(kSize - 3 * U + 8, 3 * U - 8));
    EXPECT_EQ(kSize - 3 * U, alloc_offset);
    EXPECT_EQ(3 * U - G, alloc_bytes);
    symh_shim_amap_unmark(map, kSize - G, G);
    symh_shim_amap_resize(map, kSize - 3 * U, 3 * U - G, 3 * U);
    EXPECT_EQ(INSIDE, check(kSize - 3 * U + 8, 3 * U - 8));
}

TEST_F(AMap, ResizeInPlaceMovesTheEnd)
{
    symh_shim_amap_mark(map, 2 * G, 2 * G);
    symh_shim_amap_resize(map, 2 * G, 2 * G, U + G); // grows across a pair
    EXPECT_EQ(INSIDE, check(2 * G, U + G));
    EXPECT_EQ(PAST_END, check(2 * G, U + G + 1));
    EXPECT_EQ(U + G, alloc_bytes);
    symh_shim_amap_resize(map, 2 * G, U + G, G); // shrinks below its old size
    EXPECT_EQ(INSIDE, check(2 * G, G));
    EXPECT_EQ(PAST_END, check(2 * G, G + 1));
    EXPECT_EQ(G, alloc_bytes);
    EXPECT_EQ(FREED, check(3 * G, 8));
    EXPECT_EQ(FREED, check(U, 8));
}

// Random allocations, frees and resizes against a model with one owner per granule; every
// verdict of the map, inline and out of line, is the model's.
TEST_F(AMap, AgreesWithAModel)
{
    const size_t granules = kSize / G;
    std::vector<int> owner(granules, -1); // allocation id per granule, -1 free
    struct Block {
        size_t offset, bytes;
        bool live;
    };
    std::vector<Block> blocks;
    std::mt19937_64 rng(42);
    auto is_free = [&](size_t g0, size_t n) {
        for (size_t g = g0; g < g0 + n; ++g)
            if (g >= granules || owner[g] >= 0)
                return false;
        return true;
    };
    for (int step = 0; step < 3000; ++step) {
        int op = (int)(rng() % 4);
        if (op <= 1) { // allocate 1 .. 200 granules where free
            size_t n = 1 + rng() % (rng() % 8 == 0 ? 200 : 8), g0 = rng() % granules;
            if (!is_free(g0, n))
                continue;
            for (size_t g = g0; g < g0 + n; ++g)
                owner[g] = (int)blocks.size();
            blocks.push_back({ g0 * G, n * G, true });
            symh_shim_amap_mark(map, g0 * G, n * G);
        } else if (!blocks.empty()) {
            Block &b = blocks[rng() % blocks.size()];
            if (!b.live)
                continue;
            size_t g0 = b.offset / G, n = b.bytes / G;
            if (op == 2) {
                for (size_t g = g0; g < g0 + n; ++g)
                    owner[g] = -1;
                b.live = false;
                symh_shim_amap_unmark(map, b.offset, b.bytes);
            } else { // resize in place to 1 .. n + 16 granules when the space after is free
                size_t m = 1 + rng() % (n + 16);
                if (m > n && !is_free(g0 + n, m - n))
                    continue;
                for (size_t g = g0; g < g0 + std::max(n, m); ++g)
                    owner[g] = g < g0 + m ? (int)(&b - &blocks[0]) : -1;
                symh_shim_amap_resize(map, b.offset, b.bytes, m * G);
                b.bytes = m * G;
            }
        }
        for (int probe = 0; probe < 8; ++probe) {
            size_t offset = rng() % kSize;
            size_t bytes = 1 + rng() % (probe < 6 ? 300 : 20000);
            if (offset + bytes > kSize)
                bytes = kSize - offset;
            int id = owner[offset / G], want = id < 0 ? FREED : INSIDE;
            for (size_t g = offset / G; want == INSIDE && g <= (offset + bytes - 1) / G; ++g)
                if (owner[g] != id)
                    want = PAST_END;
            ASSERT_EQ(want, check(offset, bytes))
                << "step " << step << " " << offset << "+" << bytes;
            if (want == PAST_END) {
                ASSERT_EQ(blocks[id].offset, alloc_offset);
                ASSERT_EQ(blocks[id].bytes, alloc_bytes);
            }
            ASSERT_EQ(want == INSIDE, symh_shim_amap_fast_ok(map, offset, bytes) == 1)
                << "the inline check on " << offset << "+" << bytes;
        }
    }
}

TEST_F(AMap, BadSizesAreRefused)
{
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(nullptr, symh_shim_amap_create(0));
        EXPECT_EQ(nullptr, symh_shim_amap_create(100));
    });
    EXPECT_NE(std::string::npos, log.find("allocation map: size 0 ")) << log;
    EXPECT_NE(std::string::npos, log.find("allocation map: size 100 ")) << log;
}

} // namespace
