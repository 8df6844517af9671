/* symheap public header: initialization, finalization and PE queries. */
#ifndef SYMHEAP_INIT_H
#define SYMHEAP_INIT_H

#include <symheap/defs.h>

SYMH_BEGIN_C_DECLS

/* Thread levels of symh_init_thread; they map onto MPI's thread levels. */
enum {
    SYMH_THREAD_SINGLE = 0,
    SYMH_THREAD_FUNNELED = 1,
    SYMH_THREAD_SERIALIZED = 2,
    SYMH_THREAD_MULTIPLE = 3
};

/* Bytes of the buffer symh_info_get_name writes, NUL included. */
#define SYMH_MAX_NAME_LEN 64

/* Collective. Starts MPI (MPI_Init_thread) when the application has not. A second call while
 * initialized does nothing and returns SYMH_OK. */
SYMH_API int symh_init(void);
SYMH_API int symh_init_thread(int requested, int *provided);

/* Collective. MPI is finalized only if symh_init started it, and then only at process exit, so
 * that init, finalize, init again works in one process. */
SYMH_API void symh_finalize(void);

/* 1 between a successful symh_init and symh_finalize, else 0. */
SYMH_API int symh_initialized(void);

/* The thread level symh_init_thread provided (symh_init: SYMH_THREAD_SINGLE... as provided).
 * Before init or after finalize: logs one line, sets symh_last_error() and leaves *provided. */
SYMH_API void symh_query_thread(int *provided);

/* OpenSHMEM's profiling control: accepted at any level and ignored (symheap has no profiling
 * library interface to switch); it never fails. */
SYMH_API void symh_pcontrol(int level, ...);

/* This PE's number and the PE count; -1 before init. */
SYMH_API int symh_my_pe(void);
SYMH_API int symh_n_pes(void);

/* symheap addition: this PE's rank among the PEs of its node, and their count; -1 before init.
 * A node is the set of PEs sharing memory, or sharing SYMH_HOSTID when it is set. */
SYMH_API int symh_local_pe(void);
SYMH_API int symh_local_n_pes(void);

/* symheap addition: the transport that carries RMA from this PE to `pe`: "self", "ipc",
 * "ucx", "ofi", or "none" when no compiled-in transport reaches it; NULL before init or for a PE
 * out of range. */
SYMH_API const char *symh_pe_transport(int pe);

/* Ends every PE of the job with `status`. */
SYMH_API void symh_global_exit(int status);

SYMH_API void symh_info_get_version(int *major, int *minor);
/* Writes at most SYMH_MAX_NAME_LEN bytes, NUL included. */
SYMH_API void symh_info_get_name(char *name);

SYMH_END_C_DECLS

#endif /* SYMHEAP_INIT_H */
