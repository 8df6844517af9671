/* One PE of heap_limit.sh's jobs, run in a memory cgroup: symh_init with the environment the
 * script sets, then, when argv[1] names a count of MiB, a symh_calloc of that size (every page
 * touched by its zeroing). Prints what happened; exits 0, or 3 when symh_init failed, 4 when the
 * calloc did. */
#include <stdio.h>
#include <stdlib.h>

#include <symheap.h>

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
    printf("heap_limit: PE %d initialized and finalizes\n", me);
    symh_finalize();
    return 0;
}
