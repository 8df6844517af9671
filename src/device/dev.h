/* device: the device backend ops table ("everything is VMM"): reserve a virtual range, create a
 * physical memory object, map it with an access mode, change access, unmap, release, export and
 * import a shareable handle, and the copies/fills the layers above must do through the backend
 * (the memory may be on a GPU). One table per backend; the host backend is dev_host.c. */
#ifndef SYMH_DEV_H
#define SYMH_DEV_H

#include <stddef.h>

typedef enum {
    SYMH_DEV_ACCESS_NONE,
    SYMH_DEV_ACCESS_READ,
    SYMH_DEV_ACCESS_READ_WRITE
} symh_dev_access_t;

/* A physical memory object; its layout is the backend's. */
typedef struct symh_dev_mem symh_dev_mem_t;

typedef struct {
    const char *name;
    /* Granularity of sizes, offsets and addresses: minimum (required) or recommended. */
    size_t (*granularity)(int device, int recommended);
    /* Reserves `size` bytes of address space, inaccessible and costing no memory, starting at a
     * multiple of `alignment` (a power of two, at least the minimum granularity). */
    int (*reserve)(size_t size, size_t alignment, void **va);
    /* Gives a reserved range back; every mapping inside it must be gone. */
    int (*release)(void *va, size_t size);
    /* A physical object of `size` bytes on `device`, fixed in size for its whole life. */
    int (*mem_create)(int device, size_t size, symh_dev_mem_t **mem);
    /* Drops this handle; mappings made from it keep the memory alive until they go. */
    int (*mem_release)(symh_dev_mem_t *mem);
    size_t (*mem_size)(const symh_dev_mem_t *mem);
    /* Allocates all of the object's memory now, so that touching it later cannot run out:
     * SYMH_OK, or SYMH_ERR_NO_MEMORY (the machine or the memory cgroup cannot hold it) or another
     * status, with the reason in `why`; nothing is logged (the caller chooses which PE speaks).
     * The process is not killed for it. */
    int (*populate)(symh_dev_mem_t *mem, char *why, size_t why_len);
    /* Maps [offset, offset + size) of `mem` at exactly `va`, inside a reservation. */
    int (*map)(symh_dev_mem_t *mem, size_t offset, void *va, size_t size, symh_dev_access_t access);
    int (*set_access)(void *va, size_t size, symh_dev_access_t access);
    /* Unmaps, keeping the range reserved. */
    int (*unmap)(void *va, size_t size);
    /* A handle another process can import (a file descriptor on the host; the caller closes
     * it), and its inverse. */
    int (*export_fd)(const symh_dev_mem_t *mem, int *fd);
    int (*import_fd)(int fd, symh_dev_mem_t **mem);
    /* Fills and copies of mapped memory, complete on return. */
    int (*fill)(void *va, int byte, size_t size);
    int (*copy)(void *dst, const void *src, size_t size);
    /* The device memory resource's allocations (symh_mr_device_create): `size` bytes of
     * `device`'s memory starting at a multiple of `alignment` (a power of two), and their free.
     * Host backend: host memory. GPU backends: the driver's ordinary device allocation
     * (cuMemAlloc, hipMalloc), over-allocated and rounded up for an alignment above 256 bytes.
     * Each logs its own failure once. */
    int (*alloc)(int device, size_t size, size_t alignment, void **ptr);
    int (*free)(int device, void *ptr);
} symh_dev_ops_t;

extern const symh_dev_ops_t symh_dev_host_ops;

/* The backend of device memory: device VMM objects (symh_physmem_create & co.) and device
 * allocations. The host backend until symh_init selects one (SYMH_DEVICE_BACKEND, see
 * dev_devices.c), and again after symh_finalize. */
extern const symh_dev_ops_t *symh_dev;

/* Always the host backend: the symmetric heap window and everything mapped into it stay host
 * memory whatever backend device memory uses (docs/api.md, memory placement). */
extern const symh_dev_ops_t *const symh_dev_host;

/* The GPU backends (dev_cuda.c, dev_hip.c). `open` loads the vendor library at run time
 * (dlopen; symheap never links it), initialises it and counts the devices: SYMH_OK with the
 * backend's ops and a count >= 1, or an error with the reason in `why` (library absent, no
 * device, no VMM support, HIP not built), never a crash. Nothing is logged. `start` prepares
 * `count` devices for use (CUDA: retains their primary contexts), `stop` undoes it. The library
 * stays loaded for the life of the process. `built` is 1 when the backend was compiled in. */
int symh_dev_cuda_open(const symh_dev_ops_t **ops, int *count, char *why, size_t why_len);
int symh_dev_cuda_start(int count);
void symh_dev_cuda_stop(void);
int symh_dev_cuda_built(void);
int symh_dev_hip_open(const symh_dev_ops_t **ops, int *count, char *why, size_t why_len);
int symh_dev_hip_start(int count);
void symh_dev_hip_stop(void);
int symh_dev_hip_built(void);

#endif /* SYMH_DEV_H */
