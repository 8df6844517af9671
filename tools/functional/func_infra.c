/* symh_functional_tests: infrastructure, teams-and-contexts and registration engines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "func.h"

/* ---- infrastructure (11-13, 21, 48, 94) ------------------------------------------------------ */
#define FUNC_RANDOM_SLOTS 1024

static uint64_t func_random_value(size_t slot)
{
    return ((uint64_t)slot * 0x9e3779b97f4a7c15ULL) | 1;
}

int func_infra_engine(func_run_t *run, size_t size, long loops, func_row_t *row)
{
    int op = FUNC_VOP(run->test->variant), me = run->me, n = run->npes;
    long total = run->opts->skip + loops, lanes = (long)run->opts->wgs * run->opts->wg_size;
    uint64_t *slots = symh_calloc(FUNC_RANDOM_SLOTS > n ? FUNC_RANDOM_SLOTS : (size_t)n, 8);
    unsigned char *touched = calloc(FUNC_RANDOM_SLOTS, 1);
    double t0 = 0;

    (void)size;
    symh_barrier_all();
    for (long it = 0; it < total; it++) {
        if (it == run->opts->skip)
            t0 = func_now();
        switch (op) {
        case FUNC_INFRA_PINGPONG: /* a long bounced between the two PEs by symh_long_p */
            if (me == 0) {
                symh_long_p((long *)(void *)&slots[0], it + 1, 1);
                symh_long_wait_until((long *)(void *)&slots[1], SYMH_CMP_GE, it + 1);
            } else {
                symh_long_wait_until((long *)(void *)&slots[0], SYMH_CMP_GE, it + 1);
                symh_long_p((long *)(void *)&slots[1], it + 1, 0);
            }
            break;
        case FUNC_INFRA_RANDOM: /* lanes x rounds 8-byte puts at random slots of PE 1 */
            if (me == 0) {
                uint64_t x = (uint64_t)it * 2654435761u + 12345;

                for (long l = 0; l < lanes; l++) {
                    size_t s;
                    uint64_t v;

                    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                    s = (size_t)(x >> 33) % FUNC_RANDOM_SLOTS;
                    v = func_random_value(s) + (uint64_t)run->opts->fault;
                    symh_putmem(&slots[s], &v, 8, 1);
                    touched[s] = 1;
                }
            }
            break;
        case FUNC_INFRA_PTR: { /* a store through symh_ptr, or a put where there is none */
            uint64_t *p = symh_ptr(&slots[me], (me + 1) % n);
            uint64_t v = (uint64_t)it + 1;

            if (p)
                *p = v;
            else
                symh_putmem(&slots[me], &v, 8, (me + 1) % n);
            symh_barrier_all();
            row->errors += slots[(me - 1 + n) % n] != v + (uint64_t)run->opts->fault;
            symh_barrier_all();
            break;
        }
        case FUNC_INFRA_PINGALL: /* every PE puts its number into slot `me` of every PE */
            for (int pe = 0; pe < n; pe++) {
                uint64_t v = (uint64_t)me + 1 + (uint64_t)it * 1000;

                symh_putmem(&slots[me], &v, 8, pe);
            }
            symh_barrier_all();
            for (int pe = 0; pe < n; pe++)
                row->errors += slots[pe] !=
                               (uint64_t)pe + 1 + (uint64_t)it * 1000 + (uint64_t)run->opts->fault;
            symh_barrier_all();
            break;
        case FUNC_INFRA_INFO: {
            char name[SYMH_MAX_NAME_LEN];
            int major = -1, minor = -1;

            symh_info_get_version(&major, &minor);
            symh_info_get_name(name);
            row->errors += major != SYMH_VERSION_MAJOR || minor != SYMH_VERSION_MINOR ||
                           strnlen(name, sizeof(name)) == 0 || run->opts->fault;
            if (me == 0 && it == 0)
                printf("# library: %s, version %d.%d\n", name, major, minor);
            break;
        }
        default: /* FUNC_INFRA_INIT: symh_init_thread ran in main */
            row->errors +=
                !symh_initialized() || symh_my_pe() != me || symh_n_pes() != n || run->opts->fault;
            break;
        }
    }
    row->seconds = func_now() - t0;
    row->ops = (double)loops * (op == FUNC_INFRA_RANDOM && me == 0     ? (double)lanes
                                : op == FUNC_INFRA_PINGALL             ? (double)n
                                : op == FUNC_INFRA_PINGPONG && me == 0 ? 1.0
                                : op == FUNC_INFRA_PTR                 ? 1.0
                                                                       : 0.0);
    row->bytes = row->ops * 8;
    symh_barrier_all();
    if (op == FUNC_INFRA_RANDOM) {
        /* PE 0 knows which slots it touched: PE 1 checks all of them against that map */
        unsigned char *map = symh_calloc(FUNC_RANDOM_SLOTS, 1);

        if (me == 0)
            symh_putmem(map, touched, FUNC_RANDOM_SLOTS, 1);
        symh_barrier_all();
        if (me == 1 && run->opts->verify)
            for (size_t s = 0; s < FUNC_RANDOM_SLOTS; s++)
                row->errors += slots[s] != (map[s] ? func_random_value(s) : 0);
        symh_barrier_all();
        symh_free(map);
    }
    if (op == FUNC_INFRA_PINGPONG && run->opts->verify)
        row->errors += slots[me == 0 ? 1 : 0] != (uint64_t)total + (uint64_t)run->opts->fault;
    symh_barrier_all();
    free(touched);
    symh_free(slots);
    return SYMH_OK;
}

/* ---- teams and contexts (38, 73-75, 95, 98, 118-120) ----------------------------------------
 * A ring inside a team: each round every member puts 64 bytes to its right team neighbour
 * through a context made from the team (or a fresh context, HOST_CTX_CREATE), quiets it and
 * syncs the team; each member checks what its left neighbour (translated to world numbers)
 * sent. The teams come from split_strided (block, odd/even, single, subset of a subset),
 * SYMH_TEAM_SHARED, or split_2d. */
#define FUNC_RING_BYTES 64

static void func_team_ring(func_run_t *run, symh_team_t team, int fresh, unsigned char *buf,
                           long rounds, func_row_t *row)
{
    int tme, tn, right, left_world;
    symh_ctx_t ctx;
    unsigned char src[FUNC_RING_BYTES];

    if (team == SYMH_TEAM_INVALID)
        return;
    tme = symh_team_my_pe(team);
    tn = symh_team_n_pes(team);
    right = (tme + 1) % tn;
    left_world = symh_team_translate_pe(team, (tme - 1 + tn) % tn, SYMH_TEAM_WORLD);
    for (long it = 0; it < rounds; it++) {
        int status = fresh ? symh_ctx_create(run->opts->ctx_type, &ctx)
                           : symh_team_create_ctx(team, run->opts->ctx_type, &ctx);

        if (status != SYMH_OK) {
            row->errors++;
            return;
        }
        func_fill(run, src, sizeof(src), (size_t)(it * 1000 + run->me));
        symh_ctx_putmem(ctx, buf, src, sizeof(src),
                        fresh ? symh_team_translate_pe(team, right, SYMH_TEAM_WORLD) : right);
        symh_ctx_quiet(ctx);
        symh_ctx_destroy(ctx);
        symh_team_sync(team);
        if (run->opts->verify)
            row->errors += func_check(buf, FUNC_RING_BYTES, (size_t)(it * 1000 + left_world));
        symh_team_sync(team);
    }
    row->ops += (double)rounds;
    row->bytes += (double)rounds * FUNC_RING_BYTES;
}

/* A split's outcome against what the calling PE expects: the call succeeded (a split that
 * leaves a PE out still returns SYMH_OK there), and the PE got a team exactly when it is a
 * member. Anything else is an error of the row, never a quiet skip. */
static void func_split_check(int status, symh_team_t team, int member, func_row_t *row)
{
    row->errors += status != SYMH_OK || (team != SYMH_TEAM_INVALID) != (member != 0);
}

int func_team_engine(func_run_t *run, size_t size, long loops, func_row_t *row)
{
    int op = FUNC_VOP(run->test->variant), me = run->me, n = run->npes;
    unsigned char *buf = symh_calloc(FUNC_RING_BYTES, 1);
    symh_team_t a = SYMH_TEAM_INVALID, b = SYMH_TEAM_INVALID, c = SYMH_TEAM_INVALID;
    long rounds = run->opts->skip + loops;
    int status;
    double t0;

    (void)size;
    symh_barrier_all();
    t0 = func_now();
    switch (op) {
    case FUNC_TEAM_CTX_INFRA:
        /* -fault: a split that fails (one PE more than the world has), which must fail the row
         * rather than leave every PE without a team and the ring unrun */
        status = symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, n + (run->opts->fault != 0), NULL,
                                         0, &a);
        func_split_check(status, a, 1, row);
        break;
    case FUNC_TEAM_CTX_SINGLE:
        status = symh_team_split_strided(SYMH_TEAM_WORLD, n - 1, 1, 1, NULL, 0, &a);
        func_split_check(status, a, me == n - 1, row);
        break;
    case FUNC_TEAM_CTX_BLOCK:
        status = symh_team_split_strided(SYMH_TEAM_WORLD, 0, 1, n / 2, NULL, 0, &a);
        func_split_check(status, a, me < n / 2, row);
        status = symh_team_split_strided(SYMH_TEAM_WORLD, n / 2, 1, n - n / 2, NULL, 0, &b);
        func_split_check(status, b, me >= n / 2, row);
        break;
    case FUNC_TEAM_CTX_ODDEVEN:
    case FUNC_TEAM_SYNC_BARRIER:
        status = symh_team_split_strided(SYMH_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &a);
        func_split_check(status, a, me % 2 == 0, row);
        status = symh_team_split_strided(SYMH_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &b);
        func_split_check(status, b, me % 2 == 1, row);
        break;
    case FUNC_TEAM_CTX_SUBSET: /* the last n - 1 PEs, then the last n - 2 of those (>= 1) */
        status = symh_team_split_strided(SYMH_TEAM_WORLD, 1, 1, n - 1, NULL, 0, &b);
        func_split_check(status, b, me >= 1, row);
        if (b != SYMH_TEAM_INVALID) {
            status = symh_team_split_strided(b, n > 2 ? 1 : 0, 1, n > 2 ? n - 2 : 1, NULL, 0, &a);
            func_split_check(status, a, me >= (n > 2 ? 2 : 1), row);
        }
        break;
    case FUNC_TEAM_SPLIT_2D:
        status = symh_team_split_2d(SYMH_TEAM_WORLD, 2, NULL, 0, &a, NULL, 0, &b);
        func_split_check(status, a, 1, row);
        func_split_check(status, b, 1, row);
        row->errors += symh_team_my_pe(a) != me % 2 || symh_team_my_pe(b) != me / 2 ||
                       symh_team_n_pes(a) != 2 || symh_team_n_pes(b) != n / 2;
        break;
    default: /* SHARED and HOST_CTX_CREATE use the node's team and the world */
        break;
    }
    switch (op) {
    case FUNC_TEAM_CTX_SHARED:
        func_team_ring(run, SYMH_TEAM_SHARED, 0, buf, rounds, row);
        break;
    case FUNC_TEAM_HOST_CTX_CREATE:
        func_team_ring(run, SYMH_TEAM_WORLD, 1, buf, rounds, row);
        break;
    case FUNC_TEAM_SPLIT_2D: /* rows, then columns */
        func_team_ring(run, a, 0, buf, rounds, row);
        symh_barrier_all(); /* a column neighbour may still be checking its row's last round */
        func_team_ring(run, b, 0, buf, rounds, row);
        break;
    case FUNC_TEAM_CTX_SUBSET: /* the members of the innermost team */
        func_team_ring(run, a, 0, buf, rounds, row);
        break;
    default: /* each PE is in one of the two teams (single: in a or none) */
        func_team_ring(run, a != SYMH_TEAM_INVALID ? a : b, 0, buf, rounds, row);
        break;
    }
    row->seconds = func_now() - t0;
    symh_barrier_all();
    if (c != SYMH_TEAM_INVALID)
        symh_team_destroy(c);
    if (a != SYMH_TEAM_INVALID)
        symh_team_destroy(a);
    if (b != SYMH_TEAM_INVALID)
        symh_team_destroy(b);
    symh_free(buf);
    return SYMH_OK;
}

/* ---- BufferRegisterSymmetric (162) ----------------------------------------------------------
 * A malloc'd buffer is refused (NULL on every PE); a VMM buffer is registered, its alias differs
 * from it, each PE puts a pattern to (pe + 1) % n through the alias and checks what pe - 1 sent
 * (through the alias and through its own buffer: the same memory), unregisters, then writes its
 * own buffer to prove it still usable. */
int func_reg_engine(func_run_t *run, size_t size, long loops, func_row_t *row)
{
    int me = run->me, n = run->npes;
    size_t len = symh_vmm_granularity(0, SYMH_GRANULARITY_MINIMUM);
    unsigned char *plain = aligned_alloc(len, len), *src = malloc(len);
    symh_physmem_t *pm = NULL;
    void *va = NULL, *mapped = NULL;
    double t0 = 0;

    (void)size;
    if (!plain || !src || symh_buffer_register_symmetric(plain, len) != NULL ||
        symh_last_error() != SYMH_ERR_UNSUPPORTED)
        row->errors++;
    if (symh_vmm_reserve(len, NULL, &va) != SYMH_OK || symh_physmem_create(0, len, &pm) ||
        symh_physmem_map(pm, va, len, SYMH_ACCESS_READ_WRITE, 0, &mapped)) {
        fprintf(stderr, "PE %d: %s: VMM reserve/create/map failed\n", me, run->test->name);
        row->errors++;
        goto out;
    }
    for (long it = 0; it < run->opts->skip + loops; it++) {
        unsigned char *alias;

        if (it == run->opts->skip)
            t0 = func_now();
        memset(mapped, 0, len);
        alias = symh_buffer_register_symmetric(mapped, len);
        if (!alias || alias == mapped) {
            row->errors++;
            break;
        }
        func_fill(run, src, len, (size_t)(it * 64 + me));
        symh_putmem(alias, src, len, (me + 1) % n);
        symh_barrier_all();
        if (run->opts->verify)
            row->errors += func_check(alias, len, (size_t)(it * 64 + (me - 1 + n) % n)) +
                           func_check(mapped, len, (size_t)(it * 64 + (me - 1 + n) % n));
        symh_barrier_all();
        if (symh_buffer_unregister_symmetric(alias) != SYMH_OK)
            row->errors++;
        memset(mapped, 0x3c, len); /* still the user's memory */
        row->errors += ((unsigned char *)mapped)[len - 1] != 0x3c;
    }
    row->seconds = func_now() - t0;
    row->ops = (double)loops;
    row->bytes = (double)loops * (double)len;
    symh_vmm_unmap(mapped, len);
out:
    if (pm)
        symh_physmem_destroy(pm);
    if (va)
        symh_vmm_release(va, len);
    free(src);
    free(plain);
    return SYMH_OK;
}
