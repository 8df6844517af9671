/* symh_functional_tests: collective and barrier engines (one host thread per PE calls them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "func.h"

/* ---- collectives (17-19, 32, 33, 150-153) -----------------------------------------------------
 * On a team of every PE (split from the world): `size` bytes per PE (collect: PE i gives
 * size * (i + 1) / n bytes, at least 1), reduce: size / 8 longs summed. Every PE checks every
 * byte it received after the last round. */
int func_coll_engine(func_run_t *run, size_t size, long loops, func_row_t *row)
{
    int op = FUNC_VOP(run->test->variant), me = run->me, n = run->npes;
    size_t elems = size / 8 ? size / 8 : 1, src_bytes = size, dst_bytes = size, off = 0;
    symh_team_t team = SYMH_TEAM_INVALID;
    unsigned char *src, *dst;
    double t0 = 0;

    if (op == FUNC_COLL_ALLTOALL) {
        src_bytes = size * (size_t)n;
        dst_bytes = src_bytes;
    } else if (op == FUNC_COLL_FCOLLECT || op == FUNC_COLL_COLLECT) {
        dst_bytes = size * (size_t)n;
    } else if (op == FUNC_COLL_REDUCE) {
        src_bytes = dst_bytes = elems * sizeof(long);
    }
    if (symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, n, NULL, 0, &team) != SYMH_OK)
        return SYMH_ERR_INVALID_ARG;
    src = symh_calloc(src_bytes, 1);
    dst = symh_calloc(dst_bytes, 1);
    switch (op) {
    case FUNC_COLL_COLLECT:
        src_bytes = size * (size_t)(me + 1) / (size_t)n;
        src_bytes = src_bytes ? src_bytes : 1;
        func_fill(run, src, src_bytes, size + (size_t)me);
        break;
    case FUNC_COLL_ALLTOALL:
        for (int j = 0; j < n; j++)
            func_fill(run, src + (size_t)j * size, size, (size_t)(me * n + j));
        break;
    case FUNC_COLL_REDUCE:
        for (size_t i = 0; i < elems; i++)
            ((long *)(void *)src)[i] = me + (long)i + (run->opts->fault && i == 0);
        break;
    default:
        func_fill(run, src, size, size + (size_t)me);
        break;
    }
    symh_barrier_all();
    for (long it = 0; it < run->opts->skip + loops; it++) {
        int status = SYMH_OK;

        if (it == run->opts->skip) {
            memset(dst, 0, dst_bytes); /* the timed rounds must write it again */
            symh_barrier_all();
            t0 = func_now();
        }
        switch (op) {
        case FUNC_COLL_COLLECT:
            status = symh_collectmem(team, dst, src, src_bytes);
            break;
        case FUNC_COLL_FCOLLECT:
            status = symh_fcollectmem(team, dst, src, size);
            break;
        case FUNC_COLL_ALLTOALL:
            status = symh_alltoallmem(team, dst, src, size);
            break;
        case FUNC_COLL_BROADCAST:
            status = symh_broadcastmem(team, dst, src, size, 0);
            break;
        default:
            status = symh_long_sum_reduce(team, (long *)(void *)dst, (long *)(void *)src, elems);
            break;
        }
        row->errors += status != SYMH_OK;
    }
    row->seconds = func_now() - t0;
    row->ops = (double)loops;
    row->bytes = (double)loops * (double)dst_bytes;
    if (run->opts->verify) {
        for (int j = 0; j < n; j++) {
            switch (op) {
            case FUNC_COLL_COLLECT: {
                size_t len = size * (size_t)(j + 1) / (size_t)n;

                len = len ? len : 1;
                row->errors += func_check(dst + off, len, size + (size_t)j);
                off += len;
                break;
            }
            case FUNC_COLL_FCOLLECT:
                row->errors += func_check(dst + (size_t)j * size, size, size + (size_t)j);
                break;
            case FUNC_COLL_ALLTOALL:
                row->errors += func_check(dst + (size_t)j * size, size, (size_t)(j * n + me));
                break;
            case FUNC_COLL_BROADCAST:
                if (j == 0)
                    row->errors += func_check(dst, size, size);
                break;
            default:
                if (j == 0)
                    for (size_t i = 0; i < elems; i++)
                        row->errors +=
                            ((long *)(void *)dst)[i] != (long)n * (long)i + (long)n * (n - 1) / 2;
                break;
            }
        }
    }
    symh_barrier_all();
    symh_free(dst);
    symh_free(src);
    symh_team_destroy(team);
    return SYMH_OK;
}

/* ---- barriers (14-16, 58, 65-72) --------------------------------------------------------------
 * Each round every PE adds 1 to its right neighbour's counter, completes it (quiet, except for
 * barrier_all which completes it itself) and enters the barrier: after it, the counter must
 * show this round's add (and at most the next round's). */
int func_sync_engine(func_run_t *run, size_t size, long loops, func_row_t *row)
{
    int op = FUNC_VOP(run->test->variant), me = run->me, n = run->npes;
    long *counter = symh_calloc(1, sizeof(long)), total = run->opts->skip + loops;
    symh_team_t team = SYMH_TEAM_INVALID;
    double t0 = 0;

    (void)size;
    if (op >= FUNC_SYNC_TEAM_SYNC &&
        symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, n, NULL, 0, &team) != SYMH_OK)
        return SYMH_ERR_INVALID_ARG;
    symh_barrier_all();
    for (long it = 0; it < total; it++) {
        long seen;

        if (it == run->opts->skip)
            t0 = func_now();
        symh_long_atomic_add(counter, 1, (me + 1) % n);
        switch (op) {
        case FUNC_SYNC_BARRIER_ALL:
            symh_barrier_all();
            break;
        case FUNC_SYNC_SYNC_ALL:
            symh_quiet();
            symh_sync_all();
            break;
        default: /* a team barrier is quiet + team_sync */
            symh_quiet();
            symh_team_sync(team);
            break;
        }
        seen = symh_long_atomic_fetch(counter, me);
        if (run->opts->verify && (seen < it + 1 || seen > it + 2))
            row->errors++;
    }
    row->seconds = func_now() - t0;
    row->ops = (double)loops;
    symh_barrier_all();
    if (run->opts->verify && *counter != total + run->opts->fault)
        row->errors++;
    symh_barrier_all();
    if (team != SYMH_TEAM_INVALID)
        symh_team_destroy(team);
    symh_free(counter);
    return SYMH_OK;
}
