/* symheap public header: devices (docs/devices.md):
 * how many there are, this thread's current device, and their kind. On the host backend
 * SYMH_HOST_DEVICES (default 1) host devices stand in for GPUs (docs/devices.md). */
#ifndef SYMHEAP_DEVICE_H
#define SYMHEAP_DEVICE_H

#include <symheap/defs.h>

#include <stddef.h>
#include <stdio.h>

SYMH_BEGIN_C_DECLS

typedef enum {
    SYMH_DEVICE_KIND_HOST,
    SYMH_DEVICE_KIND_HIP,
    SYMH_DEVICE_KIND_CUDA
} symh_device_kind_t;

/* Device arguments that are not an id: this thread's current device, or any device (skip the
 * device check, where a call says so). */
#define SYMH_DEVICE_CURRENT (-1)
#define SYMH_DEVICE_ANY     (-2)

/* Number of devices of this PE. No symh_init needed: the first device, resource, registry or
 * device allocator call of a program brings the devices up locally (no MPI) and symh_init adopts
 * them (docs/devices.md); -1 (and the status) when that fails. */
SYMH_API int symh_device_count(void);

/* This thread's current device: 0 for every thread after each symh_init, until the thread calls
 * symh_device_set. */
SYMH_API int symh_device_get(void);

/* Makes `device` (0 .. symh_device_count() - 1) this thread's current device.
 * SYMH_ERR_NO_DEVICE for any other value (SYMH_DEVICE_CURRENT and SYMH_DEVICE_ANY included), the
 * current device unchanged. */
SYMH_API int symh_device_set(int device);

/* The kind of `device` (an id, or SYMH_DEVICE_CURRENT). The enum has no error value: on failure
 * (bad id: SYMH_ERR_NO_DEVICE) it logs,
 * sets symh_last_error() and returns SYMH_DEVICE_KIND_HOST. */
SYMH_API symh_device_kind_t symh_device_kind(int device);

/* A copy between a device array and its transpose on the host, through host_buf
 * (docs/transpose-and-examples.md): arrays are column-major (first index fastest) of `rank` (2..7)
 * dimensions; lbounds[d]..ubounds[d] (inclusive) are the device array's bounds; the host array has
 * them with the dimensions ij (1-based; ignored for rank 2, which always swaps, and may be NULL
 * there) swapped; host_buf has the device array's shape. to_device != 0: transpose src (host) into
 * host_buf, then copy it to dst (device); to_device == 0: copy src (device) into host_buf, then
 * transpose it into dst (host). The device range is checked against the registry as for the other
 * copies. */
SYMH_API int symh_dev_memcpy_transposed(int to_device, int rank, size_t elem_size,
                                        const long *lbounds, const long *ubounds, const int ij[2],
                                        void *dst, const void *src, void *host_buf);

/* The device allocator (docs/dev-alloc.md). Every
 * allocation comes from the per-device memory resource of its device and is recorded in the
 * allocation registry with its bytes, device, label and owning resource; free and replace give
 * it back on that device through that resource. Misuse is handled by the registry policy. */
typedef struct {
    int device;             /* SYMH_DEVICE_CURRENT by default */
    const void *init_value; /* NULL: contents undefined */
    size_t init_size;       /* bytes of *init_value; nbytes must be a multiple of it */
    const char *label;      /* up to 32 characters, longer is truncated */
} symh_dev_alloc_opts_t;

/* Allocates nbytes (> 0) on opts->device (opts may be NULL: current device, no fill, no label)
 * and writes *ptr; a buffer *ptr held before leaks. */
SYMH_API int symh_dev_alloc(void **ptr, size_t nbytes, const symh_dev_alloc_opts_t *opts);
/* Frees what *ptr holds (if not NULL) where the registry recorded it, then allocates as
 * symh_dev_alloc. On a refused free nothing is allocated and *ptr is unchanged. */
SYMH_API int symh_dev_alloc_replace(void **ptr, size_t nbytes, const symh_dev_alloc_opts_t *opts);
/* Frees *ptr on its recorded device through its recorded resource and sets *ptr = NULL; a NULL
 * *ptr does nothing. `device` is checked against the recorded one (SYMH_ERR_DEVICE_MISMATCH);
 * SYMH_DEVICE_ANY skips the check. */
SYMH_API int symh_dev_free(void **ptr, int device); /* SYMH_DEVICE_ANY: skip the device check */
/* Copies nbytes from host src to the device range dst (or from the device range src to host
 * dst); the device range must lie in one device allocation (docs/dev-alloc.md). */
SYMH_API int symh_dev_memcpy_to_device(void *dst, const void *src, size_t nbytes);
SYMH_API int symh_dev_memcpy_from_device(void *dst, const void *src, size_t nbytes);
/* symh_dev_alloc_replace(dst, nbytes, NULL: current device, no label), then copies src in. */
SYMH_API int symh_dev_assign_to_device(void **dst, const void *src, size_t nbytes);
/* One line per live device allocation (address order), then a total line:
 *   symh live allocation: address=0x%016lx bytes=%zu device=%d label="%s"
 *   symh live allocations: %zu (%zu bytes) */
SYMH_API int symh_dev_alloc_report(FILE *out);
/* Live device allocations and their bytes on `device` (an id, SYMH_DEVICE_CURRENT, or
 * SYMH_DEVICE_ANY: all); either output may be NULL. */
SYMH_API int symh_dev_get_alloc_stats(int device, size_t *allocs, size_t *bytes);

/* The device allocation holding an address, as the registry recorded it. */
typedef struct {
    void *base;     /* start of the allocation; NULL when none holds the address */
    size_t nbytes;  /* its size in bytes */
    int device;     /* the device it was allocated on */
    char label[33]; /* its label (up to 32 characters), terminated */
} symh_dev_alloc_info_t;

/* Finds the device allocation holding ptr: SYMH_OK with *info when [ptr, ptr + nbytes) lies in
 * one (nbytes 0: ptr alone); SYMH_ERR_NOT_REGISTERED when no device allocation holds ptr
 * (info->base NULL) or the range runs past the end of the one that does (*info describes it).
 * Logs nothing and applies no registry policy: for a layer that applies the policy itself (the
 * Fortran module, docs/fortran.md). Works without symh_init, as the allocator does. */
SYMH_API int symh_dev_alloc_query(const void *ptr, size_t nbytes, symh_dev_alloc_info_t *info);

typedef enum { SYMH_REGISTRY_OFF, SYMH_REGISTRY_WARN, SYMH_REGISTRY_ERROR } symh_registry_policy_t;
/* The policy for misuse of the device allocator: SYMH_REGISTRY=off|warn|error, overridden by the
 * setter until symh_finalize (or the exit of a program that never calls symh_init: the
 * allocator needs no init, docs/dev-alloc.md). */
SYMH_API int symh_registry_set_policy(symh_registry_policy_t policy);
SYMH_API symh_registry_policy_t symh_registry_get_policy(void);

SYMH_END_C_DECLS

#endif /* SYMHEAP_DEVICE_H */
