/* The team collectives (OpenSHMEM 1.5 section 9.10): shmem_team_sync and shmem_sync(team),
 * broadcast (the root's dest too), collect (a different count on each PE), fcollect, alltoall,
 * alltoalls (strided), typed, mem and C11 generic forms; and every reduction operator over
 * every type the specification lists for it (the complex sums and products included), typed
 * and generic, in place too. Each runs on SHMEM_TEAM_WORLD and on a split team (the even world
 * PEs). New in 1.5: an implementation that says 1.4 skips them all. */
#include "conf.h"

#if CONF_HAVE_15

#include <complex.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NRED  7 /* elements per reduction */
#define NEL   5 /* elements per PE in the data-movement collectives */
#define MAXPE 64

/* Symmetric buffers: the heap ones (world team) are passed in; these globals serve the split
 * team. Big enough for MAXPE * NEL elements of 16 bytes with a stride of 3. */
static _Alignas(16) unsigned char g_src[3 * MAXPE * NEL * 16];
static _Alignas(16) unsigned char g_dst[3 * MAXPE * NEL * 16];

/* A collective on team t, after a sync of the team: the specification leaves a collective's
 * writes into a member's dest concurrent with that member's own reads of it (the checks of the
 * previous call) undefined, so every call here starts once all members are done checking. */
#define COLL(call)                       \
    do {                                 \
        CHECK_EQ(shmem_team_sync(t), 0); \
        CHECK_EQ(call, 0);               \
    } while (0)

/* Reduction sources: team PE tp's element i for each kind of operator. */
#define BITS_VAL(T, tp, i)   ((T)(((T)1 << ((tp) % 8)) | ((T)(i) << (((tp) % 3) + 2))))
#define MINMAX_VAL(T, tp, i) ((T)(((tp)*7 + (i)*3) % 11 - 5))
#define SUM_VAL(T, tp, i)    ((T)(((tp) + (i)) % 5 + 1))
#define PROD_VAL(T, tp, i)   ((T)((tp) < 3 && ((tp) + (i)) % 2 ? 2 : 1))

/* One reduction OP of TYPENAME/TYPE over team t (n members, this PE tp): the expected value is
 * folded here from every member's source formula. */
#define RUN_REDUCE(TYPENAME, TYPE, OP, VAL, FOLD, src, dst)                                 \
    do {                                                                                    \
        TYPE *s_ = (TYPE *)(src), *d_ = (TYPE *)(dst);                                      \
        for (int i = 0; i < NRED; i++) {                                                    \
            s_[i] = VAL(TYPE, tp, i);                                                       \
            d_[i] = (TYPE)0x55;                                                             \
        }                                                                                   \
        COLL(shmem_##TYPENAME##_##OP##_reduce(t, d_, s_, NRED));                            \
        for (int i = 0; i < NRED; i++) {                                                    \
            TYPE want = VAL(TYPE, 0, i);                                                    \
            for (int p = 1; p < n; p++) {                                                   \
                TYPE v = VAL(TYPE, p, i);                                                   \
                want = FOLD(want, v);                                                       \
            }                                                                               \
            if (d_[i] != want)                                                              \
                conf_fail(__FILE__, __LINE__, "shmem_" #TYPENAME "_" #OP "_reduce element", \
                          (long long)d_[i], (long long)want);                               \
            CHECK(s_[i] == VAL(TYPE, tp, i)); /* the source is left as it was */            \
        }                                                                                   \
    } while (0)

#define FOLD_AND(a, b)  ((a) & (b))
#define FOLD_OR(a, b)   ((a) | (b))
#define FOLD_XOR(a, b)  ((a) ^ (b))
#define FOLD_MAX(a, b)  ((a) > (b) ? (a) : (b))
#define FOLD_MIN(a, b)  ((a) < (b) ? (a) : (b))
#define FOLD_SUM(a, b)  ((a) + (b))
#define FOLD_PROD(a, b) ((a) * (b))

#define BITWISE_REDUCTIONS(TYPENAME, TYPE, src, dst)                   \
    do {                                                               \
        RUN_REDUCE(TYPENAME, TYPE, and, BITS_VAL, FOLD_AND, src, dst); \
        RUN_REDUCE(TYPENAME, TYPE, or, BITS_VAL, FOLD_OR, src, dst);   \
        RUN_REDUCE(TYPENAME, TYPE, xor, BITS_VAL, FOLD_XOR, src, dst); \
    } while (0)
#define ARITH_REDUCTIONS(TYPENAME, TYPE, src, dst)                       \
    do {                                                                 \
        RUN_REDUCE(TYPENAME, TYPE, max, MINMAX_VAL, FOLD_MAX, src, dst); \
        RUN_REDUCE(TYPENAME, TYPE, min, MINMAX_VAL, FOLD_MIN, src, dst); \
        RUN_REDUCE(TYPENAME, TYPE, sum, SUM_VAL, FOLD_SUM, src, dst);    \
        RUN_REDUCE(TYPENAME, TYPE, prod, PROD_VAL, FOLD_PROD, src, dst); \
    } while (0)

static void reductions(shmem_team_t t, void *src, void *dst)
{
    int n = shmem_team_n_pes(t), tp = shmem_team_my_pe(t);

    BITWISE_REDUCTIONS(uchar, unsigned char, src, dst);
    BITWISE_REDUCTIONS(ushort, unsigned short, src, dst);
    BITWISE_REDUCTIONS(uint, unsigned int, src, dst);
    BITWISE_REDUCTIONS(ulong, unsigned long, src, dst);
    BITWISE_REDUCTIONS(ulonglong, unsigned long long, src, dst);
    BITWISE_REDUCTIONS(int8, int8_t, src, dst);
    BITWISE_REDUCTIONS(int16, int16_t, src, dst);
    BITWISE_REDUCTIONS(int32, int32_t, src, dst);
    BITWISE_REDUCTIONS(int64, int64_t, src, dst);
    BITWISE_REDUCTIONS(uint8, uint8_t, src, dst);
    BITWISE_REDUCTIONS(uint16, uint16_t, src, dst);
    BITWISE_REDUCTIONS(uint32, uint32_t, src, dst);
    BITWISE_REDUCTIONS(uint64, uint64_t, src, dst);
    BITWISE_REDUCTIONS(size, size_t, src, dst);

    ARITH_REDUCTIONS(char, char, src, dst);
    ARITH_REDUCTIONS(schar, signed char, src, dst);
    ARITH_REDUCTIONS(short, short, src, dst);
    ARITH_REDUCTIONS(int, int, src, dst);
    ARITH_REDUCTIONS(long, long, src, dst);
    ARITH_REDUCTIONS(longlong, long long, src, dst);
    ARITH_REDUCTIONS(ptrdiff, ptrdiff_t, src, dst);
    ARITH_REDUCTIONS(uchar, unsigned char, src, dst);
    ARITH_REDUCTIONS(ushort, unsigned short, src, dst);
    ARITH_REDUCTIONS(uint, unsigned int, src, dst);
    ARITH_REDUCTIONS(ulong, unsigned long, src, dst);
    ARITH_REDUCTIONS(ulonglong, unsigned long long, src, dst);
    ARITH_REDUCTIONS(int8, int8_t, src, dst);
    ARITH_REDUCTIONS(int16, int16_t, src, dst);
    ARITH_REDUCTIONS(int32, int32_t, src, dst);
    ARITH_REDUCTIONS(int64, int64_t, src, dst);
    ARITH_REDUCTIONS(uint8, uint8_t, src, dst);
    ARITH_REDUCTIONS(uint16, uint16_t, src, dst);
    ARITH_REDUCTIONS(uint32, uint32_t, src, dst);
    ARITH_REDUCTIONS(uint64, uint64_t, src, dst);
    ARITH_REDUCTIONS(size, size_t, src, dst);
    ARITH_REDUCTIONS(float, float, src, dst);
    ARITH_REDUCTIONS(double, double, src, dst);
    ARITH_REDUCTIONS(longdouble, long double, src, dst);

    /* The complex sums and products: (tp + 1) + tp i summed; i multiplied n times. */
    double _Complex *cs = src, *cd = dst;
    for (int i = 0; i < NRED; i++)
        cs[i] = (double)(tp + 1 + i) + (double)tp * I;
    COLL(shmem_complexd_sum_reduce(t, cd, cs, NRED));
    for (int i = 0; i < NRED; i++) {
        CHECK(creal(cd[i]) == (double)(n * (n + 1) / 2 + n * i));
        CHECK(cimag(cd[i]) == (double)(n * (n - 1) / 2));
    }
    for (int i = 0; i < NRED; i++)
        cs[i] = i % 2 ? I : 1.0;
    COLL(shmem_complexd_prod_reduce(t, cd, cs, NRED));
    /* i^n: 1, i, -1, -i */
    static const double re4[4] = { 1, 0, -1, 0 }, im4[4] = { 0, 1, 0, -1 };
    for (int i = 0; i < NRED; i++) {
        CHECK(creal(cd[i]) == (i % 2 ? re4[n % 4] : 1.0));
        CHECK(cimag(cd[i]) == (i % 2 ? im4[n % 4] : 0.0));
    }
    float _Complex *fs = src, *fd = dst;
    for (int i = 0; i < NRED; i++)
        fs[i] = (float)(i + 1) - (float)tp * I;
    COLL(shmem_complexf_sum_reduce(t, fd, fs, NRED));
    for (int i = 0; i < NRED; i++) {
        CHECK(crealf(fd[i]) == (float)(n * (i + 1)));
        CHECK(cimagf(fd[i]) == -(float)(n * (n - 1) / 2));
    }
    for (int i = 0; i < NRED; i++)
        fs[i] = 2.0f * I;
    COLL(shmem_complexf_prod_reduce(t, fd, fs, NRED));
    {
        float _Complex want = 1.0f;
        for (int p = 0; p < n; p++)
            want *= 2.0f * I;
        for (int i = 0; i < NRED; i++)
            CHECK(fd[i] == want);
    }

    /* In place (dest == source), and the generic forms. */
    long *ls = src;
    for (int i = 0; i < NRED; i++)
        ls[i] = tp + 10 * i;
    COLL(shmem_long_sum_reduce(t, ls, ls, NRED));
    for (int i = 0; i < NRED; i++)
        CHECK_EQ(ls[i], n * (n - 1) / 2 + 10L * n * i);
    int *is = src, *id = dst;
    for (int i = 0; i < NRED; i++)
        is[i] = tp * 3 - i;
    COLL(shmem_max_reduce(t, id, is, NRED));
    CHECK_EQ(id[2], (n - 1) * 3 - 2);
    COLL(shmem_min_reduce(t, id, is, NRED));
    CHECK_EQ(id[2], -2);
    COLL(shmem_sum_reduce(t, id, is, NRED));
    CHECK_EQ(id[1], 3 * n * (n - 1) / 2 - n);
    COLL(shmem_prod_reduce(t, id, is, 1));
    CHECK_EQ(id[0], 0); /* team PE 0 contributes 0 */
    unsigned long *us = src, *ud = dst;
    us[0] = 1UL << tp;
    us[1] = ~0UL;
    COLL(shmem_or_reduce(t, ud, us, 2));
    CHECK_EQ(ud[0], (1UL << n) - 1);
    COLL(shmem_and_reduce(t, ud, us, 2));
    CHECK_EQ(ud[0], n == 1 ? 1 : 0);
    CHECK(ud[1] == ~0UL);
    COLL(shmem_xor_reduce(t, ud, us, 2));
    CHECK_EQ(ud[0], (1UL << n) - 1);
    CHECK(ud[1] == (n % 2 ? ~0UL : 0UL));
    double *ds = src, *dd = dst;
    ds[0] = 0.5 * tp;
    COLL(shmem_sum_reduce(t, dd, ds, 1));
    CHECK(dd[0] == 0.25 * n * (n - 1));
    double _Complex *zs = src, *zd = dst;
    zs[0] = 1.0 + 1.0 * I;
    COLL(shmem_sum_reduce(t, zd, zs, 1));
    CHECK(zd[0] == (double)n + (double)n * I);
    CHECK_EQ(shmem_team_sync(t), 0);
}

/* The data-movement collectives over team t (n members, this PE tp), from src into dst. */
static void movement(shmem_team_t t, long *src, long *dst)
{
    int n = shmem_team_n_pes(t), tp = shmem_team_my_pe(t);

    /* broadcast from every root in turn: every member's dest, the root's included */
    for (int root = 0; root < n; root++) {
        for (int i = 0; i <= NEL; i++) {
            src[i] = 1000L * tp + i;
            dst[i] = -1;
        }
        COLL(shmem_long_broadcast(t, dst, src, NEL, root));
        for (int i = 0; i < NEL; i++)
            CHECK_EQ(dst[i], 1000L * root + i);
        CHECK_EQ(dst[NEL], -1);
    }
    /* broadcastmem of an odd byte count, and the generic form */
    unsigned char *bs = (unsigned char *)src, *bd = (unsigned char *)dst;
    memset(bd, 0xAB, 40);
    for (int i = 0; i < 40; i++)
        bs[i] = (unsigned char)(tp * 16 + i);
    COLL(shmem_broadcastmem(t, bd, bs, 37, n - 1));
    for (int i = 0; i < 37; i++)
        CHECK_EQ(bd[i], (unsigned char)((n - 1) * 16 + i));
    CHECK_EQ(bd[37], 0xAB);
    int *is = (int *)src, *id = (int *)dst;
    is[0] = 7 * tp;
    is[1] = 8;
    COLL(shmem_broadcast(t, id, is, 2, 0));
    CHECK_EQ(id[0], 0);
    CHECK_EQ(id[1], 8);
    CHECK_EQ(shmem_team_sync(t), 0);

    /* collect: team PE p contributes p + 1 elements, concatenated in team order */
    for (int i = 0; i <= tp; i++)
        src[i] = 100L * tp + i;
    for (int i = 0; i < n * (n + 1) / 2 + 1; i++)
        dst[i] = -1;
    COLL(shmem_long_collect(t, dst, src, (size_t)tp + 1));
    for (int p = 0, k = 0; p < n; p++)
        for (int i = 0; i <= p; i++, k++)
            CHECK_EQ(dst[k], 100L * p + i);
    CHECK_EQ(dst[n * (n + 1) / 2], -1);
    /* collectmem: 3 bytes from each member; generic collect of ints: tp + 1 ints of tp */
    for (int i = 0; i < 3; i++)
        bs[i] = (unsigned char)(tp * 3 + i);
    COLL(shmem_collectmem(t, bd, bs, 3));
    for (int i = 0; i < 3 * n; i++)
        CHECK_EQ(bd[i], i);
    CHECK_EQ(shmem_team_sync(t), 0);
    for (int i = 0; i <= tp; i++)
        is[i] = tp;
    COLL(shmem_collect(t, id, is, (size_t)tp + 1));
    for (int p = 0, k = 0; p < n; p++)
        for (int i = 0; i <= p; i++, k++)
            CHECK_EQ(id[k], p);
    CHECK_EQ(shmem_team_sync(t), 0);

    /* fcollect: NEL elements each */
    for (int i = 0; i < NEL; i++)
        src[i] = 10L * tp + i;
    COLL(shmem_long_fcollect(t, dst, src, NEL));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < NEL; i++)
            CHECK_EQ(dst[p * NEL + i], 10L * p + i);
    bs[0] = (unsigned char)(tp * 3);
    bs[1] = (unsigned char)(tp * 3 + 1);
    COLL(shmem_fcollectmem(t, bd, bs, 2));
    for (int p = 0; p < n; p++)
        CHECK_EQ(bd[2 * p + 1], p * 3 + 1);
    CHECK_EQ(shmem_team_sync(t), 0);
    double *ds = (double *)src, *dd = (double *)dst;
    ds[0] = tp + 0.5;
    COLL(shmem_fcollect(t, dd, ds, 1));
    for (int p = 0; p < n; p++)
        CHECK(dd[p] == p + 0.5);
    CHECK_EQ(shmem_team_sync(t), 0);

    /* alltoall: block j of my source goes to member j's block tp */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < NEL; i++)
            src[j * NEL + i] = 10000L * tp + 100L * j + i;
    COLL(shmem_long_alltoall(t, dst, src, NEL));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < NEL; i++)
            CHECK_EQ(dst[j * NEL + i], 10000L * j + 100L * tp + i);
    CHECK_EQ(shmem_team_sync(t), 0);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 3; i++)
            bs[j * 3 + i] = (unsigned char)(tp * 50 + j * 5 + i);
    COLL(shmem_alltoallmem(t, bd, bs, 3));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 3; i++)
            CHECK_EQ(bd[j * 3 + i], j * 50 + tp * 5 + i);
    CHECK_EQ(shmem_team_sync(t), 0);
    for (int j = 0; j < n; j++)
        is[j] = tp * 10 + j;
    COLL(shmem_alltoall(t, id, is, 1));
    for (int j = 0; j < n; j++)
        CHECK_EQ(id[j], j * 10 + tp);
    CHECK_EQ(shmem_team_sync(t), 0);

    /* alltoalls: element k of block j at (j * NEL + k) * sst in source, * dst in dest;
     * the elements between the strided ones are left alone */
    const ptrdiff_t sst = 2, dstr = 3;
    for (int x = 0; x < 3 * n * NEL; x++) {
        src[x] = -5;
        dst[x] = -7;
    }
    for (int j = 0; j < n; j++)
        for (int k = 0; k < NEL; k++)
            src[(j * NEL + k) * sst] = 10000L * tp + 100L * j + k;
    COLL(shmem_long_alltoalls(t, dst, src, dstr, sst, NEL));
    for (int x = 0; x < dstr * n * NEL; x++) {
        if (x % dstr == 0) {
            int j = x / dstr / NEL, k = x / dstr % NEL;
            CHECK_EQ(dst[x], 10000L * j + 100L * tp + k);
        } else {
            CHECK_EQ(dst[x], -7);
        }
    }
    CHECK_EQ(shmem_team_sync(t), 0);
    /* alltoallsmem (strides in bytes' elements) and the generic alltoalls on ints */
    for (int j = 0; j < n; j++)
        bs[j * 2 * 2] = bs[j * 2 * 2 + 2] = (unsigned char)(tp * 8 + j);
    memset(bd, 0, 4 * (size_t)n);
    COLL(shmem_alltoallsmem(t, bd, bs, 1, 2, 2));
    for (int j = 0; j < n; j++) {
        CHECK_EQ(bd[j * 2], j * 8 + tp);
        CHECK_EQ(bd[j * 2 + 1], j * 8 + tp);
    }
    CHECK_EQ(shmem_team_sync(t), 0);
    for (int j = 0; j < n; j++)
        is[3 * j] = 1000 * tp + j;
    COLL(shmem_alltoalls(t, id, is, 1, 3, 1));
    for (int j = 0; j < n; j++)
        CHECK_EQ(id[j], 1000 * j + tp);
    CHECK_EQ(shmem_team_sync(t), 0);

    /* sync: a count made visible by quiet + sync, both forms */
    static long count;
    count = 0;
    CHECK_EQ(shmem_team_sync(t), 0);
    shmem_long_atomic_inc(&count, shmem_team_translate_pe(t, 0, SHMEM_TEAM_WORLD));
    shmem_quiet();
    CHECK_EQ(shmem_sync(t), 0);
    if (tp == 0)
        CHECK_EQ(count, n);
    CHECK_EQ(shmem_sync(t), 0);
}

int main(void)
{
    conf_program = "collectives";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= MAXPE);
    size_t bytes = sizeof g_src;
    void *hsrc = shmem_malloc(bytes), *hdst = shmem_malloc(bytes);
    CHECK(hsrc != NULL && hdst != NULL);

    movement(SHMEM_TEAM_WORLD, hsrc, hdst);
    reductions(SHMEM_TEAM_WORLD, hsrc, hdst);

    shmem_team_t evens = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens), 0);
    if (me % 2 == 0) {
        CHECK(evens != SHMEM_TEAM_INVALID);
        movement(evens, (long *)g_src, (long *)g_dst);
        reductions(evens, g_src, g_dst);
        shmem_team_destroy(evens);
    }
    /* and a team whose members are not world PE 0: the odd PEs */
    shmem_team_t odds = SHMEM_TEAM_INVALID;
    if (npes > 1) {
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odds), 0);
        if (me % 2 == 1) {
            movement(odds, hsrc, hdst);
            reductions(odds, hsrc, hdst);
            shmem_team_destroy(odds);
        }
    }

    shmem_barrier_all();
    shmem_free(hdst);
    shmem_free(hsrc);
    conf_done();
    return 0;
}

#else

int main(void)
{
    conf_program = "collectives";
    shmem_init();
    if (shmem_my_pe() == 0)
        printf("SKIP collectives: the team collectives are OpenSHMEM 1.5; this implementation "
               "says %d.%d\n",
               SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    shmem_finalize();
    return CONF_EXIT_NOT_APPLICABLE;
}

#endif
