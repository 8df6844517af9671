/* device: the statistics, limiting, logging (CSV) and aligned adaptors. Each passes allocations
 * to its upstream resource and keeps its own state under its own mutex. */
#include "device/dev_mr.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/core_status.h"
#include "core/core_util.h"

/* An adaptor's creation: the upstream check and the allocation of its struct, zeroed. */
static void *symh_dev_mr_adaptor_new(const char *func, size_t size, const symh_mr_ops_t *ops,
                                     symh_mr_t *upstream)
{
    symh_mr_t *mr;

    if (upstream == NULL) {
        symh_error("%s: the upstream resource is NULL", func);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return NULL;
    }
    mr = calloc(1, size);
    if (mr == NULL) {
        symh_error("%s: out of memory", func);
        symh_status_set(SYMH_ERR_NO_MEMORY);
        return NULL;
    }
    symh_dev_mr_base_init(mr, ops, upstream);
    return mr;
}

/* ---- statistics ---------------------------------------------------------------------------- */

typedef struct {
    symh_mr_t super;
    pthread_mutex_t lock;
    symh_mr_stats_t stats;
} symh_dev_mr_stats_t;

static int symh_dev_mr_stats_allocate(symh_mr_t *mr, size_t bytes, size_t alignment, void **ptr)
{
    symh_dev_mr_stats_t *s = symh_container_of(mr, symh_dev_mr_stats_t, super);
    int status = symh_dev_mr_allocate(mr->upstream, bytes, alignment, ptr);

    if (status != SYMH_OK)
        return status;
    pthread_mutex_lock(&s->lock);
    s->stats.bytes_current += bytes;
    s->stats.bytes_total += bytes;
    if (s->stats.bytes_current > s->stats.bytes_peak)
        s->stats.bytes_peak = s->stats.bytes_current;
    s->stats.allocs_current += 1;
    s->stats.allocs_total += 1;
    if (s->stats.allocs_current > s->stats.allocs_peak)
        s->stats.allocs_peak = s->stats.allocs_current;
    pthread_mutex_unlock(&s->lock);
    return SYMH_OK;
}

static int symh_dev_mr_stats_deallocate(symh_mr_t *mr, void *ptr, size_t bytes, size_t alignment)
{
    symh_dev_mr_stats_t *s = symh_container_of(mr, symh_dev_mr_stats_t, super);
    int status = symh_dev_mr_deallocate(mr->upstream, ptr, bytes, alignment);

    if (status != SYMH_OK)
        return status;
    pthread_mutex_lock(&s->lock);
    /* A caller passing other bytes than it allocated must not wrap the counters around. */
    s->stats.bytes_current -= bytes < s->stats.bytes_current ? bytes : s->stats.bytes_current;
    s->stats.allocs_current -= s->stats.allocs_current > 0;
    pthread_mutex_unlock(&s->lock);
    return SYMH_OK;
}

static void symh_dev_mr_stats_destroy(symh_mr_t *mr)
{
    symh_dev_mr_stats_t *s = symh_container_of(mr, symh_dev_mr_stats_t, super);

    pthread_mutex_destroy(&s->lock);
    free(s);
}

static const symh_mr_ops_t symh_dev_mr_stats_ops = {
    .name = "statistics",
    .allocate = symh_dev_mr_stats_allocate,
    .deallocate = symh_dev_mr_stats_deallocate,
    .destroy = symh_dev_mr_stats_destroy,
};

symh_mr_t *symh_mr_statistics_create(symh_mr_t *upstream)
{
    symh_dev_mr_stats_t *s =
        symh_dev_mr_adaptor_new(__func__, sizeof(*s), &symh_dev_mr_stats_ops, upstream);

    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    symh_status_set(SYMH_OK);
    return &s->super;
}

int symh_mr_statistics_get(const symh_mr_t *mr, symh_mr_stats_t *stats)
{
    symh_dev_mr_stats_t *s;

    if (mr == NULL || stats == NULL) {
        symh_error("symh_mr_statistics_get: %s is NULL", mr == NULL ? "the resource" : "stats");
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    if (mr->ops != &symh_dev_mr_stats_ops) {
        symh_error("symh_mr_statistics_get: a %s resource keeps no statistics (create one with "
                   "symh_mr_statistics_create)",
                   mr->ops->name);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    s = symh_container_of(mr, symh_dev_mr_stats_t, super);
    pthread_mutex_lock(&s->lock);
    *stats = s->stats;
    pthread_mutex_unlock(&s->lock);
    return symh_status_set(SYMH_OK);
}

/* ---- limiting ------------------------------------------------------------------------------ */

typedef struct {
    symh_mr_t super;
    pthread_mutex_t lock;
    size_t limit, used; /* bytes requested, exactly */
} symh_dev_mr_limit_t;

static int symh_dev_mr_limit_allocate(symh_mr_t *mr, size_t bytes, size_t alignment, void **ptr)
{
    symh_dev_mr_limit_t *l = symh_container_of(mr, symh_dev_mr_limit_t, super);
    size_t used;
    int status;

    /* Count the bytes first, so concurrent callers cannot overshoot the limit together. */
    pthread_mutex_lock(&l->lock);
    used = l->used;
    if (bytes <= l->limit && used <= l->limit - bytes)
        l->used += bytes;
    pthread_mutex_unlock(&l->lock);
    if (bytes > l->limit || used > l->limit - bytes) {
        symh_error("symh_mr_allocate: limiting resource: %zu bytes would pass its limit of %zu "
                   "bytes (%zu in use)",
                   bytes, l->limit, used);
        return SYMH_ERR_NO_MEMORY;
    }
    status = symh_dev_mr_allocate(mr->upstream, bytes, alignment, ptr);
    if (status != SYMH_OK) {
        pthread_mutex_lock(&l->lock);
        l->used -= bytes;
        pthread_mutex_unlock(&l->lock);
    }
    return status;
}

static int symh_dev_mr_limit_deallocate(symh_mr_t *mr, void *ptr, size_t bytes, size_t alignment)
{
    symh_dev_mr_limit_t *l = symh_container_of(mr, symh_dev_mr_limit_t, super);
    int status = symh_dev_mr_deallocate(mr->upstream, ptr, bytes, alignment);

    if (status == SYMH_OK) {
        pthread_mutex_lock(&l->lock);
        l->used -= bytes < l->used ? bytes : l->used;
        pthread_mutex_unlock(&l->lock);
    }
    return status;
}

static void symh_dev_mr_limit_destroy(symh_mr_t *mr)
{
    symh_dev_mr_limit_t *l = symh_container_of(mr, symh_dev_mr_limit_t, super);

    pthread_mutex_destroy(&l->lock);
    free(l);
}

static const symh_mr_ops_t symh_dev_mr_limit_ops = {
    .name = "limiting",
    .allocate = symh_dev_mr_limit_allocate,
    .deallocate = symh_dev_mr_limit_deallocate,
    .destroy = symh_dev_mr_limit_destroy,
};

symh_mr_t *symh_mr_limiting_create(symh_mr_t *upstream, size_t limit)
{
    symh_dev_mr_limit_t *l =
        symh_dev_mr_adaptor_new(__func__, sizeof(*l), &symh_dev_mr_limit_ops, upstream);

    if (l == NULL)
        return NULL;
    pthread_mutex_init(&l->lock, NULL);
    l->limit = limit;
    symh_status_set(SYMH_OK);
    return &l->super;
}

/* ---- logging: one CSV line per event ------------------------------------------------------ */

#define SYMH_DEV_MR_CSV_HEADER "Thread,Time,Action,Pointer,Size,Stream\n"

typedef struct {
    symh_mr_t super;
    pthread_mutex_t lock;
    FILE *file;
    int write_failed;
} symh_dev_mr_log_t;

/* Thread,Time,Action,Pointer,Size,Stream: the kernel thread id, the local wall-clock time
 * HH:MM:SS.uuuuuu, allocate|allocate failure|free, the address in hex, the bytes requested, and
 * 0x0 (symheap has no streams yet; the column keeps the reference's format). */
static void symh_dev_mr_log_line(symh_dev_mr_log_t *lg, const char *action, const void *ptr,
                                 size_t bytes)
{
    char line[160], clock[16];
    struct timespec ts;
    struct tm tm;
    int len;

    clock_gettime(CLOCK_REALTIME, &ts);
    localtime_r(&ts.tv_sec, &tm);
    strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
    len = snprintf(line, sizeof(line), "%ld,%s.%06ld,%s,0x%" PRIxPTR ",%zu,0x0\n",
                   (long)syscall(SYS_gettid), clock, ts.tv_nsec / 1000, action, (uintptr_t)ptr,
                   bytes);
    pthread_mutex_lock(&lg->lock);
    /* Flushed per line, so the file is complete while the resource lives. */
    if ((fwrite(line, 1, (size_t)len, lg->file) != (size_t)len || fflush(lg->file) != 0) &&
        !lg->write_failed) {
        lg->write_failed = 1;
        symh_warn("logging resource: writing its CSV file failed: %s", strerror(errno));
    }
    pthread_mutex_unlock(&lg->lock);
}

static int symh_dev_mr_log_allocate(symh_mr_t *mr, size_t bytes, size_t alignment, void **ptr)
{
    symh_dev_mr_log_t *lg = symh_container_of(mr, symh_dev_mr_log_t, super);
    int status = symh_dev_mr_allocate(mr->upstream, bytes, alignment, ptr);

    symh_dev_mr_log_line(lg, status == SYMH_OK ? "allocate" : "allocate failure",
                         status == SYMH_OK ? *ptr : NULL, bytes);
    return status;
}

/* The free is logged before the memory goes back, so no allocate of the same address by another
 * thread can come before it in the file. */
static int symh_dev_mr_log_deallocate(symh_mr_t *mr, void *ptr, size_t bytes, size_t alignment)
{
    symh_dev_mr_log_line(symh_container_of(mr, symh_dev_mr_log_t, super), "free", ptr, bytes);
    return symh_dev_mr_deallocate(mr->upstream, ptr, bytes, alignment);
}

static void symh_dev_mr_log_destroy(symh_mr_t *mr)
{
    symh_dev_mr_log_t *lg = symh_container_of(mr, symh_dev_mr_log_t, super);

    if (lg->file != NULL)
        fclose(lg->file);
    pthread_mutex_destroy(&lg->lock);
    free(lg);
}

static const symh_mr_ops_t symh_dev_mr_log_ops = {
    .name = "logging",
    .allocate = symh_dev_mr_log_allocate,
    .deallocate = symh_dev_mr_log_deallocate,
    .destroy = symh_dev_mr_log_destroy,
};

symh_mr_t *symh_mr_logging_create(symh_mr_t *upstream, const char *csv_path)
{
    symh_dev_mr_log_t *lg;
    int status;

    if (csv_path == NULL || csv_path[0] == '\0') {
        symh_error("symh_mr_logging_create: the CSV path is %s", csv_path ? "empty" : "NULL");
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return NULL;
    }
    lg = symh_dev_mr_adaptor_new(__func__, sizeof(*lg), &symh_dev_mr_log_ops, upstream);
    if (lg == NULL)
        return NULL;
    pthread_mutex_init(&lg->lock, NULL);
    lg->file = fopen(csv_path, "we");
    if (lg->file == NULL) {
        symh_error("symh_mr_logging_create: cannot open %s: %s", csv_path, strerror(errno));
        status = SYMH_ERR_SYSTEM;
        goto err_destroy;
    }
    if (fputs(SYMH_DEV_MR_CSV_HEADER, lg->file) < 0 || fflush(lg->file) != 0) {
        symh_error("symh_mr_logging_create: cannot write to %s: %s", csv_path, strerror(errno));
        status = SYMH_ERR_SYSTEM;
        goto err_destroy;
    }
    symh_status_set(SYMH_OK);
    return &lg->super;

err_destroy:
    symh_dev_mr_log_destroy(&lg->super);
    symh_status_set(status);
    return NULL;
}

/* ---- aligned ------------------------------------------------------------------------------- */

typedef struct {
    symh_mr_t super;
    size_t alignment, threshold;
} symh_dev_mr_aligned_t;

/* Deallocation computes the same value from the same bytes and alignment. */
static size_t symh_dev_mr_aligned_of(const symh_dev_mr_aligned_t *a, size_t bytes, size_t alignment)
{
    return bytes >= a->threshold && a->alignment > alignment ? a->alignment : alignment;
}

static int symh_dev_mr_aligned_allocate(symh_mr_t *mr, size_t bytes, size_t alignment, void **ptr)
{
    const symh_dev_mr_aligned_t *a = symh_container_of(mr, symh_dev_mr_aligned_t, super);

    return symh_dev_mr_allocate(mr->upstream, bytes, symh_dev_mr_aligned_of(a, bytes, alignment),
                                ptr);
}

static int symh_dev_mr_aligned_deallocate(symh_mr_t *mr, void *ptr, size_t bytes, size_t alignment)
{
    const symh_dev_mr_aligned_t *a = symh_container_of(mr, symh_dev_mr_aligned_t, super);

    return symh_dev_mr_deallocate(mr->upstream, ptr, bytes,
                                  symh_dev_mr_aligned_of(a, bytes, alignment));
}

static void symh_dev_mr_aligned_destroy(symh_mr_t *mr)
{
    free(mr);
}

static const symh_mr_ops_t symh_dev_mr_aligned_ops = {
    .name = "aligned",
    .allocate = symh_dev_mr_aligned_allocate,
    .deallocate = symh_dev_mr_aligned_deallocate,
    .destroy = symh_dev_mr_aligned_destroy,
};

symh_mr_t *symh_mr_aligned_create(symh_mr_t *upstream, size_t alignment, size_t threshold)
{
    symh_dev_mr_aligned_t *a;

    if (!symh_dev_mr_is_pow2(alignment)) {
        symh_error("symh_mr_aligned_create: alignment %zu is not a power of two", alignment);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return NULL;
    }
    a = symh_dev_mr_adaptor_new(__func__, sizeof(*a), &symh_dev_mr_aligned_ops, upstream);
    if (a == NULL)
        return NULL;
    a->alignment = alignment;
    a->threshold = threshold;
    symh_status_set(SYMH_OK);
    return &a->super;
}
