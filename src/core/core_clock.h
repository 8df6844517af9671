/* core: the one monotonic clock of what symheap times itself (the log's per-site rate limit,
 * core_log.c; the hang watch, core_wait.c), in nanoseconds. Tests replace its source so that
 * behaviour that depends on time is checked by counts of clock reads rather than wall-clock
 * windows on a loaded machine (tests/shim/shim_core.h). */
#ifndef SYMH_CORE_CLOCK_H
#define SYMH_CORE_CLOCK_H

#include <stdint.h>

typedef uint64_t (*symh_clock_source_func_t)(void);

/* The time now: CLOCK_MONOTONIC, or the installed source's answer. */
uint64_t symh_clock_now_ns(void);

/* Installs `source` as the clock (NULL: CLOCK_MONOTONIC again); for the tests. */
void symh_clock_set_source(symh_clock_source_func_t source);

#endif /* SYMH_CORE_CLOCK_H */
