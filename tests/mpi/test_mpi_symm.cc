// Tests of symmetric registration (symh_buffer_register_symmetric / _unregister_symmetric): VMM
// memory only, agreement (one PE's failure or a different length is NULL on every PE, nothing
// mapped), RMA and atomics through the alias arriving in the ORIGINAL buffer of the target,
// unregister leaving the buffer intact, wrong addresses, different live aliases, the region
// limit, the symmetric area's exhaustion, no mapping or descriptor leaked over 1000
// register/unregister cycles, and regions left live released by symh_finalize.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <symheap.h>
#include <symheap/vmm.h>

#include "mpi_test_util.hpp"
#include "shim_heap_debug.h"
#include "shim_reg.h"

namespace
{

using symh_test::InitSuite;
using symh_test::me;
using symh_test::npes;

const size_t page = (size_t)sysconf(_SC_PAGESIZE);

using symh_test::log_lines;

// Log lines of all PEs together (collective).
long total_lines(const std::string &log)
{
    long mine = (long)log_lines(log), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

// Lines of /proc/self/maps: all of them, or those of symheap's memory objects (memfd "symheap":
// the heap, VMM objects, aliases and the views of peers' objects).
size_t count_maps(bool symheap_only)
{
    std::ifstream maps("/proc/self/maps");
    std::string line;
    size_t n = 0;
    while (std::getline(maps, line))
        n += !symheap_only || line.find("/memfd:symheap") != std::string::npos;
    return n;
}

size_t count_fds()
{
    size_t n = 0;
    DIR *dir = opendir("/proc/self/fd");
    if (dir == nullptr)
        return 0;
    while (readdir(dir) != nullptr)
        ++n;
    closedir(dir);
    return n;
}

// Whether the configuration gives PE `pe` a route from this one (pretend nodes with
// SYMH_TRANSPORT=ipc split the PEs: an off-node PE has none; with a NIC transport it has one),
// from expected_route, not from the library, which must agree.
bool reachable(int pe)
{
    bool expected = symh_test::expected_reachable(pe);
    EXPECT_EQ(expected ? 1 : 0, symh_pe_accessible(pe))
        << "PE " << pe << " is routed " << symh_test::expected_route(pe) << " by the configuration";
    return expected;
}

bool next_pe_reachable()
{
    return reachable((me() + 1) % npes());
}

class SymmBeforeInit : public SymhTest
{
};

TEST_F(SymmBeforeInit, CallsFailCleanly)
{
    char buf[64];
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(nullptr, symh_buffer_register_symmetric(buf, sizeof(buf)));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_buffer_unregister_symmetric(buf));
    });
    EXPECT_EQ(2u, log_lines(log)) << log;
}

// Each test owns a reservation of `resv_pages` pages and one physical object mapped over the
// first `obj_pages` of it, filled with a per-PE pattern.
class Symm : public InitSuite
{
  protected:
    void SetUp() override
    {
        SymhTest::SetUp();
        ASSERT_EQ(SYMH_OK, symh_vmm_reserve(resv_pages * page, nullptr, &resv));
        ASSERT_EQ(SYMH_OK, symh_physmem_create(0, obj_pages * page, &pm));
        void *mapped = nullptr;
        ASSERT_EQ(SYMH_OK,
                  symh_physmem_map(pm, resv, obj_pages * page, SYMH_ACCESS_READ_WRITE, 0, &mapped));
        buf = (char *)mapped;
        memset(buf, 0x40 + me(), obj_pages * page);
    }
    void TearDown() override
    {
        symh_barrier_all();
        EXPECT_EQ(SYMH_OK, symh_vmm_unmap(resv, obj_pages * page));
        EXPECT_EQ(SYMH_OK, symh_physmem_destroy(pm));
        EXPECT_EQ(SYMH_OK, symh_vmm_release(resv, resv_pages * page));
        SymhTest::TearDown();
    }
    // Registers and expects NULL with `status` on every PE and exactly one log line in the job.
    void expect_refused_everywhere(int status, void *addr, size_t length, const std::string &part)
    {
        void *alias = &alias; // not NULL
        std::string log =
            symh_captured_log([&] { alias = symh_buffer_register_symmetric(addr, length); });
        EXPECT_EQ(nullptr, alias);
        EXPECT_EQ(status, symh_last_error());
        EXPECT_EQ(1, total_lines(log)) << log;
        if (!log.empty()) {
            EXPECT_NE(std::string::npos, log.find(part)) << log;
        }
    }
    static constexpr size_t resv_pages = 80, obj_pages = 16;
    void *resv = nullptr;
    symh_physmem_t *pm = nullptr;
    char *buf = nullptr;
};

TEST_F(Symm, LocalMisuseIsRefusedEverywhere)
{
    expect_refused_everywhere(SYMH_ERR_INVALID_ARG, nullptr, page, "addr is NULL");
    expect_refused_everywhere(SYMH_ERR_INVALID_ARG, buf, 0, "length is 0");
    expect_refused_everywhere(SYMH_ERR_INVALID_ARG, buf, SIZE_MAX - page + 1, "overflows");
    expect_refused_everywhere(SYMH_ERR_INVALID_ARG, buf + 8, page, "granularity");
    expect_refused_everywhere(SYMH_ERR_INVALID_ARG, buf, page + 8, "granularity");
    // Past the end of the mapping: the rest is reserved, not mapped.
    expect_refused_everywhere(SYMH_ERR_UNSUPPORTED, buf, (obj_pages + 1) * page, "VMM API");
}

TEST_F(Symm, MemoryNotFromTheVmmApiIsUnsupported)
{
    const size_t granule = symh_vmm_granularity(0, SYMH_GRANULARITY_RECOMMENDED);
    void *aligned = nullptr;
    ASSERT_EQ(0, posix_memalign(&aligned, granule, granule));
    expect_refused_everywhere(SYMH_ERR_UNSUPPORTED, aligned, granule, "posix_memalign");
    free(aligned);

    std::vector<char> plain(4 * page);
    char *inside = (char *)(((uintptr_t)plain.data() + page - 1) & ~(uintptr_t)(page - 1));
    expect_refused_everywhere(SYMH_ERR_UNSUPPORTED, inside, page, "VMM API");

    void *heap = symh_malloc(granule);
    ASSERT_NE(nullptr, heap);
    expect_refused_everywhere(SYMH_ERR_UNSUPPORTED, heap, page, "VMM API");
    symh_free(heap);
}

TEST_F(Symm, PatternPutThroughTheAliasArrivesInTheOriginalBuffer)
{
    const size_t length = obj_pages * page;
    char *alias = (char *)symh_buffer_register_symmetric(buf, length);
    ASSERT_NE(nullptr, alias) << symh_status_string(symh_last_error());
    EXPECT_NE(buf, alias);
    EXPECT_EQ(0u, (uintptr_t)alias % symh_vmm_granularity(0, SYMH_GRANULARITY_RECOMMENDED));
    // Symmetric: the same distance from a heap block on every PE (windows may sit at different
    // addresses).
    char *block = (char *)symh_malloc(64);
    ASSERT_NE(nullptr, block);
    EXPECT_TRUE(symh_test::same_everywhere((uint64_t)(alias - block)));
    symh_free(block);
    // The alias is this PE's own buffer: same memory, new address.
    EXPECT_EQ(0x40 + me(), alias[0]);
    buf[1] = 0x11;
    EXPECT_EQ(0x11, alias[1]);
    symh_barrier_all();

    const int next = (me() + 1) % npes(), prev = (me() + npes() - 1) % npes();
    const bool reaches_next = next_pe_reachable(); // through IPC or a NIC
    symh_test::reg_vector<char> pattern(length);
    for (size_t i = 0; i < length; ++i)
        pattern[i] = (char)(me() * 31 + i * 7);
    if (reaches_next) {
        symh_putmem(alias, pattern.data(), length, next);
        EXPECT_EQ(SYMH_OK, symh_last_error());
        EXPECT_EQ(symh_test::expected_mapped(next), symh_ptr(alias, next) != nullptr);
        EXPECT_TRUE(symh_addr_accessible(alias + length - 1, next));
    } else {
        std::string log =
            symh_captured_log([&] { symh_putmem(alias, pattern.data(), length, next); });
        EXPECT_EQ(SYMH_ERR_UNSUPPORTED, symh_last_error()) << log;
        EXPECT_EQ(nullptr, symh_ptr(alias, next));
    }
    symh_barrier_all();
    if (reachable(prev)) {
        for (size_t i = 0; i < length; ++i)
            ASSERT_EQ((char)(prev * 31 + i * 7), buf[i]) << "byte " << i << " from PE " << prev;
    }
    // Get and atomics through the alias too.
    if (reaches_next) {
        symh_test::reg_vector<char> back(page);
        symh_getmem(back.data(), alias + page, page, next);
        EXPECT_EQ(0, memcmp(back.data(), pattern.data() + page, page));
    }
    symh_barrier_all();
    long *counter = (long *)(alias + 2 * page);
    *counter = 0;
    symh_barrier_all();
    // Every PE adds 1 on each PE it reaches; PE pe reaches me when I reach it (pretend nodes
    // are symmetric).
    int reach_me = 0;
    for (int pe = 0; pe < npes(); ++pe) {
        if (!reachable(pe))
            continue;
        symh_long_atomic_add(counter, 1, pe);
        EXPECT_EQ(SYMH_OK, symh_last_error());
        ++reach_me;
    }
    symh_barrier_all();
    EXPECT_EQ(reach_me, *(long *)(buf + 2 * page));
    // Past the end of the region: refused, nothing written.
    std::string log =
        symh_captured_log([&] { symh_putmem(alias + length - 4, "abcdefgh", 8, me()); });
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    EXPECT_NE(std::string::npos, log.find("past the end of its symmetric region")) << log;
    symh_barrier_all();

    // Unregister: the user's buffer and its data stay; the alias is no RMA target any more.
    std::vector<char> before(buf, buf + length);
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(alias));
    EXPECT_EQ(0, memcmp(before.data(), buf, length));
    buf[0] = 0x5a;
    EXPECT_EQ(0x5a, buf[0]);
    log = symh_captured_log([&] { symh_putmem(alias, "x", 1, me()); });
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    EXPECT_EQ(1u, log_lines(log)) << log;
    EXPECT_EQ(0, symh_addr_accessible(alias, me()));
}

TEST_F(Symm, RegionMayCrossAdjacentMappingsAndNeedNotFillItsGranule)
{
    // A second object mapped right after the first: one region over 3 pages of each.
    symh_physmem_t *second = nullptr;
    void *mapped = nullptr;
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, 4 * page, &second));
    ASSERT_EQ(SYMH_OK, symh_physmem_map(second, buf + obj_pages * page, 4 * page,
                                        SYMH_ACCESS_READ_WRITE, 0, &mapped));
    char *start = buf + (obj_pages - 3) * page;
    char *alias = (char *)symh_buffer_register_symmetric(start, 6 * page);
    ASSERT_NE(nullptr, alias);
    symh_barrier_all();
    const int next = (me() + 1) % npes();
    if (next_pe_reachable()) {
        symh_test::reg_vector<char> pattern(6 * page);
        memset(pattern.data(), 0x20 + me(), pattern.size());
        symh_putmem(alias, pattern.data(), pattern.size(), next);
        EXPECT_EQ(SYMH_OK, symh_last_error());
    }
    symh_barrier_all();
    const int prev = (me() + npes() - 1) % npes();
    if (reachable(prev)) {
        EXPECT_EQ((char)(0x20 + prev), start[0]);
        EXPECT_EQ((char)(0x20 + prev), ((char *)mapped)[3 * page - 1]);
        EXPECT_EQ(0, ((char *)mapped)[3 * page]) << "past the region (a fresh object is zero)";
    }
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(alias));
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(mapped, 4 * page));
    EXPECT_EQ(SYMH_OK, symh_physmem_destroy(second));
}

TEST_F(Symm, OnePeWithABadBufferMakesEveryPeGetNull)
{
    const int bad = npes() - 1;
    std::vector<char> plain(4 * page);
    char *foreign = (char *)(((uintptr_t)plain.data() + page - 1) & ~(uintptr_t)(page - 1));
    void *alias = &alias;
    std::string log = symh_captured_log(
        [&] { alias = symh_buffer_register_symmetric(me() == bad ? foreign : buf, page); });
    EXPECT_EQ(nullptr, alias);
    EXPECT_EQ(SYMH_ERR_UNSUPPORTED, symh_last_error());
    EXPECT_EQ(1, total_lines(log));
    EXPECT_EQ(me() == bad ? 1u : 0u, log_lines(log)) << log;
    // Nothing stayed mapped: the next registration gets the first slot again, on every PE.
    char *first = (char *)symh_buffer_register_symmetric(buf, page);
    ASSERT_NE(nullptr, first);
    char *second = (char *)symh_buffer_register_symmetric(buf + page, page);
    ASSERT_NE(nullptr, second);
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(first));
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(second));
    alias = symh_buffer_register_symmetric(buf, page);
    EXPECT_EQ(first, alias) << "the freed slot is reused";
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(alias));
}

TEST_F(Symm, DifferentLengthsAreNullEverywhere)
{
    ASSERT_GE(npes(), 2) << "needs two PEs (MULTI_PE_ONLY in CMake)";
    void *alias = &alias;
    std::string log = symh_captured_log(
        [&] { alias = symh_buffer_register_symmetric(buf, (me() == 1 ? 2 : 1) * page); });
    EXPECT_EQ(nullptr, alias);
    EXPECT_EQ(SYMH_ERR_MISMATCH, symh_last_error());
    EXPECT_EQ(1, total_lines(log));
    if (me() == 0) {
        // The line of the collectives' verdict report (symh_coll_agree_report), word for word.
        EXPECT_NE(std::string::npos,
                  log.find("symh_buffer_register_symmetric: length " + std::to_string(page) +
                           " on PE 0 but " + std::to_string(2 * page) +
                           " on PE 1: the length must be equal on every PE"))
            << log;
    }
}

TEST_F(Symm, OverlapWithALiveRegionIsRefused)
{
    char *alias = (char *)symh_buffer_register_symmetric(buf, 4 * page);
    ASSERT_NE(nullptr, alias);
    expect_refused_everywhere(SYMH_ERR_OVERLAP, buf, 4 * page, "overlaps");
    expect_refused_everywhere(SYMH_ERR_OVERLAP, buf + 3 * page, 2 * page, "overlaps");
    // The alias itself is no VMM mapping.
    expect_refused_everywhere(SYMH_ERR_UNSUPPORTED, alias, page, "VMM API");
    char *adjacent = (char *)symh_buffer_register_symmetric(buf + 4 * page, page);
    EXPECT_NE(nullptr, adjacent);
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(adjacent));
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(alias));
}

TEST_F(Symm, WrongAddressesAreNotRegisteredEverywhere)
{
    char *alias = (char *)symh_buffer_register_symmetric(buf, 2 * page);
    ASSERT_NE(nullptr, alias);
    for (void *wrong : { (void *)(alias + page), (void *)buf, (void *)&alias }) {
        std::string log = symh_captured_log(
            [&] { EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_buffer_unregister_symmetric(wrong)); });
        EXPECT_EQ(1, total_lines(log)) << log;
    }
    // Only one PE wrong: every PE gets the code, nothing is unregistered.
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED,
                  symh_buffer_unregister_symmetric(me() == 0 ? (void *)buf : (void *)alias));
    });
    EXPECT_EQ(1, total_lines(log)) << log;
    EXPECT_TRUE(symh_addr_accessible(alias, me()));
    log = symh_captured_log(
        [&] { EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_buffer_unregister_symmetric(nullptr)); });
    EXPECT_EQ(1, total_lines(log)) << log;
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(alias));
    log = symh_captured_log(
        [&] { EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_buffer_unregister_symmetric(alias)); });
    EXPECT_EQ(1, total_lines(log)) << log;
}

// Unregister is collective over one alias: PE 0 passing another live alias than the others is
// SYMH_ERR_MISMATCH on every PE, one line (PE 0's, naming both slots), and nothing unmapped.
TEST_F(Symm, DifferentLiveAliasesAreAMismatch)
{
    ASSERT_GE(npes(), 2) << "needs two PEs (MULTI_PE_ONLY in CMake)";
    char *first = (char *)symh_buffer_register_symmetric(buf, page);
    char *second = (char *)symh_buffer_register_symmetric(buf + page, page);
    ASSERT_NE(nullptr, first);
    ASSERT_NE(nullptr, second);
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(SYMH_ERR_MISMATCH, symh_buffer_unregister_symmetric(me() == 0 ? first : second));
        EXPECT_EQ(SYMH_ERR_MISMATCH, symh_last_error());
    });
    EXPECT_EQ(1, total_lines(log)) << log;
    if (me() == 0) {
        EXPECT_NE(std::string::npos,
                  log.find("symh_buffer_unregister_symmetric: the PEs disagree on the symmetric "
                           "slot"))
            << log;
    }
    EXPECT_EQ(2, symh_shim_symm_count());
    // Both are still RMA targets and still this PE's buffer.
    symh_barrier_all();
    first[0] = 0x61;
    second[0] = 0x62;
    EXPECT_EQ(0x61, buf[0]);
    EXPECT_EQ(0x62, buf[page]);
    EXPECT_TRUE(symh_addr_accessible(first, me()));
    EXPECT_TRUE(symh_addr_accessible(second, me()));
    EXPECT_EQ(0x61, symh_char_g(first, me()));
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(first));
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(second));
    EXPECT_EQ(0, symh_shim_symm_count());
}

TEST_F(Symm, TheRegionLimitIsSymhMaxSymmRegions)
{
    const char *env = getenv("SYMH_MAX_SYMM_REGIONS");
    const int limit = env != nullptr ? atoi(env) : 64;
    ASSERT_LT((size_t)limit, resv_pages) << "the test maps one page per region, and one more";
    // More pages: map the rest of the reservation too.
    symh_physmem_t *more = nullptr;
    void *mapped = nullptr;
    const size_t extra = resv_pages - obj_pages;
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, extra * page, &more));
    ASSERT_EQ(SYMH_OK, symh_physmem_map(more, buf + obj_pages * page, extra * page,
                                        SYMH_ACCESS_READ_WRITE, 0, &mapped));
    std::vector<void *> aliases;
    for (int i = 0; i < limit; ++i) {
        void *alias = symh_buffer_register_symmetric(buf + (size_t)i * page, page);
        ASSERT_NE(nullptr, alias) << "region " << i;
        aliases.push_back(alias);
    }
    expect_refused_everywhere(SYMH_ERR_LIMIT, buf + (size_t)limit * page, page,
                              "SYMH_MAX_SYMM_REGIONS");
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(aliases.back()));
    aliases.pop_back();
    void *again = symh_buffer_register_symmetric(buf + (size_t)limit * page, page);
    EXPECT_NE(nullptr, again);
    aliases.push_back(again);
    for (void *alias : aliases)
        EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(alias));
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(mapped, extra * page));
    EXPECT_EQ(SYMH_OK, symh_physmem_destroy(more));
}

TEST_F(Symm, AThousandCyclesLeakNoMappingAndNoDescriptor)
{
    // Warm-up cycles: first use may create lasting state (the registry's table, a cached thread
    // stack).
    for (int i = 0; i < 10; ++i) {
        void *alias = symh_buffer_register_symmetric(buf, 4 * page);
        ASSERT_NE(nullptr, alias);
        ASSERT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(alias));
    }
    const size_t maps = count_maps(false), ours = count_maps(true), fds = count_fds();
    EXPECT_GT(ours, 0u) << "no symheap memory object found in /proc/self/maps";
    for (int i = 0; i < 1000; ++i) {
        void *alias = symh_buffer_register_symmetric(buf, 4 * page);
        ASSERT_NE(nullptr, alias) << "cycle " << i;
        ((char *)alias)[i % (4 * page)] = (char)i;
        ASSERT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(alias)) << "cycle " << i;
    }
    // Exactly as many mappings of symheap objects and descriptors as before. The total may grow
    // a little under the sanitizers (their allocators map memory as they go) but a leak of one
    // mapping per cycle would add a thousand lines.
    EXPECT_EQ(ours, count_maps(true));
    EXPECT_EQ(fds, count_fds());
    EXPECT_LT(count_maps(false), maps + 100);
}

class SymmAfterFinalize : public SymhTest
{
};

// Ends the Symm suite's init: a region left live at finalize is released with the window,
// quietly (docs/registration.md "Rules"); a new init starts with none, so its first region
// takes the first slot again.
TEST_F(SymmAfterFinalize, LiveRegionsGoAtFinalizeAndCallsFailAfterIt)
{
    void *va = nullptr, *mapped = nullptr;
    symh_physmem_t *pm = nullptr;
    ASSERT_EQ(SYMH_OK, symh_vmm_reserve(4 * page, nullptr, &va));
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, 4 * page, &pm));
    ASSERT_EQ(SYMH_OK, symh_physmem_map(pm, va, 4 * page, SYMH_ACCESS_READ_WRITE, 0, &mapped));
    ASSERT_EQ(0, symh_shim_symm_count()) << "the Symm tests left a region live";
    void *alias = symh_buffer_register_symmetric(mapped, 4 * page);
    ASSERT_NE(nullptr, alias);
    ASSERT_EQ(1, symh_shim_symm_count());
    const uintptr_t slot = (uintptr_t)alias - (uintptr_t)symh_shim_heap_base();
    std::string log = symh_captured_log([] { symh_finalize(); });
    EXPECT_EQ("", log) << "releasing a live region at finalize is no misuse";
    EXPECT_EQ(0, symh_shim_symm_count());
    EXPECT_EQ(0u, count_maps(true)) << "a symheap memory object stayed mapped after finalize";
    log = symh_captured_log([&] {
        EXPECT_EQ(nullptr, symh_buffer_register_symmetric(mapped, page));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_buffer_unregister_symmetric(alias));
    });
    EXPECT_EQ(2u, log_lines(log)) << log;

    ASSERT_EQ(SYMH_OK, symh_init());
    EXPECT_EQ(0, symh_shim_symm_count()) << "a region outlived finalize";
    ASSERT_EQ(SYMH_OK, symh_vmm_reserve(4 * page, nullptr, &va));
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, 4 * page, &pm));
    ASSERT_EQ(SYMH_OK, symh_physmem_map(pm, va, 4 * page, SYMH_ACCESS_READ_WRITE, 0, &mapped));
    void *again = symh_buffer_register_symmetric(mapped, 4 * page);
    ASSERT_NE(nullptr, again);
    EXPECT_EQ(slot, (uintptr_t)again - (uintptr_t)symh_shim_heap_base())
        << "the first slot is free again";
    log = symh_captured_log([&] {
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_buffer_unregister_symmetric((char *)again + page));
    });
    EXPECT_EQ(1, total_lines(log));
    symh_finalize();
}

// SYMH_SYMM_AREA_SIZE=6m: three slots of the 2 MiB granule. Three one-page regions take them
// all; a fourth is NULL with SYMH_ERR_NO_MEMORY on every PE and one line (PE 0's: every PE
// fails, the lowest speaks), nothing mapped; unregistering one makes room for it.
class SymmArea : public SymhTest
{
};

TEST_F(SymmArea, ExhaustionIsNoMemoryEverywhere)
{
    setenv("SYMH_SYMM_AREA_SIZE", "6m", 1);
    int status = symh_init();
    unsetenv("SYMH_SYMM_AREA_SIZE");
    ASSERT_EQ(SYMH_OK, status);
    const size_t granule = symh_vmm_granularity(0, SYMH_GRANULARITY_RECOMMENDED);
    ASSERT_EQ((size_t)2 << 20, granule) << "the arithmetic below assumes 2 MiB slots";
    void *va = nullptr, *mapped = nullptr;
    symh_physmem_t *pm = nullptr;
    ASSERT_EQ(SYMH_OK, symh_vmm_reserve(4 * page, nullptr, &va));
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, 4 * page, &pm));
    ASSERT_EQ(SYMH_OK, symh_physmem_map(pm, va, 4 * page, SYMH_ACCESS_READ_WRITE, 0, &mapped));
    char *buf = (char *)mapped;
    std::vector<void *> aliases;
    for (int i = 0; i < 3; ++i) {
        aliases.push_back(symh_buffer_register_symmetric(buf + (size_t)i * page, page));
        ASSERT_NE(nullptr, aliases.back()) << "region " << i << " of 3";
    }
    void *alias = &alias;
    std::string log =
        symh_captured_log([&] { alias = symh_buffer_register_symmetric(buf + 3 * page, page); });
    EXPECT_EQ(nullptr, alias);
    EXPECT_EQ(SYMH_ERR_NO_MEMORY, symh_last_error());
    EXPECT_EQ(1, total_lines(log)) << log;
    if (me() == 0) {
        EXPECT_NE(std::string::npos,
                  log.find("symh_buffer_register_symmetric: no 2097152-byte slot left in the "
                           "6291456-byte symmetric area (see SYMH_SYMM_AREA_SIZE)"))
            << log;
    }
    EXPECT_EQ(3, symh_shim_symm_count()) << "the refused region was not kept";
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(aliases[1]));
    aliases[1] = symh_buffer_register_symmetric(buf + 3 * page, page);
    EXPECT_NE(nullptr, aliases[1]) << "the freed slot takes it";
    for (void *a : aliases)
        EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(a));
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(mapped, 4 * page));
    EXPECT_EQ(SYMH_OK, symh_physmem_destroy(pm));
    EXPECT_EQ(SYMH_OK, symh_vmm_release(va, 4 * page));
    symh_finalize();
}

} // namespace
