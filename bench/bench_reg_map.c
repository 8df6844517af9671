/* bench_reg_map: lookup cost of the registry's interval map (src/registration/reg_map.c) against
 * a sorted array searched by bisection, over the same ranges and the same pseudo-random addresses
 * (half inside ranges, at any byte, half in the gaps between them), in the same run, at several
 * numbers of live ranges; medians of --reps repetitions, printed as a Markdown table. Both sides
 * return a copy of the whole entry; the map's time includes taking its read lock. Both sides
 * keep large arrays on transparent huge pages (madvise) where the kernel allows it. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "bench_util.h"
#include <symheap/status.h>

#include "registration/reg_map.h"

#define BENCH_SEED      UINT64_C(0x5eed0f5e1f15ab1e)
#define BENCH_MAX_REPS  101
#define BENCH_MAX_SIZES 8
#define BENCH_LO        ((uintptr_t)1 << 44)

/* The sorted-array competitor: keys packed for the search, entries beside them. */
typedef struct {
    uintptr_t base;
    uintptr_t end;
} bench_key_t;

/* Memory for the array side, placed and advised like the map's own record table
 * (reg_map.c), so that both get transparent huge pages where the kernel gives them. */
static void *bench_alloc(size_t bytes)
{
    size_t huge = (size_t)2 << 20, rounded = (bytes + huge - 1) & ~(huge - 1);
    void *p;

    if (bytes < huge)
        return malloc(bytes);
    p = aligned_alloc(huge, rounded);
    if (p != NULL)
        (void)madvise(p, rounded, MADV_HUGEPAGE);
    return p;
}

static uint64_t bench_next(uint64_t *state)
{
    /* splitmix64: the same sequence on every machine */
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* The array's answer for addr: the index of the range holding it, or -1. */
static long bench_array_find(const bench_key_t *keys, size_t n, uintptr_t addr)
{
    size_t lo = 0, hi = n; /* the first base > addr lies in [lo, hi] */

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (keys[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && addr < keys[lo - 1].end ? (long)(lo - 1) : -1;
}

/* Seconds for the lookups on the map; *sum gets a checksum of the bases found. */
static double bench_map(const symh_reg_map_t *map, const uintptr_t *addrs, size_t n_addrs,
                        uint64_t *sum)
{
    symh_reg_entry_t e;
    uint64_t s = 0;
    double t0;
    size_t i;

    t0 = symh_bench_now();
    for (i = 0; i < n_addrs; ++i)
        if (symh_reg_map_lookup(map, addrs[i], &e) == SYMH_OK)
            s += e.base;
    *sum = s;
    return symh_bench_now() - t0;
}

static double bench_array(const bench_key_t *keys, const symh_reg_entry_t *entries, size_t n,
                          const uintptr_t *addrs, size_t n_addrs, uint64_t *sum)
{
    symh_reg_entry_t e;
    uint64_t s = 0;
    double t0;
    size_t i;

    t0 = symh_bench_now();
    for (i = 0; i < n_addrs; ++i) {
        long k = bench_array_find(keys, n, addrs[i]);

        if (k >= 0) {
            e = entries[k];
            s += e.base;
        }
    }
    *sum = s;
    return symh_bench_now() - t0;
}

static int bench_usage(FILE *out)
{
    fprintf(out, "usage: bench_reg_map [--sizes N,N,...] [--lookups L] [--reps R]\n"
                 "  --sizes    numbers of live ranges, default 1000,100000,1000000\n"
                 "  --lookups  lookups per repetition, default 2000000\n"
                 "  --reps     repetitions of each side (medians are printed), default 7\n");
    return out == stdout ? 0 : 2;
}

/* One row: builds n ranges, times both sides. Returns 0, or 1 after printing why. */
static int bench_row(size_t n, size_t n_lookups, int reps)
{
    double map_s[BENCH_MAX_REPS], arr_s[BENCH_MAX_REPS], map_med, arr_med;
    symh_reg_entry_t *entries = bench_alloc(n * sizeof(*entries));
    bench_key_t *keys = bench_alloc(n * sizeof(*keys));
    uintptr_t *addrs = malloc(n_lookups * sizeof(*addrs));
    size_t *order = malloc(n * sizeof(*order));
    uint64_t state = BENCH_SEED ^ n, map_sum, arr_sum;
    symh_reg_map_t *map = NULL;
    uintptr_t at = BENCH_LO;
    size_t i;
    int r, failed = 1;

    if (entries == NULL || keys == NULL || addrs == NULL || order == NULL ||
        symh_reg_map_create(&map) != SYMH_OK) {
        fprintf(stderr, "bench_reg_map: out of memory for %zu ranges\n", n);
        goto out;
    }
    /* Ranges of 64 B - 64 KiB, each followed by a gap of the same order, in address order. */
    for (i = 0; i < n; ++i) {
        size_t len = 64 + (size_t)(bench_next(&state) % 65536);
        size_t gap = 64 + (size_t)(bench_next(&state) % 65536);

        memset(&entries[i], 0, sizeof(entries[i]));
        entries[i].base = at;
        entries[i].length = len;
        entries[i].kind = SYMH_REG_KIND_USER;
        snprintf(entries[i].label, sizeof(entries[i].label), "range %zu", i);
        keys[i].base = at;
        keys[i].end = at + len;
        at += len + gap;
        order[i] = i;
    }
    /* Insert in random order, as registrations come. */
    for (i = n; i > 1; --i) {
        size_t j = (size_t)(bench_next(&state) % i), t = order[i - 1];

        order[i - 1] = order[j];
        order[j] = t;
    }
    for (i = 0; i < n; ++i)
        if (symh_reg_map_insert(map, &entries[order[i]], NULL) != SYMH_OK) {
            fprintf(stderr, "bench_reg_map: insert %zu of %zu failed\n", i, n);
            goto out;
        }
    /* Half the addresses at any byte of a random range, half in the gap after one. */
    for (i = 0; i < n_lookups; ++i) {
        size_t k = (size_t)(bench_next(&state) % n);
        uint64_t r64 = bench_next(&state);

        if (r64 & 1)
            addrs[i] = keys[k].base + (uintptr_t)((r64 >> 1) % (keys[k].end - keys[k].base));
        else
            addrs[i] = keys[k].end + (uintptr_t)((r64 >> 1) % 64);
    }

    /* Interleaved, so that both see the same machine state over the run. */
    for (r = 0; r < reps; ++r) {
        map_s[r] = bench_map(map, addrs, n_lookups, &map_sum);
        arr_s[r] = bench_array(keys, entries, n, addrs, n_lookups, &arr_sum);
        if (map_sum != arr_sum) {
            fprintf(stderr, "bench_reg_map: the map and the array disagree at %zu ranges\n", n);
            goto out;
        }
    }
    map_med = symh_bench_median(map_s, (size_t)reps) / (double)n_lookups * 1e9;
    arr_med = symh_bench_median(arr_s, (size_t)reps) / (double)n_lookups * 1e9;
    printf("| %9zu | %13.1f | %13.2f | %15.1f | %15.2f | %5.2f |\n", n, map_med, 1e3 / map_med,
           arr_med, 1e3 / arr_med, map_med / arr_med);
    fflush(stdout);
    failed = 0;
out:
    symh_reg_map_destroy(map);
    free(order);
    free(addrs);
    free(keys);
    free(entries);
    return failed;
}

int main(int argc, char **argv)
{
    unsigned long long lookups = 2000000, reps = 7,
                       sizes[BENCH_MAX_SIZES] = { 1000, 100000, 1000000 };
    size_t n_sizes = 3, s;
    int i;

    for (i = 1; i < argc; ++i) {
        unsigned long long *target = NULL;
        char *end;

        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return bench_usage(stdout);
        if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            char *p = argv[++i];

            for (n_sizes = 0; n_sizes < BENCH_MAX_SIZES; ++n_sizes) {
                sizes[n_sizes] = strtoull(p, &end, 10);
                if (end == p || sizes[n_sizes] == 0 || (*end != ',' && *end != '\0'))
                    return bench_usage(stderr);
                p = end + 1;
                if (*end == '\0')
                    break;
            }
            if (n_sizes++ == BENCH_MAX_SIZES)
                return bench_usage(stderr);
            continue;
        }
        if (strcmp(argv[i], "--lookups") == 0)
            target = &lookups;
        else if (strcmp(argv[i], "--reps") == 0)
            target = &reps;
        if (target == NULL || i + 1 >= argc)
            return bench_usage(stderr);
        *target = strtoull(argv[++i], &end, 10);
        if (*end != '\0' || *target == 0)
            return bench_usage(stderr);
    }
    if (reps > BENCH_MAX_REPS || lookups > SIZE_MAX / sizeof(uintptr_t)) {
        fprintf(stderr, "bench_reg_map: at most %d reps\n", BENCH_MAX_REPS);
        return 2;
    }

    printf("bench_reg_map: %llu lookups per repetition (half inside ranges, half in gaps), "
           "median of %llu repetitions\n\n",
           lookups, reps);
    printf("|    ranges | map ns/lookup | map Mlookup/s | array ns/lookup | array Mlookup/s | "
           "ratio |\n");
    printf("|----------:|--------------:|--------------:|----------------:|----------------:|"
           "------:|\n");
    for (s = 0; s < n_sizes; ++s)
        if (bench_row((size_t)sizes[s], (size_t)lookups, (int)reps) != 0)
            return 1;
    return 0;
}
