/* OpenSHMEM extensions header (docs/openshmem.md "Extensions"). OpenSHMEM reserves <shmemx.h>
 * for an implementation's additions; symheap's additions are its own symh_ API, which <shmem.h>
 * already includes (<symheap.h>): symh_last_error() and symh_status_string() after any call,
 * symh_local_pe() and symh_local_n_pes(), symh_pe_transport(), symh_heap_stats(), buffer
 * registration, the VMM API and the device allocator. No shmemx_ names are defined: a program
 * written for another implementation's shmemx_ routines does not build here, rather than calling
 * something that only shares a name. */
#ifndef SYMH_SHMEMX_H
#define SYMH_SHMEMX_H

#include <shmem.h>

#endif /* SYMH_SHMEMX_H */
