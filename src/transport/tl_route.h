/* transport: the route of each peer (which transport carries RMA to it), chosen once at init
 * from SYMH_TRANSPORT, SYMH_NIC, SYMH_DISABLE_MIXED_IPC, the node grouping and the transports built
 * in. */
#ifndef SYMH_TL_ROUTE_H
#define SYMH_TL_ROUTE_H

#include <stddef.h>

#include "transport/tl.h"

/* Whether SYMH_TRANSPORT, SYMH_NIC and SYMH_DISABLE_MIXED_IPC can be honoured by this build; on
 * failure `msg` says why (the caller decides which PE logs it). */
int symh_tl_route_check(char *msg, size_t msg_len);
/* Fills the route of every PE; symh_tl_route_check must have passed. */
int symh_tl_route_init(void);
void symh_tl_route_fini(void);
symh_tl_id_t symh_tl_route_of(int pe);
const char *symh_tl_name(symh_tl_id_t id);

/* The NIC transport of this job's plan (SYMH_TL_NONE when none fits), and whether any PE routes
 * to another through it (the same answer on every PE). */
symh_tl_id_t symh_tl_route_nic(void);
int symh_tl_route_nic_needed(void);

/* The NIC transports compiled into this build, as a space-separated list ("" when none), into
 * buf (truncated to len - 1 characters); returns buf. */
char *symh_tl_nic_built(char *buf, size_t len);

#endif /* SYMH_TL_ROUTE_H */
