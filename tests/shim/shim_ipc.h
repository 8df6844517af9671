/* tests/shim: the node-local IPC exchange's test hooks (src/transport/tl_ipc.h). */
#ifndef SYMH_SHIM_IPC_H
#define SYMH_SHIM_IPC_H

#ifdef __cplusplus
extern "C" {
#endif

/* The abstract socket name (no leading NUL) this PE tries first at its next exchange (symh_init
 * or a symmetric registration), once; "" clears it. */
void symh_shim_ipc_set_next_name(const char *name);
/* The name this PE's last exchange bound ("" before the first). */
const char *symh_shim_ipc_last_name(void);

#ifdef __cplusplus
}
#endif

#endif /* SYMH_SHIM_IPC_H */
