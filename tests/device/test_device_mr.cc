// Tests of the memory resources (symh_mr_*): argument checks, the base resources, the statistics,
// limiting, pool, logging (CSV read back) and aligned adaptors, their composition, the
// per-device table and its use from 8 threads at once, and calls outside init/finalize.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <sys/syscall.h>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <utility>
#include <vector>

#include <symheap.h>

#include "device_test_env.hpp"
#include "mpi_test_util.hpp"
#include "shim_dev.h"

namespace
{

using symh_test::expect_one_line;
using symh_test::log_lines;
using symh_test::sentinel;
using symh_test::stats_of;

bool aligned_to(const void *p, size_t alignment)
{
    return (uintptr_t)p % alignment == 0;
}

class MrBeforeInit : public SymhTest
{
};

// No symh_init needed (docs/devices.md): the device resources come up locally on first use.
TEST_F(MrBeforeInit, DeviceCallsWorkWithoutInit)
{
    ASSERT_EQ(0, symh_initialized());
    symh_mr_t *other = symh_mr_host_create();
    ASSERT_NE(nullptr, other);
    std::string log = symh_captured_log([&] {
        symh_mr_t *dev = symh_mr_device_create(0);
        EXPECT_NE(nullptr, dev);
        EXPECT_EQ(SYMH_OK, symh_last_error());
        symh_mr_t *initial = symh_mr_get_per_device(0);
        EXPECT_NE(nullptr, initial);
        EXPECT_EQ(SYMH_OK, symh_last_error());
        EXPECT_EQ(initial, symh_mr_get_current());
        void *p = nullptr;
        ASSERT_EQ(SYMH_OK, symh_mr_allocate(dev, 64, 64, &p));
        EXPECT_EQ(SYMH_OK, symh_mr_deallocate(dev, p, 64, 64));
        symh_mr_destroy(dev);
    });
    EXPECT_EQ("", log);

    // Resources that name no device need no runtime.
    for (symh_mr_t *base : { symh_mr_host_create(), symh_mr_pinned_host_create() }) {
        ASSERT_NE(nullptr, base);
        symh_mr_t *stats = symh_mr_statistics_create(base);
        symh_mr_t *pool = symh_mr_pool_create(stats, 4096, 0);
        ASSERT_NE(nullptr, pool);
        void *p = nullptr;
        ASSERT_EQ(SYMH_OK, symh_mr_allocate(pool, 100, 8, &p));
        memset(p, 1, 100);
        EXPECT_EQ(SYMH_OK, symh_mr_deallocate(pool, p, 100, 8));
        symh_mr_destroy(pool);
        EXPECT_EQ(0u, stats_of(stats).bytes_current);
        symh_mr_destroy(stats);
        symh_mr_destroy(base);
    }
    symh_mr_destroy(other);
}

class Mr : public SymhSuiteInitTest
{
  protected:
    void SetUp() override
    {
        SymhTest::SetUp();
        n = symh_device_count();
        ASSERT_EQ(symh_test::expected_device_count(n), n)
            << "the devices this run was configured with";
        ASSERT_EQ(SYMH_OK, symh_device_set(0));
        host = symh_mr_host_create();
        ASSERT_NE(nullptr, host);
    }
    void TearDown() override
    {
        symh_mr_destroy(host);
        SymhTest::TearDown();
    }
    int n = 0;
    symh_mr_t *host = nullptr;
};

TEST_F(Mr, ArgumentChecks)
{
    void *p = sentinel();
    expect_one_line("resource is NULL",
                    [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_mr_allocate(nullptr, 8, 8, &p)); });
    expect_one_line("pointer is NULL", [&] {
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_mr_allocate(host, 8, 8, nullptr));
    });
    expect_one_line("zero bytes",
                    [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_mr_allocate(host, 0, 8, &p)); });
    for (size_t alignment : { (size_t)0, (size_t)3, (size_t)24, SIZE_MAX }) {
        expect_one_line("not a power of two", [&] {
            EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_mr_allocate(host, 8, alignment, &p));
        });
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    }
    EXPECT_EQ(sentinel(), p) << "*ptr is written only on success";

    ASSERT_EQ(SYMH_OK, symh_mr_allocate(host, 64, 16, &p));
    EXPECT_EQ(SYMH_OK, symh_last_error());
    expect_one_line("resource is NULL", [&] {
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_mr_deallocate(nullptr, p, 64, 16));
    });
    expect_one_line("pointer is NULL", [&] {
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_mr_deallocate(host, nullptr, 64, 16));
    });
    expect_one_line("alignment 12",
                    [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_mr_deallocate(host, p, 64, 12)); });
    EXPECT_EQ(SYMH_OK, symh_mr_deallocate(host, p, 64, 16));

    expect_one_line("NULL", [&] { EXPECT_EQ(nullptr, symh_mr_name(nullptr)); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    expect_one_line("NULL", [&] { EXPECT_EQ(nullptr, symh_mr_get_upstream(nullptr)); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    expect_one_line("upstream", [&] { EXPECT_EQ(nullptr, symh_mr_pool_create(nullptr, 0, 0)); });
    expect_one_line("upstream", [&] { EXPECT_EQ(nullptr, symh_mr_statistics_create(nullptr)); });
    expect_one_line("upstream", [&] { EXPECT_EQ(nullptr, symh_mr_limiting_create(nullptr, 1)); });
    expect_one_line("upstream",
                    [&] { EXPECT_EQ(nullptr, symh_mr_logging_create(nullptr, "/tmp/x.csv")); });
    expect_one_line("upstream",
                    [&] { EXPECT_EQ(nullptr, symh_mr_aligned_create(nullptr, 64, 0)); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    expect_one_line("alignment 48",
                    [&] { EXPECT_EQ(nullptr, symh_mr_aligned_create(host, 48, 0)); });
    expect_one_line("CSV path is NULL",
                    [&] { EXPECT_EQ(nullptr, symh_mr_logging_create(host, nullptr)); });
    expect_one_line("larger than the maximum",
                    [&] { EXPECT_EQ(nullptr, symh_mr_pool_create(host, 8192, 4096)); });
    expect_one_line("cannot open", [&] {
        EXPECT_EQ(nullptr, symh_mr_logging_create(host, "/nonexistent-dir/symh/log.csv"));
    });
    EXPECT_EQ(SYMH_ERR_SYSTEM, symh_last_error());

    symh_mr_stats_t s;
    expect_one_line("keeps no statistics",
                    [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_mr_statistics_get(host, &s)); });
    symh_mr_t *stats = symh_mr_statistics_create(host);
    expect_one_line("stats is NULL", [&] {
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_mr_statistics_get(stats, nullptr));
    });
    symh_mr_destroy(stats);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_mr_destroy(nullptr); // nothing, like free(NULL)
    EXPECT_EQ(SYMH_OK, symh_last_error());
}

TEST_F(Mr, BaseResources)
{
    symh_mr_t *pinned = symh_mr_pinned_host_create();
    ASSERT_NE(nullptr, pinned);
    std::vector<symh_mr_t *> devices;
    for (int d = 0; d < n; ++d) {
        devices.push_back(symh_mr_device_create(d));
        ASSERT_NE(nullptr, devices.back());
        EXPECT_STREQ("device", symh_mr_name(devices.back()));
    }
    symh_mr_t *current = symh_mr_device_create(SYMH_DEVICE_CURRENT);
    ASSERT_NE(nullptr, current);
    EXPECT_STREQ("host", symh_mr_name(host));
    EXPECT_STREQ("pinned_host", symh_mr_name(pinned));
    EXPECT_EQ(SYMH_OK, symh_last_error());

    std::vector<symh_mr_t *> all = devices;
    all.insert(all.end(), { host, pinned, current });
    for (symh_mr_t *mr : all) {
        EXPECT_EQ(nullptr, symh_mr_get_upstream(mr));
        EXPECT_EQ(SYMH_OK, symh_last_error());
        for (size_t alignment : { (size_t)1, (size_t)64, (size_t)4096, (size_t)1 << 16 }) {
            for (size_t bytes : { (size_t)1, (size_t)1000, (size_t)100000 }) {
                void *p = nullptr;
                ASSERT_EQ(SYMH_OK, symh_mr_allocate(mr, bytes, alignment, &p));
                EXPECT_TRUE(aligned_to(p, alignment)) << symh_mr_name(mr) << " " << alignment;
                EXPECT_EQ(SYMH_OK, symh_shim_dev_active_fill(p, 0x7e, bytes)); // device memory too
                EXPECT_EQ(SYMH_OK, symh_mr_deallocate(mr, p, bytes, alignment));
            }
        }
    }
    std::string past = "device " + std::to_string(n + 5);
    expect_one_line(past.c_str(), [&] { EXPECT_EQ(nullptr, symh_mr_device_create(n + 5)); });
    expect_one_line("device -2",
                    [&] { EXPECT_EQ(nullptr, symh_mr_device_create(SYMH_DEVICE_ANY)); });
    EXPECT_EQ(SYMH_ERR_NO_DEVICE, symh_last_error());
    for (symh_mr_t *mr : devices)
        symh_mr_destroy(mr);
    symh_mr_destroy(current);
    symh_mr_destroy(pinned);
}

TEST_F(Mr, StatisticsCountTheBytesRequestedExactly)
{
    // (A limiting adaptor below, to see a refusal: sanitizer allocators abort on huge sizes.)
    symh_mr_t *lim = symh_mr_limiting_create(host, 1000);
    symh_mr_t *stats = symh_mr_statistics_create(lim);
    ASSERT_NE(nullptr, stats);
    EXPECT_STREQ("statistics", symh_mr_name(stats));
    EXPECT_EQ(lim, symh_mr_get_upstream(stats));
    symh_mr_stats_t s = stats_of(stats);
    EXPECT_EQ(0u, s.bytes_current + s.bytes_peak + s.bytes_total);
    EXPECT_EQ(0u, s.allocs_current + s.allocs_peak + s.allocs_total);

    void *a, *b, *c, *d;
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(stats, 100, 8, &a));
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(stats, 201, 64, &b));
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(stats, 3, 1, &c));
    s = stats_of(stats);
    EXPECT_EQ(304u, s.bytes_current);
    EXPECT_EQ(304u, s.bytes_peak);
    EXPECT_EQ(304u, s.bytes_total);
    EXPECT_EQ(3u, s.allocs_current);
    EXPECT_EQ(3u, s.allocs_peak);
    EXPECT_EQ(3u, s.allocs_total);

    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(stats, b, 201, 64));
    s = stats_of(stats);
    EXPECT_EQ(103u, s.bytes_current);
    EXPECT_EQ(304u, s.bytes_peak);
    EXPECT_EQ(304u, s.bytes_total);
    EXPECT_EQ(2u, s.allocs_current);
    EXPECT_EQ(3u, s.allocs_peak);
    EXPECT_EQ(3u, s.allocs_total);

    ASSERT_EQ(SYMH_OK, symh_mr_allocate(stats, 50, 8, &d));
    s = stats_of(stats);
    EXPECT_EQ(153u, s.bytes_current);
    EXPECT_EQ(304u, s.bytes_peak);
    EXPECT_EQ(354u, s.bytes_total);
    EXPECT_EQ(3u, s.allocs_current);
    EXPECT_EQ(3u, s.allocs_peak);
    EXPECT_EQ(4u, s.allocs_total);

    // A refused allocation counts nothing.
    void *p = sentinel();
    expect_one_line("limiting resource",
                    [&] { EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_mr_allocate(stats, 900, 8, &p)); });
    EXPECT_EQ(sentinel(), p);
    EXPECT_EQ(4u, stats_of(stats).allocs_total);
    EXPECT_EQ(153u, stats_of(stats).bytes_current);

    for (auto [ptr, bytes, alignment] :
         { std::tuple<void *, size_t, size_t>{ a, 100, 8 }, { c, 3, 1 }, { d, 50, 8 } })
        ASSERT_EQ(SYMH_OK, symh_mr_deallocate(stats, ptr, bytes, alignment));
    s = stats_of(stats);
    EXPECT_EQ(0u, s.bytes_current);
    EXPECT_EQ(0u, s.allocs_current);
    EXPECT_EQ(354u, s.bytes_total);
    symh_mr_destroy(stats);
    symh_mr_destroy(lim);
}

TEST_F(Mr, LimitingRefusesPastTheLimit)
{
    symh_mr_t *lim = symh_mr_limiting_create(host, 1000);
    ASSERT_NE(nullptr, lim);
    EXPECT_STREQ("limiting", symh_mr_name(lim));
    EXPECT_EQ(host, symh_mr_get_upstream(lim));
    void *a, *b, *p = sentinel();
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(lim, 600, 8, &a));
    expect_one_line("limit of 1000",
                    [&] { EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_mr_allocate(lim, 401, 8, &p)); });
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_last_error());
    EXPECT_EQ(sentinel(), p);
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(lim, 400, 8, &b)) << "exactly up to the limit";
    expect_one_line("1000 in use",
                    [&] { EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_mr_allocate(lim, 1, 1, &p)); });
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(lim, a, 600, 8));
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(lim, 600, 8, &a)) << "freed bytes count again";
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(lim, a, 600, 8));
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(lim, b, 400, 8));
    expect_one_line("1001 bytes",
                    [&] { EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_mr_allocate(lim, 1001, 8, &p)); });
    symh_mr_destroy(lim);
}

TEST_F(Mr, PoolGrowsToItsMaximumThenRefuses)
{
    // The statistics adaptor below the pool shows what the pool takes from upstream.
    symh_mr_t *up = symh_mr_statistics_create(host);
    symh_mr_t *pool = symh_mr_pool_create(up, 1024, 4096);
    ASSERT_NE(nullptr, pool);
    EXPECT_STREQ("pool", symh_mr_name(pool));
    EXPECT_EQ(up, symh_mr_get_upstream(pool));
    EXPECT_EQ(1024u, stats_of(up).bytes_current) << "the initial size is taken at creation";

    void *a, *b, *c, *d, *p = sentinel();
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(pool, 1000, 8, &a));
    EXPECT_EQ(1024u, stats_of(up).bytes_current) << "fits the initial chunk";
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(pool, 1024, 8, &b));
    EXPECT_EQ(2048u, stats_of(up).bytes_current);
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(pool, 2048, 8, &c));
    EXPECT_EQ(4096u, stats_of(up).bytes_current);
    EXPECT_EQ(3u, stats_of(up).allocs_current);
    expect_one_line("maximum of 4096",
                    [&] { EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_mr_allocate(pool, 1, 8, &p)); });
    EXPECT_EQ(sentinel(), p);
    EXPECT_EQ(4096u, stats_of(up).bytes_current) << "a refusal takes nothing";

    // Freed blocks are reused without growing; first fit gives the same address back.
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(pool, b, 1024, 8));
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(pool, 512, 8, &d));
    EXPECT_EQ(b, d);
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(pool, 512, 8, &b));
    EXPECT_EQ((char *)d + 512, (char *)b);
    EXPECT_EQ(4096u, stats_of(up).bytes_current);
    EXPECT_EQ(SYMH_OK, symh_shim_dev_active_fill(a, 1, 1000));
    EXPECT_EQ(SYMH_OK, symh_shim_dev_active_fill(b, 2, 512));
    EXPECT_EQ(SYMH_OK, symh_shim_dev_active_fill(c, 3, 2048));
    EXPECT_EQ(SYMH_OK, symh_shim_dev_active_fill(d, 4, 512));

    // Misuse: a pointer the pool did not hand out, or the wrong size.
    int local = 0;
    expect_one_line("not an allocation of this pool", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_mr_deallocate(pool, &local, 4, 4));
    });
    expect_one_line("not an allocation of this pool", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_mr_deallocate(pool, (char *)a + 8, 8, 8));
    });
    expect_one_line("size other than 64",
                    [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_mr_deallocate(pool, a, 64, 8)); });

    for (auto [ptr, bytes] :
         { std::pair<void *, size_t>{ a, 1000 }, { b, 512 }, { c, 2048 }, { d, 512 } })
        ASSERT_EQ(SYMH_OK, symh_mr_deallocate(pool, ptr, bytes, 8));
    expect_one_line("not an allocation of this pool", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_mr_deallocate(pool, a, 1000, 8));
    });
    // The whole maximum is free again, in chunks: the largest block is a chunk.
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(pool, 2048, 8, &c));
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(pool, c, 2048, 8));
    symh_mr_destroy(pool);
    EXPECT_EQ(0u, stats_of(up).bytes_current) << "destroy gives every chunk back";
    EXPECT_EQ(0u, stats_of(up).allocs_current);
    symh_mr_destroy(up);
}

TEST_F(Mr, PoolHonoursAlignmentAndGrowsWithoutMaximum)
{
    symh_mr_t *up = symh_mr_statistics_create(host);
    symh_mr_t *pool = symh_mr_pool_create(up, 0, 0);
    ASSERT_NE(nullptr, pool);
    EXPECT_EQ(0u, stats_of(up).bytes_current);
    std::vector<std::tuple<void *, size_t, size_t>> live;
    for (int i = 0; i < 64; ++i) {
        size_t bytes = 1 + (size_t)i * 977, alignment = (size_t)1 << (i % 14);
        void *p = nullptr;
        ASSERT_EQ(SYMH_OK, symh_mr_allocate(pool, bytes, alignment, &p));
        EXPECT_TRUE(aligned_to(p, alignment)) << alignment;
        ASSERT_EQ(SYMH_OK, symh_shim_dev_active_fill(p, i, bytes));
        live.emplace_back(p, bytes, alignment);
    }
    // Blocks never overlap: each still holds its own byte.
    for (size_t i = 0; i < live.size(); ++i) {
        std::vector<unsigned char> back(std::get<1>(live[i]));
        ASSERT_EQ(SYMH_OK,
                  symh_shim_dev_active_copy(back.data(), std::get<0>(live[i]), back.size()));
        for (size_t j = 0; j < back.size(); ++j)
            ASSERT_EQ((unsigned char)i, back[j]);
    }
    EXPECT_GE(stats_of(up).bytes_current, (size_t)64 * 977 * 63 / 2);
    for (auto [p, bytes, alignment] : live)
        ASSERT_EQ(SYMH_OK, symh_mr_deallocate(pool, p, bytes, alignment));
    symh_mr_destroy(pool);
    EXPECT_EQ(0u, stats_of(up).bytes_current);
    symh_mr_destroy(up);
}

std::vector<std::string> split(const std::string &line, char sep)
{
    std::vector<std::string> fields;
    std::stringstream in(line);
    std::string field;
    while (std::getline(in, field, sep))
        fields.push_back(field);
    return fields;
}

std::string hex(const void *p)
{
    char text[32];
    snprintf(text, sizeof(text), "0x%jx", (uintmax_t)(uintptr_t)p);
    return text;
}

TEST_F(Mr, LoggingWritesTheCsvFormat)
{
    std::string path = "/tmp/symh_test_device_mr_" + std::to_string(getpid()) + ".csv";
    symh_mr_t *lim = symh_mr_limiting_create(host, 4096);
    symh_mr_t *lg = symh_mr_logging_create(lim, path.c_str());
    ASSERT_NE(nullptr, lg);
    EXPECT_STREQ("logging", symh_mr_name(lg));
    EXPECT_EQ(lim, symh_mr_get_upstream(lg));

    void *a, *b, *p = sentinel();
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(lg, 128, 8, &a));
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(lg, 3000, 512, &b));
    expect_one_line("limiting resource",
                    [&] { EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_mr_allocate(lg, 2000, 8, &p)); });
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(lg, a, 128, 8));
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(lg, b, 3000, 512));

    // Complete while the resource lives (flushed per line).
    std::ifstream in(path);
    ASSERT_TRUE(in.good()) << path;
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    ASSERT_EQ(6u, lines.size());
    EXPECT_EQ("Thread,Time,Action,Pointer,Size,Stream", lines[0]);
    const std::string expected[][3] = { { "allocate", hex(a), "128" },
                                        { "allocate", hex(b), "3000" },
                                        { "allocate failure", "0x0", "2000" },
                                        { "free", hex(a), "128" },
                                        { "free", hex(b), "3000" } };
    const std::regex time("[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\\.[0-9]{6}");
    const std::string tid = std::to_string((long)syscall(SYS_gettid));
    for (size_t i = 0; i < 5; ++i) {
        std::vector<std::string> f = split(lines[i + 1], ',');
        ASSERT_EQ(6u, f.size()) << lines[i + 1];
        EXPECT_EQ(tid, f[0]) << lines[i + 1];
        EXPECT_TRUE(std::regex_match(f[1], time)) << lines[i + 1];
        EXPECT_EQ(expected[i][0], f[2]) << lines[i + 1];
        EXPECT_EQ(expected[i][1], f[3]) << lines[i + 1];
        EXPECT_EQ(expected[i][2], f[4]) << lines[i + 1];
        EXPECT_EQ("0x0", f[5]) << lines[i + 1];
    }
    symh_mr_destroy(lg);
    symh_mr_destroy(lim);

    // A new logging resource truncates the file.
    lg = symh_mr_logging_create(host, path.c_str());
    ASSERT_NE(nullptr, lg);
    symh_mr_destroy(lg);
    std::ifstream again(path);
    std::string all((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
    EXPECT_EQ("Thread,Time,Action,Pointer,Size,Stream\n", all);
    unlink(path.c_str());
}

TEST_F(Mr, AlignedAdaptorAlignsFromTheThreshold)
{
    symh_mr_t *up = symh_mr_statistics_create(host);
    symh_mr_t *al = symh_mr_aligned_create(up, 1 << 16, 1024);
    ASSERT_NE(nullptr, al);
    EXPECT_STREQ("aligned", symh_mr_name(al));
    EXPECT_EQ(up, symh_mr_get_upstream(al));
    std::vector<void *> big, small;
    for (int i = 0; i < 16; ++i) {
        void *p;
        ASSERT_EQ(SYMH_OK, symh_mr_allocate(al, 1024 + (size_t)i, 8, &p));
        EXPECT_TRUE(aligned_to(p, 1 << 16)) << "at the threshold and above";
        big.push_back(p);
        ASSERT_EQ(SYMH_OK, symh_mr_allocate(al, 1023, 16, &p));
        EXPECT_TRUE(aligned_to(p, 16));
        small.push_back(p);
    }
    // A larger alignment asked for wins over the adaptor's.
    void *p;
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(al, 4096, 1 << 20, &p));
    EXPECT_TRUE(aligned_to(p, 1 << 20));
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(al, p, 4096, 1 << 20));
    for (int i = 0; i < 16; ++i) {
        ASSERT_EQ(SYMH_OK, symh_mr_deallocate(al, big[i], 1024 + (size_t)i, 8));
        ASSERT_EQ(SYMH_OK, symh_mr_deallocate(al, small[i], 1023, 16));
    }
    EXPECT_EQ(0u, stats_of(up).bytes_current);
    EXPECT_EQ(33u, stats_of(up).allocs_total);
    symh_mr_destroy(al);

    // Aligned over a pool: the pool honours the raised alignment too.
    symh_mr_t *pool = symh_mr_pool_create(host, 1 << 20, 0);
    al = symh_mr_aligned_create(pool, 4096, 0);
    for (int i = 0; i < 8; ++i) {
        ASSERT_EQ(SYMH_OK, symh_mr_allocate(al, 100, 8, &p));
        EXPECT_TRUE(aligned_to(p, 4096));
    }
    symh_mr_destroy(al);
    symh_captured_log([&] { symh_mr_destroy(pool); }); // 8 live blocks: one warning
    symh_mr_destroy(up);
}

TEST_F(Mr, AdaptorsCompose)
{
    // statistics over limiting over pool over host.
    symh_mr_t *pool = symh_mr_pool_create(host, 0, 8192);
    symh_mr_t *lim = symh_mr_limiting_create(pool, 4096);
    symh_mr_t *stats = symh_mr_statistics_create(lim);
    ASSERT_NE(nullptr, stats);
    const char *chain[] = { "statistics", "limiting", "pool", "host" };
    const symh_mr_t *mr = stats;
    for (const char *name : chain) {
        ASSERT_NE(nullptr, mr);
        EXPECT_STREQ(name, symh_mr_name(mr));
        mr = symh_mr_get_upstream(mr);
    }
    EXPECT_EQ(nullptr, mr);
    EXPECT_EQ(SYMH_OK, symh_last_error());

    void *a, *b, *c, *p = sentinel();
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(stats, 1000, 8, &a));
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(stats, 2000, 8, &b));
    expect_one_line("limiting resource",
                    [&] { EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_mr_allocate(stats, 1500, 8, &p)); });
    symh_mr_stats_t s = stats_of(stats);
    EXPECT_EQ(3000u, s.bytes_current);
    EXPECT_EQ(2u, s.allocs_total);
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(stats, a, 1000, 8));
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(stats, 1500, 8, &c));
    s = stats_of(stats);
    EXPECT_EQ(3500u, s.bytes_current);
    EXPECT_EQ(3500u, s.bytes_peak);
    EXPECT_EQ(4500u, s.bytes_total);
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(stats, b, 2000, 8));
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(stats, c, 1500, 8));
    symh_mr_destroy(stats);
    symh_mr_destroy(lim);
    symh_mr_destroy(pool);

    // A refusal from below the limiting adaptor gives its bytes back.
    pool = symh_mr_pool_create(host, 0, 1024);
    lim = symh_mr_limiting_create(pool, 1 << 20);
    expect_one_line("maximum of 1024",
                    [&] { EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_mr_allocate(lim, 2048, 8, &p)); });
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(lim, 1024, 8, &a));
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(lim, a, 1024, 8));
    symh_mr_destroy(lim);
    symh_mr_destroy(pool);
}

TEST_F(Mr, PerDeviceTable)
{
    std::vector<symh_mr_t *> initial;
    for (int d = 0; d < n; ++d) {
        initial.push_back(symh_mr_get_per_device(d));
        ASSERT_NE(nullptr, initial.back());
        EXPECT_EQ(SYMH_OK, symh_last_error());
        EXPECT_STREQ("device", symh_mr_name(initial.back()));
        void *p;
        ASSERT_EQ(SYMH_OK, symh_mr_allocate(initial.back(), 100, 64, &p));
        EXPECT_EQ(SYMH_OK, symh_mr_deallocate(initial.back(), p, 100, 64));
    }
    EXPECT_EQ(n, (int)std::set<symh_mr_t *>(initial.begin(), initial.end()).size());
    EXPECT_EQ(initial[0], symh_mr_get_current());
    expect_one_line("belongs to the runtime", [&] { symh_mr_destroy(initial[0]); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    EXPECT_EQ(initial[0], symh_mr_get_per_device(0)) << "the initial resource survives";

    symh_mr_t *stats = symh_mr_statistics_create(host);
    symh_mr_t *other = symh_mr_statistics_create(host);
    int last = n - 1;
    EXPECT_EQ(initial[last], symh_mr_set_per_device(last, stats)) << "set returns the previous";
    EXPECT_EQ(stats, symh_mr_get_per_device(last));
    for (int d = 0; d < last; ++d)
        EXPECT_EQ(initial[d], symh_mr_get_per_device(d)) << "other devices keep theirs";
    expect_one_line("is set for device", [&] { symh_mr_destroy(stats); });
    EXPECT_EQ(stats, symh_mr_set_per_device(last, other));
    EXPECT_EQ(other, symh_mr_set_per_device(last, nullptr)) << "NULL resets";
    EXPECT_EQ(initial[last], symh_mr_get_per_device(last));
    EXPECT_EQ(initial[last], symh_mr_set_per_device(last, stats));
    EXPECT_EQ(stats, symh_mr_reset_per_device(last)) << "reset returns the previous";
    EXPECT_EQ(initial[last], symh_mr_get_per_device(last));
    EXPECT_EQ(initial[last], symh_mr_reset_per_device(last)) << "reset of the initial one";

    // The current-device calls follow this thread's current device.
    ASSERT_EQ(SYMH_OK, symh_device_set(last));
    EXPECT_EQ(initial[last], symh_mr_set_current(stats));
    EXPECT_EQ(stats, symh_mr_get_current());
    EXPECT_EQ(stats, symh_mr_get_per_device(last));
    if (n > 1) {
        EXPECT_EQ(initial[0], symh_mr_get_per_device(0));
    }
    void *p;
    ASSERT_EQ(SYMH_OK, symh_mr_allocate(symh_mr_get_current(), 77, 8, &p));
    EXPECT_EQ(77u, stats_of(stats).bytes_current);
    ASSERT_EQ(SYMH_OK, symh_mr_deallocate(stats, p, 77, 8));
    EXPECT_EQ(stats, symh_mr_set_current(nullptr));
    EXPECT_EQ(initial[last], symh_mr_get_current());
    EXPECT_EQ(initial[last], symh_mr_set_current(other));
    EXPECT_EQ(other, symh_mr_reset_current());
    EXPECT_EQ(initial[last], symh_mr_get_current());
    EXPECT_EQ(SYMH_OK, symh_last_error());

    // Bad ids: NULL, one line each, the table unchanged.
    for (int id : { -1, SYMH_DEVICE_CURRENT, SYMH_DEVICE_ANY, n, n + 100 }) {
        expect_one_line("is not a device id",
                        [&] { EXPECT_EQ(nullptr, symh_mr_get_per_device(id)); });
        EXPECT_EQ(SYMH_ERR_NO_DEVICE, symh_last_error());
        expect_one_line("is not a device id",
                        [&] { EXPECT_EQ(nullptr, symh_mr_set_per_device(id, stats)); });
        expect_one_line("is not a device id",
                        [&] { EXPECT_EQ(nullptr, symh_mr_reset_per_device(id)); });
    }
    for (int d = 0; d < n; ++d)
        EXPECT_EQ(initial[d], symh_mr_get_per_device(d));
    symh_mr_destroy(stats);
    symh_mr_destroy(other);
    EXPECT_EQ(SYMH_OK, symh_last_error());
}

// 8 threads set, get and reset the table entries and allocate through whatever they find, all at
// once; every resource they see must be one that was set, and the counts must add up.
TEST_F(Mr, TableAndAdaptorsFromEightThreads)
{
    const int n_threads = 8, rounds = 2000;
    std::vector<symh_mr_t *> initial, mine;
    for (int d = 0; d < n; ++d)
        initial.push_back(symh_mr_get_per_device(d));
    symh_mr_t *shared_pool = symh_mr_pool_create(host, 0, 0);
    symh_mr_t *shared = symh_mr_statistics_create(shared_pool);
    for (int t = 0; t < n_threads; ++t)
        mine.push_back(symh_mr_statistics_create(shared));
    std::set<symh_mr_t *> valid(initial.begin(), initial.end());
    valid.insert(mine.begin(), mine.end());
    std::atomic<int> bad{ 0 };

    std::vector<std::thread> threads;
    for (int t = 0; t < n_threads; ++t)
        threads.emplace_back([&, t] {
            int device = t % n;
            if (symh_device_set(device) != SYMH_OK)
                ++bad;
            for (int r = 0; r < rounds; ++r) {
                symh_mr_t *prev = (r % 3 == 0)   ? symh_mr_set_per_device((device + r) % n, mine[t])
                                  : (r % 3 == 1) ? symh_mr_set_current(mine[t])
                                                 : symh_mr_reset_current();
                symh_mr_t *seen =
                    (r % 2) ? symh_mr_get_current() : symh_mr_get_per_device((device + r) % n);
                if (!valid.count(prev) || !valid.count(seen))
                    ++bad;
                void *p = nullptr;
                size_t bytes = 1 + (size_t)(r % 500);
                if (symh_mr_allocate(mine[t], bytes, 16, &p) != SYMH_OK)
                    ++bad;
                else {
                    if (symh_shim_dev_active_fill(p, t, bytes) != SYMH_OK ||
                        symh_mr_deallocate(mine[t], p, bytes, 16) != SYMH_OK)
                        ++bad;
                }
            }
        });
    for (std::thread &thread : threads)
        thread.join();
    EXPECT_EQ(0, bad.load());
    for (int d = 0; d < n; ++d)
        symh_mr_reset_per_device(d);
    size_t total = 0;
    for (symh_mr_t *mr : mine) {
        symh_mr_stats_t s = stats_of(mr);
        EXPECT_EQ(0u, s.allocs_current);
        EXPECT_EQ((size_t)rounds, s.allocs_total);
        total += s.bytes_total;
        symh_mr_destroy(mr);
    }
    symh_mr_stats_t s = stats_of(shared);
    EXPECT_EQ((size_t)n_threads * rounds, s.allocs_total);
    EXPECT_EQ(total, s.bytes_total);
    EXPECT_EQ(0u, s.bytes_current);
    symh_mr_destroy(shared);
    symh_mr_destroy(shared_pool);
}

class MrAfterFinalize : public SymhTest
{
};

TEST_F(MrAfterFinalize, TableCallsWorkLocallyResourcesLive)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    symh_mr_t *dev = symh_mr_device_create(0);
    ASSERT_NE(nullptr, dev);
    symh_mr_t *host = symh_mr_host_create();
    symh_finalize();
    std::string log = symh_captured_log([&] {
        EXPECT_NE(nullptr, symh_mr_get_per_device(0)) << "the devices come up locally again";
        EXPECT_NE(nullptr, symh_mr_get_current());
        symh_mr_t *again = symh_mr_device_create(0);
        EXPECT_NE(nullptr, again);
        symh_mr_destroy(again);
    });
    EXPECT_EQ("", log);
    // A resource the application created stays usable and is the application's to destroy.
    for (symh_mr_t *mr : { dev, host }) {
        void *p;
        ASSERT_EQ(SYMH_OK, symh_mr_allocate(mr, 64, 64, &p));
        EXPECT_EQ(SYMH_OK, symh_mr_deallocate(mr, p, 64, 64));
        symh_mr_destroy(mr);
    }
    ASSERT_EQ(SYMH_OK, symh_init());
    EXPECT_NE(nullptr, symh_mr_get_current());
    symh_finalize();
}

} // namespace
