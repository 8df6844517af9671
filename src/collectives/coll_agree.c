/* collectives: the names and classes of the world team's calls, the guard against overlapping
 * calls from two threads, the report of calls out of step, and the agreement's judge (the
 * exchange itself is the barrier's: coll_barrier.c). */
#include "collectives/coll_agree.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <symheap/init.h>
#include <symheap/status.h>

#include "bootstrap/boot.h"
#include "collectives/coll_barrier.h"
#include "core/core_log.h"
#include "core/core_status.h"
#include "core/core_util.h"
#include "transport/tl_nic.h"

static const char *const symh_coll_op_names[SYMH_COLL_OP_COUNT] = { [SYMH_COLL_OP_NONE] = "?",
#define SYMH_COLL_OP_NAME(id, name, cls) [SYMH_COLL_OP_##id] = name,
                                                                    SYMH_COLL_OPS(SYMH_COLL_OP_NAME)
#undef SYMH_COLL_OP_NAME
};

static const unsigned char symh_coll_op_classes[SYMH_COLL_OP_COUNT] = {
#define SYMH_COLL_OP_CLASS(id, name, cls) [SYMH_COLL_OP_##id] = cls,
    SYMH_COLL_OPS(SYMH_COLL_OP_CLASS)
#undef SYMH_COLL_OP_CLASS
};

/* One slot per PE, allocated at init so that an agreement allocates nothing. */
static symh_coll_agree_t *symh_coll_slots;

/* The collective call in progress on this PE (SYMH_COLL_OP_NONE: none); kept only under
 * SYMH_THREAD_MULTIPLE, where two threads may call at once. */
static uint32_t symh_coll_busy;

const char *symh_coll_op_name(uint32_t op)
{
    return op < SYMH_COLL_OP_COUNT ? symh_coll_op_names[op] : "?";
}

unsigned symh_coll_op_class(uint32_t op)
{
    return op < SYMH_COLL_OP_COUNT ? symh_coll_op_classes[op] : SYMH_COLL_CLASS_AGREE;
}

int symh_coll_init(void)
{
    symh_coll_slots = calloc((size_t)symh_boot_info.n_pes, sizeof(*symh_coll_slots));
    if (symh_coll_slots == NULL) {
        symh_error("symh_init: cannot allocate %d agreement slots", symh_boot_info.n_pes);
        return SYMH_ERR_NO_MEMORY;
    }
    __atomic_store_n(&symh_coll_busy, SYMH_COLL_OP_NONE, __ATOMIC_RELAXED);
    return SYMH_OK;
}

void symh_coll_fini(void)
{
    free(symh_coll_slots);
    symh_coll_slots = NULL;
}

int symh_coll_enter(symh_coll_op_t op)
{
    uint32_t busy = SYMH_COLL_OP_NONE;

    if (symh_likely(symh_boot_info.thread_level != SYMH_THREAD_MULTIPLE))
        return SYMH_OK; /* the program serializes its calls: nothing to guard */
    if (__atomic_compare_exchange_n(&symh_coll_busy, &busy, (uint32_t)op, 0, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED))
        return SYMH_OK;
    symh_error("%s: called on PE %d while another thread of this PE is in %s: collective calls on "
               "one team must not overlap (OpenSHMEM 1.5, threads); nothing done",
               symh_coll_op_name(op), symh_boot_info.my_pe, symh_coll_op_name(busy));
    return symh_status_set(SYMH_ERR_MISMATCH);
}

void symh_coll_leave(void)
{
    if (symh_boot_info.thread_level == SYMH_THREAD_MULTIPLE)
        __atomic_store_n(&symh_coll_busy, SYMH_COLL_OP_NONE, __ATOMIC_RELEASE);
}

int symh_coll_thread_multiple(void)
{
    return symh_boot_info.thread_level == SYMH_THREAD_MULTIPLE;
}

symh_coll_op_t symh_coll_busy_op(void)
{
    return (symh_coll_op_t)__atomic_load_n(&symh_coll_busy, __ATOMIC_ACQUIRE);
}

/* Appends the PEs whose header names `op` to `buf` at `at`, as "0, 2-5"; returns the new end. */
static size_t symh_coll_list_pes(const symh_coll_agree_t *all, int n, uint32_t op, char *buf,
                                 size_t len, size_t at)
{
    int pe, first = -1, count = 0;

    for (pe = 0; pe <= n; ++pe) {
        int in = pe < n && all[pe].op == op;

        if (in && first < 0)
            first = pe;
        if (in || first < 0)
            continue;
        if (at + 24 < len)
            at += (size_t)(first == pe - 1
                               ? snprintf(buf + at, len - at, "%s%d", count ? ", " : "", first)
                               : snprintf(buf + at, len - at, "%s%d-%d", count ? ", " : "", first,
                                          pe - 1));
        else if (at + 5 < len && buf[at - 1] != '.')
            at += (size_t)snprintf(buf + at, len - at, ", ...");
        ++count;
        first = -1;
    }
    return at;
}

void symh_coll_report_out_of_step(const symh_coll_agree_t *all, int n)
{
    char line[768];
    size_t at;
    uint32_t done[SYMH_COLL_OP_COUNT + 1] = { 0 };
    int pe, groups = 0, k;

    at = (size_t)snprintf(
        line, sizeof(line),
        "collective calls out of step at call %" PRIu64 " of the world team: ", all[0].seq);
    for (pe = 0; pe < n && at + 64 < sizeof(line); ++pe) {
        uint32_t op = all[pe].op;
        int seen = 0;

        for (k = 0; k < groups; ++k)
            seen |= done[k] == op;
        if (seen || groups > SYMH_COLL_OP_COUNT)
            continue;
        done[groups] = op;
        for (k = pe + 1; k < n && all[k].op != op; ++k)
            ;
        at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s on PE%s ",
                               groups == 0   ? ""
                               : groups == 1 ? " but "
                                             : " and ",
                               symh_coll_op_name(op), k < n ? "s" : "");
        at = symh_coll_list_pes(all, n, op, line, sizeof(line), at);
        ++groups;
    }
    for (pe = 1; pe < n; ++pe) {
        if (all[pe].seq != all[0].seq && at + 80 < sizeof(line)) {
            at += (size_t)snprintf(line + at, sizeof(line) - at,
                                   "; PE %d is at call %" PRIu64 " of the world team", pe,
                                   all[pe].seq);
            break;
        }
    }
    symh_error("%s", line);
}

static void symh_coll_judge(int n, int nargs, symh_coll_verdict_t *v)
{
    const symh_coll_agree_t *all = symh_coll_slots;
    int pe, arg;

    *v = (symh_coll_verdict_t){ .kind = SYMH_COLL_AGREED, .pe = -1, .arg = -1 };
    for (pe = 1; pe < n; ++pe) {
        if (all[pe].op != all[0].op || all[pe].seq != all[0].seq) {
            if (symh_boot_info.my_pe == 0)
                symh_coll_report_out_of_step(all, n);
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

int symh_coll_agree(symh_coll_agree_t *mine, int nargs, symh_coll_verdict_t *verdict)
{
    int agreed, status;

    /* The agreement is the barrier of the allocation routines, which OpenSHMEM makes a
     * barrier_all: what this PE put before completes first (the CPU fence for load/store peers,
     * the NIC's quiet for the others), as in symh_barrier_all. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    status = symh_tl_nic_quiet(NULL);
    if (status != SYMH_OK)
        symh_error("%s: the NIC transport's quiet before the agreement failed: %s",
                   symh_coll_op_names[mine->op < SYMH_COLL_OP_COUNT ? mine->op : 0],
                   symh_status_string(status));
    status = symh_coll_barrier_agree(mine, nargs, symh_coll_slots, &agreed);

    if (status == SYMH_ERR_MISMATCH) { /* another kind of call somewhere: already reported */
        *verdict = (symh_coll_verdict_t){ SYMH_COLL_OP_DIFFERS, -1, -1, 0, mine->op, 0 };
        return SYMH_OK;
    }
    if (status != SYMH_OK)
        return status;
    if (agreed) { /* the barrier's folded words: what the judge would say, with no payload read */
        *verdict = (symh_coll_verdict_t){ .kind = SYMH_COLL_AGREED, .pe = -1, .arg = -1 };
        return SYMH_OK;
    }
    symh_coll_judge(symh_boot_info.n_pes, nargs, verdict);
    return SYMH_OK;
}

int symh_coll_agree_report(const symh_coll_verdict_t *v, int own_status,
                           const symh_coll_report_t *r)
{
    int me = symh_coll_my_pe();
    char a[64], b[192];

    switch (v->kind) {
    case SYMH_COLL_AGREED:
        return SYMH_OK;
    case SYMH_COLL_OP_DIFFERS: /* logged by the judge, naming every PE's call */
        break;
    case SYMH_COLL_ARG_DIFFERS:
        if (me != 0)
            break;
        if (r->format_arg != NULL) {
            r->format_arg(r->arg_names[v->arg], v->value0, a, sizeof(a));
            r->format_arg(r->arg_names[v->arg], v->value, b, sizeof(b));
        } else {
            snprintf(a, sizeof(a), "%" PRIu64, v->value0);
            snprintf(b, sizeof(b), "%" PRIu64, v->value);
        }
        symh_error("%s: %s %s on PE 0 but %s on PE %d%s%s", r->func, r->arg_names[v->arg], a, b,
                   v->pe, r->arg_rule != NULL ? ": " : "", r->arg_rule != NULL ? r->arg_rule : "");
        break;
    case SYMH_COLL_FAILED:
        if (me == v->pe)
            symh_log(r->reason_level, "%s", r->reason);
        if (r->failure_shared)
            return v->status;
        break;
    case SYMH_COLL_RESULT_DIFFERS:
        if (me == 0) {
            r->format_result(v, b, sizeof(b));
            symh_error("%s: %s", r->func, b);
        }
        break;
    }
    return !r->failure_shared && own_status != SYMH_OK ? own_status : SYMH_ERR_MISMATCH;
}

int symh_coll_my_pe(void)
{
    return symh_boot_info.my_pe;
}

int symh_coll_barrier(symh_coll_op_t op)
{
    return symh_coll_barrier_run(op, NULL, NULL);
}
