/* symheap public header: the barrier of all PEs (docs/api.md, docs/rma.md "RMA, ordering,
 * synchronization"). */
#ifndef SYMHEAP_BARRIER_H
#define SYMHEAP_BARRIER_H

#include <symheap/defs.h>

SYMH_BEGIN_C_DECLS

/* Collective over all PEs. symh_barrier_all first completes this PE's outstanding RMA (quiet),
 * then waits until every PE has entered the barrier; symh_sync_all only waits. Both log one line
 * and set SYMH_ERR_NOT_INITIALIZED in symh_last_error() before init or after finalize. */
SYMH_API void symh_barrier_all(void);
SYMH_API void symh_sync_all(void);

SYMH_END_C_DECLS

#endif /* SYMHEAP_BARRIER_H */
