/* tests/device: the device allocator without symh_init, then with it (docs/dev-alloc.md "Without
 * symh_init"): an allocation made before init, with a policy set before init, is adopted by
 * symh_init with its registry, and serves as the local side of RMA to and from the next PE.
 * Prints "dev_alloc_noinit: ok" on PE 0 when every check holds; exit status 1 otherwise. */
#include <stdio.h>
#include <symheap.h>

#define N 8

static int check(int ok, const char *what)
{
    if (!ok)
        fprintf(stderr, "dev_alloc_noinit: FAILED: %s\n", what);
    return ok ? 0 : 1;
}

int main(void)
{
    const double init = 3.0;
    const symh_dev_alloc_opts_t opts = { SYMH_DEVICE_CURRENT, &init, sizeof(init), "before init" };
    void *q = NULL;
    double *sym, back[N];
    size_t allocs = 0;
    int bad = 0, me, peer;

    bad += check(!symh_initialized(), "not initialized at start");
    bad += check(symh_device_count() >= 1, "devices without init");
    bad += check(symh_dev_alloc(&q, N * sizeof(double), &opts) == SYMH_OK, "alloc without init");
    bad += check(symh_registry_set_policy(SYMH_REGISTRY_ERROR) == SYMH_OK, "policy without init");
    bad += check(symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &allocs, NULL) == SYMH_OK && allocs == 1,
                 "stats without init");
    if (symh_init() != SYMH_OK)
        return 1;
    me = symh_my_pe();
    peer = (me + 1) % symh_n_pes();
    allocs = 0;
    bad += check(symh_dev_get_alloc_stats(SYMH_DEVICE_ANY, &allocs, NULL) == SYMH_OK && allocs == 1,
                 "symh_init adopts the allocation");
    bad += check(symh_registry_get_policy() == SYMH_REGISTRY_ERROR, "symh_init keeps the policy");
    sym = symh_malloc(N * sizeof(double));
    bad += check(sym != NULL, "symh_malloc");
    for (int k = 0; k < N; k++)
        sym[k] = 0.0;
    symh_barrier_all();
    symh_putmem(sym, q, N * sizeof(double), peer); /* local side: the allocation made before init */
    symh_barrier_all();
    for (int k = 0; k < N; k++)
        bad += check(sym[k] == 3.0, "put from a device allocation made before init");
    sym[0] = 10.0 + me;
    symh_barrier_all();
    symh_getmem(q, sym, N * sizeof(double), peer); /* into the allocation made before init */
    bad += check(symh_dev_memcpy_from_device(back, q, sizeof(back)) == SYMH_OK, "copy back");
    bad += check(back[0] == 10.0 + peer && back[1] == 3.0, "get into a device allocation");
    symh_barrier_all();
    symh_free(sym);
    bad += check(symh_dev_free(&q, SYMH_DEVICE_ANY) == SYMH_OK && q == NULL, "free after init");
    symh_finalize();
    if (bad == 0 && me == 0)
        printf("dev_alloc_noinit: ok\n");
    return bad != 0;
}
