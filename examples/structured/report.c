/* examples/structured: symh_dev_alloc_report (the dev_alloc_report the structured-memory
 * reference's labels are for): three labelled device allocations, one label longer than 32
 * characters (truncated), reported, then one freed and reported again. Addresses differ from run
 * to run: the program masks the 16 hex digits and prints the allocation lines sorted, so that the
 * output can be compared exactly; the line format is docs/dev-alloc.md's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symheap.h>

#define MAX_LINES 16
#define LINE_LEN  256

static int cmp_lines(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

/* The report, addresses masked, allocation lines sorted, the total line last. */
static int print_report(void)
{
    static char lines[MAX_LINES][LINE_LEN];
    char total[LINE_LEN] = "";
    size_t n = 0;
    FILE *f = tmpfile();

    if (f == NULL || symh_dev_alloc_report(f) != SYMH_OK)
        return 1;
    rewind(f);
    while (n < MAX_LINES && fgets(lines[n], LINE_LEN, f) != NULL) {
        char *addr = strstr(lines[n], "address=0x");

        if (addr == NULL) {
            strcpy(total, lines[n]);
            continue;
        }
        memset(addr + strlen("address=0x"), '#', 16);
        n++;
    }
    fclose(f);
    qsort(lines, n, LINE_LEN, cmp_lines);
    for (size_t k = 0; k < n; k++)
        fputs(lines[k], stdout);
    fputs(total, stdout);
    return 0;
}

int main(void)
{
    const double zero = 0.0;
    void *q_dev = NULL, *u_dev = NULL, *w_dev = NULL;
    symh_dev_alloc_opts_t opts = { .device = SYMH_DEVICE_CURRENT, .label = "q" };

    if (symh_init() != SYMH_OK)
        return 1;
    opts.init_value = &zero;
    opts.init_size = sizeof(zero);
    if (symh_dev_alloc(&q_dev, 27 * sizeof(double), &opts) != SYMH_OK)
        return 1;
    opts.label = "u";
    if (symh_dev_alloc(&u_dev, 40 * sizeof(double), &opts) != SYMH_OK)
        return 1;
    opts.label = "wind velocity on the staggered grid, x";
    if (symh_dev_alloc(&w_dev, 1000 * sizeof(float), &opts) != SYMH_OK)
        return 1;
    if (print_report() != 0)
        return 1;
    symh_dev_free(&u_dev, SYMH_DEVICE_ANY);
    printf("after dev_free(u_dev):\n");
    if (print_report() != 0)
        return 1;
    symh_dev_free(&q_dev, SYMH_DEVICE_ANY);
    symh_dev_free(&w_dev, SYMH_DEVICE_ANY);
    symh_finalize();
    return 0;
}
