/* tests/shim: C side of the shim: log capture and configuration access for the tests. */
#include "shim_core.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/status.h>

#include "bootstrap/boot.h"
#include "core/core_amap.h"
#include "core/core_cgroup.h"
#include "core/core_clock.h"
#include "core/core_config.h"
#include "core/core_log.h"
#include "transport/tl_nic.h"
#include "transport/tl_route.h"

static pthread_mutex_t symh_shim_lock = PTHREAD_MUTEX_INITIALIZER;
static int symh_shim_capturing;
static char symh_shim_captured[16384];
static char symh_shim_captured_out[16384];
static char symh_shim_unexpected[4096];

static void symh_shim_append(char *buf, size_t size, const char *line)
{
    size_t used = strlen(buf);

    if (used + strlen(line) + 2 > size)
        return;
    memcpy(buf + used, line, strlen(line));
    buf[used + strlen(line)] = '\n';
    buf[used + strlen(line) + 1] = '\0';
}

static void (*symh_shim_line_hook)(const char *line);

void symh_shim_log_set_hook(void (*hook)(const char *line))
{
    __atomic_store_n(&symh_shim_line_hook, hook, __ATOMIC_RELEASE);
}

static void symh_shim_sink(int level, const char *line, void *arg)
{
    void (*hook)(const char *line) = __atomic_load_n(&symh_shim_line_hook, __ATOMIC_ACQUIRE);
    int show;

    (void)arg;
    if (hook != NULL)
        hook(line);
    pthread_mutex_lock(&symh_shim_lock);
    show = !symh_shim_capturing;
    if (symh_shim_capturing)
        symh_shim_append(symh_shim_captured, sizeof(symh_shim_captured), line);
    else if (level <= SYMH_LOG_WARN)
        symh_shim_append(symh_shim_unexpected, sizeof(symh_shim_unexpected), line);
    pthread_mutex_unlock(&symh_shim_lock);
    /* Still shown, so a failing test's log explains itself. */
    if (show)
        fprintf(stderr, "%s\n", line);
}

void symh_shim_log_install(void)
{
    symh_log_set_sink(symh_shim_sink, NULL);
}

void symh_shim_log_uninstall(void)
{
    symh_log_set_sink(NULL, NULL);
}

void symh_shim_log_begin(void)
{
    /* Each captured action may log its own burst per call site (a test that makes one refused
     * call per iteration sees each line); the rate limit still applies inside the action. */
    symh_log_rearm();
    pthread_mutex_lock(&symh_shim_lock);
    symh_shim_captured[0] = '\0';
    symh_shim_capturing = 1;
    pthread_mutex_unlock(&symh_shim_lock);
}

const char *symh_shim_log_end(void)
{
    pthread_mutex_lock(&symh_shim_lock);
    symh_shim_capturing = 0;
    memcpy(symh_shim_captured_out, symh_shim_captured, sizeof(symh_shim_captured));
    pthread_mutex_unlock(&symh_shim_lock);
    return symh_shim_captured_out;
}

const char *symh_shim_log_unexpected(void)
{
    return symh_shim_unexpected;
}

void symh_shim_log_reset_unexpected(void)
{
    pthread_mutex_lock(&symh_shim_lock);
    symh_shim_unexpected[0] = '\0';
    pthread_mutex_unlock(&symh_shim_lock);
}

void symh_shim_log_emit(int level, const char *msg)
{
    symh_log(level, "%s", msg);
}

void symh_shim_log_emit_site(int site, int level, const char *msg)
{
    if (site == 0)
        symh_log(level, "%s", msg);
    else
        symh_log(level, "%s", msg);
}

void *symh_shim_log_context_push(const char *func, int pe)
{
    symh_log_context_t *ctx = malloc(sizeof(*ctx));

    if (ctx != NULL)
        symh_log_context_push(ctx, func, pe);
    return ctx;
}

unsigned symh_shim_log_context_pop(void *ctx)
{
    symh_log_context_t *c = ctx;
    unsigned errors = c->errors;

    symh_log_context_pop(c);
    free(c);
    return errors;
}

void symh_shim_log_flush(void)
{
    symh_log_flush();
}

void symh_shim_log_set_level(int level)
{
    symh_log_set_level(level);
}

int symh_shim_log_get_level(void)
{
    return symh_log_level_current;
}

int symh_shim_config_parse_size(const char *text, size_t *size)
{
    return symh_config_parse_size(text, size);
}

int symh_shim_config_parse_shmem_size(const char *text, size_t *size)
{
    return symh_config_parse_shmem_size(text, size);
}

int symh_shim_config_load(char *message, size_t message_len, char *unknown, size_t unknown_len)
{
    symh_config_report_t report;
    int status = symh_config_load(&report);
    size_t i;

    snprintf(message, message_len, "%s", report.message);
    unknown[0] = '\0';
    for (i = 0; i < report.unknown_count && i < SYMH_CONFIG_UNKNOWN_MAX; ++i) {
        size_t used = strlen(unknown);

        snprintf(unknown + used, unknown_len - used, "%s%s", used ? " " : "", report.unknown[i]);
    }
    return status;
}

void symh_shim_config_forget(void)
{
    symh_config_forget();
}

int symh_shim_config_value(const char *name, unsigned long long *number, char *text,
                           size_t text_len)
{
    int id;

    for (id = 0; id < SYMH_CFG_COUNT; ++id) {
        if (strcmp(symh_config_vars[id].name, name) != 0)
            continue;
        *number = 0;
        text[0] = '\0';
        switch (symh_config_vars[id].type) {
        case SYMH_CONFIG_SIZE:
        case SYMH_CONFIG_COUNT:
            *number = symh_config_size((symh_config_id_t)id);
            break;
        case SYMH_CONFIG_BOOL:
            *number = (unsigned)symh_config_bool((symh_config_id_t)id);
            break;
        case SYMH_CONFIG_ENUM:
            *number = (unsigned)symh_config_choice((symh_config_id_t)id);
            break;
        case SYMH_CONFIG_STRING:
            snprintf(text, text_len, "%s", symh_config_string((symh_config_id_t)id));
            break;
        }
        return 0;
    }
    return -1;
}

int symh_shim_config_count(void)
{
    return SYMH_CFG_COUNT;
}

const char *symh_shim_config_name(int index)
{
    return symh_config_vars[index].name;
}

const char *symh_shim_tl_nic_built(void)
{
    static char built[64];

    return symh_tl_nic_built(built, sizeof(built));
}

void symh_shim_nic_counts(uint64_t *lookups, uint64_t *hint_hits, uint64_t *posted, uint64_t *waits)
{
    *lookups = symh_tl_nic_counts.lookups;
    *hint_hits = symh_tl_nic_hint.hits;
    *posted = symh_tl_nic_counts.posted;
    *waits = symh_tl_nic_counts.waits;
}

int symh_shim_boot_allgather(const void *in, void *out, size_t bytes)
{
    return symh_boot->allgather(in, out, bytes);
}

int symh_shim_boot_alltoall(const void *in, void *out, size_t bytes)
{
    return symh_boot->alltoall(in, out, bytes);
}

int symh_shim_boot_bcast(void *buf, size_t bytes, int root)
{
    return symh_boot->bcast(buf, bytes, root);
}

int symh_shim_boot_barrier(void)
{
    return symh_boot->barrier();
}

void *symh_shim_amap_create(size_t size)
{
    symh_amap_t *map = malloc(sizeof(*map));

    if (map != NULL && symh_amap_create(size, map) != SYMH_OK) {
        free(map);
        map = NULL;
    }
    return map;
}

void symh_shim_amap_destroy(void *map)
{
    symh_amap_destroy(map);
    free(map);
}

void symh_shim_amap_mark(void *map, size_t offset, size_t bytes)
{
    symh_amap_mark(map, offset, bytes);
}

void symh_shim_amap_unmark(void *map, size_t offset, size_t bytes)
{
    symh_amap_unmark(map, offset, bytes);
}

void symh_shim_amap_resize(void *map, size_t offset, size_t old_bytes, size_t new_bytes)
{
    symh_amap_resize(map, offset, old_bytes, new_bytes);
}

int symh_shim_amap_check(const void *map, size_t offset, size_t bytes, size_t *alloc_offset,
                         size_t *alloc_bytes)
{
    return (int)symh_amap_check(map, offset, bytes, alloc_offset, alloc_bytes);
}

int symh_shim_amap_fast_ok(const void *map, size_t offset, size_t bytes)
{
    return symh_amap_fast_ok(((const symh_amap_t *)map)->words, offset, bytes);
}

unsigned long long symh_shim_cgroup_memory(const char *proc_self, char *path, size_t len,
                                           int *version)
{
    symh_cgroup_memory_t cg;

    symh_cgroup_memory(proc_self, &cg);
    snprintf(path, len, "%s", cg.path);
    *version = cg.version;
    return cg.limit;
}

/* ---- the fake clock ---- */
static uint64_t symh_shim_clock_now, symh_shim_clock_step;

static uint64_t symh_shim_clock_read(void)
{
    return __atomic_fetch_add(&symh_shim_clock_now,
                              __atomic_load_n(&symh_shim_clock_step, __ATOMIC_RELAXED),
                              __ATOMIC_RELAXED);
}

void symh_shim_clock_fake(uint64_t start_ns, uint64_t step_ns)
{
    __atomic_store_n(&symh_shim_clock_now, start_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&symh_shim_clock_step, step_ns, __ATOMIC_RELAXED);
    symh_clock_set_source(symh_shim_clock_read);
}

void symh_shim_clock_advance(uint64_t ns)
{
    __atomic_fetch_add(&symh_shim_clock_now, ns, __ATOMIC_RELAXED);
}

void symh_shim_clock_real(void)
{
    symh_clock_set_source(NULL);
}
