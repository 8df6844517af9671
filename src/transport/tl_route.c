/* transport: per-peer route selection (docs/design.md "Transports and routing"). */
#include "transport/tl_route.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symheap/init.h>

#include "bootstrap/boot.h"
#include "core/core_config.h"
#include "core/core_status.h"

/* Values of SYMH_TRANSPORT, in the order of its choices in the config table. */
enum { SYMH_TL_CHOICE_AUTO, SYMH_TL_CHOICE_IPC, SYMH_TL_CHOICE_UCX, SYMH_TL_CHOICE_OFI };
/* Values of SYMH_NIC, likewise. */
enum { SYMH_TL_NIC_AUTO, SYMH_TL_NIC_UCX, SYMH_TL_NIC_OFI };

uint8_t *symh_tl_routes;

const char *symh_tl_name(symh_tl_id_t id)
{
    return symh_tl_table[id].name;
}

char *symh_tl_nic_built(char *buf, size_t len)
{
    size_t used = 0;
    int id;

    buf[0] = '\0';
    for (id = 0; id < SYMH_TL_COUNT; ++id) {
        if (symh_tl_table[id].is_nic && symh_tl_table[id].built && used < len) {
            int n = snprintf(buf + used, len - used, "%s%s", used == 0 ? "" : " ",
                             symh_tl_table[id].name);

            used += n < 0 ? 0 : (size_t)n;
        }
    }
    return buf;
}

/* The first NIC transport built in, in the table's order; SYMH_TL_NONE when none is. */
static symh_tl_id_t symh_tl_first_nic(void)
{
    int id;

    for (id = 0; id < SYMH_TL_COUNT; ++id) {
        if (symh_tl_table[id].is_nic && symh_tl_table[id].built)
            return (symh_tl_id_t)id;
    }
    return SYMH_TL_NONE;
}

/* The NIC transport for remote peers and the transport for node-local peers, from the
 * configuration; SYMH_TL_NONE where nothing built in fits. */
static void symh_tl_route_plan(symh_tl_id_t *nic, symh_tl_id_t *local)
{
    int choice = symh_config_choice(SYMH_CFG_TRANSPORT);
    int nic_choice = symh_config_choice(SYMH_CFG_NIC);
    int no_mixed = symh_config_bool(SYMH_CFG_DISABLE_MIXED_IPC);

    if (choice == SYMH_TL_CHOICE_UCX || choice == SYMH_TL_CHOICE_OFI)
        *nic = choice == SYMH_TL_CHOICE_UCX ? SYMH_TL_UCX : SYMH_TL_OFI;
    else if (choice == SYMH_TL_CHOICE_AUTO && nic_choice != SYMH_TL_NIC_AUTO)
        *nic = nic_choice == SYMH_TL_NIC_UCX ? SYMH_TL_UCX : SYMH_TL_OFI;
    else if (choice == SYMH_TL_CHOICE_AUTO)
        *nic = symh_tl_first_nic();
    else
        *nic = SYMH_TL_NONE;
    /* Only SYMH_TRANSPORT=auto mixes IPC on the node with a NIC beyond it; ucx and ofi mean
     * "every peer through that NIC transport". */
    *local = (choice == SYMH_TL_CHOICE_IPC || (choice == SYMH_TL_CHOICE_AUTO && !no_mixed))
                 ? SYMH_TL_IPC
                 : *nic;
}

symh_tl_id_t symh_tl_route_nic(void)
{
    symh_tl_id_t nic, local;

    symh_tl_route_plan(&nic, &local);
    return nic;
}

int symh_tl_route_nic_needed(void)
{
    symh_tl_id_t nic, local;
    int n = symh_boot_info.n_pes, pe;

    symh_tl_route_plan(&nic, &local);
    if (nic == SYMH_TL_NONE || n < 2)
        return 0;
    if (local == nic) /* every peer of every PE goes through the NIC */
        return 1;
    for (pe = 1; pe < n; ++pe) { /* two nodes or more: some PE is remote to another */
        if (symh_boot_info.node_of_pe[pe] != symh_boot_info.node_of_pe[0])
            return 1;
    }
    return 0;
}

int symh_tl_route_check(char *msg, size_t msg_len)
{
    int choice = symh_config_choice(SYMH_CFG_TRANSPORT);
    int nic_choice = symh_config_choice(SYMH_CFG_NIC);
    int no_mixed = symh_config_bool(SYMH_CFG_DISABLE_MIXED_IPC);
    symh_tl_id_t nic, local;
    const char *nic_name = nic_choice == SYMH_TL_NIC_UCX ? "ucx" : "ofi";
    char built[64];

    symh_tl_route_plan(&nic, &local);
    symh_tl_nic_built(built, sizeof(built));
    /* SYMH_NIC names the NIC of the mixed routing; a forced transport must not say otherwise. */
    if (nic_choice != SYMH_TL_NIC_AUTO && choice == SYMH_TL_CHOICE_IPC) {
        snprintf(msg, msg_len,
                 "SYMH_NIC=%s contradicts SYMH_TRANSPORT=ipc (no NIC transport at all; "
                 "SYMH_TRANSPORT=auto SYMH_NIC=%s is IPC on the node and %s between nodes)",
                 nic_name, nic_name, nic_name);
        return SYMH_ERR_INVALID_ARG;
    }
    if (nic_choice != SYMH_TL_NIC_AUTO &&
        (choice == SYMH_TL_CHOICE_UCX || choice == SYMH_TL_CHOICE_OFI) &&
        strcmp(nic_name, symh_tl_name(nic)) != 0) {
        snprintf(msg, msg_len, "SYMH_NIC=%s contradicts SYMH_TRANSPORT=%s (every peer through %s)",
                 nic_name, symh_tl_name(nic), symh_tl_name(nic));
        return SYMH_ERR_INVALID_ARG;
    }
    if (nic_choice != SYMH_TL_NIC_AUTO && !symh_tl_table[nic].built) {
        snprintf(msg, msg_len, "SYMH_NIC=%s: this build has no %s transport (built in: ipc%s%s)",
                 nic_name, nic_name, built[0] ? " " : "", built);
        return SYMH_ERR_UNSUPPORTED;
    }
    if ((choice == SYMH_TL_CHOICE_UCX || choice == SYMH_TL_CHOICE_OFI) &&
        !symh_tl_table[nic].built) {
        snprintf(msg, msg_len,
                 "SYMH_TRANSPORT=%s: this build has no %s transport (built in: ipc%s%s)",
                 symh_tl_name(nic), symh_tl_name(nic), built[0] ? " " : "", built);
        return SYMH_ERR_UNSUPPORTED;
    }
    if (choice == SYMH_TL_CHOICE_IPC && no_mixed) {
        snprintf(msg, msg_len,
                 "SYMH_TRANSPORT=ipc contradicts SYMH_DISABLE_MIXED_IPC=1 "
                 "(node-local peers through a NIC transport)");
        return SYMH_ERR_INVALID_ARG;
    }
    return SYMH_OK;
}

int symh_tl_route_init(void)
{
    symh_tl_id_t nic, local;
    int pe;

    symh_tl_route_plan(&nic, &local);
    symh_tl_routes = malloc((size_t)symh_boot_info.n_pes);
    if (symh_tl_routes == NULL) {
        symh_error("symh_init: cannot allocate the route table of %d PEs", symh_boot_info.n_pes);
        return SYMH_ERR_NO_MEMORY;
    }
    for (pe = 0; pe < symh_boot_info.n_pes; ++pe) {
        if (pe == symh_boot_info.my_pe)
            symh_tl_routes[pe] = SYMH_TL_SELF;
        else
            symh_tl_routes[pe] = (uint8_t)(symh_boot_pe_is_local(pe) ? local : nic);
    }
    return SYMH_OK;
}

void symh_tl_route_fini(void)
{
    free(symh_tl_routes);
    symh_tl_routes = NULL;
}

symh_tl_id_t symh_tl_route_of(int pe)
{
    return (symh_tl_id_t)symh_tl_routes[pe];
}

const char *symh_pe_transport(int pe)
{
    SYMH_CHECK_INIT(symh_tl_routes != NULL, NULL);
    if (pe < 0 || pe >= symh_boot_info.n_pes) {
        symh_error("symh_pe_transport: PE %d is out of range [0, %d)", pe, symh_boot_info.n_pes);
        symh_status_set(SYMH_ERR_INVALID_ARG);
        return NULL;
    }
    symh_status_set(SYMH_OK);
    return symh_tl_name(symh_tl_route_of(pe));
}
