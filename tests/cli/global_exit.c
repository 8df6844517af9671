/* global_exit [STATUS [compute]]: the last PE calls symh_global_exit(STATUS) (default 7) while the
 * others wait in symh_finalize's barrier, or, with "compute", run outside the library; the whole
 * job must end with STATUS (checked by test_cli.sh), none left running, and at status 0 nothing
 * printed at all (OpenSHMEM's normal way to end a program). */
#define _DEFAULT_SOURCE /* usleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <symheap.h>

int main(int argc, char **argv)
{
    int status = argc > 1 ? atoi(argv[1]) : 7;
    int compute = argc > 2 && strcmp(argv[2], "compute") == 0;

    if (symh_init() != SYMH_OK)
        return 1;
    if (symh_my_pe() == symh_n_pes() - 1) {
        usleep(100000); /* the others are in place first */
        symh_global_exit(status);
    }
    while (compute)
        usleep(1000);
    symh_finalize(); /* waits for the last PE, which never comes */
    puts("global_exit: a PE survived symh_global_exit");
    return 0;
}
