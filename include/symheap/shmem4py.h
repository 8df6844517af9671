/* symheap public header: what shmem4py, the Python bindings of OpenSHMEM, needs to build against
 * symheap's <shmem.h> (docs/python.md). Pass it ahead of shmem4py's C source:
 *
 *     CFLAGS="-include symheap/shmem4py.h"    (with oshcc, which puts <includedir> on the path)
 *
 * shmem4py tells OpenSHMEM implementations apart by their vendor macros (OSHMEM_MAJOR_VERSION,
 * OSHMPI_NUMVERSION, SOS's SHMEM_DEF_H, ...) and has no entry for symheap's SYMHEAP_NUMVERSION.
 * For an implementation it does not recognise, it assumes OpenSHMEM 1.4 and defines its own
 * static stand-ins for each 1.5 feature whose PySHMEM_HAVE_* macro is undefined (teams, the
 * team collectives, signals, non-blocking atomics, ...); those stand-ins carry the names of the
 * routines that <shmem.h> already defines, so the build fails with "redefinition of ...". symheap
 * implements the whole of OpenSHMEM 1.5, so this header defines every PySHMEM_HAVE_* macro that
 * shmem4py tests, and shmem4py then calls symheap's routines throughout.
 *
 * Macros only (no include, no declaration), so it may come before <shmem.h>; each is defined as
 * 1, the value shmem4py's own per-vendor configuration headers give, so that a shmem4py which
 * recognises symheap itself one day redefines them identically (no warning). */
#ifndef SYMHEAP_SHMEM4PY_H
#define SYMHEAP_SHMEM4PY_H

/* Memory management: shmem_malloc_with_hints and the SHMEM_MALLOC_* hints. */
#define PySHMEM_HAVE_shmem_malloc_with_hints 1
/* Teams: shmem_team_t, SHMEM_TEAM_*, shmem_team_* and shmem_ctx_get_team. */
#define PySHMEM_HAVE_shmem_team_t 1
/* Contexts: SHMEM_CTX_INVALID. */
#define PySHMEM_HAVE_SHMEM_CTX_INVALID 1
/* Non-blocking fetching atomics: shmem_TYPENAME_atomic_*_nbi and their ctx forms. */
#define PySHMEM_HAVE_shmem_amo_nbi 1
/* Signals: shmem_put_signal(_nbi), SHMEM_SIGNAL_*, shmem_signal_fetch, shmem_signal_wait_until. */
#define PySHMEM_HAVE_shmem_put_signal        1
#define PySHMEM_HAVE_shmem_signal_fetch      1
#define PySHMEM_HAVE_shmem_signal_wait_until 1
/* Team collectives, typed and untyped. */
#define PySHMEM_HAVE_shmem_broadcast    1
#define PySHMEM_HAVE_shmem_collect      1
#define PySHMEM_HAVE_shmem_fcollect     1
#define PySHMEM_HAVE_shmem_alltoall     1
#define PySHMEM_HAVE_shmem_alltoalls    1
#define PySHMEM_HAVE_shmem_broadcastmem 1
#define PySHMEM_HAVE_shmem_collectmem   1
#define PySHMEM_HAVE_shmem_fcollectmem  1
#define PySHMEM_HAVE_shmem_alltoallmem  1
#define PySHMEM_HAVE_shmem_alltoallsmem 1
/* Team reductions: shmem_TYPENAME_OP_reduce. */
#define PySHMEM_HAVE_shmem_reduce 1
/* Point-to-point synchronization on several variables: wait_until_all/any/some, test_*, and their
 * _vector forms. */
#define PySHMEM_HAVE_shmem_wait_test_many 1
/* Profiling: shmem_pcontrol. */
#define PySHMEM_HAVE_shmem_pcontrol 1

#endif /* SYMHEAP_SHMEM4PY_H */
