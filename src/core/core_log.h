/* core: leveled logging with the [host:pid:pe] file:line level prefix (docs/conventions.md). */
#ifndef SYMH_CORE_LOG_H
#define SYMH_CORE_LOG_H

typedef enum {
    SYMH_LOG_ERROR = 0,
    SYMH_LOG_WARN = 1,
    SYMH_LOG_INFO = 2,
    SYMH_LOG_DEBUG = 3,
    SYMH_LOG_TRACE = 4
} symh_log_level_t;

/* Build-time cap: messages above it compile to nothing. */
#ifndef SYMH_LOG_MAX_LEVEL
#define SYMH_LOG_MAX_LEVEL SYMH_LOG_TRACE
#endif

extern int symh_log_level_current;

/* Receives each formatted line (prefix included, no newline) instead of stderr; tests use it to
 * capture expected messages. */
typedef void (*symh_log_sink_func_t)(int level, const char *line, void *arg);

void symh_log_write(int level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void symh_log_set_level(int level);
void symh_log_set_pe(int pe);
void symh_log_set_sink(symh_log_sink_func_t sink, void *arg);
const char *symh_log_level_name(int level);
/* Prints the "N similar lines suppressed" summary of every rate-limited call site and gives
 * every site a fresh burst (core_log.c; symh_finalize calls it). */
void symh_log_flush(void);
/* Gives every call site a fresh burst, keeping the counts of suppressed lines for their summary
 * (the tests' log capture starts each captured action with it). */
void symh_log_rearm(void);
/* In a child of fork() (the runtime's atfork handler): the child can log even when another
 * thread of the parent held the log's lock at the fork. */
void symh_log_fork_child(void);

/* The context of one call into a lower layer on this thread (a transport's put for symh_putmem):
 * while it is pushed, every line logged on the thread starts with "<func> (PE <pe>): ", so the
 * lower layer's line names the public call, and `errors` counts the error lines logged under it,
 * so that the caller logs its own line only when the lower layer logged none (one line per
 * failure, docs/conventions.md). Contexts nest; pop in the reverse order. */
typedef struct symh_log_context {
    const char *func;
    int pe;
    unsigned errors;
    struct symh_log_context *outer;
} symh_log_context_t;

/* The innermost context pushed on this thread, NULL when none. Push and pop are inline: every
 * call through a transport's ops table pushes one (docs/architecture.md "The RMA data path"). */
extern __thread symh_log_context_t *symh_log_context
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

static inline void symh_log_context_push(symh_log_context_t *ctx, const char *func, int pe)
{
    *ctx = (symh_log_context_t){ .func = func, .pe = pe, .outer = symh_log_context };
    symh_log_context = ctx;
}

static inline void symh_log_context_pop(symh_log_context_t *ctx)
{
    symh_log_context = ctx->outer;
}

#define symh_log(level, ...)                                                    \
    do {                                                                        \
        if ((level) <= SYMH_LOG_MAX_LEVEL && (level) <= symh_log_level_current) \
            symh_log_write((level), __FILE__, __LINE__, __VA_ARGS__);           \
    } while (0)

#define symh_error(...) symh_log(SYMH_LOG_ERROR, __VA_ARGS__)
#define symh_warn(...)  symh_log(SYMH_LOG_WARN, __VA_ARGS__)
#define symh_info(...)  symh_log(SYMH_LOG_INFO, __VA_ARGS__)
#define symh_debug(...) symh_log(SYMH_LOG_DEBUG, __VA_ARGS__)
#define symh_trace(...) symh_log(SYMH_LOG_TRACE, __VA_ARGS__)

/* Invariants, on in Debug builds; user input is validated, never asserted. A failed one logs
 * "assertion failed: <cond>" at its file and line, then aborts. */
#define SYMH_ASSERT_CHECK(cond)                              \
    do {                                                     \
        if (!(cond))                                         \
            symh_log_assert_fail(#cond, __FILE__, __LINE__); \
    } while (0)
#ifdef SYMH_ENABLE_ASSERT
#define symh_assert(cond) SYMH_ASSERT_CHECK(cond)
#else
#define symh_assert(cond) ((void)0)
#endif
/* O(n) walks of a whole heap or registry after each change: on only where SYMH_EXPENSIVE_CHECKS
 * defines SYMH_ENABLE_ASSERT_EXPENSIVE (far too slow elsewhere); `cond` is not evaluated else. */
#ifdef SYMH_ENABLE_ASSERT_EXPENSIVE
#define symh_assert_expensive(cond) SYMH_ASSERT_CHECK(cond)
#else
#define symh_assert_expensive(cond) ((void)0)
#endif
void symh_log_assert_fail(const char *cond, const char *file, int line) __attribute__((noreturn));

#endif /* SYMH_CORE_LOG_H */
