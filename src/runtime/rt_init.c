/* runtime: symh_init/symh_finalize, which bring every layer up and down in order. This is the
 * top of the layer DAG (docs/architecture.md): it may include every module, none includes it. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/init.h>

#include "bootstrap/boot.h"
#include "core/core_config.h"
#include "collectives/coll_agree.h"
#include "collectives/coll_barrier.h"
#include "collectives/coll_team.h"
#include "core/core_status.h"
#include "core/core_wait.h"
#include "device/dev_devices.h"
#include "heap/heap_window.h"
#include "registration/reg_dev_alloc.h"
#include "registration/reg_registry.h"
#include "registration/reg_vmm.h"
#include "runtime/rt_mem.h"
#include "runtime/rt_symm.h"
#include "transport/tl_data.h"
#include "transport/tl_ipc.h"
#include "transport/tl_ctx.h"
#include "transport/tl_nic.h"
#include "transport/tl_rma.h"
#include "transport/tl_route.h"

static struct {
    int thread_level;
    int atfork_set; /* once per process */
} symh_rt;

/* The child of a fork() made while symheap is initialized is no PE (docs/heap.md "A child of
 * fork"): the host backend's mappings (this PE's window, the peers' windows and globals, the
 * symmetric aliases) are absent in it (MADV_DONTFORK, dev_host.c), its globals are its own copy
 * (tl_data.c's handler), and from here every symheap call of the child fails at once with one
 * line naming the PE it came from: the checks of initialization read symh_status_fork_pe
 * (core_status.h) and the data path's own flag goes down. Plain stores only: the child may have
 * been forked from any thread. */
static void symh_rt_atfork_child(void)
{
    symh_log_fork_child();
    if (!symh_status_initialized)
        return;
    symh_status_fork_pe = symh_boot_info.my_pe;
    symh_status_initialized = 0; /* symh_initialized() answers 0 in the child */
    symh_tl_rma_fork_child();
}

/* Makes one local step's outcome the job's (symh_boot_agree: a PE that failed returns its own
 * code, the others SYMH_ERR_MISMATCH, as collective allocation does), and only the lowest
 * failing PE logs `message` (so `mpirun -np 64` prints one line, not 64). */
static int symh_rt_agree(int status, const char *message)
{
    int first_bad;
    int agreed = symh_boot_agree(status, &first_bad);

    if (first_bad < 0)
        return agreed;
    if (first_bad == symh_boot_info.my_pe && message != NULL)
        symh_error("symh_init: %s", message);
    else
        symh_debug("symh_init: failed on PE %d", first_bad);
    return agreed;
}

/* This PE's window and one per node-local peer that IPC maps (tl_ipc.c). */
static int symh_rt_ipc_windows(void)
{
    int pe, n = 1;

    for (pe = 0; pe < symh_boot_info.n_pes; ++pe)
        n += pe != symh_boot_info.my_pe && symh_tl_route_of(pe) == SYMH_TL_IPC;
    return n;
}

/* The transports learn the window from the heap that laid it out (transport may not include
 * heap: the runtime hands it over). */
static int symh_rt_ipc_init(void)
{
    const symh_heap_window_t *w = &symh_heap_window;
    symh_tl_window_t tl = {
        .base = w->base,
        .size = w->size,
        .alignment = w->heap_alignment,
        .heap_offset = (size_t)(w->heap - w->base),
        .heap_size = w->heap_size,
        .internal_size = w->internal_size,
        .symm_offset = (size_t)(w->symm - w->base),
        .symm_size = w->symm_size,
        .n_objects = 2,
    };

    tl.objects[0].offset = 0;
    tl.objects[0].size = w->internal_size;
    tl.objects[0].mem = w->internal_mem;
    tl.objects[1].offset = tl.heap_offset;
    tl.objects[1].size = w->heap_size;
    tl.objects[1].mem = w->heap_mem;
    return symh_tl_ipc_init(&tl);
}

/* The registry starts with the memory the runtime already has: the heap (a registry brought up
 * locally before symh_init is adopted with what it holds). */
static int symh_rt_reg_init(void)
{
    symh_reg_entry_t heap = { .base = (uintptr_t)symh_heap_window.heap,
                              .length = symh_heap_window.heap_size,
                              .kind = SYMH_REG_KIND_HEAP,
                              .device = -1,
                              .label = "symmetric heap" };
    int status = symh_reg_init();

    if (status == SYMH_OK)
        status = symh_reg_map_insert(symh_reg_registry, &heap, NULL);
    return status;
}

static void symh_rt_warn_unknown(const symh_config_report_t *report)
{
    size_t i;

    if (symh_boot_info.my_pe != 0)
        return;
    for (i = 0; i < report->unknown_count && i < SYMH_CONFIG_UNKNOWN_MAX; ++i)
        symh_warn("unknown environment variable %s ignored (symh_info lists the known ones)",
                  report->unknown[i]);
    if (report->unknown_count > SYMH_CONFIG_UNKNOWN_MAX)
        symh_warn("%zu more unknown SYMH_* variables ignored",
                  report->unknown_count - SYMH_CONFIG_UNKNOWN_MAX);
}

/* The configuration step, local to this PE (it runs before the bootstrap, so no PE has spoken
 * yet): reads the environment, applies the log level and the hang watch, and checks what the
 * routes, the heap and the devices will ask of it. The outcome is agreed on after the bootstrap
 * starts; on failure report->message says why. */
static int symh_rt_config_init(symh_config_report_t *report)
{
    int status = symh_config_load(report);

    if (status != SYMH_OK)
        return status;
    symh_log_set_level(symh_config_choice(SYMH_CFG_LOG_LEVEL));
    symh_wait_configure(symh_config_size(SYMH_CFG_HANG_TIMEOUT),
                        symh_config_bool(SYMH_CFG_HANG_ABORT), symh_global_exit);
    status = symh_tl_route_check(report->message, sizeof(report->message));
    if (status == SYMH_OK)
        status = symh_heap_check_config(report->message, sizeof(report->message));
    if (status == SYMH_OK)
        status = symh_dev_devices_check_config(report->message, sizeof(report->message));
    if (status == SYMH_OK)
        status = symh_coll_team_check_config(report->message, sizeof(report->message));
    /* Before the bootstrap starts MPI and its threads (tl_data.c: the move's one race). */
    if (status == SYMH_OK)
        status = symh_tl_data_move(report->message, sizeof(report->message));
    return status;
}

/* Appends PE numbers as ranges ("0-2,5") to buf, at most `max` ranges, then ",...". */
static void symh_rt_append_pes(char *buf, size_t len, const int *pes, int n, int max)
{
    size_t used = strlen(buf);
    int i = 0, shown = 0;

    while (i < n && used < len) {
        int j = i;

        while (j + 1 < n && pes[j + 1] == pes[j] + 1)
            ++j;
        if (shown == max) {
            snprintf(buf + used, len - used, ",...");
            return;
        }
        if (j == i)
            snprintf(buf + used, len - used, "%s%d", shown ? "," : "", pes[i]);
        else
            snprintf(buf + used, len - used, "%s%d-%d", shown ? "," : "", pes[i], pes[j]);
        used = strlen(buf);
        ++shown;
        i = j + 1;
    }
}

/* PE 0's line about a job-wide variable that differs: each distinct value with its PEs. */
typedef struct {
    int64_t fingerprint;
    char text[56];
} symh_rt_setting_t;

static void symh_rt_config_explain(symh_config_id_t id, const symh_rt_setting_t *all, int n_pes,
                                   const char *others)
{
    char line[1024];
    int *pes = malloc((size_t)n_pes * sizeof(int));
    int shown = 0, first, pe, k;
    char *seen = calloc((size_t)n_pes, 1);

    snprintf(line, sizeof(line),
             "symh_init: %s differs between the PEs, and every PE must have "
             "the same value (a job-wide setting):",
             symh_config_vars[id].name);
    for (first = 0; first < n_pes && pes != NULL && seen != NULL; ++first) {
        size_t used = strlen(line);

        if (seen[first])
            continue;
        if (shown == 4) {
            snprintf(line + used, sizeof(line) - used, "; other values elsewhere");
            break;
        }
        for (pe = first, k = 0; pe < n_pes; ++pe)
            if (!seen[pe] && all[pe].fingerprint == all[first].fingerprint) {
                seen[pe] = 1;
                pes[k++] = pe;
            }
        snprintf(line + used, sizeof(line) - used, "%s '%s' on PE ", shown ? ";" : "",
                 all[first].text);
        symh_rt_append_pes(line, sizeof(line), pes, k, 8);
        ++shown;
    }
    symh_error("%s%s%s%s; set it alike on every PE (docs/environment.md lists the job-wide "
               "settings)",
               line, others[0] ? "; also differing: " : "", others, "");
    free(seen);
    free(pes);
}

/* The job-wide settings (SYMH_CONFIG_JOB_WIDE) compared between the PEs, right after the
 * bootstrap starts and before any step that depends on them: one MIN-reduction of each value's
 * fingerprint and its negation (MIN and MAX at once). Where they differ, an allgather of the
 * first such variable's value lets PE 0 say which PEs have which value; every PE fails with
 * SYMH_ERR_MISMATCH. Without it a difference shows much later and elsewhere: a stalled IPC
 * exchange, a team collective waiting forever, a message naming another variable. */
static int symh_rt_config_agree(void)
{
    int64_t values[2 * SYMH_CFG_COUNT];
    symh_config_id_t ids[SYMH_CFG_COUNT], bad = SYMH_CFG_COUNT;
    symh_rt_setting_t mine, *all;
    char others[256] = "";
    int k = 0, i, status, id;

    for (id = 0; id < SYMH_CFG_COUNT; ++id)
        if (symh_config_job_wide((symh_config_id_t)id)) {
            int64_t f = symh_config_fingerprint((symh_config_id_t)id);

            ids[k] = (symh_config_id_t)id;
            values[2 * k] = f;
            values[2 * k + 1] = -f;
            ++k;
        }
    status = symh_boot->allreduce(values, (size_t)(2 * k), SYMH_BOOT_REDUCE_MIN);
    if (status != SYMH_OK)
        return status;
    for (i = 0; i < k; ++i)
        if (values[2 * i] != -values[2 * i + 1]) {
            size_t used = strlen(others);

            if (bad == SYMH_CFG_COUNT)
                bad = ids[i];
            else
                snprintf(others + used, sizeof(others) - used, "%s%s", used ? ", " : "",
                         symh_config_vars[ids[i]].name);
        }
    if (bad == SYMH_CFG_COUNT)
        return SYMH_OK;
    memset(&mine, 0, sizeof(mine));
    mine.fingerprint = symh_config_fingerprint(bad);
    symh_config_value_text(bad, mine.text, sizeof(mine.text));
    all = malloc((size_t)symh_boot_info.n_pes * sizeof(*all));
    values[0] = all != NULL; /* every PE takes part in the allgather, or none does */
    status = symh_boot->allreduce(values, 1, SYMH_BOOT_REDUCE_MIN);
    if (status == SYMH_OK && values[0] == 0)
        status = SYMH_ERR_NO_MEMORY;
    if (status == SYMH_OK)
        status = symh_boot->allgather(&mine, all, sizeof(mine));
    if (symh_boot_info.my_pe == 0) {
        if (all != NULL && status == SYMH_OK)
            symh_rt_config_explain(bad, all, symh_boot_info.n_pes, others);
        else
            symh_error("symh_init: %s differs between the PEs, and every PE must have the same "
                       "value (a job-wide setting)",
                       symh_config_vars[bad].name);
    }
    free(all);
    return SYMH_ERR_MISMATCH;
}

/* Every PE must run the same executable: the globals are symmetric only if every PE's data
 * segment has the same size. A PE whose size differs from PE 0's fails; the lowest of them says
 * so in one line naming both sizes (SYMH_ERR_MISMATCH everywhere). */
static int symh_rt_data_agree(void)
{
    int64_t sizes[2] = { (int64_t)symh_tl_data_segment()->size,
                         -(int64_t)symh_tl_data_segment()->size };
    int64_t zero = sizes[0];
    char message[256];
    int status;

    status = symh_boot->bcast(&zero, sizeof(zero), 0);
    if (status == SYMH_OK)
        status = symh_boot->allreduce(sizes, 2, SYMH_BOOT_REDUCE_MIN);
    if (status != SYMH_OK)
        return symh_rt_agree(status, NULL);
    snprintf(message, sizeof(message),
             "the executable's globals and statics are %zu bytes on PE %d but %" PRId64
             " bytes on PE 0 (%" PRId64 " to %" PRId64 " across the PEs): every PE must run the "
             "same executable",
             symh_tl_data_segment()->size, symh_boot_info.my_pe, zero, sizes[0], -sizes[1]);
    status = (int64_t)symh_tl_data_segment()->size == zero ? SYMH_OK : SYMH_ERR_MISMATCH;
    return symh_rt_agree(status, message);
}

/* Where each PE is and how it reaches the others: the devices, the node groups, the routes, and
 * whether the windows those routes imply fit (before anything is reserved, so one line can say
 * which variables to change; report->message carries it). Each step is agreed on; on failure
 * what came up is taken down again. */
static int symh_rt_topology_init(symh_config_report_t *report)
{
    int status;

    status = symh_rt_agree(symh_dev_devices_init(), NULL);
    if (status != SYMH_OK)
        goto err_devices;
    status = symh_rt_agree(symh_boot_group_nodes(symh_config_string(SYMH_CFG_HOSTID)), NULL);
    if (status != SYMH_OK)
        goto err_devices;
    status = symh_rt_agree(symh_tl_route_init(), NULL);
    if (status != SYMH_OK)
        goto err_routes;
    status = symh_heap_check_space(symh_rt_ipc_windows(), report->message, sizeof(report->message));
    status = symh_rt_agree(status, report->message);
    if (status != SYMH_OK)
        goto err_routes;
    return SYMH_OK;

err_routes:
    symh_tl_route_fini();
err_devices:
    symh_dev_devices_fini();
    return status;
}

/* The layers on top of the topology, bottom up: collectives, heap (and its memory), registry,
 * IPC, RMA, NIC, the barrier. Each step is agreed on; on failure what came up is taken down in
 * reverse order. */
static int symh_rt_layers_init(void)
{
    char message[1024] = "";
    int status;

    status = symh_rt_agree(symh_coll_init(), NULL);
    if (status != SYMH_OK)
        goto err_coll;
    status = symh_rt_agree(symh_heap_init(), NULL);
    if (status != SYMH_OK)
        goto err_heap;
    /* SYMH_HEAP_POPULATE, or the cgroup's warning: before any peer maps the heap. */
    status = symh_rt_mem_init(message, sizeof(message));
    status = symh_rt_agree(status, message[0] != '\0' ? message : NULL);
    if (status != SYMH_OK)
        goto err_heap;
    status = symh_rt_agree(symh_rt_reg_init(), NULL);
    if (status != SYMH_OK)
        goto err_reg;
    status = symh_rt_agree(symh_rt_ipc_init(), NULL);
    if (status != SYMH_OK)
        goto err_ipc;
    status = symh_rt_agree(symh_tl_data_init(), NULL);
    if (status != SYMH_OK)
        goto err_rma;
    /* The heap's map of live allocations bounds every RMA range (transport may not include heap:
     * handed over here, like the window); SYMH_ALLOC_CHECK=0 bounds ranges by the heap only. */
    status = symh_rt_agree(
        symh_tl_rma_init(symh_config_bool(SYMH_CFG_ALLOC_CHECK) ? symh_heap_alloc_map() : NULL),
        NULL);
    if (status != SYMH_OK)
        goto err_rma;
    status = symh_rt_agree(symh_tl_nic_init(), NULL);
    if (status != SYMH_OK)
        goto err_nic;
    status = symh_rt_agree(symh_coll_barrier_init(), NULL);
    if (status != SYMH_OK)
        goto err_barrier;
    status = symh_rt_agree(symh_coll_team_init(), NULL);
    if (status != SYMH_OK)
        goto err_teams;
    return SYMH_OK;

err_teams:
err_barrier:
    /* As symh_finalize: the NIC transport goes after the registry's last unmaps. */
    symh_coll_barrier_fini();
    symh_tl_rma_fini();
    symh_tl_data_fini();
    symh_tl_ipc_fini();
    symh_reg_fini();
    symh_tl_nic_fini();
    goto err_heap;
err_nic:
err_rma:
    symh_tl_rma_fini();
    symh_tl_data_fini();
err_ipc:
    symh_tl_ipc_fini();
err_reg:
    symh_reg_fini();
err_heap:
    symh_heap_fini();
err_coll:
    symh_coll_fini();
    return status;
}

int symh_init_thread(int requested, int *provided)
{
    symh_config_report_t report;
    int status, config_status, level;

    if (symh_status_fork_pe >= 0) {
        /* MPI and the transports are the parent's: a child cannot become a PE. */
        SYMH_LOG_NOT_INITIALIZED(__func__);
        return symh_status_set(SYMH_ERR_UNSUPPORTED);
    }
    if (symh_status_initialized) {
        if (provided != NULL)
            *provided = symh_rt.thread_level;
        return symh_status_set(SYMH_OK);
    }
    if (requested < SYMH_THREAD_SINGLE || requested > SYMH_THREAD_MULTIPLE) {
        symh_error("symh_init_thread: requested thread level %d is not one of "
                   "SYMH_THREAD_SINGLE..SYMH_THREAD_MULTIPLE (0..3)",
                   requested);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    config_status = symh_rt_config_init(&report);

    status = symh_boot_start(requested, &level);
    if (status != SYMH_OK)
        return symh_status_set(status);
    /* Every PE parsed its own environment: the job starts, or fails, as one. */
    status = symh_rt_agree(config_status, report.message);
    if (status != SYMH_OK)
        goto err_boot;
    status = symh_rt_config_agree();
    if (status != SYMH_OK)
        goto err_boot;
    symh_rt_warn_unknown(&report);
    status = symh_rt_data_agree();
    if (status != SYMH_OK)
        goto err_boot;
    status = symh_rt_topology_init(&report);
    if (status != SYMH_OK)
        goto err_boot;
    status = symh_rt_layers_init();
    if (status != SYMH_OK)
        goto err_topology;

    symh_rt.thread_level = level;
    symh_status_initialized = 1;
    if (!symh_rt.atfork_set) {
        symh_rt.atfork_set = 1;
        if (pthread_atfork(NULL, NULL, symh_rt_atfork_child) != 0)
            symh_warn("symh_init: pthread_atfork failed: a child of fork() will not know that it "
                      "is no PE");
    }
    if (provided != NULL)
        *provided = level;
    symh_debug("symh_init: PE %d of %d ready", symh_boot_info.my_pe, symh_boot_info.n_pes);
    /* SHMEM_VERSION, SHMEM_INFO (OpenSHMEM 1.5): PE 0 prints what they ask for. */
    symh_config_print_requested(symh_boot_info.my_pe, stdout);
    return symh_status_set(SYMH_OK);

err_topology:
    symh_tl_route_fini();
    symh_dev_devices_fini();
err_boot:
    symh_boot_stop();
    return symh_status_set(status);
}

int symh_init(void)
{
    return symh_init_thread(SYMH_THREAD_SINGLE, NULL);
}

void symh_finalize(void)
{
    int status;

    SYMH_CHECK_INIT(symh_status_initialized, );
    if (symh_coll_enter(SYMH_COLL_OP_FINALIZE) != SYMH_OK)
        return;
    /* No PE tears its state down while a peer may still reach it: what this PE sent through the
     * NIC completes first, and the barrier keeps driving the NIC for peers still completing. */
    if (symh_tl_nic_quiet(NULL) != SYMH_OK)
        symh_warn("symh_finalize: the NIC transport's quiet failed; finalizing anyway");
    /* Contexts the program left: each quieted and freed (a channel only sends, so peers still
     * finishing need none of them; the barrier below keeps serving their traffic). */
    symh_tl_ctx_fini();
    /* The world team's last call. A peer still making other collective calls sees each of them
     * fail as out of step (one line each), and this PE waits on until the peer finalizes too
     * (SYMH_HANG_TIMEOUT says so when that takes long). */
    do
        status = symh_coll_barrier(SYMH_COLL_OP_FINALIZE);
    while (status == SYMH_ERR_MISMATCH);
    if (status != SYMH_OK || symh_boot->barrier() != SYMH_OK)
        symh_warn("symh_finalize: the closing barrier failed; finalizing anyway");
    symh_coll_team_fini();
    symh_coll_barrier_fini();
    symh_rt_symm_fini();
    symh_tl_rma_fini();
    symh_tl_data_fini(); /* the globals stay where they are, for the process */
    symh_tl_ipc_fini();
    symh_vmm_fini(); /* what the application left mapped, reserved or created */
    symh_dev_alloc_fini("symh_finalize"); /* live device allocations: freed, one warning */
    symh_reg_fini();
    symh_tl_nic_close(); /* collective: every PE's connections closed before any worker goes */
    symh_tl_nic_fini();  /* after the registry's last unmaps, before the heap's memory goes */
    symh_heap_fini();
    symh_coll_fini();
    symh_tl_route_fini();
    symh_dev_devices_fini();
    symh_log_flush(); /* the rate limit's pending summaries, while lines still carry the PE */
    symh_boot_stop();
    symh_status_initialized = 0;
    symh_status_set(SYMH_OK);
}

int symh_initialized(void)
{
    symh_status_set(SYMH_OK);
    return symh_status_initialized;
}

void symh_query_thread(int *provided)
{
    SYMH_CHECK_INIT(symh_status_initialized, );
    if (provided == NULL) {
        symh_error("symh_query_thread: provided is NULL");
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    *provided = symh_rt.thread_level;
    symh_status_set(SYMH_OK);
}
