/* transport: node-local IPC: exchange of the window's physical objects over UNIX-domain sockets
 * (SCM_RIGHTS) and the mapping of every IPC peer's window at the same offsets as ours. */
#include "transport/tl_ipc.h"

#include <errno.h>
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
#include "core/core_log.h"
#include "transport/tl_route.h"

/* How long a PE waits for a node-local peer to connect before giving up (a peer that died). */
#define SYMH_TL_IPC_TIMEOUT_MS 60000

symh_tl_window_t symh_tl_window;

/* What a PE sends with its file descriptors, so the receiver can check and lay them out: the
 * window at init (tag 0), or one symmetric region (tag 1 + its offset in the symmetric area). */
typedef struct {
    int32_t pe;
    int32_t status; /* not SYMH_OK: this PE failed before it could share (no descriptors) */
    int32_t n_objects;
    int32_t pad;
    uint64_t tag;
    uint64_t window_size;
    uint64_t alignment;
    uint64_t heap_offset;
    uint64_t offset[SYMH_TL_IPC_MAX_OBJECTS];     /* where in the window */
    uint64_t mem_offset[SYMH_TL_IPC_MAX_OBJECTS]; /* from where in the object */
    uint64_t size[SYMH_TL_IPC_MAX_OBJECTS];
} symh_tl_ipc_hello_t;

typedef struct {
    char *reservation;
    size_t reservation_size;
    int n_mapped;
    size_t offset[SYMH_TL_WINDOW_OBJECTS];
    size_t size[SYMH_TL_WINDOW_OBJECTS];
} symh_tl_ipc_peer_t;

static struct {
    symh_tl_ipc_peer_t *peers; /* n_pes entries; only IPC peers are filled */
    char **bases;              /* n_pes entries: see symh_tl_ipc_peer_base */
    int n_pes;
    int n_peers;    /* node-local peers routed through IPC */
    uint64_t token; /* the job's socket namespace, from PE 0 */
} symh_tl_ipc;

/* The server side: accepts `expected` connections and hands each the hello and our fds. */
typedef struct {
    int listen_fd;
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

/* Abstract socket names vanish with their last descriptor and cannot collide between jobs:
 * the token is random and shared by all PEs of this job. */
static socklen_t symh_tl_ipc_address(int pe, struct sockaddr_un *addr)
{
    int len;

    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    len = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, "symheap-%016" PRIx64 "-%d",
                   symh_tl_ipc.token, pe);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len);
}

static void *symh_tl_ipc_serve(void *arg)
{
    symh_tl_ipc_server_t *server = arg;
    char control[CMSG_SPACE(sizeof(int) * SYMH_TL_IPC_MAX_OBJECTS)];
    size_t n_fds = (size_t)server->hello->n_objects;
    int served;

    for (served = 0; served < server->expected; ++served) {
        struct pollfd pfd = { .fd = server->listen_fd, .events = POLLIN };
        struct iovec iov = { .iov_base = (void *)server->hello, .iov_len = sizeof(*server->hello) };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
        struct cmsghdr *cmsg;
        int conn, ret;

        ret = poll(&pfd, 1, SYMH_TL_IPC_TIMEOUT_MS);
        if (ret <= 0) {
            symh_error("IPC setup: %d of %d node-local peers did not connect within %d s",
                       server->expected - served, server->expected, SYMH_TL_IPC_TIMEOUT_MS / 1000);
            server->status = SYMH_ERR_TRANSPORT;
            return NULL;
        }
        conn = accept4(server->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (conn < 0) {
            server->status = symh_tl_ipc_errno("accept4");
            return NULL;
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
            return NULL;
        }
    }
    return NULL;
}

/* Receives PE pe's hello and descriptors (fds[i] = -1 past hello->n_objects). */
static int symh_tl_ipc_fetch(int pe, uint64_t tag, symh_tl_ipc_hello_t *hello, int *fds)
{
    char control[CMSG_SPACE(sizeof(int) * SYMH_TL_IPC_MAX_OBJECTS)];
    struct iovec iov = { .iov_base = hello, .iov_len = sizeof(*hello) };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
    struct sockaddr_un addr;
    socklen_t len = symh_tl_ipc_address(pe, &addr);
    struct cmsghdr *cmsg;
    int sock, status = SYMH_OK, i, n_fds = 0;
    ssize_t got;

    sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0)
        return symh_tl_ipc_errno("socket(AF_UNIX)");
    if (connect(sock, (struct sockaddr *)&addr, len) != 0) {
        status = symh_tl_ipc_errno("connect to a node-local peer");
        goto out;
    }
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    got = recvmsg(sock, &msg, MSG_WAITALL | MSG_CMSG_CLOEXEC);
    cmsg = CMSG_FIRSTHDR(&msg);
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

static int symh_tl_ipc_is_peer(int pe)
{
    return pe != symh_boot_info.my_pe && symh_tl_route_of(pe) == SYMH_TL_IPC;
}

/* Collective over all PEs: hands `hello` and `fds` to every node-local IPC peer and gives
 * `take` each peer's. Every PE takes every step even after a failure, so that no peer waits for
 * it; the caller agrees on the outcome. A peer whose hello carries a failure is not taken and
 * makes this PE's result SYMH_ERR_MISMATCH (that PE reports its own reason). */
static int symh_tl_ipc_exchange(const symh_tl_ipc_hello_t *hello, const int *fds,
                                symh_tl_ipc_take_fn take, void *arg)
{
    symh_tl_ipc_server_t server = {
        .listen_fd = -1, .expected = symh_tl_ipc.n_peers, .fds = fds, .hello = hello
    };
    int me = symh_boot_info.my_pe, pe, i, status = SYMH_OK, serving = 0;
    struct sockaddr_un addr;
    socklen_t len;
    pthread_t thread;

    if (server.expected > 0) {
        server.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        len = symh_tl_ipc_address(me, &addr);
        if (server.listen_fd < 0 || bind(server.listen_fd, (struct sockaddr *)&addr, len) != 0 ||
            listen(server.listen_fd, server.expected) != 0)
            status = symh_tl_ipc_errno("socket/bind/listen (abstract UNIX socket)");
    }
    /* Every PE passes this barrier, listening or not: after it every listener exists. */
    if (symh_boot->barrier() != SYMH_OK && status == SYMH_OK)
        status = SYMH_ERR_BOOTSTRAP;
    if (server.expected > 0 && status == SYMH_OK) {
        if (pthread_create(&thread, NULL, symh_tl_ipc_serve, &server) != 0)
            status = SYMH_ERR_SYSTEM;
        else
            serving = 1;
    }
    /* Fetch from every peer even after a failure: each peer's server waits for this PE. */
    for (pe = 0; pe < symh_tl_ipc.n_pes && server.expected > 0; ++pe) {
        symh_tl_ipc_hello_t theirs;
        int their_fds[SYMH_TL_IPC_MAX_OBJECTS], got;

        if (!symh_tl_ipc_is_peer(pe))
            continue;
        for (i = 0; i < SYMH_TL_IPC_MAX_OBJECTS; ++i)
            their_fds[i] = -1;
        got = symh_tl_ipc_fetch(pe, hello->tag, &theirs, their_fds);
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
    if (serving) {
        pthread_join(thread, NULL);
        if (status == SYMH_OK)
            status = server.status;
    }
    if (server.listen_fd >= 0)
        close(server.listen_fd);
    return status;
}

/* Maps PE pe's window objects into a fresh window laid out like ours. */
static int symh_tl_ipc_map_peer(int pe, const symh_tl_ipc_hello_t *hello, const int *fds, void *arg)
{
    symh_tl_ipc_peer_t *peer = &symh_tl_ipc.peers[pe];
    int status, i;

    (void)arg;
    if (hello->window_size != symh_tl_window.size ||
        hello->heap_offset != symh_tl_window.heap_offset ||
        hello->n_objects > SYMH_TL_WINDOW_OBJECTS) {
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
    for (i = 0; i < hello->n_objects; ++i) {
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
    return SYMH_OK;
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
    symh_tl_ipc_object_t objects[SYMH_TL_WINDOW_OBJECTS];
    symh_tl_ipc_hello_t hello;
    int fds[SYMH_TL_IPC_MAX_OBJECTS];

    symh_tl_window = *mine;
    symh_tl_ipc.n_pes = n;
    symh_tl_ipc.peers = calloc((size_t)n, sizeof(*symh_tl_ipc.peers));
    symh_tl_ipc.bases = calloc((size_t)n, sizeof(*symh_tl_ipc.bases));
    if (symh_tl_ipc.peers == NULL || symh_tl_ipc.bases == NULL) {
        symh_error("IPC setup: cannot allocate the tables of %d PEs", n);
        return SYMH_ERR_NO_MEMORY;
    }
    symh_tl_ipc.bases[me] = mine->base;
    for (pe = 0; pe < n; ++pe)
        symh_tl_ipc.n_peers += symh_tl_ipc_is_peer(pe);

    /* The job's token: a collective step every PE takes. */
    if (me == 0 && getrandom(&symh_tl_ipc.token, sizeof(symh_tl_ipc.token), 0) !=
                       (ssize_t)sizeof(symh_tl_ipc.token))
        symh_tl_ipc.token = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    status = symh_boot->bcast(&symh_tl_ipc.token, sizeof(symh_tl_ipc.token), 0);
    if (status != SYMH_OK)
        return status;

    for (pe = 0; pe < mine->n_objects && pe < SYMH_TL_WINDOW_OBJECTS; ++pe)
        objects[pe] = (symh_tl_ipc_object_t){ .mem = mine->objects[pe].mem,
                                              .offset = mine->objects[pe].offset,
                                              .size = mine->objects[pe].size };
    prepared = symh_tl_ipc_prepare(&hello, fds, 0, mine->n_objects, objects, SYMH_OK);
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
    free(symh_tl_ipc.peers);
    free(symh_tl_ipc.bases);
    memset(&symh_tl_ipc, 0, sizeof(symh_tl_ipc));
    memset(&symh_tl_window, 0, sizeof(symh_tl_window));
}

char *symh_tl_ipc_peer_base(int pe)
{
    if (symh_tl_ipc.bases == NULL || pe < 0 || pe >= symh_tl_ipc.n_pes)
        return NULL;
    return symh_tl_ipc.bases[pe];
}
