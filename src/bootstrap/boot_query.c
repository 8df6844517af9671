/* bootstrap: the public PE queries and symh_global_exit. */
#include <stdio.h>
#include <stdlib.h>

#include <symheap/init.h>

#include "bootstrap/boot.h"
#include "core/core_status.h"

int symh_my_pe(void)
{
    SYMH_CHECK_INIT(symh_boot_is_up(), -1);
    symh_status_set(SYMH_OK);
    return symh_boot_info.my_pe;
}

int symh_n_pes(void)
{
    SYMH_CHECK_INIT(symh_boot_is_up(), -1);
    symh_status_set(SYMH_OK);
    return symh_boot_info.n_pes;
}

int symh_local_pe(void)
{
    SYMH_CHECK_INIT(symh_boot_is_up(), -1);
    symh_status_set(SYMH_OK);
    return symh_boot_info.local_pe;
}

int symh_local_n_pes(void)
{
    SYMH_CHECK_INIT(symh_boot_is_up(), -1);
    symh_status_set(SYMH_OK);
    return symh_boot_info.local_n_pes;
}

void symh_global_exit(int status)
{
    fflush(stdout);
    if (symh_status_fork_pe >= 0) {
        /* A child of fork is no PE: MPI is its parent's, and only the child is its own (quiet
         * at status 0, as below). */
        symh_log(status == 0 ? SYMH_LOG_INFO : SYMH_LOG_WARN,
                 "symh_global_exit(%d) in a child that fork() made of PE %d: exiting this process "
                 "only",
                 status, symh_status_fork_pe);
        exit(status);
    }
    if (!symh_boot_is_up()) {
        /* Only this process is known to exist: ending it is all "every PE" can mean. */
        symh_warn("symh_global_exit(%d) before symh_init: exiting this process", status);
        exit(status);
    }
    /* A normal way to end a program (OpenSHMEM): quiet at status 0, one line otherwise. */
    symh_log(status == 0 ? SYMH_LOG_INFO : SYMH_LOG_WARN,
             "symh_global_exit(%d) called on PE %d: ending all %d PEs", status,
             symh_boot_info.my_pe, symh_boot_info.n_pes);
    symh_boot->abort(status);
}
