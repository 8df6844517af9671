/* tests/shim: the device backend's VMM primitives (src/device/dev.h) for the C++ tests. */
#ifndef SYMH_SHIM_DEV_H
#define SYMH_SHIM_DEV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct symh_dev_mem symh_shim_mem_t;

/* access: 0 none, 1 read, 2 read-write */
size_t symh_shim_dev_granularity(int recommended);
int symh_shim_dev_reserve(size_t size, size_t alignment, void **va);
int symh_shim_dev_release(void *va, size_t size);
int symh_shim_dev_mem_create(size_t size, symh_shim_mem_t **mem);
int symh_shim_dev_mem_release(symh_shim_mem_t *mem);
size_t symh_shim_dev_mem_size(const symh_shim_mem_t *mem);
int symh_shim_dev_map(symh_shim_mem_t *mem, size_t offset, void *va, size_t size, int access);
int symh_shim_dev_set_access(void *va, size_t size, int access);
int symh_shim_dev_unmap(void *va, size_t size);
int symh_shim_dev_export_fd(const symh_shim_mem_t *mem, int *fd);
int symh_shim_dev_import_fd(int fd, symh_shim_mem_t **mem);
int symh_shim_dev_fill(void *va, int byte, size_t size);
int symh_shim_dev_copy(void *dst, const void *src, size_t size);
/* Fill and copy through the active backend (symh_dev): right for host memory and for the
 * device memory of a GPU backend alike, so tests that touch what a device resource handed out
 * also run on a GPU (tests/gpu/run_cuda_checks.sh). */
int symh_shim_dev_active_fill(void *va, int byte, size_t size);
int symh_shim_dev_active_copy(void *dst, const void *src, size_t size);

/* A GPU backend pretended on the host, while symheap is initialized on the host backend: `on` 1
 * makes the active backend (symh_dev) a copy of the host backend's table named "pretend-gpu",
 * so that what symheap does differently for GPU memory (a device allocation is not mapped for
 * the NIC; a node-local copy of it goes through the backend) happens to host memory; `on` 0
 * brings the host backend back (symh_finalize does too). The device memory resources keep the
 * backend they were made with, so device allocations stay host memory. */
int symh_shim_dev_pretend_gpu(int on);
/* While symheap is initialized: a descriptor of the memory object behind this PE's symmetric
 * heap (the caller closes it) and the offset in it of `addr`, a heap address. Mapped after
 * symh_finalize, it shows what the heap held when finalize took the heap down. */
int symh_shim_dev_heap_export_fd(const void *addr, int *fd, size_t *offset);

#ifdef __cplusplus
}
#endif

#endif /* SYMH_SHIM_DEV_H */
