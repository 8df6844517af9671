/* symh_functional_tests: the rocSHMEM-style conformance driver's shared types
 * (docs/functional-tests.md). */
#ifndef SYMH_FUNC_H
#define SYMH_FUNC_H

#include <stddef.h>
#include <stdint.h>

#include <symheap.h>

/* Exit status of a test type that has no host analogue (CTest SKIP_RETURN_CODE). */
#define FUNC_EXIT_SKIP 125

/* How many PEs a test type runs at (the reference's rules). */
typedef enum {
    FUNC_NP_TWO,  /* point-to-point: exactly 2 PEs, PE 0 acts, PE 1 is the target */
    FUNC_NP_ANY,  /* collectives, barriers, flood: any PE count of 2 or more */
    FUNC_NP_FOUR, /* exactly 4 PEs (TeamSplit2D, HostAmoAllPes) */
    FUNC_NP_ONE   /* any count, 1 included (Init, LibraryInfo) */
} func_np_rule_t;

/* The granularity at which a host thread (a work-group) issues operations: one call per lane
 * (thread), one per work-group, or one per wave of FUNC_WAVE_LANES lanes. */
typedef enum { FUNC_SCOPE_THREAD, FUNC_SCOPE_WG, FUNC_SCOPE_WAVE } func_scope_t;
#define FUNC_WAVE_LANES 64

/* Which context the operations go through. */
typedef enum { FUNC_CTX_NONE, FUNC_CTX_DEFAULT, FUNC_CTX_TEAM, FUNC_CTX_CREATED } func_ctx_kind_t;

typedef enum { FUNC_BUF_HEAP, FUNC_BUF_HOST, FUNC_BUF_DEVICE, FUNC_BUF_REGISTERED } func_buf_t;

/* The command line (rocSHMEM's flags, same defaults). */
typedef struct {
    size_t max_size;     /* -s */
    int wgs;             /* -w: host threads per PE */
    int wg_size;         /* -z: lanes per host thread */
    long loops;          /* -n */
    long skip;           /* -nskip */
    long loops_large;    /* -nlarge: loops for sizes >= FUNC_LARGE_MSG */
    long ctx_type;       /* -x: options of the contexts the test creates */
    func_buf_t buf_type; /* -localbuftype */
    long volume;         /* -v: elements (flood, tiles); 0 = the test's own default */
    int verify;          /* 0 with -noverif */
    int batch;           /* -b: operations between two completions (quiet) */
    int fault;           /* -fault (hidden): writers corrupt one byte of every pattern */
} func_opts_t;
#define FUNC_LARGE_MSG ((size_t)32768)

/* A test type's variant: the operation of its engine, NBI, scope and context kind. */
#define FUNC_VAR(op, nbi, scope, ctx) ((op) | ((nbi) << 8) | ((scope) << 12) | ((ctx) << 16))
#define FUNC_VOP(v)                   ((v)&0xff)
#define FUNC_VNBI(v)                  (((v) >> 8) & 1)
#define FUNC_VSCOPE(v)                ((func_scope_t)(((v) >> 12) & 3))
#define FUNC_VCTX(v)                  ((func_ctx_kind_t)(((v) >> 16) & 3))

/* operations of the engines (FUNC_VOP) */
enum { FUNC_OP_PUT, FUNC_OP_GET, FUNC_OP_P, FUNC_OP_G }; /* rma, flood, host */
enum {                                                   /* amo */
       FUNC_AMO_FADD,
       FUNC_AMO_FINC,
       FUNC_AMO_FETCH,
       FUNC_AMO_FCSWAP,
       FUNC_AMO_ADD,
       FUNC_AMO_INC,
       FUNC_AMO_CSWAP,
       FUNC_AMO_SET,
       FUNC_AMO_SWAP,
       FUNC_AMO_FAND,
       FUNC_AMO_FOR,
       FUNC_AMO_FXOR,
       FUNC_AMO_AND,
       FUNC_AMO_OR,
       FUNC_AMO_XOR,
       FUNC_AMO_INT_FADD,
       FUNC_AMO_INT_FCSWAP, /* the int forms (HostInt*) */
       FUNC_AMO_ALL_PES,
       FUNC_AMO_SELF, /* every PE adds to every PE; a PE to itself */
       FUNC_AMO_FLOOD_ADD,
       FUNC_AMO_FLOOD_FADD
};
enum { FUNC_SIG_PUT, FUNC_SIG_FETCH, FUNC_SIG_ADD, FUNC_SIG_SET, FUNC_SIG_WAIT };
enum { /* wait */
       FUNC_WAIT_UNTIL,
       FUNC_WAIT_TEST,
       FUNC_WAIT_ALL,
       FUNC_WAIT_ANY,
       FUNC_WAIT_SOME,
       FUNC_WAIT_ALL_VECTOR,
       FUNC_WAIT_ANY_VECTOR,
       FUNC_WAIT_SOME_VECTOR,
       FUNC_WAIT_ALL_STATUS,
       FUNC_WAIT_ANY_STATUS,
       FUNC_WAIT_SOME_STATUS,
       FUNC_WAIT_FLOOD_AMO
};
enum { /* coll */
       FUNC_COLL_COLLECT,
       FUNC_COLL_FCOLLECT,
       FUNC_COLL_ALLTOALL,
       FUNC_COLL_BROADCAST,
       FUNC_COLL_REDUCE
};
enum { /* sync */
       FUNC_SYNC_BARRIER_ALL,
       FUNC_SYNC_SYNC_ALL,
       FUNC_SYNC_TEAM_SYNC,
       FUNC_SYNC_TEAM_BARRIER
};
enum { /* infra */
       FUNC_INFRA_INIT,
       FUNC_INFRA_PINGPONG,
       FUNC_INFRA_RANDOM,
       FUNC_INFRA_PTR,
       FUNC_INFRA_PINGALL,
       FUNC_INFRA_INFO
};
enum { /* team */
       FUNC_TEAM_CTX_INFRA,
       FUNC_TEAM_CTX_SINGLE,
       FUNC_TEAM_CTX_BLOCK,
       FUNC_TEAM_CTX_ODDEVEN,
       FUNC_TEAM_CTX_SHARED,
       FUNC_TEAM_CTX_SUBSET,
       FUNC_TEAM_HOST_CTX_CREATE,
       FUNC_TEAM_SPLIT_2D,
       FUNC_TEAM_SYNC_BARRIER
};
enum { /* order */
       FUNC_ORDER_WAVE_SIGNAL,
       FUNC_ORDER_LARGE_SMALL,
       FUNC_ORDER_FANOUT,
       FUNC_ORDER_NBI_CHUNKS
};
enum { /* tile */
       FUNC_TILE_IPUT,
       FUNC_TILE_IGET,
       FUNC_TILE_ROW_PUT,
       FUNC_TILE_ROW_GET,
       FUNC_TILE_BROADCAST,
       FUNC_TILE_ALLGATHER,
       FUNC_TILE_REDUCE,
       FUNC_TILE_N_OPS
};

struct func_test;
typedef struct func_run func_run_t;

/* One engine runs every test type of a family; `variant` picks the operation inside it. The
 * engine is called once per size (sized tests) or once (others); it runs opts->skip untimed
 * and `loops` timed iterations, verifies unless -noverif, and fills the row. */
typedef struct {
    double seconds; /* wall clock of the timed loops (slowest host thread) */
    double ops;     /* operations issued in the timed loops by this PE */
    double bytes;   /* payload bytes moved in the timed loops by this PE */
    long errors;    /* wrong values seen by this PE's verification */
} func_row_t;
typedef int (*func_engine_func_t)(func_run_t *run, size_t size, long loops, func_row_t *row);

typedef struct func_test {
    int number;
    const char *name;
    const char *category;
    func_np_rule_t np;
    int sized;                 /* swept over message sizes */
    func_engine_func_t engine; /* NULL: unsupported */
    int variant;
    const char *why_not; /* unsupported: one line saying why */
} func_test_t;

struct func_run {
    const func_test_t *test;
    const func_opts_t *opts;
    int me, npes;
};

/* func_table.c */
extern const func_test_t func_tests[];
extern const size_t func_n_tests;
const func_test_t *func_test_find(const char *number_or_name);

/* func_main.c: helpers shared by the engines */
unsigned char func_pattern(size_t seed, size_t i);
void func_fill(const func_run_t *run, void *buf, size_t n, size_t seed);
long func_check(const void *buf, size_t n, size_t seed);
void *func_local_alloc(const func_run_t *run, size_t bytes);
void func_local_free(const func_run_t *run, void *buf);
double func_now(void);
/* Runs fn(run, thread, arg) on opts->wgs host threads (inline when 1) and returns the slowest
 * thread's seconds from the start line to its return. */
typedef void (*func_thread_func_t)(func_run_t *run, int thread, void *arg);
double func_threads(func_run_t *run, func_thread_func_t fn, void *arg);
/* The lanes [first, first + count) that operation `op` of thread-level scope covers. */
int func_scope_ops(const func_run_t *run, func_scope_t scope);
void func_scope_span(const func_run_t *run, func_scope_t scope, int op, size_t n, size_t *off,
                     size_t *len);

/* the engines */
int func_rma_engine(func_run_t *run, size_t size, long loops, func_row_t *row);
int func_tile_engine(func_run_t *run, size_t size, long loops, func_row_t *row);
int func_order_engine(func_run_t *run, size_t size, long loops, func_row_t *row);
int func_flood_engine(func_run_t *run, size_t size, long loops, func_row_t *row);
int func_amo_engine(func_run_t *run, size_t size, long loops, func_row_t *row);
int func_signal_engine(func_run_t *run, size_t size, long loops, func_row_t *row);
int func_wait_engine(func_run_t *run, size_t size, long loops, func_row_t *row);
int func_coll_engine(func_run_t *run, size_t size, long loops, func_row_t *row);
int func_sync_engine(func_run_t *run, size_t size, long loops, func_row_t *row);
int func_infra_engine(func_run_t *run, size_t size, long loops, func_row_t *row);
int func_team_engine(func_run_t *run, size_t size, long loops, func_row_t *row);
int func_reg_engine(func_run_t *run, size_t size, long loops, func_row_t *row);

#endif /* SYMH_FUNC_H */
