/* One PE of heap_limit.sh's jobs, run in a memory cgroup: symh_init with the environment the
 * script sets, then, when argv[1] names a count of MiB, a symh_calloc of that size (every page
 * touched by its zeroing); with argv[2], a file name, PE 0 prints "holding" and every PE waits
 * (up to 30 s) until that file exists before it finalizes, so that the script can read the
 * cgroup's memory while the heaps are up. Prints what happened; exits 0, or 3 when symh_init
 * failed, 4 when the calloc did. */
#define _POSIX_C_SOURCE 200809L /* nanosleep, access under -std=c11 */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <symheap.h>

static void symh_test_hold(const char *file, int me)
{
    struct timespec ten_ms = { 0, 10 * 1000 * 1000 };
    int i;

    symh_barrier_all();
    if (me == 0) {
        printf("heap_limit: holding\n");
        fflush(stdout);
    }
    for (i = 0; i < 3000 && access(file, F_OK) != 0; ++i)
        nanosleep(&ten_ms, NULL);
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
    int status = symh_init(), me;
    char *p;

    if (status != SYMH_OK) {
        printf("heap_limit: symh_init returned %d (%s)\n", status, symh_status_string(status));
        return 3;
    }
    me = symh_my_pe();
    if (mib > 0) {
        p = symh_calloc(mib, (size_t)1 << 20);
        printf("heap_limit: PE %d: symh_calloc of %zu MiB %s\n", me, mib,
               p != NULL ? "succeeded" : "failed");
        if (p == NULL) {
            symh_finalize();
            return 4;
        }
        symh_free(p);
    }
    if (argc > 2)
        symh_test_hold(argv[2], me);
    printf("heap_limit: PE %d initialized and finalizes\n", me);
    symh_finalize();
    return 0;
}
