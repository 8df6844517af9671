/* registration: internals of the device allocator (reg_dev_alloc.c) shared with the other device
 * copies of this layer (reg_dev_transpose.c): the registry policy and the range check. */
#ifndef SYMH_REG_DEV_ALLOC_H
#define SYMH_REG_DEV_ALLOC_H

#include <stddef.h>

#include <symheap/device.h>

/* The policy in force: the one set by symh_registry_set_policy since symh_init, else
 * SYMH_REGISTRY. Cheap (one atomic load). */
symh_registry_policy_t symh_dev_alloc_policy(void);

/* Checks a copy's device range [ptr, ptr + nbytes) under the registry policy, as the copies do:
 * SYMH_OK when it lies in one device allocation (or is unknown to the registry under warn — one
 * warning logged — or the policy is off); else logs one line naming `func` and returns
 * SYMH_ERR_NOT_REGISTERED (aborts under error). nbytes == 0 is SYMH_OK. Outside init/finalize
 * it logs and returns SYMH_ERR_NOT_INITIALIZED. Does not set symh_last_error (the caller's
 * public call does). */
int symh_dev_alloc_check_copy(const char *func, const void *ptr, size_t nbytes);

/* symh_finalize's hook (and the exit of a program that never called symh_init), before the
 * registry goes: frees every live device allocation through its owning resource (one warning
 * naming `who` with their count and bytes when there were any), resets the statistics and
 * forgets a policy set by symh_registry_set_policy. */
void symh_dev_alloc_fini(const char *who);

#endif /* SYMH_REG_DEV_ALLOC_H */
