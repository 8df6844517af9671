/* core: the monotonic clock of the log rate limit and the hang watch (core_clock.h). */
#include "core/core_clock.h"

#include <stddef.h>
#include <time.h>

/* Read and written atomically: a test may install a source while another thread logs. */
static symh_clock_source_func_t symh_clock_source;

uint64_t symh_clock_now_ns(void)
{
    symh_clock_source_func_t source = __atomic_load_n(&symh_clock_source, __ATOMIC_ACQUIRE);
    struct timespec ts;

    if (source != NULL)
        return source();
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void symh_clock_set_source(symh_clock_source_func_t source)
{
    __atomic_store_n(&symh_clock_source, source, __ATOMIC_RELEASE);
}
