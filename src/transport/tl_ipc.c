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

/* What a PE sends with its file descriptors, so the receiver can check and lay them out. */
typedef struct {
    int32_t pe;
    int32_t n_objects;
    uint64_t window_size;
    uint64_t alignment;
    uint64_t heap_offset;
    uint64_t offset[SYMH_TL_WINDOW_OBJECTS];
    uint64_t size[SYMH_TL_WINDOW_OBJECTS];
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
    uint64_t token; /* the job's socket namespace, from PE 0 */
} symh_tl_ipc;

/* The server side: accepts `expected` connections and hands each the hello and our fds. */
typedef struct {
    int listen_fd;
    int expected;
    int fds[SYMH_TL_WINDOW_OBJECTS];
    symh_tl_ipc_hello_t hello;
    int status;
} symh_tl_ipc_server_t;

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
    char control[CMSG_SPACE(sizeof(int) * SYMH_TL_WINDOW_OBJECTS)];
    int served;

    for (served = 0; served < server->expected; ++served) {
        struct pollfd pfd = { .fd = server->listen_fd, .events = POLLIN };
        struct iovec iov = { .iov_base = &server->hello, .iov_len = sizeof(server->hello) };
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
        memset(control, 0, sizeof(control));
        msg.msg_control = control;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)server->hello.n_objects);
        cmsg = CMSG_FIRSTHDR(&msg);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)server->hello.n_objects);
        memcpy(CMSG_DATA(cmsg), server->fds, sizeof(int) * (size_t)server->hello.n_objects);
        ret = (int)sendmsg(conn, &msg, MSG_NOSIGNAL);
        close(conn);
        if (ret != (int)sizeof(server->hello)) {
            server->status = symh_tl_ipc_errno("sendmsg(SCM_RIGHTS)");
            return NULL;
        }
    }
    return NULL;
}

/* Receives PE pe's hello and descriptors. */
static int symh_tl_ipc_fetch(int pe, symh_tl_ipc_hello_t *hello, int *fds)
{
    char control[CMSG_SPACE(sizeof(int) * SYMH_TL_WINDOW_OBJECTS)];
    struct iovec iov = { .iov_base = hello, .iov_len = sizeof(*hello) };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
    struct sockaddr_un addr;
    socklen_t len = symh_tl_ipc_address(pe, &addr);
    struct cmsghdr *cmsg;
    int sock, status = SYMH_OK, i;
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
    if (got != (ssize_t)sizeof(*hello) || cmsg == NULL || cmsg->cmsg_type != SCM_RIGHTS ||
        hello->pe != pe || hello->n_objects < 1 || hello->n_objects > SYMH_TL_WINDOW_OBJECTS ||
        cmsg->cmsg_len != CMSG_LEN(sizeof(int) * (size_t)hello->n_objects)) {
        symh_error("IPC setup: PE %d sent a malformed window description", pe);
        status = SYMH_ERR_TRANSPORT;
        goto out;
    }
    for (i = 0; i < hello->n_objects; ++i)
        memcpy(&fds[i], CMSG_DATA(cmsg) + sizeof(int) * (size_t)i, sizeof(int));
out:
    close(sock);
    return status;
}

/* Maps PE pe's objects into a fresh window laid out like ours. */
static int symh_tl_ipc_map_peer(int pe, const symh_tl_ipc_hello_t *hello, const int *fds)
{
    symh_tl_ipc_peer_t *peer = &symh_tl_ipc.peers[pe];
    int status, i;

    if (hello->window_size != symh_tl_window.size ||
        hello->heap_offset != symh_tl_window.heap_offset) {
        symh_error("IPC setup: PE %d has a %" PRIu64 "-byte window, this PE %zu: SYMH_HEAP_SIZE "
                   "and SYMH_SYMM_AREA_SIZE must be equal on every PE",
                   pe, hello->window_size, symh_tl_window.size);
        return SYMH_ERR_MISMATCH;
    }
    /* Heap at an aligned address, as ours: reserve one alignment unit more and start the
     * window heap_offset below the aligned point. */
    peer->reservation_size = hello->alignment + hello->window_size;
    status =
        symh_dev->reserve(peer->reservation_size, hello->alignment, (void **)&peer->reservation);
    if (status != SYMH_OK)
        return status;
    symh_tl_ipc.bases[pe] = peer->reservation + hello->alignment - hello->heap_offset;
    for (i = 0; i < hello->n_objects; ++i) {
        symh_dev_mem_t *mem;

        status = symh_dev->import_fd(fds[i], &mem);
        if (status != SYMH_OK)
            return status;
        status = symh_dev->map(mem, 0, symh_tl_ipc.bases[pe] + hello->offset[i], hello->size[i],
                               SYMH_DEV_ACCESS_READ_WRITE);
        symh_dev->mem_release(mem); /* the mapping keeps the memory */
        if (status != SYMH_OK)
            return status;
        peer->offset[i] = hello->offset[i];
        peer->size[i] = hello->size[i];
        peer->n_mapped = i + 1;
    }
    return SYMH_OK;
}

static int symh_tl_ipc_is_peer(int pe)
{
    return pe != symh_boot_info.my_pe && symh_tl_route_of(pe) == SYMH_TL_IPC;
}

int symh_tl_ipc_init(const symh_tl_window_t *mine)
{
    int n = symh_boot_info.n_pes, me = symh_boot_info.my_pe, pe, i, status, peers = 0;
    symh_tl_ipc_server_t server = { .listen_fd = -1, .status = SYMH_OK };
    struct sockaddr_un addr;
    socklen_t len;
    pthread_t thread;

    symh_tl_window = *mine;
    symh_tl_ipc.n_pes = n;
    symh_tl_ipc.peers = calloc((size_t)n, sizeof(*symh_tl_ipc.peers));
    symh_tl_ipc.bases = calloc((size_t)n, sizeof(*symh_tl_ipc.bases));
    for (i = 0; i < SYMH_TL_WINDOW_OBJECTS; ++i)
        server.fds[i] = -1;
    if (symh_tl_ipc.peers == NULL || symh_tl_ipc.bases == NULL) {
        symh_error("IPC setup: cannot allocate the tables of %d PEs", n);
        return SYMH_ERR_NO_MEMORY;
    }
    symh_tl_ipc.bases[me] = mine->base;
    for (pe = 0; pe < n; ++pe)
        peers += symh_tl_ipc_is_peer(pe);

    /* Collective steps, taken by every PE so that none waits alone: the token, the barrier
     * that guarantees every listener exists, the barrier after the exchange. */
    if (me == 0 && getrandom(&symh_tl_ipc.token, sizeof(symh_tl_ipc.token), 0) !=
                       (ssize_t)sizeof(symh_tl_ipc.token))
        symh_tl_ipc.token = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    status = symh_boot->bcast(&symh_tl_ipc.token, sizeof(symh_tl_ipc.token), 0);
    if (status != SYMH_OK)
        return status;

    if (peers > 0) {
        server.expected = peers;
        server.hello = (symh_tl_ipc_hello_t){ .pe = me, .n_objects = mine->n_objects };
        server.hello.window_size = mine->size;
        server.hello.alignment = mine->alignment;
        server.hello.heap_offset = mine->heap_offset;
        for (i = 0; i < mine->n_objects && status == SYMH_OK; ++i) {
            server.hello.offset[i] = mine->objects[i].offset;
            server.hello.size[i] = mine->objects[i].size;
            status = symh_dev->export_fd(mine->objects[i].mem, &server.fds[i]);
        }
        if (status == SYMH_OK) {
            server.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            len = symh_tl_ipc_address(me, &addr);
            if (server.listen_fd < 0 ||
                bind(server.listen_fd, (struct sockaddr *)&addr, len) != 0 ||
                listen(server.listen_fd, peers) != 0)
                status = symh_tl_ipc_errno("socket/bind/listen (abstract UNIX socket)");
        }
    }
    /* Every PE passes this barrier, listening or not (a failure here is agreed by the caller). */
    if (symh_boot->barrier() != SYMH_OK && status == SYMH_OK)
        status = SYMH_ERR_BOOTSTRAP;
    if (peers > 0 && status == SYMH_OK) {
        if (pthread_create(&thread, NULL, symh_tl_ipc_serve, &server) != 0) {
            status = SYMH_ERR_SYSTEM;
        } else {
            for (pe = 0; pe < n && status == SYMH_OK; ++pe) {
                symh_tl_ipc_hello_t hello;
                int fds[SYMH_TL_WINDOW_OBJECTS] = { -1, -1 };

                if (!symh_tl_ipc_is_peer(pe))
                    continue;
                status = symh_tl_ipc_fetch(pe, &hello, fds);
                if (status == SYMH_OK)
                    status = symh_tl_ipc_map_peer(pe, &hello, fds);
                for (i = 0; i < SYMH_TL_WINDOW_OBJECTS; ++i)
                    if (fds[i] >= 0)
                        close(fds[i]);
            }
            /* The server also finishes when this PE failed: peers still fetch from it. */
            pthread_join(thread, NULL);
            if (status == SYMH_OK)
                status = server.status;
        }
    }
    if (server.listen_fd >= 0)
        close(server.listen_fd);
    for (i = 0; i < SYMH_TL_WINDOW_OBJECTS; ++i)
        if (server.fds[i] >= 0)
            close(server.fds[i]);
    if (status == SYMH_OK)
        symh_debug("IPC: mapped the windows of %d node-local peers", peers);
    return status;
}

void symh_tl_ipc_fini(void)
{
    int pe, i;

    for (pe = 0; symh_tl_ipc.peers != NULL && pe < symh_tl_ipc.n_pes; ++pe) {
        symh_tl_ipc_peer_t *peer = &symh_tl_ipc.peers[pe];

        if (peer->reservation == NULL)
            continue;
        for (i = 0; i < peer->n_mapped; ++i)
            symh_dev->unmap(symh_tl_ipc.bases[pe] + peer->offset[i], peer->size[i]);
        symh_dev->release(peer->reservation, peer->reservation_size);
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
