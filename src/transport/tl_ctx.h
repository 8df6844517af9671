/* transport: communication contexts (symh_ctx_t; docs/contexts.md). A context is an options word,
 * a PE numbering (the world's or a team's, copied at creation) and, while a NIC transport is
 * active, a channel of that transport's own (tl_nic.h chan_create: a UCX worker, a libfabric
 * endpoint and counter), through which every NIC operation issued on the context goes, and whose
 * quiet completes them. Load/store peers need no resources: a put to one is complete when it
 * returns, and a fence orders it.
 *
 * The data path resolves a context inline: the default one (what every plain routine passes, a
 * constant) folds to the default channel and the world's numbering; any other takes one call
 * that checks it is live and translates the PE. Context objects are never freed before
 * symh_finalize: a destroyed one is marked dead and reused by the next creation, so a handle used
 * after symh_ctx_destroy is reported, not dereferenced into freed memory. */
#ifndef SYMH_TL_CTX_H
#define SYMH_TL_CTX_H

#include <symheap/ctx.h>

#include "core/core_util.h"
#include "transport/tl.h"

#define SYMH_TL_CTX_LIVE 0x63747821u /* "ctx!" */

struct symh_ctx {
    uint32_t live;         /* SYMH_TL_CTX_LIVE between creation and destruction */
    long options;          /* SYMH_CTX_* */
    symh_tl_chan_t *chan;  /* the NIC's channel of this context; NULL: the default one, or none */
    int n_pes;             /* its numbering: the world's (pes NULL) or its team's */
    int *pes;              /* team PE i is world PE pes[i] */
    symh_team_t team;      /* the team it was created from (SYMH_TEAM_WORLD: symh_ctx_create) */
    struct symh_ctx *next; /* every context object made since init (live and dead) */
};

/* Local: a live context numbered by `pes` (n_pes world PEs, copied; NULL: the world's) for
 * `team`, with a NIC channel when a NIC transport is active: SYMH_OK and *ctx, or the status with
 * one line naming `func` and *ctx = SYMH_CTX_INVALID. */
int symh_tl_ctx_create(const char *func, long options, symh_team_t team, const int *pes, int n_pes,
                       symh_ctx_t *ctx);

/* The live context behind a handle that is neither SYMH_CTX_DEFAULT nor its resolved form, or
 * NULL with one line naming `func` and SYMH_ERR_INVALID_ARG recorded. */
struct symh_ctx *symh_tl_ctx_check(const char *func, symh_ctx_t ctx);

/* The slow path of symh_tl_ctx_enter: any context but the default one. */
int symh_tl_ctx_enter_slow(const char *func, symh_ctx_t ctx, int *pe, symh_tl_chan_t **chan);

/* The channel of `ctx` and, for an access to PE *pe of its numbering, that PE's world number in
 * *pe: 1, or 0 with the reason logged naming `func` and recorded (SYMH_CTX_INVALID, a destroyed
 * context, a PE outside its team). The default context is a constant in every plain routine, so
 * this folds to nothing there. */
static inline __attribute__((always_inline)) int symh_tl_ctx_enter(const char *func, symh_ctx_t ctx,
                                                                   int *pe, symh_tl_chan_t **chan)
{
    if (ctx == SYMH_CTX_DEFAULT) {
        *chan = NULL;
        return 1;
    }
    return symh_tl_ctx_enter_slow(func, ctx, pe, chan);
}

/* Defines a public routine family twice, as symheap/rma.h and symheap/signal.h declare it:
 * DEFINE(P, CP, C, NAME, TYPE) once as the plain form (P symh, CP (), C the constant
 * SYMH_CTX_DEFAULT, which symh_tl_ctx_enter folds away) and once as the context form (P symh_ctx,
 * CP (symh_ctx_t ctx,): the context first, C ctx), around the same always-inlined body. */
#define SYMH_TL_CTX_FORMS(DEFINE, NAME, TYPE)      \
    DEFINE(symh, (), SYMH_CTX_DEFAULT, NAME, TYPE) \
    DEFINE(symh_ctx, (symh_ctx_t ctx, ), ctx, NAME, TYPE)

/* Local, at finalize (after the last quiet, before the NIC transport stops): destroys the
 * contexts the program left and frees every context object. */
void symh_tl_ctx_fini(void);

#endif /* SYMH_TL_CTX_H */
