/* global_exit: the last PE calls symh_global_exit(7) while the others wait in symh_finalize's
 * barrier; the whole job must end with status 7 (checked by test_cli.sh), none left waiting. */
#include <stdio.h>

#include <symheap.h>

int main(void)
{
    if (symh_init() != SYMH_OK)
        return 1;
    if (symh_my_pe() == symh_n_pes() - 1)
        symh_global_exit(7);
    symh_finalize(); /* waits for the last PE, which never comes */
    puts("global_exit: a PE survived symh_global_exit");
    return 0;
}
