/* hello: every PE reports its number, the PE count, its node-local rank and its routes. */
#include <stdio.h>

#include <symheap.h>

int main(void)
{
    char line[1024];
    int me, npes, pe, len;

    if (symh_init() != SYMH_OK)
        return 1; /* symheap has logged why */
    me = symh_my_pe();
    npes = symh_n_pes();
    len = snprintf(line, sizeof(line), "PE %d of %d: node-local rank %d of %d, transports:", me,
                   npes, symh_local_pe(), symh_local_n_pes());
    for (pe = 0; pe < npes && len > 0 && (size_t)len < sizeof(line); ++pe)
        len +=
            snprintf(line + len, sizeof(line) - (size_t)len, " %d:%s", pe, symh_pe_transport(pe));
    puts(line);
    symh_finalize();
    return 0;
}
