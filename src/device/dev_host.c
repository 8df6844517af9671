/* device: the host backend: memfd objects, PROT_NONE reservations, MAP_SHARED|MAP_FIXED
 * mappings and mprotect, so host memory takes the same VMM path as device memory. */
#include "device/dev.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* populate: the kernel does not fail an allocation that a memory cgroup (or the machine) cannot
 * hold, it calls the OOM killer. Measured on Linux 6.18 in a cgroup v1 of 400 MiB with a 1 GiB
 * memfd: fallocate, madvise(MADV_POPULATE_WRITE), MAP_POPULATE and plain stores were all killed
 * with SIGKILL, none returned ENOMEM. So the memory is allocated by a helper process (fallocate of
 * the object's file, inherited), whose oom_score_adj of 1000 makes it the killer's first choice
 * over every PE: a helper killed is the answer "it does not fit", and shmem gives back the pages
 * of a fallocate that did not finish, so the failure leaves nothing charged. On success the pages
 * belong to the object (and are charged to the cgroup) until its last mapping and descriptor go.
 *
 * The helper is a raw clone with no exit signal: no atfork handler runs (other threads may hold
 * MPI's, UCX's or the sanitizers' locks; the child makes system calls only), and the
 * application's SIGCHLD handling (a handler, SIG_IGN's automatic reaping) never sees it. */
#define SYMH_DEV_HOST_OOM_ADJ "1000"

#if defined(__clang__) || __GNUC__ >= 8
__attribute__((no_sanitize("address", "thread")))
#endif
__attribute__((noreturn)) static void
symh_dev_host_populate_child(int fd, off_t size)
{
    long adj = syscall(SYS_openat, AT_FDCWD, "/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    long ret = -1;
    int tries;

    if (adj >= 0) {
        syscall(SYS_write, adj, SYMH_DEV_HOST_OOM_ADJ, sizeof(SYMH_DEV_HOST_OOM_ADJ) - 1);
        syscall(SYS_close, adj);
    }
    /* shmem's fallocate stops at any pending signal (EINTR) and may be called again. */
    for (tries = 0; tries < 100; ++tries) {
        ret = syscall(SYS_fallocate, fd, 0, (off_t)0, size);
        if (ret == 0 || errno != EINTR)
            break;
    }
    syscall(SYS_exit_group, ret == 0 ? 0 : errno > 0 && errno < 256 ? errno : 255);
    __builtin_unreachable();
}

static int symh_dev_host_populate(symh_dev_mem_t *mem, char *why, size_t why_len)
{
    long pid = syscall(SYS_clone, 0L, 0L, 0L, 0L, 0L);
    int wstatus = 0, err;

    if (pid == 0)
        symh_dev_host_populate_child(mem->fd, (off_t)mem->size); /* does not return */
    if (pid < 0) {
        snprintf(why, why_len, "cannot start the process that allocates it: clone: %s",
                 strerror(errno));
        return SYMH_ERR_SYSTEM;
    }
    while (waitpid((pid_t)pid, &wstatus, __WALL) < 0) {
        if (errno != EINTR) {
            snprintf(why, why_len, "waitpid of the process that allocates it: %s", strerror(errno));
            return SYMH_ERR_SYSTEM;
        }
    }
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
        return SYMH_OK;
    if (WIFEXITED(wstatus)) {
        err = WEXITSTATUS(wstatus);
        snprintf(why, why_len, "fallocate of its memory object failed: %s", strerror(err));
        return err == ENOMEM || err == ENOSPC ? SYMH_ERR_NO_MEMORY : SYMH_ERR_SYSTEM;
    }
    if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL) {
        snprintf(why, why_len,
                 "the kernel's out-of-memory killer ended the allocation (SIGKILL of the "
                 "allocating helper process)");
        return SYMH_ERR_NO_MEMORY;
    }
    snprintf(why, why_len, "the process that allocates it ended with status %#x", wstatus);
    return SYMH_ERR_SYSTEM;
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
    .populate = symh_dev_host_populate,
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
