/* transport: the RMA entry points (putmem/getmem, the typed put/get/p/g/iput/iget families and
 * their _nbi forms), fence and quiet, the pointer queries, and the translation cache they share
 * with tl_amo.c and tl_sync.c. A peer with a mapped window (tl_ipc.c) is reached by load/store,
 * so a put is a memcpy and completes before it returns; any other peer goes through the ops of its
 * route (a NIC transport, tl_nic.c), whose local side may be any host memory (registered memory
 * takes its zero-copy path) and whose _nbi forms may complete only at quiet. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/rma.h>

#include "bootstrap/boot.h"
#include "transport/tl_ctx.h"
#include "transport/tl_data.h"
#include "transport/tl_ipc.h"
#include "transport/tl_nic.h"
#include "transport/tl_rma.h"
#include "transport/tl_symm.h"
#include "transport/tl_route.h"

symh_tl_rma_state_t symh_tl_rma;

int symh_tl_rma_init(const symh_amap_t *amap)
{
    int n = symh_boot_info.n_pes, pe;
    char **bases;

    symh_tl_rma_fini();
    if (symh_tl_window.base == NULL || n < 1) {
        symh_error("symh_tl_rma_init: the symmetric window is not set up");
        return SYMH_ERR_NOT_INITIALIZED;
    }
    if (symh_tl_symm_init() != SYMH_OK)
        return SYMH_ERR_NO_MEMORY;
    bases = calloc((size_t)n, sizeof(*bases));
    if (bases == NULL) {
        symh_tl_symm_fini();
        symh_error("symh_tl_rma_init: cannot allocate %d peer bases", n);
        return SYMH_ERR_NO_MEMORY;
    }
    for (pe = 0; pe < n; ++pe)
        bases[pe] = symh_tl_ipc_peer_base(pe);
    symh_tl_rma = (symh_tl_rma_state_t){
        .my_pe = symh_boot_info.my_pe,
        .n_pes = n,
        .peer_base = bases,
        .amap = amap,
        .amap_words = amap != NULL ? amap->words : NULL,
    };
    symh_space_heap_set(symh_tl_window.base, symh_tl_window.heap_offset, symh_tl_window.heap_size);
    symh_tl_rma.up = 1;
    return SYMH_OK;
}

void symh_tl_rma_fini(void)
{
    symh_tl_symm_fini();
    free(symh_tl_rma.peer_base);
    /* n_pes 0 and heap_size 0 make every translation fail even if `up` were read stale. */
    symh_tl_rma = (symh_tl_rma_state_t){ .up = 0 };
    symh_space_heap_clear();
}

void symh_tl_rma_fork_child(void)
{
    /* Nothing is freed or unmapped: the child's copies of the windows are absent already
     * (dev_host.c), and the rest is the parent's state, copied. */
    symh_tl_rma.up = 0;
}

void symh_tl_rma_not_up(const char *func)
{
    SYMH_LOG_NOT_INITIALIZED(func);
    symh_status_set(SYMH_ERR_NOT_INITIALIZED);
}

int symh_tl_rma_slow(const symh_tl_rma_access_t *access, const void *addr, size_t nelems, int pe,
                     symh_space_target_t *target, char **mapped)
{
    const char *func = access->func, *arg = access->arg;
    size_t elem_size = access->elem_size, align = access->align, bytes, left;
    uintptr_t lo = symh_space.heap_lo, a = (uintptr_t)addr;
    size_t alloc_offset = 0, alloc_bytes = 0;
    symh_amap_verdict_t verdict;
    const char *segment;
    char *base;
    char lib[256];

    /* An overflowing size runs past every segment (the message below says so). */
    if (__builtin_mul_overflow(nelems, elem_size, &bytes))
        bytes = SIZE_MAX;
    (void)symh_space_resolve(addr, bytes, target);
    left = target->left;
    if (pe < 0 || pe >= symh_tl_rma.n_pes) {
        symh_error("%s: pe %d is out of range (0..%d)", func, pe, symh_tl_rma.n_pes - 1);
        return SYMH_ERR_INVALID_ARG;
    }
    switch (target->kind) {
    case SYMH_SPACE_HEAP:
    case SYMH_SPACE_REGION:
    case SYMH_SPACE_GLOBALS:
        break;
    case SYMH_SPACE_INTERNAL: /* symheap's own words are not the user's to access */
    case SYMH_SPACE_NONE:
    default:
        if (symh_tl_data_foreign(a, lib, sizeof(lib))) {
            symh_error("%s: %s %p is a global of the shared library %s, which is not symmetric "
                       "(only the executable's globals and statics are)",
                       func, arg, addr, lib);
            return SYMH_ERR_NOT_SYMMETRIC;
        }
        symh_error("%s: %s %p is not a symmetric address (the symmetric heap is %p .. %p; "
                   "else a region of symh_buffer_register_symmetric or a global of the "
                   "executable, %p .. %p)",
                   func, arg, addr, (void *)lo, (void *)(lo + symh_space.heap_size),
                   (void *)symh_space.globals.lo,
                   (void *)(symh_space.globals.lo + symh_space.globals.size));
        return SYMH_ERR_NOT_REGISTERED;
    }
    if (nelems > left / elem_size) {
        segment = target->kind == SYMH_SPACE_HEAP     ? "the symmetric heap"
                  : target->kind == SYMH_SPACE_REGION ? "its symmetric region"
                                                      : "the executable's globals";
        symh_error("%s: %s %p + %zu elements of %zu bytes runs past the end of %s (%zu bytes "
                   "left)",
                   func, arg, addr, nelems, elem_size, segment, left);
        return SYMH_ERR_NOT_REGISTERED;
    }
    if (target->kind == SYMH_SPACE_HEAP) {
        verdict = symh_tl_rma.amap == NULL || (access->flags & SYMH_TL_RMA_QUERY)
                      ? SYMH_AMAP_INSIDE
                      : symh_amap_check(symh_tl_rma.amap, a - lo, nelems * elem_size, &alloc_offset,
                                        &alloc_bytes);
        if (verdict == SYMH_AMAP_FREED) {
            symh_error("%s: %s %p (heap+%#zx) is in freed heap: no live allocation holds it", func,
                       arg, addr, (size_t)(a - lo));
            return SYMH_ERR_NOT_REGISTERED;
        }
        if (verdict == SYMH_AMAP_PAST_END) {
            symh_error("%s: %s %p + %zu elements of %zu bytes runs past the end of its allocation "
                       "(%p, %zu bytes; %zu bytes left)",
                       func, arg, addr, nelems, elem_size, (void *)(lo + alloc_offset), alloc_bytes,
                       (size_t)(alloc_offset + alloc_bytes - (a - lo)));
            return SYMH_ERR_NOT_REGISTERED;
        }
    }
    if ((a & (align - 1)) != 0) {
        symh_error("%s: %s %p is not aligned to %zu bytes", func, arg, addr, align);
        return SYMH_ERR_INVALID_ARG;
    }
    /* A global is at its offset from that PE's own segment (tl_data.h), the rest in its window. */
    base =
        target->kind == SYMH_SPACE_GLOBALS ? symh_tl_data.peer_base[pe] : symh_tl_rma.peer_base[pe];
    *mapped = base == NULL ? NULL : base + target->offset;
    return SYMH_OK;
}

void symh_tl_rma_ops_done(symh_log_context_t *ctx, const symh_tl_ops_t *ops, int status)
{
    const char *func = ctx->func;
    int pe = ctx->pe;

    symh_log_context_pop(ctx);
    /* NOT_REGISTERED was logged by the local-buffer check; a transport's own line (ctx->errors)
     * already names the call and the PE. */
    if (status == SYMH_OK || status == SYMH_ERR_NOT_REGISTERED || ctx->errors != 0)
        ;
    else if ((ops->caps & (SYMH_TL_CAP_LOADSTORE | SYMH_TL_CAP_NIC)) == 0)
        symh_error("%s: no load/store route to PE %d, and no transport built into symheap "
                   "reaches it (route %s)",
                   func, pe, symh_tl_name(symh_tl_route_of(pe)));
    else
        symh_error("%s: the %s transport failed on PE %d: %s", func, ops->name, pe,
                   symh_status_string(status));
    symh_status_set(status);
}

/* The local side of a transfer through `ops`, looked up here once and handed to the transport
 * (docs/transports.md "The local side's handle"): through a NIC transport it may be any host
 * memory, not GPU memory, and only memory symheap knows under SYMH_NIC_REGISTERED_ONLY=1
 * (symh_tl_nic_local), and *found gets its key slot or handle; SYMH_OK with nothing found for
 * every other route. Logged and recorded when refused. */
static int symh_tl_rma_local(const char *func, const symh_tl_ops_t *ops, const void *local,
                             size_t bytes, symh_tl_local_t *found)
{
    int status;

    found->slot = -1;
    found->handle = NULL;
    if (symh_tl_nic == NULL || !(ops->caps & SYMH_TL_CAP_NIC))
        return SYMH_OK;
    status = symh_tl_nic_local(func, local, bytes, found);
    if (status != SYMH_OK)
        symh_status_set(status);
    return status;
}

void symh_tl_rma_ops_xfer(const symh_tl_rma_access_t *access, symh_tl_chan_t *chan, void *dest,
                          const void *source, size_t bytes, int pe,
                          const symh_space_target_t *target)
{
    const symh_tl_ops_t *ops = symh_tl_ops_of(pe);
    int flags = access->flags, is_put = flags & SYMH_TL_RMA_PUT, status;
    symh_tl_local_t found, *local = NULL;
    symh_log_context_t ctx;

    /* symheap's own memory (OWN_LOCAL: the value of symh_T_p/g) is not checked, and the
     * transport finds its descriptor itself where it needs one. */
    if (!(flags & SYMH_TL_RMA_OWN_LOCAL)) {
        if (symh_tl_rma_local(access->func, ops, is_put ? source : dest, bytes, &found) != SYMH_OK)
            return;
        local = &found;
    }
    symh_tl_rma_ops_begin(&ctx, access->func, pe);
    if (flags & SYMH_TL_RMA_NBI)
        status = is_put ? ops->put_nbi(chan, dest, source, bytes, pe, local, target)
                        : ops->get_nbi(chan, dest, source, bytes, pe, local, target);
    else
        status = is_put ? ops->put(chan, dest, source, bytes, pe, local, target)
                        : ops->get(chan, dest, source, bytes, pe, local, target);
    symh_tl_rma_ops_done(&ctx, ops, status);
}

/* Logs and records a NULL local buffer of a non-empty transfer; returns 1 when it was NULL. */
static int symh_tl_rma_null_local(const char *func, const char *arg, const void *local)
{
    if (__builtin_expect(local != NULL, 1))
        return 0;
    symh_error("%s: %s is NULL", func, arg);
    symh_status_set(SYMH_ERR_INVALID_ARG);
    return 1;
}

/* A contiguous transfer (put: the symmetric side is dest; get: source); always inlined so that
 * the typed wrappers' constant access folds into one bounds check and one copy. */
static inline __attribute__((always_inline)) void
symh_tl_rma_xfer(const symh_tl_rma_access_t *access, symh_ctx_t ctx, void *dest, const void *source,
                 size_t nelems, int pe)
{
    int is_put = access->flags & SYMH_TL_RMA_PUT;
    symh_space_target_t target;
    symh_tl_chan_t *chan;
    char *mapped;

    SYMH_TL_RMA_CHECK_UP_IN(access->func, );
    if (!symh_tl_ctx_enter(access->func, ctx, &pe, &chan))
        return;
    if (nelems == 0) {
        symh_status_set(SYMH_OK);
        return;
    }
    if (symh_tl_rma_null_local(access->func, is_put ? "source" : "dest", is_put ? source : dest))
        return;
    if (!symh_tl_rma_resolve(access, is_put ? (const void *)dest : source, nelems, pe, &target,
                             &mapped))
        return;
    if (mapped == NULL) {
        symh_tl_rma_ops_xfer(access, chan, dest, source, nelems * access->elem_size, pe, &target);
        return;
    }
    symh_status_set(is_put ? symh_tl_ipc_copy(mapped, source, nelems * access->elem_size)
                           : symh_tl_ipc_copy(dest, mapped, nelems * access->elem_size));
}

/* Elements spanned by `nelems` elements `stride` apart, or SIZE_MAX when that overflows (which
 * the translation then reports as running past the end of the heap). */
static inline size_t symh_tl_rma_span(size_t nelems, ptrdiff_t stride)
{
    size_t step = (size_t)stride;

    return nelems - 1 > (SIZE_MAX - 1) / step ? SIZE_MAX : (nelems - 1) * step + 1;
}

static int symh_tl_rma_bad_strides(const char *func, ptrdiff_t dst, ptrdiff_t sst)
{
    if (__builtin_expect(dst > 0 && sst > 0, 1))
        return 0;
    symh_error("%s: strides must be positive (dst %td, sst %td)", func, dst, sst);
    symh_status_set(SYMH_ERR_INVALID_ARG);
    return 1;
}

/* Elements a strided transfer through a NIC transport posts (strided_nbi) before it waits for
 * their local completion (wait_local): one wait per batch instead of one completion per element,
 * which over libfabric was a round trip to the target each (FI_DELIVERY_COMPLETE: 3.7 to 13
 * thousand elements/s over loopback tcp). The batch bounds what the posts leave queued in the
 * transport (UCX queues a put that finds its wire busy until the worker progresses, which a post
 * does not do; a full libfabric queue answers -FI_EAGAIN and the post progresses and retries).
 * Its wait costs a round trip over libfabric (25 us over loopback tcp on the 2-core VM) against
 * the 4 ms a batch of 1024 takes there (docs/rma.md "Strided transfers"). */
#define SYMH_TL_RMA_STRIDED_BATCH 1024

/* The elements of `x` through `ops`, posted as many to a post as the transport carries, a wait
 * for local completion once a batch has been posted and one at the end: the call returns with
 * every source reusable (iput) and every destination written (iget), also after a failed post
 * (the elements posted before it may still be reading or writing). Nothing after a failed post
 * is posted; the first failure is the status. */
static int symh_tl_rma_strided_ops(const symh_tl_ops_t *ops, symh_tl_chan_t *chan,
                                   const symh_tl_strided_t *x)
{
    size_t i = 0, posted, unwaited = 0;
    int status = SYMH_OK, waited;

    while (i < x->nelems && status == SYMH_OK) {
        posted = 0;
        status = ops->strided_nbi(chan, x, i, &posted);
        symh_assert(status != SYMH_OK || (posted > 0 && posted <= x->nelems - i));
        i += posted;
        unwaited += posted;
        if (status == SYMH_OK && unwaited >= SYMH_TL_RMA_STRIDED_BATCH && i < x->nelems) {
            status = ops->wait_local(chan);
            unwaited = 0;
        }
    }
    waited = ops->wait_local(chan);
    return status != SYMH_OK ? status : waited;
}

/* Strided transfers (iput: PUT, the symmetric side is dest; iget: source): one translation of
 * the whole span, then one element copy per stride through a mapping (always inlined so that the
 * element size is a constant and each copy one load and one store), or the elements posted in
 * batches through the route's transport (symh_tl_rma_strided_ops). */
static inline __attribute__((always_inline)) void
symh_tl_rma_strided(const symh_tl_rma_access_t *access, symh_ctx_t ctx, void *dest,
                    const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)
{
    const char *func = access->func;
    int is_put = access->flags & SYMH_TL_RMA_PUT, status = SYMH_OK;
    const void *sym = is_put ? (const void *)dest : source;
    size_t size = access->elem_size, i;
    const symh_tl_ops_t *ops;
    symh_tl_strided_t xfer;
    symh_log_context_t log;
    symh_tl_chan_t *chan;
    char *mapped, *d;
    const char *s;

    SYMH_TL_RMA_CHECK_UP_IN(func, );
    if (!symh_tl_ctx_enter(func, ctx, &pe, &chan))
        return;
    if (nelems == 0) {
        symh_status_set(SYMH_OK);
        return;
    }
    if (symh_tl_rma_bad_strides(func, dst, sst) ||
        symh_tl_rma_null_local(func, is_put ? "source" : "dest", is_put ? source : dest))
        return;
    if (!symh_tl_rma_target(access, sym, symh_tl_rma_span(nelems, is_put ? dst : sst), pe, &mapped))
        return;
    if (mapped != NULL) { /* the data path: element copies through the mapping */
        d = is_put ? mapped : (char *)dest;
        s = is_put ? (const char *)source : mapped;
        for (i = 0; i < nelems && status == SYMH_OK; ++i)
            status = symh_tl_ipc_copy(d + i * (size_t)dst * size, s + i * (size_t)sst * size, size);
        symh_status_set(status);
        return;
    }
    ops = symh_tl_ops_of(pe);
    xfer = (symh_tl_strided_t){ .dest = dest,
                                .source = source,
                                .dest_step = (size_t)dst * size,
                                .source_step = (size_t)sst * size,
                                .size = size,
                                .nelems = nelems,
                                .is_put = is_put,
                                .pe = pe };
    /* One look-up for the whole local span: every element lies in what it found. */
    if (symh_tl_rma_local(func, ops, is_put ? source : dest,
                          symh_tl_rma_span(nelems, is_put ? sst : dst) * size,
                          &xfer.local) != SYMH_OK)
        return;
    symh_tl_rma_ops_begin(&log, func, pe);
    status = symh_tl_rma_strided_ops(ops, chan, &xfer);
    symh_tl_rma_ops_done(&log, ops, status);
}

/* Each entry point is defined twice, plain and with a context (SYMH_TL_CTX_FORMS, tl_ctx.h). */
/* Load/store completes in the call; a NIC transport may leave the _nbi forms to quiet. */
#define SYMH_TL_RMA_MEM_DEFINE(P, CP, C, NAME, TYPE)                                            \
    void P##_putmem(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems, int pe)     \
    {                                                                                           \
        SYMH_TL_RMA_ACCESS(access, "dest", 1, 1, SYMH_TL_RMA_PUT | SYMH_TL_RMA_BLOCKING);       \
        symh_tl_rma_xfer(&access, C, dest, source, nelems, pe);                                 \
    }                                                                                           \
    void P##_getmem(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems, int pe)     \
    {                                                                                           \
        SYMH_TL_RMA_ACCESS(access, "source", 1, 1, SYMH_TL_RMA_BLOCKING);                       \
        symh_tl_rma_xfer(&access, C, dest, source, nelems, pe);                                 \
    }                                                                                           \
    void P##_putmem_nbi(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems, int pe) \
    {                                                                                           \
        SYMH_TL_RMA_ACCESS(access, "dest", 1, 1, SYMH_TL_RMA_PUT | SYMH_TL_RMA_NBI);            \
        symh_tl_rma_xfer(&access, C, dest, source, nelems, pe);                                 \
    }                                                                                           \
    void P##_getmem_nbi(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems, int pe) \
    {                                                                                           \
        SYMH_TL_RMA_ACCESS(access, "source", 1, 1, SYMH_TL_RMA_NBI);                            \
        symh_tl_rma_xfer(&access, C, dest, source, nelems, pe);                                 \
    }
SYMH_TL_CTX_FORMS(SYMH_TL_RMA_MEM_DEFINE, mem, void)
#undef SYMH_TL_RMA_MEM_DEFINE

/* The access of a typed entry point: TYPE's size and alignment. */
#define SYMH_TL_RMA_TYPED(arg, TYPE, flags) \
    SYMH_TL_RMA_ACCESS(access, arg, sizeof(TYPE), _Alignof(TYPE), flags)

#define SYMH_TL_RMA_DEFINE(P, CP, C, NAME, TYPE)                                                  \
    void P##_##NAME##_put(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source, size_t nelems, int pe) \
    {                                                                                             \
        SYMH_TL_RMA_TYPED("dest", TYPE, SYMH_TL_RMA_PUT | SYMH_TL_RMA_BLOCKING);                  \
        symh_tl_rma_xfer(&access, C, dest, source, nelems, pe);                                   \
    }                                                                                             \
    void P##_##NAME##_get(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source, size_t nelems, int pe) \
    {                                                                                             \
        SYMH_TL_RMA_TYPED("source", TYPE, SYMH_TL_RMA_BLOCKING);                                  \
        symh_tl_rma_xfer(&access, C, dest, source, nelems, pe);                                   \
    }                                                                                             \
    void P##_##NAME##_put_nbi(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source, size_t nelems,     \
                              int pe)                                                             \
    {                                                                                             \
        SYMH_TL_RMA_TYPED("dest", TYPE, SYMH_TL_RMA_PUT | SYMH_TL_RMA_NBI);                       \
        symh_tl_rma_xfer(&access, C, dest, source, nelems, pe);                                   \
    }                                                                                             \
    void P##_##NAME##_get_nbi(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source, size_t nelems,     \
                              int pe)                                                             \
    {                                                                                             \
        SYMH_TL_RMA_TYPED("source", TYPE, SYMH_TL_RMA_NBI);                                       \
        symh_tl_rma_xfer(&access, C, dest, source, nelems, pe);                                   \
    }                                                                                             \
    void P##_##NAME##_p(SYMH_UNPAREN_ CP TYPE *dest, TYPE value, int pe)                          \
    {                                                                                             \
        SYMH_TL_RMA_TYPED("dest", TYPE, SYMH_TL_RMA_PUT | SYMH_TL_RMA_OWN_LOCAL);                 \
        symh_tl_rma_xfer(&access, C, dest, &value, 1, pe);                                        \
    }                                                                                             \
    TYPE P##_##NAME##_g(SYMH_UNPAREN_ CP const TYPE *source, int pe)                              \
    {                                                                                             \
        SYMH_TL_RMA_TYPED("source", TYPE, SYMH_TL_RMA_OWN_LOCAL);                                 \
        TYPE value = 0;                                                                           \
                                                                                                  \
        symh_tl_rma_xfer(&access, C, &value, source, 1, pe);                                      \
        return value;                                                                             \
    }                                                                                             \
    void P##_##NAME##_iput(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source, ptrdiff_t dst,        \
                           ptrdiff_t sst, size_t nelems, int pe)                                  \
    {                                                                                             \
        SYMH_TL_RMA_TYPED("dest", TYPE, SYMH_TL_RMA_PUT | SYMH_TL_RMA_BLOCKING);                  \
        symh_tl_rma_strided(&access, C, dest, source, dst, sst, nelems, pe);                      \
    }                                                                                             \
    void P##_##NAME##_iget(SYMH_UNPAREN_ CP TYPE *dest, const TYPE *source, ptrdiff_t dst,        \
                           ptrdiff_t sst, size_t nelems, int pe)                                  \
    {                                                                                             \
        SYMH_TL_RMA_TYPED("source", TYPE, SYMH_TL_RMA_BLOCKING);                                  \
        symh_tl_rma_strided(&access, C, dest, source, dst, sst, nelems, pe);                      \
    }
#define SYMH_TL_RMA_DEFINE_FORMS(NAME, TYPE) SYMH_TL_CTX_FORMS(SYMH_TL_RMA_DEFINE, NAME, TYPE)
SYMH_RMA_TYPES(SYMH_TL_RMA_DEFINE_FORMS)
#undef SYMH_TL_RMA_DEFINE_FORMS
#undef SYMH_TL_RMA_DEFINE
#undef SYMH_TL_RMA_TYPED

/* The sized forms: elements of BITS / 8 bytes, no alignment asked of either side. */
#define SYMH_TL_RMA_SIZED(arg, BITS, flags) SYMH_TL_RMA_ACCESS(access, arg, (BITS) / 8, 1, flags)

#define SYMH_TL_RMA_SIZED_DEFINE(P, CP, C, BITS, UNUSED)                                       \
    void P##_put##BITS(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems, int pe) \
    {                                                                                          \
        SYMH_TL_RMA_SIZED("dest", BITS, SYMH_TL_RMA_PUT | SYMH_TL_RMA_BLOCKING);               \
        symh_tl_rma_xfer(&access, C, dest, source, nelems, pe);                                \
    }                                                                                          \
    void P##_get##BITS(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems, int pe) \
    {                                                                                          \
        SYMH_TL_RMA_SIZED("source", BITS, SYMH_TL_RMA_BLOCKING);                               \
        symh_tl_rma_xfer(&access, C, dest, source, nelems, pe);                                \
    }                                                                                          \
    void P##_put##BITS##_nbi(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems,   \
                             int pe)                                                           \
    {                                                                                          \
        SYMH_TL_RMA_SIZED("dest", BITS, SYMH_TL_RMA_PUT | SYMH_TL_RMA_NBI);                    \
        symh_tl_rma_xfer(&access, C, dest, source, nelems, pe);                                \
    }                                                                                          \
    void P##_get##BITS##_nbi(SYMH_UNPAREN_ CP void *dest, const void *source, size_t nelems,   \
                             int pe)                                                           \
    {                                                                                          \
        SYMH_TL_RMA_SIZED("source", BITS, SYMH_TL_RMA_NBI);                                    \
        symh_tl_rma_xfer(&access, C, dest, source, nelems, pe);                                \
    }                                                                                          \
    void P##_iput##BITS(SYMH_UNPAREN_ CP void *dest, const void *source, ptrdiff_t dst,        \
                        ptrdiff_t sst, size_t nelems, int pe)                                  \
    {                                                                                          \
        SYMH_TL_RMA_SIZED("dest", BITS, SYMH_TL_RMA_PUT | SYMH_TL_RMA_BLOCKING);               \
        symh_tl_rma_strided(&access, C, dest, source, dst, sst, nelems, pe);                   \
    }                                                                                          \
    void P##_iget##BITS(SYMH_UNPAREN_ CP void *dest, const void *source, ptrdiff_t dst,        \
                        ptrdiff_t sst, size_t nelems, int pe)                                  \
    {                                                                                          \
        SYMH_TL_RMA_SIZED("source", BITS, SYMH_TL_RMA_BLOCKING);                               \
        symh_tl_rma_strided(&access, C, dest, source, dst, sst, nelems, pe);                   \
    }
#define SYMH_TL_RMA_SIZED_DEFINE_FORMS(BITS) SYMH_TL_CTX_FORMS(SYMH_TL_RMA_SIZED_DEFINE, BITS, void)
SYMH_RMA_SIZES(SYMH_TL_RMA_SIZED_DEFINE_FORMS)
#undef SYMH_TL_RMA_SIZED_DEFINE_FORMS
#undef SYMH_TL_RMA_SIZED_DEFINE
#undef SYMH_TL_RMA_SIZED

/* A mapped peer is reached by CPU loads and stores to coherent shared memory, and such a put has
 * completed (its stores are issued) when the call returns. What remains is the order in which
 * other PEs observe them: a sequentially consistent fence keeps the compiler from moving loads
 * and stores across it and, on x86-64, is an MFENCE, which drains the store buffer and orders
 * the weakly ordered non-temporal stores glibc's memcpy uses for large copies. After it, every
 * earlier load/store put and AMO is visible to every PE (quiet), and therefore ordered before
 * later ones (fence). On weaker CPUs (Arm) the same fence is a full DMB ISH, which gives the
 * same. Peers reached through a NIC transport get its own fence or quiet as well. */
/* The fence or quiet of `ctx` (symh_fence, symh_quiet: the default context): the CPU fence for
 * load/store peers, then the NIC's on the context's channel. */
static void symh_tl_rma_order(const char *func, symh_ctx_t ctx, int quiet)
{
    symh_tl_chan_t *chan;
    int status;

    SYMH_TL_RMA_CHECK_UP_IN(func, );
    if (!symh_tl_ctx_enter(func, ctx, NULL, &chan))
        return;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* A NIC transport orders its own operations (UCX: a worker fence) and completes them at
     * their targets (quiet). */
    status = quiet ? symh_tl_nic_quiet(chan) : symh_tl_nic_fence(chan);
    if (status != SYMH_OK)
        symh_error("%s: the NIC transport's %s failed: %s", func, quiet ? "quiet" : "fence",
                   symh_status_string(status));
    symh_status_set(status);
}

void symh_fence(void)
{
    symh_tl_rma_order(__func__, SYMH_CTX_DEFAULT, 0);
}

void symh_quiet(void)
{
    symh_tl_rma_order(__func__, SYMH_CTX_DEFAULT, 1);
}

void symh_ctx_fence(symh_ctx_t ctx)
{
    symh_tl_rma_order(__func__, ctx, 0);
}

void symh_ctx_quiet(symh_ctx_t ctx)
{
    symh_tl_rma_order(__func__, ctx, 1);
}

/* ---- pointer queries: answers, not misuse, unless the arguments are invalid --------------- */

/* Reachable by RMA at all: mapped (load/store) or through a NIC transport. */
static int symh_tl_rma_reaches(int pe)
{
    return symh_tl_rma.peer_base[pe] != NULL ||
           (symh_tl_ops_of(pe)->caps & (SYMH_TL_CAP_LOADSTORE | SYMH_TL_CAP_NIC)) != 0;
}

int symh_pe_accessible(int pe)
{
    SYMH_TL_RMA_CHECK_UP(0);
    symh_status_set(SYMH_OK);
    return (unsigned)pe < (unsigned)symh_tl_rma.n_pes && symh_tl_rma_reaches(pe);
}

int symh_addr_accessible(const void *addr, int pe)
{
    symh_space_target_t target;

    SYMH_TL_RMA_CHECK_UP(0);
    symh_status_set(SYMH_OK);
    /* Any byte of the heap, a region or the globals; symheap's internal area is not the user's. */
    return (unsigned)pe < (unsigned)symh_tl_rma.n_pes && symh_tl_rma_reaches(pe) &&
           symh_space_resolve(addr, 1, &target) && target.kind != SYMH_SPACE_INTERNAL;
}

void *symh_ptr(const void *dest, int pe)
{
    SYMH_TL_RMA_ACCESS(access, "dest", 1, 1, SYMH_TL_RMA_BLOCKING | SYMH_TL_RMA_QUERY);
    char *remote;

    SYMH_TL_RMA_CHECK_UP(NULL);
    if (!symh_tl_rma_target(&access, dest, 1, pe, &remote))
        return NULL;
    if (remote == NULL) {
        symh_debug("symh_ptr: no load/store route to PE %d", pe);
        symh_status_set(SYMH_ERR_UNSUPPORTED);
        return NULL;
    }
    symh_status_set(SYMH_OK);
    return remote;
}
