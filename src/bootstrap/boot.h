/* bootstrap: the collective operations every layer above uses to exchange setup data, and the
 * job's shape (PE numbering, node grouping). The MPI implementation is in boot_mpi.c. */
#ifndef SYMH_BOOT_H
#define SYMH_BOOT_H

#include <stddef.h>
#include <stdint.h>

typedef enum { SYMH_BOOT_REDUCE_MIN, SYMH_BOOT_REDUCE_MAX } symh_boot_reduce_t;

typedef struct {
    /* `bytes` from each PE, concatenated in PE order into `out` (n_pes * bytes). */
    int (*allgather)(const void *in, void *out, size_t bytes);
    /* `bytes` to each PE: block i of `in` goes to PE i, block i of `out` comes from PE i. */
    int (*alltoall)(const void *in, void *out, size_t bytes);
    int (*bcast)(void *buf, size_t bytes, int root);
    int (*barrier)(void);
    /* In place: each of the `count` values becomes their MIN or MAX over every PE. Allocates
     * nothing, so a PE that has just failed on memory still takes part. */
    int (*allreduce)(int64_t *values, size_t count, symh_boot_reduce_t op);
    /* Ends every process of the job with `status`; does not return. */
    void (*abort)(int status);
} symh_boot_ops_t;

typedef struct {
    int my_pe;
    int n_pes;
    int local_pe;    /* rank among the PEs of this node */
    int local_n_pes; /* PEs on this node */
    int n_nodes;
    int *node_of_pe;  /* n_pes entries: node index, numbered in order of each node's first PE */
    int thread_level; /* the SYMH_THREAD_* level symh_boot_start provided */
    /* PEs sharing this machine's cores (MPI's shared-memory domain, whatever SYMH_HOSTID says):
     * what the wait loops ask when they choose between spinning and yielding. */
    int machine_n_pes;
} symh_boot_info_t;

/* Valid between symh_boot_start and symh_boot_stop. */
extern const symh_boot_ops_t *symh_boot;
extern symh_boot_info_t symh_boot_info;

/* Starts MPI when nobody has, duplicates the PE communicator (MPI_COMM_WORLD, or the one
 * symh_init_comm selected) and numbers the PEs. `provided` gets min(requested, MPI's level). */
int symh_boot_start(int requested, int *provided);

/* Groups PEs into nodes: by equal `hostid` when it is not empty, else by shared memory. */
int symh_boot_group_nodes(const char *hostid);

/* Frees what symh_boot_start and symh_boot_group_nodes made; MPI stays up (see boot_mpi.c). */
void symh_boot_stop(void);

int symh_boot_is_up(void);

/* Called on every poll while a bootstrap collective waits for the other PEs (NULL: none), so
 * that a transport whose peers need this PE's progress (a NIC transport over TCP, software
 * atomics) keeps moving while this PE sits in a barrier. Every collective polls and yields. */
void symh_boot_set_progress(void (*progress)(void));

/* Called once by a bootstrap collective that has waited SYMH_HANG_TIMEOUT (core_wait.h), with
 * the MPI call and the seconds waited, so that the layer above says which of its calls this is
 * (NULL: a generic line). The caller then keeps waiting, or ends the job (SYMH_HANG_ABORT). */
void symh_boot_set_hang_report(void (*report)(const char *call, double seconds));

/* Collective, the agreement every start-up step ends with (boot_agree.c): each PE passes its
 * local `status`, having taken part in every exchange of the step even after failing. SYMH_OK
 * when every PE passed SYMH_OK; else this PE's own status when it failed, SYMH_ERR_MISMATCH when
 * only others did. *first_bad (when not NULL): the lowest failing PE, -1 when none. Allocates
 * nothing. SYMH_ERR_BOOTSTRAP (and *first_bad -1) when the exchange itself failed. */
int symh_boot_agree(int status, int *first_bad);

/* Collective: an allgather of blobs whose sizes differ between PEs, which a PE that failed before
 * (`status` not SYMH_OK: it offers nothing) or fails to allocate the buffer still takes part in.
 * Every block is padded with zeros to *stride bytes (the largest `size` offered, at least 1).
 * Returns what symh_boot_agree returns over `status` and the allocation; on SYMH_OK *all holds
 * n_pes blocks (the caller frees it), else *all is NULL. `what` names the exchange in the
 * out-of-memory line ("ofi: the address exchange") and is its fault-injection site. */
int symh_boot_exchange(int status, const void *mine, size_t size, const char *what, void **all,
                       size_t *stride);

static inline int symh_boot_pe_is_local(int pe)
{
    return symh_boot_info.node_of_pe[pe] == symh_boot_info.node_of_pe[symh_boot_info.my_pe];
}

#endif /* SYMH_BOOT_H */
