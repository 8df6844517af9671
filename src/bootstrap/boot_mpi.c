/* bootstrap: the MPI implementation (the only file of symheap that includes <mpi.h>), and
 * symh_init_comm. */
#include <dlfcn.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include <symheap_mpi.h>

#include "bootstrap/boot.h"
#include "core/core_config.h"
#include "core/core_fault.h"
#include "core/core_status.h"
#include "core/core_wait.h"

const symh_boot_ops_t *symh_boot;
symh_boot_info_t symh_boot_info = { -1, -1, -1, -1, 0, NULL, 0, 0 };

static void (*_Atomic symh_boot_progress)(void);

void symh_boot_set_progress(void (*progress)(void))
{
    atomic_store(&symh_boot_progress, progress);
}

static struct {
    MPI_Comm comm;      /* private duplicate: PE i is rank i */
    MPI_Comm user_comm; /* selected by symh_init_comm for the next start */
    int use_user_comm;
    int started_mpi;
    int atexit_registered;
    int up;
    pid_t mpi_pid; /* the process that started MPI */
} symh_boot_mpi = { MPI_COMM_NULL, MPI_COMM_NULL, 0, 0, 0, 0, 0 };

/* Converts an MPI return code, logging MPI's own text. */
static int symh_boot_mpi_status(int ret, const char *call)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (ret == MPI_SUCCESS)
        return SYMH_OK;
    if (MPI_Error_string(ret, text, &len) != MPI_SUCCESS)
        strcpy(text, "unknown MPI error");
    symh_error("%s failed: %s", call, text);
    return SYMH_ERR_BOOTSTRAP;
}

static int symh_boot_mpi_count(size_t bytes, const char *call)
{
    if (bytes > INT_MAX) {
        symh_error("%s: %zu bytes exceed the bootstrap's limit of %d", call, bytes, INT_MAX);
        return -1;
    }
    return (int)bytes;
}

static void (*_Atomic symh_boot_hang_report)(const char *call, double seconds);

void symh_boot_set_hang_report(void (*report)(const char *call, double seconds))
{
    atomic_store(&symh_boot_hang_report, report);
}

/* Completes a non-blocking collective: polls, drives the transport's progress and yields the
 * core between polls (PEs that outnumber cores must let the late PE run); after
 * SYMH_HANG_TIMEOUT it says once where it waits (core_wait.h). */
static int symh_boot_mpi_wait(int ret, MPI_Request *req, const char *call)
{
    int done = 0;
    void (*progress)(void);
    void (*report)(const char *, double);
    symh_wait_t w;

    if (ret != MPI_SUCCESS)
        return symh_boot_mpi_status(ret, call);
    symh_wait_start(&w, 64);
    for (;;) {
        ret = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (ret != MPI_SUCCESS || done)
            break;
        progress = atomic_load_explicit(&symh_boot_progress, memory_order_acquire);
        if (progress != NULL)
            progress();
        if (symh_unlikely(symh_wait_step(&w))) {
            report = atomic_load_explicit(&symh_boot_hang_report, memory_order_acquire);
            if (report != NULL)
                report(call, symh_wait_seconds(&w));
            else
                symh_error("bootstrap %s has waited %.0f s on PE %d for the other PEs "
                           "(SYMH_HANG_TIMEOUT)",
                           call, symh_wait_seconds(&w), symh_boot_info.my_pe);
            symh_wait_hang_reported();
        }
    }
    return symh_boot_mpi_status(ret, call);
}

static int symh_boot_mpi_allgather(const void *in, void *out, size_t bytes)
{
    int count = symh_boot_mpi_count(bytes, "bootstrap allgather");
    MPI_Request req;

    if (count < 0)
        return SYMH_ERR_INVALID_ARG;
    return symh_boot_mpi_wait(
        MPI_Iallgather(in, count, MPI_BYTE, out, count, MPI_BYTE, symh_boot_mpi.comm, &req), &req,
        "MPI_Iallgather");
}

static int symh_boot_mpi_alltoall(const void *in, void *out, size_t bytes)
{
    int count = symh_boot_mpi_count(bytes, "bootstrap alltoall");
    MPI_Request req;

    if (count < 0)
        return SYMH_ERR_INVALID_ARG;
    return symh_boot_mpi_wait(
        MPI_Ialltoall(in, count, MPI_BYTE, out, count, MPI_BYTE, symh_boot_mpi.comm, &req), &req,
        "MPI_Ialltoall");
}

static int symh_boot_mpi_bcast(void *buf, size_t bytes, int root)
{
    int count = symh_boot_mpi_count(bytes, "bootstrap broadcast");
    MPI_Request req;

    if (count < 0)
        return SYMH_ERR_INVALID_ARG;
    return symh_boot_mpi_wait(MPI_Ibcast(buf, count, MPI_BYTE, root, symh_boot_mpi.comm, &req),
                              &req, "MPI_Ibcast");
}

static int symh_boot_mpi_barrier(void)
{
    MPI_Request req;

    return symh_boot_mpi_wait(MPI_Ibarrier(symh_boot_mpi.comm, &req), &req, "MPI_Ibarrier");
}

static int symh_boot_mpi_allreduce(int64_t *values, size_t count, symh_boot_reduce_t op)
{
    int n = symh_boot_mpi_count(count * sizeof(*values), "bootstrap allreduce");
    MPI_Request req;

    if (n < 0)
        return SYMH_ERR_INVALID_ARG;
    return symh_boot_mpi_wait(MPI_Iallreduce(MPI_IN_PLACE, values, (int)count, MPI_INT64_T,
                                             op == SYMH_BOOT_REDUCE_MIN ? MPI_MIN : MPI_MAX,
                                             symh_boot_mpi.comm, &req),
                              &req, "MPI_Iallreduce");
}

/* PMIx_Abort(status, msg, procs, nprocs) of the PMIx client the MPI library runs on, if any. */
typedef int (*symh_boot_pmix_abort_func_t)(int status, const char *msg, void *procs, size_t nprocs);

/* symh_global_exit: the whole job ends with `status`, not only this communicator.
 * MPI_Abort does end it, but it is an error path to MPI: Open MPI prints a banner of eight lines
 * (and mpirun another on a nonzero status) for what OpenSHMEM calls a normal way to end a
 * program. Where the MPI library runs on a PMIx client (Open MPI 4 and 5, MPICH and others built
 * with PMIx), PMIx_Abort with no message and no process list asks the launcher to end every
 * process of the job with `status`, and says nothing: that is what Open MPI's own OpenSHMEM
 * does. It is found at run time among the symbols already loaded (the MPI library brought it),
 * so symheap neither links nor requires PMIx. Without it, or when it fails (a singleton has no
 * launcher to ask), a job of one PE just exits, and a larger one takes MPI_Abort. */
static void symh_boot_mpi_abort(int status)
{
    symh_boot_pmix_abort_func_t pmix_abort;

    fflush(NULL);
    /* Object pointer to function pointer: POSIX guarantees dlsym's result converts. */
    *(void **)&pmix_abort = dlsym(RTLD_DEFAULT, "PMIx_Abort");
    if (pmix_abort != NULL && pmix_abort(status, NULL, NULL, 0) == 0)
        _exit(status); /* not exit: an atexit handler must not wait for PEs being ended */
    if (symh_boot_info.n_pes == 1) /* a singleton: no launcher, and nobody else to end */
        exit(status);
    MPI_Abort(MPI_COMM_WORLD, status);
    exit(status);
}

static const symh_boot_ops_t symh_boot_mpi_ops = {
    .allgather = symh_boot_mpi_allgather,
    .alltoall = symh_boot_mpi_alltoall,
    .bcast = symh_boot_mpi_bcast,
    .barrier = symh_boot_mpi_barrier,
    .allreduce = symh_boot_mpi_allreduce,
    .abort = symh_boot_mpi_abort,
};

/* MPI_Finalize is deferred to process exit so that a later symh_init can reuse MPI. A process
 * that exits while symheap is still initialized (an error path) skips it: MPI_Finalize would
 * wait for peers that may never come, while an unfinalized exit makes mpirun end the job. So
 * does a child of fork() that calls exit(): MPI is its parent's (the child's MPI_Finalize waited
 * for peers forever). */
static void symh_boot_mpi_atexit(void)
{
    int finalized = 1;

    if (symh_boot_mpi.up || getpid() != symh_boot_mpi.mpi_pid)
        return;
    if (MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized)
        MPI_Finalize();
}

static int symh_boot_mpi_level(int symh_level)
{
    static const int levels[] = { MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                  MPI_THREAD_MULTIPLE };

    return levels[symh_level];
}

static int symh_boot_symh_level(int mpi_level)
{
    if (mpi_level >= MPI_THREAD_MULTIPLE)
        return SYMH_THREAD_MULTIPLE;
    if (mpi_level >= MPI_THREAD_SERIALIZED)
        return SYMH_THREAD_SERIALIZED;
    if (mpi_level >= MPI_THREAD_FUNNELED)
        return SYMH_THREAD_FUNNELED;
    return SYMH_THREAD_SINGLE;
}

int symh_boot_start(int requested, int *provided)
{
    int initialized = 0, finalized = 0, mpi_provided = MPI_THREAD_SINGLE;
    MPI_Comm base;
    int status;

    MPI_Finalized(&finalized);
    if (finalized) {
        symh_error("symh_init: MPI has already been finalized; symheap needs MPI to start");
        return SYMH_ERR_BOOTSTRAP;
    }
    MPI_Initialized(&initialized);
    if (!initialized) {
        status = symh_boot_mpi_status(
            MPI_Init_thread(NULL, NULL, symh_boot_mpi_level(requested), &mpi_provided),
            "MPI_Init_thread");
        if (status != SYMH_OK)
            return status;
        symh_boot_mpi.started_mpi = 1;
        symh_boot_mpi.mpi_pid = getpid();
        if (!symh_boot_mpi.atexit_registered && atexit(symh_boot_mpi_atexit) == 0)
            symh_boot_mpi.atexit_registered = 1;
    } else {
        MPI_Query_thread(&mpi_provided);
    }
    *provided = symh_boot_symh_level(mpi_provided);
    if (*provided > requested)
        *provided = requested;
    symh_boot_info.thread_level = *provided;

    base = symh_boot_mpi.use_user_comm ? symh_boot_mpi.user_comm : MPI_COMM_WORLD;
    status = symh_boot_mpi_status(MPI_Comm_dup(base, &symh_boot_mpi.comm), "MPI_Comm_dup");
    if (status != SYMH_OK)
        return status;
    MPI_Comm_set_errhandler(symh_boot_mpi.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(symh_boot_mpi.comm, &symh_boot_info.my_pe);
    MPI_Comm_size(symh_boot_mpi.comm, &symh_boot_info.n_pes);
    symh_boot_info.local_pe = -1;
    symh_boot_info.local_n_pes = -1;
    symh_boot_info.n_nodes = 0;
    symh_boot = &symh_boot_mpi_ops;
    symh_boot_mpi.up = 1;
    symh_log_set_pe(symh_boot_info.my_pe);
    symh_debug("bootstrap up: PE %d of %d (%s MPI)", symh_boot_info.my_pe, symh_boot_info.n_pes,
               symh_boot_mpi.started_mpi ? "symheap started" : "the application started");
    return SYMH_OK;
}

typedef struct {
    const char *id;
    int pe;
} symh_boot_hostid_t;

static int symh_boot_hostid_cmp(const void *a, const void *b)
{
    const symh_boot_hostid_t *x = a, *y = b;
    int c = strcmp(x->id, y->id);

    return c != 0 ? c : (x->pe > y->pe) - (x->pe < y->pe);
}

/* leader[pe] = lowest PE of pe's node, from equal SYMH_HOSTID values (sorted, so O(n log n)).
 * `ids` (n_pes * SYMH_CONFIG_STRING_MAX bytes) and `order` (n_pes entries) are the caller's. */
static int symh_boot_leaders_by_hostid(const char *hostid, int *leader, char *ids,
                                       symh_boot_hostid_t *order)
{
    int n = symh_boot_info.n_pes, i;
    char mine[SYMH_CONFIG_STRING_MAX] = { 0 };
    int status;

    strncpy(mine, hostid, sizeof(mine) - 1);
    status = symh_boot->allgather(mine, ids, sizeof(mine));
    if (status != SYMH_OK)
        return status;
    for (i = 0; i < n; ++i) {
        order[i].id = ids + (size_t)i * SYMH_CONFIG_STRING_MAX;
        order[i].pe = i;
    }
    qsort(order, (size_t)n, sizeof(*order), symh_boot_hostid_cmp);
    for (i = 0; i < n; ++i) {
        int first = (i > 0 && strcmp(order[i].id, order[i - 1].id) == 0) ? leader[order[i - 1].pe]
                                                                         : order[i].pe;
        leader[order[i].pe] = first;
    }
    return SYMH_OK;
}

/* This PE's shared-memory domain (the caller frees it). */
static int symh_boot_shm_comm(MPI_Comm *shm)
{
    return symh_boot_mpi_status(MPI_Comm_split_type(symh_boot_mpi.comm, MPI_COMM_TYPE_SHARED,
                                                    symh_boot_info.my_pe, MPI_INFO_NULL, shm),
                                "MPI_Comm_split_type");
}

/* leader[pe] = lowest PE of pe's shared-memory domain. */
static int symh_boot_leaders_by_shm(int *leader)
{
    MPI_Comm shm;
    int mine = symh_boot_info.my_pe;
    int status = symh_boot_shm_comm(&shm);

    if (status != SYMH_OK)
        return status;
    status = symh_boot_mpi_status(MPI_Bcast(&mine, 1, MPI_INT, 0, shm), "MPI_Bcast");
    MPI_Comm_free(&shm);
    if (status != SYMH_OK)
        return status;
    return symh_boot->allgather(&mine, leader, sizeof(int));
}

/* The number of PEs in this PE's shared-memory domain. */
static int symh_boot_machine_pes(int *count)
{
    MPI_Comm shm;
    int status = symh_boot_shm_comm(&shm);

    if (status != SYMH_OK)
        return status;
    status = symh_boot_mpi_status(MPI_Comm_size(shm, count), "MPI_Comm_size");
    MPI_Comm_free(&shm);
    return status;
}

int symh_boot_group_nodes(const char *hostid)
{
    int n = symh_boot_info.n_pes, me = symh_boot_info.my_pe, pe;
    int by_hostid = hostid[0] != '\0';
    int *leader = symh_fault_malloc((size_t)n * sizeof(int), "boot: node grouping");
    int *node = symh_fault_malloc((size_t)n * sizeof(int), "boot: node grouping");
    char *ids = by_hostid ? symh_fault_malloc((size_t)n * SYMH_CONFIG_STRING_MAX,
                                              "boot: node grouping by SYMH_HOSTID")
                          : NULL;
    symh_boot_hostid_t *order = by_hostid ? symh_fault_malloc((size_t)n * sizeof(*order),
                                                              "boot: node grouping by SYMH_HOSTID")
                                          : NULL;
    int status = SYMH_OK, machine = 0;

    if (leader == NULL || node == NULL || (by_hostid && (ids == NULL || order == NULL))) {
        symh_error("symh_init: out of memory grouping %d PEs into nodes", n);
        status = SYMH_ERR_NO_MEMORY;
    }
    /* Every PE allocated its buffers before any exchange starts, or none exchanges. */
    status = symh_boot_agree(status, NULL);
    if (status == SYMH_OK)
        status = by_hostid ? symh_boot_leaders_by_hostid(hostid, leader, ids, order)
                           : symh_boot_leaders_by_shm(leader);
    free(order);
    free(ids);
    /* Pretend nodes share the machine's cores with each other. */
    if (status == SYMH_OK && by_hostid)
        status = symh_boot_machine_pes(&machine);
    if (status != SYMH_OK)
        goto err;

    /* A leader is its node's lowest PE, so ascending order numbers nodes by first PE. */
    symh_boot_info.n_nodes = 0;
    symh_boot_info.local_pe = 0;
    symh_boot_info.local_n_pes = 0;
    for (pe = 0; pe < n; ++pe)
        node[pe] = leader[pe] == pe ? symh_boot_info.n_nodes++ : node[leader[pe]];
    for (pe = 0; pe < n; ++pe) {
        if (node[pe] != node[me])
            continue;
        symh_boot_info.local_pe += pe < me;
        ++symh_boot_info.local_n_pes;
    }
    free(leader);
    symh_boot_info.machine_n_pes = by_hostid ? machine : symh_boot_info.local_n_pes;
    symh_boot_info.node_of_pe = node;
    symh_debug("node %d of %d: local PE %d of %d%s%s", node[me], symh_boot_info.n_nodes,
               symh_boot_info.local_pe, symh_boot_info.local_n_pes,
               hostid[0] != '\0' ? ", SYMH_HOSTID=" : "", hostid);
    return SYMH_OK;

err:
    free(node);
    free(leader);
    return status;
}

void symh_boot_stop(void)
{
    int finalized = 0;

    MPI_Finalized(&finalized);
    if (finalized) {
        symh_warn("symh_finalize: MPI was finalized before symh_finalize; "
                  "symheap's communicator could not be freed");
    } else {
        if (symh_boot_mpi.comm != MPI_COMM_NULL)
            MPI_Comm_free(&symh_boot_mpi.comm);
    }
    symh_boot_mpi.comm = MPI_COMM_NULL;
    free(symh_boot_info.node_of_pe);
    symh_boot_info = (symh_boot_info_t){ -1, -1, -1, -1, 0, NULL, 0, 0 };
    symh_boot = NULL;
    symh_boot_mpi.up = 0;
    symh_log_set_pe(-1);
}

int symh_boot_is_up(void)
{
    return symh_boot_mpi.up;
}

int symh_init_comm(MPI_Comm comm)
{
    int initialized = 0, finalized = 0, inter = 0, status;

    if (symh_boot_mpi.up)
        return symh_init();
    if (comm == MPI_COMM_NULL) {
        symh_error("symh_init_comm: comm is MPI_COMM_NULL");
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized) {
        symh_error("symh_init_comm: MPI is %s; initialize MPI before passing a communicator",
                   finalized ? "already finalized" : "not initialized");
        return symh_status_set(SYMH_ERR_BOOTSTRAP);
    }
    MPI_Comm_test_inter(comm, &inter);
    if (inter) {
        symh_error("symh_init_comm: comm is an intercommunicator; pass an intracommunicator");
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    symh_boot_mpi.user_comm = comm;
    symh_boot_mpi.use_user_comm = 1;
    status = symh_init();
    symh_boot_mpi.use_user_comm = 0;
    symh_boot_mpi.user_comm = MPI_COMM_NULL;
    return status;
}
