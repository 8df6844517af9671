/* transport: one atomic on a symmetric word, out of line, for the routines built on atomics
 * (the non-blocking fetching atomics, signals, locks). It takes the route of the public atomics
 * (tl_amo.c): a CPU atomic on the mapped word, or the ops table of the PE's route (and every
 * atomic through the NIC transport while one is active, so that all atomics on a word take one
 * path). */
#ifndef SYMH_TL_AMO_H
#define SYMH_TL_AMO_H

#include <stddef.h>

#include "transport/tl.h"
#include "transport/tl_rma.h"

/* `op` on the access->elem_size-byte (4 or 8) word at symmetric `addr` on `pe`, with the
 * operands `value` and `cond` (CSWAP) by address; the old value into `fetched` when it is not
 * NULL (written only on success), issued on the context's channel `chan` (NULL: the default
 * one; `pe` is the world's number). A refused access or a failed transport logs its line naming
 * access->func; the status is returned and recorded either way. */
int symh_tl_amo_word(const symh_tl_rma_access_t *access, symh_tl_chan_t *chan, symh_tl_amo_op_t op,
                     void *addr, const void *value, const void *cond, void *fetched, int pe);

#endif /* SYMH_TL_AMO_H */
