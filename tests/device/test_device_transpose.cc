// Tests of symh_dev_memcpy_transposed: ranks 2 to 7, element sizes 1 to 16 bytes, random bounds
// (negative lower bounds included), every pair of dimensions in both orders, both directions,
// against a reference loop over the index values; round trips; host_buf's contents; misuse
// refused with one log line and nothing copied; a device range past its allocation.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <symheap.h>

#include "mpi_test_util.hpp"

namespace
{

using symh_test::log_lines;

// An array description: bounds per dimension, column-major.
struct Shape {
    std::vector<long> lb, ub;

    size_t elements() const
    {
        size_t n = 1;
        for (size_t d = 0; d < lb.size(); d++)
            n *= size_t(ub[d] - lb[d] + 1);
        return n;
    }
};

// The offset, in elements, of the element with index values `x` in a column-major array of
// bounds `s`: the first index varies fastest.
size_t offset_of(const Shape &s, const std::vector<long> &x)
{
    size_t offset = 0, stride = 1;
    for (size_t d = 0; d < x.size(); d++) {
        offset += size_t(x[d] - s.lb[d]) * stride;
        stride *= size_t(s.ub[d] - s.lb[d] + 1);
    }
    return offset;
}

// The host array's bounds: the device's with dimensions i and j (0-based) swapped.
Shape swapped(const Shape &s, int i, int j)
{
    Shape t = s;
    std::swap(t.lb[i], t.lb[j]);
    std::swap(t.ub[i], t.ub[j]);
    return t;
}

// Reference: visits every index tuple x of the device array (an odometer over the index
// values) and places device element x at host element x-with-i-and-j-swapped.
std::vector<unsigned char> reference_host_from_device(const Shape &dev, int i, int j, size_t elem,
                                                      const std::vector<unsigned char> &device)
{
    Shape host = swapped(dev, i, j);
    std::vector<unsigned char> out(device.size());
    std::vector<long> x = dev.lb;
    for (;;) {
        std::vector<long> y = x;
        std::swap(y[i], y[j]);
        memcpy(&out[offset_of(host, y) * elem], &device[offset_of(dev, x) * elem], elem);
        size_t d = 0;
        while (d < x.size() && x[d] == dev.ub[d]) {
            x[d] = dev.lb[d];
            d++;
        }
        if (d == x.size())
            break;
        x[d]++;
    }
    return out;
}

std::vector<unsigned char> random_bytes(std::mt19937_64 &rng, size_t n)
{
    std::vector<unsigned char> v(n);
    for (auto &b : v)
        b = static_cast<unsigned char>(rng());
    return v;
}

class Transposed : public SymhSuiteInitTest
{
  protected:
    // A device buffer of `nbytes` (freed by the caller with symh_dev_free).
    static void *dev_alloc(size_t nbytes)
    {
        void *ptr = nullptr;
        EXPECT_EQ(SYMH_OK, symh_dev_alloc(&ptr, nbytes, nullptr));
        return ptr;
    }

    static std::vector<unsigned char> dev_read(const void *dev, size_t nbytes)
    {
        std::vector<unsigned char> out(nbytes);
        EXPECT_EQ(SYMH_OK, symh_dev_memcpy_from_device(out.data(), dev, nbytes));
        return out;
    }

    // Both directions and the round trip for one shape, pair and element size.
    static void check_case(const Shape &dev, const int ij[2], size_t elem, std::mt19937_64 &rng)
    {
        int rank = int(dev.lb.size());
        int i = rank == 2 ? 0 : std::min(ij[0], ij[1]) - 1;
        int j = rank == 2 ? 1 : std::max(ij[0], ij[1]) - 1;
        size_t nbytes = dev.elements() * elem;
        std::string what = "rank " + std::to_string(rank) + " elem " + std::to_string(elem) +
                           (ij ? " ij " + std::to_string(ij[0]) + "," + std::to_string(ij[1])
                               : std::string(" ij NULL"));
        for (int d = 0; d < rank; d++)
            what += " " + std::to_string(dev.lb[d]) + ":" + std::to_string(dev.ub[d]);
        SCOPED_TRACE(what);

        void *device = dev_alloc(nbytes);
        ASSERT_NE(nullptr, device);
        std::vector<unsigned char> buf(nbytes), host(nbytes);

        // From the device: dst is the reference transpose, host_buf the device's contents.
        std::vector<unsigned char> content = random_bytes(rng, nbytes);
        ASSERT_EQ(SYMH_OK, symh_dev_memcpy_to_device(device, content.data(), nbytes));
        ASSERT_EQ(SYMH_OK, symh_dev_memcpy_transposed(0, rank, elem, dev.lb.data(), dev.ub.data(),
                                                      ij, host.data(), device, buf.data()));
        EXPECT_TRUE(host == reference_host_from_device(dev, i, j, elem, content));
        EXPECT_TRUE(buf == content);

        // To the device: a random host array lands where the reference says; host_buf holds
        // what the device holds; then back to the host, which gives the original.
        std::vector<unsigned char> host_src = random_bytes(rng, nbytes);
        std::vector<unsigned char> want_dev(nbytes);
        {
            // The inverse of the reference: host element y comes from device element y-swapped;
            // checked by transposing the candidate back with the reference.
            Shape host_shape = swapped(dev, i, j);
            want_dev = reference_host_from_device(host_shape, i, j, elem, host_src);
            ASSERT_TRUE(reference_host_from_device(dev, i, j, elem, want_dev) == host_src);
        }
        ASSERT_EQ(SYMH_OK, symh_dev_memcpy_transposed(1, rank, elem, dev.lb.data(), dev.ub.data(),
                                                      ij, device, host_src.data(), buf.data()));
        EXPECT_TRUE(dev_read(device, nbytes) == want_dev);
        EXPECT_TRUE(buf == want_dev);
        std::vector<unsigned char> back(nbytes);
        ASSERT_EQ(SYMH_OK, symh_dev_memcpy_transposed(0, rank, elem, dev.lb.data(), dev.ub.data(),
                                                      ij, back.data(), device, buf.data()));
        EXPECT_TRUE(back == host_src);
        EXPECT_EQ(SYMH_OK, symh_dev_free(&device, SYMH_DEVICE_ANY));
    }
};

// Random bounds with at most `max_elements` elements in all; lower bounds from -5 to 5.
Shape random_shape(std::mt19937_64 &rng, int rank, size_t max_elements)
{
    Shape s;
    size_t left = max_elements;
    for (int d = 0; d < rank; d++) {
        long extent = 1 + long(rng() % std::min<uint64_t>(6, left));
        left /= size_t(extent);
        long lb = long(rng() % 11) - 5;
        s.lb.push_back(lb);
        s.ub.push_back(lb + extent - 1);
    }
    return s;
}

TEST_F(Transposed, EveryRankPairSizeAndDirectionMatchesTheReference)
{
    std::mt19937_64 rng(20261130);
    const size_t sizes[] = { 1, 2, 4, 8, 16 };
    for (int rank = 2; rank <= 7; rank++) {
        for (int a = 1; a <= rank; a++) {
            for (int b = 1; b <= rank; b++) {
                if (a == b)
                    continue;
                const int ij[2] = { a, b };
                for (size_t elem : sizes) {
                    for (int rep = 0; rep < 2; rep++) {
                        Shape s = random_shape(rng, rank, 600);
                        check_case(s, ij, elem, rng);
                        if (HasFatalFailure())
                            return;
                    }
                }
            }
        }
    }
}

TEST_F(Transposed, RankTwoIgnoresIjAndAcceptsNull)
{
    std::mt19937_64 rng(7);
    Shape s{ { -3, 4 }, { 5, 20 } };
    const int garbage[2] = { 9, 9 };
    for (size_t elem : { size_t(1), size_t(8), size_t(16) }) {
        check_case(s, nullptr, elem, rng);
        check_case(s, garbage, elem, rng);
    }
}

// Shapes past the tile edges and with big leading chunks (the dims before the first swapped one
// copied as one block), including one larger than the tiling limit.
TEST_F(Transposed, LargeShapesAndOddElementSizes)
{
    std::mt19937_64 rng(11);
    const int ij23[2] = { 3, 2 };
    const int ij13[2] = { 1, 3 };
    check_case(Shape{ { 0, 1 }, { 299, 257 } }, nullptr, 8, rng);
    check_case(Shape{ { -7, 1 }, { 93, 70 } }, nullptr, 3, rng);
    check_case(Shape{ { 1, 1, 1 }, { 2100, 5, 3 } }, ij23, 8, rng);
    check_case(Shape{ { 1, -2, 1 }, { 40, 9, 37 } }, ij13, 4, rng);
    check_case(Shape{ { 1, -2, 1 }, { 3, 9, 37 } }, ij23, 24, rng);
}

TEST_F(Transposed, MisuseIsRefusedWithOneLineAndNothingCopied)
{
    const long lb3[3] = { 1, 1, 1 }, ub3[3] = { 2, 3, 4 };
    const long lb8[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, ub8[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    const long bad_ub[3] = { 2, 0, 4 };
    const long huge_lb[3] = { LONG_MIN, 1, 1 }, huge_ub[3] = { LONG_MAX, 3, 4 };
    const long big_lb[3] = { 1, 1, 1 }, big_ub[3] = { 1L << 30, 1L << 30, 1L << 30 };
    const int ij12[2] = { 1, 2 }, ij11[2] = { 2, 2 }, ij04[2] = { 0, 2 }, ij14[2] = { 1, 4 };
    const size_t nbytes = 24 * 8;
    void *device = dev_alloc(nbytes);
    ASSERT_NE(nullptr, device);
    std::vector<unsigned char> zero(nbytes, 0), host(nbytes, 0xab), buf(nbytes, 0xcd);
    ASSERT_EQ(SYMH_OK, symh_dev_memcpy_to_device(device, zero.data(), nbytes));

    struct Case {
        const char *what;
        int rank;
        size_t elem;
        const long *lb, *ub;
        const int *ij;
        bool null_dst, null_src, null_buf;
        const char *log_part;
    };
    const Case cases[] = {
        { "rank 1", 1, 8, lb3, ub3, ij12, false, false, false, "rank 1 is not in 2..7" },
        { "rank 8", 8, 8, lb8, ub8, ij12, false, false, false, "rank 8 is not in 2..7" },
        { "rank 0", 0, 8, lb3, ub3, ij12, false, false, false, "rank 0" },
        { "elem 0", 3, 0, lb3, ub3, ij12, false, false, false, "elem_size is 0" },
        { "lbounds NULL", 3, 8, nullptr, ub3, ij12, false, false, false, "lbounds is NULL" },
        { "ubounds NULL", 3, 8, lb3, nullptr, ij12, false, false, false, "ubounds is NULL" },
        { "dst NULL", 3, 8, lb3, ub3, ij12, true, false, false, "dst is NULL" },
        { "src NULL", 3, 8, lb3, ub3, ij12, false, true, false, "src is NULL" },
        { "host_buf NULL", 3, 8, lb3, ub3, ij12, false, false, true, "host_buf is NULL" },
        { "ij NULL", 3, 8, lb3, ub3, nullptr, false, false, false, "ij is NULL" },
        { "ij equal", 3, 8, lb3, ub3, ij11, false, false, false, "ij = {2, 2}" },
        { "ij 0", 3, 8, lb3, ub3, ij04, false, false, false, "ij = {0, 2}" },
        { "ij past rank", 3, 8, lb3, ub3, ij14, false, false, false, "ij = {1, 4}" },
        { "ub < lb", 3, 8, lb3, bad_ub, ij12, false, false, false,
          "dimension 2 has upper bound 0 below its lower bound 1" },
        { "extent overflow", 3, 8, huge_lb, huge_ub, ij12, false, false, false,
          "larger than the address space" },
        { "size overflow", 3, 8, big_lb, big_ub, ij12, false, false, false,
          "larger than the address space" },
    };
    for (const Case &c : cases) {
        for (int to_device = 0; to_device <= 1; to_device++) {
            SCOPED_TRACE(std::string(c.what) + (to_device ? " to device" : " from device"));
            void *dst = c.null_dst ? nullptr : to_device ? device : host.data();
            const void *src = c.null_src ? nullptr : to_device ? host.data() : device;
            void *hb = c.null_buf ? nullptr : buf.data();
            int status = 0;
            std::string log = symh_captured_log([&] {
                status = symh_dev_memcpy_transposed(to_device, c.rank, c.elem, c.lb, c.ub, c.ij,
                                                    dst, src, hb);
            });
            EXPECT_EQ(SYMH_ERR_INVALID_ARG, status);
            EXPECT_EQ(SYMH_ERR_INVALID_ARG, symh_last_error());
            EXPECT_EQ(1u, log_lines(log)) << log;
            EXPECT_NE(std::string::npos, log.find("symh_dev_memcpy_transposed: ")) << log;
            EXPECT_NE(std::string::npos, log.find(c.log_part)) << log;
            EXPECT_TRUE(dev_read(device, nbytes) == zero);
            EXPECT_TRUE(std::vector<unsigned char>(nbytes, 0xab) == host);
            EXPECT_TRUE(std::vector<unsigned char>(nbytes, 0xcd) == buf);
        }
    }
    EXPECT_EQ(SYMH_OK, symh_dev_free(&device, SYMH_DEVICE_ANY));
}

// A device range that ends past its allocation (the bounds describe a larger array than the
// buffer holds) is refused with SYMH_ERR_NOT_REGISTERED in both directions, nothing copied.
TEST_F(Transposed, DeviceRangePastItsAllocationIsNotRegistered)
{
    const long lb[3] = { 0, -1, 1 }, ub[3] = { 3, 2, 3 }; // 48 elements
    const int ij[2] = { 2, 3 };
    const size_t nbytes = 48 * 4, short_bytes = 47 * 4;
    void *device = dev_alloc(short_bytes);
    ASSERT_NE(nullptr, device);
    std::vector<unsigned char> zero(short_bytes, 0), host(nbytes, 0x5a), buf(nbytes, 0xcd);
    ASSERT_EQ(SYMH_OK, symh_dev_memcpy_to_device(device, zero.data(), short_bytes));
    for (int to_device = 0; to_device <= 1; to_device++) {
        SCOPED_TRACE(to_device ? "to device" : "from device");
        int status = 0;
        std::string log = symh_captured_log([&] {
            status = symh_dev_memcpy_transposed(to_device, 3, 4, lb, ub, ij,
                                                to_device ? device : host.data(),
                                                to_device ? host.data() : device, buf.data());
        });
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, status);
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
        EXPECT_EQ(1u, log_lines(log)) << log;
        EXPECT_NE(std::string::npos, log.find("symh_dev_memcpy_transposed: device range")) << log;
        EXPECT_NE(std::string::npos, log.find("ends 4 bytes past its allocation")) << log;
        EXPECT_TRUE(dev_read(device, short_bytes) == zero);
        EXPECT_TRUE(std::vector<unsigned char>(nbytes, 0x5a) == host);
        EXPECT_TRUE(std::vector<unsigned char>(nbytes, 0xcd) == buf);
    }
    // The same copy into an allocation one element larger, at its second element (an interior
    // range ending at the allocation's end), is fine.
    void *larger = dev_alloc(nbytes + 4);
    ASSERT_NE(nullptr, larger);
    EXPECT_EQ(SYMH_OK,
              symh_dev_memcpy_transposed(1, 3, 4, lb, ub, ij, static_cast<char *>(larger) + 4,
                                         host.data(), buf.data()));
    EXPECT_EQ(SYMH_OK, symh_dev_free(&larger, SYMH_DEVICE_ANY));
    EXPECT_EQ(SYMH_OK, symh_dev_free(&device, SYMH_DEVICE_ANY));
}

class TransposedBeforeInit : public SymhTest
{
};

// No symh_init needed (docs/dev-alloc.md): a transposed copy into a device allocation made
// before init works.
TEST_F(TransposedBeforeInit, WorksWithoutInit)
{
    ASSERT_EQ(0, symh_initialized());
    const long lb[2] = { 1, 1 }, ub[2] = { 2, 2 };
    double b[4] = { 1, 2, 3, 4 }, back[4] = { 0 }, buf[4] = { 0 };
    void *a = nullptr;
    int status = 0, status2 = 0;
    std::string log = symh_captured_log([&] {
        ASSERT_EQ(SYMH_OK, symh_dev_alloc(&a, sizeof(b), nullptr));
        status = symh_dev_memcpy_transposed(1, 2, sizeof(double), lb, ub, nullptr, a, b, buf);
        status2 = symh_dev_memcpy_from_device(back, a, sizeof(back));
        EXPECT_EQ(SYMH_OK, symh_dev_free(&a, SYMH_DEVICE_ANY));
    });
    EXPECT_EQ(SYMH_OK, status);
    EXPECT_EQ(SYMH_OK, status2);
    EXPECT_EQ("", log);
    EXPECT_EQ(1.0, back[0]);
    EXPECT_EQ(3.0, back[1]) << "transposed";
}

} // namespace
