// Hardening of the node-local exchange (docs/transports.md "Node-local exchange: threat model"):
// a process that is not a PE, of another uid or of ours, racing symh_init and many symmetric
// registrations gets no descriptor, is refused with one log line per connection naming its pid
// and uid, and the job goes on; so is a thread inside a PE's process (a real peer's credentials)
// that lacks the job's secret; a socket name held by someone else is skipped, at init and at a
// registration. Every run is in a network namespace of its own (ipc_guard_netns.sh), so the
// probes reach this job's sockets only. MPI is initialized by main (SYMH_TEST_APP_INITS_MPI), so PE
// 0 can start the outsider and every PE can agree on when to stop before symh_init and after
// symh_finalize.
#define OMPI_SKIP_MPICXX  1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <string>
#include <thread>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <symheap.h>
#include <symheap/vmm.h>

#include "ipc_outsider.h"
#include "mpi_test_util.hpp"
#include "shim_ipc.h"

extern char **environ;

namespace
{

using symh_test::me;
using symh_test::npes;

const size_t page = (size_t)sysconf(_SC_PAGESIZE);

// What the outsider reported (tests/mpi/ipc_outsider.c): connections, descriptors, replies.
struct OutsiderCounts {
    long connects = 0, descriptors = 0, replies = 0;
};

// The outsider process, started on PE 0 with pipes on its stdin and stdout.
class Outsider
{
  public:
    // argv: the command line (setpriv ... or the program itself). Waits for its "ready".
    bool start(const std::vector<std::string> &args)
    {
        int in[2], out[2];
        if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
            return false;
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
        std::vector<char *> argv;
        for (const std::string &arg : args)
            argv.push_back(const_cast<char *>(arg.c_str()));
        argv.push_back(nullptr);
        int ret = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        close(in[0]);
        close(out[1]);
        to_ = in[1];
        from_ = out[0];
        if (ret != 0) {
            pid_ = 0;
            return false;
        }
        char ready = 0;
        if (read(from_, &ready, 1) != 1 || ready != 'r')
            return false;
        fcntl(from_, F_SETFL, O_NONBLOCK);
        return true;
    }
    // Reads what it reported so far.
    const OutsiderCounts &poll_counts()
    {
        char buf[4096];
        ssize_t got;
        while ((got = read(from_, buf, sizeof(buf))) > 0)
            tally(buf, got);
        return counts_;
    }
    // Stops it (EOF on its stdin) and reads its last reports.
    const OutsiderCounts &stop()
    {
        close(to_);
        to_ = -1;
        fcntl(from_, F_SETFL, 0);
        char buf[4096];
        ssize_t got;
        while ((got = read(from_, buf, sizeof(buf))) > 0)
            tally(buf, got);
        close(from_);
        from_ = -1;
        int wstatus = 0;
        waitpid(pid_, &wstatus, 0);
        exit_status_ = wstatus;
        return counts_;
    }
    ~Outsider()
    {
        if (to_ >= 0)
            stop();
    }
    pid_t pid() const
    {
        return pid_;
    }
    int exit_status() const
    {
        return exit_status_;
    }

  private:
    void tally(const char *buf, ssize_t n)
    {
        for (ssize_t i = 0; i < n; ++i) {
            counts_.connects += buf[i] == 'c';
            counts_.descriptors += buf[i] == 'f';
            counts_.replies += buf[i] == 'b';
        }
    }
    pid_t pid_ = 0;
    int to_ = -1, from_ = -1, exit_status_ = -1;
    OutsiderCounts counts_;
};

long sum_over_pes(long mine)
{
    long all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

// A VMM buffer of `pages` pages for symmetric registration (the only memory it accepts).
class VmmBuffer
{
  public:
    explicit VmmBuffer(size_t pages) : bytes_(pages * page)
    {
        ok_ = symh_vmm_reserve(bytes_, nullptr, &resv_) == SYMH_OK &&
              symh_physmem_create(0, bytes_, &pm_) == SYMH_OK &&
              symh_physmem_map(pm_, resv_, bytes_, SYMH_ACCESS_READ_WRITE, 0, &mapped_) == SYMH_OK;
    }
    ~VmmBuffer()
    {
        if (mapped_ != nullptr)
            symh_vmm_unmap(resv_, bytes_);
        if (pm_ != nullptr)
            symh_physmem_destroy(pm_);
        if (resv_ != nullptr)
            symh_vmm_release(resv_, bytes_);
    }
    bool ok() const
    {
        return ok_;
    }
    char *data() const
    {
        return static_cast<char *>(mapped_);
    }
    size_t size() const
    {
        return bytes_;
    }

  private:
    size_t bytes_;
    void *resv_ = nullptr, *mapped_ = nullptr;
    symh_physmem_t *pm_ = nullptr;
    bool ok_ = false;
};

// Registers `buf` symmetrically, checks a put through the alias to the next PE arrives, and
// unregisters. Returns false (after a failed assertion) when a step fails.
bool register_put_unregister(const VmmBuffer &buf, int round, std::string &log)
{
    char *alias = nullptr;
    log += symh_captured_log(
        [&] { alias = static_cast<char *>(symh_buffer_register_symmetric(buf.data(), 2 * page)); });
    EXPECT_NE(nullptr, alias) << "round " << round << ": " << symh_status_string(symh_last_error())
                              << "\n"
                              << log;
    if (alias == nullptr)
        return false;
    const int next = (me() + 1) % npes(), prev = (me() + npes() - 1) % npes();
    const char value = (char)(round * 7 + me());
    if (symh_pe_accessible(next))
        symh_char_p(alias + round % page, value, next);
    symh_barrier_all();
    if (symh_pe_accessible(prev)) {
        EXPECT_EQ((char)(round * 7 + prev), buf.data()[round % page]) << "round " << round;
    }
    symh_barrier_all();
    EXPECT_EQ(SYMH_OK, symh_buffer_unregister_symmetric(alias));
    return true;
}

// Every captured line must be a refusal of the outsider (`pid`, `uid`) or the log's count of
// refusals it suppressed (core_log.c's per-site limit); returns the refusals logged on this PE.
long check_refusals(const std::string &log, pid_t pid, uid_t uid)
{
    const std::string who =
        "refused a connection from pid " + std::to_string(pid) + " uid " + std::to_string(uid);
    std::istringstream lines(log);
    std::string line;
    long refusals = 0;
    while (std::getline(lines, line)) {
        if (line.find(who) != std::string::npos)
            ++refusals;
        else
            EXPECT_NE(std::string::npos, line.find("suppressed")) << "unexpected: " << line;
    }
    return refusals;
}

class IpcGuard : public SymhTest
{
  protected:
    // Starts the outsider on PE 0 (as `uid` through setpriv when `other_uid`), runs symh_init
    // and register/put/unregister rounds until the outsider connected at least once and some PE
    // refused it (at least 50 rounds, at most 30 s), finalizes, and checks what it got.
    void race(bool other_uid)
    {
        const uid_t uid = other_uid ? 65534 : geteuid();
        int started = 0, pid = 0;
        Outsider outsider;
        if (me() == 0) {
            std::vector<std::string> args;
            if (other_uid)
                args = { SYMH_TEST_SETPRIV, "--reuid=65534", "--regid=65534", "--clear-groups" };
            args.push_back(SYMH_TEST_IPC_OUTSIDER);
            started = outsider.start(args);
            pid = (int)outsider.pid();
        }
        MPI_Bcast(&started, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
        ASSERT_TRUE(started) << "cannot start the outsider";

        std::string log;
        int status = SYMH_ERR_SYSTEM;
        log += symh_captured_log([&] { status = symh_init(); });
        ASSERT_EQ(SYMH_OK, status) << log;
        {
            VmmBuffer buf(4);
            ASSERT_TRUE(buf.ok());
            const auto begin = std::chrono::steady_clock::now();
            int go = 1, round = 0;
            for (; go; ++round) {
                ASSERT_TRUE(register_put_unregister(buf, round, log));
                if (round % 10 != 9)
                    continue;
                long refusals = sum_over_pes(check_refusals(log, pid, uid));
                if (me() == 0) {
                    double s =
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
                            .count();
                    bool done = round >= 49 && refusals > 0 && outsider.poll_counts().connects > 0;
                    go = !done && s < 30;
                }
                MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
            }
            if (me() == 0)
                printf("[ %d rounds, the outsider connected %ld times ]\n", round,
                       outsider.poll_counts().connects);
        }
        log += symh_captured_log([] { symh_finalize(); });
        long refusals = sum_over_pes(check_refusals(log, pid, uid));

        long counts[3] = { 0, 0, 0 };
        if (me() == 0) {
            const OutsiderCounts &c = outsider.stop();
            counts[0] = c.connects;
            counts[1] = c.descriptors;
            counts[2] = c.replies;
            EXPECT_EQ(0, outsider.exit_status());
        }
        MPI_Bcast(counts, 3, MPI_LONG, 0, MPI_COMM_WORLD);
        EXPECT_EQ(0, counts[1]) << "the outsider received descriptors of a PE's memory";
        EXPECT_EQ(0, counts[2]) << "the outsider received bytes from a PE";
        EXPECT_GT(counts[0], 0) << "the outsider never connected: the test proved nothing";
        EXPECT_GT(refusals, 0) << "no PE logged refusing the outsider";
    }
};

TEST_F(IpcGuard, OutsiderOfAnotherUidGetsNoDescriptor)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to run the outsider as another uid";
    race(true);
}

TEST_F(IpcGuard, OutsiderOfTheSameUidGetsNoDescriptor)
{
    race(false);
}

struct ProbeCounts {
    std::atomic<long> connects{ 0 }, descriptors{ 0 }, replies{ 0 };
};

void count_probe(char what, void *arg)
{
    ProbeCounts *counts = static_cast<ProbeCounts *>(arg);
    if (what == 'c')
        ++counts->connects;
    else if (what == 'f')
        ++counts->descriptors;
    else if (what == 'b')
        ++counts->replies;
}

// A thread of each PE's process probes every exchange with a request that claims its own PE,
// the exchange of symh_init (tag 0) and a zero secret: the kernel vouches for it (our uid, a
// peer's pid), only the secret is wrong. Cycles of init, registrations and finalize until some PE
// refused it for the secret (at least 3 cycles, at most 30 s); it gets nothing and the job goes on.
TEST_F(IpcGuard, AForgerInsideAPeProcessLacksTheSecret)
{
    // symh_tl_ipc_request_t of tl_ipc.c: PE, padding, tag, the 32-byte secret.
    struct {
        int32_t pe, pad;
        uint64_t tag;
        uint8_t secret[32];
    } forged = { me(), 0, 0, {} };
    ProbeCounts counts;
    symh_ipc_probe_t probe = { count_probe, &counts, &forged, sizeof(forged) };
    std::atomic<bool> stop{ false };
    std::thread forger([&] {
        unsigned long attempt = 0;
        while (!stop)
            symh_ipc_probe_scan(&probe, &attempt);
    });

    const auto begin = std::chrono::steady_clock::now();
    long secret_refusals = 0;
    int go = 1, cycle = 0;
    std::string log;
    for (; go; ++cycle) {
        int status = SYMH_ERR_SYSTEM;
        log += symh_captured_log([&] { status = symh_init(); });
        EXPECT_EQ(SYMH_OK, status) << log;
        if (status != SYMH_OK)
            break;
        {
            VmmBuffer buf(4);
            EXPECT_TRUE(buf.ok());
            for (int round = 0; round < 5 && buf.ok(); ++round)
                if (!register_put_unregister(buf, round, log))
                    break;
        }
        log += symh_captured_log([] { symh_finalize(); });
        secret_refusals = sum_over_pes((long)symh_test::count_lines(log, ": wrong secret"));
        long connects = sum_over_pes(counts.connects);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        go = !(cycle >= 2 && secret_refusals > 0 && connects > 0) && s < 30;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    stop = true;
    forger.join();
    if (me() == 0)
        printf("[ %d cycles, %ld refusals for the secret ]\n", cycle, secret_refusals);

    std::istringstream lines(log);
    std::string line;
    while (std::getline(lines, line))
        EXPECT_TRUE(line.find("IPC setup: refused a connection from pid ") != std::string::npos ||
                    line.find("suppressed") != std::string::npos)
            << "unexpected: " << line;
    EXPECT_EQ(0, sum_over_pes(counts.descriptors)) << "the forger received descriptors";
    EXPECT_EQ(0, sum_over_pes(counts.replies)) << "the forger received bytes from a PE";
    EXPECT_GT(sum_over_pes(counts.connects), 0) << "the forger never connected";
    EXPECT_GT(secret_refusals, 0) << "no PE refused the forger for its secret";
}

// A socket bound under `name` in the abstract namespace, as a squatter would (-1 on failure).
int squat(const std::string &name)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path + 1, name.c_str(), name.size());
    int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock >= 0 &&
        (bind(sock, (struct sockaddr *)&addr,
              (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + name.size())) != 0 ||
         listen(sock, 4) != 0)) {
        close(sock);
        sock = -1;
    }
    return sock;
}

// Each PE's first name is held by another socket, at init and at a registration: the exchange
// says so once, binds another name and succeeds (the job's RMA through the region works).
TEST_F(IpcGuard, ASquattedSocketNameIsSkipped)
{
    const std::string held = "symheap-squatted-" + std::to_string(getpid()) + "-";
    const std::string expected_line = "socket name @" + held;
    int init_sock = squat(held + "init"), reg_sock = squat(held + "reg");
    ASSERT_GE(init_sock, 0);
    ASSERT_GE(reg_sock, 0);

    symh_shim_ipc_set_next_name((held + "init").c_str());
    int status = SYMH_ERR_SYSTEM;
    std::string log = symh_captured_log([&] { status = symh_init(); });
    ASSERT_EQ(SYMH_OK, status) << log;
    EXPECT_EQ(1u, symh_test::log_lines(log)) << log;
    EXPECT_NE(std::string::npos, log.find(expected_line + "init is held by another process"))
        << log;
    EXPECT_EQ(0, strncmp(symh_shim_ipc_last_name(), "symheap-", 8));
    EXPECT_NE(held + "init", symh_shim_ipc_last_name());
    {
        VmmBuffer buf(4);
        ASSERT_TRUE(buf.ok());
        symh_shim_ipc_set_next_name((held + "reg").c_str());
        log.clear();
        ASSERT_TRUE(register_put_unregister(buf, 1, log));
        EXPECT_EQ(1u, symh_test::log_lines(log)) << log;
        EXPECT_NE(std::string::npos, log.find(expected_line + "reg is held by another process"))
            << log;
        EXPECT_NE(held + "reg", symh_shim_ipc_last_name());
        // No squatter: the next exchange binds at once and logs nothing.
        log.clear();
        ASSERT_TRUE(register_put_unregister(buf, 2, log));
        EXPECT_EQ("", log);
    }
    symh_finalize();
    close(init_sock);
    close(reg_sock);
}

} // namespace
