/* core: log line formatting and output (one write per line, so PEs do not interleave). */
#include "core/core_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int symh_log_level_current = SYMH_LOG_WARN;

static int symh_log_pe = -1;
static symh_log_sink_func_t symh_log_sink;
static void *symh_log_sink_arg;

static const char *const symh_log_names[] = { "error", "warn", "info", "debug", "trace" };

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

void symh_log_write(int level, const char *file, int line, const char *fmt, ...)
{
    char host[64] = "?";
    char pe[16] = "-";
    char buf[1024];
    int len;
    va_list ap;

    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    if (symh_log_pe >= 0)
        snprintf(pe, sizeof(pe), "%d", symh_log_pe);
    len = snprintf(buf, sizeof(buf), "[%s:%d:%s] %s:%d %s ", host, (int)getpid(), pe,
                   symh_log_basename(file), line, symh_log_level_name(level));
    if (len < 0 || (size_t)len >= sizeof(buf))
        len = 0;
    va_start(ap, fmt);
    vsnprintf(buf + len, sizeof(buf) - (size_t)len, fmt, ap);
    va_end(ap);

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

void symh_log_assert_fail(const char *cond, const char *file, int line)
{
    symh_log_write(SYMH_LOG_ERROR, file, line, "assertion failed: %s", cond);
    abort();
}
