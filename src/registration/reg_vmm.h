/* registration: the VMM API's hooks for the runtime: finalize releases what the user left. */
#ifndef SYMH_REG_VMM_H
#define SYMH_REG_VMM_H

/* Unmaps every mapping the user left, releases every reservation and frees every physical object
 * the user did not destroy. Call before symh_reg_fini (it walks the registry). */
void symh_vmm_fini(void);

#endif /* SYMH_REG_VMM_H */
