// Tests of the device allocator (symh_dev_*, docs/dev-alloc.md): a model-based run of random
// alloc/replace/free/copy steps against a plain C++ model, every misuse under warn and off, the
// report format, interior and past-the-end copies, freeing through the recorded resource, the
// policy, finalize with live allocations and RMA from a device allocation. The abort under
// SYMH_REGISTRY=error is tested by dev_alloc_abort.sh (a subprocess).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <symheap.h>

#include "device_test_env.hpp"
#include "mpi_test_util.hpp"

namespace
{

using symh_test::expect_one_line;
using symh_test::log_lines;
using symh_test::sentinel;
using symh_test::stats_of;

std::string report()
{
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    EXPECT_NE(nullptr, f);
    EXPECT_EQ(SYMH_OK, symh_dev_alloc_report(f));
    fclose(f);
    std::string s(buf, len);
    free(buf);
    return s;
}

std::string report_line(const void *p, size_t bytes, int device, const std::string &label)
{
    char line[256];
    snprintf(line, sizeof(line),
             "symh live allocation: address=0x%016lx bytes=%zu device=%d label=\"%s\"\n",
             (unsigned long)(uintptr_t)p, bytes, device, label.c_str());
    return line;
}

std::string total_line(size_t n, size_t bytes)
{
    return "symh live allocations: " + std::to_string(n) + " (" + std::to_string(bytes) +
           " bytes)\n";
}

symh_dev_alloc_opts_t opts_on(int device, const char *label = nullptr,
                              const void *init_value = nullptr, size_t init_size = 0)
{
    symh_dev_alloc_opts_t o;
    o.device = device;
    o.init_value = init_value;
    o.init_size = init_size;
    o.label = label;
    return o;
}

class DevAllocBeforeInit : public SymhTest
{
};

// The allocator needs no symh_init (docs/dev-alloc.md "Without symh_init"): every call works on
// the devices and registry brought up locally, and a later symh_init adopts them.
TEST_F(DevAllocBeforeInit, EveryCallWorksAndInitAdoptsTheAllocations)
{
    ASSERT_EQ(0, symh_initialized());
    void *p = nullptr, *q = nullptr;
    char host[8] = "abcdefg", back[8] = { 0 };
    size_t a = 7, b = 7;
    symh_dev_alloc_info_t info;
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(SYMH_OK, symh_dev_alloc(&p, 8, nullptr));
        EXPECT_EQ(SYMH_OK, symh_dev_alloc_replace(&p, 8, nullptr));
        EXPECT_EQ(SYMH_OK, symh_dev_memcpy_to_device(p, host, 8));
        EXPECT_EQ(SYMH_OK, symh_dev_memcpy_from_device(back, p, 8));
        EXPECT_EQ(SYMH_OK, symh_dev_assign_to_device(&q, host, 8));
        EXPECT_EQ(SYMH_OK, symh_dev_alloc_query((char *)q + 2, 6, &info));
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_dev_alloc_query((char *)q + 2, 7, &info));
        EXPECT_EQ(SYMH_OK, symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &a, &b));
        EXPECT_EQ(SYMH_OK, symh_registry_set_policy(SYMH_REGISTRY_ERROR));
        EXPECT_EQ(SYMH_REGISTRY_ERROR, symh_registry_get_policy());
        EXPECT_EQ(SYMH_OK, symh_registry_set_policy(SYMH_REGISTRY_WARN));
    });
    EXPECT_EQ("", log);
    EXPECT_STREQ(host, back);
    EXPECT_EQ(q, info.base);
    EXPECT_EQ(8u, info.nbytes);
    EXPECT_EQ(2u, a);
    EXPECT_EQ(16u, b);
    ASSERT_EQ(SYMH_OK, symh_init());
    a = b = 0;
    EXPECT_EQ(SYMH_OK, symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &a, &b));
    EXPECT_EQ(2u, a) << "symh_init adopts the allocations made before it";
    EXPECT_EQ(SYMH_OK, symh_dev_memcpy_from_device(back, q, 8));
    EXPECT_STREQ(host, back);
    EXPECT_EQ(SYMH_OK, symh_dev_free(&p, SYMH_DEVICE_ANY));
    EXPECT_EQ(SYMH_OK, symh_dev_free(&q, SYMH_DEVICE_ANY));
    symh_finalize();
}

class DevAlloc : public SymhSuiteInitTest
{
  protected:
    void SetUp() override
    {
        SymhTest::SetUp();
        n = symh_device_count();
        ASSERT_EQ(symh_test::expected_device_count(n), n)
            << "the devices this run was configured with";
        ASSERT_EQ(SYMH_OK, symh_device_set(0));
        ASSERT_EQ(SYMH_OK, symh_registry_set_policy(SYMH_REGISTRY_WARN));
    }
    void TearDown() override
    {
        size_t allocs = 1, bytes = 1;
        EXPECT_EQ(SYMH_OK, symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &allocs, &bytes));
        EXPECT_EQ(0u, allocs) << report();
        EXPECT_EQ(0u, bytes);
        SymhTest::TearDown();
    }
    int n = 0;
};

TEST_F(DevAlloc, DefaultPolicyIsWarnAndSetterWorks)
{
    EXPECT_EQ(SYMH_REGISTRY_WARN, symh_registry_get_policy());
    EXPECT_EQ(SYMH_OK, symh_registry_set_policy(SYMH_REGISTRY_ERROR));
    EXPECT_EQ(SYMH_REGISTRY_ERROR, symh_registry_get_policy());
    EXPECT_EQ(SYMH_OK, symh_registry_set_policy(SYMH_REGISTRY_OFF));
    EXPECT_EQ(SYMH_REGISTRY_OFF, symh_registry_get_policy());
    expect_one_line("policy 7", [&] {
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_registry_set_policy((symh_registry_policy_t)7));
    });
    EXPECT_EQ(SYMH_REGISTRY_OFF, symh_registry_get_policy());
}

TEST_F(DevAlloc, ArgumentChecks)
{
    void *p = sentinel();
    int v = 1;
    expect_one_line("ptr is NULL",
                    [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_dev_alloc(nullptr, 8, nullptr)); });
    expect_one_line("nbytes is 0",
                    [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_dev_alloc(&p, 0, nullptr)); });
    symh_dev_alloc_opts_t o = opts_on(0, nullptr, &v, sizeof(v));
    expect_one_line("not a multiple",
                    [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_dev_alloc(&p, 6, &o)); });
    o = opts_on(n);
    expect_one_line("not a device id",
                    [&] { EXPECT_EQ(SYMH_ERR_NO_DEVICE, symh_dev_alloc(&p, 8, &o)); });
    EXPECT_EQ(sentinel(), p);
    expect_one_line("ptr is NULL", [&] {
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_dev_free(nullptr, SYMH_DEVICE_ANY));
    });
    void *null = nullptr;
    EXPECT_EQ(SYMH_OK, symh_dev_free(&null, SYMH_DEVICE_ANY));
    EXPECT_EQ(SYMH_OK, symh_dev_free(&null, 0));
    EXPECT_EQ(SYMH_OK, symh_dev_memcpy_to_device(nullptr, nullptr, 0));
    EXPECT_EQ(SYMH_OK, symh_dev_get_alloc_stats(SYMH_DEVICE_CURRENT, nullptr, nullptr));
}

TEST_F(DevAlloc, InitValueFillsAndLabelTruncates)
{
    const double value = -1.5;
    std::string label(40, 'x');
    label[31] = 'y';
    symh_dev_alloc_opts_t o = opts_on(n - 1, label.c_str(), &value, sizeof(value));
    void *p = nullptr;
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&p, 1000 * sizeof(double), &o));
    std::vector<double> host(1000, 0.0);
    ASSERT_EQ(SYMH_OK, symh_dev_memcpy_from_device(host.data(), p, 1000 * sizeof(double)));
    for (double d : host)
        ASSERT_EQ(value, d);
    EXPECT_EQ(report_line(p, 8000, n - 1, label.substr(0, 32)) + total_line(1, 8000), report());
    unsigned char byte = 0xab;
    void *q = nullptr;
    o = opts_on(SYMH_DEVICE_CURRENT, "", &byte, 1);
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&q, 13, &o));
    unsigned char got[13];
    ASSERT_EQ(SYMH_OK, symh_dev_memcpy_from_device(got, q, 13));
    for (unsigned char c : got)
        EXPECT_EQ(0xab, c);
    size_t allocs, bytes;
    EXPECT_EQ(SYMH_OK, symh_dev_get_alloc_stats(0, &allocs, &bytes));
    EXPECT_EQ(n == 1 ? 2u : 1u, allocs);
    EXPECT_EQ(SYMH_OK, symh_dev_free(&q, 0));
    EXPECT_EQ(SYMH_OK, symh_dev_free(&p, n - 1));
    EXPECT_EQ(nullptr, p);
    EXPECT_EQ(total_line(0, 0), report());
}

TEST_F(DevAlloc, ReportFormat)
{
    void *a = nullptr, *b = nullptr;
    symh_dev_alloc_opts_t o = opts_on(0, "alpha");
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&a, 100, &o));
    o = opts_on(n - 1, nullptr);
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&b, 28, &o));
    std::string r = report();
    std::regex line_re("symh live allocation: address=0x[0-9a-f]{16} bytes=[0-9]+ device=[0-9]+ "
                       "label=\"[^\"]*\"");
    std::regex total_re("symh live allocations: [0-9]+ \\([0-9]+ bytes\\)");
    std::vector<std::string> lines;
    size_t start = 0, nl;
    while ((nl = r.find('\n', start)) != std::string::npos) {
        lines.push_back(r.substr(start, nl - start));
        start = nl + 1;
    }
    ASSERT_EQ(3u, lines.size()) << r;
    EXPECT_TRUE(std::regex_match(lines[0], line_re)) << lines[0];
    EXPECT_TRUE(std::regex_match(lines[1], line_re)) << lines[1];
    EXPECT_EQ("symh live allocations: 2 (128 bytes)", lines[2]);
    // Address order.
    void *lo = (uintptr_t)a < (uintptr_t)b ? a : b, *hi = lo == a ? b : a;
    std::string expect =
        report_line(lo, lo == a ? 100 : 28, lo == a ? 0 : n - 1, lo == a ? "alpha" : "") +
        report_line(hi, hi == a ? 100 : 28, hi == a ? 0 : n - 1, hi == a ? "alpha" : "");
    EXPECT_EQ(expect + total_line(2, 128), r);
    expect_one_line("out is NULL",
                    [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_dev_alloc_report(nullptr)); });
    EXPECT_EQ(SYMH_OK, symh_dev_free(&a, SYMH_DEVICE_ANY));
    EXPECT_EQ(SYMH_OK, symh_dev_free(&b, SYMH_DEVICE_ANY));
}

TEST_F(DevAlloc, MisuseUnderWarn)
{
    void *p = nullptr;
    symh_dev_alloc_opts_t o = opts_on(n - 1, "victim");
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&p, 256, &o));
    void *alias = p;
    // Device mismatch (CMake runs this binary with SYMH_HOST_DEVICES=2): nothing freed.
    ASSERT_GE(n, 2);
    void *q = p;
    expect_one_line("not device 0",
                    [&] { EXPECT_EQ(SYMH_ERR_DEVICE_MISMATCH, symh_dev_free(&q, 0)); });
    EXPECT_EQ(p, q);
    // Interior pointer: nothing freed, pointer unchanged.
    void *inner = (char *)p + 16;
    expect_one_line("interior pointer", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_dev_free(&inner, SYMH_DEVICE_ANY));
    });
    EXPECT_EQ((char *)p + 16, inner);
    size_t allocs;
    EXPECT_EQ(SYMH_OK, symh_dev_get_alloc_stats(n - 1, &allocs, nullptr));
    EXPECT_EQ(1u, allocs);
    // The real free, then double free and alias of the freed buffer.
    EXPECT_EQ(SYMH_OK, symh_dev_free(&p, n - 1));
    EXPECT_EQ(nullptr, p);
    expect_one_line("not a live device allocation", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_dev_free(&alias, SYMH_DEVICE_ANY));
    });
    EXPECT_NE(nullptr, alias);
    // Replace through a dangling alias: nothing freed, nothing allocated.
    void *dangling = alias;
    expect_one_line("not a live device allocation", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_dev_alloc_replace(&dangling, 64, nullptr));
    });
    EXPECT_EQ(alias, dangling);
    // Foreign pointers: malloc'd memory and the symmetric heap.
    void *foreign = malloc(64);
    void *f = foreign;
    expect_one_line("not a live device allocation", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_dev_free(&f, SYMH_DEVICE_ANY));
    });
    EXPECT_EQ(foreign, f);
    free(foreign);
    void *heap = symh_malloc(128);
    ASSERT_NE(nullptr, heap);
    void *h = heap;
    expect_one_line("symmetric heap", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_dev_free(&h, SYMH_DEVICE_ANY));
    });
    EXPECT_EQ(heap, h);
    symh_free(heap);
    EXPECT_EQ(SYMH_OK, symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &allocs, nullptr));
    EXPECT_EQ(0u, allocs);
}

TEST_F(DevAlloc, MisuseUnderOff)
{
    ASSERT_EQ(SYMH_OK, symh_registry_set_policy(SYMH_REGISTRY_OFF));
    void *p = nullptr;
    size_t allocs;
    // Device mismatch: no check, freed (on the given device's resource: the same kind here).
    symh_dev_alloc_opts_t o = opts_on(n - 1);
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&p, 64, &o));
    EXPECT_EQ("", symh_captured_log([&] { EXPECT_EQ(SYMH_OK, symh_dev_free(&p, 0)); }));
    EXPECT_EQ(nullptr, p);
    EXPECT_EQ(SYMH_OK, symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &allocs, nullptr));
    EXPECT_EQ(0u, allocs);
    // A foreign pointer goes to the current resource unchecked (host backend: free()).
    void *foreign = nullptr;
    ASSERT_EQ(0, posix_memalign(&foreign, 256, 64));
    EXPECT_EQ("", symh_captured_log([&] { EXPECT_EQ(SYMH_OK, symh_dev_free(&foreign, 0)); }));
    EXPECT_EQ(nullptr, foreign);
    // Replace of an unknown pointer: freed unchecked as above, then a new allocation is made.
    ASSERT_EQ(0, posix_memalign(&foreign, 256, 64));
    EXPECT_EQ("", symh_captured_log(
                      [&] { EXPECT_EQ(SYMH_OK, symh_dev_alloc_replace(&foreign, 128, nullptr)); }));
    size_t bytes = 0;
    EXPECT_EQ(SYMH_OK, symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &allocs, &bytes));
    EXPECT_EQ(1u, allocs);
    EXPECT_EQ(128u, bytes);
    EXPECT_EQ(SYMH_OK, symh_dev_free(&foreign, SYMH_DEVICE_ANY));
    // Memory the registry does not know is copied, with no line.
    char plain[64], other[64];
    memset(plain, 0x5a, sizeof(plain));
    memset(other, 0, sizeof(other));
    EXPECT_EQ("", symh_captured_log([&] {
                  EXPECT_EQ(SYMH_OK, symh_dev_memcpy_to_device(other, plain, sizeof(other)));
              }));
    EXPECT_EQ(0, memcmp(other, plain, sizeof(other)));
    memset(other, 0x33, sizeof(other));
    EXPECT_EQ("", symh_captured_log([&] {
                  EXPECT_EQ(SYMH_OK, symh_dev_memcpy_from_device(plain, other, sizeof(plain)));
              }));
    EXPECT_EQ(0, memcmp(other, plain, sizeof(other)));
    // Double free and interior pointers are not caught by the registry: with a pool as the
    // device's resource the pool is what refuses them (a plain resource would really free).
    symh_mr_t *pool = symh_mr_pool_create(symh_mr_get_per_device(0), 1 << 16, 0);
    ASSERT_NE(nullptr, pool);
    symh_mr_t *prev = symh_mr_set_per_device(0, pool);
    o = opts_on(0);
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&p, 64, &o));
    void *alias = p, *inner = (char *)p + 8;
    std::string log = symh_captured_log([&] { EXPECT_NE(SYMH_OK, symh_dev_free(&inner, 0)); });
    EXPECT_EQ(std::string::npos, log.find("interior pointer")) << log;
    EXPECT_EQ(SYMH_OK, symh_dev_free(&p, 0));
    log = symh_captured_log([&] { EXPECT_NE(SYMH_OK, symh_dev_free(&alias, 0)); });
    EXPECT_EQ(std::string::npos, log.find("not a live device allocation")) << log;
    // Copies are not checked: a range past the end of an allocation is copied, both ways (the
    // 32 bytes past this 64-byte block are free space of the pool's first chunk).
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&p, 64, &o));
    unsigned char out[96], host[96];
    for (size_t i = 0; i < sizeof(out); ++i)
        out[i] = (unsigned char)(i * 5 + 3);
    memset(host, 0, sizeof(host));
    EXPECT_EQ("", symh_captured_log(
                      [&] { EXPECT_EQ(SYMH_OK, symh_dev_memcpy_to_device(p, out, sizeof(out))); }));
    EXPECT_EQ("", symh_captured_log([&] {
                  EXPECT_EQ(SYMH_OK, symh_dev_memcpy_from_device(host, p, sizeof(host)));
              }));
    EXPECT_EQ(0, memcmp(out, host, sizeof(host)));
    EXPECT_EQ(SYMH_OK, symh_dev_free(&p, 0));
    symh_mr_set_per_device(0, prev);
    symh_mr_destroy(pool);
    ASSERT_EQ(SYMH_OK, symh_registry_set_policy(SYMH_REGISTRY_WARN));
}

TEST_F(DevAlloc, CopiesOfInteriorRangesAndPastTheEnd)
{
    const size_t len = 1024;
    std::vector<unsigned char> pattern(len), back(len + 64, 0);
    for (size_t i = 0; i < len; ++i)
        pattern[i] = (unsigned char)(i * 7 + 1);
    void *p = nullptr;
    symh_dev_alloc_opts_t o = opts_on(n - 1, "copies");
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&p, len, &o));
    char *d = (char *)p;
    ASSERT_EQ(SYMH_OK, symh_dev_memcpy_to_device(d, pattern.data(), len));
    // Interior ranges, both directions.
    for (size_t off : { (size_t)0, (size_t)1, (size_t)100, len - 1 }) {
        size_t nb = len - off;
        std::fill(back.begin(), back.end(), 0);
        ASSERT_EQ(SYMH_OK, symh_dev_memcpy_from_device(back.data(), d + off, nb));
        EXPECT_EQ(0, memcmp(back.data(), pattern.data() + off, nb));
        ASSERT_EQ(SYMH_OK, symh_dev_memcpy_to_device(d + off, pattern.data() + off, nb));
    }
    // Past the end: NOT_REGISTERED, one warning, nothing copied.
    std::fill(back.begin(), back.end(), 0xee);
    expect_one_line("past its allocation", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_dev_memcpy_from_device(back.data(), d + 10, len));
    });
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    for (unsigned char c : back)
        ASSERT_EQ(0xee, c);
    std::vector<unsigned char> zeros(len + 1, 0);
    expect_one_line("past its allocation", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_dev_memcpy_to_device(d, zeros.data(), len + 1));
    });
    ASSERT_EQ(SYMH_OK, symh_dev_memcpy_from_device(back.data(), d, len));
    EXPECT_EQ(0, memcmp(back.data(), pattern.data(), len));
    // Unknown memory under warn: copied, with one warning.
    std::vector<unsigned char> other(len, 0);
    expect_one_line("copying it as before", [&] {
        EXPECT_EQ(SYMH_OK, symh_dev_memcpy_to_device(other.data(), pattern.data(), len));
    });
    EXPECT_EQ(0, memcmp(other.data(), pattern.data(), len));
    // A range starting before the allocation and ending in it: NOT_REGISTERED, one warning
    // naming the allocation, nothing copied in either direction.
    std::fill(back.begin(), back.end(), 0xee);
    expect_one_line("starts before the allocation", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_dev_memcpy_from_device(back.data(), d - 16, 32));
    });
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    for (unsigned char c : back)
        ASSERT_EQ(0xee, c);
    expect_one_line("label \"copies\" it ends in; nothing copied", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_dev_memcpy_to_device(d - 16, zeros.data(), 32));
    });
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    // A range starting before the allocation and ending past it (neither end in it): the same.
    std::fill(back.begin(), back.end(), 0xee);
    expect_one_line("label \"copies\" it runs across; nothing copied", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED,
                  symh_dev_memcpy_from_device(back.data(), d - 16, len + 32));
    });
    for (unsigned char c : back)
        ASSERT_EQ(0xee, c);
    std::vector<unsigned char> wide(len + 32, 0);
    expect_one_line("it runs across; nothing copied", [&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED,
                  symh_dev_memcpy_to_device(d - 16, wide.data(), len + 32));
    });
    ASSERT_EQ(SYMH_OK, symh_dev_memcpy_from_device(back.data(), d, len));
    EXPECT_EQ(0, memcmp(back.data(), pattern.data(), len));
    EXPECT_EQ(SYMH_OK, symh_dev_free(&p, SYMH_DEVICE_ANY));
}

TEST_F(DevAlloc, AssignToDevice)
{
    std::vector<int> src(100);
    for (int i = 0; i < 100; ++i)
        src[i] = i * i;
    void *p = nullptr;
    ASSERT_EQ(SYMH_OK, symh_dev_assign_to_device(&p, src.data(), 400));
    ASSERT_EQ(SYMH_OK, symh_dev_assign_to_device(&p, src.data(), 200)); // frees the first
    size_t allocs, bytes;
    EXPECT_EQ(SYMH_OK, symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &allocs, &bytes));
    EXPECT_EQ(1u, allocs);
    EXPECT_EQ(200u, bytes);
    std::vector<int> back(50, 0);
    ASSERT_EQ(SYMH_OK, symh_dev_memcpy_from_device(back.data(), p, 200));
    EXPECT_EQ(0, memcmp(back.data(), src.data(), 200));
    EXPECT_EQ(SYMH_OK, symh_dev_free(&p, 0));
}

TEST_F(DevAlloc, FreeGoesToTheRecordedResource)
{
    for (int dev = 0; dev < n; ++dev) {
        symh_mr_t *initial = symh_mr_get_per_device(dev);
        symh_mr_t *stats = symh_mr_statistics_create(initial);
        ASSERT_NE(nullptr, stats);
        ASSERT_EQ(initial, symh_mr_set_per_device(dev, stats));
        void *a = nullptr, *b = nullptr;
        symh_dev_alloc_opts_t o = opts_on(dev, "through-stats");
        ASSERT_EQ(SYMH_OK, symh_dev_alloc(&a, 300, &o));
        EXPECT_EQ(300u, stats_of(stats).bytes_current);
        // Replace moves it: the old buffer goes back through stats, the new one comes from it.
        ASSERT_EQ(SYMH_OK, symh_dev_alloc_replace(&a, 500, &o));
        EXPECT_EQ(500u, stats_of(stats).bytes_current);
        EXPECT_EQ(2u, stats_of(stats).allocs_total);
        // The device's resource changes back; the free still goes to stats.
        ASSERT_EQ(stats, symh_mr_set_per_device(dev, nullptr));
        ASSERT_EQ(SYMH_OK, symh_dev_alloc(&b, 64, &o)); // from the initial resource
        EXPECT_EQ(SYMH_OK, symh_dev_free(&a, dev));
        EXPECT_EQ(0u, stats_of(stats).bytes_current);
        EXPECT_EQ(0u, stats_of(stats).allocs_current);
        // And one made before the change is not given to stats.
        ASSERT_EQ(initial, symh_mr_set_per_device(dev, stats));
        EXPECT_EQ(SYMH_OK, symh_dev_free(&b, dev));
        EXPECT_EQ(2u, stats_of(stats).allocs_total);
        EXPECT_EQ(0u, stats_of(stats).bytes_current);
        symh_mr_set_per_device(dev, nullptr);
        symh_mr_destroy(stats);
    }
}

TEST_F(DevAlloc, DeviceAllocationIsAnRmaSource)
{
    const int me = symh_my_pe(), npes = symh_n_pes();
    const size_t count = 512;
    long *dest = (long *)symh_malloc(count * sizeof(long));
    ASSERT_NE(nullptr, dest);
    const long value = 1000 + me;
    symh_dev_alloc_opts_t o = opts_on(n - 1, "rma-src", &value, sizeof(value));
    void *src = nullptr;
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&src, count * sizeof(long), &o));
    symh_barrier_all();
    symh_putmem(dest, src, count * sizeof(long), (me + 1) % npes);
    symh_quiet();
    symh_barrier_all();
    const long expect = 1000 + (me + npes - 1) % npes;
    for (size_t i = 0; i < count; ++i)
        ASSERT_EQ(expect, dest[i]) << i;
    // And the destination of a get (read back through the device copy, as on a GPU backend):
    // the right neighbour's dest holds this PE's value.
    symh_getmem(src, dest, count * sizeof(long), (me + 1) % npes);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    std::vector<long> back(count);
    ASSERT_EQ(SYMH_OK, symh_dev_memcpy_from_device(back.data(), src, count * sizeof(long)));
    for (size_t i = 0; i < count; ++i)
        ASSERT_EQ(value, back[i]) << i;
    symh_barrier_all();
    EXPECT_EQ(SYMH_OK, symh_dev_free(&src, SYMH_DEVICE_ANY));
    symh_barrier_all();
    symh_free(dest);
}

// The model: what the allocator must hold after each random step.
struct ModelAlloc {
    size_t bytes;
    int device;
    std::string label;
    unsigned char fill;
};

TEST_F(DevAlloc, ModelBasedRandomSteps)
{
    std::mt19937_64 rng(12345 + (uint64_t)symh_my_pe());
    const int slots = 64, steps = 4000;
    std::vector<void *> ptr(slots, nullptr);
    std::map<uintptr_t, ModelAlloc> model;
    std::vector<unsigned char> buf(8192);
    auto pick = [&](int k) { return (int)(rng() % (uint64_t)k); };
    auto check_stats = [&] {
        for (int dev = SYMH_DEVICE_ANY; dev < n; ++dev) {
            if (dev == SYMH_DEVICE_CURRENT)
                continue;
            size_t ea = 0, eb = 0, a = 99, b = 99;
            for (auto &kv : model)
                if (dev == SYMH_DEVICE_ANY || kv.second.device == dev) {
                    ++ea;
                    eb += kv.second.bytes;
                }
            ASSERT_EQ(SYMH_OK, symh_dev_get_alloc_stats(dev, &a, &b));
            ASSERT_EQ(ea, a) << dev;
            ASSERT_EQ(eb, b) << dev;
        }
    };
    auto check_report = [&] {
        std::string expect;
        size_t total = 0;
        for (auto &kv : model) {
            expect += report_line((void *)kv.first, kv.second.bytes, kv.second.device,
                                  kv.second.label.substr(0, 32));
            total += kv.second.bytes;
        }
        ASSERT_EQ(expect + total_line(model.size(), total), report());
    };
    auto new_alloc = [&](int s, bool replace) {
        size_t bytes = 1 + (size_t)pick(4096);
        int dev = pick(n);
        std::string label = "s" + std::to_string(s) + std::string((size_t)pick(40), 'L');
        unsigned char fill = (unsigned char)pick(256);
        symh_dev_alloc_opts_t o = opts_on(dev, label.c_str(), &fill, 1);
        if (replace && ptr[s] != nullptr)
            model.erase((uintptr_t)ptr[s]);
        ASSERT_EQ(SYMH_OK, replace ? symh_dev_alloc_replace(&ptr[s], bytes, &o)
                                   : symh_dev_alloc(&ptr[s], bytes, &o));
        model[(uintptr_t)ptr[s]] = ModelAlloc{ bytes, dev, label, fill };
    };
    for (int step = 0; step < steps; ++step) {
        int s = pick(slots);
        int action = pick(6);
        if (ptr[s] == nullptr && action != 1)
            action = 0; // (alloc into a live slot leaks its buffer, like the reference)
        switch (action) {
        case 0: // alloc into an empty slot
            new_alloc(s, false);
            break;
        case 1: // replace (empty or not)
            new_alloc(s, true);
            break;
        case 2: { // free, with a right, any or wrong device
            ModelAlloc &m = model.at((uintptr_t)ptr[s]);
            int which = pick(3);
            if (which == 2 && n > 1) {
                int wrong = (m.device + 1 + pick(n - 1)) % n;
                void *q = ptr[s];
                std::string log = symh_captured_log(
                    [&] { EXPECT_EQ(SYMH_ERR_DEVICE_MISMATCH, symh_dev_free(&q, wrong)); });
                ASSERT_EQ(1u, log_lines(log)) << log;
                ASSERT_EQ(ptr[s], q);
                break;
            }
            void *old = ptr[s];
            ASSERT_EQ(SYMH_OK, symh_dev_free(&ptr[s], which == 0 ? m.device : SYMH_DEVICE_ANY));
            ASSERT_EQ(nullptr, ptr[s]);
            model.erase((uintptr_t)old);
            // Freeing it again is a double free.
            std::string log = symh_captured_log(
                [&] { EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_dev_free(&old, SYMH_DEVICE_ANY)); });
            ASSERT_EQ(1u, log_lines(log)) << log;
            break;
        }
        case 3: { // copy an interior range out and check the fill
            ModelAlloc &m = model.at((uintptr_t)ptr[s]);
            size_t off = (size_t)pick((int)m.bytes), nb = 1 + (size_t)pick((int)(m.bytes - off));
            ASSERT_EQ(SYMH_OK, symh_dev_memcpy_from_device(buf.data(), (char *)ptr[s] + off, nb));
            for (size_t i = 0; i < nb; ++i)
                ASSERT_EQ(m.fill, buf[i]) << step;
            break;
        }
        case 4: { // write an interior range, which changes the fill of the whole allocation
            ModelAlloc &m = model.at((uintptr_t)ptr[s]);
            unsigned char fill = (unsigned char)pick(256);
            std::fill(buf.begin(), buf.begin() + (long)m.bytes, fill);
            ASSERT_EQ(SYMH_OK, symh_dev_memcpy_to_device(ptr[s], buf.data(), m.bytes));
            m.fill = fill;
            break;
        }
        case 5: { // a range past the end: refused, nothing copied
            ModelAlloc &m = model.at((uintptr_t)ptr[s]);
            size_t off = (size_t)pick((int)m.bytes);
            size_t nb = m.bytes - off + 1 + (size_t)pick(64);
            std::string log = symh_captured_log([&] {
                EXPECT_EQ(SYMH_ERR_NOT_REGISTERED,
                          symh_dev_memcpy_to_device((char *)ptr[s] + off, buf.data(), nb));
            });
            ASSERT_EQ(1u, log_lines(log)) << log;
            break;
        }
        }
        if (HasFatalFailure())
            return;
        if (step % 16 == 0)
            check_stats();
        if (step % 256 == 0)
            check_report();
        if (HasFatalFailure())
            return;
    }
    check_stats();
    check_report();
    // symh_dev_alloc over a live slot leaked its buffer, as documented: the model still has
    // it, and the registry gives it back by address.
    for (auto &kv : model) {
        void *q = (void *)kv.first;
        ASSERT_EQ(SYMH_OK, symh_dev_free(&q, kv.second.device));
    }
}

class DevAllocFinalize : public SymhTest
{
};

TEST_F(DevAllocFinalize, LiveAllocationsAreFreedWithOneWarning)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    void *a = nullptr, *b = nullptr;
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&a, 100, nullptr));
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&b, 20, nullptr));
    ASSERT_EQ(SYMH_OK, symh_registry_set_policy(SYMH_REGISTRY_OFF));
    std::string log = symh_captured_log([] { symh_finalize(); });
    EXPECT_EQ(1u, log_lines(log)) << log;
    EXPECT_NE(std::string::npos, log.find("2 device allocations (120 bytes) still live: 2 freed"))
        << log;
    // The next init starts clean, with the policy of SYMH_REGISTRY again.
    ASSERT_EQ(SYMH_OK, symh_init());
    EXPECT_EQ(SYMH_REGISTRY_WARN, symh_registry_get_policy());
    size_t allocs = 9;
    EXPECT_EQ(SYMH_OK, symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &allocs, nullptr));
    EXPECT_EQ(0u, allocs);
    symh_finalize();
}

} // namespace
