/* tests/mpi: a prober of symheap's node-local exchange, as an attacker on the machine would
 * write it: it lists the abstract "@symheap-" socket names in /proc/net/unix, connects to each,
 * optionally sends a request, and tries to receive a hello with SCM_RIGHTS descriptors. Used by
 * the ipc_outsider program (a process that is not a PE) and by test_mpi_ipc_guard.cc (a thread
 * inside a PE's process). */
#ifndef SYMH_IPC_OUTSIDER_H
#define SYMH_IPC_OUTSIDER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    /* Called with 'c' per connection made, 'f' per descriptor received (and closed), 'b' per
     * connection on which any byte arrived. */
    void (*report)(char what, void *arg);
    void *arg;
    /* Sent on every connection; NULL: a zero 48-byte request on every other one, nothing on
     * the rest. */
    const void *request;
    size_t request_size;
} symh_ipc_probe_t;

/* One pass over the names listed now; returns how many it saw. `attempt` counts connections
 * across passes. */
int symh_ipc_probe_scan(const symh_ipc_probe_t *probe, unsigned long *attempt);

#ifdef __cplusplus
}
#endif

#endif /* SYMH_IPC_OUTSIDER_H */
