// Multi-PE tests of collective calls out of step and of collective calls from several threads
// (docs/collectives.md "Calls out of step" and "Threads"): when one PE makes another collective
// call than the others, every PE's call fails with SYMH_ERR_MISMATCH, one line names both calls
// and the PEs, nothing is allocated or registered, and the job goes on in step; under
// SYMH_THREAD_MULTIPLE a second thread entering a collective while another thread of its PE is
// in one is refused with one line and nothing done, and threads that keep calling never corrupt
// the heap or hang.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include <symheap.h>
#include <symheap/rma.h>
#include <symheap/vmm.h>

#include "mpi_test_util.hpp"
#include "shim_coll.h"
#include "shim_heap_debug.h"

namespace
{

using namespace symh_test;

// The collective calls of the world team, as the error lines name them.
enum Kind {
    BARRIER_ALL,
    SYNC_ALL,
    MALLOC,
    ALIGN,
    CALLOC,
    REALLOC,
    FREE,
    REGISTER,
    UNREGISTER,
    FINALIZE,
    KINDS
};
const char *const kind_name[KINDS] = { "symh_barrier_all",
                                       "symh_sync_all",
                                       "symh_malloc",
                                       "symh_align",
                                       "symh_calloc",
                                       "symh_realloc",
                                       "symh_free",
                                       "symh_buffer_register_symmetric",
                                       "symh_buffer_unregister_symmetric",
                                       "symh_finalize" };

const size_t page = (size_t)sysconf(_SC_PAGESIZE);

// What the calls work on, made collectively before each pair: a heap block (realloc, free), a
// VMM buffer (register) and a live symmetric alias (unregister).
struct Props {
    void *block = nullptr;
    void *resv = nullptr;
    symh_physmem_t *pm = nullptr;
    char *buf = nullptr;
    void *alias = nullptr;
};

void make_props(Props &p)
{
    void *mapped = nullptr;
    p.block = symh_malloc(256);
    ASSERT_NE(nullptr, p.block);
    ASSERT_EQ(SYMH_OK, symh_vmm_reserve(8 * page, nullptr, &p.resv));
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, 8 * page, &p.pm));
    ASSERT_EQ(SYMH_OK,
              symh_physmem_map(p.pm, p.resv, 8 * page, SYMH_ACCESS_READ_WRITE, 0, &mapped));
    p.buf = (char *)mapped;
    p.alias = symh_buffer_register_symmetric(p.buf + 4 * page, 4 * page);
    ASSERT_NE(nullptr, p.alias);
}

void drop_props(Props &p)
{
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(p.alias));
    symh_free(p.block);
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(p.resv, 8 * page));
    EXPECT_EQ(SYMH_OK, symh_physmem_destroy(p.pm));
    EXPECT_EQ(SYMH_OK, symh_vmm_release(p.resv, 8 * page));
}

// Makes call `kind`; returns what symh_last_error() says after it. A pointer a failed call
// returned anyway is a test failure (and is given back so the heap stays as it was).
int call(Kind kind, Props &p)
{
    void *q = &q; // not NULL: a failed call must return NULL
    switch (kind) {
    case BARRIER_ALL:
        symh_barrier_all();
        return symh_last_error();
    case SYNC_ALL:
        symh_sync_all();
        return symh_last_error();
    case MALLOC:
        q = symh_malloc(64);
        break;
    case ALIGN:
        q = symh_align(256, 64);
        break;
    case CALLOC:
        q = symh_calloc(4, 16);
        break;
    case REALLOC:
        q = symh_realloc(p.block, 4096);
        break;
    case FREE:
        symh_free(p.block);
        return symh_last_error();
    case REGISTER:
        q = symh_buffer_register_symmetric(p.buf, 4 * page);
        break;
    case UNREGISTER:
        return symh_buffer_unregister_symmetric(p.alias);
    case FINALIZE:
        symh_finalize();
        return symh_initialized() ? SYMH_ERR_MISMATCH : SYMH_OK;
    case KINDS:
        break;
    }
    int status = symh_last_error();
    EXPECT_EQ(nullptr, q) << kind_name[kind] << " returned a pointer out of step";
    return status;
}

bool operator==(const symh_heap_stats_t &a, const symh_heap_stats_t &b)
{
    return a.size == b.size && a.used == b.used && a.free == b.free &&
           a.largest_free == b.largest_free && a.allocations == b.allocations;
}

symh_heap_stats_t heap_now()
{
    symh_heap_stats_t s{};
    EXPECT_EQ(SYMH_OK, symh_heap_stats(&s));
    return s;
}

// The PE that calls `odd` while every other PE calls `rest`: the last one (PE 0 reports).
int odd_pe()
{
    return npes() - 1;
}

// One pair out of step, neither of them finalize: every PE fails with SYMH_ERR_MISMATCH, the job
// logs one line (PE 0's) naming both calls, the heap and the registrations are as before, and a
// call in step works right after.
void expect_out_of_step(Kind odd, Kind rest, Props &p)
{
    Kind mine = me() == odd_pe() ? odd : rest;
    symh_heap_stats_t was = heap_now();
    int status = SYMH_OK;
    std::string log = symh_captured_log([&] { status = call(mine, p); });

    EXPECT_EQ(SYMH_ERR_MISMATCH, status) << kind_name[odd] << " vs " << kind_name[rest];
    EXPECT_EQ(me() == 0 ? 1u : 0u, count_lines(log, "\n")) << log;
    if (me() == 0) {
        EXPECT_NE(std::string::npos, log.find("out of step")) << log;
        EXPECT_NE(std::string::npos, log.find(std::string(kind_name[odd]) + " on PE")) << log;
        EXPECT_NE(std::string::npos, log.find(std::string(kind_name[rest]) + " on PE")) << log;
        EXPECT_NE(std::string::npos, log.find("on PE" + std::string(npes() > 2 ? "s " : " ") +
                                              (npes() > 2 ? "0-" : "0")))
            << log;
    }
    EXPECT_TRUE(heap_now() == was) << "a call out of step changed the heap";
    // In step again: the block and the alias are still live and usable on every PE.
    void *q = symh_malloc(128);
    ASSERT_NE(nullptr, q);
    EXPECT_TRUE(same_everywhere((uint64_t)((char *)q - (char *)p.block)));
    symh_free(q);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_int_p((int *)p.alias, me(), (me() + 1) % npes());
    symh_barrier_all();
    EXPECT_EQ((me() + npes() - 1) % npes(), *(int *)(p.buf + 4 * page));
}

class Coll : public SymhTest
{
};

// Every ordered pair of the kinds apart from finalize, one after another in one job, so that
// each pair runs after a history of calls in step and out of step.
TEST_F(Coll, EveryPairOutOfStepFailsEverywhereAfterEarlierCalls)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    Props p;
    make_props(p);
    for (int odd = 0; odd < FINALIZE; ++odd)
        for (int rest = 0; rest < FINALIZE; ++rest)
            if (odd != rest)
                expect_out_of_step((Kind)odd, (Kind)rest, p);
    drop_props(p);
    symh_finalize();
}

// Each pair as the first collective call after init (the barrier's first epoch), finalize
// included: a PE that finalizes while a peer makes another call fails that call, then waits
// for the peer's own finalize.
TEST_F(Coll, EveryPairOutOfStepFailsEverywhereOnAFreshStart)
{
    for (int odd = 0; odd < KINDS; ++odd) {
        for (int rest = 0; rest < KINDS; ++rest) {
            if (odd == rest)
                continue;
            ASSERT_EQ(SYMH_OK, symh_init());
            Kind mine = me() == odd_pe() ? (Kind)odd : (Kind)rest;
            Props p;
            if (odd == REGISTER || odd == UNREGISTER || rest == REGISTER || rest == UNREGISTER)
                make_props(p);
            else if (odd == REALLOC || odd == FREE || rest == REALLOC || rest == FREE)
                p.block = symh_malloc(256); // a heap block is the least a pair may need
            int status = SYMH_OK;
            std::string log = symh_captured_log([&] { status = call(mine, p); });
            if (mine == FINALIZE) {
                EXPECT_EQ(SYMH_OK, status); // finalize waited for the peers' finalize below
            } else {
                EXPECT_EQ(SYMH_ERR_MISMATCH, status) << kind_name[odd] << " vs " << kind_name[rest];
            }
            if (me() == 0) {
                EXPECT_EQ(1u, count_lines(log, "out of step")) << log;
                EXPECT_NE(std::string::npos, log.find(kind_name[odd])) << log;
                EXPECT_NE(std::string::npos, log.find(kind_name[rest])) << log;
            } else {
                EXPECT_EQ(0u, count_lines(log, "\n")) << log;
            }
            if (odd != FINALIZE && rest != FINALIZE) {
                if (p.alias != nullptr)
                    drop_props(p);
                else if (p.block != nullptr)
                    symh_free(p.block);
                symh_heap_stats_t s = heap_now();
                EXPECT_EQ(0u, s.allocations)
                    << "a call out of step left an allocation: " << kind_name[odd] << " vs "
                    << kind_name[rest];
            }
            // A PE whose peer is in finalize makes no other call: finalize takes what is left.
            if (mine != FINALIZE)
                symh_finalize();
            EXPECT_EQ(0, symh_initialized());
        }
    }
}

// Two threads of one PE: while one is in symh_barrier_all (its peers hold back), the other's
// collective calls are refused at once, each with one line and nothing done.
TEST_F(Coll, SecondThreadInACollectiveIsRefusedWithNothingDone)
{
    int provided = -1;
    ASSERT_EQ(SYMH_OK, symh_init_thread(SYMH_THREAD_MULTIPLE, &provided));
    if (provided != SYMH_THREAD_MULTIPLE) {
        symh_finalize();
        GTEST_FAIL() << "MPI does not provide MPI_THREAD_MULTIPLE here";
    }
    int *go = (int *)symh_calloc(1, sizeof(int));
    void *block = symh_malloc(64);
    ASSERT_NE(nullptr, go);
    ASSERT_NE(nullptr, block);
    symh_heap_stats_t was = heap_now();
    if (me() == 0) {
        std::thread in_barrier([] { symh_barrier_all(); });
        while (symh_shim_coll_busy() == 0)
            std::this_thread::yield();
        std::string log = symh_captured_log([&] {
            EXPECT_EQ(nullptr, symh_malloc(64));
            EXPECT_EQ(SYMH_ERR_MISMATCH, symh_last_error());
            symh_free(block);
            EXPECT_EQ(SYMH_ERR_MISMATCH, symh_last_error());
            symh_sync_all();
            EXPECT_EQ(SYMH_ERR_MISMATCH, symh_last_error());
        });
        EXPECT_EQ(3u, count_lines(log, "while another thread of this PE is in symh_barrier_all"))
            << log;
        EXPECT_EQ(3u, count_lines(log, "\n")) << log;
        EXPECT_TRUE(heap_now() == was) << "a refused call changed the heap";
        for (int pe = 1; pe < npes(); ++pe)
            symh_int_p(go, 1, pe);
        in_barrier.join();
        EXPECT_EQ(0, symh_shim_coll_busy());
    } else {
        symh_int_wait_until(go, SYMH_CMP_EQ, 1);
        symh_barrier_all();
    }
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_free(block);
    symh_free(go);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_finalize();
}

// `threads` threads per PE, released together, each call symh_malloc/symh_free `iterations`
// times, retrying
// a call that was refused (another thread was in one) or that met another PE's different call.
// Calls are matched across PEs in the order they enter, so threads' calls pair up at random:
// whatever pairs, no PE may hang, and the heap ends empty and the same on every PE.
void hammer(int threads, int iterations)
{
    int provided = -1;
    ASSERT_EQ(SYMH_OK, symh_init_thread(SYMH_THREAD_MULTIPLE, &provided));
    ASSERT_EQ(SYMH_THREAD_MULTIPLE, provided);
    std::atomic<long> refused{ 0 }, done{ 0 };
    std::atomic<int> ready{ 0 };
    std::string log = symh_captured_log([&] {
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t) {
            pool.emplace_back([&] {
                ++ready;
                while (ready.load() < threads)
                    std::this_thread::yield();
                for (int i = 0; i < iterations; ++i) {
                    void *p;
                    while ((p = symh_malloc(64)) == nullptr) {
                        EXPECT_EQ(SYMH_ERR_MISMATCH, symh_last_error());
                        ++refused;
                        std::this_thread::yield();
                    }
                    for (;;) {
                        symh_free(p);
                        if (symh_last_error() == SYMH_OK)
                            break;
                        EXPECT_EQ(SYMH_ERR_MISMATCH, symh_last_error());
                        ++refused;
                        std::this_thread::yield();
                    }
                    ++done;
                }
            });
        }
        for (auto &t : pool)
            t.join();
        symh_shim_log_flush(); // the rate limit's "suppressed" summaries belong to this log
    });
    EXPECT_EQ((long)threads * iterations, done.load());
    symh_heap_stats_t s = heap_now();
    EXPECT_EQ(0u, s.used);
    EXPECT_EQ(0u, s.allocations);
    EXPECT_EQ(s.size, s.largest_free) << "the heap did not coalesce back";
    EXPECT_TRUE(same_everywhere(s.free));
    void *q = symh_malloc(64);
    ASSERT_NE(nullptr, q);
    EXPECT_TRUE(same_everywhere((uint64_t)((char *)q - (char *)symh_shim_heap_base())));
    symh_free(q);
    if (me() == 0)
        printf("  %d threads x %d malloc+free on each PE, %ld calls refused or out of step\n",
               threads, iterations, refused.load());
    (void)log;
    symh_finalize();
}

// A second thread per PE puts, gets and adds into an allocation that lives throughout while the
// first thread allocates and frees blocks around it (collective, so in step with the other PEs):
// the bounds check reads the heap's allocation map as the heap changes it (docs/rma.md "Bounds by
// allocation"), and no access inside the live allocation is ever refused. Under the thread
// sanitizer this is where a plain access to the map would show.
TEST_F(Coll, PutThreadsPerPeBesideMallocAndFree)
{
    int provided = -1;
    ASSERT_EQ(SYMH_OK, symh_init_thread(SYMH_THREAD_MULTIPLE, &provided));
    ASSERT_EQ(SYMH_THREAD_MULTIPLE, provided);
    const int peer = (me() + 1) % npes();
    auto *words = (long *)symh_calloc(64, sizeof(long));
    ASSERT_NE(nullptr, words);
    std::atomic<bool> stop{ false };
    std::atomic<long> refused{ 0 }, ops{ 0 };
    std::thread putter([&] {
        long got[4];
        for (long i = 0; !stop.load(std::memory_order_relaxed); ++i) {
            symh_long_p(&words[i % 64], i, peer);
            refused += symh_last_error() != SYMH_OK;
            symh_long_get(got, &words[(i * 7) % 61], 4, peer);
            refused += symh_last_error() != SYMH_OK;
            symh_long_atomic_add(&words[63], 1, peer);
            refused += symh_last_error() != SYMH_OK;
            ++ops;
        }
    });
    for (int i = 0; i < 300; ++i) {
        void *a = symh_malloc(64 + (size_t)(i % 5) * 128), *b = symh_calloc(1, 9000);
        EXPECT_NE(nullptr, a);
        EXPECT_NE(nullptr, b);
        void *c = symh_realloc(a, 200 + (size_t)(i % 3) * 4096);
        EXPECT_NE(nullptr, c);
        symh_free(b);
        symh_free(c);
    }
    stop = true;
    putter.join();
    EXPECT_EQ(0, refused.load()) << "of " << ops.load() << " accesses inside a live allocation";
    symh_barrier_all();
    symh_free(words);
    symh_finalize();
}

TEST_F(Coll, TwoThreadsPerPeNeverCorruptOrHang)
{
    hammer(2, 20000);
}

TEST_F(Coll, FourThreadsPerPeNeverCorruptOrHang)
{
    hammer(4, 20000);
}

} // namespace
