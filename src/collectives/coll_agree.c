/* collectives: the agreement barrier: over the shared-memory barrier (coll_barrier.c) when every
 * PE is node-local and mapped, else over the bootstrap allgather. */
#include "collectives/coll_agree.h"

#include <stdlib.h>

#include <symheap/status.h>

#include "bootstrap/boot.h"
#include "collectives/coll_barrier.h"
#include "core/core_log.h"

/* One slot per PE, allocated at init so that an agreement allocates nothing. */
static symh_coll_agree_t *symh_coll_slots;

int symh_coll_init(void)
{
    symh_coll_slots = calloc((size_t)symh_boot_info.n_pes, sizeof(*symh_coll_slots));
    if (symh_coll_slots == NULL) {
        symh_error("symh_init: cannot allocate %d agreement slots", symh_boot_info.n_pes);
        return SYMH_ERR_NO_MEMORY;
    }
    return SYMH_OK;
}

void symh_coll_fini(void)
{
    free(symh_coll_slots);
    symh_coll_slots = NULL;
}

static void symh_coll_judge(int n, int nargs, symh_coll_verdict_t *v)
{
    const symh_coll_agree_t *all = symh_coll_slots;
    int pe, arg;

    *v = (symh_coll_verdict_t){ .kind = SYMH_COLL_AGREED, .pe = -1, .arg = -1 };
    for (pe = 1; pe < n; ++pe) {
        if (all[pe].op != all[0].op) {
            *v = (symh_coll_verdict_t){ SYMH_COLL_OP_DIFFERS, pe, -1, 0, all[0].op, all[pe].op };
            return;
        }
    }
    for (pe = 1; pe < n; ++pe) {
        for (arg = 0; arg < nargs; ++arg) {
            if (all[pe].args[arg] != all[0].args[arg]) {
                *v = (symh_coll_verdict_t){ SYMH_COLL_ARG_DIFFERS, pe, arg, 0, all[0].args[arg],
                                            all[pe].args[arg] };
                return;
            }
        }
    }
    for (pe = 0; pe < n; ++pe) {
        if (all[pe].status != SYMH_OK) {
            *v = (symh_coll_verdict_t){ SYMH_COLL_FAILED, pe, -1, all[pe].status, 0, 0 };
            return;
        }
    }
    for (pe = 1; pe < n; ++pe) {
        if (all[pe].result != all[0].result) {
            *v = (symh_coll_verdict_t){
                SYMH_COLL_RESULT_DIFFERS, pe, -1, 0, all[0].result, all[pe].result
            };
            return;
        }
    }
}

int symh_coll_agree(const symh_coll_agree_t *mine, int nargs, symh_coll_verdict_t *verdict)
{
    int status;

    if (symh_coll_barrier_uses_shm()) {
        symh_coll_barrier_shm(mine, symh_coll_slots);
    } else {
        status = symh_boot->allgather(mine, symh_coll_slots, sizeof(*mine));
        if (status != SYMH_OK)
            return status;
    }
    symh_coll_judge(symh_boot_info.n_pes, nargs, verdict);
    return SYMH_OK;
}

int symh_coll_my_pe(void)
{
    return symh_boot_info.my_pe;
}

int symh_coll_barrier(void)
{
    if (symh_coll_barrier_uses_shm()) {
        symh_coll_barrier_shm(NULL, NULL);
        return SYMH_OK;
    }
    return symh_boot->barrier();
}
