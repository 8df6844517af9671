/* Memory ordering (OpenSHMEM 1.5 section 9.12): shmem_fence orders puts and AMOs to one PE (a
 * data put, a fence, a flag put: the consumer that sees the flag sees the data), shmem_quiet
 * completes puts, non-blocking puts and non-blocking gets, shmem_barrier_all completes every
 * earlier put; the fence and quiet examples of the specification, in new words, on contexts
 * too. */
#include "conf.h"

#define DATA_LEN 2048
#define ROUNDS   40

static long data[DATA_LEN];
static long flag;
static long ack;
static int small[4];
static int small_flag;

/* Each PE produces for its right neighbour and consumes from its left one, ROUNDS times: the
 * data (a different size each round), a fence, then the flag; the consumer waits for the flag,
 * checks the data, and acknowledges, so the next round does not overwrite data being read. */
static void fence_rounds(int me, int npes, int use_amo)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    static long src[DATA_LEN];
    flag = 0;
    ack = 0;
    shmem_barrier_all();
    for (long r = 1; r <= ROUNDS; r++) {
        size_t len = (size_t)(1 + (r * 97) % DATA_LEN);
        for (size_t i = 0; i < len; i++)
            src[i] = r * 1000000 + (long)i + me;
        shmem_long_put(data, src, len, right);
        shmem_fence();
        if (use_amo)
            shmem_long_atomic_set(&flag, r, right);
        else
            shmem_long_p(&flag, r, right);
        shmem_long_wait_until(&flag, SHMEM_CMP_GE, r);
        CHECK_EQ(flag, r);
        for (size_t i = 0; i < len; i++)
            if (data[i] != r * 1000000 + (long)i + left)
                CHECK_EQ(data[i], r * 1000000 + (long)i + left);
        shmem_long_atomic_set(&ack, r, left);
        shmem_long_wait_until(&ack, SHMEM_CMP_GE, r);
    }
    shmem_barrier_all();
}

int main(void)
{
    conf_program = "ordering";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    fence_rounds(me, npes, 0);
    fence_rounds(me, npes, 1);

    /* The fence example: PE 0 puts to PE 1 and PE 2 (where they exist), fences, then puts a
     * flag to each; the puts of the data reach each PE before its flag. */
    int targets = npes > 2 ? 2 : npes - 1;
    shmem_barrier_all();
    if (me == 0) {
        int vals[4] = { 11, 12, 13, 14 };
        for (int t = 1; t <= targets; t++)
            shmem_int_put(small, vals, 4, t);
        shmem_fence();
        for (int t = 1; t <= targets; t++)
            shmem_int_p(&small_flag, 1, t);
    } else if (me <= targets) {
        shmem_int_wait_until(&small_flag, SHMEM_CMP_EQ, 1);
        for (int i = 0; i < 4; i++)
            CHECK_EQ(small[i], 11 + i);
    }
    shmem_barrier_all();

    /* The fence orders AMOs too: an atomic add of data, a fence, the flag. */
    flag = 0;
    data[0] = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(&data[0], 5 + me, right);
    shmem_fence();
    shmem_long_atomic_set(&flag, 1, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    CHECK_EQ(shmem_long_atomic_fetch(&data[0], me), 5 + left);
    shmem_barrier_all();

    /* The quiet example: puts to the neighbours, a quiet, then the values are there (read back
     * with a get from the target) and a flag put afterwards is seen after them. */
    static long qdata[64];
    static long qsrc[64];
    for (int i = 0; i < 64; i++)
        qsrc[i] = 500 + i * npes + me;
    flag = 0;
    shmem_barrier_all();
    shmem_long_put(qdata, qsrc, 64, right);
    shmem_quiet();
    long back[64];
    shmem_long_get(back, qdata, 64, right);
    for (int i = 0; i < 64; i++)
        CHECK_EQ(back[i], qsrc[i]);
    shmem_long_p(&flag, 2, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 2);
    for (int i = 0; i < 64; i++)
        CHECK_EQ(qdata[i], 500 + i * npes + left);
    shmem_barrier_all();

    /* quiet completes non-blocking puts (the flag after it) and non-blocking gets (the local
     * buffer is filled when it returns). */
    long *heap = shmem_malloc(DATA_LEN * sizeof(long));
    long *nbsrc = shmem_malloc(DATA_LEN * sizeof(long));
    for (int i = 0; i < DATA_LEN; i++) {
        heap[i] = -1;
        nbsrc[i] = 7000000 + (long)i * npes + me;
    }
    flag = 0;
    shmem_barrier_all();
    for (int c = 0; c < DATA_LEN; c += 256)
        shmem_long_put_nbi(heap + c, nbsrc + c, 256, right);
    shmem_quiet();
    shmem_long_p(&flag, 3, right);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 3);
    for (int i = 0; i < DATA_LEN; i++)
        if (heap[i] != 7000000 + (long)i * npes + left)
            CHECK_EQ(heap[i], 7000000 + (long)i * npes + left);
    shmem_barrier_all();
    static long got[DATA_LEN];
    for (int c = 0; c < DATA_LEN; c += 512)
        shmem_long_get_nbi(got + c, nbsrc + c, 512, left);
    shmem_quiet();
    for (int i = 0; i < DATA_LEN; i++)
        if (got[i] != 7000000 + (long)i * npes + left)
            CHECK_EQ(got[i], 7000000 + (long)i * npes + left);
    shmem_barrier_all();

    /* barrier_all completes every earlier put and non-blocking put: each PE writes its slot
     * on every PE, with no quiet, then all slots are there after the barrier. */
    for (int p = 0; p < npes; p++) {
        long v = 100 + me;
        shmem_long_put(&data[me], &v, 1, p);
        shmem_long_put_nbi(&heap[me], &nbsrc[0], 1, p);
    }
    shmem_barrier_all();
    for (int p = 0; p < npes; p++) {
        CHECK_EQ(data[p], 100 + p);
        CHECK_EQ(heap[p], 7000000 + p);
    }
    shmem_barrier_all();

    /* A context's fence and quiet order and complete the puts issued on it. */
    shmem_ctx_t ctx;
    if (shmem_ctx_create(0, &ctx) == 0) {
        flag = 0;
        shmem_barrier_all();
        for (int i = 0; i < 64; i++)
            qsrc[i] = 900 + i + me;
        shmem_ctx_long_put(ctx, qdata, qsrc, 64, right);
        shmem_ctx_fence(ctx);
        shmem_ctx_long_p(ctx, &flag, 4, right);
        shmem_ctx_quiet(ctx);
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 4);
        for (int i = 0; i < 64; i++)
            CHECK_EQ(qdata[i], 900 + i + left);
        shmem_barrier_all();
        shmem_ctx_destroy(ctx);
    }
    shmem_barrier_all();
    shmem_free(nbsrc);
    shmem_free(heap);
    conf_done();
    return 0;
}
