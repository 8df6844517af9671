/* symmetric_registration: the worked example of docs/registration.md. Every PE maps memory of
 * its own through the VMM API, registers it symmetrically, writes a greeting into the next PE's
 * buffer through the alias, reads the one it received through its ORIGINAL address, and
 * unregisters. Exit status 0 only when every check passed on this PE. */
#include <stdio.h>
#include <string.h>

#include <symheap.h>

int main(void)
{
    symh_physmem_t *pm = NULL;
    void *va = NULL, *buf = NULL;
    char *alias, msg[64], expected[64];
    size_t size;
    int me, npes, next, prev, ok = 1;

    if (symh_init() != SYMH_OK)
        return 1; /* symheap has logged why */
    me = symh_my_pe();
    npes = symh_n_pes();
    next = (me + 1) % npes;
    prev = (me + npes - 1) % npes;

    /* 1. Memory of this PE's own, mapped through the VMM API: reserve, create, map. */
    size = symh_vmm_granularity(0, SYMH_GRANULARITY_RECOMMENDED); /* 2 MiB on the host */
    if (symh_vmm_reserve(size, NULL, &va) != SYMH_OK ||
        symh_physmem_create(0, size, &pm) != SYMH_OK ||
        symh_physmem_map(pm, va, size, SYMH_ACCESS_READ_WRITE, 0, &buf) != SYMH_OK) {
        symh_finalize();
        return 1;
    }
    memset(buf, 0, size);

    /* 2. Collective: every PE registers the same length and gets the same symmetric alias
     *    offset; NULL on every PE if any PE failed. */
    alias = symh_buffer_register_symmetric(buf, size);
    if (alias == NULL) {
        fprintf(stderr, "PE %d: symh_buffer_register_symmetric: %s\n", me,
                symh_status_string(symh_last_error()));
        symh_finalize();
        return 1;
    }

    /* 3. The alias is a symmetric address: put a greeting into the next PE's buffer. */
    snprintf(msg, sizeof(msg), "hello from PE %d", me);
    symh_putmem(alias, msg, sizeof(msg), next);
    symh_barrier_all(); /* completes the put and orders it before the read below */

    /* 4. The greeting from the previous PE arrived in this PE's ORIGINAL buffer. */
    snprintf(expected, sizeof(expected), "hello from PE %d", prev);
    if (strcmp((const char *)buf, expected) != 0)
        ok = 0;
    printf("PE %d: buffer %p, alias %p, received \"%s\" through the original address: %s\n", me,
           buf, (void *)alias, (const char *)buf, ok ? "ok" : "WRONG");

    /* 5. Collective: the alias goes, the buffer and its data stay. */
    if (symh_buffer_unregister_symmetric(alias) != SYMH_OK || strcmp(buf, expected) != 0)
        ok = 0;
    symh_vmm_unmap(buf, size);
    symh_physmem_destroy(pm);
    symh_vmm_release(va, size);
    symh_finalize();
    return ok ? 0 : 1;
}
