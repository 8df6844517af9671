/* registration: the one allocation registry of the process (heap, registered buffers, symmetric
 * aliases, VMM mappings and device allocations), alive between init and finalize. */
#ifndef SYMH_REG_REGISTRY_H
#define SYMH_REG_REGISTRY_H

#include "registration/reg_map.h"

extern symh_reg_map_t *symh_reg_registry;

/* How the active NIC transport maps registered buffers and device allocations for the local side
 * of its operations (installed by transport/tl_nic.c while one is up, NULL otherwise): map when
 * the buffer is recorded, the handle kept in the entry's tl_handles[0], unmap when it leaves. */
typedef struct {
    int (*map)(void *addr, size_t length, void **handle);
    void (*unmap)(void *handle);
} symh_reg_nic_hooks_t;

void symh_reg_set_nic_hooks(const symh_reg_nic_hooks_t *hooks);
const symh_reg_nic_hooks_t *symh_reg_get_nic_hooks(void);
/* Maps `entry` for the NIC when hooks are installed (its tl_handles[0]); SYMH_OK without hooks,
 * else the hook's status after one line naming `func`. */
int symh_reg_nic_map(const char *func, symh_reg_entry_t *entry);
/* Unmaps what symh_reg_nic_map made for `entry` (nothing when it made nothing). */
void symh_reg_nic_unmap(const symh_reg_entry_t *entry);

/* Creates the registry (nothing to do when it was brought up locally before: symh_init adopts
 * it); the caller then records the memory it already has (the heap). */
int symh_reg_init(void);
/* Brings the devices and the registry up locally (no symh_init, no MPI) unless they are up;
 * released at exit unless symh_init adopted them. SYMH_OK or the failed step's status. */
int symh_reg_ensure(void);

/* The public registry calls' entry: the registry comes up locally on first use; on failure the
 * status is recorded and the call returns retval. In a child of fork (core_status.h) the call
 * fails with the child's line: registering would reach the parent's NIC state. */
#define SYMH_REG_ENSURE(retval)                                              \
    do {                                                                     \
        if (__builtin_expect(symh_status_fork_pe >= 0, 0)) {                 \
            SYMH_LOG_NOT_INITIALIZED(__func__);                              \
            symh_status_set(SYMH_ERR_NOT_INITIALIZED);                       \
            return retval;                                                   \
        }                                                                    \
        if (__atomic_load_n(&symh_reg_registry, __ATOMIC_ACQUIRE) == NULL) { \
            int symh_ensure_status_ = symh_reg_ensure();                     \
            if (symh_ensure_status_ != SYMH_OK) {                            \
                symh_status_set(symh_ensure_status_);                        \
                return retval;                                               \
            }                                                                \
        }                                                                    \
    } while (0)
void symh_reg_fini(void);

#endif /* SYMH_REG_REGISTRY_H */
