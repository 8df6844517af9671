/* hello: the demo. Every PE reports its number, the PE count, its node-local rank and its
 * routes, then does a ring exchange over the symmetric heap and an atomic count, and prints
 * what it verified. Exit status 0 only when every check passed on this PE. */
#include <stdio.h>

#include <symheap.h>

int main(void)
{
    char line[1024];
    int me, npes, pe, len, left, right, ok;
    long *ring, *counter, got, expected_sum;

    if (symh_init() != SYMH_OK)
        return 1; /* symheap has logged why */
    me = symh_my_pe();
    npes = symh_n_pes();
    left = (me + npes - 1) % npes;
    right = (me + 1) % npes;
    len = snprintf(line, sizeof(line), "PE %d of %d: node-local rank %d of %d, transports:", me,
                   npes, symh_local_pe(), symh_local_n_pes());
    for (pe = 0; pe < npes && len > 0 && (size_t)len < sizeof(line); ++pe)
        len +=
            snprintf(line + len, sizeof(line) - (size_t)len, " %d:%s", pe, symh_pe_transport(pe));
    puts(line);

    /* Collective allocations: the same offsets on every PE. */
    ring = symh_calloc((size_t)npes, sizeof(long));
    counter = symh_calloc(1, sizeof(long));
    if (ring == NULL || counter == NULL) {
        fprintf(stderr, "PE %d: symmetric allocation failed: %s\n", me,
                symh_status_string(symh_last_error()));
        return 1;
    }
    /* Ring: put a token into the right neighbour's slot for this PE; count on PE 0. */
    symh_long_p(&ring[me], 1000L * me + 7, right);
    symh_long_atomic_add(counter, me + 1, 0);
    symh_barrier_all();

    got = ring[left];
    ok = got == 1000L * left + 7;
    printf("PE %d: ring: received %ld from PE %d (expected %ld): %s\n", me, got, left,
           1000L * left + 7, ok ? "ok" : "WRONG");
    if (me == 0) {
        expected_sum = (long)npes * (npes + 1) / 2;
        ok &= *counter == expected_sum;
        printf("PE 0: atomics: %d PEs added 1..%d to a counter: %ld (expected %ld): %s\n", npes,
               npes, *counter, expected_sum, *counter == expected_sum ? "ok" : "WRONG");
    }
    symh_barrier_all(); /* nobody frees while a peer may still write */
    symh_free(counter);
    symh_free(ring);
    /* The device allocator: a labelled allocation on PE 0, the report of live allocations. */
    if (me == 0) {
        const double init = 20.0;
        symh_dev_alloc_opts_t opts = { SYMH_DEVICE_CURRENT, &init, sizeof(init), "temperature" };
        void *field = NULL;

        if (symh_dev_alloc(&field, 100 * sizeof(double), &opts) != SYMH_OK) {
            ok = 0;
        } else {
            fflush(stdout);
            symh_dev_alloc_report(stdout);
            symh_dev_free(&field, SYMH_DEVICE_ANY);
            symh_dev_alloc_report(stdout);
        }
    }
    symh_finalize();
    return ok ? 0 : 1;
}
