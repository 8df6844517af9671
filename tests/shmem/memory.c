/* Memory management (OpenSHMEM 1.5 section 9.3): shmem_malloc, shmem_free, shmem_realloc,
 * shmem_align, shmem_calloc, shmem_malloc_with_hints; the executable's global and static
 * variables as symmetric objects. Each allocation is checked to be symmetric by a put into the
 * next PE's copy. */
#include "conf.h"

#include <stdint.h>
#include <string.h>

static long global_long[32];
double global_double = 1.5;

/* Put `n` longs into the next PE's `buf`, then check ours holds what the previous PE put. */
static void ring_check(long *buf, size_t n, long tag)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long src[64];
    for (size_t i = 0; i < n; i++)
        src[i] = tag * 100000 + me * 1000 + (long)i;
    shmem_barrier_all();
    shmem_long_put(buf, src, n, (me + 1) % npes);
    shmem_barrier_all();
    int prev = (me + npes - 1) % npes;
    for (size_t i = 0; i < n; i++)
        CHECK_EQ(buf[i], tag * 100000 + prev * 1000 + (long)i);
}

int main(void)
{
    conf_program = "memory";
    shmem_init();
    int me = shmem_my_pe();

    long *a = shmem_malloc(64 * sizeof(long));
    CHECK(a != NULL);
    ring_check(a, 64, 1);

    /* calloc: zeroed. */
    int *z = shmem_calloc(100, sizeof(int));
    CHECK(z != NULL);
    for (int i = 0; i < 100; i++)
        CHECK_EQ(z[i], 0);

    /* realloc keeps the contents up to the smaller size and stays symmetric. */
    long *r = shmem_malloc(8 * sizeof(long));
    CHECK(r != NULL);
    for (int i = 0; i < 8; i++)
        r[i] = me * 10 + i;
    long *r2 = shmem_realloc(r, 48 * sizeof(long));
    CHECK(r2 != NULL);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(r2[i], me * 10 + i);
    ring_check(r2, 48, 2);
    long *r3 = shmem_realloc(r2, 4 * sizeof(long));
    CHECK(r3 != NULL);
    ring_check(r3, 4, 3);

    /* align: every power of two asked for. */
    static const size_t aligns[] = { 8, 16, 64, 256, 4096, 65536 };
    for (size_t k = 0; k < sizeof aligns / sizeof aligns[0]; k++) {
        long *p = shmem_align(aligns[k], 16 * sizeof(long));
        CHECK(p != NULL);
        CHECK_EQ((uintptr_t)p % aligns[k], 0);
        ring_check(p, 16, 4 + (long)k);
        shmem_free(p);
    }

#if CONF_HAVE_15
    /* malloc_with_hints: 0 and the defined hints give usable symmetric memory. */
    long *h0 = shmem_malloc_with_hints(16 * sizeof(long), 0);
    long *h1 = shmem_malloc_with_hints(16 * sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE);
    long *h2 = shmem_malloc_with_hints(16 * sizeof(long), SHMEM_MALLOC_SIGNAL_REMOTE);
    CHECK(h0 != NULL && h1 != NULL && h2 != NULL);
    ring_check(h0, 16, 20);
    ring_check(h1, 16, 21);
    ring_check(h2, 16, 22);
    h1[0] = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(h1, 1, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ(h1[0], shmem_n_pes());
    shmem_free(h2);
    shmem_free(h1);
    shmem_free(h0);
#endif

    /* Many live allocations of different sizes, freed out of order. */
    long *many[24];
    for (int i = 0; i < 24; i++) {
        many[i] = shmem_malloc((size_t)(i + 1) * 24);
        CHECK(many[i] != NULL);
    }
    for (int i = 0; i < 24; i += 2)
        shmem_free(many[i]);
    ring_check(many[23], 64, 30);
    for (int i = 1; i < 24; i += 2)
        shmem_free(many[i]);

    /* A large block (16 MiB). */
    char *big = shmem_malloc((size_t)16 << 20);
    CHECK(big != NULL);
    memset(big, 0, (size_t)16 << 20);
    shmem_barrier_all();
    char mark = (char)('a' + me % 26);
    shmem_char_p(big + ((size_t)16 << 20) - 1, mark, (me + 1) % shmem_n_pes());
    shmem_barrier_all();
    int prev = (me + shmem_n_pes() - 1) % shmem_n_pes();
    CHECK_EQ(big[((size_t)16 << 20) - 1], 'a' + prev % 26);
    shmem_free(big);

    /* Globals and a function-scope static are symmetric. */
    static int local_static[10];
    ring_check(global_long, 32, 40);
    shmem_barrier_all();
    shmem_int_p(&local_static[9], 500 + me, (me + 1) % shmem_n_pes());
    shmem_double_p(&global_double, 2.5 * me, (me + 1) % shmem_n_pes());
    shmem_barrier_all();
    CHECK_EQ(local_static[9], 500 + prev);
    CHECK(global_double == 2.5 * prev);

    /* shmem_free(NULL) does nothing (collectively). */
    shmem_free(NULL);
    shmem_free(r3);
    shmem_free(z);
    shmem_free(a);
    conf_done();
    return 0;
}
