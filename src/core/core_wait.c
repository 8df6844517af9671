/* core: the hang watch's slow path (clock reads, the configured timeout and the job's exit). */
#include "core/core_wait.h"

#include "core/core_clock.h"
#include "core/core_log.h"

uint64_t symh_wait_timeout_ns;

static struct {
    int abort_job;
    void (*exit_fn)(int status);
} symh_wait_cfg;

int symh_wait_check_clock(symh_wait_t *w)
{
    uint64_t now = symh_clock_now_ns();

    if (w->since_ns == 0) {
        w->since_ns = now;
        return 0;
    }
    if (now - w->since_ns < symh_wait_timeout_ns)
        return 0;
    w->expired = 1;
    return 1;
}

double symh_wait_seconds(const symh_wait_t *w)
{
    return w->since_ns == 0 ? 0.0 : (double)(symh_clock_now_ns() - w->since_ns) / 1e9;
}

void symh_wait_configure(uint64_t timeout_s, int abort_job, void (*exit_fn)(int status))
{
    /* Over a century is "never": no overflow of the nanosecond count. */
    symh_wait_timeout_ns = timeout_s > 4000000000u ? 0 : timeout_s * 1000000000u;
    symh_wait_cfg.abort_job = abort_job;
    symh_wait_cfg.exit_fn = exit_fn;
}

void symh_wait_hang_reported(void)
{
    if (!symh_wait_cfg.abort_job || symh_wait_cfg.exit_fn == NULL)
        return;
    symh_error("SYMH_HANG_ABORT=1: ending the job (exit status %d)", SYMH_WAIT_HANG_EXIT_STATUS);
    symh_wait_cfg.exit_fn(SYMH_WAIT_HANG_EXIT_STATUS);
}
