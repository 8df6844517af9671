// Unit tests of the host device backend's VMM primitives: reservations, sealed memfd objects,
// fixed mappings with access modes, unmap keeping the reservation, export/import.
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

#include <symheap/status.h>

#include "shim_dev.h"
#include "symh_gtest.hpp"

namespace
{

class DevHost : public SymhTest
{
  protected:
    size_t page = symh_shim_dev_granularity(0);
};

// Whether [va, va + size) is still reserved: a no-replace mapping there must fail with EEXIST.
bool reserved(void *va, size_t size)
{
    void *p = mmap(va, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p != MAP_FAILED) {
        munmap(p, size);
        return false;
    }
    return errno == EEXIST;
}

TEST_F(DevHost, Granularity)
{
    EXPECT_EQ((size_t)sysconf(_SC_PAGESIZE), symh_shim_dev_granularity(0));
    EXPECT_EQ(2u << 20, symh_shim_dev_granularity(1));
}

TEST_F(DevHost, ReservationsAreAlignedAndInaccessible)
{
    for (size_t alignment : { page, (size_t)2 << 20, (size_t)1 << 30 }) {
        void *va = nullptr;
        ASSERT_EQ(SYMH_OK, symh_shim_dev_reserve(16 * page, alignment, &va)) << alignment;
        EXPECT_EQ(0u, (uintptr_t)va % alignment);
        EXPECT_TRUE(reserved(va, 16 * page));
        EXPECT_SEGV(*(volatile char *)va = 1) << "PROT_NONE until mapped";
        EXPECT_EQ(SYMH_OK, symh_shim_dev_release(va, 16 * page));
        EXPECT_FALSE(reserved(va, 16 * page));
    }
    void *va = nullptr;
    std::string log = symh_captured_log([&] {
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_dev_reserve(page + 1, page, &va));
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_dev_reserve(page, 3 * page, &va));
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_dev_reserve(0, page, &va));
    });
    EXPECT_EQ(nullptr, va);
}

TEST_F(DevHost, TwoMappingsOfOneObjectShareMemory)
{
    symh_shim_mem_t *mem = nullptr;
    ASSERT_EQ(SYMH_OK, symh_shim_dev_mem_create(4 * page, &mem));
    EXPECT_EQ(4 * page, symh_shim_dev_mem_size(mem));
    void *va = nullptr;
    ASSERT_EQ(SYMH_OK, symh_shim_dev_reserve(8 * page, page, &va));
    char *a = (char *)va, *b = a + 4 * page;
    ASSERT_EQ(SYMH_OK, symh_shim_dev_map(mem, 0, a, 4 * page, 2));
    ASSERT_EQ(SYMH_OK, symh_shim_dev_map(mem, 0, b, 4 * page, 2));
    strcpy(a + 100, "seen through the other mapping");
    EXPECT_STREQ("seen through the other mapping", b + 100);
    EXPECT_EQ(SYMH_OK, symh_shim_dev_fill(b, 0x7f, page));
    EXPECT_EQ(0x7f, a[page - 1]);
    EXPECT_EQ(SYMH_OK, symh_shim_dev_copy(a + page, a, 64));
    EXPECT_EQ(0x7f, b[page + 63]);

    // Released handle: the mappings keep the memory alive.
    EXPECT_EQ(SYMH_OK, symh_shim_dev_mem_release(mem));
    a[2 * page] = 42;
    EXPECT_EQ(42, b[2 * page]);

    EXPECT_EQ(SYMH_OK, symh_shim_dev_unmap(a, 4 * page));
    EXPECT_TRUE(reserved(a, 4 * page)) << "unmap keeps the range reserved";
    EXPECT_SEGV(*(volatile char *)a = 1) << "PROT_NONE after unmap";
    EXPECT_EQ(42, b[2 * page]);
    EXPECT_EQ(SYMH_OK, symh_shim_dev_unmap(b, 4 * page));
    EXPECT_EQ(SYMH_OK, symh_shim_dev_release(va, 8 * page));
}

TEST_F(DevHost, MapAtAnOffsetAndChangeAccess)
{
    symh_shim_mem_t *mem = nullptr;
    ASSERT_EQ(SYMH_OK, symh_shim_dev_mem_create(4 * page, &mem));
    void *va = nullptr;
    ASSERT_EQ(SYMH_OK, symh_shim_dev_reserve(5 * page, page, &va));
    char *whole = (char *)va, *tail = whole + 4 * page;
    ASSERT_EQ(SYMH_OK, symh_shim_dev_map(mem, 0, whole, 4 * page, 2));
    ASSERT_EQ(SYMH_OK, symh_shim_dev_map(mem, 3 * page, tail, page, 1)); // read-only view
    whole[3 * page + 5] = 9;
    EXPECT_EQ(9, tail[5]);
    EXPECT_SEGV(tail[5] = 1) << "read-only";
    EXPECT_EQ(SYMH_OK, symh_shim_dev_set_access(tail, page, 2));
    tail[5] = 10;
    EXPECT_EQ(10, whole[3 * page + 5]);
    EXPECT_EQ(SYMH_OK, symh_shim_dev_set_access(whole, page, 0));
    EXPECT_SEGV((void)*(volatile char *)whole) << "no access";

    std::string log = symh_captured_log([&] {
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_dev_map(mem, 3 * page, whole, 2 * page, 2));
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_dev_map(mem, 5 * page, whole, page, 2));
    });
    EXPECT_NE(std::string::npos, log.find("outside the")) << log;
    symh_shim_dev_unmap(whole, 5 * page);
    symh_shim_dev_mem_release(mem);
    symh_shim_dev_release(va, 5 * page);
}

TEST_F(DevHost, ExportedObjectsAreSealedAndImportable)
{
    symh_shim_mem_t *mem = nullptr, *imported = nullptr;
    ASSERT_EQ(SYMH_OK, symh_shim_dev_mem_create(2 * page, &mem));
    int fd = -1;
    ASSERT_EQ(SYMH_OK, symh_shim_dev_export_fd(mem, &fd));
    EXPECT_NE(0, ftruncate(fd, (off_t)page)) << "sealed against shrinking";
    EXPECT_NE(0, ftruncate(fd, (off_t)(8 * page))) << "sealed against growing";
    ASSERT_EQ(SYMH_OK, symh_shim_dev_import_fd(fd, &imported));
    close(fd);
    EXPECT_EQ(2 * page, symh_shim_dev_mem_size(imported));

    void *va = nullptr;
    ASSERT_EQ(SYMH_OK, symh_shim_dev_reserve(4 * page, page, &va));
    char *mine = (char *)va, *theirs = mine + 2 * page;
    ASSERT_EQ(SYMH_OK, symh_shim_dev_map(mem, 0, mine, 2 * page, 2));
    ASSERT_EQ(SYMH_OK, symh_shim_dev_map(imported, 0, theirs, 2 * page, 2));
    mine[page + 1] = 77;
    EXPECT_EQ(77, theirs[page + 1]);
    symh_shim_dev_unmap(mine, 4 * page);
    symh_shim_dev_mem_release(imported);
    symh_shim_dev_mem_release(mem);
    symh_shim_dev_release(va, 4 * page);

    std::string log = symh_captured_log([&] {
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_dev_mem_create(page + 1, &mem));
        EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_shim_dev_mem_create(0, &mem));
        EXPECT_EQ(SYMH_ERR_SYSTEM, symh_shim_dev_import_fd(-1, &imported));
    });
    EXPECT_NE(std::string::npos, log.find("fstat")) << log;
}

} // namespace
