// Multi-PE tests of the start-up agreement (docs/init.md "Failing together"): symh_boot_agree's
// verdicts, and a start-up step that fails on one PE only (an allocation or a NIC call, made to
// fail through the fault sites of src/core/core_fault.h) fails symh_init on every PE with a clear
// status and one PE's message, with no hang and no abort, after which symh_init works again.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <symheap.h>
#include <symheap/registration.h>
#include <symheap/vmm.h>

#include "mpi_test_util.hpp"
#include "shim_fault.h"

namespace
{

using namespace symh_test;

class BootAgree : public SymhSuiteInitTest
{
};

TEST_F(BootAgree, AllOkAgreesOk)
{
    int first_bad = 7;
    EXPECT_EQ(SYMH_OK, symh_shim_boot_agree(SYMH_OK, &first_bad));
    EXPECT_EQ(-1, first_bad);
    EXPECT_EQ(SYMH_OK, symh_shim_boot_agree(SYMH_OK, nullptr));
}

// Each PE in turn fails alone: it gets its own status back, every other PE SYMH_ERR_MISMATCH,
// and all name it as the first bad PE.
TEST_F(BootAgree, OneFailingPeFailsEveryPe)
{
    for (int bad = 0; bad < npes(); ++bad) {
        int first_bad = -2;
        int status = symh_shim_boot_agree(me() == bad ? SYMH_ERR_NO_MEMORY : SYMH_OK, &first_bad);
        EXPECT_EQ(me() == bad ? SYMH_ERR_NO_MEMORY : SYMH_ERR_MISMATCH, status) << "bad " << bad;
        EXPECT_EQ(bad, first_bad);
    }
}

// Several fail with different codes: each keeps its own, first_bad is the lowest of them.
TEST_F(BootAgree, FirstBadIsTheLowestFailingPe)
{
    int mine = me() % 2 == 1 ? SYMH_ERR_TRANSPORT : me() == npes() - 1 ? SYMH_ERR_LIMIT : SYMH_OK;
    if (npes() == 1)
        mine = SYMH_ERR_LIMIT;
    int lowest = npes() == 1 ? 0 : 1;
    int first_bad = -2;
    int status = symh_shim_boot_agree(mine, &first_bad);
    EXPECT_EQ(mine != SYMH_OK ? mine : SYMH_ERR_MISMATCH, status);
    EXPECT_EQ(lowest, first_bad);
    // The agreement leaves nothing behind: the next one starts clean.
    EXPECT_EQ(SYMH_OK, symh_shim_boot_agree(SYMH_OK, &first_bad));
    EXPECT_EQ(-1, first_bad);
}

std::vector<std::string> split(const char *text, char sep)
{
    std::vector<std::string> parts;
    std::stringstream in(text != nullptr ? text : "");
    std::string part;
    while (std::getline(in, part, sep))
        if (!part.empty())
            parts.push_back(part);
    return parts;
}

// The sum of `mine` over every PE (collective).
long count_sum(size_t mine)
{
    long in = (long)mine, all = 0;
    MPI_Allreduce(&in, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

// The lines of a captured log at level error.
size_t error_lines(const std::string &log)
{
    return count_lines(log, " error ");
}

class StartupFault : public SymhTest
{
};

// For each prefix of SYMHTEST_FAULT_SITES (':'-separated), every fault site of that prefix that
// symh_init reaches fails once on the last PE, in turn: init fails everywhere, the failing PE
// with its own status (out of memory, or the transport's) and its message, the others with
// SYMH_ERR_MISMATCH and no error line; when no site is left, init works.
TEST_F(StartupFault, EverySiteFailsInitOnEveryPeThenInitWorks)
{
    std::vector<std::string> prefixes = split(std::getenv("SYMHTEST_FAULT_SITES"), ':');
    ASSERT_FALSE(prefixes.empty()) << "SYMHTEST_FAULT_SITES names no site prefix";
    // A clean start first (it also brings MPI up, which stays up for the tests' own counts).
    ASSERT_EQ(SYMH_OK, symh_init());
    symh_finalize();
    int victim = npes() - 1;
    for (const std::string &prefix : prefixes) {
        int fired_sites = 0;
        for (long skip = 0; skip < 64; ++skip) {
            if (me() == victim)
                symh_shim_fault_arm(prefix.c_str(), skip);
            int status = SYMH_OK;
            std::string log = symh_captured_log([&] { status = symh_init(); });
            const char *site = symh_shim_fault_fired();
            std::string where = site != nullptr ? site : "";
            symh_shim_fault_arm(nullptr, 0);
            bool fired = count_pes(site != nullptr) > 0;
            if (!fired) {
                EXPECT_EQ(SYMH_OK, status) << prefix << " skip " << skip << ": " << log;
                EXPECT_EQ(1, symh_initialized());
                if (status == SYMH_OK)
                    symh_finalize();
                break;
            }
            ++fired_sites;
            EXPECT_EQ(0, symh_initialized()) << where;
            if (me() == victim) {
                EXPECT_TRUE(status == SYMH_ERR_NO_MEMORY || status == SYMH_ERR_TRANSPORT)
                    << where << ": " << symh_status_string(status);
                EXPECT_LE(1u, error_lines(log)) << where << ": " << log;
            } else {
                EXPECT_EQ(SYMH_ERR_MISMATCH, status) << "PE " << victim << " failed";
                EXPECT_EQ(0u, error_lines(log)) << log;
            }
        }
        EXPECT_LT(0, fired_sites) << "no site of prefix \"" << prefix << "\" was reached";
    }
}

// Symmetric registration over a NIC (SYMHTEST_FAULT_SITES names ucx or ofi first): the key
// exchange of its map fails on the last PE; the call returns NULL on every PE with that PE's code
// in symh_last_error() everywhere and its lines alone in the job's log, and the next
// registration works.
TEST_F(StartupFault, KeyExchangeFailingOnOnePeRefusesRegistrationEverywhere)
{
    std::vector<std::string> prefixes = split(std::getenv("SYMHTEST_FAULT_SITES"), ':');
    ASSERT_FALSE(prefixes.empty());
    ASSERT_TRUE(prefixes[0] == "ucx" || prefixes[0] == "ofi") << prefixes[0];
    std::string site = prefixes[0] + ": the key exchange";
    ASSERT_EQ(SYMH_OK, symh_init());
    const size_t length = symh_vmm_granularity(0, SYMH_GRANULARITY_RECOMMENDED);
    void *resv = nullptr, *mapped = nullptr;
    symh_physmem_t *pm = nullptr;
    ASSERT_EQ(SYMH_OK, symh_vmm_reserve(length, nullptr, &resv));
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, length, &pm));
    ASSERT_EQ(SYMH_OK, symh_physmem_map(pm, resv, length, SYMH_ACCESS_READ_WRITE, 0, &mapped));

    int victim = npes() - 1;
    if (me() == victim)
        symh_shim_fault_arm(site.c_str(), 0);
    void *alias = nullptr;
    std::string log =
        symh_captured_log([&] { alias = symh_buffer_register_symmetric(mapped, length); });
    int status = symh_last_error();
    bool fired = symh_shim_fault_fired() != nullptr;
    symh_shim_fault_arm(nullptr, 0);
    EXPECT_EQ(me() == victim, fired);
    EXPECT_EQ(nullptr, alias);
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, status) << "the failing PE's code, on every PE";
    // The failing PE says what it could not allocate; the registration's reason is one line in
    // the job (symmetric registration's agreement).
    if (me() == victim) {
        EXPECT_EQ(1u, count_lines(log, site + ": out of memory")) << log;
    }
    EXPECT_EQ(1, count_sum(count_lines(log, "cannot map or share the alias"))) << log;

    alias = symh_buffer_register_symmetric(mapped, length);
    EXPECT_NE(nullptr, alias) << symh_status_string(symh_last_error());
    if (alias != nullptr) {
        EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(alias));
    }
    symh_barrier_all();
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(resv, length));
    EXPECT_EQ(SYMH_OK, symh_physmem_destroy(pm));
    EXPECT_EQ(SYMH_OK, symh_vmm_release(resv, length));
    symh_finalize();
}

} // namespace
