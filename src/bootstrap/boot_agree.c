/* bootstrap: the agreement and the variable-size exchange that every start-up step uses
 * (boot.h), over the bootstrap ops. Why one place: a PE that fails a local step (an allocation,
 * a NIC call) must still take part in each collective of the step, or its peers wait forever in
 * a collective it never enters; so a failure is carried into the next exchange, never a reason
 * to skip it. The agreement itself is one MIN-reduction of an integer, with nothing allocated. */
#include <stdlib.h>
#include <string.h>

#include <symheap/status.h>

#include "bootstrap/boot.h"
#include "core/core_fault.h"
#include "core/core_log.h"

int symh_boot_agree(int status, int *first_bad)
{
    int64_t lowest = status != SYMH_OK ? symh_boot_info.my_pe : symh_boot_info.n_pes;

    if (first_bad != NULL)
        *first_bad = -1;
    if (symh_boot->allreduce(&lowest, 1, SYMH_BOOT_REDUCE_MIN) != SYMH_OK)
        return SYMH_ERR_BOOTSTRAP;
    if (lowest >= symh_boot_info.n_pes)
        return SYMH_OK;
    if (first_bad != NULL)
        *first_bad = (int)lowest;
    return status != SYMH_OK ? status : SYMH_ERR_MISMATCH;
}

int symh_boot_exchange(int status, const void *mine, size_t size, const char *what, void **all,
                       size_t *stride)
{
    size_t n = (size_t)symh_boot_info.n_pes, len = 0;
    int64_t largest = status == SYMH_OK ? (int64_t)size : 0;
    char *out = NULL;
    int ret;

    *all = NULL;
    *stride = 0;
    ret = symh_boot->allreduce(&largest, 1, SYMH_BOOT_REDUCE_MAX);
    if (status == SYMH_OK)
        status = ret;
    if (status == SYMH_OK) {
        len = largest > 0 ? (size_t)largest : 1;
        /* The other PEs' blocks, then this PE's own (zero-padded) block. */
        if (len <= SIZE_MAX / (n + 1))
            out = symh_fault_malloc(len * (n + 1), what);
        if (out == NULL) {
            symh_error("%s: out of memory for %zu bytes from each of %zu PEs", what, len, n);
            status = SYMH_ERR_NO_MEMORY;
        } else {
            memset(out + len * n, 0, len);
            if (size > 0)
                memcpy(out + len * n, mine, size);
        }
    }
    status = symh_boot_agree(status, NULL);
    if (status == SYMH_OK)
        status = symh_boot->allgather(out + len * n, out, len);
    if (status != SYMH_OK) {
        free(out);
        return status;
    }
    *all = out;
    *stride = len;
    return SYMH_OK;
}
