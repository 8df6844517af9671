/* symh_functional_tests: atomics, signals and point-to-point wait engines. */
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "func.h"

/* ---- atomics (4-10, 40-47, 90, 91, 123, 124, 127-131) ----------------------------------------
 * Every lane (-w threads x -z lanes) of PE 0 applies the operation to one 8-byte word of PE 1
 * (ALL_PES: of every PE, twice per round; SELF: of itself; FLOOD: of its right neighbour) every
 * round; the final value is checked against what the lanes must have made of it. */
typedef struct {
    int op;
    long iters;
    uint64_t *word;
    int *iword;
    atomic_long fetched_bad, fetched_zero;
    uint64_t lanes;
} func_amo_t;

#define FUNC_AMO_FETCH_INIT 0x1234567890abcdefULL

static void func_amo_thread(func_run_t *run, int t, void *arg)
{
    func_amo_t *a = arg;
    int z = run->opts->wg_size, n = run->npes, me = run->me;
    int pe = a->op == FUNC_AMO_SELF ? me : a->op >= FUNC_AMO_FLOOD_ADD ? (me + 1) % n : 1;
    uint64_t *w = a->word;

    for (long it = 0; it < a->iters; it++) {
        for (int l = 0; l < z; l++) {
            uint64_t g = (uint64_t)t * (uint64_t)z + (uint64_t)l, bit = 1ULL << (g % 64), v = 0;
            int bad = 0;

            switch (a->op) {
            case FUNC_AMO_FADD:
            case FUNC_AMO_SELF:
            case FUNC_AMO_FLOOD_FADD:
                v = symh_uint64_atomic_fetch_add(w, 1, pe);
                break;
            case FUNC_AMO_FINC:
                v = symh_uint64_atomic_fetch_inc(w, pe);
                break;
            case FUNC_AMO_FETCH:
                bad = symh_uint64_atomic_fetch(w, pe) != FUNC_AMO_FETCH_INIT;
                break;
            case FUNC_AMO_FCSWAP:
                v = symh_uint64_atomic_compare_swap(w, 0, g + 1, pe);
                bad = v > a->lanes;
                if (v == 0)
                    atomic_fetch_add(&a->fetched_zero, 1);
                break;
            case FUNC_AMO_ADD:
            case FUNC_AMO_FLOOD_ADD:
                symh_uint64_atomic_add(w, 1, pe);
                break;
            case FUNC_AMO_INC:
                symh_uint64_atomic_inc(w, pe);
                break;
            case FUNC_AMO_CSWAP: /* the non-fetching form: symh has none, the result is dropped */
                (void)symh_uint64_atomic_compare_swap(w, 0, g + 1, pe);
                break;
            case FUNC_AMO_SET:
                symh_uint64_atomic_set(w, g + 1, pe);
                break;
            case FUNC_AMO_SWAP:
                bad = symh_uint64_atomic_swap(w, g + 1, pe) > a->lanes;
                break;
            case FUNC_AMO_FAND:
                (void)symh_uint64_atomic_fetch_and(w, ~bit, pe);
                break;
            case FUNC_AMO_FOR:
                (void)symh_uint64_atomic_fetch_or(w, bit, pe);
                break;
            case FUNC_AMO_FXOR:
                (void)symh_uint64_atomic_fetch_xor(w, bit, pe);
                break;
            case FUNC_AMO_AND:
                symh_uint64_atomic_and(w, ~bit, pe);
                break;
            case FUNC_AMO_OR:
                symh_uint64_atomic_or(w, bit, pe);
                break;
            case FUNC_AMO_XOR:
                symh_uint64_atomic_xor(w, bit, pe);
                break;
            case FUNC_AMO_INT_FADD:
                v = (uint64_t)symh_int_atomic_fetch_add(a->iword, 1, pe);
                break;
            case FUNC_AMO_INT_FCSWAP: {
                int got = symh_int_atomic_compare_swap(a->iword, 0, (int)g + 1, pe);

                bad = got < 0 || (uint64_t)got > a->lanes;
                if (got == 0)
                    atomic_fetch_add(&a->fetched_zero, 1);
                break;
            }
            default: /* FUNC_AMO_ALL_PES: every PE adds to every PE, a fetching and a plain add */
                for (int p = 0; p < n; p++) {
                    (void)symh_uint64_atomic_fetch_add(w, 1, p);
                    symh_uint64_atomic_add(w, 1, p);
                }
                break;
            }
            (void)v;
            if (bad)
                atomic_fetch_add(&a->fetched_bad, 1);
        }
    }
    symh_quiet();
}

int func_amo_engine(func_run_t *run, size_t size, long loops, func_row_t *row)
{
    func_amo_t *a = calloc(1, sizeof(*a));
    int op = FUNC_VOP(run->test->variant), me = run->me, n = run->npes;
    int everyone = op == FUNC_AMO_ALL_PES || op == FUNC_AMO_SELF || op >= FUNC_AMO_FLOOD_ADD;
    uint64_t rounds = (uint64_t)(run->opts->skip + loops), want = 0, got;
    uint64_t mask = 0, parity = 0;

    (void)size;
    a->op = op;
    a->lanes = (uint64_t)run->opts->wgs * (uint64_t)run->opts->wg_size;
    a->word = symh_calloc(1, sizeof(uint64_t));
    a->iword = symh_calloc(1, sizeof(int));
    for (uint64_t g = 0; g < a->lanes; g++) {
        mask |= 1ULL << (g % 64);
        parity ^= (rounds & 1) ? 1ULL << (g % 64) : 0;
    }
    if (op == FUNC_AMO_FETCH)
        *a->word = FUNC_AMO_FETCH_INIT;
    if (op == FUNC_AMO_FAND || op == FUNC_AMO_AND)
        *a->word = ~0ULL;
    symh_barrier_all();
    if (everyone || me == 0) {
        a->iters = run->opts->skip;
        func_threads(run, func_amo_thread, a);
        a->iters = loops;
        row->seconds = func_threads(run, func_amo_thread, a);
        row->ops = (double)loops * (double)a->lanes * (op == FUNC_AMO_ALL_PES ? 2.0 * n : 1.0);
        row->bytes = row->ops * 8;
    }
    symh_barrier_all();
    got = op == FUNC_AMO_INT_FADD || op == FUNC_AMO_INT_FCSWAP ? (uint64_t)*a->iword : *a->word;
    switch (op) {
    case FUNC_AMO_FADD:
    case FUNC_AMO_FINC:
    case FUNC_AMO_ADD:
    case FUNC_AMO_INC:
    case FUNC_AMO_INT_FADD:
    case FUNC_AMO_SELF:
    case FUNC_AMO_FLOOD_ADD:
    case FUNC_AMO_FLOOD_FADD:
        want = rounds * a->lanes;
        break;
    case FUNC_AMO_ALL_PES:
        want = 2 * (uint64_t)n * rounds * a->lanes;
        break;
    case FUNC_AMO_FETCH:
        want = FUNC_AMO_FETCH_INIT;
        break;
    case FUNC_AMO_FAND:
    case FUNC_AMO_AND:
        want = ~mask;
        break;
    case FUNC_AMO_FOR:
    case FUNC_AMO_OR:
        want = mask;
        break;
    case FUNC_AMO_FXOR:
    case FUNC_AMO_XOR:
        want = parity;
        break;
    default: /* cswap, set, swap: the value one lane wrote */
        want = got >= 1 && got <= a->lanes ? got : ~got;
        break;
    }
    if (run->opts->fault)
        want++; /* test-only: expect what no correct run gives */
    if (run->opts->verify) {
        if ((everyone || me == 1) && got != want) {
            fprintf(stderr, "PE %d: %s: word is %llu, expected %llu\n", me, run->test->name,
                    (unsigned long long)got, (unsigned long long)want);
            row->errors++;
        }
        row->errors += atomic_load(&a->fetched_bad);
        if ((op == FUNC_AMO_FCSWAP || op == FUNC_AMO_INT_FCSWAP) && me == 0 &&
            atomic_load(&a->fetched_zero) != 1)
            row->errors++;
    }
    symh_barrier_all();
    symh_free(a->iword);
    symh_free(a->word);
    free(a);
    return SYMH_OK;
}

/* ---- signals (49-57, 171-173) -----------------------------------------------------------------
 * PUT: PE 0's lanes put their share of the data with a signal ADD of 1 each; PE 1 waits for the
 * count and checks every byte. FETCH: PE 0's zero-byte puts add to the signal while PE 1 polls it
 * with symh_signal_fetch. ADD: zero-byte puts with ADD; SET: zero-byte puts with SET through a
 * created context (round r sets r + 1); both checked after barrier_all. WAIT: a round trip,
 * PE 1 waits with symh_signal_wait_until, checks the data and signals back. */
typedef struct {
    int variant, phase;
    size_t size;
    long iters, first;
    unsigned char *data, *src;
    uint64_t *sig;
    symh_ctx_t ctx[];
} func_sig_t;

static void func_sig_thread(func_run_t *run, int t, void *arg)
{
    func_sig_t *a = arg;
    int op = FUNC_VOP(a->variant), nbi = FUNC_VNBI(a->variant);
    func_scope_t scope = FUNC_VSCOPE(a->variant);
    int nops = func_scope_ops(run, scope);
    size_t base = (size_t)t * a->size;
    symh_ctx_t ctx = NULL;

    if (FUNC_VCTX(a->variant) == FUNC_CTX_CREATED) {
        if (a->phase == 0 && symh_ctx_create(run->opts->ctx_type, &a->ctx[t]) != SYMH_OK)
            a->ctx[t] = SYMH_CTX_INVALID;
        ctx = a->ctx[t];
        if (a->phase == 2)
            symh_ctx_destroy(ctx);
    }
    if (a->phase == 2)
        return;
    for (long it = 0; it < a->iters; it++) {
        for (int o = 0; o < nops; o++) {
            size_t off = 0, len = 0;
            uint64_t value = op == FUNC_SIG_SET ? (uint64_t)(a->first + it + 1) : 1;
            int sig_op = op == FUNC_SIG_SET ? SYMH_SIGNAL_SET : SYMH_SIGNAL_ADD;

            if (op == FUNC_SIG_PUT)
                func_scope_span(run, scope, o, a->size, &off, &len);
            if (ctx)
                symh_ctx_putmem_signal(ctx, a->data + base + off, a->src + base + off, len, a->sig,
                                       value, sig_op, 1);
            else if (nbi)
                symh_putmem_signal_nbi(a->data + base + off, a->src + base + off, len, a->sig,
                                       value, sig_op, 1);
            else
                symh_putmem_signal(a->data + base + off, a->src + base + off, len, a->sig, value,
                                   sig_op, 1);
        }
        if (nbi && (it + 1) % run->opts->batch == 0)
            symh_quiet();
    }
    ctx ? symh_ctx_quiet(ctx) : symh_quiet();
}

int func_signal_engine(func_run_t *run, size_t size, long loops, func_row_t *row)
{
    int w = run->opts->wgs, op = FUNC_VOP(run->test->variant), me = run->me;
    func_sig_t *a = calloc(1, sizeof(*a) + (size_t)w * sizeof(symh_ctx_t));
    size_t total;
    uint64_t per_round, want;
    uint64_t *back;

    a->variant = run->test->variant;
    a->size = op == FUNC_SIG_PUT ? size : op == FUNC_SIG_WAIT ? 8 : 0;
    total = a->size * (size_t)w;
    a->data = symh_calloc(total + 8, 1);
    a->src = func_local_alloc(run, total + 8);
    a->sig = symh_calloc(1, sizeof(uint64_t));
    back = symh_calloc(1, sizeof(uint64_t));
    per_round = (uint64_t)w * (uint64_t)func_scope_ops(run, FUNC_VSCOPE(a->variant));
    func_fill(run, a->src, total, size);
    symh_barrier_all();
    if (op == FUNC_SIG_WAIT) {
        double t0 = 0;

        for (long it = 0; it < run->opts->skip + loops; it++) {
            if (it == run->opts->skip)
                t0 = func_now();
            if (me == 0) {
                func_fill(run, a->src, 8, (size_t)it);
                symh_putmem_signal(a->data, a->src, 8, a->sig, (uint64_t)it + 1, SYMH_SIGNAL_SET,
                                   1);
                symh_signal_wait_until(back, SYMH_CMP_GE, (uint64_t)it + 1);
            } else {
                symh_signal_wait_until(a->sig, SYMH_CMP_GE, (uint64_t)it + 1);
                if (run->opts->verify)
                    row->errors += func_check(a->data, 8, (size_t)it);
                symh_putmem_signal(a->data + 8, a->src, 0, back, (uint64_t)it + 1, SYMH_SIGNAL_SET,
                                   0);
            }
        }
        row->seconds = func_now() - t0;
        row->ops = me == 0 ? (double)loops : 0;
        row->bytes = row->ops * 8;
        goto out;
    }
    if (me == 0) {
        a->iters = run->opts->skip;
        func_threads(run, func_sig_thread, a);
        if (FUNC_VCTX(a->variant) == FUNC_CTX_CREATED)
            for (int t = 0; t < w; t++)
                row->errors += a->ctx[t] == SYMH_CTX_INVALID;
    }
    symh_barrier_all();
    if (me == 1 && op == FUNC_SIG_PUT)
        memset(a->data, 0, total); /* the timed rounds must write it again */
    symh_barrier_all();
    want = op == FUNC_SIG_SET ? (uint64_t)(run->opts->skip + loops)
                              : per_round * (uint64_t)(run->opts->skip + loops);
    if (me == 0 && !row->errors) {
        a->phase = 1;
        a->first = run->opts->skip;
        a->iters = loops;
        row->seconds = func_threads(run, func_sig_thread, a);
        row->ops = (double)loops * (double)per_round;
        row->bytes = (double)loops * (double)total;
        a->phase = 2;
        func_threads(run, func_sig_thread, a);
    } else if (me == 1 && !row->errors && (op == FUNC_SIG_PUT || op == FUNC_SIG_FETCH)) {
        /* wait on the signal itself, not on a barrier */
        if (op == FUNC_SIG_PUT)
            symh_signal_wait_until(a->sig, SYMH_CMP_GE, want);
        else
            while (symh_signal_fetch(a->sig) < want)
                sched_yield();
        if (run->opts->verify && op == FUNC_SIG_PUT)
            row->errors += func_check(a->data, total, size);
    }
    symh_barrier_all();
    if (run->opts->verify && me == 1 && *a->sig != want) {
        fprintf(stderr, "PE 1: %s: signal is %llu after barrier_all, expected %llu\n",
                run->test->name, (unsigned long long)*a->sig, (unsigned long long)want);
        row->errors++;
    }
out:
    symh_barrier_all();
    symh_free(back);
    symh_free(a->sig);
    func_local_free(run, a->src);
    symh_free(a->data);
    free(a);
    return SYMH_OK;
}

/* ---- point-to-point waits (138-148, 92) -------------------------------------------------------
 * Round r: PE 0 sets element r % N of PE 1's N ivars to r + 1 (ALL: every element; the STATUS
 * forms also set an excluded element, which the wait must ignore); PE 1 waits with the routine
 * under test, checks which element it returned, and acknowledges. FLOOD_AMO: every PE adds 1 to
 * every other PE's counter from each lane, and waits for its own to reach the total. */
#define FUNC_WAIT_N 8

static long func_wait_one(int op, long *iv, long value, long *cmp_values, const int *status,
                          long *errors)
{
    size_t idx[FUNC_WAIT_N], k = 0, want = (size_t)(value - 1) % FUNC_WAIT_N;

    if (op >= FUNC_WAIT_ALL_STATUS)
        want &= ~(size_t)1; /* only even elements are included */
    for (int i = 0; i < FUNC_WAIT_N; i++)
        cmp_values[i] = value;
    switch (op) {
    case FUNC_WAIT_UNTIL:
        symh_long_wait_until(&iv[0], SYMH_CMP_GE, value);
        return 0;
    case FUNC_WAIT_TEST:
        while (!symh_long_test(&iv[0], SYMH_CMP_GE, value))
            sched_yield();
        return 0;
    case FUNC_WAIT_ALL:
        symh_long_wait_until_all(iv, FUNC_WAIT_N, NULL, SYMH_CMP_EQ, value);
        return 0;
    case FUNC_WAIT_ALL_VECTOR:
        symh_long_wait_until_all_vector(iv, FUNC_WAIT_N, NULL, SYMH_CMP_EQ, cmp_values);
        return 0;
    case FUNC_WAIT_ALL_STATUS:
        symh_long_wait_until_all(iv, FUNC_WAIT_N, status, SYMH_CMP_EQ, value);
        return 0;
    case FUNC_WAIT_ANY:
        k = symh_long_wait_until_any(iv, FUNC_WAIT_N, NULL, SYMH_CMP_EQ, value);
        break;
    case FUNC_WAIT_ANY_VECTOR:
        k = symh_long_wait_until_any_vector(iv, FUNC_WAIT_N, NULL, SYMH_CMP_EQ, cmp_values);
        break;
    case FUNC_WAIT_ANY_STATUS:
        k = symh_long_wait_until_any(iv, FUNC_WAIT_N, status, SYMH_CMP_EQ, value);
        break;
    default: /* the SOME forms: exactly the one element */
        if (op == FUNC_WAIT_SOME)
            k = symh_long_wait_until_some(iv, FUNC_WAIT_N, idx, NULL, SYMH_CMP_EQ, value);
        else if (op == FUNC_WAIT_SOME_VECTOR)
            k = symh_long_wait_until_some_vector(iv, FUNC_WAIT_N, idx, NULL, SYMH_CMP_EQ,
                                                 cmp_values);
        else
            k = symh_long_wait_until_some(iv, FUNC_WAIT_N, idx, status, SYMH_CMP_EQ, value);
        *errors += k != 1 || idx[0] != want;
        return 0;
    }
    *errors += k != want;
    return 0;
}

int func_wait_engine(func_run_t *run, size_t size, long loops, func_row_t *row)
{
    int op = FUNC_VOP(run->test->variant), me = run->me, n = run->npes;
    long *iv = symh_calloc(FUNC_WAIT_N, sizeof(long)), *ack = symh_calloc(1, sizeof(long));
    long cmp_values[FUNC_WAIT_N];
    int status[FUNC_WAIT_N];
    double t0 = 0;

    (void)size;
    for (int i = 0; i < FUNC_WAIT_N; i++)
        status[i] = i % 2; /* odd elements excluded */
    symh_barrier_all();
    if (op == FUNC_WAIT_FLOOD_AMO) {
        long lanes = (long)run->opts->wgs * run->opts->wg_size;

        for (long it = 0; it < run->opts->skip + loops; it++) {
            if (it == run->opts->skip)
                t0 = func_now();
            for (int d = 1; d < n; d++)
                for (long l = 0; l < lanes; l++)
                    symh_long_atomic_add(iv, 1, (me + d) % n);
            symh_long_wait_until(iv, SYMH_CMP_GE, (n - 1) * lanes * (it + 1));
        }
        row->seconds = func_now() - t0;
        row->ops = (double)loops * (double)lanes * (n - 1);
        row->bytes = row->ops * 8;
        symh_barrier_all();
        if (run->opts->verify)
            row->errors += *iv != (n - 1) * lanes * (run->opts->skip + loops) + run->opts->fault;
        goto out;
    }
    for (long it = 0; it < run->opts->skip + loops; it++) {
        long value = it + 1;
        int e = (int)(it % FUNC_WAIT_N);

        if (it == run->opts->skip)
            t0 = func_now();
        if (me == 0) {
            if (op >= FUNC_WAIT_ALL_STATUS)
                symh_long_atomic_set(&iv[e | 1], value, 1); /* excluded: must not wake PE 1 */
            if (op == FUNC_WAIT_ALL || op == FUNC_WAIT_ALL_VECTOR || op == FUNC_WAIT_ALL_STATUS)
                for (int i = 0; i < FUNC_WAIT_N; i++)
                    symh_long_atomic_set(&iv[i], value, 1);
            else
                symh_long_atomic_set(&iv[op <= FUNC_WAIT_TEST         ? 0
                                         : op >= FUNC_WAIT_ALL_STATUS ? e & ~1
                                                                      : e],
                                     value, 1);
            symh_long_wait_until(ack, SYMH_CMP_GE, value);
        } else if (me == 1) {
            func_wait_one(op, iv, value, cmp_values, status, &row->errors);
            symh_long_atomic_set(ack, value, 0);
        }
    }
    row->seconds = func_now() - t0;
    row->ops = me == 0 ? (double)loops : 0;
    row->bytes = row->ops * 8;
out:
    symh_barrier_all();
    symh_free(ack);
    symh_free(iv);
    return SYMH_OK;
}
