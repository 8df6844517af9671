/* core: status code texts and the per-thread last error. */
#include "core/core_status.h"

#include <stddef.h>

_Thread_local int symh_status_last = SYMH_OK;
int symh_status_fork_pe = -1;
int symh_status_initialized;

/* Indexed by -status; the values are pinned by docs/api.md. */
static const char *const symh_status_texts[] = {
    [0] = "success",
    [1] = "invalid argument",
    [2] = "out of memory",
    [3] = "symheap is not initialized",
    [4] = "address not registered",
    [5] = "range overlaps a registered range",
    [6] = "device mismatch",
    [7] = "range is not contiguous",
    [8] = "copy failed",
    [9] = "no such device",
    [10] = "not supported",
    [11] = "PEs passed different arguments",
    [12] = "configured limit reached",
    [13] = "transport failure",
    [14] = "bootstrap (MPI) failure",
    [15] = "operating system call failed",
    [16] = "address is not symmetric: a global of a shared library",
};

const char *symh_status_string(int status)
{
    size_t index;

    if (status > 0 || status < -(int)(sizeof(symh_status_texts) / sizeof(symh_status_texts[0]) - 1))
        return "unknown status";
    index = (size_t)-status;
    return symh_status_texts[index];
}

int symh_last_error(void)
{
    return symh_status_last;
}
