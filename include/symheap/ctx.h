/* symheap public header: communication contexts (OpenSHMEM 1.5 "Communication Management
 * Routines" under the symh_ prefix; docs/contexts.md). A context is a separate stream of RMA,
 * atomics and signals with its own ordering and completion: symh_ctx_fence and symh_ctx_quiet
 * order and complete what was issued on that context only. Over a NIC each context owns its own
 * resources (a UCX worker, a libfabric endpoint and counter), so threads using their own private
 * contexts do not contend, and a quiet on one context does not wait for another's traffic. The
 * symh_ctx_ form of every RMA, atomic and signal routine is declared beside its plain form
 * (symheap/rma.h, symheap/signal.h); the plain forms use SYMH_CTX_DEFAULT. */
#ifndef SYMHEAP_CTX_H
#define SYMHEAP_CTX_H

#include <symheap/defs.h>
#include <symheap/team.h>

SYMH_BEGIN_C_DECLS

/* An opaque handle; SYMH_CTX_INVALID (a null handle) names no context. */
typedef struct symh_ctx *symh_ctx_t;

/* Options of symh_ctx_create and symh_team_create_ctx (OR them):
 * SERIALIZED: the program never uses the context from two threads at once;
 * PRIVATE: only the creating thread uses it (the NIC resources then take no locks);
 * NOSTORE: symh_ctx_quiet need not complete stores (accepted; symheap completes them anyway). */
#define SYMH_CTX_SERIALIZED (1L << 0)
#define SYMH_CTX_PRIVATE    (1L << 1)
#define SYMH_CTX_NOSTORE    (1L << 2)

#define SYMH_CTX_INVALID ((symh_ctx_t)0)

/* What SYMH_CTX_DEFAULT points at: a fixed-size marker, not the context itself (as the
 * predefined teams' handles, symheap/team.h). An address constant, valid between symh_init and
 * symh_finalize. The default context uses SYMH_TEAM_WORLD's PE numbering. */
SYMH_API extern unsigned char symh_ctx_default_handle[8];
#define SYMH_CTX_DEFAULT ((symh_ctx_t)(void *)symh_ctx_default_handle)

/* Local (not collective). Creates a context over the world's PEs with `options` (SYMH_CTX_*):
 * SYMH_OK and *ctx, or a negative status with *ctx = SYMH_CTX_INVALID and one line (an unknown
 * option bit, a NULL ctx, no memory, the NIC out of resources). The context lives until
 * symh_ctx_destroy or symh_finalize. */
SYMH_API int symh_ctx_create(long options, symh_ctx_t *ctx);
/* Local. A context whose PE numbering is `team`'s: PE i of an RMA, atomic or signal on it is PE
 * i of the team, a PE outside 0 .. size - 1 is refused. The context keeps the team's numbering
 * even after the team is destroyed. A PE that is not a member of `team`, or an invalid team,
 * gets *ctx = SYMH_CTX_INVALID and a negative status. */
SYMH_API int symh_team_create_ctx(symh_team_t team, long options, symh_ctx_t *ctx);
/* Local. Completes what was issued on the context (a quiet), then frees it.
 * SYMH_CTX_INVALID: no-op. SYMH_CTX_DEFAULT or a context already destroyed: one line, nothing
 * done (symh_last_error()). */
SYMH_API void symh_ctx_destroy(symh_ctx_t ctx);
/* Local. The team the context was created from (SYMH_TEAM_WORLD for SYMH_CTX_DEFAULT and
 * symh_ctx_create's): SYMH_OK, or for an invalid context *team = SYMH_TEAM_INVALID and a
 * negative status. */
SYMH_API int symh_ctx_get_team(symh_ctx_t ctx, symh_team_t *team);

/* Orders (fence) or completes (quiet) the puts, atomics and signals issued on `ctx` alone. */
SYMH_API void symh_ctx_fence(symh_ctx_t ctx);
SYMH_API void symh_ctx_quiet(symh_ctx_t ctx);

SYMH_END_C_DECLS

#endif /* SYMHEAP_CTX_H */
