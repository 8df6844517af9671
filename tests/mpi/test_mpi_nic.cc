// Multi-PE tests of the NIC domain (docs/transports.md): run only in the configurations where some
// peer routes through a NIC transport (UCX or libfabric), which each test asserts first. Routes
// and pointer queries; unregistered local buffers refused with nothing sent, registered ones and
// device allocations accepted; a symmetric region reached over the NIC; many non-blocking
// operations completed by one quiet; wait_until on NIC-delivered data; atomics from IPC and NIC
// peers on one word; PEs that reach finalize at different times.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <symheap.h>
#include <symheap/device.h>
#include <symheap/registration.h>
#include <symheap/rma.h>

#include "mpi_test_util.hpp"
#include "shim_core.h"

namespace
{

using namespace symh_test;

bool is_nic(const std::string &route)
{
    return route == "ucx" || route == "ofi";
}

// The NIC-routed peers of this PE (never empty in these configurations: asserted).
std::vector<int> nic_peers()
{
    std::vector<int> peers;
    for (int pe = 0; pe < npes(); ++pe)
        if (is_nic(expected_route(pe)))
            peers.push_back(pe);
    return peers;
}

// A NIC transport that cannot start (UCX given no usable wire, or libfabric an unknown provider)
// fails symh_init on every PE with SYMH_ERR_TRANSPORT and the library's reason logged, leaves
// nothing initialized, and a later init without the bad setting works (the Nic suite below).
class NicStart : public SymhTest
{
};

TEST_F(NicStart, TransportThatCannotStartFailsInitEverywhere)
{
    bool ucx = std::string(symh_shim_tl_nic_built()).find("ucx") != std::string::npos;
    const char *var = ucx ? "UCX_TLS" : "SYMH_OFI_PROVIDER";
    // The configuration's own settings come back afterwards.
    const char *was_transport = getenv("SYMH_TRANSPORT"), *was_var = getenv(var);
    std::string transport = was_transport ? was_transport : "", value = was_var ? was_var : "";
    setenv("SYMH_TRANSPORT", ucx ? "ucx" : "ofi", 1);
    setenv(var, "no_such_wire", 1);
    int status = SYMH_OK;
    // At the thread level of the Nic suite: the failed init leaves MPI up at that level.
    std::string log =
        symh_captured_log([&] { status = symh_init_thread(SYMH_THREAD_MULTIPLE, nullptr); });
    if (was_var)
        setenv(var, value.c_str(), 1);
    else
        unsetenv(var);
    if (was_transport)
        setenv("SYMH_TRANSPORT", transport.c_str(), 1);
    else
        unsetenv("SYMH_TRANSPORT");
    EXPECT_EQ(0, symh_initialized());
    EXPECT_NE(std::string::npos, log.find(ucx ? "ucp_init failed" : "fi_getinfo failed")) << log;
    EXPECT_EQ(SYMH_ERR_TRANSPORT, status);
    EXPECT_EQ(npes(), count_pes(status == SYMH_ERR_TRANSPORT)) << "every PE failed";
}

// The suite runs at SYMH_THREAD_MULTIPLE (the NIC transports then use their thread-safe modes),
// so that NicThreads can call from several threads at once.
class Nic : public SymhTest
{
  protected:
    static void SetUpTestSuite()
    {
        int provided = -1;
        ASSERT_EQ(SYMH_OK, symh_init_thread(SYMH_THREAD_MULTIPLE, &provided));
        ASSERT_EQ(SYMH_THREAD_MULTIPLE, provided);
    }
    void SetUp() override
    {
        SymhTest::SetUp();
        ASSERT_GE(npes(), 2) << "NIC tests need two PEs";
        ASSERT_FALSE(nic_peers().empty())
            << "no peer routes through a NIC transport in this configuration";
    }
    void TearDown() override
    {
        symh_barrier_all();
        SymhTest::TearDown();
    }
};

TEST_F(Nic, RoutesAndPointerQueriesFollowTheConfiguration)
{
    auto *heap = (long *)symh_malloc(sizeof(long));
    ASSERT_NE(nullptr, heap);
    for (int pe = 0; pe < npes(); ++pe) {
        std::string route = expected_route(pe);
        EXPECT_EQ(route, std::string(symh_pe_transport(pe))) << "PE " << pe;
        EXPECT_EQ(1, symh_pe_accessible(pe)) << "PE " << pe << " is reachable by RMA";
        EXPECT_EQ(1, symh_addr_accessible(heap, pe)) << pe;
        void *p = symh_ptr(heap, pe);
        if (is_nic(route)) {
            EXPECT_EQ(nullptr, p) << "PE " << pe << " has no load/store route";
            EXPECT_EQ(SYMH_ERR_UNSUPPORTED, symh_last_error());
        } else {
            EXPECT_NE(nullptr, p) << pe;
        }
    }
    symh_free(heap);
}

TEST_F(Nic, UnregisteredLocalBufferIsRefusedAndNothingIsSent)
{
    const size_t bytes = 4096;
    auto *target = (unsigned char *)symh_malloc(bytes);
    ASSERT_NE(nullptr, target);
    memset(target, 0x11, bytes);
    symh_barrier_all();
    auto *plain = (unsigned char *)aligned_alloc(4096, bytes);
    ASSERT_NE(nullptr, plain);
    memset(plain, 0x77, bytes);
    for (int pe : nic_peers()) {
        std::string log = symh_captured_log([&] { symh_putmem(target, plain, bytes, pe); });
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
        EXPECT_EQ(1u, log_lines(log)) << log;
        EXPECT_EQ(1u, count_lines(log, "is not registered")) << log;
        log = symh_captured_log([&] { symh_getmem(plain, target, bytes, pe); });
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
        EXPECT_EQ(1u, log_lines(log)) << log;
        log =
            symh_captured_log([&] { symh_long_iput((long *)target, (long *)plain, 1, 2, 8, pe); });
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
        log = symh_captured_log([&] { symh_putmem_nbi(target, plain, 8, pe); });
        EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    }
    for (size_t i = 0; i < bytes; ++i)
        ASSERT_EQ(0x77, plain[i]) << "a refused get wrote byte " << i;
    symh_barrier_all();
    for (size_t i = 0; i < bytes; ++i)
        ASSERT_EQ(0x11, target[i]) << "a refused put arrived: byte " << i;
    symh_barrier_all();

    // Registered, the same buffer is a valid local side; unregistered again, refused again.
    ASSERT_EQ(SYMH_OK, symh_buffer_register(plain, bytes));
    int right = (me() + 1) % npes(), left = (me() + npes() - 1) % npes();
    symh_putmem(target, plain, bytes, right);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all();
    for (size_t i = 0; i < bytes; ++i)
        ASSERT_EQ(0x77, target[i]) << "from PE " << left << " byte " << i;
    memset(plain, 0, bytes);
    symh_getmem(plain, target, bytes, right);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    EXPECT_EQ(0x77, plain[bytes - 1]);
    ASSERT_EQ(SYMH_OK, symh_buffer_unregister(plain));
    int nic = nic_peers().front();
    std::string log = symh_captured_log([&] { symh_putmem(target, plain, 8, nic); });
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error()) << log;
    symh_barrier_all();
    free(plain);
    symh_free(target);
}

TEST_F(Nic, ValuesOfPAndGAndAtomicOperandsNeedNoRegistration)
{
    auto *v = (long *)symh_calloc(4, sizeof(long));
    ASSERT_NE(nullptr, v);
    symh_barrier_all();
    int right = (me() + 1) % npes(), left = (me() + npes() - 1) % npes();
    symh_long_p(&v[0], 1000 + me(), right);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all();
    EXPECT_EQ(1000 + left, v[0]);
    EXPECT_EQ(1000 + me(), symh_long_g(&v[0], right)) << "what this PE put there";
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all(); // every PE has read its own word before the left neighbour swaps it
    // Operands and results of atomics live on the stack too.
    long cond = 1000 + me(), swapped = symh_long_atomic_compare_swap(&v[0], cond, 7, right);
    EXPECT_EQ(cond, swapped);
    EXPECT_EQ(7, symh_long_atomic_fetch(&v[0], right));
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all();
    symh_free(v);
}

TEST_F(Nic, DeviceAllocationIsALocalSideWithoutRegistration)
{
    const size_t bytes = 1 << 16;
    auto *target = (unsigned char *)symh_calloc(bytes, 1);
    ASSERT_NE(nullptr, target);
    void *dev = nullptr;
    ASSERT_EQ(SYMH_OK, symh_dev_alloc(&dev, bytes, nullptr));
    std::vector<unsigned char> host(bytes, (unsigned char)(0x30 + me()));
    ASSERT_EQ(SYMH_OK,
              symh_dev_memcpy_to_device(dev, host.data(), bytes)); // device memory on a GPU
    symh_barrier_all();
    int right = (me() + 1) % npes(), left = (me() + npes() - 1) % npes();
    symh_putmem(target, dev, bytes, right);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_barrier_all();
    EXPECT_EQ(0x30 + left, target[0]);
    EXPECT_EQ(0x30 + left, target[bytes - 1]);
    std::fill(host.begin(), host.end(), 0);
    ASSERT_EQ(SYMH_OK, symh_dev_memcpy_to_device(dev, host.data(), bytes));
    symh_getmem(dev, target, bytes, right);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    ASSERT_EQ(SYMH_OK, symh_dev_memcpy_from_device(host.data(), dev, bytes));
    EXPECT_EQ(0x30 + me(), host[bytes / 2]);
    symh_barrier_all();
    // Freed, its memory is unknown again: refused as a local side of a NIC operation (the
    // check comes before anything reads it).
    void *stale = dev;
    ASSERT_EQ(SYMH_OK, symh_dev_free(&dev, SYMH_DEVICE_ANY));
    int nic = nic_peers().front();
    std::string log = symh_captured_log([&] { symh_putmem(target, stale, 8, nic); });
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error());
    EXPECT_EQ(1u, log_lines(log)) << log;
    symh_barrier_all();
    symh_free(target);
}

TEST_F(Nic, SymmetricRegionIsReachableOverTheNic)
{
    const size_t page = 4096, length = 8 * page;
    void *resv = nullptr, *mapped = nullptr;
    symh_physmem_t *pm = nullptr;
    ASSERT_EQ(SYMH_OK, symh_vmm_reserve(16 * page, nullptr, &resv));
    ASSERT_EQ(SYMH_OK, symh_physmem_create(0, length, &pm));
    ASSERT_EQ(SYMH_OK, symh_physmem_map(pm, resv, length, SYMH_ACCESS_READ_WRITE, 0, &mapped));
    char *buf = (char *)mapped;
    memset(buf, 0, length);
    char *alias = (char *)symh_buffer_register_symmetric(buf, length);
    ASSERT_NE(nullptr, alias);
    int right = (me() + 1) % npes(), left = (me() + npes() - 1) % npes();
    reg_vector<char> pattern(length - page);
    for (size_t i = 0; i < pattern.size(); ++i)
        pattern[i] = (char)(me() * 17 + i * 3);
    symh_barrier_all();
    symh_putmem(alias, pattern.data(), pattern.size(), right);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    for (int pe = 0; pe < npes(); ++pe)
        symh_long_atomic_add((long *)(alias + length - page), 1, pe);
    symh_barrier_all();
    for (size_t i = 0; i < pattern.size(); ++i)
        ASSERT_EQ((char)(left * 17 + i * 3), buf[i]) << "byte " << i << " from PE " << left;
    EXPECT_EQ(npes(), *(long *)(buf + length - page)) << "one atomic add from every PE";
    // Past the end of the region: refused before anything goes to the NIC.
    std::string log =
        symh_captured_log([&] { symh_putmem(alias + length - 4, pattern.data(), 8, right); });
    EXPECT_EQ(SYMH_ERR_NOT_REGISTERED, symh_last_error()) << log;
    symh_barrier_all();
    ASSERT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(alias));
    EXPECT_EQ(SYMH_OK, symh_vmm_unmap(mapped, length));
    EXPECT_EQ(SYMH_OK, symh_physmem_destroy(pm));
    EXPECT_EQ(SYMH_OK, symh_vmm_release(resv, 16 * page));
}

// 20,000 non-blocking puts of 8 bytes and 2,000 non-blocking gets, completed by one quiet each;
// the flag set after the quiet must find every word at the target (quiet = remote completion),
// and wait_until must see the flag (the waiting PE drives the NIC's progress).
TEST_F(Nic, ManyNonBlockingOperationsCompleteWithOneQuiet)
{
    const size_t words = 20000;
    auto *data = (long *)symh_calloc(words, sizeof(long));
    auto *flag = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, data);
    ASSERT_NE(nullptr, flag);
    reg_vector<long> src(words), back(2000);
    for (size_t i = 0; i < words; ++i)
        src[i] = (long)(me() * 1000000 + i);
    symh_barrier_all();
    int right = (me() + 1) % npes(), left = (me() + npes() - 1) % npes();
    for (size_t i = 0; i < words; ++i)
        symh_long_put_nbi(&data[i], &src[i], 1, right);
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_quiet();
    EXPECT_EQ(SYMH_OK, symh_last_error());
    symh_long_atomic_set(flag, 1, right);
    symh_long_wait_until(flag, SYMH_CMP_EQ, 1);
    for (size_t i = 0; i < words; ++i)
        ASSERT_EQ((long)(left * 1000000 + i), data[i]) << "word " << i;
    symh_barrier_all();
    for (size_t i = 0; i < back.size(); ++i)
        symh_long_get_nbi(&back[i], &data[i * 10], 1, right);
    symh_quiet();
    for (size_t i = 0; i < back.size(); ++i)
        ASSERT_EQ((long)(me() * 1000000 + i * 10), back[i]) << "get " << i;
    symh_barrier_all();
    symh_free(flag);
    symh_free(data);
}

// A token goes around the ring 50 times with p + wait_until: every hop a NIC or IPC delivery
// the receiver waits for.
TEST_F(Nic, TokenRingWithWaitUntil)
{
    auto *token = (long *)symh_calloc(1, sizeof(long));
    ASSERT_NE(nullptr, token);
    symh_barrier_all();
    int n = npes(), right = (me() + 1) % n;
    for (long lap = 1; lap <= 50; ++lap) {
        long value = lap * n + me();
        if (me() != 0 || lap > 1) // PE 0 starts the first lap
            symh_long_wait_until(token, SYMH_CMP_EQ, value - 1);
        symh_long_p(token, value, right);
        symh_quiet();
    }
    if (me() == 0)
        symh_long_wait_until(token, SYMH_CMP_EQ, 51L * n - 1);
    symh_barrier_all();
    symh_free(token);
}

// Every PE adds to one word of PE 0 and takes a compare-swap lock on it: IPC and NIC peers on
// the same word stay atomic because every atomic of a NIC job takes the NIC's path.
TEST_F(Nic, AtomicsFromEveryPeOnOneWordAreExact)
{
    auto *w = (long *)symh_calloc(4, sizeof(long));
    ASSERT_NE(nullptr, w);
    symh_barrier_all();
    const int iters = 2000;
    for (int i = 0; i < iters; ++i) {
        symh_long_atomic_add(&w[0], 1, 0);
        (void)symh_long_atomic_fetch_add(&w[1], 2, 0);
    }
    // A compare-swap lock on w[2] guards a plain read-modify-write of w[3] (g, then p, then a
    // quiet before the release): a lock that let two PEs in would lose increments.
    for (int i = 0; i < 50; ++i) {
        while (symh_long_atomic_compare_swap(&w[2], 0, me() + 1, 0) != 0) {
        }
        symh_long_p(&w[3], symh_long_g(&w[3], 0) + 1, 0);
        symh_quiet();
        EXPECT_EQ(me() + 1, symh_long_atomic_swap(&w[2], 0, 0));
    }
    symh_barrier_all();
    if (me() == 0) {
        EXPECT_EQ((long)iters * npes(), w[0]);
        EXPECT_EQ(2L * iters * npes(), w[1]);
        EXPECT_EQ(0, w[2]);
        EXPECT_EQ(50L * npes(), w[3]);
    }
    symh_barrier_all();
    symh_free(w);
}

// Four threads per PE at once: p and put_nbi into their own slots of the right PE's array,
// atomics on one word of PE 0, a quiet each, gets back; every word and the sum must be exact.
TEST_F(Nic, ThreadsIssueOperationsConcurrently)
{
    const int threads = 4, per_thread = 200;
    auto *slots = (long *)symh_calloc((size_t)threads * per_thread, sizeof(long));
    auto *sum = (long *)symh_calloc(1, sizeof(long));
    auto *mine = (long *)symh_calloc((size_t)threads * per_thread, sizeof(long));
    ASSERT_NE(nullptr, slots);
    ASSERT_NE(nullptr, sum);
    ASSERT_NE(nullptr, mine);
    symh_barrier_all();
    int right = (me() + 1) % npes(), left = (me() + npes() - 1) % npes();
    std::atomic<int> failures{ 0 };
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) {
                long v = (long)me() * 100000 + t * 1000 + i;
                if (i % 2 == 0) {
                    symh_long_p(&slots[t * per_thread + i], v, right);
                } else { // from the heap (registered): the source stays untouched until quiet
                    mine[t * per_thread + i] = v;
                    symh_long_put_nbi(&slots[t * per_thread + i], &mine[t * per_thread + i], 1,
                                      right);
                }
                symh_long_atomic_add(sum, 1, 0);
                if (symh_last_error() != SYMH_OK)
                    failures++;
            }
            symh_quiet();
            for (int i = 0; i < per_thread; i += 20) {
                long back = symh_long_g(&slots[t * per_thread + i], right);
                if (back != (long)me() * 100000 + t * 1000 + i)
                    failures++;
            }
        });
    }
    for (auto &th : pool)
        th.join();
    EXPECT_EQ(0, failures.load());
    symh_barrier_all();
    for (int t = 0; t < threads; ++t)
        for (int i = 0; i < per_thread; ++i)
            ASSERT_EQ((long)left * 100000 + t * 1000 + i, slots[t * per_thread + i])
                << t << " " << i;
    if (me() == 0) {
        EXPECT_EQ((long)npes() * threads * per_thread, *sum);
    }
    symh_barrier_all();
    symh_free(mine);
    symh_free(sum);
    symh_free(slots);
}

// PEs reach finalize at different times, with non-blocking puts still outstanding: finalize
// completes them and nobody hangs (the CTest timeout would catch it); a new init works.
class NicFinalize : public SymhTest
{
};

TEST_F(NicFinalize, PesThatFinishAtDifferentTimesDoNotHang)
{
    for (int round = 0; round < 2; ++round) {
        ASSERT_EQ(SYMH_OK, symh_init());
        auto *data = (long *)symh_calloc(1024, sizeof(long));
        ASSERT_NE(nullptr, data);
        for (size_t i = 0; i < 512; ++i)
            data[i] = me();
        symh_barrier_all();
        // From the heap (registered): left outstanding for finalize to complete.
        symh_long_put_nbi(data + 512, data, 512, (me() + 1) % npes());
        if (me() == round % npes())
            usleep(300 * 1000);
        symh_finalize();
        EXPECT_FALSE(symh_initialized());
    }
}

} // namespace
