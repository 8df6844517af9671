/* transport: node-local IPC: exchange of the window's physical objects over UNIX-domain sockets
 * (SCM_RIGHTS) and the mapping of every IPC peer's window at the same offsets as ours.
 *
 * The descriptors are the PE's memory, read-write, so the exchange hands them only to the peer
 * it is meant for (docs/transports.md "Node-local exchange: threat model"). Per exchange, each PE
 * binds a listening socket under a fresh random abstract name (16 random bytes; a name taken by
 * someone else is skipped, up to 16 tries) and the bootstrap allgathers the names, so nobody can
 * squat a name in advance. A client checks the listener's kernel credentials (SO_PEERCRED: our
 * uid, the pid the bootstrap gave for that PE) before it sends anything, then sends its PE number,
 * the exchange's tag and the job's 32-byte secret (getrandom on PE 0, broadcast at init, never in
 * a name). The server checks the connection's credentials (our uid, the pid of a node-local peer
 * not yet served), then, within 5 s, the request (the secret, compared in constant time, that
 * PE, this tag); only then does it send the hello and the descriptors. A connection failing any
 * check is closed and logged (one line each) and does not count as a peer; strangers are refused
 * at accept, before anything is read, so they cannot stall the exchange. */
#include "transport/tl_ipc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <symheap/status.h>

#include "bootstrap/boot.h"
#include "core/core_config.h"
#include "core/core_log.h"
#include "transport/tl_data.h"
#include "transport/tl_route.h"

/* How long a PE waits for a node-local peer to connect before giving up (a peer that died). */
#define SYMH_TL_IPC_TIMEOUT_MS 60000
/* How long the server waits for the request of a connection whose credentials are a peer's: the
 * peer sends it right after connecting; 5 s covers a peer descheduled on an oversubscribed
 * node. */
#define SYMH_TL_IPC_REQUEST_TIMEOUT_MS 5000
#define SYMH_TL_IPC_SECRET_BYTES       32
#define SYMH_TL_IPC_NAME_RANDOM_BYTES  16
/* "symheap-" + 32 hex digits + NUL, rounded up. */
#define SYMH_TL_IPC_NAME_MAX   48
#define SYMH_TL_IPC_BIND_TRIES 16

symh_tl_window_t symh_tl_window;

/* What a PE sends with its file descriptors, so the receiver can check and lay them out: the
 * window at init (tag 0), or one symmetric region (tag 1 + its offset in the symmetric area). At
 * init, when data_size is not 0, the last object is the executable's data segment (tl_data.h):
 * its pages, whose symmetric bytes start data_skip bytes in; its offset field is unused. */
typedef struct {
    int32_t pe;
    int32_t status; /* not SYMH_OK: this PE failed before it could share (no descriptors) */
    int32_t n_objects;
    int32_t pad;
    uint64_t tag;
    uint64_t window_size;
    uint64_t alignment;
    uint64_t heap_offset;
    uint64_t data_size;
    uint64_t data_skip;
    uint64_t offset[SYMH_TL_IPC_MAX_OBJECTS];     /* where in the window */
    uint64_t mem_offset[SYMH_TL_IPC_MAX_OBJECTS]; /* from where in the object */
    uint64_t size[SYMH_TL_IPC_MAX_OBJECTS];
} symh_tl_ipc_hello_t;

/* What a client sends once it has checked the listener's credentials. */
typedef struct {
    int32_t pe;
    int32_t pad;
    uint64_t tag;
    uint8_t secret[SYMH_TL_IPC_SECRET_BYTES];
} symh_tl_ipc_request_t;

typedef struct {
    char *reservation;
    size_t reservation_size;
    int n_mapped;
    size_t offset[SYMH_TL_WINDOW_OBJECTS];
    size_t size[SYMH_TL_WINDOW_OBJECTS];
    char *data_reservation; /* the peer's data segment, mapped whole */
    size_t data_reservation_size;
} symh_tl_ipc_peer_t;

/* symh_tl_ipc_fetch: the peer's socket does not exist here (not a status of the API). */
#define SYMH_TL_IPC_UNREACHABLE (-1000)

static struct {
    symh_tl_ipc_peer_t *peers; /* n_pes entries; only IPC peers are filled */
    char **bases;              /* n_pes entries: see symh_tl_ipc_peer_base */
    char **data_bases;         /* n_pes entries: see symh_tl_ipc_peer_data */
    int32_t *pids;             /* n_pes entries: every PE's process id, from the bootstrap */
    char (*names)[SYMH_TL_IPC_NAME_MAX]; /* n_pes entries: this exchange's socket names */
    char *served;                        /* n_pes entries: the server's, per exchange */
    int n_pes;
    int n_peers;                              /* node-local peers routed through IPC */
    uint8_t secret[SYMH_TL_IPC_SECRET_BYTES]; /* the job's, from PE 0 */
} symh_tl_ipc;

/* Test hooks (symh_tl_ipc_set_next_name); they outlive symh_tl_ipc_fini. */
static char symh_tl_ipc_next_name[SYMH_TL_IPC_NAME_MAX];
static char symh_tl_ipc_bound_name[SYMH_TL_IPC_NAME_MAX];

/* The server side: accepts connections until `expected` peers are served and hands each the
 * hello and our fds. */
typedef struct {
    int listen_fd;
    int cancel_fd; /* readable: stop waiting (a node-local peer cannot reach us, or we it) */
    int expected;
    const int *fds;
    const symh_tl_ipc_hello_t *hello;
    int status;
} symh_tl_ipc_server_t;

/* What the exchange does with each peer's hello and descriptors. */
typedef int (*symh_tl_ipc_take_fn)(int pe, const symh_tl_ipc_hello_t *hello, const int *fds,
                                   void *arg);

static int symh_tl_ipc_errno(const char *call)
{
    symh_error("IPC setup: %s failed: %s", call, strerror(errno));
    return SYMH_ERR_TRANSPORT;
}

/* Abstract socket names vanish with their last descriptor. */
static socklen_t symh_tl_ipc_address(const char *name, struct sockaddr_un *addr)
{
    size_t len = strnlen(name, SYMH_TL_IPC_NAME_MAX - 1);

    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    memcpy(addr->sun_path + 1, name, len);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
}

static int64_t symh_tl_ipc_now_ms(void)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void symh_tl_ipc_set_timeouts(int sock, int ms)
{
    struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

    /* Best effort: without them a silent peer only waits for the overall timeout. */
    (void)setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    (void)setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int symh_tl_ipc_peer_cred(int sock, struct ucred *cred)
{
    socklen_t len = sizeof(*cred);

    if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, cred, &len) == 0 && len == sizeof(*cred))
        return SYMH_OK;
    cred->pid = 0;
    cred->uid = (uid_t)-1;
    return SYMH_ERR_TRANSPORT;
}

static int symh_tl_ipc_is_peer(int pe)
{
    return pe != symh_boot_info.my_pe && symh_tl_route_of(pe) == SYMH_TL_IPC;
}

/* The node-local IPC peer whose process is `pid`, or -1. */
static int symh_tl_ipc_pe_of_pid(pid_t pid)
{
    int pe;

    for (pe = 0; pe < symh_tl_ipc.n_pes; ++pe)
        if (symh_tl_ipc.pids[pe] == pid && symh_tl_ipc_is_peer(pe))
            return pe;
    return -1;
}

/* Compares in time independent of where the first difference is. */
static int symh_tl_ipc_secret_matches(const uint8_t *secret)
{
    unsigned diff = 0;
    size_t i;

    for (i = 0; i < SYMH_TL_IPC_SECRET_BYTES; ++i)
        diff |= (unsigned)(secret[i] ^ symh_tl_ipc.secret[i]);
    return diff == 0;
}

/* Checks an accepted connection; returns the peer it is, or -1 (logged) to refuse it. */
static int symh_tl_ipc_admit(const symh_tl_ipc_server_t *server, int conn, const char *served)
{
    symh_tl_ipc_request_t req;
    struct ucred cred;
    const char *why = NULL;
    int pe = -1;

    /* The process must be a node-local PE of this job; which one, its request says (process
     * ids are unique on a host, but the table holds every host's: PID namespaces repeat them). */
    if (symh_tl_ipc_peer_cred(conn, &cred) != SYMH_OK)
        why = "its credentials are unknown";
    else if (cred.uid != geteuid())
        why = "another user";
    else if (symh_tl_ipc_pe_of_pid(cred.pid) < 0)
        why = "not a node-local PE of this job";
    if (why == NULL) {
        symh_tl_ipc_set_timeouts(conn, SYMH_TL_IPC_REQUEST_TIMEOUT_MS);
        if (recv(conn, &req, sizeof(req), MSG_WAITALL) != (ssize_t)sizeof(req))
            why = "no request";
        else if (!symh_tl_ipc_secret_matches(req.secret))
            why = "wrong secret";
        else if (req.pe < 0 || req.pe >= symh_tl_ipc.n_pes || !symh_tl_ipc_is_peer(req.pe) ||
                 symh_tl_ipc.pids[req.pe] != cred.pid)
            why = "it claims to be another PE";
        else if (served[pe = req.pe])
            why = "that PE was served already";
        else if (req.tag != server->hello->tag)
            why = "it asks for another exchange";
    }
    if (why == NULL)
        return pe;
    /* One line per connection; the log's per-site limit (core_log.c) keeps a prober in a loop
     * from flooding it. */
    symh_warn("IPC setup: refused a connection from pid %ld uid %ld: %s", (long)cred.pid,
              cred.uid == (uid_t)-1 ? -1L : (long)cred.uid, why);
    return -1;
}

static void *symh_tl_ipc_serve(void *arg)
{
    symh_tl_ipc_server_t *server = arg;
    char control[CMSG_SPACE(sizeof(int) * SYMH_TL_IPC_MAX_OBJECTS)];
    size_t n_fds = (size_t)server->hello->n_objects;
    int64_t deadline = symh_tl_ipc_now_ms() + SYMH_TL_IPC_TIMEOUT_MS;
    char *served = symh_tl_ipc.served;
    int n_served = 0;

    memset(served, 0, (size_t)symh_tl_ipc.n_pes);
    while (n_served < server->expected) {
        struct pollfd pfd[2] = { { .fd = server->listen_fd, .events = POLLIN },
                                 { .fd = server->cancel_fd, .events = POLLIN } };
        struct iovec iov = { .iov_base = (void *)server->hello, .iov_len = sizeof(*server->hello) };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
        int64_t left = deadline - symh_tl_ipc_now_ms();
        struct cmsghdr *cmsg;
        int conn, ret, pe;

        ret = left > 0 ? poll(pfd, 2, (int)left) : 0;
        if (ret < 0 && errno == EINTR)
            continue;
        if (ret > 0 && pfd[1].revents != 0) { /* the exchange failed everywhere: said so */
            server->status = SYMH_ERR_TRANSPORT;
            break;
        }
        if (ret <= 0) {
            symh_error("IPC setup: %d of %d node-local peers did not connect within %d s",
                       server->expected - n_served, server->expected,
                       SYMH_TL_IPC_TIMEOUT_MS / 1000);
            server->status = SYMH_ERR_TRANSPORT;
            break;
        }
        conn = accept4(server->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (conn < 0 && (errno == EINTR || errno == ECONNABORTED))
            continue;
        if (conn < 0) {
            server->status = symh_tl_ipc_errno("accept4");
            break;
        }
        pe = symh_tl_ipc_admit(server, conn, served);
        if (pe < 0) {
            close(conn);
            continue;
        }
        if (n_fds > 0) {
            memset(control, 0, sizeof(control));
            msg.msg_control = control;
            msg.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
            cmsg = CMSG_FIRSTHDR(&msg);
            cmsg->cmsg_level = SOL_SOCKET;
            cmsg->cmsg_type = SCM_RIGHTS;
            cmsg->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
            memcpy(CMSG_DATA(cmsg), server->fds, sizeof(int) * n_fds);
        }
        ret = (int)sendmsg(conn, &msg, MSG_NOSIGNAL);
        close(conn);
        if (ret != (int)sizeof(*server->hello)) {
            server->status = symh_tl_ipc_errno("sendmsg(SCM_RIGHTS)");
            break;
        }
        served[pe] = 1;
        ++n_served;
    }
    return NULL;
}

/* Receives PE pe's hello and descriptors (fds[i] = -1 past hello->n_objects) from its socket
 * `name`, once the socket is known to be that PE's. A socket name that does not exist here
 * (ECONNREFUSED: the peer listens, every PE knows it, so it listens elsewhere: another host or
 * network namespace) is SYMH_ERR_UNREACHABLE, unlogged: the exchange says it once for the job. */
static int symh_tl_ipc_fetch(int pe, const char *name, uint64_t tag, symh_tl_ipc_hello_t *hello,
                             int *fds)
{
    char control[CMSG_SPACE(sizeof(int) * SYMH_TL_IPC_MAX_OBJECTS)];
    struct iovec iov = { .iov_base = hello, .iov_len = sizeof(*hello) };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
    symh_tl_ipc_request_t req = { .pe = symh_boot_info.my_pe, .tag = tag };
    struct sockaddr_un addr;
    socklen_t len = symh_tl_ipc_address(name, &addr);
    struct cmsghdr *cmsg;
    struct ucred cred;
    int sock, status = SYMH_OK, i, n_fds = 0;
    ssize_t got;

    sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0)
        return symh_tl_ipc_errno("socket(AF_UNIX)");
    symh_tl_ipc_set_timeouts(sock, SYMH_TL_IPC_TIMEOUT_MS);
    if (connect(sock, (struct sockaddr *)&addr, len) != 0) {
        status = errno == ECONNREFUSED ? SYMH_TL_IPC_UNREACHABLE
                                       : symh_tl_ipc_errno("connect to a node-local peer");
        goto out;
    }
    if (symh_tl_ipc_peer_cred(sock, &cred) != SYMH_OK || cred.uid != geteuid() ||
        cred.pid != symh_tl_ipc.pids[pe]) {
        symh_error("IPC setup: the socket of PE %d (pid %ld) is held by pid %ld uid %ld: refused",
                   pe, (long)symh_tl_ipc.pids[pe], (long)cred.pid,
                   cred.uid == (uid_t)-1 ? -1L : (long)cred.uid);
        status = SYMH_ERR_TRANSPORT;
        goto out;
    }
    memcpy(req.secret, symh_tl_ipc.secret, sizeof(req.secret));
    got = send(sock, &req, sizeof(req), MSG_NOSIGNAL);
    memset(req.secret, 0, sizeof(req.secret));
    if (got != (ssize_t)sizeof(req)) {
        status = symh_tl_ipc_errno("send to a node-local peer");
        goto out;
    }
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    got = recvmsg(sock, &msg, MSG_WAITALL | MSG_CMSG_CLOEXEC);
    cmsg = got > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
    if (cmsg != NULL && cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) {
        n_fds = (int)((cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (i = 0; i < n_fds && i < SYMH_TL_IPC_MAX_OBJECTS; ++i)
            memcpy(&fds[i], CMSG_DATA(cmsg) + sizeof(int) * (size_t)i, sizeof(int));
    }
    if (got != (ssize_t)sizeof(*hello) || hello->pe != pe || hello->tag != tag ||
        (hello->status == SYMH_OK && (hello->n_objects < 1 || n_fds != hello->n_objects)) ||
        hello->n_objects > SYMH_TL_IPC_MAX_OBJECTS) {
        symh_error("IPC setup: PE %d sent a malformed description of its memory", pe);
        status = SYMH_ERR_TRANSPORT;
    }
out:
    close(sock);
    return status;
}

/* A fresh random socket name (or the test hook's, once). */
static int symh_tl_ipc_pick_name(char *name)
{
    uint8_t bytes[SYMH_TL_IPC_NAME_RANDOM_BYTES];
    int i, at;

    if (symh_tl_ipc_next_name[0] != '\0') {
        memcpy(name, symh_tl_ipc_next_name, SYMH_TL_IPC_NAME_MAX);
        symh_tl_ipc_next_name[0] = '\0';
        return SYMH_OK;
    }
    if (getrandom(bytes, sizeof(bytes), 0) != (ssize_t)sizeof(bytes))
        return symh_tl_ipc_errno("getrandom");
    at = snprintf(name, SYMH_TL_IPC_NAME_MAX, "symheap-");
    for (i = 0; i < (int)sizeof(bytes); ++i)
        at += snprintf(name + at, (size_t)(SYMH_TL_IPC_NAME_MAX - at), "%02x", bytes[i]);
    return SYMH_OK;
}

/* Binds a listening socket under a name nobody holds; `name` gets it. */
static int symh_tl_ipc_listen(int backlog, int *fd, char *name)
{
    struct sockaddr_un addr;
    int try, status = SYMH_OK;

    *fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*fd < 0)
        return symh_tl_ipc_errno("socket(AF_UNIX)");
    for (try = 0; try < SYMH_TL_IPC_BIND_TRIES; ++try) {
        status = symh_tl_ipc_pick_name(name);
        if (status != SYMH_OK)
            return status;
        if (bind(*fd, (struct sockaddr *)&addr, symh_tl_ipc_address(name, &addr)) == 0)
            break;
        if (errno != EADDRINUSE)
            return symh_tl_ipc_errno("bind (abstract UNIX socket)");
        symh_warn("IPC setup: socket name @%s is held by another process; trying another", name);
    }
    if (try == SYMH_TL_IPC_BIND_TRIES) {
        symh_error("IPC setup: %d socket names in a row were held by other processes", try);
        return SYMH_ERR_TRANSPORT;
    }
    memcpy(symh_tl_ipc_bound_name, name, SYMH_TL_IPC_NAME_MAX);
    /* Room for strangers too: they are accepted and refused, and must not keep peers waiting. */
    if (listen(*fd, backlog + 64) != 0)
        return symh_tl_ipc_errno("listen (abstract UNIX socket)");
    return SYMH_OK;
}

/* Collective (every PE, after a refused connection somewhere): says once, from the lowest PE that
 * could not reach a peer, which PEs on which hosts were grouped into one node and why that
 * cannot work; `code` = reporter * n_pes + peer. */
static void symh_tl_ipc_report_unreachable(int64_t code)
{
    int n = symh_tl_ipc.n_pes, reporter = (int)(code / n), peer = (int)(code % n);
    const char *hostid = symh_config_string(SYMH_CFG_HOSTID);
    char mine[64] = "", (*hosts)[64] = calloc((size_t)n, sizeof(*hosts));

    (void)gethostname(mine, sizeof(mine) - 1);
    if (hosts == NULL || symh_boot->allgather(mine, hosts, sizeof(mine)) != SYMH_OK) {
        free(hosts);
        hosts = NULL;
    }
    if (symh_boot_info.my_pe == reporter) {
        const char *a = hosts != NULL ? hosts[reporter] : "?",
                   *b = hosts != NULL ? hosts[peer] : "?";
        if (hostid[0] != '\0')
            symh_error("symh_init: PE %d (host %s) cannot reach PE %d (host %s) through node-local "
                       "IPC, yet SYMH_HOSTID=%s puts both on one node: give each host its own "
                       "SYMH_HOSTID (or unset it)",
                       reporter, a, peer, b, hostid);
        else
            symh_error("symh_init: PE %d (host %s) cannot reach PE %d (host %s) through node-local "
                       "IPC, yet MPI's shared-memory split puts both on one node (another network "
                       "namespace?): set SYMH_HOSTID to tell the hosts apart",
                       reporter, a, peer, b);
    }
    free(hosts);
}

/* Collective over all PEs: hands `hello` and `fds` to every node-local IPC peer and gives
 * `take` each peer's. Every PE takes every step even after a failure, so that no peer waits for
 * it; the caller agrees on the outcome. A peer whose hello carries a failure is not taken and
 * makes this PE's result SYMH_ERR_MISMATCH (that PE reports its own reason). */
static int symh_tl_ipc_exchange(const symh_tl_ipc_hello_t *hello, const int *fds,
                                symh_tl_ipc_take_fn take, void *arg)
{
    symh_tl_ipc_server_t server = { .listen_fd = -1,
                                    .cancel_fd = -1,
                                    .expected = symh_tl_ipc.n_peers,
                                    .fds = fds,
                                    .hello = hello };
    char mine[SYMH_TL_IPC_NAME_MAX] = "";
    int pe, i, status = SYMH_OK, serving = 0, cancel[2] = { -1, -1 };
    int64_t unreachable = INT64_MAX; /* reporter * n_pes + peer: the first refused connection */
    pthread_t thread;

    memset(&thread, 0, sizeof(thread)); /* joined only when `serving` */
    if (server.expected > 0)
        status = symh_tl_ipc_listen(server.expected, &server.listen_fd, mine);
    if (status != SYMH_OK)
        mine[0] = '\0'; /* peers skip this PE's server */
    /* Every PE takes this step, listening or not: after it every listener exists and every PE
     * knows its name (an empty one: that PE failed and reported why). */
    memset(symh_tl_ipc.names, 0, (size_t)symh_tl_ipc.n_pes * sizeof(*symh_tl_ipc.names));
    if (symh_boot->allgather(mine, symh_tl_ipc.names, sizeof(mine)) != SYMH_OK) {
        memset(symh_tl_ipc.names, 0, (size_t)symh_tl_ipc.n_pes * sizeof(*symh_tl_ipc.names));
        if (status == SYMH_OK)
            status = SYMH_ERR_BOOTSTRAP;
    }
    if (server.expected > 0 && status == SYMH_OK) {
        if (pipe2(cancel, O_CLOEXEC) != 0)
            status = symh_tl_ipc_errno("pipe2");
        server.cancel_fd = cancel[0];
    }
    if (server.expected > 0 && status == SYMH_OK) {
        if (pthread_create(&thread, NULL, symh_tl_ipc_serve, &server) != 0)
            status = SYMH_ERR_SYSTEM;
        else
            serving = 1;
    }
    if (!serving && server.listen_fd >= 0) {
        close(server.listen_fd); /* peers connecting now fail at once instead of waiting */
        server.listen_fd = -1;
    }
    /* Fetch from every peer even after a failure: each peer's server waits for this PE. */
    for (pe = 0; pe < symh_tl_ipc.n_pes && server.expected > 0; ++pe) {
        symh_tl_ipc_hello_t theirs;
        int their_fds[SYMH_TL_IPC_MAX_OBJECTS], got;

        if (!symh_tl_ipc_is_peer(pe))
            continue;
        for (i = 0; i < SYMH_TL_IPC_MAX_OBJECTS; ++i)
            their_fds[i] = -1;
        symh_tl_ipc.names[pe][SYMH_TL_IPC_NAME_MAX - 1] = '\0';
        if (symh_tl_ipc.names[pe][0] == '\0')
            got = SYMH_ERR_MISMATCH; /* that PE has no server; it said why */
        else
            got = symh_tl_ipc_fetch(pe, symh_tl_ipc.names[pe], hello->tag, &theirs, their_fds);
        if (got == SYMH_TL_IPC_UNREACHABLE) {
            if (unreachable == INT64_MAX)
                unreachable = (int64_t)symh_boot_info.my_pe * symh_tl_ipc.n_pes + pe;
            got = SYMH_ERR_TRANSPORT;
        }
        if (got == SYMH_OK && theirs.status != SYMH_OK)
            got = SYMH_ERR_MISMATCH;
        if (got == SYMH_OK && status == SYMH_OK)
            got = take(pe, &theirs, their_fds, arg);
        if (status == SYMH_OK)
            status = got;
        for (i = 0; i < SYMH_TL_IPC_MAX_OBJECTS; ++i)
            if (their_fds[i] >= 0)
                close(their_fds[i]);
    }
    /* A refused connection is final: that peer listens on another host, which will never
     * connect here either. Every PE learns of it at once (its server stops waiting for peers
     * that will not come) instead of after SYMH_TL_IPC_TIMEOUT_MS. */
    if (symh_boot->allreduce(&unreachable, 1, SYMH_BOOT_REDUCE_MIN) != SYMH_OK)
        unreachable = INT64_MAX;
    if (unreachable != INT64_MAX) {
        if (cancel[1] >= 0 && write(cancel[1], "x", 1) != 1)
            symh_debug("IPC setup: cannot wake the exchange's server: %s", strerror(errno));
        symh_tl_ipc_report_unreachable(unreachable);
        status = SYMH_ERR_TRANSPORT;
    }
    if (serving) {
        pthread_join(thread, NULL);
        if (status == SYMH_OK)
            status = server.status;
    }
    if (server.listen_fd >= 0)
        close(server.listen_fd);
    for (i = 0; i < 2; ++i)
        if (cancel[i] >= 0)
            close(cancel[i]);
    return status;
}

/* Maps PE pe's data segment (its pages, the last object of its hello) into a reservation of its
 * own: the segment's address differs between PEs (ASLR), so only the offset into it is shared. */
static int symh_tl_ipc_map_data(int pe, const symh_tl_ipc_hello_t *hello, int fd)
{
    symh_tl_ipc_peer_t *peer = &symh_tl_ipc.peers[pe];
    size_t size = hello->size[hello->n_objects - 1];
    symh_dev_mem_t *mem;
    int status;

    if (size != symh_tl_data_segment()->map_size) {
        symh_error("IPC setup: PE %d shares %zu bytes of data pages, this PE has %zu", pe, size,
                   symh_tl_data_segment()->map_size);
        return SYMH_ERR_MISMATCH;
    }
    status = symh_dev_host->reserve(size, symh_dev_host->granularity(0, 0),
                                    (void **)&peer->data_reservation);
    if (status != SYMH_OK)
        return status;
    peer->data_reservation_size = size;
    status = symh_dev_host->import_fd(fd, &mem);
    if (status != SYMH_OK)
        return status;
    status = symh_dev_host->map(mem, 0, peer->data_reservation, size, SYMH_DEV_ACCESS_READ_WRITE);
    symh_dev_host->mem_release(mem);
    if (status == SYMH_OK)
        symh_tl_ipc.data_bases[pe] = peer->data_reservation + hello->data_skip;
    return status;
}

/* Maps PE pe's window objects into a fresh window laid out like ours. */
static int symh_tl_ipc_map_peer(int pe, const symh_tl_ipc_hello_t *hello, const int *fds, void *arg)
{
    symh_tl_ipc_peer_t *peer = &symh_tl_ipc.peers[pe];
    int status, i;

    const symh_tl_data_segment_t *data = symh_tl_data_segment();
    int n_window = hello->n_objects - (hello->data_size != 0);

    (void)arg;
    if (hello->data_size != data->size || hello->data_skip != data->lo - data->map_lo) {
        /* The sizes were agreed at init: only a peer built otherwise gets here. */
        symh_error("IPC setup: PE %d has %" PRIu64 " bytes of globals (page offset %" PRIu64
                   "), this PE %zu (%zu): every PE must run the same executable",
                   pe, hello->data_size, hello->data_skip, data->size, data->lo - data->map_lo);
        return SYMH_ERR_MISMATCH;
    }
    if (hello->window_size != symh_tl_window.size ||
        hello->heap_offset != symh_tl_window.heap_offset || n_window > SYMH_TL_WINDOW_OBJECTS) {
        symh_error("IPC setup: PE %d has a %" PRIu64 "-byte window, this PE %zu: SYMH_HEAP_SIZE "
                   "and SYMH_SYMM_AREA_SIZE must be equal on every PE",
                   pe, hello->window_size, symh_tl_window.size);
        return SYMH_ERR_MISMATCH;
    }
    /* Heap at an aligned address, as ours: reserve one alignment unit more and start the
     * window heap_offset below the aligned point. */
    peer->reservation_size = hello->alignment + hello->window_size;
    status = symh_dev_host->reserve(peer->reservation_size, hello->alignment,
                                    (void **)&peer->reservation);
    if (status != SYMH_OK)
        return status;
    symh_tl_ipc.bases[pe] = peer->reservation + hello->alignment - hello->heap_offset;
    for (i = 0; i < n_window; ++i) {
        symh_dev_mem_t *mem;

        status = symh_dev_host->import_fd(fds[i], &mem);
        if (status != SYMH_OK)
            return status;
        status =
            symh_dev_host->map(mem, hello->mem_offset[i], symh_tl_ipc.bases[pe] + hello->offset[i],
                               hello->size[i], SYMH_DEV_ACCESS_READ_WRITE);
        symh_dev_host->mem_release(mem); /* the mapping keeps the memory */
        if (status != SYMH_OK)
            return status;
        peer->offset[i] = hello->offset[i];
        peer->size[i] = hello->size[i];
        peer->n_mapped = i + 1;
    }
    return hello->data_size != 0 ? symh_tl_ipc_map_data(pe, hello, fds[n_window]) : SYMH_OK;
}

/* Fills `hello` and exports the descriptors of `n` objects; on failure the hello carries the
 * status and no descriptors. */
static int symh_tl_ipc_prepare(symh_tl_ipc_hello_t *hello, int *fds, uint64_t tag, int n,
                               const symh_tl_ipc_object_t *objects, int status)
{
    int i;

    memset(hello, 0, sizeof(*hello));
    hello->pe = symh_boot_info.my_pe;
    hello->tag = tag;
    hello->window_size = symh_tl_window.size;
    hello->alignment = symh_tl_window.alignment;
    hello->heap_offset = symh_tl_window.heap_offset;
    for (i = 0; i < SYMH_TL_IPC_MAX_OBJECTS; ++i)
        fds[i] = -1;
    if (n < 1 || n > SYMH_TL_IPC_MAX_OBJECTS)
        status = status == SYMH_OK ? SYMH_ERR_INVALID_ARG : status;
    for (i = 0; i < n && status == SYMH_OK && symh_tl_ipc.n_peers > 0; ++i) {
        hello->offset[i] = objects[i].offset;
        hello->mem_offset[i] = objects[i].mem_offset;
        hello->size[i] = objects[i].size;
        status = symh_dev_host->export_fd(objects[i].mem, &fds[i]);
    }
    if (status != SYMH_OK) {
        for (i = 0; i < SYMH_TL_IPC_MAX_OBJECTS; ++i)
            if (fds[i] >= 0)
                close(fds[i]);
        for (i = 0; i < SYMH_TL_IPC_MAX_OBJECTS; ++i)
            fds[i] = -1;
        hello->status = status;
        return status;
    }
    hello->n_objects = n;
    return SYMH_OK;
}

static void symh_tl_ipc_close_all(int *fds)
{
    int i;

    for (i = 0; i < SYMH_TL_IPC_MAX_OBJECTS; ++i)
        if (fds[i] >= 0)
            close(fds[i]);
}

int symh_tl_ipc_init(const symh_tl_window_t *mine)
{
    int n = symh_boot_info.n_pes, me = symh_boot_info.my_pe, pe, status, prepared;
    symh_tl_ipc_object_t objects[SYMH_TL_WINDOW_OBJECTS + 1];
    const symh_tl_data_segment_t *data = symh_tl_data_segment();
    int n_objects = mine->n_objects;
    symh_tl_ipc_hello_t hello;
    int fds[SYMH_TL_IPC_MAX_OBJECTS];
    struct {
        int32_t status;
        uint8_t bytes[SYMH_TL_IPC_SECRET_BYTES];
    } secret;
    int32_t my_pid;

    symh_tl_window = *mine;
    symh_tl_ipc.n_pes = n;
    symh_tl_ipc.peers = calloc((size_t)n, sizeof(*symh_tl_ipc.peers));
    symh_tl_ipc.bases = calloc((size_t)n, sizeof(*symh_tl_ipc.bases));
    symh_tl_ipc.data_bases = calloc((size_t)n, sizeof(*symh_tl_ipc.data_bases));
    symh_tl_ipc.pids = calloc((size_t)n, sizeof(*symh_tl_ipc.pids));
    symh_tl_ipc.names = calloc((size_t)n, sizeof(*symh_tl_ipc.names));
    symh_tl_ipc.served = calloc((size_t)n, 1);
    status = SYMH_OK;
    if (symh_tl_ipc.peers == NULL || symh_tl_ipc.bases == NULL || symh_tl_ipc.data_bases == NULL ||
        symh_tl_ipc.pids == NULL || symh_tl_ipc.names == NULL || symh_tl_ipc.served == NULL) {
        symh_error("IPC setup: cannot allocate the tables of %d PEs", n);
        status = SYMH_ERR_NO_MEMORY;
    }
    /* Agreed before the first exchange: a PE without its tables cannot take part in the
     * exchanges below, so no PE starts them (and none waits for it). */
    status = symh_boot_agree(status, NULL);
    if (status != SYMH_OK)
        return status;
    symh_tl_ipc.bases[me] = mine->base;
    symh_tl_ipc.data_bases[me] = (char *)data->lo;
    for (pe = 0; pe < n; ++pe)
        symh_tl_ipc.n_peers += symh_tl_ipc_is_peer(pe);

    /* Collective steps every PE takes: every PE's pid (what the kernel reports for its
     * sockets), and the job's secret with PE 0's status (no secret: no PE goes on). */
    my_pid = (int32_t)getpid();
    status = symh_boot->allgather(&my_pid, symh_tl_ipc.pids, sizeof(my_pid));
    if (status != SYMH_OK)
        return status;
    memset(&secret, 0, sizeof(secret));
    if (me == 0 &&
        getrandom(secret.bytes, sizeof(secret.bytes), 0) != (ssize_t)sizeof(secret.bytes))
        secret.status = symh_tl_ipc_errno("getrandom (the job's secret)");
    status = symh_boot->bcast(&secret, sizeof(secret), 0);
    if (status == SYMH_OK)
        status = secret.status;
    memcpy(symh_tl_ipc.secret, secret.bytes, sizeof(symh_tl_ipc.secret));
    memset(&secret, 0, sizeof(secret));
    if (status != SYMH_OK)
        return status;

    for (pe = 0; pe < mine->n_objects && pe < SYMH_TL_WINDOW_OBJECTS; ++pe)
        objects[pe] = (symh_tl_ipc_object_t){ .mem = mine->objects[pe].mem,
                                              .offset = mine->objects[pe].offset,
                                              .size = mine->objects[pe].size };
    /* The executable's globals go with the window (the same authenticated exchange). */
    if (data->size != 0)
        objects[n_objects++] =
            (symh_tl_ipc_object_t){ .mem = data->mem, .offset = 0, .size = data->map_size };
    prepared = symh_tl_ipc_prepare(&hello, fds, 0, n_objects, objects, SYMH_OK);
    hello.data_size = data->size;
    hello.data_skip = data->lo - data->map_lo;
    status = symh_tl_ipc_exchange(&hello, fds, symh_tl_ipc_map_peer, NULL);
    symh_tl_ipc_close_all(fds);
    if (status == SYMH_OK)
        status = prepared;
    if (status == SYMH_OK)
        symh_debug("IPC: mapped the windows of %d node-local peers", symh_tl_ipc.n_peers);
    return status;
}

/* Maps PE pe's pieces of one symmetric region at the same offsets in our view of its window. */
static int symh_tl_ipc_map_region(int pe, const symh_tl_ipc_hello_t *hello, const int *fds,
                                  void *arg)
{
    const symh_tl_ipc_hello_t *mine = arg;
    char *base = symh_tl_ipc.bases[pe];
    int status = SYMH_OK, i;

    if (base == NULL || hello->n_objects != mine->n_objects) {
        symh_error("IPC: PE %d describes symmetric region +%#" PRIx64 " differently", pe,
                   hello->tag - 1);
        return SYMH_ERR_MISMATCH;
    }
    for (i = 0; i < hello->n_objects && status == SYMH_OK; ++i) {
        symh_dev_mem_t *mem;

        uint64_t off = hello->offset[i] - symh_tl_window.symm_offset;

        if (hello->offset[i] < symh_tl_window.symm_offset || off >= symh_tl_window.symm_size ||
            hello->size[i] > symh_tl_window.symm_size - off) {
            symh_error("IPC: PE %d shares a region outside the symmetric area", pe);
            return SYMH_ERR_TRANSPORT;
        }
        status = symh_dev_host->import_fd(fds[i], &mem);
        if (status != SYMH_OK)
            return status;
        status = symh_dev_host->map(mem, hello->mem_offset[i], base + hello->offset[i],
                                    hello->size[i], SYMH_DEV_ACCESS_READ_WRITE);
        symh_dev_host->mem_release(mem);
    }
    return status;
}

int symh_tl_ipc_share(size_t symm_offset, int n, const symh_tl_ipc_object_t *objects, int status)
{
    symh_tl_ipc_hello_t hello;
    int fds[SYMH_TL_IPC_MAX_OBJECTS], prepared;

    prepared = symh_tl_ipc_prepare(&hello, fds, 1 + (uint64_t)symm_offset, n, objects, status);
    status = symh_tl_ipc_exchange(&hello, fds, symh_tl_ipc_map_region, &hello);
    symh_tl_ipc_close_all(fds);
    return prepared != SYMH_OK ? prepared : status;
}

void symh_tl_ipc_unshare(size_t offset, size_t size)
{
    int pe;

    for (pe = 0; symh_tl_ipc.bases != NULL && pe < symh_tl_ipc.n_pes; ++pe)
        if (symh_tl_ipc_is_peer(pe) && symh_tl_ipc.bases[pe] != NULL)
            symh_dev_host->unmap(symh_tl_ipc.bases[pe] + offset, size);
}

void symh_tl_ipc_fini(void)
{
    int pe, i;

    for (pe = 0; symh_tl_ipc.peers != NULL && pe < symh_tl_ipc.n_pes; ++pe) {
        symh_tl_ipc_peer_t *peer = &symh_tl_ipc.peers[pe];

        if (peer->reservation == NULL)
            continue;
        for (i = 0; i < peer->n_mapped; ++i)
            symh_dev_host->unmap(symh_tl_ipc.bases[pe] + peer->offset[i], peer->size[i]);
        symh_dev_host->release(peer->reservation, peer->reservation_size);
    }
    for (pe = 0; symh_tl_ipc.peers != NULL && pe < symh_tl_ipc.n_pes; ++pe)
        if (symh_tl_ipc.peers[pe].data_reservation != NULL)
            symh_dev_host->release(symh_tl_ipc.peers[pe].data_reservation,
                                   symh_tl_ipc.peers[pe].data_reservation_size);
    free(symh_tl_ipc.peers);
    free(symh_tl_ipc.bases);
    free(symh_tl_ipc.data_bases);
    free(symh_tl_ipc.pids);
    free(symh_tl_ipc.names);
    free(symh_tl_ipc.served);
    memset(&symh_tl_ipc, 0, sizeof(symh_tl_ipc));
    memset(&symh_tl_window, 0, sizeof(symh_tl_window));
}

char *symh_tl_ipc_peer_base(int pe)
{
    if (symh_tl_ipc.bases == NULL || pe < 0 || pe >= symh_tl_ipc.n_pes)
        return NULL;
    return symh_tl_ipc.bases[pe];
}

char *symh_tl_ipc_peer_data(int pe)
{
    if (symh_tl_ipc.data_bases == NULL || pe < 0 || pe >= symh_tl_ipc.n_pes)
        return NULL;
    return symh_tl_ipc.data_bases[pe];
}

void symh_tl_ipc_set_next_name(const char *name)
{
    snprintf(symh_tl_ipc_next_name, sizeof(symh_tl_ipc_next_name), "%s", name);
}

const char *symh_tl_ipc_last_name(void)
{
    return symh_tl_ipc_bound_name;
}
