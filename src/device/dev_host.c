/* device: the host backend: memfd objects, PROT_NONE reservations, MAP_SHARED|MAP_FIXED
 * mappings and mprotect, so host memory takes the same VMM path as device memory. */
#include "device/dev.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <symheap/status.h>

#include "core/core_log.h"

const symh_dev_ops_t *symh_dev = &symh_dev_host_ops;
const symh_dev_ops_t *const symh_dev_host = &symh_dev_host_ops;

#define SYMH_DEV_HOST_RECOMMENDED ((size_t)2 << 20)

struct symh_dev_mem {
    int fd;
    size_t size;
};

/* errno to a status, logging the call and errno's text once. */
static int symh_dev_host_errno(const char *call)
{
    int err = errno;

    symh_error("%s failed: %s", call, strerror(err));
    return err == ENOMEM ? SYMH_ERR_NO_MEMORY : SYMH_ERR_SYSTEM;
}

static size_t symh_dev_host_granularity(int device, int recommended)
{
    (void)device;
    return recommended ? SYMH_DEV_HOST_RECOMMENDED : (size_t)sysconf(_SC_PAGESIZE);
}

static int symh_dev_host_prot(symh_dev_access_t access)
{
    switch (access) {
    case SYMH_DEV_ACCESS_READ:
        return PROT_READ;
    case SYMH_DEV_ACCESS_READ_WRITE:
        return PROT_READ | PROT_WRITE;
    default:
        return PROT_NONE;
    }
}

static int symh_dev_host_reserve(size_t size, size_t alignment, void **va)
{
    size_t page = symh_dev_host_granularity(0, 0), span;
    uintptr_t base, aligned;
    void *p;

    if (size == 0 || size % page != 0 || alignment < page || (alignment & (alignment - 1)) ||
        size > SIZE_MAX - alignment) {
        symh_error("reserve: size %zu / alignment %zu are not page multiples", size, alignment);
        return SYMH_ERR_INVALID_ARG;
    }
    /* Over-reserve by the alignment, then give back the unaligned head and the tail. */
    span = size + alignment - page;
    p = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return symh_dev_host_errno("mmap(PROT_NONE) of the reservation");
    base = (uintptr_t)p;
    aligned = (base + alignment - 1) & ~(uintptr_t)(alignment - 1);
    if (aligned > base)
        munmap(p, aligned - base);
    if (base + span > aligned + size)
        munmap((void *)(aligned + size), base + span - (aligned + size));
    *va = (void *)aligned;
    return SYMH_OK;
}

static int symh_dev_host_release(void *va, size_t size)
{
    if (munmap(va, size) != 0)
        return symh_dev_host_errno("munmap of the reservation");
    return SYMH_OK;
}

static int symh_dev_host_mem_create(int device, size_t size, symh_dev_mem_t **mem)
{
    symh_dev_mem_t *m;
    int status;

    (void)device;
    if (size == 0 || size % symh_dev_host_granularity(0, 0) != 0 || size > (size_t)INT64_MAX) {
        symh_error("memory object: size %zu is not a positive multiple of the page size", size);
        return SYMH_ERR_INVALID_ARG;
    }
    m = malloc(sizeof(*m));
    if (m == NULL)
        return SYMH_ERR_NO_MEMORY;
    m->size = size;
    m->fd = memfd_create("symheap", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (m->fd < 0) {
        status = symh_dev_host_errno("memfd_create");
        goto err_free;
    }
    if (ftruncate(m->fd, (off_t)size) != 0) {
        status = symh_dev_host_errno("ftruncate of the memory object");
        goto err_close;
    }
    /* Fixed size for life: no peer that imported it can shrink it under a mapping. */
    if (fcntl(m->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        status = symh_dev_host_errno("fcntl(F_ADD_SEALS)");
        goto err_close;
    }
    *mem = m;
    return SYMH_OK;

err_close:
    close(m->fd);
err_free:
    free(m);
    return status;
}

static int symh_dev_host_mem_release(symh_dev_mem_t *mem)
{
    /* A mapping holds its own reference to the file: closing ours frees nothing it uses. */
    close(mem->fd);
    free(mem);
    return SYMH_OK;
}

static size_t symh_dev_host_mem_size(const symh_dev_mem_t *mem)
{
    return mem->size;
}

static int symh_dev_host_unmap(void *va, size_t size)
{
    /* Replacing the mapping with a fresh PROT_NONE one keeps the range reserved. */
    void *p =
        mmap(va, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);

    if (p == MAP_FAILED)
        return symh_dev_host_errno("mmap(PROT_NONE) over an unmapped range");
    return SYMH_OK;
}

static int symh_dev_host_map(symh_dev_mem_t *mem, size_t offset, void *va, size_t size,
                             symh_dev_access_t access)
{
    void *p;

    if (size == 0 || offset > mem->size || size > mem->size - offset) {
        symh_error("map: [%zu, +%zu) is outside the %zu-byte memory object", offset, size,
                   mem->size);
        return SYMH_ERR_INVALID_ARG;
    }
    p = mmap(va, size, symh_dev_host_prot(access), MAP_SHARED | MAP_FIXED, mem->fd, (off_t)offset);
    if (p == MAP_FAILED)
        return symh_dev_host_errno("mmap(MAP_SHARED|MAP_FIXED)");
    /* A child of fork() gets no copy of this mapping (docs/heap.md "A child of fork"): it would
     * share the object with the job (the heap, the internal area's barrier flags, a peer's
     * window), and a child is no PE. mprotect keeps the flag; the PROT_NONE mapping that unmap
     * puts back is private and inaccessible, harmless to inherit. */
    if (madvise(va, size, MADV_DONTFORK) != 0) {
        int status = symh_dev_host_errno("madvise(MADV_DONTFORK)");

        symh_dev_host_unmap(va, size);
        return status;
    }
    return SYMH_OK;
}

static int symh_dev_host_set_access(void *va, size_t size, symh_dev_access_t access)
{
    if (mprotect(va, size, symh_dev_host_prot(access)) != 0)
        return symh_dev_host_errno("mprotect");
    return SYMH_OK;
}

static int symh_dev_host_export_fd(const symh_dev_mem_t *mem, int *fd)
{
    int copy = fcntl(mem->fd, F_DUPFD_CLOEXEC, 0);

    if (copy < 0)
        return symh_dev_host_errno("fcntl(F_DUPFD_CLOEXEC)");
    *fd = copy;
    return SYMH_OK;
}

static int symh_dev_host_import_fd(int fd, symh_dev_mem_t **mem)
{
    struct stat st;
    symh_dev_mem_t *m;

    if (fstat(fd, &st) != 0)
        return symh_dev_host_errno("fstat of an imported memory object");
    m = malloc(sizeof(*m));
    if (m == NULL)
        return SYMH_ERR_NO_MEMORY;
    m->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (m->fd < 0) {
        free(m);
        return symh_dev_host_errno("fcntl(F_DUPFD_CLOEXEC)");
    }
    m->size = (size_t)st.st_size;
    *mem = m;
    return SYMH_OK;
}

static int symh_dev_host_fill(void *va, int byte, size_t size)
{
    memset(va, byte, size);
    return SYMH_OK;
}

static int symh_dev_host_copy(void *dst, const void *src, size_t size)
{
    memmove(dst, src, size);
    return SYMH_OK;
}

static int symh_dev_host_alloc(int device, size_t size, size_t alignment, void **ptr)
{
    int ret;

    (void)device;
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    ret = posix_memalign(ptr, alignment, size);
    if (ret != 0) {
        symh_error("symh_mr_allocate: cannot allocate %zu bytes of host memory aligned to %zu: %s",
                   size, alignment, strerror(ret));
        return ret == ENOMEM ? SYMH_ERR_NO_MEMORY : SYMH_ERR_SYSTEM;
    }
    return SYMH_OK;
}

static int symh_dev_host_free(int device, void *ptr)
{
    (void)device;
    free(ptr);
    return SYMH_OK;
}

const symh_dev_ops_t symh_dev_host_ops = {
    .name = "host",
    .granularity = symh_dev_host_granularity,
    .reserve = symh_dev_host_reserve,
    .release = symh_dev_host_release,
    .mem_create = symh_dev_host_mem_create,
    .mem_release = symh_dev_host_mem_release,
    .mem_size = symh_dev_host_mem_size,
    .map = symh_dev_host_map,
    .set_access = symh_dev_host_set_access,
    .unmap = symh_dev_host_unmap,
    .export_fd = symh_dev_host_export_fd,
    .import_fd = symh_dev_host_import_fd,
    .fill = symh_dev_host_fill,
    .copy = symh_dev_host_copy,
    .alloc = symh_dev_host_alloc,
    .free = symh_dev_host_free,
};
