// Tests of the device queries (symh_device_count/get/set/kind) on the host backend: the count
// from SYMH_HOST_DEVICES, the current device per thread, misuse refused with nothing changed and
// one log line, invalid SYMH_HOST_DEVICES values failing symh_init, and calls outside
// init/finalize.
#include <climits>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <symheap.h>

#include "device_test_env.hpp"
#include "mpi_test_util.hpp"

namespace
{

using symh_test::configured_host_devices;
using symh_test::log_lines;

class DeviceBeforeInit : public SymhTest
{
};

// No symh_init needed (docs/devices.md): the devices come up locally on first use.
TEST_F(DeviceBeforeInit, EveryCallWorksWithoutInit)
{
    ASSERT_EQ(0, symh_initialized());
    std::string log = symh_captured_log([&] {
        int n = symh_device_count();
        EXPECT_EQ(symh_test::expected_device_count(n), n);
        EXPECT_EQ(SYMH_OK, symh_last_error());
        EXPECT_EQ(0, symh_device_get());
        EXPECT_EQ(SYMH_OK, symh_device_set(n - 1));
        EXPECT_EQ(n - 1, symh_device_get());
        EXPECT_EQ(SYMH_DEVICE_KIND_HOST, symh_device_kind(0));
        EXPECT_EQ(SYMH_OK, symh_last_error());
    });
    EXPECT_EQ("", log);
    ASSERT_EQ(SYMH_OK, symh_init());
    EXPECT_EQ(0, symh_device_get()) << "symh_init adopts the devices, every thread on device 0";
    symh_finalize();
}

class Device : public SymhSuiteInitTest
{
  protected:
    void SetUp() override
    {
        SymhTest::SetUp();
        n = symh_device_count();
        ASSERT_EQ(symh_test::expected_device_count(n), n)
            << "the devices this run was configured with";
        ASSERT_EQ(SYMH_OK, symh_device_set(0));
    }
    int n = 0;
};

TEST_F(Device, CountIsSymhHostDevices)
{
    ASSERT_GT(configured_host_devices(), 0) << "SYMHTEST_HOST_DEVICES is not a count";
    EXPECT_EQ(configured_host_devices(), n);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_TRUE(symh_test::same_everywhere((uint64_t)n));
}

TEST_F(Device, SetGetAndKindOfEveryDevice)
{
    EXPECT_EQ(0, symh_device_get());
    for (int d = 0; d < n; ++d) {
        ASSERT_EQ(SYMH_OK, symh_device_set(d));
        EXPECT_EQ(d, symh_device_get());
        EXPECT_EQ(SYMH_DEVICE_KIND_HOST, symh_device_kind(d));
        EXPECT_EQ(SYMH_OK, symh_last_error());
        EXPECT_EQ(SYMH_DEVICE_KIND_HOST, symh_device_kind(SYMH_DEVICE_CURRENT));
        EXPECT_EQ(SYMH_OK, symh_last_error());
    }
}

TEST_F(Device, BadIdsAreRefusedAndChangeNothing)
{
    ASSERT_EQ(SYMH_OK, symh_device_set(n - 1));
    const int bad[] = { -1, SYMH_DEVICE_CURRENT, SYMH_DEVICE_ANY, n, n + 1, INT_MAX, INT_MIN };
    for (int id : bad) {
        std::string log = symh_captured_log(
            [&] { EXPECT_EQ(SYMH_ERR_NO_DEVICE, symh_device_set(id)) << "device " << id; });
        EXPECT_EQ(1u, log_lines(log)) << log;
        EXPECT_NE(std::string::npos, log.find("device " + std::to_string(id))) << log;
        EXPECT_EQ(n - 1, symh_device_get());
    }
    for (int id : { SYMH_DEVICE_ANY, n, INT_MIN }) {
        std::string log = symh_captured_log([&] {
            EXPECT_EQ(SYMH_DEVICE_KIND_HOST, symh_device_kind(id));
            EXPECT_EQ(SYMH_ERR_NO_DEVICE, symh_last_error());
        });
        EXPECT_EQ(1u, log_lines(log)) << log;
    }
    // A successful call resets the last error.
    EXPECT_EQ(n, symh_device_count());
    EXPECT_EQ(SYMH_OK, symh_last_error());
}

TEST_F(Device, EachThreadHasItsOwnCurrentDevice)
{
    ASSERT_EQ(SYMH_OK, symh_device_set(n - 1));
    const int n_threads = 8;
    std::vector<int> initial(n_threads, -1), after(n_threads, -1);
    std::vector<std::thread> threads;
    for (int t = 0; t < n_threads; ++t)
        threads.emplace_back([&, t] {
            initial[t] = symh_device_get();
            for (int round = 0; round < 100; ++round) {
                int d = (t + round) % n;
                if (symh_device_set(d) != SYMH_OK || symh_device_get() != d)
                    return;
            }
            after[t] = symh_device_get();
        });
    for (std::thread &thread : threads)
        thread.join();
    for (int t = 0; t < n_threads; ++t) {
        EXPECT_EQ(0, initial[t]) << "a new thread starts on device 0 (thread " << t << ")";
        EXPECT_EQ((t + 99) % n, after[t]) << "thread " << t;
    }
    EXPECT_EQ(n - 1, symh_device_get()) << "other threads do not move this thread's device";
}

class DeviceConfig : public SymhTest
{
};

// Invalid values fail symh_init on every PE; the lowest PE logs one line naming the variable.
TEST_F(DeviceConfig, InvalidHostDevicesFailsInit)
{
    const char *old = getenv("SYMH_HOST_DEVICES");
    std::string saved = old ? old : "";
    for (const char *value : { "0", "1025", "-1", "two", "" }) {
        setenv("SYMH_HOST_DEVICES", value, 1);
        int status = SYMH_OK;
        std::string log = symh_captured_log([&] { status = symh_init(); });
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, status) << "SYMH_HOST_DEVICES=" << value;
        EXPECT_EQ(0, symh_initialized());
        if (symh_test::me() == 0) {
            EXPECT_EQ(1u, log_lines(log)) << log;
            EXPECT_NE(std::string::npos, log.find("SYMH_HOST_DEVICES")) << log;
            EXPECT_NE(std::string::npos, log.find(value)) << log;
        } else {
            EXPECT_EQ(0u, log_lines(log)) << log;
        }
    }
    if (old)
        setenv("SYMH_HOST_DEVICES", saved.c_str(), 1);
    else
        unsetenv("SYMH_HOST_DEVICES");
    ASSERT_EQ(SYMH_OK, symh_init());
    EXPECT_EQ(configured_host_devices(), symh_device_count());
    symh_finalize();
}

TEST_F(DeviceConfig, LargestCountWorks)
{
    const char *old = getenv("SYMH_HOST_DEVICES");
    std::string saved = old ? old : "";
    setenv("SYMH_HOST_DEVICES", "1024", 1);
    ASSERT_EQ(SYMH_OK, symh_init());
    EXPECT_EQ(1024, symh_device_count());
    EXPECT_EQ(SYMH_OK, symh_device_set(1023));
    EXPECT_NE(nullptr, symh_mr_get_per_device(1023));
    symh_finalize();
    if (old)
        setenv("SYMH_HOST_DEVICES", saved.c_str(), 1);
    else
        unsetenv("SYMH_HOST_DEVICES");
}

class DeviceAfterFinalize : public SymhTest
{
};

TEST_F(DeviceAfterFinalize, CallsWorkLocallyAndANewInitStartsOnDeviceZero)
{
    ASSERT_EQ(SYMH_OK, symh_init());
    int n = symh_device_count();
    ASSERT_EQ(SYMH_OK, symh_device_set(n - 1));
    symh_finalize();
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(n, symh_device_count()) << "brought up locally again";
        EXPECT_EQ(0, symh_device_get());
        EXPECT_EQ(SYMH_OK, symh_device_set(0));
    });
    EXPECT_EQ("", log);
    ASSERT_EQ(SYMH_OK, symh_init());
    EXPECT_EQ(n, symh_device_count());
    EXPECT_EQ(0, symh_device_get()) << "every init starts every thread on device 0";
    symh_finalize();
}

} // namespace
