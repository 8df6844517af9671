/* collectives: the barrier that carries an agreement payload. Every PE contributes what it was
 * asked to do (operation, arguments), what it did locally (status, result), and learns whether
 * all PEs agree. The payload rides the shared-memory barrier (coll_barrier.h) when every PE is
 * node-local and mapped by the IPC transport, else one bootstrap allgather. */
#ifndef SYMH_COLL_AGREE_H
#define SYMH_COLL_AGREE_H

#include <stdint.h>

#define SYMH_COLL_AGREE_ARGS 3

typedef struct {
    uint32_t op;                         /* caller-defined operation code */
    int32_t status;                      /* this PE's local outcome (SYMH_OK or an error) */
    uint64_t args[SYMH_COLL_AGREE_ARGS]; /* arguments that must be equal on every PE */
    uint64_t result;                     /* local result that must be equal on every PE */
} symh_coll_agree_t;

typedef enum {
    SYMH_COLL_AGREED,        /* same op and arguments everywhere, every status OK, same result */
    SYMH_COLL_OP_DIFFERS,    /* `pe` called another operation than PE 0 */
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

/* Collective: exchanges every PE's payload (the barrier) and judges them, first by operation,
 * then arguments (the first `nargs`), then local status, then result. Every PE gets the same
 * verdict. Returns a bootstrap error only when the exchange itself failed. */
int symh_coll_agree(const symh_coll_agree_t *mine, int nargs, symh_coll_verdict_t *verdict);

/* This PE's number among the PEs the agreement spans. */
int symh_coll_my_pe(void);

/* Collective: a plain barrier (shared memory or bootstrap, as the agreement). */
int symh_coll_barrier(void);

#endif /* SYMH_COLL_AGREE_H */
