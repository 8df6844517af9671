/* bench_rma: put and get latency, put bandwidth and atomic fetch-add latency from PE 0 to PE 1,
 * symheap against MPI RMA (MPI_Win_allocate + MPI_Win_lock_all + MPI_Put/MPI_Get +
 * MPI_Win_flush) measured in the same run, with single-thread memcpy as the ceiling. Medians of
 * --reps repetitions; prints a Markdown table with ratios and writes a CSV with --csv FILE.
 * --target symm puts the symheap side's target in a region of symh_buffer_register_symmetric
 * (VMM memory, translated by the out-of-line region table) instead of the heap. --check-cost R
 * measures instead what bounding a range by its allocation costs (docs/rma.md "Bounds by
 * allocation"): small transfers with the check and without it (SYMH_ALLOC_CHECK=0), in R rounds
 * of one symh_init each way, alternating, so that both see the same machine. The route to
 * PE 1 is whatever the environment selects (SYMH_TRANSPORT=ucx|ofi forces a NIC transport:
 * bench/run_rma_nic.sh runs it that way next to MPI RMA on the same wire). --local compare
 * measures instead, at 8 B, 4 KiB, 64 KiB and 1 MiB (up to --max), put and get latency and
 * bandwidth with the local side in registered memory (symh_buffer_register) and in plain
 * malloc memory that symheap does not know, next to MPI (bench_local_compare). --op put_signal
 * measures instead symh_putmem_signal (SYMH_SIGNAL_SET) against MPI_Put + MPI_Win_flush + an
 * 8-byte flag MPI_Put + MPI_Win_flush on the same window: ping-pong latency, where each side
 * waits for the signal (flag) and checks the data before answering, and message rate, many
 * put-with-signals to PE 1 then one symh_quiet (flush) (bench_put_signal). --local registered
 * measures instead 8-byte transfers whose local side is a registered buffer (symh_buffer_register),
 * the path that looks up the local side's memory handle per operation, with --registry N other
 * registrations in the registry beside it (so that a lookup that descends the registry's tree
 * pays for its depth): put + quiet, get, and non-blocking puts 16 per quiet, next to MPI
 * (bench_local_registered; bench/run_rma_nic.sh --before REF runs it on REF's library too).
 * --op iput measures instead strided transfers of 8-byte elements, every second one on both sides:
 * symh_long_iput + symh_quiet and symh_long_iget from 1 to --max elements, over each transport of
 * --transports (default ofi,ucx: one symh_init per transport and repetition, the transports taking
 * turns, so the same run measures symheap over libfabric and over UCX), next to MPI_Put and
 * MPI_Get of an MPI_Type_vector + MPI_Win_flush (bench_strided). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include <symheap.h>
#include <symheap/rma.h>

/* Operations in flight per synchronization in the bandwidth runs. */
#define BENCH_WINDOW 16

typedef struct {
    size_t min, max;
    long iters;
    int reps;
    const char *csv;
    int symm;               /* --target symm */
    int local_compare;      /* --local compare */
    int check_cost;         /* --check-cost ROUNDS: 0 = the size sweep */
    int put_signal;         /* --op put_signal (--op put: the size sweep) */
    int local_reg;          /* --local registered */
    long registry;          /* --registry N: other registrations beside the local buffer */
    int strided;            /* --op iput */
    const char *transports; /* --transports LIST: SYMH_TRANSPORT of each round of --op iput */
} bench_opts_t;

typedef enum {
    BENCH_PUT_SYMH,
    BENCH_PUT_MPI,
    BENCH_GET_SYMH,
    BENCH_GET_MPI,
    BENCH_MEMCPY,
    BENCH_BW_SYMH,
    BENCH_BW_MPI,
    BENCH_BW_MEMCPY,
    BENCH_KINDS
} bench_kind_t;

static struct {
    char *sym;       /* symmetric heap buffer, target of the symheap transfers */
    char *local;     /* private source/destination */
    char *copy;      /* memcpy destination */
    char *local_mpi; /* `local` for MPI: at the page offset of the MPI window (see main) */
    char *unreg;     /* plain malloc memory, never registered (--local compare) */
    long *counter;
    uint64_t *sig;      /* --op put_signal: the signal word (symmetric heap) */
    char *win_base;     /* this PE's MPI window: data at 0, the flag at flag_offset */
    size_t flag_offset; /* the MPI flag's offset in the window (after the data, 64-byte aligned) */
    uint64_t seq;       /* the last signal (flag) value sent, the same on PE 0 and PE 1 */
    MPI_Win win;
} bench;

/* Keeps the compiler from dropping or merging the memcpy of the ceiling. */
static inline void bench_clobber(void)
{
    __asm__ __volatile__("" ::: "memory");
}

/* Microseconds per operation of `kind` with `size` bytes, `iters` operations. */
static double bench_run(bench_kind_t kind, size_t size, long iters)
{
    double t0 = MPI_Wtime();
    long i;
    int w;

    switch (kind) {
    case BENCH_PUT_SYMH:
        for (i = 0; i < iters; ++i) {
            symh_putmem(bench.sym, bench.local, size, 1);
            symh_quiet();
        }
        break;
    case BENCH_PUT_MPI:
        for (i = 0; i < iters; ++i) {
            MPI_Put(bench.local_mpi, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, bench.win);
            MPI_Win_flush(1, bench.win);
        }
        break;
    case BENCH_GET_SYMH:
        for (i = 0; i < iters; ++i)
            symh_getmem(bench.local, bench.sym, size, 1);
        break;
    case BENCH_GET_MPI:
        for (i = 0; i < iters; ++i) {
            MPI_Get(bench.local_mpi, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, bench.win);
            MPI_Win_flush(1, bench.win);
        }
        break;
    case BENCH_MEMCPY:
        for (i = 0; i < iters; ++i) {
            memcpy(bench.copy, bench.local, size);
            bench_clobber();
        }
        break;
    case BENCH_BW_SYMH:
        for (i = 0; i < iters; i += BENCH_WINDOW) {
            for (w = 0; w < BENCH_WINDOW; ++w)
                symh_putmem_nbi(bench.sym, bench.local, size, 1);
            symh_quiet();
        }
        break;
    case BENCH_BW_MPI:
        for (i = 0; i < iters; i += BENCH_WINDOW) {
            for (w = 0; w < BENCH_WINDOW; ++w)
                MPI_Put(bench.local_mpi, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, bench.win);
            MPI_Win_flush(1, bench.win);
        }
        break;
    case BENCH_BW_MEMCPY:
        for (i = 0; i < iters; i += BENCH_WINDOW) {
            for (w = 0; w < BENCH_WINDOW; ++w) {
                memcpy(bench.copy, bench.local, size);
                bench_clobber();
            }
        }
        break;
    default:
        break;
    }
    if (kind >= BENCH_BW_SYMH)
        iters = (iters + BENCH_WINDOW - 1) / BENCH_WINDOW * BENCH_WINDOW;
    return (MPI_Wtime() - t0) / (double)iters * 1e6;
}

/* Atomic fetch-add latency, symheap then MPI_Fetch_and_op + flush, in microseconds. */
static void bench_fadd(long iters, double *symh_us, double *mpi_us)
{
    long one = 1, result = 0, i;
    double t0 = MPI_Wtime();

    for (i = 0; i < iters; ++i)
        result += symh_long_atomic_fetch_add(bench.counter, 1, 1);
    *symh_us = (MPI_Wtime() - t0) / (double)iters * 1e6;
    t0 = MPI_Wtime();
    for (i = 0; i < iters; ++i) {
        MPI_Fetch_and_op(&one, &result, MPI_LONG, 1, 0, MPI_SUM, bench.win);
        MPI_Win_flush(1, bench.win);
    }
    *mpi_us = (MPI_Wtime() - t0) / (double)iters * 1e6;
}

/* --local compare: the local side's kinds, the operations, and one measurement (microseconds per
 * operation; the bandwidth forms keep BENCH_WINDOW operations in flight per quiet/flush). */
enum { BENCH_LOCAL_REG, BENCH_LOCAL_UNREG, BENCH_LOCAL_MPI, BENCH_LOCAL_KINDS };
enum { BENCH_OP_PUT, BENCH_OP_GET, BENCH_OP_PUT_BW, BENCH_OP_GET_BW, BENCH_OPS };

static double bench_local_run(int op, int kind, size_t size, long iters)
{
    char *local = kind == BENCH_LOCAL_REG     ? bench.local
                  : kind == BENCH_LOCAL_UNREG ? bench.unreg
                                              : bench.local_mpi;
    int window = op >= BENCH_OP_PUT_BW ? BENCH_WINDOW : 1, put = op % 2 == 0, w;
    double t0 = MPI_Wtime();
    long i;

    iters = (iters + window - 1) / window * window;
    for (i = 0; i < iters; i += window) {
        for (w = 0; w < window; ++w) {
            if (kind == BENCH_LOCAL_MPI && put)
                MPI_Put(local, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, bench.win);
            else if (kind == BENCH_LOCAL_MPI)
                MPI_Get(local, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, bench.win);
            else if (window == 1 && put)
                symh_putmem(bench.sym, local, size, 1);
            else if (window == 1)
                symh_getmem(local, bench.sym, size, 1);
            else if (put)
                symh_putmem_nbi(bench.sym, local, size, 1);
            else
                symh_getmem_nbi(local, bench.sym, size, 1);
        }
        if (kind == BENCH_LOCAL_MPI)
            MPI_Win_flush(1, bench.win);
        else if (put || window > 1)
            symh_quiet(); /* a blocking get needs none */
    }
    return (MPI_Wtime() - t0) / (double)iters * 1e6;
}

/* The table of --local compare (PE 0): medians of --reps, per size, per operation, per kind. */
static void bench_local_compare(const bench_opts_t *o, double *samples, FILE *csv)
{
    static const size_t sizes[] = { 8, 4096, 65536, 1048576 };
    static const char *ops[BENCH_OPS] = { "put+quiet (us)", "get (us)", "put bw (MB/s)",
                                          "get bw (MB/s)" };
    double med[BENCH_OPS][BENCH_LOCAL_KINDS];
    size_t z;
    int op, k, r;

    printf("local side: registered (symh_buffer_register) vs unregistered malloc memory vs "
           "MPI; medians of %d\n\n",
           o->reps);
    printf("| bytes | operation | registered | unregistered | unreg/reg | MPI | unreg/MPI |\n"
           "|---|---|---|---|---|---|---|\n");
    if (csv != NULL)
        fprintf(csv, "bytes,operation,registered,unregistered,mpi\n");
    for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]) && sizes[z] <= o->max; ++z) {
        size_t size = sizes[z];
        long iters = (long)((size_t)64 << 20) / (long)size;

        iters = iters > o->iters ? o->iters : iters < 20 ? 20 : iters;
        for (op = 0; op < BENCH_OPS; ++op) {
            /* The kinds take turns within each repetition, so a change of the machine's load
             * falls on all three alike. */
            for (k = 0; k < BENCH_LOCAL_KINDS; ++k)
                (void)bench_local_run(op, k, size, iters / 10 + 1); /* warm up */
            for (r = 0; r < o->reps; ++r)
                for (k = 0; k < BENCH_LOCAL_KINDS; ++k)
                    samples[k * o->reps + r] = bench_local_run(op, k, size, iters);
            for (k = 0; k < BENCH_LOCAL_KINDS; ++k) {
                med[op][k] = symh_bench_median(samples + k * o->reps, (size_t)o->reps);
                if (op >= BENCH_OP_PUT_BW)
                    med[op][k] = size / med[op][k]; /* bytes per us = MB/s */
            }
            /* Ratios of time: for bandwidth the inverse ratio of the rates. */
            double a = med[op][BENCH_LOCAL_UNREG], b = med[op][BENCH_LOCAL_REG],
                   m = med[op][BENCH_LOCAL_MPI];
            int bw = op >= BENCH_OP_PUT_BW;
            printf("| %zu | %s | %.3f | %.3f | %.2f | %.3f | %.2f |\n", size, ops[op], b, a,
                   bw ? b / a : a / b, m, bw ? m / a : a / m);
            if (csv != NULL)
                fprintf(csv, "%zu,%s,%.4f,%.4f,%.4f\n", size, ops[op], b, a, m);
            fflush(stdout);
        }
    }
}

/* --local registered: 8-byte operations from the registered buffer `bench.local` (PE 0), each
 * kind in turn within every repetition; medians in microseconds per operation. */
enum { BENCH_LR_PUT_QUIET, BENCH_LR_GET, BENCH_LR_PUT_NBI, BENCH_LR_OPS };

static double bench_lr_run(int op, int mpi, long iters)
{
    int window = op == BENCH_LR_PUT_NBI ? BENCH_WINDOW : 1, w;
    double t0 = symh_bench_now();
    long i;

    iters = (iters + window - 1) / window * window;
    for (i = 0; i < iters; i += window) {
        for (w = 0; w < window; ++w) {
            if (mpi && op == BENCH_LR_GET)
                MPI_Get(bench.local_mpi, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, bench.win);
            else if (mpi)
                MPI_Put(bench.local_mpi, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, bench.win);
            else if (op == BENCH_LR_GET)
                symh_getmem(bench.local, bench.sym, 8, 1);
            else if (op == BENCH_LR_PUT_NBI)
                symh_putmem_nbi(bench.sym, bench.local, 8, 1);
            else
                symh_putmem(bench.sym, bench.local, 8, 1);
        }
        if (mpi)
            MPI_Win_flush(1, bench.win);
        else if (op != BENCH_LR_GET)
            symh_quiet();
    }
    return (symh_bench_now() - t0) / (double)iters * 1e6;
}

static void bench_local_registered(const bench_opts_t *o, double *samples, FILE *csv)
{
    static const char *ops[BENCH_LR_OPS] = { "put 8 B + quiet", "get 8 B",
                                             "put_nbi 8 B (16 per quiet)" };
    long iters = o->iters < 20 ? 20 : o->iters;
    int op, k, r;

    printf("local side: a registered buffer (symh_buffer_register) with %ld other registrations "
           "in the registry; medians of %d, %ld operations each\n\n",
           o->registry, o->reps, iters);
    printf("| operation | symheap (us) | MPI (us) | symheap/MPI |\n|---|---|---|---|\n");
    if (csv != NULL)
        fprintf(csv, "operation,registry,symh_us,mpi_us\n");
    for (op = 0; op < BENCH_LR_OPS; ++op) {
        double med[2];

        for (k = 0; k < 2; ++k)
            (void)bench_lr_run(op, k, iters / 10 + 1); /* warm up */
        for (r = 0; r < o->reps; ++r)
            for (k = 0; k < 2; ++k)
                samples[k * o->reps + r] = bench_lr_run(op, k, iters);
        for (k = 0; k < 2; ++k)
            med[k] = symh_bench_median(samples + k * o->reps, (size_t)o->reps);
        printf("| %s | %.3f | %.3f | %.2f |\n", ops[op], med[0], med[1], med[0] / med[1]);
        if (csv != NULL)
            fprintf(csv, "%s,%ld,%.4f,%.4f\n", ops[op], o->registry, med[0], med[1]);
        fflush(stdout);
    }
}

/* --registry N: N registrations of 64 bytes, 128 bytes apart, in one block (freed by the caller
 * after bench_registry_drop); NULL when N is 0. */
static char *bench_registry_fill(long n)
{
    char *block;
    long i;

    if (n <= 0)
        return NULL;
    block = aligned_alloc(4096, (size_t)n * 128);
    if (block == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (i = 0; i < n; ++i)
        if (symh_buffer_register(block + i * 128, 64) != SYMH_OK)
            MPI_Abort(MPI_COMM_WORLD, 1);
    return block;
}

static void bench_registry_drop(char *block, long n)
{
    long i;

    for (i = 0; i < n && block != NULL; ++i)
        symh_buffer_unregister(block + i * 128);
    free(block);
}

/* ---- --op put_signal ------------------------------------------------------------------------ */

enum { BENCH_PS_SYMH, BENCH_PS_MPI, BENCH_PS_KINDS };

/* The first and last word of a message carry its signal value, so that the receiver can tell
 * this message's data from the last one's. */
static void bench_ps_stamp(char *buf, size_t size, uint64_t seq)
{
    memcpy(buf, &seq, sizeof(seq));
    memcpy(buf + size - sizeof(seq), &seq, sizeof(seq));
}

static int bench_ps_stamped(const char *buf, size_t size, uint64_t seq)
{
    uint64_t head, tail;

    memcpy(&head, buf, sizeof(head));
    memcpy(&tail, buf + size - sizeof(tail), sizeof(tail));
    return head == seq && tail == seq;
}

/* Sends message `seq` of `size` bytes to `peer`: symh_putmem_signal, or MPI_Put of the data,
 * flush, MPI_Put of the flag, flush (MPI orders no two puts: the first flush keeps the flag
 * behind the data). */
static void bench_ps_send(int kind, size_t size, uint64_t seq, int peer)
{
    static uint64_t flag; /* MPI_Put's origin: unchanged until the flush that follows */

    if (kind == BENCH_PS_SYMH) {
        bench_ps_stamp(bench.local, size, seq);
        symh_putmem_signal(bench.sym, bench.local, size, bench.sig, seq, SYMH_SIGNAL_SET, peer);
        return;
    }
    bench_ps_stamp(bench.local_mpi, size, seq);
    flag = seq;
    MPI_Put(bench.local_mpi, (int)size, MPI_BYTE, peer, 0, (int)size, MPI_BYTE, bench.win);
    MPI_Win_flush(peer, bench.win);
    MPI_Put(&flag, 1, MPI_UINT64_T, peer, (MPI_Aint)bench.flag_offset, 1, MPI_UINT64_T, bench.win);
    MPI_Win_flush(peer, bench.win);
}

/* Waits until this PE's signal word (MPI flag) reaches `seq`, then checks the message's stamp:
 * 0, or -1 after a line on stderr. The MPI side polls its own window and calls MPI_Iprobe between
 * polls: over UCX's tcp transport a put (and the origin's flush) completes only while the target
 * drives MPI's progress (polling every 64th time instead took 300 us instead of 73 us per
 * message there; on one node the two ways measure alike). */
static int bench_ps_recv(int kind, size_t size, uint64_t seq)
{
    const char *data = kind == BENCH_PS_SYMH ? bench.sym : bench.win_base;
    uint64_t *flag = (uint64_t *)(void *)(bench.win_base + bench.flag_offset);
    int ignored;

    if (kind == BENCH_PS_SYMH) {
        (void)symh_signal_wait_until(bench.sig, SYMH_CMP_GE, seq);
    } else {
        while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < seq)
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &ignored, MPI_STATUS_IGNORE);
        MPI_Win_sync(bench.win); /* the unified model's step before reading the data */
    }
    if (bench_ps_stamped(data, size, seq))
        return 0;
    fprintf(stderr,
            "bench_rma: WRONG DATA: %s, %zu bytes, message %llu: the signal came before "
            "its data\n",
            kind == BENCH_PS_SYMH ? "symh_putmem_signal" : "MPI_Put+flush+flag", size,
            (unsigned long long)seq);
    return -1;
}

/* Microseconds one way: `iters` round trips PE 0 -> PE 1 -> PE 0, each side waiting for the
 * message and checking it before it answers. PE 0 and PE 1 both call it (others return). */
static double bench_ps_latency(int kind, size_t size, long iters, int me)
{
    double t0;
    long i;

    symh_barrier_all();
    t0 = MPI_Wtime();
    for (i = 0; i < iters && me < 2; ++i) {
        uint64_t seq = ++bench.seq;

        if (me == 0)
            bench_ps_send(kind, size, seq, 1);
        if (bench_ps_recv(kind, size, seq) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        if (me == 1)
            bench_ps_send(kind, size, seq, 0);
    }
    t0 = MPI_Wtime() - t0;
    if (kind == BENCH_PS_SYMH && symh_last_error() != SYMH_OK) {
        fprintf(stderr, "bench_rma: symh_putmem_signal failed: %s\n",
                symh_status_string(symh_last_error()));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return t0 / (double)iters / 2 * 1e6;
}

/* Microseconds per message: PE 0 sends `iters` messages to PE 1 (symh_putmem_signal_nbi, then
 * one symh_quiet; MPI: data put, flush, flag put, then one flush), while PE 1 waits in a
 * barrier (which drives both libraries' progress); PE 1 then checks that its signal (flag) holds
 * one of the values sent. Every PE calls it. */
static double bench_ps_rate(int kind, size_t size, long iters, int me)
{
    static uint64_t flags[2]; /* alternate: a flag put's origin stays untouched until a flush */
    uint64_t first = bench.seq + 1, last = bench.seq + (uint64_t)iters, got;
    double t = 0;
    long i;

    symh_barrier_all();
    if (me == 0) {
        double t0 = MPI_Wtime();

        for (i = 0; i < iters; ++i) {
            uint64_t seq = first + (uint64_t)i;

            if (kind == BENCH_PS_SYMH) {
                symh_putmem_signal_nbi(bench.sym, bench.local, size, bench.sig, seq,
                                       SYMH_SIGNAL_SET, 1);
                continue;
            }
            flags[i % 2] = seq;
            MPI_Put(bench.local_mpi, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, bench.win);
            MPI_Win_flush(1, bench.win);
            MPI_Put(&flags[i % 2], 1, MPI_UINT64_T, 1, (MPI_Aint)bench.flag_offset, 1, MPI_UINT64_T,
                    bench.win);
        }
        if (kind == BENCH_PS_SYMH)
            symh_quiet();
        else
            MPI_Win_flush(1, bench.win);
        t = (MPI_Wtime() - t0) / (double)iters * 1e6;
    }
    symh_barrier_all();
    bench.seq = last;
    if (me == 1) {
        if (kind == BENCH_PS_MPI)
            MPI_Win_sync(bench.win);
        got = kind == BENCH_PS_SYMH
                  ? symh_signal_fetch(bench.sig)
                  : __atomic_load_n((uint64_t *)(void *)(bench.win_base + bench.flag_offset),
                                    __ATOMIC_ACQUIRE);
        if (got < first || got > last) {
            fprintf(stderr,
                    "bench_rma: WRONG SIGNAL: %s, %zu bytes: %llu after messages %llu..%llu\n",
                    kind == BENCH_PS_SYMH ? "symh_putmem_signal_nbi" : "MPI_Put+flush+flag", size,
                    (unsigned long long)got, (unsigned long long)first, (unsigned long long)last);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    return t;
}

/* --op put_signal: the table and CSV on PE 0, medians of --reps; symheap and MPI take turns
 * within each repetition. Every PE calls it. */
static void bench_put_signal(const bench_opts_t *o, int me, double *samples, FILE *csv)
{
    double lat[BENCH_PS_KINDS], rate[BENCH_PS_KINDS];
    size_t size;
    int k, r;

    if (me == 0) {
        printf("put-with-signal: symh_putmem_signal (SYMH_SIGNAL_SET) vs MPI_Put + flush + 8-byte "
               "flag MPI_Put + flush on the same window; latency: ping-pong, one way, the "
               "receiver checks the data; rate: back-to-back to PE 1, then one quiet (flush); "
               "medians of %d\n\n",
               o->reps);
        printf("| bytes | latency symh (us) | latency MPI (us) | ratio | rate symh (Mmsg/s) | rate "
               "MPI (Mmsg/s) | symh/MPI rate |\n|---|---|---|---|---|---|---|\n");
        if (csv != NULL)
            fprintf(csv, "bytes,lat_symh_us,lat_mpi_us,rate_symh_mmsgs,rate_mpi_mmsgs\n");
    }
    for (size = o->min; size <= o->max; size *= 2) {
        long iters = (long)((size_t)64 << 20) / (long)size;

        iters = iters > o->iters ? o->iters : iters < 20 ? 20 : iters;
        for (k = 0; k < BENCH_PS_KINDS; ++k) { /* warm up */
            (void)bench_ps_latency(k, size, iters / 10 + 1, me);
            (void)bench_ps_rate(k, size, iters / 10 + 1, me);
        }
        for (r = 0; r < o->reps; ++r)
            for (k = 0; k < BENCH_PS_KINDS; ++k)
                samples[k * o->reps + r] = bench_ps_latency(k, size, iters, me);
        for (k = 0; k < BENCH_PS_KINDS; ++k)
            lat[k] = symh_bench_median(samples + k * o->reps, (size_t)o->reps);
        for (r = 0; r < o->reps; ++r)
            for (k = 0; k < BENCH_PS_KINDS; ++k)
                samples[k * o->reps + r] = bench_ps_rate(k, size, iters, me);
        for (k = 0; k < BENCH_PS_KINDS; ++k)
            rate[k] = 1 / symh_bench_median(samples + k * o->reps, (size_t)o->reps);
        if (me == 0) {
            printf("| %zu | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f |\n", size, lat[BENCH_PS_SYMH],
                   lat[BENCH_PS_MPI], lat[BENCH_PS_SYMH] / lat[BENCH_PS_MPI], rate[BENCH_PS_SYMH],
                   rate[BENCH_PS_MPI], rate[BENCH_PS_SYMH] / rate[BENCH_PS_MPI]);
            if (csv != NULL)
                fprintf(csv, "%zu,%.4f,%.4f,%.4f,%.4f\n", size, lat[BENCH_PS_SYMH],
                        lat[BENCH_PS_MPI], rate[BENCH_PS_SYMH], rate[BENCH_PS_MPI]);
            fflush(stdout);
        }
        if (size > o->max / 2)
            break;
    }
}

/* ---- --op iput ----------------------------------------------------------------------------- */

#define BENCH_STRIDED_MAX_TL    4  /* transports in --transports */
#define BENCH_STRIDED_MAX_SIZES 12 /* element counts: 1, 8, 64, ... up to --max */
#define BENCH_STRIDED_STRIDE    2  /* every second element, on both sides */

enum { BENCH_ST_PUT, BENCH_ST_GET, BENCH_ST_OPS };

/* The value of element i in round `round` (never 0, which the gets' buffers start at). */
static long bench_strided_value(int round, size_t i)
{
    return (long)round << 40 | (long)(i + 1);
}

/* Calls of `elements` elements per measurement: about 256 Ki elements, at least 1, at most
 * --iters. */
static long bench_strided_calls(const bench_opts_t *o, size_t elements)
{
    long calls = (long)(((size_t)1 << 18) / elements);

    return calls > o->iters ? o->iters : calls < 1 ? 1 : calls;
}

/* One check of a transport before it is timed: an iput of `n` elements from `local` into `sym`
 * on PE 1, a quiet, an iget back into `back` (zeroed); every element and the gaps between them
 * must be right. Exits the job with a line on stderr otherwise. */
static void bench_strided_check(const char *tl, long *sym, long *local, long *back, size_t n,
                                int round)
{
    size_t i, span = (n - 1) * BENCH_STRIDED_STRIDE + 1;

    for (i = 0; i < n; ++i)
        local[i * BENCH_STRIDED_STRIDE] = bench_strided_value(round, i);
    memset(back, 0, span * sizeof(long));
    symh_long_iput(sym, local, BENCH_STRIDED_STRIDE, BENCH_STRIDED_STRIDE, n, 1);
    symh_quiet();
    symh_long_iget(back, sym, BENCH_STRIDED_STRIDE, BENCH_STRIDED_STRIDE, n, 1);
    for (i = 0; i < span; ++i) {
        long want = i % BENCH_STRIDED_STRIDE ? 0 : bench_strided_value(round, i / 2);

        if (back[i] != want || symh_last_error() != SYMH_OK) {
            fprintf(stderr,
                    "bench_rma: WRONG RESULT: %s, iput/iget of %zu elements: word %zu is %ld, "
                    "not %ld (status %s)\n",
                    tl, n, i, back[i], want, symh_status_string(symh_last_error()));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

/* Microseconds per call of `calls` strided transfers of `n` elements: symheap (iput + quiet, or
 * iget), or with `vec` MPI (MPI_Put/MPI_Get of the vector type + MPI_Win_flush). */
static double bench_strided_run(int op, size_t n, long calls, long *sym, long *local, MPI_Win win,
                                MPI_Datatype vec)
{
    double t0 = symh_bench_now();
    long c;

    for (c = 0; c < calls; ++c) {
        if (vec != MPI_DATATYPE_NULL) {
            if (op == BENCH_ST_PUT)
                MPI_Put(local, 1, vec, 1, 0, 1, vec, win);
            else
                MPI_Get(local, 1, vec, 1, 0, 1, vec, win);
            MPI_Win_flush(1, win);
        } else if (op == BENCH_ST_PUT) {
            symh_long_iput(sym, local, BENCH_STRIDED_STRIDE, BENCH_STRIDED_STRIDE, n, 1);
            symh_quiet();
        } else {
            symh_long_iget(local, sym, BENCH_STRIDED_STRIDE, BENCH_STRIDED_STRIDE, n, 1);
        }
    }
    return (symh_bench_now() - t0) / (double)calls * 1e6;
}

/* --op iput: every PE calls it, between MPI_Init and MPI_Finalize (symh_init and symh_finalize
 * once per repetition and transport). PE 0 measures, PE 1 is the target; the table and the CSV
 * on PE 0. Returns 0, or 1 when symh_init failed. */
static int bench_strided(const bench_opts_t *o, FILE *csv)
{
    char list[256], *names[BENCH_STRIDED_MAX_TL], *save = NULL, *tok;
    size_t sizes[BENCH_STRIDED_MAX_SIZES], n, span, words;
    int n_tl = 0, n_sizes = 0, me, r, t, z, op, k;
    long *local, *back, *win_base;
    double *samples;
    MPI_Win win;

    snprintf(list, sizeof(list), "%s", o->transports);
    for (tok = strtok_r(list, ",", &save); tok != NULL && n_tl < BENCH_STRIDED_MAX_TL;
         tok = strtok_r(NULL, ",", &save))
        names[n_tl++] = tok;
    for (n = o->min; n <= o->max && n_sizes < BENCH_STRIDED_MAX_SIZES; n *= 8)
        sizes[n_sizes++] = n;
    span = (o->max - 1) * BENCH_STRIDED_STRIDE + 1;
    words = (span + 4095) / 4096 * 4096;
    /* [transport or MPI (n_tl)][op][size][rep] */
    samples = malloc((size_t)(n_tl + 1) * BENCH_ST_OPS * (size_t)n_sizes * (size_t)o->reps *
                     sizeof(double));
    local = aligned_alloc(4096, words * sizeof(long));
    back = aligned_alloc(4096, words * sizeof(long));
    if (samples == NULL || local == NULL || back == NULL || n_tl == 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(local, 0, words * sizeof(long));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Win_allocate((MPI_Aint)(words * sizeof(long)), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_base,
                     &win);
    MPI_Win_lock_all(0, win);
#define BENCH_ST_SAMPLE(tl, op, z, r) \
    samples[(((size_t)(tl)*BENCH_ST_OPS + (op)) * (size_t)n_sizes + (z)) * (size_t)o->reps + (r)]
    for (r = 0; r < o->reps; ++r) {
        /* The transports and MPI take turns within each repetition, so that drift on the machine
         * falls on all of them alike. */
        for (t = 0; t < n_tl; ++t) {
            long *sym;

            setenv("SYMH_TRANSPORT", names[t], 1);
            if (symh_init() != SYMH_OK)
                return 1;
            sym = symh_calloc(words, sizeof(long));
            if (sym == NULL || symh_buffer_register(local, words * sizeof(long)) != SYMH_OK)
                MPI_Abort(MPI_COMM_WORLD, 1);
            symh_barrier_all();
            for (z = 0; z < n_sizes && me == 0; ++z) {
                long calls = bench_strided_calls(o, sizes[z]);

                bench_strided_check(names[t], sym, local, back, sizes[z], r);
                for (op = 0; op < BENCH_ST_OPS; ++op) {
                    (void)bench_strided_run(op, sizes[z], calls / 10 + 1, sym, local, win,
                                            MPI_DATATYPE_NULL); /* warm up */
                    BENCH_ST_SAMPLE(t, op, z, r) =
                        bench_strided_run(op, sizes[z], calls, sym, local, win, MPI_DATATYPE_NULL);
                }
            }
            /* PE 1 waits here while PE 0 measures: the barrier drives its NIC transport. */
            symh_barrier_all();
            symh_buffer_unregister(local);
            symh_free(sym);
            symh_finalize();
        }
        for (z = 0; z < n_sizes && me == 0; ++z) {
            long calls = bench_strided_calls(o, sizes[z]);
            MPI_Datatype vec;

            MPI_Type_vector((int)sizes[z], 1, BENCH_STRIDED_STRIDE, MPI_LONG, &vec);
            MPI_Type_commit(&vec);
            for (op = 0; op < BENCH_ST_OPS; ++op) {
                (void)bench_strided_run(op, sizes[z], calls / 10 + 1, NULL, local, win, vec);
                BENCH_ST_SAMPLE(n_tl, op, z, r) =
                    bench_strided_run(op, sizes[z], calls, NULL, local, win, vec);
            }
            MPI_Type_free(&vec);
        }
        /* A blocking MPI call keeps PE 1's MPI progressing (osc ucx's passive target). */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (me == 0) {
        printf("strided transfers of 8-byte elements, every second one on both sides, PE 0 -> PE "
               "1: symh_long_iput + symh_quiet and symh_long_iget over %s (SYMH_OFI_PROVIDER=%s), "
               "MPI_Put/MPI_Get of an MPI_Type_vector + MPI_Win_flush; medians of %d, "
               "microseconds per call\n\n",
               o->transports, getenv("SYMH_OFI_PROVIDER") ? getenv("SYMH_OFI_PROVIDER") : "tcp",
               o->reps);
        printf("| elements | op |");
        for (t = 0; t < n_tl; ++t)
            printf(" %s (us) |", names[t]);
        printf(" MPI vector (us) |");
        for (t = 1; t < n_tl; ++t)
            printf(" %s/%s |", names[0], names[t]);
        printf(" %s/MPI |", names[0]);
        for (t = 0; t < n_tl; ++t)
            printf(" %s (Melem/s) |", names[t]);
        printf("\n|---|---|");
        for (k = 0; k < 3 * n_tl + 1; ++k)
            printf("---|");
        printf("\n");
        if (csv != NULL)
            fprintf(csv, "elements,op,transport,us_per_call\n");
        for (z = 0; z < n_sizes; ++z) {
            for (op = 0; op < BENCH_ST_OPS; ++op) {
                double m[BENCH_STRIDED_MAX_TL + 1];

                for (t = 0; t <= n_tl; ++t) {
                    m[t] = symh_bench_median(&BENCH_ST_SAMPLE(t, op, z, 0), (size_t)o->reps);
                    if (csv != NULL)
                        fprintf(csv, "%zu,%s,%s,%.4f\n", sizes[z],
                                op == BENCH_ST_PUT ? "iput+quiet" : "iget",
                                t < n_tl ? names[t] : "mpi_vector", m[t]);
                }
                printf("| %zu | %s |", sizes[z], op == BENCH_ST_PUT ? "iput+quiet" : "iget");
                for (t = 0; t <= n_tl; ++t)
                    printf(" %.3f |", m[t]);
                for (t = 1; t <= n_tl; ++t)
                    printf(" %.2f |", m[0] / m[t]);
                for (t = 0; t < n_tl; ++t)
                    printf(" %.3f |", (double)sizes[z] / m[t]);
                printf("\n");
                fflush(stdout);
            }
        }
    }
#undef BENCH_ST_SAMPLE
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    free(samples);
    free(local);
    free(back);
    return 0;
}

static int bench_parse(int argc, char **argv, bench_opts_t *o)
{
    int i;

    *o = (bench_opts_t){
        .min = 8, .max = (size_t)4 << 20, .iters = 100000, .reps = 7, .transports = "ofi,ucx"
    };
    for (i = 1; i + 1 < argc; i += 2) {
        if (symh_bench_sweep_option(argv, i, &o->min, &o->max, &o->iters, &o->reps, &o->csv))
            continue;
        if (strcmp(argv[i], "--target") == 0 && strcmp(argv[i + 1], "heap") == 0)
            o->symm = 0;
        else if (strcmp(argv[i], "--target") == 0 && strcmp(argv[i + 1], "symm") == 0)
            o->symm = 1;
        else if (strcmp(argv[i], "--local") == 0 && strcmp(argv[i + 1], "compare") == 0)
            o->local_compare = 1;
        else if (strcmp(argv[i], "--local") == 0 && strcmp(argv[i + 1], "registered") == 0)
            o->local_reg = 1;
        else if (strcmp(argv[i], "--registry") == 0 && atol(argv[i + 1]) >= 0)
            o->registry = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--op") == 0 && strcmp(argv[i + 1], "put") == 0)
            o->put_signal = 0;
        else if (strcmp(argv[i], "--op") == 0 && strcmp(argv[i + 1], "put_signal") == 0)
            o->put_signal = 1;
        else if (strcmp(argv[i], "--op") == 0 && strcmp(argv[i + 1], "iput") == 0)
            o->strided = 1;
        else if (strcmp(argv[i], "--transports") == 0)
            o->transports = argv[i + 1];
        else if (strcmp(argv[i], "--check-cost") == 0 && atoi(argv[i + 1]) > 0)
            o->check_cost = atoi(argv[i + 1]);
        else
            return -1;
    }
    if (i != argc || o->min < 1 || o->max < o->min || o->max > ((size_t)1 << 30) || o->iters < 1 ||
        o->reps < 1 || (o->put_signal && o->min < sizeof(uint64_t)))
        return -1;
    return 0;
}

/* The operations --check-cost times, each on the heap target of PE 1. */
typedef enum {
    BENCH_CC_PUT_QUIET, /* symh_putmem 8 B + symh_quiet: the sweep's latency */
    BENCH_CC_PUT,       /* symh_putmem 8 B alone: the translation and a store */
    BENCH_CC_P,         /* symh_long_p */
    BENCH_CC_GET,       /* symh_getmem 8 B */
    BENCH_CC_PUT_64K,   /* symh_putmem 64 KiB + quiet: 8 units of the map, the walk out of line */
    BENCH_CC_KINDS
} bench_cc_kind_t;

static const char *const bench_cc_names[BENCH_CC_KINDS] = { "putmem 8 B + quiet", "putmem 8 B",
                                                            "long_p", "getmem 8 B",
                                                            "putmem 64 KiB + quiet" };

/* Nanoseconds per operation of `kind`. */
static double bench_cc_run(bench_cc_kind_t kind, long iters)
{
    double t0 = symh_bench_now();
    long i;

    for (i = 0; i < iters; ++i) {
        switch (kind) {
        case BENCH_CC_PUT_QUIET:
            symh_putmem(bench.sym, bench.local, 8, 1);
            symh_quiet();
            break;
        case BENCH_CC_PUT:
            symh_putmem(bench.sym, bench.local, 8, 1);
            break;
        case BENCH_CC_P:
            symh_long_p((long *)bench.sym, i, 1);
            break;
        case BENCH_CC_GET:
            symh_getmem(bench.local, bench.sym, 8, 1);
            bench_clobber();
            break;
        default:
            symh_putmem(bench.sym, bench.local, 65536, 1);
            symh_quiet();
            break;
        }
    }
    return (symh_bench_now() - t0) / (double)iters * 1e9;
}

/* --check-cost: `rounds` times symh_init with the check (SYMH_ALLOC_CHECK=1) and without, each
 * followed by `reps` samples of every kind on PE 0; prints the medians over all samples and their
 * difference, the check's cost. */
static int bench_check_cost(const bench_opts_t *o)
{
    enum { ON, OFF };
    double *samples[2][BENCH_CC_KINDS], med[2][BENCH_CC_KINDS];
    size_t n = (size_t)o->check_cost * (size_t)o->reps, got = 0;
    long iters[BENCH_CC_KINDS];
    int round, mode, k, r, me = 0;

    for (k = 0; k < BENCH_CC_KINDS; ++k) {
        iters[k] = k == BENCH_CC_PUT_64K ? o->iters / 100 + 1 : o->iters * 10;
        for (mode = ON; mode <= OFF; ++mode)
            if ((samples[mode][k] = malloc(n * sizeof(double))) == NULL)
                return 1;
    }
    for (round = 0; round < o->check_cost; ++round) {
        for (mode = ON; mode <= OFF; ++mode) {
            setenv("SYMH_ALLOC_CHECK", mode == ON ? "1" : "0", 1);
            if (symh_init() != SYMH_OK)
                return 1;
            me = symh_my_pe();
            bench.sym = symh_malloc(65536);
            bench.local = aligned_alloc(4096, 65536);
            if (bench.sym == NULL || bench.local == NULL ||
                symh_buffer_register(bench.local, 65536) != SYMH_OK)
                return 1;
            memset(bench.local, 1, 65536);
            symh_barrier_all();
            if (me == 0)
                for (k = 0; k < BENCH_CC_KINDS; ++k) {
                    (void)bench_cc_run((bench_cc_kind_t)k, iters[k] / 10 + 1); /* warm up */
                    for (r = 0; r < o->reps; ++r)
                        samples[mode][k][got + (size_t)r] =
                            bench_cc_run((bench_cc_kind_t)k, iters[k]);
                }
            symh_barrier_all();
            symh_buffer_unregister(bench.local);
            free(bench.local);
            symh_free(bench.sym);
            symh_finalize();
        }
        got += (size_t)o->reps;
    }
    if (me == 0) {
        printf("allocation check: %d rounds of symh_init with SYMH_ALLOC_CHECK=1 and =0 "
               "alternating, %d samples each per round; route to PE 1: IPC unless "
               "SYMH_TRANSPORT says otherwise\n\n",
               o->check_cost, o->reps);
        printf("| operation (PE 0 -> PE 1) | with check (ns) | SYMH_ALLOC_CHECK=0 (ns) | check's "
               "cost (ns) | ratio |\n|---|---|---|---|---|\n");
        for (k = 0; k < BENCH_CC_KINDS; ++k) {
            for (mode = ON; mode <= OFF; ++mode)
                med[mode][k] = symh_bench_median(samples[mode][k], n);
            printf("| %s | %.2f | %.2f | %+.2f | %.2f |\n", bench_cc_names[k], med[ON][k],
                   med[OFF][k], med[ON][k] - med[OFF][k], med[ON][k] / med[OFF][k]);
        }
    }
    for (k = 0; k < BENCH_CC_KINDS; ++k)
        for (mode = ON; mode <= OFF; ++mode)
            free(samples[mode][k]);
    return 0;
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    double *samples, med[BENCH_KINDS], fadd_symh[64], fadd_mpi[64];
    FILE *csv = NULL;
    void *win_base, *symm_va = NULL, *symm_buf = NULL;
    char *registry_block;
    symh_physmem_t *symm_pm = NULL;
    size_t symm_size = 0;
    size_t size;
    int me, npes, r, k;

    MPI_Init(&argc, &argv);
    if (bench_parse(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: bench_rma [--min BYTES] [--max BYTES] [--iters N] [--reps R] "
                        "[--csv FILE] [--target heap|symm] [--local compare] "
                        "[--check-cost ROUNDS] [--op put|put_signal] "
                        "[--local registered [--registry N]] [--op iput [--transports LIST]]\n");
        MPI_Finalize();
        return 2;
    }
    if (o.strided) {
        int failed;

        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        if (o.reps > 64)
            o.reps = 64;
        if (me == 0 && o.csv != NULL && (csv = fopen(o.csv, "w")) == NULL) {
            perror(o.csv);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        failed = bench_strided(&o, csv);
        if (csv != NULL)
            fclose(csv);
        if (failed)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Finalize();
        return 0;
    }
    if (o.check_cost > 0) {
        if (o.reps > 64)
            o.reps = 64;
        if (bench_check_cost(&o) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Finalize();
        return 0;
    }
    if (symh_init() != SYMH_OK)
        MPI_Abort(MPI_COMM_WORLD, 1);
    me = symh_my_pe();
    npes = symh_n_pes();
    if (npes < 2) {
        if (me == 0)
            fprintf(stderr, "bench_rma: needs at least 2 PEs (PE 0 -> PE 1)\n");
        symh_finalize();
        MPI_Finalize();
        return 2;
    }
    if (o.reps > 64)
        o.reps = 64;
    if (o.symm) {
        /* The target: VMM memory of this PE, registered symmetrically. */
        size_t g = symh_vmm_granularity(0, SYMH_GRANULARITY_MINIMUM);

        symm_size = (o.max + g - 1) / g * g;
        if (symh_vmm_reserve(symm_size, NULL, &symm_va) != SYMH_OK ||
            symh_physmem_create(0, symm_size, &symm_pm) != SYMH_OK ||
            symh_physmem_map(symm_pm, symm_va, symm_size, SYMH_ACCESS_READ_WRITE, 0, &symm_buf) !=
                SYMH_OK)
            MPI_Abort(MPI_COMM_WORLD, 1);
        bench.sym = symh_buffer_register_symmetric(symm_buf, symm_size);
    } else {
        bench.sym = symh_malloc(o.max);
    }
    /* The atomic's word lives where the transfers go. */
    bench.counter = o.symm ? (long *)bench.sym : symh_calloc(1, sizeof(long));
    bench.sig = symh_calloc(1, sizeof(uint64_t));
    bench.local = aligned_alloc(4096, (o.max + 4095) / 4096 * 4096);
    bench.copy = aligned_alloc(4096, (o.max + 4095) / 4096 * 4096);
    bench.unreg = malloc(o.max);
    samples = malloc((size_t)o.reps * BENCH_KINDS * sizeof(double)); /* >= every mode's kinds */
    if (bench.sym == NULL || bench.counter == NULL || bench.sig == NULL || bench.local == NULL ||
        bench.copy == NULL || bench.unreg == NULL || samples == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    /* The zero-copy path of a NIC transport (docs/transports.md); IPC ignores it. */
    if (symh_buffer_register(bench.local, (o.max + 4095) / 4096 * 4096) != SYMH_OK)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(bench.local, 1, o.max);
    memset(bench.copy, 2, o.max);
    memset(bench.unreg, 3, o.max);
    bench.flag_offset = (o.max + 63) / 64 * 64;
    MPI_Win_allocate((MPI_Aint)(bench.flag_offset + 64), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                     &win_base, &bench.win);
    memset(win_base, 0, bench.flag_offset + 64);
    bench.win_base = win_base;
    /* glibc's memcpy (rep movsb on this AMD EPYC) slows to about 1 GB/s between 4 KiB and a few
     * hundred KiB when source and destination sit at unlucky page offsets from each other. The
     * heap and `local` are page-aligned; MPI's window is not, so MPI gets a local buffer at the
     * window's page offset: both sides copy between equally aligned buffers. */
    bench.local_mpi = aligned_alloc(4096, (o.max + 8191) / 4096 * 4096);
    if (bench.local_mpi == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    bench.local_mpi += (uintptr_t)win_base & 4095;
    memset(bench.local_mpi, 1, o.max);
    MPI_Win_lock_all(0, bench.win);
    registry_block = bench_registry_fill(o.registry);
    MPI_Barrier(MPI_COMM_WORLD);

    if (o.local_reg) {
        if (me == 0) {
            printf("symheap target: the heap; route to PE 1: %s\n", symh_pe_transport(1));
            if (o.csv != NULL && (csv = fopen(o.csv, "w")) == NULL) {
                perror(o.csv);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            bench_local_registered(&o, samples, csv);
            if (csv != NULL)
                fclose(csv);
        }
    } else if (o.put_signal) {
        if (me == 0) {
            printf("symheap target: the heap; route to PE 1: %s\n", symh_pe_transport(1));
            if (o.csv != NULL && (csv = fopen(o.csv, "w")) == NULL) {
                perror(o.csv);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        bench_put_signal(&o, me, samples, csv);
        if (csv != NULL)
            fclose(csv);
    } else if (me == 0 && o.local_compare) {
        printf("symheap target: the heap; route to PE 1: %s\n", symh_pe_transport(1));
        if (o.csv != NULL && (csv = fopen(o.csv, "w")) == NULL) {
            perror(o.csv);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        bench_local_compare(&o, samples, csv);
        if (csv != NULL)
            fclose(csv);
    } else if (me == 0) {
        printf("symheap target: %s; route to PE 1: %s\n\n",
               o.symm ? "a symmetric region (VMM alias)" : "the heap", symh_pe_transport(1));
        if (o.csv != NULL && (csv = fopen(o.csv, "w")) == NULL) {
            perror(o.csv);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (csv != NULL)
            fprintf(csv, "bytes,put_symh_us,put_mpi_us,get_symh_us,get_mpi_us,memcpy_us,"
                         "bw_symh_gbs,bw_mpi_gbs,bw_memcpy_gbs\n");
        printf("| bytes | put+quiet symh (us) | MPI_Put+flush (us) | ratio | get symh (us) | "
               "MPI_Get+flush (us) | ratio | memcpy (us) | put bw symh (GB/s) | put bw MPI "
               "(GB/s) | memcpy (GB/s) | symh/memcpy |\n");
        printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (size = o.min; size <= o.max; size *= 2) {
            /* About 64 MiB moved per measurement, at least 20 operations. */
            long iters = (long)((size_t)64 << 20) / (long)size;

            iters = iters > o.iters ? o.iters : iters < 20 ? 20 : iters;
            /* The kinds take turns within each repetition, so that drift on the machine (the
             * other PE's polling, another job) falls on symheap, MPI and memcpy alike. */
            for (k = 0; k < BENCH_KINDS; ++k)
                (void)bench_run((bench_kind_t)k, size, iters / 10 + 1); /* warm up */
            for (r = 0; r < o.reps; ++r)
                for (k = 0; k < BENCH_KINDS; ++k)
                    samples[k * o.reps + r] = bench_run((bench_kind_t)k, size, iters);
            for (k = 0; k < BENCH_KINDS; ++k)
                med[k] = symh_bench_median(samples + k * o.reps, (size_t)o.reps);
            printf("| %zu | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f | %.3f | %.2f | %.2f | %.2f "
                   "| %.2f |\n",
                   size, med[BENCH_PUT_SYMH], med[BENCH_PUT_MPI],
                   med[BENCH_PUT_SYMH] / med[BENCH_PUT_MPI], med[BENCH_GET_SYMH],
                   med[BENCH_GET_MPI], med[BENCH_GET_SYMH] / med[BENCH_GET_MPI], med[BENCH_MEMCPY],
                   size / med[BENCH_BW_SYMH] / 1e3, size / med[BENCH_BW_MPI] / 1e3,
                   size / med[BENCH_BW_MEMCPY] / 1e3, med[BENCH_BW_MEMCPY] / med[BENCH_BW_SYMH]);
            if (csv != NULL)
                fprintf(csv, "%zu,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f\n", size,
                        med[BENCH_PUT_SYMH], med[BENCH_PUT_MPI], med[BENCH_GET_SYMH],
                        med[BENCH_GET_MPI], med[BENCH_MEMCPY], size / med[BENCH_BW_SYMH] / 1e3,
                        size / med[BENCH_BW_MPI] / 1e3, size / med[BENCH_BW_MEMCPY] / 1e3);
            fflush(stdout);
            if (size > o.max / 2)
                break;
        }
        for (r = 0; r < o.reps; ++r)
            bench_fadd(o.iters, &fadd_symh[r], &fadd_mpi[r]);
        {
            double s = symh_bench_median(fadd_symh, o.reps),
                   m = symh_bench_median(fadd_mpi, o.reps);

            printf("\n| atomic fetch-add, 8 B | symh (us) | MPI_Fetch_and_op+flush (us) | ratio "
                   "|\n|---|---|---|---|\n| long | %.3f | %.3f | %.2f |\n",
                   s, m, s / m);
            if (csv != NULL)
                fprintf(csv, "# fetch_add_us symh=%.4f mpi=%.4f\n", s, m);
        }
        if (csv != NULL)
            fclose(csv);
    }
    /* PE 1 waits here while PE 0 measures: symheap's barrier keeps driving both MPI's progress
     * (it polls MPI_Ibarrier) and a NIC transport's, which a TCP wire needs at the target. */
    symh_barrier_all();
    bench_registry_drop(registry_block, o.registry);
    MPI_Win_unlock_all(bench.win);
    MPI_Win_free(&bench.win);
    free(samples);
    free(bench.local_mpi - ((uintptr_t)win_base & 4095));
    free(bench.copy);
    free(bench.unreg);
    symh_buffer_unregister(bench.local);
    free(bench.local);
    symh_free(bench.sig);
    if (!o.symm)
        symh_free(bench.counter);
    if (o.symm) {
        symh_buffer_unregister_symmetric(bench.sym);
        symh_vmm_unmap(symm_buf, symm_size);
        symh_physmem_destroy(symm_pm);
        symh_vmm_release(symm_va, symm_size);
    } else {
        symh_free(bench.sym);
    }
    symh_finalize();
    MPI_Finalize();
    return 0;
}
