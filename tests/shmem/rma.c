/* Remote memory access (OpenSHMEM 1.5 section 9.5): the typed put/get/p/g/iput/iget and their
 * non-blocking forms, the sized forms (put8..put128), putmem/getmem, the C11 type-generic
 * interfaces; targets on the heap, in globals and in a function-scope static. Each PE writes
 * into the next PE and reads from the previous one. */
#include "conf.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define N 16

static long global_target[N];
static double global_doubles[N];

/* put then get of one type: the next PE's buffer receives ours, we read the previous one's. */
#define TYPED_ROUND(TYPENAME, TYPE)                                       \
    do {                                                                  \
        TYPE *dst = shmem_malloc(N * sizeof(TYPE));                       \
        TYPE src[N], back[N];                                             \
        CHECK(dst != NULL);                                               \
        for (int i = 0; i < N; i++)                                       \
            src[i] = (TYPE)(me * 3 + i + 1);                              \
        shmem_barrier_all();                                              \
        shmem_##TYPENAME##_put(dst, src, N, next);                        \
        shmem_barrier_all();                                              \
        for (int i = 0; i < N; i++)                                       \
            CHECK(dst[i] == (TYPE)(prev * 3 + i + 1));                    \
        shmem_##TYPENAME##_get(back, dst, N, next);                       \
        for (int i = 0; i < N; i++)                                       \
            CHECK(back[i] == (TYPE)(me * 3 + i + 1));                     \
        shmem_barrier_all();                                              \
        shmem_##TYPENAME##_p(&dst[0], (TYPE)(40 + me), next);             \
        shmem_barrier_all();                                              \
        CHECK(dst[0] == (TYPE)(40 + prev));                               \
        CHECK(shmem_##TYPENAME##_g(&dst[1], next) == (TYPE)(me * 3 + 2)); \
        shmem_barrier_all();                                              \
        shmem_free(dst);                                                  \
    } while (0)

int main(void)
{
    conf_program = "rma";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;

    TYPED_ROUND(float, float);
    TYPED_ROUND(double, double);
    TYPED_ROUND(longdouble, long double);
    TYPED_ROUND(char, char);
    TYPED_ROUND(schar, signed char);
    TYPED_ROUND(short, short);
    TYPED_ROUND(int, int);
    TYPED_ROUND(long, long);
    TYPED_ROUND(longlong, long long);
    TYPED_ROUND(uchar, unsigned char);
    TYPED_ROUND(ushort, unsigned short);
    TYPED_ROUND(uint, unsigned int);
    TYPED_ROUND(ulong, unsigned long);
    TYPED_ROUND(ulonglong, unsigned long long);
    TYPED_ROUND(int8, int8_t);
    TYPED_ROUND(int16, int16_t);
    TYPED_ROUND(int32, int32_t);
    TYPED_ROUND(int64, int64_t);
    TYPED_ROUND(uint8, uint8_t);
    TYPED_ROUND(uint16, uint16_t);
    TYPED_ROUND(uint32, uint32_t);
    TYPED_ROUND(uint64, uint64_t);
    TYPED_ROUND(size, size_t);
    TYPED_ROUND(ptrdiff, ptrdiff_t);

    /* putmem/getmem of odd sizes and offsets, into the heap. */
    unsigned char *bytes = shmem_malloc(4099);
    unsigned char srcb[4099], backb[4099];
    for (int i = 0; i < 4099; i++)
        srcb[i] = (unsigned char)(i * 7 + me);
    memset(bytes, 0, 4099);
    shmem_barrier_all();
    shmem_putmem(bytes + 3, srcb, 4093, next);
    shmem_barrier_all();
    for (int i = 0; i < 4093; i++)
        CHECK_EQ(bytes[i + 3], (unsigned char)(i * 7 + prev));
    CHECK_EQ(bytes[0], 0);
    shmem_getmem(backb, bytes + 3, 4093, next);
    for (int i = 0; i < 4093; i++)
        CHECK_EQ(backb[i], (unsigned char)(i * 7 + me));

    /* The sized forms: put8/16/32/64/128 count elements of that many bits. */
    uint64_t *sized = shmem_calloc(8, sizeof(uint64_t));
    uint64_t s64[8];
    for (int i = 0; i < 8; i++)
        s64[i] = 0x0102030405060708ULL * (uint64_t)(me + 1) + (uint64_t)i;
    shmem_barrier_all();
    shmem_put128(sized, s64, 2, next); /* elements 0-3 */
    shmem_put64(sized + 4, s64 + 4, 1, next);
    shmem_put32(sized + 5, s64 + 5, 2, next);
    shmem_put16(sized + 6, s64 + 6, 4, next);
    shmem_put8(sized + 7, s64 + 7, 8, next);
    shmem_barrier_all();
    for (int i = 0; i < 8; i++)
        CHECK(sized[i] == 0x0102030405060708ULL * (uint64_t)(prev + 1) + (uint64_t)i);
    uint64_t g64[8] = { 0 };
    shmem_get128(g64, sized, 2, next);
    shmem_get64(g64 + 4, sized + 4, 1, next);
    shmem_get32(g64 + 5, sized + 5, 2, next);
    shmem_get16(g64 + 6, sized + 6, 4, next);
    shmem_get8(g64 + 7, sized + 7, 8, next);
    for (int i = 0; i < 8; i++)
        CHECK(g64[i] == s64[i]);

    /* Strided: iput every other element into a global, with target stride 3. */
    long lsrc[2 * N];
    for (int i = 0; i < 2 * N; i++)
        lsrc[i] = me * 100 + i;
    memset(global_target, 0, sizeof global_target);
    shmem_barrier_all();
    shmem_long_iput(global_target, lsrc, 3, 2, 5, next); /* target 0,3,..,12 <- src 0,2,..,8 */
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        CHECK_EQ(global_target[i], i % 3 == 0 && i / 3 < 5 ? prev * 100 + (i / 3) * 2 : 0);
    long lgot[2 * N];
    memset(lgot, 0, sizeof lgot);
    shmem_long_iget(lgot, global_target, 2, 3, 5, next); /* lgot 0,2,..,8 <- target 0,3,..,12 */
    for (int i = 0; i < 10; i++)
        CHECK_EQ(lgot[i], i % 2 == 0 ? me * 100 + i : 0);
    shmem_barrier_all();
    shmem_iput32(global_target + 1, lsrc, 2, 1, 1, next);
    shmem_iput64(global_target + 2, lsrc, 3, 1, 2, next);
    shmem_barrier_all();
    CHECK_EQ(global_target[5], prev * 100 + 1);

    /* Non-blocking put and get, completed by shmem_quiet; a function-scope static as target. */
    static double static_target[N];
    double dsrc[N], dback[N];
    for (int i = 0; i < N; i++)
        dsrc[i] = me + i * 0.25;
    shmem_barrier_all();
    shmem_double_put_nbi(static_target, dsrc, N, next);
    shmem_putmem_nbi(global_doubles, dsrc, sizeof dsrc, next);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        CHECK(static_target[i] == prev + i * 0.25);
        CHECK(global_doubles[i] == prev + i * 0.25);
    }
    shmem_double_get_nbi(dback, static_target, N, next);
    shmem_getmem_nbi(dsrc, global_doubles, sizeof dsrc, prev);
    shmem_quiet();
    for (int i = 0; i < N; i++) {
        CHECK(dback[i] == me + i * 0.25);
        CHECK(dsrc[i] == ((prev + npes - 1) % npes) + i * 0.25);
    }
    shmem_barrier_all();

    /* The C11 type-generic forms. */
    long *gen = shmem_malloc(N * sizeof(long));
    for (int i = 0; i < N; i++)
        lsrc[i] = -me * 10 - i;
    shmem_barrier_all();
    shmem_put(gen, lsrc, N, next);
    shmem_p(&global_target[0], 77L + me, next);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        CHECK_EQ(gen[i], -prev * 10 - i);
    CHECK_EQ(global_target[0], 77 + prev);
    CHECK_EQ(shmem_g(&gen[3], next), -me * 10 - 3);
    shmem_get(lgot, gen, N, next);
    CHECK_EQ(lgot[N - 1], -me * 10 - (N - 1));
    shmem_barrier_all();

    /* Zero-length transfers do nothing. */
    shmem_long_put(gen, lsrc, 0, next);
    shmem_getmem(lgot, gen, 0, next);
    shmem_barrier_all();
    CHECK_EQ(gen[0], -prev * 10);

    shmem_free(gen);
    shmem_free(sized);
    shmem_free(bytes);
    conf_done();
    return 0;
}
