/* tests/mpi: a prober of symheap's node-local exchange (ipc_outsider.h). As a program (not a PE)
 * it scans in a tight loop, sending a forged request (PE 0, tag 0, a zero secret) on every other
 * connection, and reports on stdout: "r" once ready, "c" per connection made, "f" per descriptor
 * received, "b" per connection on which any byte arrived; it stops at EOF on stdin. Run by
 * test_mpi_ipc_guard.cc, as another uid through setpriv or as the same uid. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ipc_outsider.h"

#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

static void try_name(const char *name, const symh_ipc_probe_t *probe, unsigned long attempt)
{
    char control[CMSG_SPACE(sizeof(int) * 16)], data[4096];
    struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control)
    };
    struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
    struct sockaddr_un addr;
    size_t len = strlen(name);
    struct cmsghdr *cmsg;
    ssize_t got;
    int sock;

    if (len == 0 || len >= sizeof(addr.sun_path) - 1)
        return;
    memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path + 1, name, len);
    sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0)
        return;
    setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(sock, (struct sockaddr *)&addr,
                (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) != 0) {
        close(sock);
        return;
    }
    probe->report('c', probe->arg);
    if (probe->request != NULL) {
        (void)send(sock, probe->request, probe->request_size, MSG_NOSIGNAL);
    } else if (attempt % 2 == 1) {
        char forged[48];
        memset(forged, 0, sizeof(forged));
        (void)send(sock, forged, sizeof(forged), MSG_NOSIGNAL);
    }
    got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (got > 0)
        probe->report('b', probe->arg);
    for (cmsg = got >= 0 ? CMSG_FIRSTHDR(&msg) : NULL; cmsg != NULL;
         cmsg = CMSG_NXTHDR(&msg, cmsg)) {
        size_t i, n;
        if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
            continue;
        n = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (i = 0; i < n; ++i) {
            int fd;
            memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
            probe->report('f', probe->arg);
            close(fd);
        }
    }
    close(sock);
}

int symh_ipc_probe_scan(const symh_ipc_probe_t *probe, unsigned long *attempt)
{
    const size_t size = (size_t)1 << 20; /* room for thousands of sockets */
    char *table = malloc(size), *line, *next;
    size_t used = 0;
    ssize_t got;
    int fd = open("/proc/net/unix", O_RDONLY | O_CLOEXEC), seen = 0;

    if (fd < 0 || table == NULL) {
        if (fd >= 0)
            close(fd);
        free(table);
        return 0;
    }
    while (used < size - 1 && (got = read(fd, table + used, size - 1 - used)) > 0)
        used += (size_t)got;
    close(fd);
    table[used] = '\0';
    for (line = table; line != NULL && *line != '\0'; line = next) {
        char *at, *end;
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        at = strstr(line, " @symheap-");
        if (at == NULL)
            continue;
        at += 2; /* past " @" */
        for (end = at; *end != '\0' && *end != ' ' && *end != '\n'; ++end)
            ;
        *end = '\0';
        ++seen;
        try_name(at, probe, (*attempt)++);
    }
    free(table);
    return seen;
}

#ifndef SYMH_IPC_PROBE_NO_MAIN
static void report(char what, void *arg)
{
    (void)arg;
    /* The test reads as it goes; a full pipe only pauses the scan. */
    if (write(STDOUT_FILENO, &what, 1) != 1)
        _exit(2);
}

int main(void)
{
    const symh_ipc_probe_t probe = { .report = report };
    unsigned long attempt = 0;

    report('r', NULL);
    for (;;) {
        struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
        if (poll(&pfd, 1, 0) != 0) /* EOF (or an error): the test is done */
            break;
        symh_ipc_probe_scan(&probe, &attempt);
    }
    report('\n', NULL);
    return 0;
}
#endif
