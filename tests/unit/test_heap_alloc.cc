// Unit tests of the heap allocator (src/heap/heap_alloc.c) through tests/shim/shim_heap.h:
// alignment, splitting, coalescing, exhaustion, misuse, resize and its rollback, fragmentation,
// exact stats against a reference model, and determinism.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <symheap/status.h>

#include "shim_heap.h"
#include "symh_gtest.hpp"

// gtest finds these by argument-dependent lookup: they live with the (global) C type.
static bool operator==(const symh_shim_heap_alloc_stats_t &a, const symh_shim_heap_alloc_stats_t &b)
{
    return a.size == b.size && a.used == b.used && a.free == b.free &&
           a.largest_free == b.largest_free && a.allocations == b.allocations;
}

static std::ostream &operator<<(std::ostream &os, const symh_shim_heap_alloc_stats_t &s)
{
    return os << "{size " << s.size << ", used " << s.used << ", free " << s.free
              << ", largest_free " << s.largest_free << ", allocations " << s.allocations << "}";
}

namespace
{

constexpr size_t G = 128; // the granule
constexpr size_t KiB = 1024;
constexpr size_t MiB = 1024 * KiB;
constexpr size_t GiB = 1024 * MiB;

size_t round_up(size_t value, size_t to)
{
    return (value + to - 1) / to * to;
}

// An allocator plus a reference model of its live blocks, checked against each other.
class Heap
{
  public:
    explicit Heap(size_t size) : size_(size / G * G)
    {
        EXPECT_EQ(SYMH_OK, symh_shim_heap_alloc_create(size, &alloc_));
    }
    ~Heap()
    {
        symh_shim_heap_alloc_destroy(alloc_);
    }
    Heap(const Heap &) = delete;
    Heap &operator=(const Heap &) = delete;

    symh_shim_heap_alloc_t *get() const
    {
        return alloc_;
    }
    const std::map<size_t, size_t> &live() const
    {
        return live_;
    }

    // Allocates, expecting success; returns the offset (SIZE_MAX on failure).
    size_t alloc(size_t size, size_t alignment = G)
    {
        size_t offset = SIZE_MAX;
        int status = try_alloc(size, alignment, &offset);
        EXPECT_EQ(SYMH_OK, status) << "alloc(" << size << ", " << alignment << ")";
        return status == SYMH_OK ? offset : SIZE_MAX;
    }

    // Allocates and checks the outcome against the model: success only inside a free gap, at
    // the alignment; NO_MEMORY only when no gap fits.
    int try_alloc(size_t size, size_t alignment, size_t *offset)
    {
        size_t out = 0xdeadbeef;
        int status = symh_shim_heap_alloc_alloc(alloc_, size, alignment, &out);
        size_t need = round_up(size, G), align = alignment < G ? G : alignment;

        if (status == SYMH_OK) {
            EXPECT_EQ(0u, out % align) << "alloc(" << size << ", " << alignment << ")";
            EXPECT_TRUE(in_gap(out, need)) << "alloc(" << size << ") = " << out;
            live_[out] = need;
            *offset = out;
        } else {
            EXPECT_EQ(0xdeadbeefu, out) << "offset written on failure";
            if (status == SYMH_ERR_NO_MEMORY) {
                EXPECT_FALSE(gap_fits(need, align))
                    << "alloc(" << size << ", " << alignment << ") refused but a gap fits it";
            }
        }
        return status;
    }

    int free(size_t offset)
    {
        int status = symh_shim_heap_alloc_free(alloc_, offset);
        EXPECT_EQ(live_.count(offset) ? SYMH_OK : SYMH_ERR_NOT_REGISTERED, status)
            << "free(" << offset << ")";
        if (status == SYMH_OK)
            live_.erase(offset);
        return status;
    }

    // Resizes and checks the outcome against the model: shrinking always works, growing works
    // exactly when the gap right after the block is large enough.
    int resize(size_t offset, size_t new_size)
    {
        int status = symh_shim_heap_alloc_resize(alloc_, offset, new_size);
        auto it = live_.find(offset);

        if (new_size == 0 || new_size > SIZE_MAX - (G - 1)) {
            EXPECT_EQ(SYMH_ERR_INVALID_ARG, status);
            return status;
        }
        if (it == live_.end()) {
            EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, status);
            return status;
        }
        size_t need = round_up(new_size, G);
        auto next = std::next(it);
        size_t gap_end = next == live_.end() ? size_ : next->first;
        bool fits = need <= gap_end - offset;
        EXPECT_EQ(fits ? SYMH_OK : SYMH_ERR_NO_MEMORY, status)
            << "resize(" << offset << ", " << new_size << ") of a " << it->second
            << "-byte block with " << gap_end - offset - it->second << " free bytes after it";
        if (status == SYMH_OK)
            it->second = need;
        return status;
    }

    symh_shim_heap_alloc_stats_t stats() const
    {
        symh_shim_heap_alloc_stats_t s;
        symh_shim_heap_alloc_stats(alloc_, &s);
        return s;
    }

    // What the stats must say, from the model.
    symh_shim_heap_alloc_stats_t model_stats() const
    {
        symh_shim_heap_alloc_stats_t s = { size_, 0, 0, 0, live_.size() };
        size_t end = 0;
        for (const auto &[offset, bytes] : live_) {
            s.largest_free = std::max(s.largest_free, offset - end);
            s.used += bytes;
            end = offset + bytes;
        }
        s.largest_free = std::max(s.largest_free, size_ - end);
        s.free = size_ - s.used;
        return s;
    }

    // The allocator agrees with the model, and its own invariant walk passes.
    void expect_consistent() const
    {
        EXPECT_EQ(model_stats(), stats());
        EXPECT_EQ(SYMH_OK, symh_shim_heap_alloc_check(alloc_));
        for (const auto &[offset, bytes] : live_) {
            size_t got = 0;
            EXPECT_EQ(SYMH_OK, symh_shim_heap_alloc_block_size(alloc_, offset, &got));
            EXPECT_EQ(bytes, got) << "block at " << offset;
        }
    }

    void free_all()
    {
        while (!live_.empty())
            free(live_.begin()->first);
    }

  private:
    bool in_gap(size_t offset, size_t bytes) const
    {
        if (offset > size_ || bytes > size_ - offset)
            return false;
        auto next = live_.lower_bound(offset);
        if (next != live_.end() && next->first < offset + bytes)
            return false;
        if (next == live_.begin())
            return true;
        auto prev = std::prev(next);
        return prev->first + prev->second <= offset;
    }

    bool gap_fits(size_t need, size_t align) const
    {
        size_t start = 0;
        auto fits = [&](size_t from, size_t to) {
            size_t pad = (align - from % align) % align;
            return to - from >= need && to - from - need >= pad;
        };
        for (const auto &[offset, bytes] : live_) {
            if (fits(start, offset))
                return true;
            start = offset + bytes;
        }
        return fits(start, size_);
    }

    size_t size_;
    std::map<size_t, size_t> live_;
    symh_shim_heap_alloc_t *alloc_ = nullptr;
};

class HeapAlloc : public SymhTest
{
};

TEST_F(HeapAlloc, GranuleIs128)
{
    EXPECT_EQ(G, symh_shim_heap_alloc_granule());
}

TEST_F(HeapAlloc, CreateRoundsTheSizeDownAndNeedsOneGranule)
{
    symh_shim_heap_alloc_t *alloc = nullptr;
    for (size_t size : { size_t(0), size_t(1), G - 1 })
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_heap_alloc_create(size, &alloc)) << size;
    EXPECT_EQ(nullptr, alloc);
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_heap_alloc_create(MiB, nullptr));

    Heap heap(1000);
    symh_shim_heap_alloc_stats_t expected = { 896, 0, 896, 896, 0 };
    EXPECT_EQ(expected, heap.stats());
    EXPECT_EQ(0u, heap.alloc(896));
    heap.expect_consistent();

    // The whole address space: the allocator only knows offsets.
    Heap huge(SIZE_MAX);
    EXPECT_EQ(SIZE_MAX / G * G, huge.stats().size);
    EXPECT_EQ(0u, huge.alloc(size_t(1) << 62, size_t(1) << 62));
    EXPECT_EQ(size_t(1) << 63, huge.alloc(G, size_t(1) << 63));
    huge.expect_consistent();
}

TEST_F(HeapAlloc, EveryPowerOfTwoAlignmentUpTo2Pow30)
{
    // 4 GiB of offsets; a first block makes every aligned request need padding in front.
    Heap heap(4 * GiB);
    EXPECT_EQ(0u, heap.alloc(1));
    for (size_t alignment = 8; alignment <= GiB; alignment *= 2) {
        size_t offset = heap.alloc(100, alignment);
        EXPECT_EQ(0u, offset % alignment) << alignment;
        EXPECT_EQ(0u, offset % G) << alignment;
        heap.expect_consistent();
    }
    // The padding went back to the free space: only the blocks are used.
    EXPECT_EQ(heap.live().size() * G, heap.stats().used);
    EXPECT_EQ(4 * GiB - heap.stats().used, heap.stats().free);
    heap.free_all();
    EXPECT_EQ(4 * GiB, heap.stats().largest_free);
    heap.expect_consistent();
}

TEST_F(HeapAlloc, AlignedPaddingIsReturnedToTheFreeSpace)
{
    Heap heap(MiB);
    EXPECT_EQ(0u, heap.alloc(G));
    EXPECT_EQ(4 * KiB, heap.alloc(G, 4 * KiB));
    // [128, 4096) is free again and is the best fit for a block of its size.
    EXPECT_EQ(G, heap.alloc(4 * KiB - G));
    EXPECT_EQ(4 * KiB + G, heap.stats().used);
    heap.expect_consistent();
}

TEST_F(HeapAlloc, AlignmentAsLargeAsTheRangeFitsAtOffsetZero)
{
    // A search for size + alignment - granule bytes would find nothing here.
    Heap heap(GiB);
    EXPECT_EQ(0u, heap.alloc(GiB, GiB));
    heap.expect_consistent();
    heap.free(0);

    // Any power of two is an alignment; offset 0 is a multiple of all of them.
    EXPECT_EQ(0u, heap.alloc(G, size_t(1) << 63));
    size_t offset = 0;
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap.try_alloc(G, size_t(1) << 63, &offset));
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap.try_alloc(G, 2 * GiB, &offset));
    heap.expect_consistent();
}

TEST_F(HeapAlloc, AlignmentBelowTheGranuleMeansTheGranule)
{
    Heap heap(MiB);
    size_t expected = 0;
    for (size_t alignment : { 1, 2, 4, 8, 16, 32, 64, 128 }) {
        EXPECT_EQ(expected, heap.alloc(1, alignment)) << alignment;
        expected += G;
    }
    heap.expect_consistent();
}

TEST_F(HeapAlloc, BadAlignmentOrSizeIsRefusedAndChangesNothing)
{
    Heap heap(MiB);
    heap.alloc(300);
    symh_shim_heap_alloc_stats_t before = heap.stats();
    size_t offset = 0;

    for (size_t alignment : { size_t(0), size_t(3), size_t(12), size_t(24), size_t(129),
                              size_t(384), (size_t(1) << 40) + 1, SIZE_MAX })
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, heap.try_alloc(G, alignment, &offset)) << alignment;
    // Size 0, and sizes that overflow when rounded up to the granule.
    for (size_t size : { size_t(0), SIZE_MAX, SIZE_MAX - G + 2 })
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, heap.try_alloc(size, G, &offset)) << size;
    // Rounds without overflow, but is far larger than the range.
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap.try_alloc(SIZE_MAX - G + 1, G, &offset));
    EXPECT_EQ(before, heap.stats());
    heap.expect_consistent();
}

TEST_F(HeapAlloc, NullArgumentsAreRefused)
{
    Heap heap(MiB);
    size_t offset = 0;
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_heap_alloc_alloc(nullptr, G, G, &offset));
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_heap_alloc_alloc(heap.get(), G, G, nullptr));
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_heap_alloc_free(nullptr, 0));
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_heap_alloc_block_size(heap.get(), 0, nullptr));
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_heap_alloc_block_size(nullptr, 0, &offset));
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_heap_alloc_resize(nullptr, 0, G));
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_heap_alloc_check(nullptr));
    symh_shim_heap_alloc_stats_t s = { 1, 1, 1, 1, 1 }, zero = { 0, 0, 0, 0, 0 };
    symh_shim_heap_alloc_stats(nullptr, &s);
    EXPECT_EQ(zero, s);
    symh_shim_heap_alloc_stats(heap.get(), nullptr);
    symh_shim_heap_alloc_destroy(nullptr);
    heap.expect_consistent();
}

TEST_F(HeapAlloc, RequestLargerThanTheRangeIsNoMemory)
{
    Heap heap(MiB);
    size_t offset = 0;
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap.try_alloc(MiB + 1, G, &offset));
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap.try_alloc(4 * GiB, G, &offset));
    EXPECT_EQ(0u, heap.alloc(MiB));
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap.try_alloc(1, G, &offset));
    heap.expect_consistent();
    heap.free(0);
    EXPECT_EQ(0u, heap.alloc(MiB));
    heap.expect_consistent();
}

TEST_F(HeapAlloc, SplitsBlocksFromTheFront)
{
    Heap heap(MiB);
    EXPECT_EQ(0u, heap.alloc(1));
    EXPECT_EQ(G, heap.alloc(G + 1));
    EXPECT_EQ(3 * G, heap.alloc(G));
    symh_shim_heap_alloc_stats_t expected = { MiB, 4 * G, MiB - 4 * G, MiB - 4 * G, 3 };
    EXPECT_EQ(expected, heap.stats());
    size_t bytes = 0;
    EXPECT_EQ(SYMH_OK, symh_shim_heap_alloc_block_size(heap.get(), G, &bytes));
    EXPECT_EQ(2 * G, bytes);
    heap.expect_consistent();
}

// A heap of `n` one-granule blocks, all live.
std::unique_ptr<Heap> full_heap(size_t n)
{
    auto heap = std::make_unique<Heap>(n * G);
    for (size_t i = 0; i < n; ++i)
        EXPECT_EQ(i * G, heap->alloc(G));
    return heap;
}

TEST_F(HeapAlloc, CoalescesWithTheLeftNeighbour)
{
    auto heap = full_heap(5);
    heap->free(1 * G);
    EXPECT_EQ(G, heap->stats().largest_free);
    heap->free(2 * G);
    EXPECT_EQ(2 * G, heap->stats().largest_free);
    heap->expect_consistent();
    EXPECT_EQ(G, heap->alloc(2 * G));
    heap->expect_consistent();
}

TEST_F(HeapAlloc, CoalescesWithTheRightNeighbour)
{
    auto heap = full_heap(5);
    heap->free(3 * G);
    heap->free(2 * G);
    EXPECT_EQ(2 * G, heap->stats().largest_free);
    heap->expect_consistent();
    EXPECT_EQ(2 * G, heap->alloc(2 * G));
    heap->expect_consistent();
}

TEST_F(HeapAlloc, CoalescesWithBothNeighbours)
{
    auto heap = full_heap(5);
    heap->free(1 * G);
    heap->free(3 * G);
    EXPECT_EQ(G, heap->stats().largest_free);
    heap->free(2 * G);
    EXPECT_EQ(3 * G, heap->stats().largest_free);
    heap->expect_consistent();
    EXPECT_EQ(G, heap->alloc(3 * G));
    heap->expect_consistent();
}

TEST_F(HeapAlloc, CoalescesAtBothEndsOfTheRange)
{
    auto heap = full_heap(4);
    heap->free(0);
    heap->free(3 * G);
    heap->free(1 * G);
    heap->free(2 * G);
    symh_shim_heap_alloc_stats_t expected = { 4 * G, 0, 4 * G, 4 * G, 0 };
    EXPECT_EQ(expected, heap->stats());
    heap->expect_consistent();
}

TEST_F(HeapAlloc, LargeBlocksCoalesceToo)
{
    // Blocks of 1 MiB are kept by size in a tree rather than in exact-size bins.
    Heap heap(8 * MiB);
    for (size_t i = 0; i < 8; ++i)
        EXPECT_EQ(i * MiB, heap.alloc(MiB));
    for (size_t i : { 1, 3, 5, 2, 6, 4 }) {
        heap.free(i * MiB);
        heap.expect_consistent();
    }
    EXPECT_EQ(6 * MiB, heap.stats().largest_free);
    EXPECT_EQ(MiB, heap.alloc(6 * MiB));
    heap.expect_consistent();
}

TEST_F(HeapAlloc, ExhaustionAndRecovery)
{
    Heap heap(64 * KiB);
    size_t offset = 0;
    for (size_t i = 0; i < 64 * KiB / G; ++i)
        EXPECT_EQ(i * G, heap.alloc(G));
    symh_shim_heap_alloc_stats_t full = { 64 * KiB, 64 * KiB, 0, 0, 512 };
    EXPECT_EQ(full, heap.stats());
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap.try_alloc(1, G, &offset));
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap.try_alloc(1, 4 * KiB, &offset));
    EXPECT_EQ(full, heap.stats());
    heap.expect_consistent();
    // Free the even blocks, then the odd ones: everything merges into one block again.
    for (size_t parity : { 0, 1 })
        for (size_t i = parity; i < 512; i += 2)
            heap.free(i * G);
    symh_shim_heap_alloc_stats_t empty = { 64 * KiB, 0, 64 * KiB, 64 * KiB, 0 };
    EXPECT_EQ(empty, heap.stats());
    heap.expect_consistent();
    EXPECT_EQ(0u, heap.alloc(64 * KiB));
}

TEST_F(HeapAlloc, FreeOfAnythingButALiveBlockChangesNothing)
{
    Heap heap(MiB);
    size_t a = heap.alloc(4 * G), b = heap.alloc(G), c = heap.alloc(G);
    heap.free(b);
    symh_shim_heap_alloc_stats_t before = heap.stats();

    // Interior, unaligned, freed, free space, past the end, far past the end.
    for (size_t offset : { a + G, a + 1, b, c + G, MiB, MiB + G, 4 * GiB, SIZE_MAX }) {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_heap_alloc_free(heap.get(), offset)) << offset;
        size_t bytes = 12345;
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED,
                  symh_shim_heap_alloc_block_size(heap.get(), offset, &bytes))
            << offset;
        EXPECT_EQ(12345u, bytes);
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_heap_alloc_resize(heap.get(), offset, G))
            << offset;
        EXPECT_EQ(before, heap.stats()) << offset;
        EXPECT_EQ(SYMH_OK, symh_shim_heap_alloc_check(heap.get())) << offset;
    }
    heap.free(a);
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_shim_heap_alloc_free(heap.get(), a));
    heap.expect_consistent();
}

TEST_F(HeapAlloc, ShrinkReturnsTheTailToTheFreeSpace)
{
    Heap heap(MiB);
    size_t a = heap.alloc(8 * G);
    EXPECT_EQ(SYMH_OK, heap.resize(a, 3 * G - 1));
    heap.expect_consistent();
    // The tail merged with the free space after it.
    EXPECT_EQ(MiB - 3 * G, heap.stats().largest_free);
    EXPECT_EQ(3 * G, heap.alloc(G));

    // With a live block after it, the tail becomes a free block of its own.
    Heap other(MiB);
    size_t x = other.alloc(8 * G), y = other.alloc(G);
    EXPECT_EQ(SYMH_OK, other.resize(x, G));
    other.expect_consistent();
    EXPECT_EQ(8 * G, y);
    EXPECT_EQ(G, other.alloc(7 * G));
    other.expect_consistent();
}

TEST_F(HeapAlloc, GrowsInPlaceIntoTheFreeSpaceAfter)
{
    Heap heap(MiB);
    size_t a = heap.alloc(G);
    EXPECT_EQ(SYMH_OK, heap.resize(a, 32 * G));
    heap.expect_consistent();
    EXPECT_EQ(32 * G, heap.alloc(G));
    // Exactly the free block after it.
    Heap exact(MiB);
    size_t x = exact.alloc(G), hole = exact.alloc(2 * G);
    exact.alloc(G);
    exact.free(hole);
    EXPECT_EQ(SYMH_OK, exact.resize(x, 3 * G));
    exact.expect_consistent();
    // To the end of the range.
    EXPECT_EQ(SYMH_OK, heap.resize(32 * G, MiB - 32 * G));
    EXPECT_EQ(0u, heap.stats().largest_free);
    heap.expect_consistent();
}

TEST_F(HeapAlloc, GrowIsRefusedWhenTheSpaceAfterIsNotFree)
{
    Heap heap(MiB);
    size_t a = heap.alloc(G), b = heap.alloc(G), c = heap.alloc(G);
    heap.alloc(G);
    heap.free(c);
    symh_shim_heap_alloc_stats_t before = heap.stats();
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap.resize(a, 2 * G));   // live neighbour
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap.resize(b, 3 * G));   // free neighbour too small
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap.resize(b, 2 * MiB)); // larger than the range
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, heap.resize(b, 0));
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, heap.resize(b, SIZE_MAX));
    EXPECT_EQ(before, heap.stats());
    heap.expect_consistent();
    // Same rounded size: nothing to do.
    EXPECT_EQ(SYMH_OK, heap.resize(b, 1));
    EXPECT_EQ(before, heap.stats());
}

TEST_F(HeapAlloc, ResizingBackRightAfterAResizeAlwaysSucceeds)
{
    struct Case {
        const char *what;
        size_t from, to;
        bool live_after; // a live block right after the resized one (else free space)
        size_t hole;     // with live_after: a free gap of this size between them
    };
    const Case cases[] = {
        { "grow into part of the free space", G, 4 * G, false, 0 },
        { "grow into all of a hole", G, 3 * G, true, 2 * G },
        { "grow into part of a hole", G, 2 * G, true, 2 * G },
        { "shrink into the free space", 4 * G, G, false, 0 },
        { "shrink before a live block", 4 * G, G, true, 0 },
        { "shrink before a hole", 4 * G, G, true, G },
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.what);
        Heap heap(MiB);
        size_t a = heap.alloc(c.from);
        if (c.live_after) {
            size_t hole = c.hole ? heap.alloc(c.hole) : 0;
            heap.alloc(G);
            if (c.hole)
                heap.free(hole);
        }
        symh_shim_heap_alloc_stats_t before = heap.stats();
        ASSERT_EQ(SYMH_OK, heap.resize(a, c.to));
        heap.expect_consistent();
        ASSERT_EQ(SYMH_OK, heap.resize(a, c.from));
        EXPECT_EQ(before, heap.stats());
        heap.expect_consistent();
    }
}

TEST_F(HeapAlloc, BestFitAmongHoles)
{
    // Holes of 3, 1 and 2 granules (in address order) between live blocks.
    Heap heap(MiB);
    size_t h3 = heap.alloc(3 * G);
    heap.alloc(G);
    size_t h1 = heap.alloc(G);
    heap.alloc(G);
    size_t h2 = heap.alloc(2 * G);
    heap.alloc(G);
    for (size_t h : { h3, h1, h2 })
        heap.free(h);
    EXPECT_EQ(h2, heap.alloc(2 * G));
    EXPECT_EQ(h1, heap.alloc(G));
    EXPECT_EQ(h3, heap.alloc(3 * G));
    heap.expect_consistent();
}

TEST_F(HeapAlloc, BestFitAmongLargeHolesPrefersTheLowestOffsetOnTies)
{
    Heap heap(64 * MiB);
    std::vector<size_t> holes;
    for (size_t size : { 6 * MiB, 2 * MiB, 4 * MiB, 2 * MiB }) {
        holes.push_back(heap.alloc(size));
        heap.alloc(G);
    }
    for (size_t h : holes)
        heap.free(h);
    EXPECT_EQ(holes[2], heap.alloc(3 * MiB));
    EXPECT_EQ(holes[1], heap.alloc(2 * MiB));
    EXPECT_EQ(holes[3], heap.alloc(2 * MiB - 1));
    EXPECT_EQ(holes[0], heap.alloc(5 * MiB));
    heap.expect_consistent();
}

TEST_F(HeapAlloc, FragmentationEveryOtherBlockFree)
{
    auto heap = full_heap(256);
    size_t offset = 0;
    for (size_t i = 0; i < 256; i += 2)
        heap->free(i * G);
    symh_shim_heap_alloc_stats_t holes = { 256 * G, 128 * G, 128 * G, G, 128 };
    EXPECT_EQ(holes, heap->stats());
    // Half the range is free, but no two granules of it are contiguous.
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap->try_alloc(2 * G, G, &offset));
    EXPECT_EQ(holes, heap->stats());
    heap->expect_consistent();
    EXPECT_EQ(SYMH_OK, heap->try_alloc(G, G, &offset));
    heap->free_all();
    EXPECT_EQ(256 * G, heap->stats().largest_free);
    heap->expect_consistent();
}

TEST_F(HeapAlloc, FragmentationBiggerBlocksAfterHolesThenHolesRefilled)
{
    Heap heap(MiB);
    std::vector<size_t> small;
    for (size_t i = 0; i < 64; ++i)
        small.push_back(heap.alloc(KiB));
    std::set<size_t> holes;
    for (size_t i = 0; i < 64; i += 2) {
        heap.free(small[i]);
        holes.insert(small[i]);
    }
    // 2 KiB blocks do not fit the 1 KiB holes: they go after the small blocks.
    for (size_t i = 0; i < 64; ++i)
        EXPECT_LE(64 * KiB, heap.alloc(2 * KiB));
    heap.expect_consistent();
    // 1 KiB blocks fill the holes exactly.
    std::set<size_t> refilled;
    for (size_t i = 0; i < 32; ++i)
        refilled.insert(heap.alloc(KiB));
    EXPECT_EQ(holes, refilled);
    EXPECT_EQ(MiB - 64 * KiB - 128 * KiB, heap.stats().largest_free);
    heap.expect_consistent();
}

TEST_F(HeapAlloc, AnAlignedFitIsFoundAmongManyThatDoNotFit)
{
    // 200 one-granule blocks. Free granule pairs starting at odd granules (no 256-byte block
    // fits them at a 256-byte alignment) and one pair at an even granule, freed first so that
    // it is the last of its size class to be looked at.
    auto heap = full_heap(200);
    heap->free(180 * G);
    heap->free(181 * G);
    for (size_t i = 1; i < 160; i += 4) {
        heap->free(i * G);
        heap->free((i + 1) * G);
    }
    heap->expect_consistent();
    EXPECT_EQ(180 * G, heap->alloc(2 * G, 2 * G));
    heap->expect_consistent();
    // Now none fits: 80 free granules, but not at that alignment.
    size_t offset = 0;
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, heap->try_alloc(2 * G, 2 * G, &offset));
    EXPECT_EQ(80 * G, heap->stats().free);
    heap->expect_consistent();
}

// One step of a random workload: alloc (sizes log-uniform up to `max_size`, some aligned),
// free, resize, or a free of something that is not a live block.
void random_step(Heap &heap, std::mt19937_64 &rng, size_t max_size)
{
    size_t offset = 0;
    uint64_t r = rng();
    unsigned op = r % 16;
    const auto &live = heap.live();

    if (op < 7 || live.empty()) {
        unsigned bits = 1 + unsigned(rng() % 64);
        size_t size = 1 + size_t(rng() % max_size) % (size_t(1) << (bits % 40));
        size_t alignment = (rng() % 4 == 0) ? size_t(1) << (rng() % 24) : G;
        heap.try_alloc(size, alignment, &offset);
        return;
    }
    auto it = live.begin();
    std::advance(it, long(rng() % live.size()));
    if (op < 13) {
        heap.free(it->first);
    } else if (op < 15) {
        size_t size = it->second;
        size_t new_size =
            (rng() % 2) ? 1 + size_t(rng() % size) : size + 1 + size_t(rng() % (4 * size));
        if (heap.resize(it->first, new_size) == SYMH_OK && rng() % 2) {
            EXPECT_EQ(SYMH_OK, heap.resize(it->first, size)) << "rollback";
        }
    } else {
        heap.free(it->first + G * (1 + rng() % 3)); // interior or another block's start
    }
}

TEST_F(HeapAlloc, ModelAgreesAfterEveryStepOfARandomSequence)
{
    // Small blocks (exact-size bins) in one heap, large ones (the size tree) in another.
    for (size_t max_size : { size_t(16 * KiB), size_t(4 * MiB) }) {
        SCOPED_TRACE(max_size);
        Heap heap(max_size * 64 + 7 * G);
        std::mt19937_64 rng(42);
        for (int step = 0; step < 10000 && !HasFailure(); ++step) {
            random_step(heap, rng, max_size);
            heap.expect_consistent();
        }
        heap.free_all();
        EXPECT_EQ(heap.stats().size, heap.stats().largest_free);
        heap.expect_consistent();
    }
}

// The outcome of every call of a 100k-step random sequence, as (status, offset) pairs.
std::vector<std::pair<int, size_t>> run_sequence(size_t heap_size, uint64_t seed, bool noise)
{
    std::vector<std::pair<int, size_t>> out;
    std::vector<size_t> live;
    std::vector<void *> host;
    std::mt19937_64 rng(seed);
    symh_shim_heap_alloc_t *alloc = nullptr;

    EXPECT_EQ(SYMH_OK, symh_shim_heap_alloc_create(heap_size, &alloc));
    for (int step = 0; step < 100000; ++step) {
        uint64_t r = rng();
        size_t offset = SIZE_MAX;
        int status;
        if (noise && step % 7 == 0) // host allocations move the allocator's bookkeeping around
            host.push_back(std::malloc(1 + r % 4096));
        if (live.empty() || r % 8 < 4) {
            size_t size = 1 + size_t(rng() % (size_t(1) << (4 + rng() % 14)));
            size_t alignment = rng() % 8 == 0 ? size_t(1) << (rng() % 20) : G;
            status = symh_shim_heap_alloc_alloc(alloc, size, alignment, &offset);
            if (status == SYMH_OK)
                live.push_back(offset);
        } else {
            size_t i = size_t(rng() % live.size());
            if (r % 8 == 7) {
                status = symh_shim_heap_alloc_resize(alloc, live[i], 1 + size_t(rng() % 65536));
                offset = live[i];
            } else {
                offset = live[i];
                status = symh_shim_heap_alloc_free(alloc, offset);
                live[i] = live.back();
                live.pop_back();
            }
        }
        out.emplace_back(status, offset);
    }
    EXPECT_EQ(SYMH_OK, symh_shim_heap_alloc_check(alloc));
    symh_shim_heap_alloc_destroy(alloc);
    for (void *p : host)
        std::free(p);
    return out;
}

TEST_F(HeapAlloc, SameSequenceGivesTheSameOffsets)
{
    auto first = run_sequence(64 * MiB, 7, false);
    auto second = run_sequence(64 * MiB, 7, true);
    ASSERT_EQ(first.size(), second.size());
    size_t failures = 0, successes = 0;
    for (size_t i = 0; i < first.size(); ++i) {
        ASSERT_EQ(first[i], second[i]) << "step " << i;
        (first[i].first == SYMH_OK ? successes : failures)++;
    }
    // The sequence exercised both outcomes.
    EXPECT_LT(50000u, successes);
    EXPECT_LT(0u, failures);
}

} // namespace
