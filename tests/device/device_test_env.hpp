// The device tests' configuration as CTest states it (tests/device/CMakeLists.txt), read apart
// from the library: how many host devices this run was given.
#ifndef SYMH_DEVICE_TEST_ENV_HPP
#define SYMH_DEVICE_TEST_ENV_HPP

#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>

#include <symheap.h>

namespace symh_test
{

// SYMHTEST_HOST_DEVICES, which every device run sets beside the SYMH_HOST_DEVICES it gives the
// library: the count each PE must see, stated by the run's configuration rather than read back
// from the variable the library reads (a run whose SYMH_HOST_DEVICES got lost would otherwise
// expect and see the default). Run by hand without it: SYMH_HOST_DEVICES, else 1 (the default).
// 0 when the value is not a count.
inline int configured_host_devices()
{
    const char *stated = getenv("SYMHTEST_HOST_DEVICES");
    const char *given = getenv("SYMH_HOST_DEVICES");
    const char *text = stated != nullptr ? stated : given != nullptr ? given : "1";
    char *end = nullptr;
    long value = strtol(text, &end, 10);
    return *text != '\0' && *end == '\0' && value > 0 && value <= 1024 ? (int)value : 0;
}

// The device count symheap (initialized) must report: the configured host devices on the host
// backend; a GPU backend (tests/gpu/run_cuda_checks.sh) has the devices it finds, `n`.
inline int expected_device_count(int n)
{
    return symh_device_kind(0) == SYMH_DEVICE_KIND_HOST ? configured_host_devices() : n;
}

// A memory resource's statistics, expected to be readable (a failed read fails the test, and the
// fields then read as all ones).
inline symh_mr_stats_t stats_of(const symh_mr_t *mr)
{
    symh_mr_stats_t s;
    memset(&s, 0xff, sizeof(s));
    EXPECT_EQ(SYMH_OK, symh_mr_statistics_get(mr, &s));
    return s;
}

} // namespace symh_test

#endif /* SYMH_DEVICE_TEST_ENV_HPP */
