/* tests/shim: start-up failures on purpose (src/core/core_fault.h) and the bootstrap agreement
 * (symh_boot_agree, src/bootstrap/boot.h) for the C++ tests. */
#ifndef SYMH_SHIM_FAULT_H
#define SYMH_SHIM_FAULT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Of the fault sites whose name starts with `prefix` ("ofi", "ucx", "nic", "boot", and
 * outside the start-up sweeps "amo" for the provider-capability site and "post" for a NIC
 * transport's post of an RMA or atomic), the first `skip` that this PE reaches pass and the next
 * fails once. NULL disarms. */
void symh_shim_fault_arm(const char *prefix, long skip);
/* The site that failed since the last arm, NULL when none has. */
const char *symh_shim_fault_fired(void);

/* Fills the next few KiB of stack below the caller with `value`, so that a status the next call
 * leaves unset reads back as that value instead of a lucky zero. */
void symh_shim_stack_stain(int value);

/* symh_boot_agree (valid while symheap is initialized). */
int symh_shim_boot_agree(int status, int *first_bad);

#ifdef __cplusplus
}
#endif

#endif /* SYMH_SHIM_FAULT_H */
