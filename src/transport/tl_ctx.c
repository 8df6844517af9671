/* transport: communication contexts: creation, destruction, the checks of a handle, and the
 * teardown at finalize (tl_ctx.h; docs/contexts.md). The routines that name the world team,
 * symh_ctx_create and symh_ctx_get_team, are the collectives' (coll_team.c). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/ctx.h>

#include "core/core_log.h"
#include "core/core_status.h"
#include "transport/tl_ctx.h"
#include "transport/tl_nic.h"
#include "transport/tl_rma.h"

unsigned char symh_ctx_default_handle[8];

#define SYMH_TL_CTX_OPTIONS (SYMH_CTX_SERIALIZED | SYMH_CTX_PRIVATE | SYMH_CTX_NOSTORE)

/* Every context object made since init, live and dead; creation and destruction hold the lock,
 * the data path reads only the object it was handed. */
static struct {
    pthread_mutex_t lock;
    struct symh_ctx *all;
} symh_tl_ctxs = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A dead object to reuse, or a new one; with the lock held. */
static struct symh_ctx *symh_tl_ctx_take(void)
{
    struct symh_ctx *c;

    for (c = symh_tl_ctxs.all; c != NULL; c = c->next) {
        if (__atomic_load_n(&c->live, __ATOMIC_RELAXED) != SYMH_TL_CTX_LIVE)
            return c;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->next = symh_tl_ctxs.all;
    symh_tl_ctxs.all = c;
    return c;
}

int symh_tl_ctx_create(const char *func, long options, symh_team_t team, const int *pes, int n_pes,
                       symh_ctx_t *ctx)
{
    symh_tl_chan_t *chan = NULL;
    struct symh_ctx *c;
    int *copy = NULL, status;

    if (ctx == NULL) {
        symh_error("%s: ctx is NULL", func);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    *ctx = SYMH_CTX_INVALID;
    if (!symh_tl_rma.up) {
        SYMH_LOG_NOT_INITIALIZED(func);
        return symh_status_set(SYMH_ERR_NOT_INITIALIZED);
    }
    if ((options & ~SYMH_TL_CTX_OPTIONS) != 0) {
        symh_error("%s: unknown option bits %#lx (SYMH_CTX_SERIALIZED, SYMH_CTX_PRIVATE and "
                   "SYMH_CTX_NOSTORE are %#lx)",
                   func, options & ~SYMH_TL_CTX_OPTIONS, (long)SYMH_TL_CTX_OPTIONS);
        return symh_status_set(SYMH_ERR_INVALID_ARG);
    }
    if (pes != NULL) {
        copy = malloc((size_t)n_pes * sizeof(*copy));
        if (copy == NULL) {
            symh_error("%s: no memory for the numbering of %d PEs", func, n_pes);
            return symh_status_set(SYMH_ERR_NO_MEMORY);
        }
        memcpy(copy, pes, (size_t)n_pes * sizeof(*copy));
    }
    if (symh_tl_nic != NULL) {
        symh_log_context_t log;

        /* The transport's own line names `func`; ours only when it logged none. */
        symh_log_context_push(&log, func, symh_tl_rma.my_pe);
        status = symh_tl_nic->chan_create(options, &chan);
        symh_log_context_pop(&log);
        if (status != SYMH_OK) {
            if (log.errors == 0)
                symh_error("%s: the %s transport has no channel for a new context: %s", func,
                           symh_tl_nic->ops.name, symh_status_string(status));
            free(copy);
            return symh_status_set(status);
        }
    }
    pthread_mutex_lock(&symh_tl_ctxs.lock);
    c = symh_tl_ctx_take();
    if (c != NULL) {
        c->options = options;
        c->chan = chan;
        c->n_pes = pes != NULL ? n_pes : symh_tl_rma.n_pes;
        c->pes = copy;
        c->team = team;
        __atomic_store_n(&c->live, SYMH_TL_CTX_LIVE, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&symh_tl_ctxs.lock);
    if (c == NULL) {
        symh_error("%s: no memory for a context", func);
        if (chan != NULL)
            symh_tl_nic->chan_destroy(chan);
        free(copy);
        return symh_status_set(SYMH_ERR_NO_MEMORY);
    }
    *ctx = c;
    return symh_status_set(SYMH_OK);
}

struct symh_ctx *symh_tl_ctx_check(const char *func, symh_ctx_t ctx)
{
    if (symh_likely(ctx != SYMH_CTX_INVALID &&
                    __atomic_load_n(&ctx->live, __ATOMIC_ACQUIRE) == SYMH_TL_CTX_LIVE))
        return ctx;
    symh_error("%s: ctx %p is %s on PE %d; nothing done", func, (void *)ctx,
               ctx == SYMH_CTX_INVALID ? "SYMH_CTX_INVALID" : "not a live context (destroyed?)",
               symh_tl_rma.my_pe);
    symh_status_set(SYMH_ERR_INVALID_ARG);
    return NULL;
}

int symh_tl_ctx_enter_slow(const char *func, symh_ctx_t ctx, int *pe, symh_tl_chan_t **chan)
{
    struct symh_ctx *c = symh_tl_ctx_check(func, ctx);

    if (c == NULL)
        return 0;
    if (pe != NULL && c->pes != NULL) {
        if ((unsigned)*pe >= (unsigned)c->n_pes) {
            symh_error("%s: pe %d is out of range of the context's team (0..%d)", func, *pe,
                       c->n_pes - 1);
            symh_status_set(SYMH_ERR_INVALID_ARG);
            return 0;
        }
        *pe = c->pes[*pe];
    }
    *chan = c->chan;
    return 1;
}

/* With the object marked dead first, a second destroy of the same handle (racing or later) is
 * reported instead of freeing the channel twice. */
void symh_ctx_destroy(symh_ctx_t ctx)
{
    uint32_t live = SYMH_TL_CTX_LIVE;
    symh_tl_chan_t *chan;
    int *pes;

    SYMH_TL_RMA_CHECK_UP();
    if (ctx == SYMH_CTX_INVALID) {
        symh_status_set(SYMH_OK);
        return;
    }
    if (ctx == SYMH_CTX_DEFAULT) {
        symh_error("symh_ctx_destroy: SYMH_CTX_DEFAULT cannot be destroyed; nothing done");
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return;
    }
    if (symh_tl_ctx_check(__func__, ctx) == NULL)
        return;
    pthread_mutex_lock(&symh_tl_ctxs.lock);
    if (!__atomic_compare_exchange_n(&ctx->live, &live, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        pthread_mutex_unlock(&symh_tl_ctxs.lock);
        (void)symh_tl_ctx_check(__func__, ctx);
        return;
    }
    chan = ctx->chan;
    pes = ctx->pes;
    ctx->chan = NULL;
    ctx->pes = NULL;
    pthread_mutex_unlock(&symh_tl_ctxs.lock);
    /* The channel's destroy quiets it first; on a load/store route everything is complete. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (chan != NULL && symh_tl_nic != NULL)
        symh_tl_nic->chan_destroy(chan);
    free(pes);
    symh_status_set(SYMH_OK);
}

void symh_tl_ctx_fini(void)
{
    struct symh_ctx *c, *next;
    int left = 0;

    pthread_mutex_lock(&symh_tl_ctxs.lock);
    for (c = symh_tl_ctxs.all; c != NULL; c = next) {
        next = c->next;
        if (c->live == SYMH_TL_CTX_LIVE) {
            left++;
            if (c->chan != NULL && symh_tl_nic != NULL)
                symh_tl_nic->chan_destroy(c->chan);
        }
        free(c->pes);
        free(c);
    }
    symh_tl_ctxs.all = NULL;
    pthread_mutex_unlock(&symh_tl_ctxs.lock);
    if (left > 0)
        symh_debug("symh_finalize: destroyed %d context(s) the program left", left);
}
