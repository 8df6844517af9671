/* registration: the VMM API's hooks for the runtime: finalize releases what the user left. */
#ifndef SYMH_REG_VMM_H
#define SYMH_REG_VMM_H

#include <stddef.h>

#include "device/dev.h"

/* [offset, +size) of a backend physical object. */
typedef struct {
    symh_dev_mem_t *mem;
    size_t offset;
    size_t size;
} symh_vmm_piece_t;

/* The physical memory behind [addr, addr + length), one piece per VMM mapping it crosses, in
 * address order: SYMH_OK and *n pieces; SYMH_ERR_UNSUPPORTED when some byte of it is not in a
 * mapping made by the VMM API; SYMH_ERR_LIMIT past `max` pieces. The objects stay valid while
 * their mappings do (the caller maps or exports them at once). */
int symh_vmm_pieces(const void *addr, size_t length, symh_vmm_piece_t *pieces, int max, int *n);

/* Unmaps every mapping the user left, releases every reservation and frees every physical object
 * the user did not destroy. Call before symh_reg_fini (it walks the registry). */
void symh_vmm_fini(void);

#endif /* SYMH_REG_VMM_H */
