/* symheap public header: the virtual memory (VMM) API: reserve address ranges, create physical
 * memory objects, map them with an access mode, change access, unmap, release (docs/vmm.md). */
#ifndef SYMHEAP_VMM_H
#define SYMHEAP_VMM_H

#include <stddef.h>

#include <symheap/defs.h>

SYMH_BEGIN_C_DECLS

typedef enum { SYMH_GRANULARITY_MINIMUM, SYMH_GRANULARITY_RECOMMENDED } symh_granularity_mode_t;
typedef enum { SYMH_ACCESS_NONE, SYMH_ACCESS_READ, SYMH_ACCESS_READ_WRITE } symh_access_mode_t;

/* A physical memory object: fixed size, on one device, mappable at several addresses. */
typedef struct symh_physmem symh_physmem_t;

/* Sizes, offsets and addresses given to the calls below must be multiples of the minimum
 * granularity (the page size on the host backend; 2 MiB is recommended there). Returns 0 and
 * sets the last error for an unknown device or mode, or before symh_init. */
SYMH_API size_t symh_vmm_granularity(int device, symh_granularity_mode_t mode);

/* Reserves `size` bytes of inaccessible address space costing no memory; *va receives its start.
 * `hint` NULL: any address; otherwise an aligned address the caller would like (advisory). */
SYMH_API int symh_vmm_reserve(size_t size, void *hint, void **va);

/* Gives back exactly one whole reservation; no mapping may remain inside it. */
SYMH_API int symh_vmm_release(void *va, size_t size);

/* A physical object of `size` bytes on `device`. */
SYMH_API int symh_physmem_create(int device, size_t size, symh_physmem_t **pm);

/* Drops the handle; live mappings keep the memory (and their view of it) until they go. */
SYMH_API int symh_physmem_destroy(symh_physmem_t *pm);

/* Size in bytes (0 for NULL) and device (-1 for NULL) of a physical object. */
SYMH_API size_t symh_physmem_size(const symh_physmem_t *pm);
SYMH_API int symh_physmem_device(const symh_physmem_t *pm);

/* Maps [offset, offset + size) of `pm` at exactly `va`, inside one reservation and over no other
 * mapping, with access `mode`; *mapped = va. One object may be mapped at several addresses; each
 * mapping sees the others' writes. */
SYMH_API int symh_physmem_map(symh_physmem_t *pm, void *va, size_t size, symh_access_mode_t mode,
                              size_t offset, void **mapped);

/* Sets / reads the access of a whole mapping or of a sub-range of one mapping. get_access refuses
 * a range whose pages have different modes. */
SYMH_API int symh_vmm_set_access(void *ptr, size_t size, symh_access_mode_t mode);
SYMH_API int symh_vmm_get_access(const void *ptr, size_t size, symh_access_mode_t *mode);

/* Unmaps one whole mapping, keeping the range reserved for a new mapping. */
SYMH_API int symh_vmm_unmap(void *ptr, size_t size);

SYMH_END_C_DECLS

#endif /* SYMHEAP_VMM_H */
