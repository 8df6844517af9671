/* registration: the one allocation registry of the process (heap, registered buffers, later
 * symmetric aliases, VMM mappings and device allocations), alive between init and finalize. */
#ifndef SYMH_REG_REGISTRY_H
#define SYMH_REG_REGISTRY_H

#include "registration/reg_map.h"

extern symh_reg_map_t *symh_reg_registry;

/* Creates the registry; the caller then records the memory it already has (the heap). */
int symh_reg_init(void);
void symh_reg_fini(void);

#endif /* SYMH_REG_REGISTRY_H */
