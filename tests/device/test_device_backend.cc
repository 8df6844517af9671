// Tests of the device backend choice (SYMH_DEVICE_BACKEND, docs/devices.md "Backends"): auto
// falls back to the host backend with one info line where no GPU backend can start; host always
// works; an explicit hip or cuda that cannot start fails symh_init with one line naming the
// variable; the HIP backend is compiled in when CMake found its headers. Written to pass on a
// GPU machine too: there auto and an explicit backend start, and the test checks the kind.
#include <cstdlib>
#include <string>

#include <symheap.h>

#include "device_test_env.hpp"
#include "mpi_test_util.hpp"

extern "C" int symh_dev_hip_built(void);

namespace
{

using symh_test::log_lines;

// Sets an environment variable for one scope, then puts back what was there.
class ScopedEnv
{
  public:
    ScopedEnv(const char *name, const char *value) : name_(name)
    {
        const char *old = getenv(name);
        had_ = old != nullptr;
        old_ = old ? old : "";
        setenv(name, value, 1);
    }
    ~ScopedEnv()
    {
        if (had_)
            setenv(name_, old_.c_str(), 1);
        else
            unsetenv(name_);
    }

  private:
    const char *name_;
    bool had_;
    std::string old_;
};

class DeviceBackend : public SymhTest
{
};

TEST_F(DeviceBackend, HostAlwaysStarts)
{
    ScopedEnv backend("SYMH_DEVICE_BACKEND", "host");
    ScopedEnv level("SYMH_LOG_LEVEL", "info");
    std::string log = symh_captured_log([] { ASSERT_EQ(SYMH_OK, symh_init()); });
    EXPECT_EQ(std::string::npos, log.find("SYMH_DEVICE_BACKEND")) << log;
    EXPECT_EQ(symh_test::configured_host_devices(), symh_device_count());
    EXPECT_EQ(SYMH_DEVICE_KIND_HOST, symh_device_kind(SYMH_DEVICE_CURRENT));
    EXPECT_EQ(SYMH_DEVICE_KIND_HOST, symh_device_kind(symh_device_count() - 1));
    symh_finalize();
}

// Without a GPU (CI): the host backend, and exactly one info line saying why.
TEST_F(DeviceBackend, AutoFallsBackToHostWithOneInfoLine)
{
    ScopedEnv backend("SYMH_DEVICE_BACKEND", "auto");
    ScopedEnv level("SYMH_LOG_LEVEL", "info");
    std::string log = symh_captured_log([] { ASSERT_EQ(SYMH_OK, symh_init()); });
    symh_device_kind_t kind = symh_device_kind(0);
    if (kind == SYMH_DEVICE_KIND_HOST) {
        EXPECT_EQ(symh_test::configured_host_devices(), symh_device_count());
        size_t at = log.find("SYMH_DEVICE_BACKEND=auto: no GPU backend can start, using the "
                             "host backend (CUDA: ");
        ASSERT_NE(std::string::npos, at) << log;
        EXPECT_EQ(std::string::npos, log.find("SYMH_DEVICE_BACKEND", at + 1)) << log;
        EXPECT_NE(std::string::npos, log.find("; HIP: ", at)) << log;
        EXPECT_NE(std::string::npos, log.find(" info ", log.rfind('\n', at) + 1)) << log;
    } else {
        EXPECT_EQ(std::string::npos, log.find("SYMH_DEVICE_BACKEND")) << log;
        EXPECT_GE(symh_device_count(), 1);
    }
    symh_finalize();
}

// An explicit GPU backend: starts where it can (kind checked), else fails symh_init on every PE
// with SYMH_ERR_NO_DEVICE and one line from the lowest PE naming the variable, and the next
// symh_init works.
void explicit_backend(const char *name, symh_device_kind_t kind)
{
    int status = SYMH_OK;
    {
        ScopedEnv backend("SYMH_DEVICE_BACKEND", name);
        std::string log = symh_captured_log([&] { status = symh_init(); });
        if (status == SYMH_OK) {
            EXPECT_EQ(kind, symh_device_kind(0)) << name;
            EXPECT_GE(symh_device_count(), 1);
            symh_finalize();
            return;
        }
        EXPECT_EQ(SYMH_ERR_NO_DEVICE, status) << name << ": " << log;
        EXPECT_EQ(0, symh_initialized());
        if (symh_test::me() == 0) {
            EXPECT_EQ(1u, log_lines(log)) << log;
            EXPECT_NE(std::string::npos,
                      log.find(std::string("SYMH_DEVICE_BACKEND=") + name + ": the "))
                << log;
            EXPECT_NE(std::string::npos, log.find("backend cannot start: ")) << log;
        } else {
            EXPECT_EQ(0u, log_lines(log)) << log;
        }
    }
    ASSERT_EQ(SYMH_OK, symh_init());
    symh_finalize();
}

TEST_F(DeviceBackend, ExplicitCudaStartsOrFailsInitWithOneLine)
{
    explicit_backend("cuda", SYMH_DEVICE_KIND_CUDA);
}

TEST_F(DeviceBackend, ExplicitHipStartsOrFailsInitWithOneLine)
{
    explicit_backend("hip", SYMH_DEVICE_KIND_HIP);
}

TEST_F(DeviceBackend, BadValueFailsInit)
{
    ScopedEnv backend("SYMH_DEVICE_BACKEND", "opencl");
    int status = SYMH_OK;
    std::string log = symh_captured_log([&] { status = symh_init(); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, status) << log;
    if (symh_test::me() == 0) {
        EXPECT_NE(std::string::npos, log.find("SYMH_DEVICE_BACKEND='opencl'")) << log;
    }
}

// The HIP backend is compiled in exactly when SYMH_WITH_HIP is on and hip/hip_runtime_api.h
// exists: this test looks for the header itself (tests/device/CMakeLists.txt), so a build that
// misses the header, or builds HIP without it, fails here. A user sees the difference in the
// reason an explicit SYMH_DEVICE_BACKEND=hip gives for not starting.
#if __has_include(<hip/hip_runtime_api.h>)
#define SYMH_TEST_HIP_HEADER 1
#else
#define SYMH_TEST_HIP_HEADER 0
#endif

TEST_F(DeviceBackend, HipBuiltWhereHeadersExist)
{
    const int expected = SYMH_TEST_WITH_HIP && SYMH_TEST_HIP_HEADER;
    EXPECT_EQ(expected, symh_dev_hip_built())
        << "SYMH_WITH_HIP " << SYMH_TEST_WITH_HIP << ", hip/hip_runtime_api.h "
        << (SYMH_TEST_HIP_HEADER ? "found" : "not found");
    ScopedEnv backend("SYMH_DEVICE_BACKEND", "hip");
    int status = SYMH_OK;
    std::string log = symh_captured_log([&] { status = symh_init(); });
    if (status == SYMH_OK) {
        EXPECT_TRUE(expected) << "the HIP backend started in a build without it";
        symh_finalize();
        return;
    }
    if (symh_test::me() == 0) {
        bool says_not_built = log.find("symheap was built without HIP") != std::string::npos;
        EXPECT_EQ(!expected, says_not_built) << log;
    }
}

} // namespace
