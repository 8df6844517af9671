/* Signaling operations (OpenSHMEM 1.5 section 9.9): put-with-signal with SHMEM_SIGNAL_SET and
 * SHMEM_SIGNAL_ADD, typed, sized and mem forms, blocking and _nbi (completed by shmem_quiet),
 * the context forms and the C11 generic ones; shmem_signal_wait_until (its return value) and
 * shmem_signal_fetch. The consumer checks every byte of the data once the signal has arrived.
 * Signals are new in 1.5: an implementation that says 1.4 skips them all. */
#include "conf.h"

#if CONF_HAVE_15

#include <stdint.h>
#include <string.h>

#define NBYTES 4099 /* odd: the transfers end off any word boundary */

static uint64_t sig;
static uint64_t sig_add;
static _Alignas(16) unsigned char global_buf[NBYTES];
static _Alignas(16) unsigned char src[NBYTES];

static unsigned char pattern(int pe, int round, size_t i)
{
    return (unsigned char)(pe * 31 + round * 7 + i * 13 + (i >> 8));
}

/* The bytes [off, off + n) of buf came from PE pe in round round; the rest are untouched. */
static void check_bytes(const unsigned char *buf, size_t off, size_t n, int pe, int round)
{
    for (size_t i = 0; i < NBYTES; i++) {
        if (i >= off && i < off + n) {
            if (buf[i] != pattern(pe, round, i))
                conf_fail(__FILE__, __LINE__, "data byte after the signal", buf[i],
                          pattern(pe, round, i));
        } else if (buf[i] != 0xEE) {
            conf_fail(__FILE__, __LINE__, "byte outside the transfer", buf[i], 0xEE);
        }
    }
}

int main(void)
{
    conf_program = "signals";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    unsigned char *heap = shmem_malloc(NBYTES);
    uint64_t *hsig = shmem_malloc(2 * sizeof(uint64_t));
    CHECK(heap != NULL && hsig != NULL);
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_ctx_create(0, &ctx), 0);

    /* Rounds of a ring: each round one form puts NBYTES (or a part) with a SET signal of the
     * round's number to the right neighbour; the neighbour waits for it and checks the bytes. */
    for (int round = 1; round <= 12; round++) {
        unsigned char *dest = (round % 2) ? heap : global_buf;
        uint64_t *sa = (round % 3) ? &sig : &hsig[1];
        memset(dest, 0xEE, NBYTES);
        *sa = 0;
        for (size_t i = 0; i < NBYTES; i++)
            src[i] = pattern(me, round, i);
        shmem_barrier_all();
        size_t off = 0, n = NBYTES;
        uint64_t val = (uint64_t)round << 40 | 5; /* a value with high bits set */
        switch (round) {
        case 1:
            shmem_putmem_signal(dest, src, NBYTES, sa, val, SHMEM_SIGNAL_SET, right);
            break;
        case 2:
            shmem_putmem_signal_nbi(dest, src, NBYTES, sa, val, SHMEM_SIGNAL_SET, right);
            shmem_quiet();
            break;
        case 3:
            /* typed: longs from offset 8 (n a whole number of longs) */
            off = 8;
            n = (NBYTES - 8) / sizeof(long) * sizeof(long);
            shmem_long_put_signal((long *)(dest + off), (const long *)(src + off), n / sizeof(long),
                                  sa, val, SHMEM_SIGNAL_SET, right);
            break;
        case 4:
            off = 4;
            n = 1000 * 4;
            shmem_int_put_signal_nbi((int *)(dest + off), (const int *)(src + off), 1000, sa, val,
                                     SHMEM_SIGNAL_SET, right);
            shmem_quiet();
            break;
        case 5:
            n = NBYTES - 1;
            shmem_char_put_signal((char *)dest, (const char *)src, n, sa, val, SHMEM_SIGNAL_SET,
                                  right);
            break;
        case 6:
            off = 16;
            n = 256 * 8;
            shmem_put64_signal(dest + off, src + off, 256, sa, val, SHMEM_SIGNAL_SET, right);
            break;
        case 7:
            off = 2;
            n = 31 * 2;
            shmem_put16_signal_nbi(dest + off, src + off, 31, sa, val, SHMEM_SIGNAL_SET, right);
            shmem_quiet();
            break;
        case 8:
            n = 7;
            shmem_ctx_putmem_signal(ctx, dest, src, n, sa, val, SHMEM_SIGNAL_SET, right);
            break;
        case 9:
            off = 8;
            n = 64 * sizeof(double);
            shmem_ctx_double_put_signal_nbi(ctx, (double *)(dest + off),
                                            (const double *)(src + off), 64, sa, val,
                                            SHMEM_SIGNAL_SET, right);
            shmem_ctx_quiet(ctx);
            break;
        case 10:
            off = 32;
            n = 100 * sizeof(long);
            shmem_put_signal((long *)(dest + off), (const long *)(src + off), 100, sa, val,
                             SHMEM_SIGNAL_SET, right);
            break;
        case 11:
            off = 0;
            n = 50 * sizeof(int);
            shmem_put_signal_nbi(ctx, (int *)dest, (const int *)src, 50, sa, val, SHMEM_SIGNAL_SET,
                                 right);
            shmem_ctx_quiet(ctx);
            break;
        default:
            /* zero elements: the signal alone */
            n = 0;
            shmem_putmem_signal(dest, src, 0, sa, val, SHMEM_SIGNAL_SET, right);
            break;
        }
        if (n == 0) {
            /* The signal alone: checked after the barrier has completed every put-with-signal,
             * so a signal that never comes fails here instead of waiting forever below. */
            shmem_barrier_all();
            CHECK(shmem_signal_fetch(sa) == val);
        }
        uint64_t seen = shmem_signal_wait_until(sa, SHMEM_CMP_EQ, val);
        CHECK(seen == val);
        check_bytes(dest, off, n, left, round);
        CHECK(shmem_signal_fetch(sa) == val);
        shmem_barrier_all();
    }

    /* SHMEM_SIGNAL_ADD: every PE puts its own slice into PE 0's buffer and adds 1 (and, from
     * each _nbi put, 1 << 32) to one signal word there; PE 0 waits for the sum and checks every
     * byte. Then the same with the context and generic forms into the last PE. */
    size_t slice = NBYTES / npes;
    for (int pass = 0; pass < 2; pass++) {
        int target = pass == 0 ? 0 : npes - 1;
        memset(heap, 0xEE, NBYTES);
        sig_add = 0;
        for (size_t i = 0; i < NBYTES; i++)
            src[i] = pattern(me, 100 + pass, i);
        shmem_barrier_all();
        size_t off = (size_t)me * slice, half = slice / 2;
        if (pass == 0) {
            shmem_putmem_signal(heap + off, src + off, half, &sig_add, 1, SHMEM_SIGNAL_ADD, target);
            shmem_putmem_signal_nbi(heap + off + half, src + off + half, slice - half, &sig_add,
                                    (uint64_t)1 << 32, SHMEM_SIGNAL_ADD, target);
            shmem_quiet();
        } else {
            shmem_ctx_putmem_signal(ctx, heap + off, src + off, half, &sig_add, 1, SHMEM_SIGNAL_ADD,
                                    target);
            shmem_put_signal_nbi((char *)heap + off + half, (const char *)src + off + half,
                                 slice - half, &sig_add, (uint64_t)1 << 32, SHMEM_SIGNAL_ADD,
                                 target);
            shmem_quiet();
        }
        if (me == target) {
            uint64_t total = (uint64_t)npes | (uint64_t)npes << 32;
            CHECK(shmem_signal_wait_until(&sig_add, SHMEM_CMP_GE, total) == total);
            for (int pe = 0; pe < npes; pe++)
                for (size_t i = (size_t)pe * slice; i < (size_t)(pe + 1) * slice; i++)
                    if (heap[i] != pattern(pe, 100 + pass, i))
                        conf_fail(__FILE__, __LINE__, "slice byte after the ADD signal", heap[i],
                                  pattern(pe, 100 + pass, i));
            for (size_t i = (size_t)npes * slice; i < NBYTES; i++)
                CHECK_EQ(heap[i], 0xEE);
            CHECK(shmem_signal_fetch(&sig_add) == total);
        }
        shmem_barrier_all();
    }

    /* A producer-consumer stream: 200 messages from each PE to its right neighbour, each
     * signalled by ADD 1 and consumed (checked) before the producer may send the next, the
     * consumer's acknowledgement a put-with-signal back. */
    static uint64_t ready, ack;
    static long msg[8];
    ready = ack = 0;
    shmem_barrier_all();
    for (uint64_t k = 1; k <= 200; k++) {
        long out[8];
        for (int i = 0; i < 8; i++)
            out[i] = (long)k * 1000 + me * 10 + i;
        shmem_long_put_signal(msg, out, 8, &ready, 1, SHMEM_SIGNAL_ADD, right);
        CHECK(shmem_signal_wait_until(&ready, SHMEM_CMP_GE, k) == k);
        for (int i = 0; i < 8; i++)
            CHECK_EQ(msg[i], (long)k * 1000 + left * 10 + i);
        /* acknowledge to the left neighbour (the producer): a signal with no data */
        shmem_putmem_signal(msg, msg, 0, &ack, k, SHMEM_SIGNAL_SET, left);
        CHECK(shmem_signal_wait_until(&ack, SHMEM_CMP_GE, k) >= k);
    }
    CHECK(shmem_signal_fetch(&ready) == 200);

    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
    shmem_free(hsig);
    shmem_free(heap);
    conf_done();
    return 0;
}

#else

int main(void)
{
    conf_program = "signals";
    shmem_init();
    if (shmem_my_pe() == 0)
        printf("SKIP signals: put-with-signal is OpenSHMEM 1.5; this implementation says %d.%d\n",
               SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    shmem_finalize();
    return CONF_EXIT_NOT_APPLICABLE;
}

#endif
