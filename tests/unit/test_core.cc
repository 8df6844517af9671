// Unit tests of src/core: status codes and texts, the per-thread last error, logging, the
// SYMH_* configuration table, and the memory cgroup's limit.
#include <chrono>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <regex>
#include <set>
#include <string>
#include <atomic>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <symheap.h>

#include "symh_gtest.hpp"

namespace
{

class Core : public SymhTest
{
};

static_assert(SYMH_OK == 0 && SYMH_ERR_INVALID_ARG == -1 && SYMH_ERR_NO_MEMORY == -2 &&
                  SYMH_ERR_NOT_INITIALIZED == -3 && SYMH_ERR_NOT_REGISTERED == -4 &&
                  SYMH_ERR_OVERLAP == -5 && SYMH_ERR_DEVICE_MISMATCH == -6 &&
                  SYMH_ERR_NOT_CONTIGUOUS == -7 && SYMH_ERR_COPY_FAILED == -8 &&
                  SYMH_ERR_NO_DEVICE == -9 && SYMH_ERR_UNSUPPORTED == -10 &&
                  SYMH_ERR_MISMATCH == -11 && SYMH_ERR_LIMIT == -12 && SYMH_ERR_TRANSPORT == -13 &&
                  SYMH_ERR_BOOTSTRAP == -14 && SYMH_ERR_SYSTEM == -15 &&
                  SYMH_ERR_NOT_SYMMETRIC == -16,
              "status values are pinned by docs/api.md");

TEST_F(Core, EveryStatusHasItsOwnText)
{
    std::set<std::string> texts;
    for (int status = SYMH_OK; status >= SYMH_ERR_NOT_SYMMETRIC; --status) {
        const char *text = symh_status_string(status);
        ASSERT_NE(nullptr, text);
        EXPECT_STRNE("unknown status", text) << status;
        EXPECT_TRUE(texts.insert(text).second) << "duplicate text for " << status;
    }
    EXPECT_STREQ("success", symh_status_string(SYMH_OK));
    EXPECT_STREQ("invalid argument", symh_status_string(SYMH_ERR_INVALID_ARG));
    EXPECT_STREQ("symheap is not initialized", symh_status_string(SYMH_ERR_NOT_INITIALIZED));
}

TEST_F(Core, UnknownStatusesHaveAText)
{
    for (int status : { 1, -17, -100, INT_MIN, INT_MAX })
        EXPECT_STREQ("unknown status", symh_status_string(status)) << status;
}

TEST_F(Core, LastErrorIsPerThreadAndResetBySuccess)
{
    std::string log = symh_captured_log([] { EXPECT_EQ(-1, symh_my_pe()); });
    EXPECT_NE(std::string::npos, log.find("symh_my_pe: symheap is not initialized")) << log;
    EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());

    int other_before = 99, other_after = 99;
    std::thread other([&] {
        other_before = symh_last_error();
        symh_captured_log([] { symh_n_pes(); });
        other_after = symh_last_error();
        char name[SYMH_MAX_NAME_LEN];
        symh_info_get_name(name);
    });
    other.join();
    EXPECT_EQ(SYMH_OK, other_before);
    EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, other_after);

    int major = 0, minor = 0;
    symh_info_get_version(&major, &minor);
    EXPECT_EQ(SYMH_OK, symh_last_error());
}

TEST_F(Core, CallsBeforeInitFailCleanly)
{
    std::string log = symh_captured_log([] {
        EXPECT_EQ(0, symh_initialized());
        EXPECT_EQ(-1, symh_my_pe());
        EXPECT_EQ(-1, symh_n_pes());
        EXPECT_EQ(-1, symh_local_pe());
        EXPECT_EQ(-1, symh_local_n_pes());
        EXPECT_EQ(nullptr, symh_pe_transport(0));
        symh_finalize();
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
    });
    for (const char *fn : { "symh_my_pe", "symh_n_pes", "symh_local_pe", "symh_local_n_pes",
                            "symh_pe_transport", "symh_finalize" })
        EXPECT_NE(std::string::npos, log.find(std::string(fn) + ": symheap is not initialized"))
            << fn << " in:\n"
            << log;
}

TEST_F(Core, VersionAndName)
{
    int major = -1, minor = -1;
    symh_info_get_version(&major, &minor);
    EXPECT_EQ(SYMH_VERSION_MAJOR, major);
    EXPECT_EQ(SYMH_VERSION_MINOR, minor);

    char name[SYMH_MAX_NAME_LEN];
    memset(name, 'x', sizeof(name));
    symh_info_get_name(name);
    EXPECT_EQ(std::string("symheap ") + SYMH_VERSION_STRING, name);

    std::string log = symh_captured_log([] {
        symh_info_get_name(nullptr);
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
        int m = 0;
        symh_info_get_version(nullptr, &m);
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    });
    EXPECT_NE(std::string::npos, log.find("name is NULL")) << log;
    EXPECT_NE(std::string::npos, log.find("major is NULL")) << log;
}

TEST_F(Core, LogLinePrefixAndLevels)
{
    int saved = symh_shim_log_get_level();
    symh_shim_log_set_level(1); // warn
    std::string log = symh_captured_log([] {
        symh_shim_log_emit(1, "hello warn");
        symh_shim_log_emit(0, "hello error");
        symh_shim_log_emit(2, "hidden info");
        symh_shim_log_emit(3, "hidden debug");
    });
    std::regex prefix(R"(\[[^:\]]+:[0-9]+:-\] shim_core\.c:[0-9]+ warn hello warn\n)"
                      R"(\[[^:\]]+:[0-9]+:-\] shim_core\.c:[0-9]+ error hello error\n)");
    EXPECT_TRUE(std::regex_match(log, prefix)) << log;

    symh_shim_log_set_level(4); // trace
    log = symh_captured_log([] { symh_shim_log_emit(4, "now visible"); });
    EXPECT_NE(std::string::npos, log.find(" trace now visible")) << log;
    symh_shim_log_set_level(saved);
}

// A pushed context names the public call and the PE in every line under it (a transport's line
// for the RMA call that reached it), counts the error lines, nests, and is per thread.
TEST_F(Core, LogContextNamesTheCallAndCountsItsErrors)
{
    unsigned outer_errors = 0, inner_errors = 0, other_errors = 99;
    std::string other_log;
    std::string log = symh_captured_log([&] {
        void *outer = symh_shim_log_context_push("symh_putmem", 3);
        symh_shim_log_emit(0, "ucx: ucp_put_nbx failed");
        symh_shim_log_emit(1, "a warning");
        void *inner = symh_shim_log_context_push("symh_long_g", 5);
        symh_shim_log_emit(0, "ofi: fi_read failed");
        std::thread other([&] {
            void *mine = symh_shim_log_context_push("symh_quiet", 0);
            symh_shim_log_emit(1, "not an error");
            other_errors = symh_shim_log_context_pop(mine);
        });
        other.join();
        inner_errors = symh_shim_log_context_pop(inner);
        outer_errors = symh_shim_log_context_pop(outer);
        symh_shim_log_emit(0, "after");
    });
    EXPECT_NE(std::string::npos, log.find(" error symh_putmem (PE 3): ucx: ucp_put_nbx failed\n"))
        << log;
    EXPECT_NE(std::string::npos, log.find(" warn symh_putmem (PE 3): a warning\n")) << log;
    EXPECT_NE(std::string::npos, log.find(" error symh_long_g (PE 5): ofi: fi_read failed\n"))
        << log;
    EXPECT_NE(std::string::npos, log.find(" warn symh_quiet (PE 0): not an error\n")) << log;
    EXPECT_NE(std::string::npos, log.find(" error after\n")) << log;
    EXPECT_EQ(1u, inner_errors);
    EXPECT_EQ(1u, outer_errors); // the inner context's error is the inner one's
    EXPECT_EQ(0u, other_errors);
}

// ---- configuration --------------------------------------------------------------------------

struct SizeCase {
    const char *text;
    unsigned long long expected;
};

TEST_F(Core, SizeSuffixesArePowersOf1024)
{
    const SizeCase good[] = {
        { "0", 0 },
        { "1", 1 },
        { "4096", 4096 },
        { "1k", 1024ULL },
        { "1K", 1024ULL },
        { "3m", 3ULL << 20 },
        { "3M", 3ULL << 20 },
        { "1g", 1ULL << 30 },
        { "2G", 2ULL << 30 },
        { "1t", 1ULL << 40 },
        { "16777215t", 16777215ULL << 40 },
        { "18446744073709551615", 18446744073709551615ULL },
        { "007k", 7ULL << 10 },
    };
    for (const SizeCase &c : good) {
        size_t size = 12345;
        EXPECT_EQ(SYMH_OK, symh_shim_config_parse_size(c.text, &size)) << c.text;
        EXPECT_EQ(c.expected, size) << c.text;
    }
}

TEST_F(Core, BadSizesAreRefused)
{
    const char *bad[] = {
        "",          "12q",         "k",   "-1",   " 1", "1 ", "1kk",
        "1.5g",      "1kb",         "1e6", "0x10", "+5", "g1", "18446744073709551616",
        "16777216t", "17179869184g"
    };
    for (const char *text : bad) {
        size_t size = 777;
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_config_parse_size(text, &size)) << text;
        EXPECT_EQ(777u, size) << "output written on failure for " << text;
    }
    size_t size = 0;
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_config_parse_size(nullptr, &size));
}

// SHMEM_SYMMETRIC_SIZE (OpenSHMEM): an integer or decimal with an optional k/m/g/t suffix in
// either case, rounded up to a whole byte; nothing after the suffix.
TEST_F(Core, OpenShmemSizesTakeDecimals)
{
    const SizeCase good[] = {
        { "4096", 4096 },   { "1k", 1024 },         { "3.1M", 3250586 },
        { ".5m", 1 << 19 }, { "2.5G", 5ULL << 29 }, { "1.0000000001k", 1025 },
    };
    for (const SizeCase &c : good) {
        size_t size = 12345;
        EXPECT_EQ(SYMH_OK, symh_shim_config_parse_shmem_size(c.text, &size)) << c.text;
        EXPECT_EQ(c.expected, size) << c.text;
    }
    const char *bad[] = { "", ".", "k", "1mx", "40mb", "1.5.5m", "-1", " 1", "1 ", "1e6" };
    for (const char *text : bad) {
        size_t size = 777;
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_config_parse_shmem_size(text, &size)) << text;
        EXPECT_EQ(777u, size) << "output written on failure for " << text;
    }
}

class Config : public SymhTest
{
  protected:
    void SetUp() override
    {
        SymhTest::SetUp();
        for (int i = 0; i < symh_shim_config_count(); ++i)
            unsetenv(symh_shim_config_name(i));
    }
    void TearDown() override
    {
        for (int i = 0; i < symh_shim_config_count(); ++i)
            unsetenv(symh_shim_config_name(i));
        for (const char *name : extra)
            unsetenv(name);
        load(); // leave the defaults loaded for the next test
        SymhTest::TearDown();
    }
    int load()
    {
        return symh_shim_config_load(message, sizeof(message), unknown, sizeof(unknown));
    }
    unsigned long long number(const char *name)
    {
        unsigned long long value = 0;
        char text[256];
        EXPECT_EQ(0, symh_shim_config_value(name, &value, text, sizeof(text))) << name;
        return value;
    }
    std::string text(const char *name)
    {
        unsigned long long value = 0;
        char buf[256];
        EXPECT_EQ(0, symh_shim_config_value(name, &value, buf, sizeof(buf))) << name;
        return buf;
    }
    char message[512];
    char unknown[512];
    std::set<const char *> extra;
};

TEST_F(Config, DefaultsWhenUnset)
{
    ASSERT_EQ(SYMH_OK, load()) << message;
    EXPECT_EQ(1ULL << 30, number("SYMH_HEAP_SIZE"));
    EXPECT_EQ(1u, number("SYMH_LOG_LEVEL")); // warn
    EXPECT_EQ(0u, number("SYMH_TRANSPORT")); // auto
    EXPECT_EQ(0u, number("SYMH_DISABLE_MIXED_IPC"));
    EXPECT_EQ("", text("SYMH_HOSTID"));
    EXPECT_STREQ("", unknown);
}

// The first accessor after start-up loads the environment; threads asking at once all see the
// loaded values, and the load happens under the configuration's lock (TSan reports the race of
// two unlocked loads writing the table; in the plain build a reader sees the defaults a second
// unlocked load writes before the values: 3 of 3 runs failed without the lock, 300 rounds).
TEST_F(Config, LazyFirstLoadFromManyThreads)
{
    setenv("SYMH_HEAP_SIZE", "96m", 1);
    setenv("SYMH_HOSTID", "lazy-node", 1);
    for (int round = 0; round < 300; ++round) {
        std::atomic<int> ready{ 0 };
        std::vector<unsigned long long> sizes(8, 0);
        std::vector<std::string> ids(8);
        std::vector<std::thread> threads;

        symh_shim_config_forget();
        for (int t = 0; t < 8; ++t)
            threads.emplace_back([&, t] {
                unsigned long long value = 0;
                char buf[64];

                ready.fetch_add(1);
                while (ready.load() < 8)
                    std::this_thread::yield();
                if (symh_shim_config_value("SYMH_HEAP_SIZE", &value, buf, sizeof(buf)) == 0)
                    sizes[t] = value;
                if (symh_shim_config_value("SYMH_HOSTID", &value, buf, sizeof(buf)) == 0)
                    ids[t] = buf;
            });
        for (auto &thread : threads)
            thread.join();
        for (int t = 0; t < 8; ++t) {
            ASSERT_EQ(96ULL << 20, sizes[t]) << "round " << round << " thread " << t;
            ASSERT_EQ("lazy-node", ids[t]) << "round " << round << " thread " << t;
        }
    }
}

TEST_F(Config, ValuesAreParsed)
{
    setenv("SYMH_HEAP_SIZE", "512m", 1);
    setenv("SYMH_LOG_LEVEL", "DEBUG", 1);
    setenv("SYMH_TRANSPORT", "ipc", 1);
    setenv("SYMH_DISABLE_MIXED_IPC", "yes", 1);
    setenv("SYMH_HOSTID", "rack3-node7", 1);
    ASSERT_EQ(SYMH_OK, load()) << message;
    EXPECT_EQ(512ULL << 20, number("SYMH_HEAP_SIZE"));
    EXPECT_EQ(3u, number("SYMH_LOG_LEVEL"));
    EXPECT_EQ(1u, number("SYMH_TRANSPORT"));
    EXPECT_EQ(1u, number("SYMH_DISABLE_MIXED_IPC"));
    EXPECT_EQ("rack3-node7", text("SYMH_HOSTID"));

    for (const char *no : { "0", "no", "false", "OFF", "n" }) {
        setenv("SYMH_DISABLE_MIXED_IPC", no, 1);
        ASSERT_EQ(SYMH_OK, load()) << no;
        EXPECT_EQ(0u, number("SYMH_DISABLE_MIXED_IPC")) << no;
    }
    EXPECT_EQ(-1, symh_shim_config_value("SYMH_NOT_DECLARED", nullptr, nullptr, 0));
}

TEST_F(Config, InvalidValuesNameTheVariableAndTheValue)
{
    struct {
        const char *name, *value;
    } bad[] = {
        { "SYMH_HEAP_SIZE", "12q" },
        { "SYMH_HEAP_SIZE", "" },
        { "SYMH_LOG_LEVEL", "loud" },
        { "SYMH_LOG_LEVEL", "" },
        { "SYMH_TRANSPORT", "carrier-pigeon" },
        { "SYMH_DISABLE_MIXED_IPC", "maybe" },
        { "SYMH_HOSTID", nullptr }, // set below: 300 bytes, over the limit
    };
    std::string long_host(300, 'h');
    bad[6].value = long_host.c_str();
    for (const auto &b : bad) {
        setenv(b.name, b.value, 1);
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, load()) << b.name << "=" << b.value;
        std::string want = std::string(b.name) + "='" + b.value + "'";
        EXPECT_NE(std::string::npos, std::string(message).find(want)) << message;
        unsetenv(b.name);
    }
    // The invalid variable keeps its default; the others keep their values.
    setenv("SYMH_HEAP_SIZE", "12q", 1);
    setenv("SYMH_TRANSPORT", "ipc", 1);
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, load());
    EXPECT_EQ(1ULL << 30, number("SYMH_HEAP_SIZE"));
    EXPECT_EQ(1u, number("SYMH_TRANSPORT"));
}

TEST_F(Config, CountsAreDecimalWithoutSuffix)
{
    EXPECT_EQ(SYMH_OK, load()) << message;
    EXPECT_EQ(64u, number("SYMH_MAX_SYMM_REGIONS"));
    for (const char *good : { "0", "4", "0064", "2147483647" }) {
        setenv("SYMH_MAX_SYMM_REGIONS", good, 1);
        ASSERT_EQ(SYMH_OK, load()) << good;
        EXPECT_EQ(strtoull(good, nullptr, 10), number("SYMH_MAX_SYMM_REGIONS")) << good;
    }
    for (const char *bad :
         { "", "-1", "+1", " 1", "1 ", "4k", "0x10", "2147483648", "99999999999999999999999" }) {
        setenv("SYMH_MAX_SYMM_REGIONS", bad, 1);
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, load()) << bad;
        std::string want = std::string("SYMH_MAX_SYMM_REGIONS='") + bad + "'";
        EXPECT_NE(std::string::npos, std::string(message).find(want)) << message;
        EXPECT_NE(std::string::npos, std::string(message).find("decimal count")) << message;
    }
    unsetenv("SYMH_MAX_SYMM_REGIONS");
}

TEST_F(Config, UnknownVariablesAreReported)
{
    setenv("SYMH_HEAPSIZE", "1g", 1);
    setenv("SYMH_", "x", 1);
    extra = { "SYMH_HEAPSIZE", "SYMH_" };
    ASSERT_EQ(SYMH_OK, load()) << message;
    std::string names = unknown;
    EXPECT_NE(std::string::npos, names.find("SYMH_HEAPSIZE")) << names;
    EXPECT_EQ(std::string::npos, names.find("SYMH_HEAP_SIZE")) << names;
}

// ---- the per-call-site log rate limit (core_log.c) -------------------------------------------
// Every test here runs on a fake clock (core_clock.h): time moves only where the test says, so
// the counts are exact on a machine of any speed and load.

// The fake clock for the scope of one test, starting at 1000 s (a site's first line finds it
// quiet since 0) and moving only by advance().
struct FakeClock {
    static constexpr uint64_t ms = 1000000;
    FakeClock()
    {
        symh_shim_clock_fake(1000000 * ms, 0);
    }
    ~FakeClock()
    {
        symh_shim_clock_real();
    }
    void advance(uint64_t ns)
    {
        symh_shim_clock_advance(ns);
    }
};

size_t count_substr(const std::string &text, const std::string &part)
{
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
        ++n;
    return n;
}

// The sum of N over the "N similar lines suppressed (file:line)" lines naming `site`.
unsigned long suppressed(const std::string &log, const std::string &site = "")
{
    static const std::regex summary(R"(([0-9]+) similar lines suppressed \(([^)]+)\))");
    unsigned long sum = 0;
    for (std::sregex_iterator it(log.begin(), log.end(), summary), end; it != end; ++it)
        if (site.empty() || (*it)[2].str() == site)
            sum += std::stoul((*it)[1].str());
    return sum;
}

// "shim_core.c:N" of the `index`-th summary line.
std::string summary_site(const std::string &log, size_t index)
{
    static const std::regex summary(R"(similar lines suppressed \(([^)]+)\))");
    std::sregex_iterator it(log.begin(), log.end(), summary), end;
    for (size_t i = 0; it != end && i < index; ++i)
        ++it;
    return it == end ? "" : (*it)[1].str();
}

TEST_F(Core, ALoopOfIdenticalErrorsLogsABoundedNumberOfLines)
{
    FakeClock clock;
    std::string log = symh_captured_log([] {
        for (int i = 0; i < 10000; ++i)
            symh_shim_log_emit_site(0, 0, "refused again");
        symh_shim_log_flush();
    });
    EXPECT_EQ(10u, count_substr(log, "error refused again")) << log;
    EXPECT_EQ(1u, count_substr(log, "similar lines suppressed")) << log;
    EXPECT_EQ(9990ul, suppressed(log)) << log;
    EXPECT_NE(std::string::npos, log.find(" error 9990 similar lines suppressed (shim_core.c:"))
        << "the summary has the level and the site of the lines it counts: " << log;
}

TEST_F(Core, CallSitesAreLimitedIndependently)
{
    FakeClock clock;
    std::string log = symh_captured_log([] {
        for (int i = 0; i < 100; ++i) {
            symh_shim_log_emit_site(0, 0, "site zero");
            symh_shim_log_emit_site(1, 1, "site one");
        }
        symh_shim_log_emit(0, "a third site is not limited by the others");
        symh_shim_log_flush();
    });
    EXPECT_EQ(10u, count_substr(log, "error site zero")) << log;
    EXPECT_EQ(10u, count_substr(log, "warn site one")) << log;
    EXPECT_EQ(1u, count_substr(log, "a third site")) << log;
    std::string first = summary_site(log, 0), second = summary_site(log, 1);
    EXPECT_NE("", second) << log;
    EXPECT_NE(first, second) << log;
    EXPECT_EQ(90ul, suppressed(log, first)) << log;
    EXPECT_EQ(90ul, suppressed(log, second)) << log;
    EXPECT_EQ(2u, count_substr(log, "similar lines suppressed")) << log;
}

// A line every 10 ms for 2.5 s after the burst: each summary comes 1 s after the first line it
// counts (101 lines: 10 ms .. 1010 ms, then 1020 ms .. 2020 ms), the rest (48) at the flush.
TEST_F(Core, ASiteThatKeepsLoggingGetsOneSummaryPerSecond)
{
    FakeClock clock;
    std::string log = symh_captured_log([&] {
        for (int i = 0; i < 10; ++i)
            symh_shim_log_emit_site(0, 0, "refused in a loop");
        for (int i = 0; i < 250; ++i) {
            clock.advance(10 * FakeClock::ms);
            symh_shim_log_emit_site(0, 0, "refused in a loop");
        }
    });
    EXPECT_EQ(10u, count_substr(log, "refused in a loop")) << log;
    EXPECT_EQ(2u, count_substr(log, "similar lines suppressed")) << log;
    EXPECT_EQ(2u, count_substr(log, " 101 similar lines suppressed")) << log;
    log = symh_captured_log([] { symh_shim_log_flush(); });
    EXPECT_EQ(1u, count_substr(log, " 48 similar lines suppressed")) << "the rest, at the flush";
}

// 999 ms of quiet is not quiet enough; 1 s is: the site's summary first, then a fresh burst.
TEST_F(Core, AQuietSiteSpeaksAgainWithItsSummaryFirst)
{
    FakeClock clock;
    std::string log = symh_captured_log([&] {
        for (int i = 0; i < 25; ++i)
            symh_shim_log_emit_site(0, 0, "burst");
        clock.advance(999 * FakeClock::ms);
        symh_shim_log_emit_site(0, 0, "burst");
        clock.advance(1000 * FakeClock::ms);
        for (int i = 0; i < 10; ++i)
            symh_shim_log_emit_site(0, 0, "after quiet");
    });
    EXPECT_EQ(10u, count_substr(log, "burst")) << log;
    EXPECT_EQ(16ul, suppressed(log)) << log;
    EXPECT_LT(log.find("16 similar lines suppressed"), log.find("after quiet")) << log;
    EXPECT_EQ(10u, count_substr(log, "after quiet")) << "a fresh burst after a quiet second";
}

// Four threads at once on a clock that does not move: exactly one burst is printed, and every
// other line is counted in the summary.
TEST_F(Core, ThreadsLoggingAtOnceAreCountedExactly)
{
    FakeClock clock;
    std::string log = symh_captured_log([] {
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([] {
                for (int i = 0; i < 5000; ++i)
                    symh_shim_log_emit_site(1, 0, "from many threads");
            });
        for (auto &thread : threads)
            thread.join();
        symh_shim_log_flush();
    });
    EXPECT_EQ(10u, count_substr(log, "error from many threads")) << log;
    EXPECT_EQ(19990ul, suppressed(log)) << log;
}

// ---- the memory cgroup's limit (core_cgroup.c), on a fake /proc/self and cgroup tree ---------

class Cgroup : public SymhTest
{
  protected:
    std::string top;
    void SetUp() override
    {
        SymhTest::SetUp();
        char tmpl[] = "/tmp/symh_cgroup_XXXXXX";
        ASSERT_NE(nullptr, mkdtemp(tmpl));
        top = tmpl;
        mkdir((top + "/proc").c_str(), 0700);
    }
    void TearDown() override
    {
        std::string rm = "rm -rf '" + top + "'";
        EXPECT_EQ(0, system(rm.c_str()));
        SymhTest::TearDown();
    }
    void put(const std::string &rel, const std::string &text)
    {
        std::string path = top + "/" + rel;
        for (size_t at = path.find('/', top.size() + 1); at != std::string::npos;
             at = path.find('/', at + 1))
            mkdir(path.substr(0, at).c_str(), 0700);
        FILE *f = fopen(path.c_str(), "w");
        ASSERT_NE(nullptr, f) << path;
        fputs(text.c_str(), f);
        fclose(f);
    }
    // A mountinfo line: `root` of the hierarchy mounted at `top`/`point`.
    std::string mount(const std::string &root, const std::string &point, const std::string &type,
                      const std::string &options)
    {
        return "30 24 0:26 " + root + " " + top + "/" + point + " rw,nosuid - " + type + " " +
               type + " " + options + "\n";
    }
    unsigned long long limit(std::string *path = nullptr, int *version = nullptr)
    {
        char text[256] = "unset";
        int v = -1;
        unsigned long long bytes =
            symh_shim_cgroup_memory((top + "/proc").c_str(), text, sizeof(text), &v);
        if (path != nullptr)
            *path = text;
        if (version != nullptr)
            *version = v;
        return bytes;
    }
};

const char *const v1_unlimited = "9223372036854771712\n";

// This machine's kind: cgroup v2 mounted beside v1, the memory controller on v1; a limit on the
// parent binds the child, whose own is v1's "unlimited".
TEST_F(Cgroup, V1LimitOfAnAncestorBinds)
{
    put("proc/mountinfo", "22 1 0:20 / /sys rw - sysfs sysfs rw\n" +
                              mount("/", "unified", "cgroup2", "rw,nsdelegate") +
                              mount("/", "cpu", "cgroup", "rw,cpu") +
                              mount("/", "memory", "cgroup", "rw,memory"));
    put("proc/cgroup", "4:memory:/job/task\n3:cpu:/\n0::/\n");
    put("memory/memory.limit_in_bytes", v1_unlimited);
    put("memory/job/memory.limit_in_bytes", "419430400\n");
    put("memory/job/task/memory.limit_in_bytes", v1_unlimited);
    std::string path;
    int version = 0;
    EXPECT_EQ(419430400ull, limit(&path, &version));
    EXPECT_EQ("/job", path);
    EXPECT_EQ(1, version);
}

// cgroup v2 only: "max" is no limit; the lowest limit on the way up wins.
TEST_F(Cgroup, V2LowestLimitOnThePathWins)
{
    put("proc/mountinfo", mount("/", "v2", "cgroup2", "rw"));
    put("proc/cgroup", "0::/user/job/step\n");
    put("v2/user/memory.max", "1073741824\n");
    put("v2/user/job/memory.max", "max\n");
    put("v2/user/job/step/memory.max", "536870912\n");
    std::string path;
    int version = 0;
    EXPECT_EQ(536870912ull, limit(&path, &version));
    EXPECT_EQ("/user/job/step", path);
    EXPECT_EQ(2, version);
    put("v2/user/job/step/memory.max", "max\n");
    EXPECT_EQ(1073741824ull, limit(&path));
    EXPECT_EQ("/user", path);
}

TEST_F(Cgroup, NoLimitAnywhereIsZero)
{
    put("proc/mountinfo", mount("/", "v2", "cgroup2", "rw"));
    put("proc/cgroup", "0::/a\n");
    put("v2/a/memory.max", "max\n");
    std::string path;
    int version = 0;
    EXPECT_EQ(0ull, limit(&path, &version));
    EXPECT_EQ("", path);
    EXPECT_EQ(2, version);
    put("proc/mountinfo", "22 1 0:20 / /sys rw - sysfs sysfs rw\n");
    EXPECT_EQ(0ull, limit(&path, &version)) << "no cgroup mounted";
    EXPECT_EQ(0, version);
    put("proc/mountinfo", mount("/", "v2", "cgroup2", "rw"));
    put("proc/cgroup", "0::/a\n");
    put("v2/a/memory.max", "garbage\n");
    EXPECT_EQ(0ull, limit()) << "an unreadable value is no limit";
}

// A container without a cgroup namespace: the mount shows a subtree of the hierarchy, and
// /proc/self/cgroup names paths from the hierarchy's root.
TEST_F(Cgroup, AMountedSubtreeIsStrippedFromThePath)
{
    put("proc/mountinfo", mount("/docker/c1", "memory", "cgroup", "rw,memory"));
    put("proc/cgroup", "9:memory:/docker/c1/inner\n");
    put("memory/memory.limit_in_bytes", "268435456\n"); // the container's
    put("memory/inner/memory.limit_in_bytes", v1_unlimited);
    std::string path;
    EXPECT_EQ(268435456ull, limit(&path));
    EXPECT_EQ("/docker/c1", path);
    put("proc/cgroup", "9:memory:/elsewhere\n");
    EXPECT_EQ(0ull, limit()) << "a cgroup outside the mounted subtree has no directory here";
}

} // namespace
