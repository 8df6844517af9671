// Multi-PE tests of starting a NIC transport (docs/transports.md), in every build: for UCX and for
// libfabric each, where the build has it, one that cannot start (UCX given no usable wire,
// libfabric an unknown provider) fails symh_init on every PE with SYMH_ERR_TRANSPORT and its
// reason; where the build lacks it, SYMH_TRANSPORT=<it> fails symh_init on every PE with
// SYMH_ERR_UNSUPPORTED and one line; a clean init follows either way. And a libfabric provider
// lacking an operation (a fault site takes 64-bit xor from it): said once at init, that
// operation refused with one line and nothing sent, the others carried. CTest configures no
// transport here: each test sets its own.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <symheap.h>
#include <symheap/rma.h>

#include "mpi_test_util.hpp"
#include "shim_core.h"
#include "shim_fault.h"

namespace
{

using namespace symh_test;

bool built(const std::string &nic)
{
    return std::string(symh_shim_tl_nic_built()).find(nic) != std::string::npos;
}

// Sets environment variables for its lifetime; the values from before come back after.
class env_scope
{
  public:
    explicit env_scope(std::vector<std::pair<std::string, std::string>> vars)
    {
        for (auto &v : vars) {
            const char *was = getenv(v.first.c_str());
            saved_.push_back({ v.first, was != nullptr, was != nullptr ? was : "" });
            setenv(v.first.c_str(), v.second.c_str(), 1);
        }
    }
    ~env_scope()
    {
        for (auto &s : saved_) {
            if (s.set)
                setenv(s.name.c_str(), s.value.c_str(), 1);
            else
                unsetenv(s.name.c_str());
        }
    }
    env_scope(const env_scope &) = delete;
    env_scope &operator=(const env_scope &) = delete;

  private:
    struct saved {
        std::string name;
        bool set;
        std::string value;
    };
    std::vector<saved> saved_;
};

class NicStart : public SymhTest
{
  protected:
    // SYMH_TRANSPORT=nic: a transport that cannot start where built, the build's refusal where
    // not; every PE checks its own status and lines; then a clean init.
    void fails_everywhere_then_init_works(const std::string &nic)
    {
        bool have = built(nic);
        int status = SYMH_OK;
        std::string log;
        {
            env_scope env({ { "SYMH_TRANSPORT", nic },
                            { nic == "ucx" ? "UCX_TLS" : "SYMH_OFI_PROVIDER", "no_such_wire" } });
            log = symh_captured_log([&] { status = symh_init(); });
        }
        EXPECT_EQ(0, symh_initialized());
        ASSERT_GE(npes(), 2) << "a start-up failure is agreed between PEs"; // MPI is up now
        if (have) {
            // Every PE's own start failed: each says why, in one error line.
            EXPECT_EQ(SYMH_ERR_TRANSPORT, status) << symh_status_string(status) << ": " << log;
            EXPECT_EQ(1u, log_lines(log)) << log;
            EXPECT_EQ(1u, count_lines(log, nic == "ucx" ? "UCX: ucp_init failed"
                                                        : "ofi: fi_getinfo failed for provider "
                                                          "\"no_such_wire\""))
                << log;
        } else {
            // Refused before anything starts: the lowest PE says so, once for the job.
            EXPECT_EQ(SYMH_ERR_UNSUPPORTED, status) << symh_status_string(status) << ": " << log;
            std::string line =
                "symh_init: SYMH_TRANSPORT=" + nic + ": this build has no " + nic + " transport";
            EXPECT_EQ(me() == 0 ? 1u : 0u, log_lines(log)) << log;
            EXPECT_EQ(me() == 0 ? 1u : 0u, count_lines(log, line)) << log;
        }
        EXPECT_EQ(npes(), count_pes(status == (have ? SYMH_ERR_TRANSPORT : SYMH_ERR_UNSUPPORTED)))
            << "every PE failed";

        // Nothing was left half-started: the transport itself where built, else the default.
        env_scope env({ { "SYMH_TRANSPORT", have ? nic : "auto" } });
        ASSERT_EQ(SYMH_OK, symh_init());
        int right = (me() + 1) % npes();
        EXPECT_EQ(have ? nic : expected_route(right), std::string(symh_pe_transport(right)));
        symh_finalize();
    }
};

TEST_F(NicStart, UcxThatCannotStartOrIsNotBuiltFailsInitEverywhere)
{
    fails_everywhere_then_init_works("ucx");
}

TEST_F(NicStart, OfiThatCannotStartOrIsNotBuiltFailsInitEverywhere)
{
    fails_everywhere_then_init_works("ofi");
}

// Fault site n of "amo: ofi atomicvalid" (tl_ofi.c) is word size n / 8 (0: 32 bits, 1: 64 bits)
// and operation n % 8 (fetch set swap cswap add and or xor): 15 is 64-bit xor, fetching or not.
const long symh_test_ofi_xor64_site = 1 * 8 + 7;

class NicProvider : public SymhTest
{
};

// Built with libfabric only (tests/mpi/CMakeLists.txt).
TEST_F(NicProvider, OperationTheProviderLacksIsRefusedAndOthersWork)
{
    ASSERT_TRUE(built("ofi"));
    env_scope env({ { "SYMH_TRANSPORT", "ofi" }, { "SYMH_OFI_PROVIDER", "tcp" } });
    symh_shim_fault_arm("amo: ofi atomicvalid", symh_test_ofi_xor64_site);
    int status = SYMH_OK;
    std::string log = symh_captured_log([&] { status = symh_init(); });
    std::string fired = symh_shim_fault_fired() != nullptr ? symh_shim_fault_fired() : "";
    symh_shim_fault_arm(nullptr, 0);
    ASSERT_EQ(SYMH_OK, status) << log;
    ASSERT_GE(npes(), 2);
    EXPECT_EQ("amo: ofi atomicvalid", fired);
    // Said once at init, on every PE (each asks its own endpoint).
    EXPECT_EQ(1u, log_lines(log)) << log;
    EXPECT_EQ(1u, count_lines(log, "lacks atomics: xor64 fetch_xor64 (those return "
                                   "SYMH_ERR_UNSUPPORTED)"))
        << log;

    auto *w = (uint64_t *)symh_calloc(2, sizeof(uint64_t));
    ASSERT_NE(nullptr, w);
    symh_barrier_all();
    int right = (me() + 1) % npes();
    ASSERT_EQ("ofi", std::string(symh_pe_transport(right)));
    // Each refused call: one line, the transport's naming the operation, under the call's
    // context (the public call and the PE).
    std::string pe =
        " (PE " + std::to_string(right) + "): ofi: amo: provider tcp;ofi_rxm does not carry ";
    log = symh_captured_log([&] { symh_uint64_atomic_xor(&w[0], 0xff00, right); });
    EXPECT_EQ(SYMH_ERR_UNSUPPORTED, symh_last_error());
    EXPECT_EQ(1u, log_lines(log)) << log;
    EXPECT_EQ(1u, count_lines(log, "symh_uint64_atomic_xor" + pe + "xor on 8-byte words")) << log;
    log = symh_captured_log([&] { (void)symh_uint64_atomic_fetch_xor(&w[0], 0xff00, right); });
    EXPECT_EQ(SYMH_ERR_UNSUPPORTED, symh_last_error());
    EXPECT_EQ(1u, log_lines(log)) << log;
    EXPECT_EQ(1u,
              count_lines(log, "symh_uint64_atomic_fetch_xor" + pe + "fetch_xor on 8-byte words"))
        << log;
    // What the provider has is carried: 64-bit add, 32-bit xor.
    symh_uint64_atomic_add(&w[0], 5, right);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_uint32_atomic_xor((uint32_t *)&w[1], 0x0f0f, right);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_EQ(5u, symh_uint64_atomic_fetch_add(&w[0], 1, right));
    symh_barrier_all();
    EXPECT_EQ(6u, w[0]) << "the refused xors changed nothing";
    EXPECT_EQ(0x0f0fu, *(uint32_t *)&w[1]);
    symh_barrier_all();
    symh_free(w);
    symh_finalize();
}

} // namespace
