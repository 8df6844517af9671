/* runtime: symmetric registration (symh_buffer_register_symmetric / _unregister_symmetric).
 * It lives at the top of the layer DAG because it strings together the registry and the VMM
 * API (registration), the agreement (collectives) and the mapping of the alias here and in every
 * node-local peer (transport). A call checks locally, agrees once on (length, slot), maps and
 * shares, agrees again on the outcome, and rolls back everywhere when any PE failed. */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/registration.h>

#include "collectives/coll_agree.h"
#include "core/core_config.h"
#include "core/core_status.h"
#include "device/dev.h"
#include "registration/reg_registry.h"
#include "registration/reg_vmm.h"
#include "runtime/rt_symm.h"
#include "transport/tl_nic.h"
#include "transport/tl_symm.h"

#define SYMH_RT_SYMM_NO_SLOT UINT64_MAX

/* One live region: the alias at `offset` in the symmetric area, `span` bytes of slot (length
 * rounded up to the granule), over the user's [src, src + length). */
typedef struct {
    size_t offset;
    size_t length;
    size_t span;
    uintptr_t src;
} symh_rt_symm_region_t;

static struct {
    pthread_mutex_t lock;
    symh_rt_symm_region_t *regions; /* sorted by offset */
    int count;
} symh_rt_symm = { .lock = PTHREAD_MUTEX_INITIALIZER };

typedef struct {
    symh_coll_agree_t payload;
    const char *name;
    char reason[320];
} symh_rt_symm_call_t;

static void symh_rt_symm_fail(symh_rt_symm_call_t *call, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void symh_rt_symm_fail(symh_rt_symm_call_t *call, int status, const char *fmt, ...)
{
    va_list ap;

    if (call->payload.status != SYMH_OK)
        return; /* the first reason is the one to tell */
    call->payload.status = status;
    va_start(ap, fmt);
    vsnprintf(call->reason, sizeof(call->reason), fmt, ap);
    va_end(ap);
}

static int symh_rt_symm_up(void)
{
    return symh_reg_registry != NULL && symh_space.regions.head != NULL;
}

static void symh_rt_symm_format_result(const symh_coll_verdict_t *v, char *buf, size_t len)
{
    snprintf(buf, len,
             "the PEs disagree on the symmetric slot (%#" PRIx64 " on PE 0, %#" PRIx64
             " on PE %d): "
             "symmetric registrations were not made collectively",
             v->value0, v->value, v->pe);
}

/* Agrees on the call: SYMH_OK, or the status every PE reports, which is the code of the lowest
 * failing PE (so that every PE learns why), SYMH_ERR_MISMATCH when the PEs called with different
 * arguments. Exactly one PE logs the reason. */
static int symh_rt_symm_agree(symh_rt_symm_call_t *call, int nargs)
{
    static const char *const arg_names[] = { "length" };
    symh_coll_agree_t *mine = &call->payload;
    symh_coll_verdict_t v;
    int status = symh_coll_agree(mine, nargs, &v);
    const symh_coll_report_t report = {
        .func = call->name,
        .arg_names = arg_names,
        .arg_rule = "the length must be equal on every PE",
        .format_result = symh_rt_symm_format_result,
        .reason = call->reason,
        .reason_level = SYMH_LOG_ERROR,
        .failure_shared = 1,
    };

    return status != SYMH_OK ? status : symh_coll_agree_report(&v, mine->status, &report);
}

/* First fit in the symmetric area for `span` bytes: the same answer on every PE, since every
 * PE holds the same regions. Lock held. */
static int symh_rt_symm_slot(size_t span, size_t *offset, int *index)
{
    size_t at = 0;
    int i;

    for (i = 0; i < symh_rt_symm.count; ++i) {
        if (symh_rt_symm.regions[i].offset - at >= span)
            break;
        at = symh_rt_symm.regions[i].offset + symh_rt_symm.regions[i].span;
    }
    if (at > symh_space.regions.size || span > symh_space.regions.size - at)
        return SYMH_ERR_NO_MEMORY;
    *offset = at;
    *index = i;
    return SYMH_OK;
}

/* Local checks of register_symmetric; fills the pieces. Lock held. */
static void symh_rt_symm_check(symh_rt_symm_call_t *call, void *addr, size_t length,
                               symh_vmm_piece_t *pieces, int *n)
{
    size_t page = symh_dev->granularity(0, 0);
    size_t max = symh_config_size(SYMH_CFG_MAX_SYMM_REGIONS);
    uintptr_t a = (uintptr_t)addr;
    int i, status;

    *n = 0;
    if (addr == NULL || length == 0 || a > UINTPTR_MAX - length) {
        symh_rt_symm_fail(call, SYMH_ERR_INVALID_ARG, "%s: %s", call->name,
                          addr == NULL  ? "addr is NULL"
                          : length == 0 ? "length is 0"
                                        : "addr + length overflows");
        return;
    }
    if (a % page != 0 || length % page != 0) {
        symh_rt_symm_fail(call, SYMH_ERR_INVALID_ARG,
                          "%s: addr %p and length %zu must be multiples of the minimum "
                          "granularity (%zu bytes)",
                          call->name, addr, length, page);
        return;
    }
    status = symh_vmm_pieces(addr, length, pieces, SYMH_TL_IPC_MAX_OBJECTS, n);
    if (status == SYMH_ERR_UNSUPPORTED) {
        symh_rt_symm_fail(call, status,
                          "%s: [%p, +%zu) is not (all) memory mapped through the VMM API "
                          "(symh_physmem_map); heap, malloc and posix_memalign memory cannot be "
                          "aliased",
                          call->name, addr, length);
        return;
    }
    if (status != SYMH_OK) {
        symh_rt_symm_fail(call, SYMH_ERR_INVALID_ARG,
                          "%s: [%p, +%zu) spans more than %d VMM mappings", call->name, addr,
                          length, SYMH_TL_IPC_MAX_OBJECTS);
        return;
    }
    for (i = 0; i < symh_rt_symm.count; ++i) {
        const symh_rt_symm_region_t *r = &symh_rt_symm.regions[i];

        if (a < r->src + r->length && r->src < a + length) {
            symh_rt_symm_fail(call, SYMH_ERR_OVERLAP,
                              "%s: [%p, +%zu) overlaps the symmetric registration of [%#" PRIxPTR
                              ", +%zu)",
                              call->name, addr, length, r->src, r->length);
            return;
        }
    }
    if ((size_t)symh_rt_symm.count >= max)
        symh_rt_symm_fail(call, SYMH_ERR_LIMIT,
                          "%s: %d symmetric regions are live, the most SYMH_MAX_SYMM_REGIONS "
                          "allows",
                          call->name, symh_rt_symm.count);
}

static void *symh_rt_symm_register(void *addr, size_t length)
{
    symh_rt_symm_call_t call = { .name = "symh_buffer_register_symmetric" };
    symh_vmm_piece_t pieces[SYMH_TL_IPC_MAX_OBJECTS];
    symh_tl_ipc_object_t objects[SYMH_TL_IPC_MAX_OBJECTS];
    symh_reg_entry_t entry = { 0 };
    size_t granule, span = 0, offset = 0;
    int n = 0, index = 0, i, status, recorded = 0;
    symh_rt_symm_region_t *grown;
    char *alias;

    granule = symh_tl_symm_granule();
    pthread_mutex_lock(&symh_rt_symm.lock);
    call.payload = (symh_coll_agree_t){ .op = SYMH_COLL_OP_REGISTER_SYMMETRIC, .status = SYMH_OK };
    call.payload.args[0] = length;
    call.payload.result = SYMH_RT_SYMM_NO_SLOT;
    symh_rt_symm_check(&call, addr, length, pieces, &n);
    if (call.payload.status == SYMH_OK) {
        span = (length + granule - 1) / granule * granule;
        grown = realloc(symh_rt_symm.regions,
                        (size_t)(symh_rt_symm.count + 1) * sizeof(*symh_rt_symm.regions));
        if (grown == NULL)
            symh_rt_symm_fail(&call, SYMH_ERR_NO_MEMORY, "%s: out of memory", call.name);
        else
            symh_rt_symm.regions = grown;
    }
    if (call.payload.status == SYMH_OK) {
        if (symh_rt_symm_slot(span, &offset, &index) != SYMH_OK)
            symh_rt_symm_fail(&call, SYMH_ERR_NO_MEMORY,
                              "%s: no %zu-byte slot left in the %zu-byte symmetric area (see "
                              "SYMH_SYMM_AREA_SIZE)",
                              call.name, span, symh_space.regions.size);
        else
            call.payload.result = offset;
    }
    status = symh_rt_symm_agree(&call, 1);
    if (status != SYMH_OK)
        goto out;

    /* Every PE agreed on (length, slot): map here and in every node-local peer. */
    alias = (char *)symh_space.regions.lo + offset;
    for (i = 0; i < n; ++i)
        objects[i] = (symh_tl_ipc_object_t){ .mem = pieces[i].mem,
                                             .mem_offset = pieces[i].offset,
                                             .size = pieces[i].size };
    call.payload.op = SYMH_COLL_OP_REGISTER_SYMMETRIC_MAP;
    status = symh_tl_symm_add(offset, length, n, objects, SYMH_OK);
    /* The NIC domain's part (collective too: every PE takes part, a failed one only listens). */
    status = symh_tl_nic_symm_add(symh_space.regions.window_offset + offset, alias, length, status);
    if (status == SYMH_OK) {
        entry.base = (uintptr_t)alias;
        entry.length = length;
        entry.kind = SYMH_REG_KIND_SYMM_ALIAS;
        entry.device = -1;
        snprintf(entry.label, sizeof(entry.label), "symmetric alias");
        status = symh_reg_map_insert(symh_reg_registry, &entry, NULL);
        recorded = status == SYMH_OK;
    }
    if (status != SYMH_OK)
        symh_rt_symm_fail(&call, status, "%s: cannot map or share the alias of [%p, +%zu): %s",
                          call.name, addr, length, symh_status_string(status));
    status = symh_rt_symm_agree(&call, 1);
    if (status != SYMH_OK) {
        if (recorded)
            symh_reg_map_remove(symh_reg_registry, (uintptr_t)alias, NULL);
        symh_tl_nic_symm_remove(symh_space.regions.window_offset + offset);
        symh_tl_symm_remove(offset, length);
        goto out;
    }
    memmove(&symh_rt_symm.regions[index + 1], &symh_rt_symm.regions[index],
            (size_t)(symh_rt_symm.count - index) * sizeof(*symh_rt_symm.regions));
    symh_rt_symm.regions[index] = (symh_rt_symm_region_t){
        .offset = offset, .length = length, .span = span, .src = (uintptr_t)addr
    };
    symh_rt_symm.count++;
    pthread_mutex_unlock(&symh_rt_symm.lock);
    symh_status_set(SYMH_OK);
    return alias;

out:
    pthread_mutex_unlock(&symh_rt_symm.lock);
    symh_status_set(status);
    return NULL;
}

static int symh_rt_symm_unregister(void *symm_addr)
{
    symh_rt_symm_call_t call = { .name = "symh_buffer_unregister_symmetric" };
    uintptr_t a = (uintptr_t)symm_addr;
    int i, found = -1, status;

    pthread_mutex_lock(&symh_rt_symm.lock);
    call.payload =
        (symh_coll_agree_t){ .op = SYMH_COLL_OP_UNREGISTER_SYMMETRIC, .status = SYMH_OK };
    call.payload.result = SYMH_RT_SYMM_NO_SLOT;
    for (i = 0; i < symh_rt_symm.count && found < 0; ++i)
        if (symh_space.regions.lo + symh_rt_symm.regions[i].offset == a)
            found = i;
    if (symm_addr == NULL)
        symh_rt_symm_fail(&call, SYMH_ERR_INVALID_ARG, "%s: symm_addr is NULL", call.name);
    else if (found < 0)
        symh_rt_symm_fail(&call, SYMH_ERR_NOT_REGISTERED,
                          "%s: %p is not an address symh_buffer_register_symmetric returned (or "
                          "it is already unregistered)",
                          call.name, symm_addr);
    else
        call.payload.result = symh_rt_symm.regions[found].offset;
    status = symh_rt_symm_agree(&call, 0);
    if (status == SYMH_OK) {
        const symh_rt_symm_region_t *r = &symh_rt_symm.regions[found];

        symh_reg_map_remove(symh_reg_registry, a, NULL);
        symh_tl_nic_symm_remove(symh_space.regions.window_offset + r->offset);
        symh_tl_symm_remove(r->offset, r->length);
        memmove(&symh_rt_symm.regions[found], &symh_rt_symm.regions[found + 1],
                (size_t)(symh_rt_symm.count - found - 1) * sizeof(*symh_rt_symm.regions));
        symh_rt_symm.count--;
    }
    pthread_mutex_unlock(&symh_rt_symm.lock);
    return symh_status_set(status);
}

/* The public entry points: one collective call of the world team each (coll_agree.h). */
void *symh_buffer_register_symmetric(void *addr, size_t length)
{
    SYMH_CHECK_INIT(symh_rt_symm_up(), NULL);
    SYMH_COLL_CALL(SYMH_COLL_OP_REGISTER_SYMMETRIC, void *, NULL,
                   symh_rt_symm_register(addr, length));
}

int symh_buffer_unregister_symmetric(void *symm_addr)
{
    SYMH_CHECK_INIT(symh_rt_symm_up(), SYMH_ERR_NOT_INITIALIZED);
    SYMH_COLL_CALL(SYMH_COLL_OP_UNREGISTER_SYMMETRIC, int, SYMH_ERR_MISMATCH,
                   symh_rt_symm_unregister(symm_addr));
}

int symh_rt_symm_count(void)
{
    int count;

    pthread_mutex_lock(&symh_rt_symm.lock);
    count = symh_rt_symm.count;
    pthread_mutex_unlock(&symh_rt_symm.lock);
    return count;
}

void symh_rt_symm_fini(void)
{
    /* The aliases go with the window and the peer views; the entries with the registry. */
    pthread_mutex_lock(&symh_rt_symm.lock);
    free(symh_rt_symm.regions);
    symh_rt_symm.regions = NULL;
    symh_rt_symm.count = 0;
    pthread_mutex_unlock(&symh_rt_symm.lock);
}
