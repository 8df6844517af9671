/* core: log line formatting and output (one write per line, so PEs do not interleave), and the
 * per-call-site rate limit that keeps a misuse in a loop from flooding the log.
 *
 * Rate limit: a call site (file:line) may print SYMH_LOG_BURST lines; after that its lines are
 * counted, not printed, and "N similar lines suppressed (file:line)" is printed at most once per
 * second while it keeps speaking, when it speaks again after a second of quiet (which also gives
 * it a fresh burst), and at symh_log_flush (symh_finalize). A loop of 1e6 refused calls (about
 * 1 s) prints 11 lines instead of 1e6 (100 MB). The site table is fixed (no allocation per
 * line); one mutex guards it, held only to update the counters, never across the write. */
#include "core/core_log.h"

#include "core/core_clock.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Lines a site prints before it is limited, and the quiet/summary period. */
#define SYMH_LOG_BURST     10
#define SYMH_LOG_PERIOD_NS 1000000000LL
/* Distinct sites tracked (a power of two); a site past them is never limited. */
#define SYMH_LOG_SITES 512

int symh_log_level_current = SYMH_LOG_WARN;

static int symh_log_pe = -1;
static symh_log_sink_func_t symh_log_sink;
static void *symh_log_sink_arg;

static const char *const symh_log_names[] = { "error", "warn", "info", "debug", "trace" };

/* gethostname once per process, not per line. */
static pthread_once_t symh_log_host_once = PTHREAD_ONCE_INIT;
static char symh_log_host[64] = "?";

typedef struct {
    const char *file; /* NULL: free */
    int line;
    int level;             /* of the last suppressed line, for its summary */
    int burst;             /* lines printed since the site was last quiet */
    unsigned long dropped; /* lines suppressed since the last summary */
    int64_t last;          /* time of the site's last line */
    int64_t summary;       /* time of the last summary, or of the first line dropped since */
} symh_log_site_t;

static pthread_mutex_t symh_log_lock = PTHREAD_MUTEX_INITIALIZER;
static symh_log_site_t symh_log_sites[SYMH_LOG_SITES];

const char *symh_log_level_name(int level)
{
    if (level < SYMH_LOG_ERROR || level > SYMH_LOG_TRACE)
        return "?";
    return symh_log_names[level];
}

void symh_log_set_level(int level)
{
    symh_log_level_current = level;
}

void symh_log_set_pe(int pe)
{
    symh_log_pe = pe;
}

void symh_log_set_sink(symh_log_sink_func_t sink, void *arg)
{
    symh_log_sink = sink;
    symh_log_sink_arg = arg;
}

static const char *symh_log_basename(const char *file)
{
    const char *slash = strrchr(file, '/');

    return slash ? slash + 1 : file;
}

static void symh_log_host_init(void)
{
    if (gethostname(symh_log_host, sizeof(symh_log_host) - 1) != 0)
        strcpy(symh_log_host, "?");
    symh_log_host[sizeof(symh_log_host) - 1] = '\0';
}

static int64_t symh_log_now(void)
{
    return (int64_t)symh_clock_now_ns();
}

__thread symh_log_context_t *symh_log_context;

/* Prints one line with the prefix of `file:line` (and the call's context, when one is pushed). */
static void symh_log_vemit(int level, const char *file, int line, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void symh_log_vemit(int level, const char *file, int line, const char *fmt, va_list ap)
{
    char pe[16] = "-";
    char buf[1024];
    int len;

    pthread_once(&symh_log_host_once, symh_log_host_init);
    if (symh_log_pe >= 0)
        snprintf(pe, sizeof(pe), "%d", symh_log_pe);
    len = snprintf(buf, sizeof(buf), "[%s:%d:%s] %s:%d %s ", symh_log_host, (int)getpid(), pe,
                   symh_log_basename(file), line, symh_log_level_name(level));
    if (len < 0 || (size_t)len >= sizeof(buf))
        len = 0;
    if (symh_log_context != NULL) {
        int more = snprintf(buf + len, sizeof(buf) - (size_t)len,
                            "%s (PE %d): ", symh_log_context->func, symh_log_context->pe);

        if (more > 0 && (size_t)(len + more) < sizeof(buf))
            len += more;
    }
    vsnprintf(buf + len, sizeof(buf) - (size_t)len, fmt, ap);

    if (symh_log_sink) {
        symh_log_sink(level, buf, symh_log_sink_arg);
        return;
    }
    len = (int)strlen(buf);
    if ((size_t)len < sizeof(buf) - 1) {
        buf[len++] = '\n';
    } else {
        buf[sizeof(buf) - 2] = '\n';
        len = (int)sizeof(buf) - 1;
    }
    /* One write(2) keeps a line whole when many PEs share the terminal. */
    if (write(STDERR_FILENO, buf, (size_t)len) < 0)
        return;
}

static void symh_log_emit(int level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void symh_log_emit(int level, const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    symh_log_vemit(level, file, line, fmt, ap);
    va_end(ap);
}

static void symh_log_emit_summary(int level, const char *file, int line, unsigned long dropped)
{
    symh_log_emit(level, file, line, "%lu similar lines suppressed (%s:%d)", dropped,
                  symh_log_basename(file), line);
}

/* The site's slot, claimed when new; NULL when the table is full. Lock held. */
static symh_log_site_t *symh_log_site(const char *file, int line)
{
    size_t hash = ((uintptr_t)file >> 3) * 31u + (size_t)line * 2654435761u;
    size_t i;

    for (i = 0; i < SYMH_LOG_SITES; ++i) {
        symh_log_site_t *site = &symh_log_sites[(hash + i) & (SYMH_LOG_SITES - 1)];

        if (site->file == file && site->line == line)
            return site;
        if (site->file == NULL) {
            memset(site, 0, sizeof(*site));
            site->file = file;
            site->line = line;
            return site;
        }
    }
    return NULL;
}

/* Whether this site's line may print now; *dropped: a summary to print first (0: none). */
static int symh_log_admit(int level, const char *file, int line, unsigned long *dropped)
{
    int64_t now = symh_log_now();
    symh_log_site_t *site;
    int pass = 1;

    *dropped = 0;
    pthread_mutex_lock(&symh_log_lock);
    site = symh_log_site(file, line);
    if (site != NULL) {
        if (now - site->last >= SYMH_LOG_PERIOD_NS) { /* quiet for a period: a fresh burst */
            *dropped = site->dropped;
            site->dropped = 0;
            site->burst = 0;
        }
        site->last = now;
        if (site->burst < SYMH_LOG_BURST) {
            ++site->burst;
        } else {
            pass = 0;
            if (site->dropped++ == 0)
                site->summary = now;
            site->level = level;
            if (now - site->summary >= SYMH_LOG_PERIOD_NS) {
                *dropped = site->dropped;
                site->dropped = 0;
                site->summary = now;
            }
        }
    }
    pthread_mutex_unlock(&symh_log_lock);
    return pass;
}

void symh_log_write(int level, const char *file, int line, const char *fmt, ...)
{
    unsigned long dropped;
    int pass = symh_log_admit(level, file, line, &dropped);
    va_list ap;

    if (level == SYMH_LOG_ERROR && symh_log_context != NULL)
        ++symh_log_context->errors; /* a suppressed line counts: the failure was reported */

    if (dropped != 0)
        symh_log_emit_summary(level, file, line, dropped);
    if (!pass)
        return;
    va_start(ap, fmt);
    symh_log_vemit(level, file, line, fmt, ap);
    va_end(ap);
}

void symh_log_flush(void)
{
    symh_log_site_t pending[SYMH_LOG_SITES];
    size_t i, n = 0;

    pthread_mutex_lock(&symh_log_lock);
    for (i = 0; i < SYMH_LOG_SITES; ++i)
        if (symh_log_sites[i].file != NULL && symh_log_sites[i].dropped != 0)
            pending[n++] = symh_log_sites[i];
    memset(symh_log_sites, 0, sizeof(symh_log_sites));
    pthread_mutex_unlock(&symh_log_lock);
    for (i = 0; i < n; ++i)
        symh_log_emit_summary(pending[i].level, pending[i].file, pending[i].line,
                              pending[i].dropped);
}

void symh_log_rearm(void)
{
    size_t i;

    pthread_mutex_lock(&symh_log_lock);
    for (i = 0; i < SYMH_LOG_SITES; ++i)
        symh_log_sites[i].burst = 0;
    pthread_mutex_unlock(&symh_log_lock);
}

void symh_log_fork_child(void)
{
    /* Another thread of the parent may have held the lock when fork() copied it: the child's one
     * thread gets a fresh one. */
    static const pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

    memcpy(&symh_log_lock, &fresh, sizeof(fresh));
}

void symh_log_assert_fail(const char *cond, const char *file, int line)
{
    /* Not limited: the process ends with this line. */
    symh_log_emit(SYMH_LOG_ERROR, file, line, "assertion failed: %s", cond);
    abort();
}
