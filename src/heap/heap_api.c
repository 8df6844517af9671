/* heap: the collective entry points symh_malloc, symh_align, symh_calloc, symh_realloc,
 * symh_free and symh_heap_stats. Each validates and acts locally, then passes the agreement
 * barrier exactly once with (operation, arguments, status, result offset), then keeps or rolls
 * back its local action, so that every PE returns the same thing. */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include <symheap/heap.h>

#include "collectives/coll_agree.h"
#include "core/core_status.h"
#include "heap/heap_window.h"
#include "heap/heap_alloc.h"

/* Names of the compared arguments; "ptr" arguments travel encoded (symh_heap_ptr_code). */
static const char *const symh_heap_arg_names[SYMH_COLL_OP_COUNT][SYMH_COLL_AGREE_ARGS] = {
    [SYMH_COLL_OP_MALLOC] = { "size" },
    [SYMH_COLL_OP_ALIGN] = { "alignment", "size" },
    [SYMH_COLL_OP_CALLOC] = { "count", "size" },
    [SYMH_COLL_OP_REALLOC] = { "ptr", "size" },
    [SYMH_COLL_OP_FREE] = { "ptr" },
    [SYMH_COLL_OP_MALLOC_WITH_HINTS] = { "size", "hints" },
};

/* Codes of the pointers that are no heap offset. Every foreign pointer has the same code: their
 * addresses differ from PE to PE by nature, and the local check already explains them. */
#define SYMH_HEAP_PTR_NULL    UINT64_MAX
#define SYMH_HEAP_PTR_FOREIGN (UINT64_MAX - 1)

static symh_heap_alloc_t *symh_heap_allocator;
static pthread_mutex_t symh_heap_lock = PTHREAD_MUTEX_INITIALIZER;
/* The live blocks again, as the transport's bounds check reads them (core_amap.h): every change of
 * the allocator below is followed, under the same lock, by the same change here. */
static symh_amap_t symh_heap_amap;

_Static_assert(SYMH_AMAP_GRANULE == SYMH_HEAP_ALLOC_GRANULE,
               "the allocation map's granule is the allocator's");

/* The allocator's lock, taken only when threads of this PE may call into the library at once
 * (SYMH_THREAD_MULTIPLE: a symh_heap_stats beside a symh_malloc). Below that level the program
 * serializes its calls (OpenSHMEM's thread levels; the collective calls' thread guard is skipped
 * there for the same reason), and an uncontended lock and unlock would cost about as much as
 * the allocation itself, three times per malloc + free pair. The level is fixed at init. */
static void symh_heap_lock_take(void)
{
    if (symh_coll_thread_multiple())
        pthread_mutex_lock(&symh_heap_lock);
}

static void symh_heap_lock_give(void)
{
    if (symh_coll_thread_multiple())
        pthread_mutex_unlock(&symh_heap_lock);
}

/* One collective call in progress: its payload, and why it failed here (logged only if this PE
 * is the one the verdict names, so that a misuse prints one line, not one per PE). */
typedef struct {
    symh_coll_agree_t payload;
    int nargs;
    int level;
    char reason[320];
} symh_heap_call_t;

static int symh_heap_up(void)
{
    return symh_heap_allocator != NULL;
}

static void symh_heap_call_start(symh_heap_call_t *call, int op, int nargs, uint64_t arg0,
                                 uint64_t arg1)
{
    call->payload = (symh_coll_agree_t){ .op = (uint32_t)op, .status = SYMH_OK };
    call->payload.args[0] = arg0;
    call->payload.args[1] = arg1;
    call->nargs = nargs;
    call->level = SYMH_LOG_ERROR;
    call->reason[0] = '\0';
}

static void symh_heap_call_fail(symh_heap_call_t *call, int status, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void symh_heap_call_fail(symh_heap_call_t *call, int status, int level, const char *fmt, ...)
{
    va_list ap;

    call->payload.status = status;
    call->level = level;
    va_start(ap, fmt);
    vsnprintf(call->reason, sizeof(call->reason), fmt, ap);
    va_end(ap);
}

/* A pointer as the agreement compares it: the heap offset, NULL, or "foreign". */
static uint64_t symh_heap_ptr_code(const void *ptr)
{
    uintptr_t p = (uintptr_t)ptr, heap = (uintptr_t)symh_heap_window.heap;

    if (ptr == NULL)
        return SYMH_HEAP_PTR_NULL;
    if (p >= heap && p - heap < symh_heap_window.heap_size)
        return (uint64_t)(p - heap);
    return SYMH_HEAP_PTR_FOREIGN;
}

/* An agreed argument as the lines show it: a pointer (named "ptr") by its code, else a number. */
static void symh_heap_format_arg(const char *arg_name, uint64_t value, char *buf, size_t len)
{
    if (arg_name[0] != 'p')
        snprintf(buf, len, "%" PRIu64, value);
    else if (value == SYMH_HEAP_PTR_NULL)
        snprintf(buf, len, "NULL");
    else if (value == SYMH_HEAP_PTR_FOREIGN)
        snprintf(buf, len, "an address outside the heap");
    else
        snprintf(buf, len, "heap+%#" PRIx64, value);
}

static void symh_heap_format_result(const symh_coll_verdict_t *v, char *buf, size_t len)
{
    snprintf(buf, len, "the heaps diverged: offset %#" PRIx64 " on PE 0 but %#" PRIx64 " on PE %d",
             v->value0, v->value, v->pe);
}

/* The barrier of every return path: agree, log the one line a failure deserves, and return the
 * status this PE reports (its own on a local failure, else SYMH_ERR_MISMATCH). */
static int symh_heap_agree(symh_heap_call_t *call)
{
    symh_coll_agree_t *mine = &call->payload;
    symh_coll_verdict_t v;
    int status = symh_coll_agree(mine, call->nargs, &v);
    const symh_coll_report_t report = {
        .func = symh_coll_op_name(mine->op),
        .arg_names = symh_heap_arg_names[mine->op],
        .format_arg = symh_heap_format_arg,
        .format_result = symh_heap_format_result,
        .reason = call->reason,
        .reason_level = call->level,
    };

    return status != SYMH_OK ? status : symh_coll_agree_report(&v, mine->status, &report);
}

/* The allocator's three changes, each followed by the map's (the caller holds the lock). */
static int symh_heap_alloc_mark(size_t size, size_t alignment, size_t *offset)
{
    size_t bytes = 0;
    int status = symh_heap_alloc_alloc(symh_heap_allocator, size, alignment, offset);

    if (status == SYMH_OK &&
        symh_heap_alloc_block_size(symh_heap_allocator, *offset, &bytes) == SYMH_OK)
        symh_amap_mark(&symh_heap_amap, *offset, bytes);
    return status;
}

static int symh_heap_alloc_unmark(size_t offset)
{
    size_t bytes = 0;
    int status = symh_heap_alloc_block_size(symh_heap_allocator, offset, &bytes);

    if (status == SYMH_OK)
        status = symh_heap_alloc_free(symh_heap_allocator, offset);
    if (status == SYMH_OK)
        symh_amap_unmark(&symh_heap_amap, offset, bytes);
    return status;
}

static int symh_heap_alloc_remark(size_t offset, size_t size)
{
    size_t old_bytes = 0, new_bytes = 0;
    int status = symh_heap_alloc_block_size(symh_heap_allocator, offset, &old_bytes);

    if (status == SYMH_OK)
        status = symh_heap_alloc_resize(symh_heap_allocator, offset, size);
    if (status == SYMH_OK &&
        symh_heap_alloc_block_size(symh_heap_allocator, offset, &new_bytes) == SYMH_OK)
        symh_amap_resize(&symh_heap_amap, offset, old_bytes, new_bytes);
    return status;
}

/* Local allocation for malloc, align, calloc and the moving realloc. */
static void symh_heap_local_alloc(symh_heap_call_t *call, size_t size, size_t alignment)
{
    const char *name = symh_coll_op_name(call->payload.op);
    symh_heap_alloc_stats_t stats;
    size_t offset;
    int status;

    symh_heap_lock_take();
    status = symh_heap_alloc_mark(size, alignment, &offset);
    if (status != SYMH_OK) /* for the message only: the largest free block is a walk */
        symh_heap_alloc_stats(symh_heap_allocator, &stats);
    symh_heap_lock_give();
    if (status == SYMH_OK) {
        call->payload.result = offset;
        return;
    }
    if (size > stats.size)
        symh_heap_call_fail(call, SYMH_ERR_NO_MEMORY, SYMH_LOG_ERROR,
                            "%s: %zu bytes exceed the whole heap (%zu bytes; see SYMH_HEAP_SIZE)",
                            name, size, stats.size);
    else
        symh_heap_call_fail(call, status, SYMH_LOG_ERROR,
                            "%s: heap exhausted on PE %d: %zu bytes (alignment %zu) requested, "
                            "largest free block %zu of %zu free",
                            name, symh_coll_my_pe(), size, alignment, stats.largest_free,
                            stats.free);
}

static void symh_heap_local_free(size_t offset)
{
    symh_heap_lock_take();
    symh_heap_alloc_unmark(offset);
    symh_heap_lock_give();
}

static int symh_heap_local_resize(size_t offset, size_t size)
{
    int status;

    symh_heap_lock_take();
    status = symh_heap_alloc_remark(offset, size);
    symh_heap_lock_give();
    return status;
}

/* Agreement for the calls that allocate: keep the block, or give it back. */
static void *symh_heap_finish_alloc(symh_heap_call_t *call)
{
    int status = symh_heap_agree(call);

    if (status == SYMH_OK) {
        symh_status_set(SYMH_OK);
        return symh_heap_window.heap + call->payload.result;
    }
    if (call->payload.status == SYMH_OK)
        symh_heap_local_free((size_t)call->payload.result);
    symh_status_set(status);
    return NULL;
}

/* Whether `ptr` starts a live block; on failure the call records why. */
static int symh_heap_local_lookup(symh_heap_call_t *call, const void *ptr, size_t *offset,
                                  size_t *bytes)
{
    const char *name = symh_coll_op_name(call->payload.op);
    uint64_t code = symh_heap_ptr_code(ptr);
    int status;

    if (code == SYMH_HEAP_PTR_FOREIGN) {
        symh_heap_call_fail(call, SYMH_ERR_NOT_REGISTERED, SYMH_LOG_ERROR,
                            "%s: %p is not in the symmetric heap [%p, %p)", name, ptr,
                            (void *)symh_heap_window.heap,
                            (void *)(symh_heap_window.heap + symh_heap_window.heap_size));
        return SYMH_ERR_NOT_REGISTERED;
    }
    symh_heap_lock_take();
    status = symh_heap_alloc_block_size(symh_heap_allocator, (size_t)code, bytes);
    symh_heap_lock_give();
    if (status != SYMH_OK) {
        symh_heap_call_fail(call, SYMH_ERR_NOT_REGISTERED, SYMH_LOG_ERROR,
                            "%s: %p (heap+%#" PRIx64 ") is not the start of a live allocation "
                            "(an interior pointer, or already freed)",
                            name, ptr, code);
        return SYMH_ERR_NOT_REGISTERED;
    }
    *offset = (size_t)code;
    return SYMH_OK;
}

static void *symh_heap_malloc_call(size_t size)
{
    symh_heap_call_t call;

    symh_heap_call_start(&call, SYMH_COLL_OP_MALLOC, 1, size, 0);
    if (size == 0)
        symh_heap_call_fail(&call, SYMH_ERR_INVALID_ARG, SYMH_LOG_WARN,
                            "symh_malloc: size 0 (returns NULL)");
    else
        symh_heap_local_alloc(&call, size, SYMH_HEAP_ALLOC_GRANULE);
    return symh_heap_finish_alloc(&call);
}

static void *symh_heap_malloc_hints_call(size_t size, long hints)
{
    const long known = SYMH_MALLOC_ATOMICS_REMOTE | SYMH_MALLOC_SIGNAL_REMOTE;
    symh_heap_call_t call;

    symh_heap_call_start(&call, SYMH_COLL_OP_MALLOC_WITH_HINTS, 2, size, (uint64_t)hints);
    if (size == 0)
        symh_heap_call_fail(&call, SYMH_ERR_INVALID_ARG, SYMH_LOG_WARN,
                            "symh_malloc_with_hints: size 0 (returns NULL)");
    else {
        /* Hints are hints: a bit of a later specification (or another implementation's) must
         * not turn a valid allocation into NULL. The heap is one kind of memory, so no hint
         * changes the placement, known or not. The bits still take part in the agreement. */
        if ((hints & ~known) != 0)
            symh_debug("symh_malloc_with_hints: hints %#lx has bits other than "
                       "SYMH_MALLOC_ATOMICS_REMOTE and SYMH_MALLOC_SIGNAL_REMOTE; ignored",
                       (unsigned long)hints);
        symh_heap_local_alloc(&call, size, SYMH_HEAP_ALLOC_GRANULE);
    }
    return symh_heap_finish_alloc(&call);
}

static void *symh_heap_align_call(size_t alignment, size_t size)
{
    symh_heap_call_t call;

    symh_heap_call_start(&call, SYMH_COLL_OP_ALIGN, 2, alignment, size);
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        symh_heap_call_fail(&call, SYMH_ERR_INVALID_ARG, SYMH_LOG_WARN,
                            "symh_align: alignment %zu is not a power of two (returns NULL)",
                            alignment);
    else if (alignment < sizeof(void *))
        symh_heap_call_fail(&call, SYMH_ERR_INVALID_ARG, SYMH_LOG_WARN,
                            "symh_align: alignment %zu is not a multiple of sizeof(void *) = %zu "
                            "(returns NULL)",
                            alignment, sizeof(void *));
    else if (alignment > symh_heap_window.heap_alignment)
        symh_heap_call_fail(&call, SYMH_ERR_INVALID_ARG, SYMH_LOG_WARN,
                            "symh_align: alignment %zu exceeds the heap base alignment %zu "
                            "(returns NULL)",
                            alignment, symh_heap_window.heap_alignment);
    else if (size == 0)
        symh_heap_call_fail(&call, SYMH_ERR_INVALID_ARG, SYMH_LOG_WARN,
                            "symh_align: size 0 (returns NULL)");
    else
        symh_heap_local_alloc(&call, size, alignment);
    return symh_heap_finish_alloc(&call);
}

static void *symh_heap_calloc_call(size_t count, size_t size)
{
    symh_heap_call_t call;

    symh_heap_call_start(&call, SYMH_COLL_OP_CALLOC, 2, count, size);
    if (count == 0 || size == 0) {
        symh_heap_call_fail(&call, SYMH_ERR_INVALID_ARG, SYMH_LOG_WARN,
                            "symh_calloc: %s 0 (returns NULL)", count == 0 ? "count" : "size");
    } else if (count > SIZE_MAX / size) {
        symh_heap_call_fail(&call, SYMH_ERR_INVALID_ARG, SYMH_LOG_WARN,
                            "symh_calloc: count %zu * size %zu overflows size_t (returns NULL)",
                            count, size);
    } else {
        symh_heap_local_alloc(&call, count * size, SYMH_HEAP_ALLOC_GRANULE);
        /* Zeroed before the barrier: a put issued right after any PE returns lands on zeroes
         * that are already there. Through symh_dev_host, which maps the heap (heap_window.c):
         * the heap is host memory whatever backend device memory uses (docs/api.md, memory
         * placement). */
        if (call.payload.status == SYMH_OK &&
            symh_dev_host->fill(symh_heap_window.heap + call.payload.result, 0, count * size) !=
                SYMH_OK) {
            symh_heap_local_free((size_t)call.payload.result);
            symh_heap_call_fail(&call, SYMH_ERR_COPY_FAILED, SYMH_LOG_ERROR,
                                "symh_calloc: zeroing %zu bytes failed", count * size);
        }
    }
    return symh_heap_finish_alloc(&call);
}

static void symh_heap_free_call(void *ptr)
{
    symh_heap_call_t call;
    size_t offset = 0, bytes;
    int status;

    symh_heap_call_start(&call, SYMH_COLL_OP_FREE, 1, symh_heap_ptr_code(ptr), 0);
    if (ptr != NULL)
        symh_heap_local_lookup(&call, ptr, &offset, &bytes);
    /* The barrier first: no PE frees memory a peer may still be writing into. */
    status = symh_heap_agree(&call);
    if (status != SYMH_OK) {
        symh_status_set(status);
        return;
    }
    if (ptr != NULL)
        symh_heap_local_free(offset);
    else if (symh_coll_my_pe() == 0)
        symh_info("symh_free: NULL, nothing to free");
    symh_status_set(SYMH_OK);
}

static void *symh_heap_realloc_call(void *ptr, size_t size)
{
    enum { SYMH_REALLOC_NONE, SYMH_REALLOC_IN_PLACE, SYMH_REALLOC_MOVED } how = SYMH_REALLOC_NONE;
    symh_heap_call_t call;
    size_t offset = 0, bytes = 0;
    int status;

    symh_heap_call_start(&call, SYMH_COLL_OP_REALLOC, 2, symh_heap_ptr_code(ptr), size);
    if (ptr == NULL) {
        if (size == 0)
            symh_heap_call_fail(&call, SYMH_ERR_INVALID_ARG, SYMH_LOG_WARN,
                                "symh_realloc: NULL with size 0 (returns NULL)");
        else
            symh_heap_local_alloc(&call, size, SYMH_HEAP_ALLOC_GRANULE);
        return symh_heap_finish_alloc(&call);
    }
    if (symh_heap_local_lookup(&call, ptr, &offset, &bytes) == SYMH_OK && size > 0) {
        status = symh_heap_local_resize(offset, size);
        if (status == SYMH_OK) {
            how = SYMH_REALLOC_IN_PLACE;
            call.payload.result = offset;
        } else {
            symh_heap_local_alloc(&call, size, SYMH_HEAP_ALLOC_GRANULE);
            if (call.payload.status == SYMH_OK) {
                /* Copied before the barrier, like calloc's zeroes; a failed copy gives the new
                 * block back here and fails the call on every PE, the old block unchanged. */
                if (symh_dev_host->copy(symh_heap_window.heap + call.payload.result, ptr,
                                        bytes < size ? bytes : size) == SYMH_OK) {
                    how = SYMH_REALLOC_MOVED;
                } else {
                    symh_heap_local_free((size_t)call.payload.result);
                    symh_heap_call_fail(&call, SYMH_ERR_COPY_FAILED, SYMH_LOG_ERROR,
                                        "symh_realloc: copying %zu bytes to the new block failed",
                                        bytes < size ? bytes : size);
                }
            }
        }
    }
    status = symh_heap_agree(&call);
    if (status != SYMH_OK) {
        /* Roll back: the old block stays as it was on every PE. */
        if (how == SYMH_REALLOC_IN_PLACE)
            symh_heap_local_resize(offset, bytes);
        else if (how == SYMH_REALLOC_MOVED)
            symh_heap_local_free((size_t)call.payload.result);
        symh_status_set(status);
        return NULL;
    }
    symh_status_set(SYMH_OK);
    if (size == 0) { /* OpenSHMEM: size 0 frees and returns NULL */
        symh_heap_local_free(offset);
        return NULL;
    }
    if (how == SYMH_REALLOC_MOVED)
        symh_heap_local_free(offset);
    return symh_heap_window.heap + call.payload.result;
}

/* The public entry points: one collective call of the world team each (coll_agree.h). */
void *symh_malloc(size_t size)
{
    SYMH_CHECK_INIT(symh_heap_up(), NULL);
    SYMH_COLL_CALL(SYMH_COLL_OP_MALLOC, void *, NULL, symh_heap_malloc_call(size));
}

void *symh_malloc_with_hints(size_t size, long hints)
{
    SYMH_CHECK_INIT(symh_heap_up(), NULL);
    SYMH_COLL_CALL(SYMH_COLL_OP_MALLOC_WITH_HINTS, void *, NULL,
                   symh_heap_malloc_hints_call(size, hints));
}

void *symh_align(size_t alignment, size_t size)
{
    SYMH_CHECK_INIT(symh_heap_up(), NULL);
    SYMH_COLL_CALL(SYMH_COLL_OP_ALIGN, void *, NULL, symh_heap_align_call(alignment, size));
}

void *symh_calloc(size_t count, size_t size)
{
    SYMH_CHECK_INIT(symh_heap_up(), NULL);
    SYMH_COLL_CALL(SYMH_COLL_OP_CALLOC, void *, NULL, symh_heap_calloc_call(count, size));
}

void symh_free(void *ptr)
{
    SYMH_CHECK_INIT(symh_heap_up(), );
    if (symh_coll_enter(SYMH_COLL_OP_FREE) != SYMH_OK)
        return;
    symh_heap_free_call(ptr);
    symh_coll_leave();
}

void *symh_realloc(void *ptr, size_t size)
{
    SYMH_CHECK_INIT(symh_heap_up(), NULL);
    SYMH_COLL_CALL(SYMH_COLL_OP_REALLOC, void *, NULL, symh_heap_realloc_call(ptr, size));
}

int symh_heap_stats(symh_heap_stats_t *stats)
{
    symh_heap_alloc_stats_t s;

    SYMH_CHECK_INIT(symh_heap_up(), SYMH_ERR_NOT_INITIALIZED);
    if (stats == NULL) {
        symh_error("symh_heap_stats: stats is NULL");
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    symh_heap_lock_take();
    symh_heap_alloc_stats(symh_heap_allocator, &s);
    symh_heap_lock_give();
    *stats = (symh_heap_stats_t){ s.size, s.used, s.free, s.largest_free, s.allocations };
    return symh_status_set(SYMH_OK);
}

int symh_heap_init(void)
{
    int status = symh_heap_window_init();

    if (status != SYMH_OK)
        return status;
    status = symh_heap_alloc_create(symh_heap_window.heap_size, &symh_heap_allocator);
    if (status != SYMH_OK) {
        symh_error("symh_init: cannot create the heap allocator");
        goto err_window;
    }
    status = symh_amap_create(symh_heap_window.heap_size, &symh_heap_amap);
    if (status != SYMH_OK) {
        symh_error("symh_init: cannot create the heap's allocation map");
        goto err_alloc;
    }
    return SYMH_OK;

err_alloc:
    symh_heap_alloc_destroy(symh_heap_allocator);
    symh_heap_allocator = NULL;
err_window:
    symh_heap_window_fini();
    return status;
}

const symh_amap_t *symh_heap_alloc_map(void)
{
    return &symh_heap_amap;
}

void symh_heap_fini(void)
{
    symh_heap_alloc_stats_t stats;

    if (symh_heap_allocator == NULL)
        return;
    symh_heap_alloc_stats(symh_heap_allocator, &stats);
    if (stats.allocations > 0)
        symh_debug("symh_finalize: %zu heap allocations (%zu bytes) still live", stats.allocations,
                   stats.used);
    symh_heap_alloc_destroy(symh_heap_allocator);
    symh_heap_allocator = NULL;
    symh_amap_destroy(&symh_heap_amap);
    symh_heap_window_fini();
}

int symh_heap_debug_local_alloc(size_t size, size_t *offset)
{
    int status;

    symh_heap_lock_take();
    status = symh_heap_alloc_mark(size, SYMH_HEAP_ALLOC_GRANULE, offset);
    symh_heap_lock_give();
    return status;
}

int symh_heap_debug_local_free(size_t offset)
{
    int status;

    symh_heap_lock_take();
    status = symh_heap_alloc_unmark(offset);
    symh_heap_lock_give();
    return status;
}
