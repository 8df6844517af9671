/* symh_functional_tests: RMA, context, host, tile, memory-ordering and flood engines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "func.h"

/* ---- RMA (types 0-3, 22-31, 34-37, 59-64, 121, 122, 125, 126) -------------------------------
 * PE 0 moves a pattern to (put) or from (get) PE 1's heap. Host thread t owns bytes
 * [t * size, (t + 1) * size); each operation of its scope covers one share of them. */
typedef struct {
    int variant, phase, peer;
    size_t size;
    long iters;
    unsigned char *target, *local;
    symh_team_t team;
    symh_ctx_t ctx[];
} func_rma_t;

static void func_rma_op(symh_ctx_t ctx, int op, int nbi, unsigned char *target,
                        unsigned char *local, size_t len, int pe)
{
    switch (op) {
    case FUNC_OP_PUT:
        if (nbi)
            ctx ? symh_ctx_putmem_nbi(ctx, target, local, len, pe)
                : symh_putmem_nbi(target, local, len, pe);
        else
            ctx ? symh_ctx_putmem(ctx, target, local, len, pe)
                : symh_putmem(target, local, len, pe);
        break;
    case FUNC_OP_GET:
        if (nbi)
            ctx ? symh_ctx_getmem_nbi(ctx, local, target, len, pe)
                : symh_getmem_nbi(local, target, len, pe);
        else
            ctx ? symh_ctx_getmem(ctx, local, target, len, pe)
                : symh_getmem(local, target, len, pe);
        break;
    case FUNC_OP_P: /* one element per call: longs where the share is made of them */
        if (len % 8 == 0) {
            for (size_t i = 0; i < len; i += 8) {
                long v;

                memcpy(&v, local + i, 8);
                ctx ? symh_ctx_long_p(ctx, (long *)(void *)(target + i), v, pe)
                    : symh_long_p((long *)(void *)(target + i), v, pe);
            }
        } else {
            for (size_t i = 0; i < len; i++)
                ctx ? symh_ctx_char_p(ctx, (char *)target + i, (char)local[i], pe)
                    : symh_char_p((char *)target + i, (char)local[i], pe);
        }
        break;
    default: /* FUNC_OP_G */
        if (len % 8 == 0) {
            for (size_t i = 0; i < len; i += 8) {
                long v = ctx ? symh_ctx_long_g(ctx, (long *)(void *)(target + i), pe)
                             : symh_long_g((long *)(void *)(target + i), pe);

                memcpy(local + i, &v, 8);
            }
        } else {
            for (size_t i = 0; i < len; i++)
                local[i] = (unsigned char)(ctx ? symh_ctx_char_g(ctx, (char *)target + i, pe)
                                               : symh_char_g((char *)target + i, pe));
        }
        break;
    }
}

static void func_rma_thread(func_run_t *run, int t, void *arg)
{
    func_rma_t *a = arg;
    func_ctx_kind_t kind = FUNC_VCTX(a->variant);
    func_scope_t scope = FUNC_VSCOPE(a->variant);
    int op = FUNC_VOP(a->variant), nbi = FUNC_VNBI(a->variant), nops;
    size_t base = (size_t)t * a->size;
    symh_ctx_t ctx;

    if (a->phase == 0) { /* each host thread makes its own context */
        a->ctx[t] = NULL;
        if (kind == FUNC_CTX_DEFAULT)
            a->ctx[t] = SYMH_CTX_DEFAULT;
        else if (kind == FUNC_CTX_CREATED && symh_ctx_create(run->opts->ctx_type, &a->ctx[t]))
            a->ctx[t] = SYMH_CTX_INVALID;
        else if (kind == FUNC_CTX_TEAM &&
                 symh_team_create_ctx(a->team, run->opts->ctx_type, &a->ctx[t]))
            a->ctx[t] = SYMH_CTX_INVALID;
    }
    ctx = a->ctx[t];
    if (a->phase == 2) {
        if (kind == FUNC_CTX_CREATED || kind == FUNC_CTX_TEAM)
            symh_ctx_destroy(ctx);
        return;
    }
    nops = func_scope_ops(run, scope);
    for (long it = 0; it < a->iters; it++) {
        for (int o = 0; o < nops; o++) {
            size_t off, len;

            func_scope_span(run, scope, o, a->size, &off, &len);
            func_rma_op(ctx, op, nbi, a->target + base + off, a->local + base + off, len, a->peer);
        }
        if (nbi && (it + 1) % run->opts->batch == 0)
            ctx ? symh_ctx_quiet(ctx) : symh_quiet();
    }
    ctx ? symh_ctx_quiet(ctx) : symh_quiet();
}

int func_rma_engine(func_run_t *run, size_t size, long loops, func_row_t *row)
{
    int w = run->opts->wgs, op = FUNC_VOP(run->test->variant);
    size_t total = size * (size_t)w;
    func_rma_t *a = calloc(1, sizeof(*a) + (size_t)w * sizeof(symh_ctx_t));
    int put = op == FUNC_OP_PUT || op == FUNC_OP_P;

    a->variant = run->test->variant;
    a->size = size;
    a->target = symh_malloc(total);
    a->local = func_local_alloc(run, total);
    a->team = SYMH_TEAM_WORLD;
    a->peer = 1;
    if (FUNC_VCTX(a->variant) == FUNC_CTX_TEAM) {
        /* a team of every PE: the context is made from it, PE numbers translated through it;
         * a split that fails, or leaves this PE out, is the row's error */
        row->errors += symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, run->npes, NULL, 0,
                                               &a->team) != SYMH_OK ||
                       a->team == SYMH_TEAM_INVALID;
        a->peer = symh_team_translate_pe(SYMH_TEAM_WORLD, 1, a->team);
    }
    memset(a->target, 0, total);
    memset(a->local, 0, total);
    if (run->me == (put ? 0 : 1))
        func_fill(run, put ? a->local : a->target, total, size);
    symh_barrier_all();
    if (run->me == 0) {
        a->iters = run->opts->skip;
        func_threads(run, func_rma_thread, a);
        for (int t = 0; t < w; t++)
            if (a->ctx[t] == SYMH_CTX_INVALID && FUNC_VCTX(a->variant) >= FUNC_CTX_TEAM)
                row->errors++;
    }
    symh_barrier_all();
    if (run->me == (put ? 1 : 0))
        memset(put ? a->target : a->local, 0, total); /* the timed loops must write it again */
    symh_barrier_all();
    if (run->me == 0 && !row->errors) {
        a->phase = 1;
        a->iters = loops;
        row->seconds = func_threads(run, func_rma_thread, a);
        int nops = func_scope_ops(run, FUNC_VSCOPE(a->variant));

        /* shares of zero bytes (size < lanes) are no operation */
        row->ops = (double)loops * w * (size < (size_t)nops ? (double)size : nops);
        if (op == FUNC_OP_P || op == FUNC_OP_G)
            row->ops = (double)loops * w * (size % 8 ? size : size / 8);
        row->bytes = (double)loops * (double)total;
        a->phase = 2;
        func_threads(run, func_rma_thread, a);
    }
    symh_barrier_all();
    if (run->opts->verify && run->me == (put ? 1 : 0))
        row->errors += func_check(put ? a->target : a->local, total, size);
    symh_barrier_all();
    if (a->team != SYMH_TEAM_WORLD)
        symh_team_destroy(a->team);
    func_local_free(run, a->local);
    symh_free(a->target);
    free(a);
    return SYMH_OK;
}

/* ---- tiles (103-116, 132-137, 155-157, 163-170) ---------------------------------------------
 * A tile of rows x cols longs inside a matrix of rows x 2*cols (every other column a gap that
 * must stay zero): put/get by strided iput/iget per column or by one put/get per row;
 * broadcast/allgather: PE 0 (each PE) writes its tile into every other PE's matrix (allgather:
 * into block `pe`); reduce: every PE's tile summed. The variant's bit 8 swaps rows and cols. */
static long func_tile_value(const func_run_t *run, size_t seed, size_t i, int writer)
{
    long v = (long)(seed * 1000003u + i * 7u + 1);

    return writer && run->opts->fault && i == 0 ? v + 1 : v;
}

int func_tile_engine(func_run_t *run, size_t size, long loops, func_row_t *row)
{
    int op = FUNC_VOP(run->test->variant), me = run->me, n = run->npes;
    size_t elems = size / 8 ? size / 8 : 1, cols = 1, rows, ld, blocks, mat;
    long *target, *local;
    double t0;
    int single = op <= FUNC_TILE_ROW_GET;

    while (cols * cols < elems)
        cols *= 2;
    rows = (elems + cols - 1) / cols;
    if (FUNC_VNBI(run->test->variant)) {
        size_t r = rows;

        rows = cols;
        cols = r;
    }
    ld = 2 * cols;
    blocks = op == FUNC_TILE_ALLGATHER ? (size_t)n : 1;
    mat = rows * ld * blocks;
    target = symh_calloc(mat, sizeof(long));
    local = func_local_alloc(run, rows * cols * sizeof(long) * (op == FUNC_TILE_REDUCE ? 2 : 1));
    for (size_t i = 0; i < rows * cols; i++)
        local[i] = func_tile_value(run, (size_t)me + 1, i, 1);
    if (op == FUNC_TILE_IGET || op == FUNC_TILE_ROW_GET) { /* PE 1 holds the tile, PE 0 reads */
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < cols; c++)
                target[r * ld + c] = func_tile_value(run, 2, r * cols + c, 1);
        memset(local, 0, rows * cols * sizeof(long));
    }
    symh_barrier_all();
    t0 = func_now();
    for (long it = 0; it < run->opts->skip + loops; it++) {
        if (it == run->opts->skip)
            t0 = func_now();
        if (single && me != 0)
            continue;
        for (int pe = 0; pe < n; pe++) {
            long *dst = target + (op == FUNC_TILE_ALLGATHER ? (size_t)me * rows * ld : 0);

            if (pe == me || (op == FUNC_TILE_BROADCAST && me != 0) || op == FUNC_TILE_REDUCE)
                continue;
            switch (op) {
            case FUNC_TILE_IPUT:
            case FUNC_TILE_BROADCAST:
            case FUNC_TILE_ALLGATHER:
                for (size_t c = 0; c < cols; c++)
                    symh_long_iput(dst + c, local + c, (ptrdiff_t)ld, (ptrdiff_t)cols, rows, pe);
                break;
            case FUNC_TILE_IGET:
                for (size_t c = 0; c < cols; c++)
                    symh_long_iget(local + c, target + c, (ptrdiff_t)cols, (ptrdiff_t)ld, rows, pe);
                break;
            case FUNC_TILE_ROW_PUT:
                for (size_t r = 0; r < rows; r++)
                    symh_long_put(target + r * ld, local + r * cols, cols, pe);
                break;
            default: /* FUNC_TILE_ROW_GET */
                for (size_t r = 0; r < rows; r++)
                    symh_long_get(local + r * cols, target + r * ld, cols, pe);
                break;
            }
        }
        if (op == FUNC_TILE_REDUCE) {
            /* the reduction's source and destination must be symmetric: the packed tile goes
             * through the matrix's first rows*cols longs */
            memcpy(target, local, rows * cols * sizeof(long));
            symh_long_sum_reduce(SYMH_TEAM_WORLD, target + rows * cols, target, rows * cols);
            memcpy(local + rows * cols, target + rows * cols, rows * cols * sizeof(long));
        }
    }
    symh_barrier_all();
    row->seconds = func_now() - t0;
    row->ops =
        (double)loops * (double)(op == FUNC_TILE_ROW_PUT || op == FUNC_TILE_ROW_GET ? rows : cols);
    row->bytes = (double)loops * (double)(rows * cols * sizeof(long));
    if (run->opts->verify) {
        for (size_t b = 0; b < blocks; b++) {
            int from = op == FUNC_TILE_ALLGATHER ? (int)b : 0;

            if (op == FUNC_TILE_REDUCE ||
                (single && me != (op == FUNC_TILE_IGET || op == FUNC_TILE_ROW_GET ? 0 : 1)) ||
                (!single && from == me))
                continue;
            for (size_t r = 0; r < rows; r++) {
                for (size_t c = 0; c < ld; c++) {
                    long got = op == FUNC_TILE_IGET || op == FUNC_TILE_ROW_GET
                                   ? (c < cols ? local[r * cols + c] : 0)
                                   : target[b * rows * ld + r * ld + c];
                    long want =
                        c < cols ? func_tile_value(run,
                                                   op == FUNC_TILE_IGET || op == FUNC_TILE_ROW_GET
                                                       ? 2
                                                       : (size_t)from + 1,
                                                   r * cols + c, 0)
                                 : 0;

                    row->errors += got != want;
                }
            }
        }
        if (op == FUNC_TILE_REDUCE) {
            for (size_t i = 0; i < rows * cols; i++) {
                long want = 0;

                for (int pe = 0; pe < n; pe++)
                    want += func_tile_value(run, (size_t)pe + 1, i, 0);
                row->errors += local[rows * cols + i] != want;
            }
        }
    }
    symh_barrier_all();
    func_local_free(run, local);
    symh_free(target);
    return SYMH_OK;
}

/* ---- memory ordering (99-102) -----------------------------------------------------------------
 * Each PE (FANOUT: PE 0 to every other PE) puts `size` bytes of data, fences, then sets a flag;
 * the receiver waits for the flag and must see every byte of this round's data. */
int func_order_engine(func_run_t *run, size_t size, long loops, func_row_t *row)
{
    int op = FUNC_VOP(run->test->variant), me = run->me, n = run->npes;
    int fanout = op == FUNC_ORDER_FANOUT;
    int to = (me + 1) % n;
    unsigned char *data = symh_calloc(size, 1), *src = func_local_alloc(run, size);
    long *flag = symh_calloc(1, sizeof(long));
    double t0 = 0;

    for (long it = 0; it < run->opts->skip + loops; it++) {
        size_t seed = size + (size_t)it;
        int sends = fanout ? me == 0 : 1, receives = fanout ? me != 0 : 1;

        if (it == run->opts->skip)
            t0 = func_now();
        func_fill(run, src, size, seed);
        for (int pe = fanout ? 1 : to; sends && pe < (fanout ? n : to + 1); pe++) {
            if (op == FUNC_ORDER_NBI_CHUNKS || op == FUNC_ORDER_WAVE_SIGNAL) {
                size_t chunk = size / 8 ? size / 8 : 1;

                for (size_t off = 0; off < size; off += chunk)
                    if (op == FUNC_ORDER_NBI_CHUNKS)
                        symh_putmem_nbi(data + off, src + off,
                                        size - off < chunk ? size - off : chunk, pe);
                    else
                        symh_putmem(data + off, src + off, size - off < chunk ? size - off : chunk,
                                    pe);
            } else {
                symh_putmem(data, src, size, pe);
            }
        }
        symh_fence();
        for (int pe = fanout ? 1 : to; sends && pe < (fanout ? n : to + 1); pe++)
            symh_long_atomic_set(flag, it + 1, pe);
        if (receives) {
            symh_long_wait_until(flag, SYMH_CMP_GE, it + 1);
            if (run->opts->verify)
                row->errors += func_check(data, size, seed);
        }
        symh_barrier_all(); /* the data of the next round may not overtake this check */
    }
    row->seconds = func_now() - t0;
    row->ops = (double)loops * (fanout ? (me == 0 ? n - 1 : 0) : 1);
    row->bytes = row->ops * (double)size;
    func_local_free(run, src);
    symh_free(flag);
    symh_free(data);
    return SYMH_OK;
}

/* ---- flood (83-88) ----------------------------------------------------------------------------
 * Every PE floods its right neighbour: each of its lanes writes (or reads) its own long slot
 * `loops` times; volume (-v) lanes when given, else -w x -z. */
int func_flood_engine(func_run_t *run, size_t size, long loops, func_row_t *row)
{
    int op = FUNC_VOP(run->test->variant), nbi = FUNC_VNBI(run->test->variant);
    size_t lanes = run->opts->volume ? (size_t)run->opts->volume
                                     : (size_t)run->opts->wgs * (size_t)run->opts->wg_size;
    int to = (run->me + 1) % run->npes, put = op == FUNC_OP_PUT || op == FUNC_OP_P;
    long *slots = symh_calloc(lanes, sizeof(long));
    long *local = func_local_alloc(run, lanes * sizeof(long));
    double t0 = 0;

    (void)size;
    func_fill(run, put ? (void *)local : (void *)slots, lanes * sizeof(long), 99);
    if (!put)
        memset(local, 0, lanes * sizeof(long));
    symh_barrier_all();
    for (long it = 0; it < run->opts->skip + loops; it++) {
        if (it == run->opts->skip)
            t0 = func_now();
        for (size_t l = 0; l < lanes; l++) {
            switch (op) {
            case FUNC_OP_PUT:
                nbi ? symh_long_put_nbi(slots + l, local + l, 1, to)
                    : symh_long_put(slots + l, local + l, 1, to);
                break;
            case FUNC_OP_P:
                symh_long_p(slots + l, local[l], to);
                break;
            case FUNC_OP_GET:
                nbi ? symh_long_get_nbi(local + l, slots + l, 1, to)
                    : symh_long_get(local + l, slots + l, 1, to);
                break;
            default:
                local[l] = symh_long_g(slots + l, to);
                break;
            }
            if (nbi && (l + 1) % (size_t)run->opts->batch == 0)
                symh_quiet();
        }
        symh_quiet();
    }
    row->seconds = func_now() - t0;
    row->ops = (double)loops * (double)lanes;
    row->bytes = row->ops * sizeof(long);
    symh_barrier_all();
    if (run->opts->verify)
        row->errors += func_check(put ? (void *)slots : (void *)local, lanes * sizeof(long), 99);
    symh_barrier_all();
    func_local_free(run, local);
    symh_free(slots);
    return SYMH_OK;
}
