/* symh_functional_tests: rocSHMEM's functional test driver on symheap (flags, sweep, table). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../bench/bench_util.h"
#include "func.h"

static const char *const func_buf_names[] = { "heap", "host", "device", "registered" };
static const char *const func_np_names[] = { "2 PEs", "2+ PEs", "4 PEs", "1+ PEs" };

static void func_usage(FILE *out)
{
    fprintf(
        out,
        "usage: mpirun -np N symh_functional_tests -a <number|name> [options]\n"
        "  -a T            test type: number or case-insensitive name (--list)\n"
        "  -s BYTES        largest message size, swept by doubling (default 1048576)\n"
        "  -w N            work-groups: host threads per PE (default 1)\n"
        "  -z N            threads per work-group: lanes of a host thread (default 64)\n"
        "  -n N            timed loops per size (default 10)\n"
        "  -nskip N        untimed warm-up loops per size (default 10)\n"
        "  -nlarge N       timed loops for sizes >= 32768 bytes (default 10)\n"
        "  -x OPTS         options of the contexts a test creates (symh_ctx_create, default 0)\n"
        "  -localbuftype T local side of RMA: heap|host|device|registered (default heap)\n"
        "  -v N            volume: elements of the flood and tile tests (default: the test's)\n"
        "  -noverif        skip the verification (pure timing)\n"
        "  -b N            batch: operations between two completions (default 1)\n"
        "  --list          every test type with its number and whether it is supported\n"
        "  --help          this text\n"
        "exit status: 0 passed, 1 FAILED, 2 usage, 125 not supported on this build\n");
}

static void func_list(void)
{
    printf("%-5s %-27s %-13s %-7s %s\n", "#", "name", "category", "PEs", "status");
    for (size_t i = 0; i < func_n_tests; i++) {
        const func_test_t *t = &func_tests[i];

        printf("%-5d %-27s %-13s %-7s %s%s\n", t->number, t->name, t->category,
               t->engine ? func_np_names[t->np] : "-",
               t->engine ? "supported" : "skipped: ", t->engine ? "" : t->why_not);
    }
}

/* One flag with a value: 1 and *value set when argv[*i] is `name` followed by a value. */
static int func_flag(int argc, char **argv, int *i, const char *name, const char **value)
{
    if (strcmp(argv[*i], name) != 0)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "symh_functional_tests: %s needs a value\n", name);
        exit(2);
    }
    *value = argv[++*i];
    return 1;
}

static long func_number(const char *flag, const char *text, long min)
{
    char *end;
    long v = strtol(text, &end, 0);

    if (*text == '\0' || *end != '\0' || v < min) {
        fprintf(stderr, "symh_functional_tests: %s %s: expected a number >= %ld\n", flag, text,
                min);
        exit(2);
    }
    return v;
}

static const func_test_t *func_parse(int argc, char **argv, func_opts_t *o)
{
    const func_test_t *test = NULL;
    const char *v;

    *o = (func_opts_t){ .max_size = 1 << 20,
                        .wgs = 1,
                        .wg_size = 64,
                        .loops = 10,
                        .skip = 10,
                        .loops_large = 10,
                        .buf_type = FUNC_BUF_HEAP,
                        .verify = 1,
                        .batch = 1 };
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            func_usage(stdout);
            exit(0);
        } else if (strcmp(argv[i], "--list") == 0) {
            func_list();
            exit(0);
        } else if (strcmp(argv[i], "-noverif") == 0) {
            o->verify = 0;
        } else if (strcmp(argv[i], "-fault") == 0) {
            o->fault = 1; /* test-only: corrupt every written pattern (docs/functional-tests.md) */
        } else if (func_flag(argc, argv, &i, "-a", &v)) {
            test = func_test_find(v);
            if (!test) {
                fprintf(stderr, "symh_functional_tests: -a %s: no such test type (--list)\n", v);
                exit(2);
            }
        } else if (func_flag(argc, argv, &i, "-s", &v)) {
            o->max_size = (size_t)func_number("-s", v, 1);
        } else if (func_flag(argc, argv, &i, "-w", &v)) {
            o->wgs = (int)func_number("-w", v, 1);
        } else if (func_flag(argc, argv, &i, "-z", &v)) {
            o->wg_size = (int)func_number("-z", v, 1);
        } else if (func_flag(argc, argv, &i, "-n", &v)) {
            o->loops = func_number("-n", v, 1);
        } else if (func_flag(argc, argv, &i, "-nskip", &v)) {
            o->skip = func_number("-nskip", v, 0);
        } else if (func_flag(argc, argv, &i, "-nlarge", &v)) {
            o->loops_large = func_number("-nlarge", v, 1);
        } else if (func_flag(argc, argv, &i, "-x", &v)) {
            o->ctx_type = func_number("-x", v, 0);
        } else if (func_flag(argc, argv, &i, "-v", &v)) {
            o->volume = func_number("-v", v, 1);
        } else if (func_flag(argc, argv, &i, "-b", &v)) {
            o->batch = (int)func_number("-b", v, 1);
        } else if (func_flag(argc, argv, &i, "-localbuftype", &v)) {
            int k = 0;

            while (k < 4 && strcasecmp(v, func_buf_names[k]) != 0)
                k++;
            if (k == 4) {
                fprintf(stderr,
                        "symh_functional_tests: -localbuftype %s: expected "
                        "heap|host|device|registered\n",
                        v);
                exit(2);
            }
            o->buf_type = (func_buf_t)k;
        } else {
            fprintf(stderr, "symh_functional_tests: unknown option '%s' (--help)\n", argv[i]);
            exit(2);
        }
    }
    if (!test) {
        fprintf(stderr, "symh_functional_tests: no test type given (-a, --list)\n");
        exit(2);
    }
    return test;
}

/* ---- helpers of the engines --------------------------------------------------------------- */
static int func_fault_on;

unsigned char func_pattern(size_t seed, size_t i)
{
    return (unsigned char)((i * 131u + seed * 7u + (i >> 8)) ^ 0xa5u);
}

void func_fill(const func_run_t *run, void *buf, size_t n, size_t seed)
{
    unsigned char *b = buf;

    (void)run;
    for (size_t i = 0; i < n; i++)
        b[i] = func_pattern(seed, i);
    if (func_fault_on && n > 0)
        b[n - 1] ^= 0x5a;
}

long func_check(const void *buf, size_t n, size_t seed)
{
    const unsigned char *b = buf;
    long errors = 0;

    for (size_t i = 0; i < n; i++)
        errors += b[i] != func_pattern(seed, i);
    return errors;
}

void *func_local_alloc(const func_run_t *run, size_t bytes)
{
    void *p = NULL;

    if (bytes == 0)
        bytes = 1;
    switch (run->opts->buf_type) {
    case FUNC_BUF_HEAP:
        p = symh_malloc(bytes); /* collective: every engine allocates on every PE */
        break;
    case FUNC_BUF_HOST:
        p = malloc(bytes);
        break;
    case FUNC_BUF_DEVICE:
        if (symh_dev_alloc(&p, bytes, NULL) != SYMH_OK)
            p = NULL;
        break;
    case FUNC_BUF_REGISTERED:
        p = malloc(bytes);
        if (p && symh_buffer_register(p, bytes) != SYMH_OK) {
            free(p);
            p = NULL;
        }
        break;
    }
    if (!p) {
        fprintf(stderr, "symh_functional_tests: PE %d: cannot allocate %zu bytes of %s memory\n",
                run->me, bytes, func_buf_names[run->opts->buf_type]);
        symh_global_exit(1);
    }
    return p;
}

void func_local_free(const func_run_t *run, void *buf)
{
    switch (run->opts->buf_type) {
    case FUNC_BUF_HEAP:
        symh_free(buf);
        break;
    case FUNC_BUF_HOST:
        free(buf);
        break;
    case FUNC_BUF_DEVICE:
        symh_dev_free(&buf, SYMH_DEVICE_ANY);
        break;
    case FUNC_BUF_REGISTERED:
        symh_buffer_unregister(buf); /* unregister, then free */
        free(buf);
        break;
    }
}

double func_now(void)
{
    return symh_bench_now();
}

typedef struct {
    func_run_t *run;
    func_thread_func_t fn;
    void *arg;
    int thread;
    double seconds;
    pthread_barrier_t *start;
} func_thread_t;

static void *func_thread_main(void *p)
{
    func_thread_t *t = p;
    double t0;

    pthread_barrier_wait(t->start);
    t0 = func_now();
    t->fn(t->run, t->thread, t->arg);
    t->seconds = func_now() - t0;
    return NULL;
}

double func_threads(func_run_t *run, func_thread_func_t fn, void *arg)
{
    int n = run->opts->wgs;
    func_thread_t *t;
    pthread_t *ids;
    pthread_barrier_t start;
    double slowest = 0, t0;

    if (n == 1) {
        t0 = func_now();
        fn(run, 0, arg);
        return func_now() - t0;
    }
    t = calloc((size_t)n, sizeof(*t));
    ids = calloc((size_t)n, sizeof(*ids));
    if (!t || !ids) {
        fprintf(stderr, "symh_functional_tests: out of memory for %d threads\n", n);
        symh_global_exit(1);
    }
    pthread_barrier_init(&start, NULL, (unsigned)n);
    for (int i = 0; i < n; i++) {
        t[i] = (func_thread_t){ .run = run, .fn = fn, .arg = arg, .thread = i, .start = &start };
        if (pthread_create(&ids[i], NULL, func_thread_main, &t[i]) != 0) {
            fprintf(stderr, "symh_functional_tests: pthread_create failed\n");
            symh_global_exit(1);
        }
    }
    for (int i = 0; i < n; i++) {
        pthread_join(ids[i], NULL);
        if (t[i].seconds > slowest)
            slowest = t[i].seconds;
    }
    pthread_barrier_destroy(&start);
    free(t);
    free(ids);
    return slowest;
}

int func_scope_ops(const func_run_t *run, func_scope_t scope)
{
    int z = run->opts->wg_size;

    switch (scope) {
    case FUNC_SCOPE_THREAD:
        return z;
    case FUNC_SCOPE_WAVE:
        return (z + FUNC_WAVE_LANES - 1) / FUNC_WAVE_LANES;
    case FUNC_SCOPE_WG:
        break;
    }
    return 1;
}

void func_scope_span(const func_run_t *run, func_scope_t scope, int op, size_t n, size_t *off,
                     size_t *len)
{
    size_t ops = (size_t)func_scope_ops(run, scope);

    *off = n * (size_t)op / ops;
    *len = n * (size_t)(op + 1) / ops - *off;
}

/* ---- the driver --------------------------------------------------------------------------- */
/* Agreement over the PEs: the slowest time, the worst error count, the summed ops and bytes. */
static void func_reduce(func_row_t *row)
{
    static double *src, *dst;

    if (!src) {
        src = symh_malloc(4 * sizeof(double));
        dst = symh_malloc(4 * sizeof(double));
    }
    src[0] = row->seconds;
    src[1] = (double)row->errors;
    symh_double_max_reduce(SYMH_TEAM_WORLD, dst, src, 2);
    row->seconds = dst[0];
    row->errors = (long)dst[1];
    src[0] = row->ops;
    src[1] = row->bytes;
    symh_double_sum_reduce(SYMH_TEAM_WORLD, dst, src, 2);
    row->ops = dst[0];
    row->bytes = dst[1];
}

static int func_np_ok(const func_test_t *t, int npes)
{
    switch (t->np) {
    case FUNC_NP_TWO:
        return npes == 2;
    case FUNC_NP_FOUR:
        return npes == 4;
    case FUNC_NP_ANY:
        return npes >= 2;
    case FUNC_NP_ONE:
        break;
    }
    return npes >= 1;
}

int main(int argc, char **argv)
{
    func_opts_t opts;
    const func_test_t *test = func_parse(argc, argv, &opts);
    func_run_t run = { .test = test, .opts = &opts };
    int provided, failed = 0;

    func_fault_on = opts.fault;
    if (!test->engine) {
        /* No host analogue: say why once (the first rank, or a run without mpirun). */
        const char *rank = getenv("OMPI_COMM_WORLD_RANK");

        if (!rank)
            rank = getenv("PMI_RANK");

        if (!rank || strcmp(rank, "0") == 0)
            printf("symh_functional_tests: %s (%d) skipped: %s\n", test->name, test->number,
                   test->why_not);
        return FUNC_EXIT_SKIP;
    }
    if (symh_init_thread(SYMH_THREAD_MULTIPLE, &provided) != SYMH_OK) {
        fprintf(stderr, "symh_functional_tests: symh_init_thread failed: %s\n",
                symh_status_string(symh_last_error()));
        return 1;
    }
    run.me = symh_my_pe();
    run.npes = symh_n_pes();
    if (!func_np_ok(test, run.npes)) {
        if (run.me == 0)
            fprintf(stderr, "symh_functional_tests: %s (%d) runs at %s, not %d\n", test->name,
                    test->number, func_np_names[test->np], run.npes);
        symh_finalize();
        return 2;
    }
    /* The engines fill and check the local buffer with host loads and stores: a GPU backend's
     * device memory would need copies the driver does not make. */
    if (opts.buf_type == FUNC_BUF_DEVICE && symh_device_kind(0) != SYMH_DEVICE_KIND_HOST) {
        if (run.me == 0)
            printf("symh_functional_tests: -localbuftype device skipped: the %s backend's memory "
                   "is not host-addressable and the driver checks buffers with host loads\n",
                   symh_device_kind(0) == SYMH_DEVICE_KIND_CUDA ? "CUDA" : "HIP");
        symh_finalize();
        return FUNC_EXIT_SKIP;
    }
    if (opts.wgs > 1 && provided < SYMH_THREAD_MULTIPLE) {
        if (run.me == 0)
            fprintf(stderr, "symh_functional_tests: -w %d needs SYMH_THREAD_MULTIPLE\n", opts.wgs);
        symh_finalize();
        return 2;
    }
    if (run.me == 0) {
        printf("# symh_functional_tests: %s (%d), %s, %d PEs, %d work-groups x %d threads, "
               "localbuftype %s%s\n",
               test->name, test->number, test->category, run.npes, opts.wgs, opts.wg_size,
               func_buf_names[opts.buf_type], opts.verify ? "" : ", no verification");
        printf("%-16s%-16s%-20s%s\n", "# Msg Size (B)", "Latency (us)", "Bandwidth (GB/s)",
               "Msg Rate");
        fflush(stdout);
    }
    for (size_t size = 1; size <= (test->sized ? opts.max_size : 1); size *= 2) {
        long loops = size >= FUNC_LARGE_MSG ? opts.loops_large : opts.loops;
        func_row_t row = { 0 };
        int status;

        symh_barrier_all();
        status = test->engine(&run, test->sized ? size : 8, loops, &row);
        symh_barrier_all();
        if (status != SYMH_OK)
            row.errors = row.errors ? row.errors : 1;
        func_reduce(&row);
        if (run.me == 0) {
            double s = row.seconds > 0 ? row.seconds : 1e-9;

            printf("%-16zu%-16.3f%-20.6f%.0f\n", test->sized ? size : (size_t)8,
                   s * 1e6 / (double)loops, row.bytes / s / 1e9, row.ops / s);
            if (row.errors)
                printf("FAILED: %s (%d) at %zu bytes: %ld wrong values\n", test->name, test->number,
                       size, row.errors);
            fflush(stdout);
        }
        if (row.errors) {
            failed = 1;
            break;
        }
        if (size > opts.max_size / 2)
            break;
    }
    if (run.me == 0)
        printf("# %s (%d): %s\n", test->name, test->number, failed ? "FAILED" : "passed");
    symh_finalize();
    return failed;
}
