// Tests of the public VMM API (symh_vmm_*, symh_physmem_*): every call, every misuse refused with
// SYMH_ERR_INVALID_ARG, nothing changed and one log line, several mappings of one object, access
// modes, destroy while mapped, and calls before init and after finalize.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <csignal>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>
#include <vector>

#include <symheap.h>
#include <symheap/vmm.h>

#include "mpi_test_util.hpp"

namespace
{

using symh_test::InitSuite;
using symh_test::log_lines;

const size_t page = (size_t)sysconf(_SC_PAGESIZE);

class VmmBeforeInit : public SymhTest
{
};

TEST_F(VmmBeforeInit, EveryCallFailsCleanly)
{
    void *va = nullptr, *mapped = nullptr;
    symh_physmem_t *pm = nullptr;
    symh_access_mode_t mode = SYMH_ACCESS_NONE;
    char buf[64];
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(0u, symh_vmm_granularity(0, SYMH_GRANULARITY_MINIMUM));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_vmm_reserve(page, nullptr, &va));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_vmm_release(buf, page));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_physmem_create(0, page, &pm));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_physmem_destroy(pm));
        EXPECT_EQ(0u, symh_physmem_size(pm));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        EXPECT_EQ(-1, symh_physmem_device(pm));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_last_error());
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED,
                  symh_physmem_map(pm, buf, page, SYMH_ACCESS_READ_WRITE, 0, &mapped));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_vmm_set_access(buf, page, SYMH_ACCESS_READ));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_vmm_get_access(buf, page, &mode));
        EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_vmm_unmap(buf, page));
    });
    EXPECT_EQ(11u, log_lines(log)) << log;
    EXPECT_EQ(nullptr, va);
    EXPECT_EQ(nullptr, pm);
    EXPECT_EQ(nullptr, mapped);
    EXPECT_EQ(SYMH_ACCESS_NONE, mode);
}

class Vmm : public InitSuite
{
  protected:
    void SetUp() override
    {
        SymhTest::SetUp();
        ASSERT_EQ(SYMH_OK, symh_vmm_reserve(resv_size, nullptr, &resv));
        ASSERT_EQ(SYMH_OK, symh_physmem_create(0, obj_size, &pm));
    }
    void TearDown() override
    {
        // What the test did not unmap itself (the others are refused, quietly).
        for (auto &m : mappings)
            symh_captured_log([&] { symh_vmm_unmap(at(m.first * page), m.second * page); });
        if (pm != nullptr) {
            EXPECT_EQ(SYMH_OK, symh_physmem_destroy(pm));
        }
        EXPECT_EQ(SYMH_OK, symh_vmm_release(resv, resv_size));
        SymhTest::TearDown();
    }
    char *at(size_t offset) const
    {
        return (char *)resv + offset;
    }
    // Maps `pages` pages of pm at page `first` of the reservation, from page `obj_first` of pm.
    void map(size_t first, size_t pages, size_t obj_first = 0,
             symh_access_mode_t mode = SYMH_ACCESS_READ_WRITE)
    {
        void *mapped = nullptr;
        ASSERT_EQ(SYMH_OK, symh_physmem_map(pm, at(first * page), pages * page, mode,
                                            obj_first * page, &mapped));
        EXPECT_EQ(at(first * page), mapped);
        mappings.emplace_back(first, pages);
    }
    // Runs `call`, expects `status` and exactly one log line containing `part`.
    template <typename F> void expect_refused(int status, const std::string &part, F call)
    {
        std::string log = symh_captured_log([&] { EXPECT_EQ(status, call()); });
        EXPECT_EQ(status, symh_last_error());
        EXPECT_EQ(1u, log_lines(log)) << log;
        EXPECT_NE(std::string::npos, log.find(part)) << log;
    }
    template <typename F> void expect_invalid(const std::string &part, F call)
    {
        expect_refused(SYMH_ERR_INVALID_ARG, part, call);
    }
    const size_t resv_size = 16 * page, obj_size = 8 * page;
    void *resv = nullptr;
    symh_physmem_t *pm = nullptr;
    std::vector<std::pair<size_t, size_t>> mappings; // (first page, pages) made by map()
};

TEST_F(Vmm, Granularity)
{
    EXPECT_EQ(page, symh_vmm_granularity(0, SYMH_GRANULARITY_MINIMUM));
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_EQ((size_t)2 << 20, symh_vmm_granularity(0, SYMH_GRANULARITY_RECOMMENDED));
    EXPECT_EQ(SYMH_OK, symh_last_error());
    for (int device : { symh_device_count(), -1, 1025 }) {
        std::string log = symh_captured_log(
            [&] { EXPECT_EQ(0u, symh_vmm_granularity(device, SYMH_GRANULARITY_MINIMUM)); });
        EXPECT_EQ(SYMH_ERR_NO_DEVICE, symh_last_error());
        EXPECT_EQ(1u, log_lines(log)) << log;
        EXPECT_NE(std::string::npos, log.find("no device " + std::to_string(device))) << log;
    }
    std::string log = symh_captured_log(
        [&] { EXPECT_EQ(0u, symh_vmm_granularity(0, (symh_granularity_mode_t)7)); });
    EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    EXPECT_EQ(1u, log_lines(log)) << log;
}

TEST_F(Vmm, ReservationsAreAlignedAndInaccessible)
{
    EXPECT_EQ(0u, (uintptr_t)resv % page);
    EXPECT_SEGV(*(volatile char *)resv = 1) << "inaccessible until mapped";
    void *big = nullptr;
    ASSERT_EQ(SYMH_OK, symh_vmm_reserve(4u << 20, nullptr, &big));
    EXPECT_EQ(0u, (uintptr_t)big % (2u << 20)) << "multiples of 2 MiB get 2 MiB alignment";
    EXPECT_EQ(SYMH_OK, symh_vmm_release(big, 4u << 20));
}

TEST_F(Vmm, ReserveWithAHint)
{
    void *first = nullptr, *again = nullptr;
    ASSERT_EQ(SYMH_OK, symh_vmm_reserve(4 * page, nullptr, &first));
    ASSERT_EQ(SYMH_OK, symh_vmm_release(first, 4 * page));
    ASSERT_EQ(SYMH_OK, symh_vmm_reserve(4 * page, first, &again));
    EXPECT_EQ(0u, (uintptr_t)again % page);
    // Advisory: wherever it landed, it is a usable reservation.
    void *mapped = nullptr;
    ASSERT_EQ(SYMH_OK, symh_physmem_map(pm, again, 4 * page, SYMH_ACCESS_READ_WRITE, 0, &mapped));
    EXPECT_EQ(again, mapped);
    ((char *)again)[0] = 42;
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(again, 4 * page));
    EXPECT_EQ(SYMH_OK, symh_vmm_release(again, 4 * page));
}

TEST_F(Vmm, ReserveMisuse)
{
    void *va = nullptr;
    expect_invalid("va is NULL", [] { return symh_vmm_reserve(page, nullptr, nullptr); });
    expect_invalid("size is 0", [&] { return symh_vmm_reserve(0, nullptr, &va); });
    expect_invalid("size is not a multiple",
                   [&] { return symh_vmm_reserve(page + 1, nullptr, &va); });
    expect_invalid("hint is not a multiple", [&] { return symh_vmm_reserve(page, at(1), &va); });
    expect_invalid("overflows",
                   [&] { return symh_vmm_reserve(2 * page, (void *)(0 - page), &va); });
    EXPECT_EQ(nullptr, va);
}

TEST_F(Vmm, ReleaseMustBeExactlyAnUnmappedReservation)
{
    expect_invalid("is not exactly a reservation",
                   [&] { return symh_vmm_release(at(page), resv_size - page); });
    expect_invalid("is not exactly a reservation",
                   [&] { return symh_vmm_release(resv, resv_size - page); });
    expect_invalid("is not exactly a reservation",
                   [&] { return symh_vmm_release(resv, resv_size + page); });
    expect_invalid("is not exactly a reservation", [&] { return symh_vmm_release(nullptr, page); });
    void *other = mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(MAP_FAILED, other);
    expect_invalid("is not exactly a reservation", [&] { return symh_vmm_release(other, page); });
    munmap(other, page);
    map(3, 2);
    expect_invalid("still has 1 mapping", [&] { return symh_vmm_release(resv, resv_size); });
    at(3 * page)[0] = 7; // nothing changed: still mapped and writable
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(at(3 * page), 2 * page));
    // TearDown releases it: the failed calls left it in place.
}

TEST_F(Vmm, PhysmemCreateSizeDevice)
{
    EXPECT_EQ(obj_size, symh_physmem_size(pm));
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_EQ(0, symh_physmem_device(pm));
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_physmem_t *other = nullptr;
    const int n = symh_device_count();
    expect_refused(SYMH_ERR_NO_DEVICE, "no device " + std::to_string(n),
                   [&] { return symh_physmem_create(n, page, &other); });
    // Every device of SYMH_HOST_DEVICES has objects of its own, mappable like device 0's.
    for (int device = 1; device < n; ++device) {
        void *mapped = nullptr;
        ASSERT_EQ(SYMH_OK, symh_physmem_create(device, page, &other));
        EXPECT_EQ(device, symh_physmem_device(other));
        EXPECT_EQ(page, symh_vmm_granularity(device, SYMH_GRANULARITY_MINIMUM));
        ASSERT_EQ(SYMH_OK,
                  symh_physmem_map(other, at(15 * page), page, SYMH_ACCESS_READ_WRITE, 0, &mapped));
        void *again = nullptr;
        ASSERT_EQ(SYMH_OK,
                  symh_physmem_map(other, at(14 * page), page, SYMH_ACCESS_READ_WRITE, 0, &again));
        *(volatile char *)mapped = (char)(10 + device);
        EXPECT_EQ((char)(10 + device), *(volatile char *)again) << "device " << device;
        EXPECT_EQ(SYMH_OK, symh_vmm_unmap(again, page));
        EXPECT_EQ(SYMH_OK, symh_vmm_unmap(mapped, page));
        EXPECT_EQ(SYMH_OK, symh_physmem_destroy(other));
        other = nullptr;
    }
    expect_invalid("pm is NULL", [] { return symh_physmem_create(0, page, nullptr); });
    expect_invalid("size is 0", [&] { return symh_physmem_create(0, 0, &other); });
    expect_invalid("not a multiple", [&] { return symh_physmem_create(0, page / 2, &other); });
    EXPECT_EQ(nullptr, other);
    expect_invalid("pm is NULL", [] { return symh_physmem_destroy(nullptr); });
    std::string log = symh_captured_log([] {
        EXPECT_EQ(0u, symh_physmem_size(nullptr));
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
        EXPECT_EQ(-1, symh_physmem_device(nullptr));
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
    });
    EXPECT_EQ(2u, log_lines(log)) << log;
}

// What is written through a mapping lands in the physical object: a second mapping of the
// object at other addresses reads it back (the same addresses would read a private copy too),
// and it stays there once the first mapping is gone.
TEST_F(Vmm, MapWriteReadUnmap)
{
    map(0, 8);
    for (size_t i = 0; i < 8 * page; ++i)
        at(0)[i] = (char)(i * 7 + 1);
    symh_access_mode_t mode = SYMH_ACCESS_NONE;
    EXPECT_EQ(SYMH_OK, symh_vmm_get_access(at(0), 8 * page, &mode));
    EXPECT_EQ(SYMH_ACCESS_READ_WRITE, mode);
    map(8, 8); // the same object again
    for (size_t i = 0; i < 8 * page; ++i)
        ASSERT_EQ((char)(i * 7 + 1), at(8 * page)[i]) << "byte " << i << " of the second mapping";
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(at(0), 8 * page));
    mappings.erase(mappings.begin());
    EXPECT_EQ((char)((8 * page - 1) * 7 + 1), at(16 * page - 1)[0])
        << "the data outlives the mapping";
    EXPECT_SEGV((void)*(volatile char *)at(0)) << "unmapped";
}

TEST_F(Vmm, MappingsAreInTheRegistry)
{
    map(2, 4);
    expect_refused(SYMH_ERR_OVERLAP, "overlaps a VMM mapping",
                   [&] { return symh_buffer_register(at(3 * page), 64); });
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(at(2 * page), 4 * page));
    EXPECT_EQ(SYMH_OK, symh_buffer_register(at(3 * page), 64)) << "unmap removed the record";
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister(at(3 * page)));
}

TEST_F(Vmm, UnmapKeepsTheReservation)
{
    map(0, 4);
    at(0)[0] = 1;
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(at(0), 4 * page));
    map(0, 4, 4); // the same addresses, another part of the object
    EXPECT_EQ(0, at(0)[0]);
    map(4, 4, 0);
    EXPECT_EQ(1, at(4 * page)[0]) << "the data stayed in the object";
}

TEST_F(Vmm, TwoMappingsOfOneObjectSeeEachOthersWrites)
{
    map(0, 8);
    map(8, 4, 2); // pages 2..5 of the object again
    strcpy(at(2 * page), "from the first");
    EXPECT_STREQ("from the first", at(8 * page));
    strcpy(at(11 * page), "from the second");
    EXPECT_STREQ("from the second", at(5 * page));
}

TEST_F(Vmm, MapMisuse)
{
    void *mapped = nullptr;
    auto rw = SYMH_ACCESS_READ_WRITE;
    expect_invalid("pm is NULL",
                   [&] { return symh_physmem_map(nullptr, at(0), page, rw, 0, &mapped); });
    expect_invalid("mapped is NULL",
                   [&] { return symh_physmem_map(pm, at(0), page, rw, 0, nullptr); });
    expect_invalid("va is NULL",
                   [&] { return symh_physmem_map(pm, nullptr, page, rw, 0, &mapped); });
    expect_invalid("size is 0", [&] { return symh_physmem_map(pm, at(0), 0, rw, 0, &mapped); });
    expect_invalid("not a multiple",
                   [&] { return symh_physmem_map(pm, at(1), page, rw, 0, &mapped); });
    expect_invalid("not a multiple",
                   [&] { return symh_physmem_map(pm, at(0), page + 8, rw, 0, &mapped); });
    expect_invalid("not a multiple",
                   [&] { return symh_physmem_map(pm, at(0), page, rw, 64, &mapped); });
    expect_invalid("unknown access mode", [&] {
        return symh_physmem_map(pm, at(0), page, (symh_access_mode_t)9, 0, &mapped);
    });
    expect_invalid("past the end of the physical object",
                   [&] { return symh_physmem_map(pm, at(0), 2 * page, rw, 7 * page, &mapped); });
    expect_invalid("past the end of the physical object",
                   [&] { return symh_physmem_map(pm, at(0), 9 * page, rw, 0, &mapped); });
    expect_invalid("past the end of the physical object",
                   [&] { return symh_physmem_map(pm, at(0), page, rw, 8 * page, &mapped); });
    expect_invalid("not inside one reservation", [&] {
        return symh_physmem_map(pm, at(14 * page), 4 * page, rw, 0, &mapped);
    }); // crosses the reservation's end
    expect_invalid("not inside one reservation", [&] {
        return symh_physmem_map(pm, at(resv_size), page, rw, 0, &mapped);
    }); // just past it
    void *other = mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(MAP_FAILED, other);
    expect_invalid("not inside one reservation",
                   [&] { return symh_physmem_map(pm, other, page, rw, 0, &mapped); });
    munmap(other, page);
    EXPECT_EQ(nullptr, mapped);
    EXPECT_SEGV((void)*(volatile char *)at(0)) << "nothing was mapped";
}

TEST_F(Vmm, MapOverAMappedRangeIsRefused)
{
    map(4, 4);
    memset(at(4 * page), 3, 4 * page);
    void *mapped = nullptr;
    auto rw = SYMH_ACCESS_READ_WRITE;
    // Exact, over its start, over its end, inside, containing.
    const std::pair<size_t, size_t> ranges[] = { { 4, 4 }, { 3, 2 }, { 7, 2 }, { 5, 1 }, { 2, 8 } };
    for (auto r : ranges)
        expect_invalid("overlaps a VMM mapping", [&] {
            return symh_physmem_map(pm, at(r.first * page), r.second * page, rw, 0, &mapped);
        });
    EXPECT_EQ(nullptr, mapped);
    // Nothing changed: the first mapping still holds its data and its access.
    EXPECT_EQ(3, at(4 * page)[0]);
    EXPECT_EQ(3, at(8 * page - 1)[0]);
    symh_access_mode_t mode = SYMH_ACCESS_NONE;
    EXPECT_EQ(SYMH_OK, symh_vmm_get_access(at(4 * page), 4 * page, &mode));
    EXPECT_EQ(SYMH_ACCESS_READ_WRITE, mode);
    map(8, 2); // adjacent is fine
}

TEST_F(Vmm, UnmapMisuse)
{
    map(0, 2);
    map(2, 2, 2);
    expect_invalid("crosses the end of its mapping",
                   [&] { return symh_vmm_unmap(at(0), 4 * page); }); // across two mappings
    expect_invalid("crosses the end of its mapping",
                   [&] { return symh_vmm_unmap(at(page), 2 * page); });
    expect_invalid("is not mapped", [&] { return symh_vmm_unmap(at(4 * page), page); });
    expect_invalid("is not a whole mapping", [&] { return symh_vmm_unmap(at(0), page); });
    expect_invalid("is not a whole mapping", [&] { return symh_vmm_unmap(at(page), page); });
    expect_invalid("not a multiple", [&] { return symh_vmm_unmap(at(1), 2 * page); });
    expect_invalid("not a multiple", [&] { return symh_vmm_unmap(at(0), 2 * page - 1); });
    expect_invalid("size is 0", [&] { return symh_vmm_unmap(at(0), 0); });
    expect_invalid("ptr is NULL", [&] { return symh_vmm_unmap(nullptr, page); });
    // Nothing changed: both mappings still work.
    at(0)[0] = 1;
    at(4 * page - 1)[0] = 2;
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(at(0), 2 * page));
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(at(2 * page), 2 * page));
    expect_invalid("is not mapped", [&] { return symh_vmm_unmap(at(0), 2 * page); });
}

TEST_F(Vmm, AReadOnlyMappingFaultsOnWrite)
{
    map(0, 2, 0, SYMH_ACCESS_READ_WRITE);
    at(0)[0] = 9;
    map(2, 2, 0, SYMH_ACCESS_READ);
    EXPECT_EQ(9, at(2 * page)[0]);
    EXPECT_SEGV(at(2 * page)[0] = 1) << "read-only";
    map(4, 2, 0, SYMH_ACCESS_NONE);
    EXPECT_SEGV((void)*(volatile char *)at(4 * page)) << "no access";
    symh_access_mode_t mode = SYMH_ACCESS_READ_WRITE;
    EXPECT_EQ(SYMH_OK, symh_vmm_get_access(at(4 * page), 2 * page, &mode));
    EXPECT_EQ(SYMH_ACCESS_NONE, mode);
}

TEST_F(Vmm, SetAccessWholeMapping)
{
    map(0, 4);
    symh_access_mode_t mode = SYMH_ACCESS_NONE;
    for (auto m : { SYMH_ACCESS_READ, SYMH_ACCESS_NONE, SYMH_ACCESS_READ_WRITE }) {
        ASSERT_EQ(SYMH_OK, symh_vmm_set_access(at(0), 4 * page, m));
        EXPECT_EQ(SYMH_OK, symh_vmm_get_access(at(0), 4 * page, &mode));
        EXPECT_EQ(m, mode);
        if (m == SYMH_ACCESS_READ) {
            EXPECT_SEGV(at(page)[0] = 1);
        }
        if (m == SYMH_ACCESS_NONE) {
            EXPECT_SEGV((void)*(volatile char *)at(page));
        }
    }
    at(page)[0] = 1; // read-write again
    EXPECT_EQ(1, at(page)[0]);
}

TEST_F(Vmm, SetAccessOnASubRange)
{
    map(0, 4);
    ASSERT_EQ(SYMH_OK, symh_vmm_set_access(at(page), 2 * page, SYMH_ACCESS_READ));
    symh_access_mode_t mode = SYMH_ACCESS_NONE;
    EXPECT_EQ(SYMH_OK, symh_vmm_get_access(at(page), page, &mode));
    EXPECT_EQ(SYMH_ACCESS_READ, mode);
    EXPECT_EQ(SYMH_OK, symh_vmm_get_access(at(page), 2 * page, &mode));
    EXPECT_EQ(SYMH_ACCESS_READ, mode);
    EXPECT_EQ(SYMH_OK, symh_vmm_get_access(at(3 * page), page, &mode));
    EXPECT_EQ(SYMH_ACCESS_READ_WRITE, mode);
    expect_invalid("different access modes",
                   [&] { return symh_vmm_get_access(at(0), 4 * page, &mode); });
    at(0)[0] = 1;
    at(3 * page)[0] = 1;
    EXPECT_SEGV(at(2 * page)[0] = 1) << "the read-only middle";
}

TEST_F(Vmm, AccessMisuse)
{
    map(0, 2);
    map(2, 2, 2);
    symh_access_mode_t mode = SYMH_ACCESS_NONE;
    auto ro = SYMH_ACCESS_READ;
    expect_invalid("crosses the end of its mapping",
                   [&] { return symh_vmm_set_access(at(page), 2 * page, ro); });
    expect_invalid("crosses the end of its mapping",
                   [&] { return symh_vmm_get_access(at(0), 4 * page, &mode); });
    expect_invalid("is not mapped", [&] { return symh_vmm_set_access(at(4 * page), page, ro); });
    expect_invalid("is not mapped", [&] { return symh_vmm_get_access(at(8 * page), page, &mode); });
    expect_invalid("not a multiple", [&] { return symh_vmm_set_access(at(8), page, ro); });
    expect_invalid("size is 0", [&] { return symh_vmm_set_access(at(0), 0, ro); });
    expect_invalid("unknown access mode",
                   [&] { return symh_vmm_set_access(at(0), page, (symh_access_mode_t)5); });
    expect_invalid("mode is NULL", [&] { return symh_vmm_get_access(at(0), page, nullptr); });
    EXPECT_EQ(SYMH_ACCESS_NONE, mode);
    // Nothing changed: everything is still read-write.
    at(0)[0] = 1;
    at(3 * page)[0] = 1;
    EXPECT_EQ(SYMH_OK, symh_vmm_get_access(at(0), 2 * page, &mode));
    EXPECT_EQ(SYMH_ACCESS_READ_WRITE, mode);
}

TEST_F(Vmm, DestroyWhileMappedKeepsTheMemory)
{
    map(0, 4);
    map(4, 4);
    strcpy(at(page), "still here");
    ASSERT_EQ(SYMH_OK, symh_physmem_destroy(pm));
    symh_physmem_t *gone = pm;
    pm = nullptr;
    EXPECT_STREQ("still here", at(page));
    EXPECT_STREQ("still here", at(5 * page));
    void *mapped = nullptr;
    expect_invalid("already destroyed", [&] {
        return symh_physmem_map(gone, at(8 * page), page, SYMH_ACCESS_READ, 0, &mapped);
    });
    expect_invalid("already destroyed", [&] { return symh_physmem_destroy(gone); });
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(at(0), 4 * page));
    strcpy(at(5 * page), "the last mapping");
    EXPECT_STREQ("the last mapping", at(5 * page));
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(at(4 * page), 4 * page)); // frees it
}

TEST_F(Vmm, ManyObjectsAndReservationsComeAndGo)
{
    for (int i = 0; i < 200; ++i) {
        void *va = nullptr, *mapped = nullptr;
        symh_physmem_t *obj = nullptr;
        ASSERT_EQ(SYMH_OK, symh_vmm_reserve(2 * page, nullptr, &va));
        ASSERT_EQ(SYMH_OK, symh_physmem_create(0, 2 * page, &obj));
        ASSERT_EQ(SYMH_OK, symh_physmem_map(obj, va, 2 * page, SYMH_ACCESS_READ_WRITE, 0, &mapped));
        if (i % 2) {
            ASSERT_EQ(SYMH_OK, symh_physmem_destroy(obj));
        }
        ((int *)va)[0] = i;
        ASSERT_EQ(SYMH_OK, symh_vmm_unmap(va, 2 * page));
        if (i % 2 == 0) {
            ASSERT_EQ(SYMH_OK, symh_physmem_destroy(obj));
        }
        ASSERT_EQ(SYMH_OK, symh_vmm_release(va, 2 * page));
    }
}

class VmmAfterFinalize : public SymhTest
{
};

TEST_F(VmmAfterFinalize, CallsFailAfterFinalizeAndWorkAfterANewInit)
{
    symh_finalize();
    void *va = nullptr;
    std::string log = symh_captured_log(
        [&] { EXPECT_EQ(SYMH_ERR_NOT_INITIALIZED, symh_vmm_reserve(page, nullptr, &va)); });
    EXPECT_EQ(1u, log_lines(log)) << log;
    ASSERT_EQ(SYMH_OK, symh_init());
    ASSERT_EQ(SYMH_OK, symh_vmm_reserve(page, nullptr, &va));
    EXPECT_EQ(SYMH_OK, symh_vmm_release(va, page));

    // What the application leaves (a mapping, its reservation, an object never destroyed) is
    // released by symh_finalize: afterwards the range is free address space again.
    symh_physmem_t *pm = nullptr;
    void *mapped = nullptr;
    ASSERT_EQ(SYMH_OK, symh_vmm_reserve(4 * page, nullptr, &va));
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, 2 * page, &pm));
    ASSERT_EQ(SYMH_OK, symh_physmem_map(pm, va, 2 * page, SYMH_ACCESS_READ_WRITE, 0, &mapped));
    ((char *)mapped)[0] = 1;
    symh_finalize();
    void *probe =
        mmap(va, 4 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    EXPECT_EQ(va, probe) << "the reservation was released at finalize";
    if (probe != MAP_FAILED)
        munmap(probe, 4 * page);
}

} // namespace
