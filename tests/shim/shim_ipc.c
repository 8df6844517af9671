/* tests/shim: the node-local IPC exchange's test hooks. */
#include "shim_ipc.h"

#include "transport/tl_ipc.h"

void symh_shim_ipc_set_next_name(const char *name)
{
    symh_tl_ipc_set_next_name(name);
}

const char *symh_shim_ipc_last_name(void)
{
    return symh_tl_ipc_last_name();
}
