/* symheap public header: initialization on an MPI communicator (the one header needing mpi.h). */
#ifndef SYMHEAP_MPI_H
#define SYMHEAP_MPI_H

#include <mpi.h>
#include <symheap.h>

SYMH_BEGIN_C_DECLS

/* Collective over `comm`: the PEs are the ranks of `comm` (PE i is rank i). MPI must already be
 * initialized. symheap duplicates `comm`; the caller may free its own handle after this call. */
SYMH_API int symh_init_comm(MPI_Comm comm);

SYMH_END_C_DECLS

#endif /* SYMHEAP_MPI_H */
