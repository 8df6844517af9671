/* collectives: the world team's collective calls: their names and sequence, the guard against
 * two threads in one team's collectives at once, and the barrier that carries an agreement
 * payload. Every PE contributes what it was asked to do (operation, arguments), what it did
 * locally (status, result), and learns whether all PEs agree. The payload rides the
 * shared-memory barrier (coll_barrier.h) when every PE is node-local and mapped by the IPC
 * transport, else one bootstrap allgather. Every collective, plain barriers included, carries
 * its operation and its sequence number, so calls out of step fail instead of diverging
 * (docs/collectives.md "Calls out of step"). */
#ifndef SYMH_COLL_AGREE_H
#define SYMH_COLL_AGREE_H

#include <stddef.h>
#include <stdint.h>

#define SYMH_COLL_AGREE_ARGS 3

/* Every collective call of the world team. The names are those the error lines use. */
#define SYMH_COLL_OPS(X)                                                               \
    X(BARRIER_ALL, "symh_barrier_all", SYMH_COLL_CLASS_BARRIER)                        \
    X(SYNC_ALL, "symh_sync_all", SYMH_COLL_CLASS_SYNC)                                 \
    X(MALLOC, "symh_malloc", SYMH_COLL_CLASS_AGREE)                                    \
    X(ALIGN, "symh_align", SYMH_COLL_CLASS_AGREE)                                      \
    X(CALLOC, "symh_calloc", SYMH_COLL_CLASS_AGREE)                                    \
    X(REALLOC, "symh_realloc", SYMH_COLL_CLASS_AGREE)                                  \
    X(FREE, "symh_free", SYMH_COLL_CLASS_AGREE)                                        \
    X(MALLOC_WITH_HINTS, "symh_malloc_with_hints", SYMH_COLL_CLASS_AGREE)              \
    X(REGISTER_SYMMETRIC, "symh_buffer_register_symmetric", SYMH_COLL_CLASS_AGREE)     \
    X(REGISTER_SYMMETRIC_MAP, "symh_buffer_register_symmetric (mapping step)",         \
      SYMH_COLL_CLASS_AGREE)                                                           \
    X(UNREGISTER_SYMMETRIC, "symh_buffer_unregister_symmetric", SYMH_COLL_CLASS_AGREE) \
    X(FINALIZE, "symh_finalize", SYMH_COLL_CLASS_FINALIZE)

/* What the barrier itself tells apart (the judge tells agreements apart by their payload): a
 * plain barrier_all, a sync_all, an agreement, finalize. At most SYMH_COLL_CLASSES. */
enum {
    SYMH_COLL_CLASS_BARRIER,
    SYMH_COLL_CLASS_SYNC,
    SYMH_COLL_CLASS_AGREE,
    SYMH_COLL_CLASS_FINALIZE,
    SYMH_COLL_CLASSES
};

typedef enum {
    SYMH_COLL_OP_NONE = 0,
#define SYMH_COLL_OP_ENUM(id, name, cls) SYMH_COLL_OP_##id,
    SYMH_COLL_OPS(SYMH_COLL_OP_ENUM)
#undef SYMH_COLL_OP_ENUM
        SYMH_COLL_OP_COUNT
} symh_coll_op_t;

typedef struct {
    uint64_t seq;                        /* the call's number in the world team (1, 2, ...) */
    uint32_t op;                         /* symh_coll_op_t */
    int32_t status;                      /* this PE's local outcome (SYMH_OK or an error) */
    uint64_t args[SYMH_COLL_AGREE_ARGS]; /* arguments that must be equal on every PE */
    uint64_t result;                     /* local result that must be equal on every PE */
} symh_coll_agree_t;

typedef enum {
    SYMH_COLL_AGREED,        /* same op and arguments everywhere, every status OK, same result */
    SYMH_COLL_OP_DIFFERS,    /* PEs are in different calls (already logged, once for the job) */
    SYMH_COLL_ARG_DIFFERS,   /* argument `arg` of `pe` differs from PE 0's */
    SYMH_COLL_FAILED,        /* `pe` (the lowest such) failed locally with `status` */
    SYMH_COLL_RESULT_DIFFERS /* `pe` got another result than PE 0 (diverged state) */
} symh_coll_verdict_kind_t;

typedef struct {
    symh_coll_verdict_kind_t kind;
    int pe;          /* the PE the verdict names */
    int arg;         /* SYMH_COLL_ARG_DIFFERS: the argument's index */
    int32_t status;  /* SYMH_COLL_FAILED: that PE's status */
    uint64_t value0; /* PE 0's op, argument or result */
    uint64_t value;  /* the named PE's */
} symh_coll_verdict_t;

int symh_coll_init(void);
void symh_coll_fini(void);

/* The public name of `op` ("symh_malloc"); "?" for a value that is no operation. */
const char *symh_coll_op_name(uint32_t op);
unsigned symh_coll_op_class(uint32_t op);

/* Starts collective `op` on this PE. Under SYMH_THREAD_MULTIPLE a second thread that calls a
 * collective while another thread of this PE is in one gets SYMH_ERR_MISMATCH and one line, and
 * must do nothing (OpenSHMEM: collectives on one team must not overlap); SYMH_OK otherwise.
 * Every SYMH_OK is paired with one symh_coll_leave once the call is over. */
int symh_coll_enter(symh_coll_op_t op);
void symh_coll_leave(void);
/* The body of a public collective entry point that returns a value: claims the call for this
 * thread (symh_coll_enter), evaluates `expr` and returns its value, or returns `refused` with
 * nothing done when another thread of this PE is in a collective call. */
#define SYMH_COLL_CALL(op, type, refused, expr) \
    do {                                        \
        type symh_coll_result_;                 \
                                                \
        if (symh_coll_enter(op) != SYMH_OK)     \
            return refused;                     \
        symh_coll_result_ = (expr);             \
        symh_coll_leave();                      \
        return symh_coll_result_;               \
    } while (0)

/* Whether threads of this PE may call into the library at once (SYMH_THREAD_MULTIPLE). */
int symh_coll_thread_multiple(void);

/* The call a thread of this PE is in (SYMH_COLL_OP_NONE: none, or not SYMH_THREAD_MULTIPLE). */
symh_coll_op_t symh_coll_busy_op(void);

/* Collective: completes what this PE put (a quiet, as symh_barrier_all), then exchanges every
 * PE's payload (the barrier) and judges them, first by operation,
 * then arguments (the first `nargs`), then local status, then result. Every PE gets the same
 * verdict. `mine->seq` is filled in here. Returns a bootstrap error only when the exchange
 * itself failed. */
int symh_coll_agree(symh_coll_agree_t *mine, int nargs, symh_coll_verdict_t *verdict);

/* How an agreed call reads in its lines (symh_coll_agree_report): the caller's description. */
typedef struct {
    const char *func;             /* names the call in every line */
    const char *const *arg_names; /* the name of each agreed argument */
    const char *arg_rule;         /* appended to an argument's line after ": " (NULL: nothing) */
    /* Writes an agreed argument's value as the line shows it (NULL: a decimal number). */
    void (*format_arg)(const char *arg_name, uint64_t value, char *buf, size_t len);
    /* Writes SYMH_COLL_RESULT_DIFFERS's line, after "func: ", from the verdict's values. */
    void (*format_result)(const symh_coll_verdict_t *v, char *buf, size_t len);
    const char *reason; /* this PE's own failure, logged when the verdict names this PE */
    int reason_level;   /* its level (SYMH_LOG_ERROR, SYMH_LOG_WARN, ...) */
    /* SYMH_COLL_FAILED: 1, every PE returns the failing PE's status (every PE learns why); 0, a
     * PE returns its own status when it failed, else SYMH_ERR_MISMATCH, whatever the verdict. */
    int failure_shared;
} symh_coll_report_t;

/* The one report of an agreement's verdict: logs the one line the job deserves (PE 0 the
 * argument or result that differs, the failing PE its reason; the judge has already named the
 * calls of PEs out of step) and returns the status this PE reports: SYMH_OK when agreed, else as
 * r->failure_shared says. `own_status` is this PE's local outcome (its payload's status). */
int symh_coll_agree_report(const symh_coll_verdict_t *v, int own_status,
                           const symh_coll_report_t *r);

/* This PE's number among the PEs the agreement spans. */
int symh_coll_my_pe(void);

/* Collective: a plain barrier of kind `op` (shared memory or bootstrap, as the agreement).
 * SYMH_ERR_MISMATCH, logged once for the job, when the PEs are not all in the same kind of call. */
int symh_coll_barrier(symh_coll_op_t op);

#endif /* SYMH_COLL_AGREE_H */
