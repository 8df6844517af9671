/* device: the HIP backend: VMM through hipMemCreate, hipMemAddressReserve, hipMemMap,
 * hipMemSetAccess and POSIX file descriptor handles, copies through hipMemcpy, fills through
 * hipMemset. Built when CMake finds hip/hip_runtime_api.h (Debian: libamdhip64-dev, HIP 5.2,
 * SYMH_HAVE_HIP); the declarations come from that header, the functions from
 * libamdhip64.so.5 opened with dlopen at symh_init, so symheap starts where the runtime library
 * or a GPU is absent. Not run on a GPU yet (docs/devices.md). */
#include "device/dev.h"

#include <symheap/status.h>

#ifndef SYMH_HAVE_HIP

#include <stdio.h>

int symh_dev_hip_built(void)
{
    return 0;
}

int symh_dev_hip_open(const symh_dev_ops_t **ops, int *count, char *why, size_t why_len)
{
    (void)ops;
    (void)count;
    snprintf(why, why_len, "symheap was built without HIP (hip/hip_runtime_api.h not found)");
    return SYMH_ERR_NO_DEVICE;
}

int symh_dev_hip_start(int count)
{
    (void)count;
    return SYMH_ERR_NO_DEVICE;
}

void symh_dev_hip_stop(void) {}

#else /* SYMH_HAVE_HIP */

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "core/core_log.h"

/* The SONAME of the HIP 5 runtime, whose ABI the HIP 5.2 headers describe (hipMemAllocationProp
 * changed layout in HIP 6, which is libamdhip64.so.6: never loaded by this build). */
#define SYMH_DEV_HIP_LIBRARY  "libamdhip64.so.5"

struct symh_dev_mem {
    hipMemGenericAllocationHandle_t handle;
    size_t size; /* 0 when imported: a handle does not tell its size */
};

/* Function pointers typed from the header's own declarations. */
#define SYMH_DEV_HIP_FN(name) __typeof__(name) *name##_
static struct {
    void *lib;
    int count;
    SYMH_DEV_HIP_FN(hipGetDeviceCount);
    SYMH_DEV_HIP_FN(hipGetErrorString);
    SYMH_DEV_HIP_FN(hipDeviceSynchronize);
    SYMH_DEV_HIP_FN(hipMemGetAllocationGranularity);
    SYMH_DEV_HIP_FN(hipMemAddressReserve);
    SYMH_DEV_HIP_FN(hipMemAddressFree);
    SYMH_DEV_HIP_FN(hipMemCreate);
    SYMH_DEV_HIP_FN(hipMemRelease);
    SYMH_DEV_HIP_FN(hipMemMap);
    SYMH_DEV_HIP_FN(hipMemSetAccess);
    SYMH_DEV_HIP_FN(hipMemUnmap);
    SYMH_DEV_HIP_FN(hipMemExportToShareableHandle);
    SYMH_DEV_HIP_FN(hipMemImportFromShareableHandle);
    SYMH_DEV_HIP_FN(hipMemcpy);
    SYMH_DEV_HIP_FN(hipMemset);
    SYMH_DEV_HIP_FN(hipPointerGetAttributes);
    SYMH_DEV_HIP_FN(hipGetDevice);
    SYMH_DEV_HIP_FN(hipSetDevice);
    SYMH_DEV_HIP_FN(hipMalloc);
    SYMH_DEV_HIP_FN(hipFree);
    SYMH_DEV_HIP_FN(hipMemGetAddressRange);
} symh_dev_hip;
#undef SYMH_DEV_HIP_FN

static const symh_dev_ops_t symh_dev_hip_ops;

int symh_dev_hip_built(void)
{
    return 1;
}

static const char *symh_dev_hip_strerror(hipError_t e)
{
    const char *text =
        symh_dev_hip.hipGetErrorString_ != NULL ? symh_dev_hip.hipGetErrorString_(e) : NULL;

    return text != NULL ? text : "unknown HIP error";
}

static int symh_dev_hip_fail(const char *call, hipError_t e)
{
    symh_error("%s failed: HIP error %d (%s)", call, (int)e, symh_dev_hip_strerror(e));
    switch (e) {
    case hipErrorOutOfMemory:
        return SYMH_ERR_NO_MEMORY;
    case hipErrorInvalidValue:
        return SYMH_ERR_INVALID_ARG;
    case hipErrorNotSupported:
        return SYMH_ERR_UNSUPPORTED;
    default:
        return SYMH_ERR_SYSTEM;
    }
}

static int symh_dev_hip_resolve(char *why, size_t why_len)
{
#define SYMH_DEV_HIP_SYM(name)                                                  \
    do {                                                                        \
        void *p_ = dlsym(symh_dev_hip.lib, #name);                              \
        if (p_ == NULL) {                                                       \
            snprintf(why, why_len, "%s lacks %s", SYMH_DEV_HIP_LIBRARY, #name); \
            return 0;                                                           \
        }                                                                       \
        memcpy(&symh_dev_hip.name##_, &p_, sizeof(p_));                         \
    } while (0)
    SYMH_DEV_HIP_SYM(hipGetDeviceCount);
    SYMH_DEV_HIP_SYM(hipGetErrorString);
    SYMH_DEV_HIP_SYM(hipDeviceSynchronize);
    SYMH_DEV_HIP_SYM(hipMemGetAllocationGranularity);
    SYMH_DEV_HIP_SYM(hipMemAddressReserve);
    SYMH_DEV_HIP_SYM(hipMemAddressFree);
    SYMH_DEV_HIP_SYM(hipMemCreate);
    SYMH_DEV_HIP_SYM(hipMemRelease);
    SYMH_DEV_HIP_SYM(hipMemMap);
    SYMH_DEV_HIP_SYM(hipMemSetAccess);
    SYMH_DEV_HIP_SYM(hipMemUnmap);
    SYMH_DEV_HIP_SYM(hipMemExportToShareableHandle);
    SYMH_DEV_HIP_SYM(hipMemImportFromShareableHandle);
    SYMH_DEV_HIP_SYM(hipMemcpy);
    SYMH_DEV_HIP_SYM(hipMemset);
    SYMH_DEV_HIP_SYM(hipPointerGetAttributes);
    SYMH_DEV_HIP_SYM(hipGetDevice);
    SYMH_DEV_HIP_SYM(hipSetDevice);
    SYMH_DEV_HIP_SYM(hipMalloc);
    SYMH_DEV_HIP_SYM(hipFree);
    SYMH_DEV_HIP_SYM(hipMemGetAddressRange);
#undef SYMH_DEV_HIP_SYM
    return 1;
}

static void symh_dev_hip_prop(int device, hipMemAllocationProp *prop)
{
    memset(prop, 0, sizeof(*prop));
    prop->type = hipMemAllocationTypePinned;
    prop->requestedHandleType = hipMemHandleTypePosixFileDescriptor;
    prop->location.type = hipMemLocationTypeDevice;
    prop->location.id = device;
}

int symh_dev_hip_open(const symh_dev_ops_t **ops, int *count, char *why, size_t why_len)
{
    hipError_t e;
    int n = 0, d;

    /* Without the AMD GPU driver's device node there is no device: the runtime is not even
     * loaded (its load-time allocations would only be leaks to the sanitizers). */
    if (access("/dev/kfd", F_OK) != 0) {
        snprintf(why, why_len, "no HIP device (/dev/kfd absent)");
        return SYMH_ERR_NO_DEVICE;
    }
    if (symh_dev_hip.lib == NULL) {
        symh_dev_hip.lib = dlopen(SYMH_DEV_HIP_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        if (symh_dev_hip.lib == NULL) {
            /* glibc keeps the message until dlerror is called twice: free it (LeakSanitizer). */
            (void)dlerror();
            (void)dlerror();
            snprintf(why, why_len, "no HIP runtime (%s not found)", SYMH_DEV_HIP_LIBRARY);
            return SYMH_ERR_NO_DEVICE;
        }
        if (!symh_dev_hip_resolve(why, why_len)) {
            dlclose(symh_dev_hip.lib);
            symh_dev_hip.lib = NULL;
            return SYMH_ERR_NO_DEVICE;
        }
    }
    /* Without a GPU (or without /dev/kfd) the runtime answers an error here, or 0 devices. */
    e = symh_dev_hip.hipGetDeviceCount_(&n);
    if (e != hipSuccess || n < 1) {
        if (e == hipSuccess || e == hipErrorNoDevice)
            snprintf(why, why_len, "no HIP device (the runtime reports none)");
        else
            snprintf(why, why_len,
                     "the HIP runtime does not start: hipGetDeviceCount: "
                     "HIP error %d (%s)",
                     (int)e, symh_dev_hip_strerror(e));
        return SYMH_ERR_NO_DEVICE;
    }
    /* HIP 5.2 has no VMM-support attribute: a granularity query stands for it. */
    for (d = 0; d < n; ++d) {
        hipMemAllocationProp prop;
        size_t g = 0;

        symh_dev_hip_prop(d, &prop);
        e = symh_dev_hip.hipMemGetAllocationGranularity_(&g, &prop,
                                                         hipMemAllocationGranularityMinimum);
        if (e != hipSuccess || g == 0) {
            snprintf(why, why_len, "HIP device %d lacks virtual memory management", d);
            return SYMH_ERR_NO_DEVICE;
        }
    }
    *ops = &symh_dev_hip_ops;
    *count = n;
    return SYMH_OK;
}

int symh_dev_hip_start(int count)
{
    symh_dev_hip.count = count;
    symh_debug("HIP backend: %d device(s) started", count);
    return SYMH_OK;
}

void symh_dev_hip_stop(void)
{
    symh_dev_hip.count = 0;
}

static size_t symh_dev_hip_granularity(int device, int recommended)
{
    hipMemAllocationProp prop;
    size_t g = 0;
    hipError_t e;

    symh_dev_hip_prop(device, &prop);
    e = symh_dev_hip.hipMemGetAllocationGranularity_(
        &g, &prop,
        recommended ? hipMemAllocationGranularityRecommended : hipMemAllocationGranularityMinimum);
    if (e != hipSuccess) {
        symh_dev_hip_fail("hipMemGetAllocationGranularity", e);
        return 0;
    }
    return g;
}

static int symh_dev_hip_reserve(size_t size, size_t alignment, void **va)
{
    void *p = NULL;
    hipError_t e = symh_dev_hip.hipMemAddressReserve_(&p, size, alignment, NULL, 0);

    if (e != hipSuccess)
        return symh_dev_hip_fail("hipMemAddressReserve", e);
    *va = p;
    return SYMH_OK;
}

static int symh_dev_hip_release(void *va, size_t size)
{
    hipError_t e = symh_dev_hip.hipMemAddressFree_(va, size);

    return e == hipSuccess ? SYMH_OK : symh_dev_hip_fail("hipMemAddressFree", e);
}

static int symh_dev_hip_mem_create(int device, size_t size, symh_dev_mem_t **mem)
{
    hipMemAllocationProp prop;
    symh_dev_mem_t *m = malloc(sizeof(*m));
    hipError_t e;

    if (m == NULL)
        return SYMH_ERR_NO_MEMORY;
    symh_dev_hip_prop(device, &prop);
    e = symh_dev_hip.hipMemCreate_(&m->handle, size, &prop, 0);
    if (e != hipSuccess) {
        free(m);
        return symh_dev_hip_fail("hipMemCreate", e);
    }
    m->size = size;
    *mem = m;
    return SYMH_OK;
}

static int symh_dev_hip_mem_release(symh_dev_mem_t *mem)
{
    hipError_t e = symh_dev_hip.hipMemRelease_(mem->handle);

    free(mem);
    return e == hipSuccess ? SYMH_OK : symh_dev_hip_fail("hipMemRelease", e);
}

static size_t symh_dev_hip_mem_size(const symh_dev_mem_t *mem)
{
    return mem->size;
}

/* hipMemCreate allocates the physical memory itself: nothing is left to allocate. */
static int symh_dev_hip_populate(symh_dev_mem_t *mem, char *why, size_t why_len)
{
    (void)mem;
    (void)why;
    (void)why_len;
    return SYMH_OK;
}

/* Every device of the backend gets the same access to a range. */
static int symh_dev_hip_access(void *va, size_t size, symh_dev_access_t access)
{
    hipMemAccessDesc *desc = calloc((size_t)symh_dev_hip.count, sizeof(*desc));
    hipMemAccessFlags flags = access == SYMH_DEV_ACCESS_READ_WRITE ? hipMemAccessFlagsProtReadWrite
                              : access == SYMH_DEV_ACCESS_READ     ? hipMemAccessFlagsProtRead
                                                                   : hipMemAccessFlagsProtNone;
    hipError_t e;
    int d;

    if (desc == NULL)
        return SYMH_ERR_NO_MEMORY;
    for (d = 0; d < symh_dev_hip.count; ++d) {
        desc[d].location.type = hipMemLocationTypeDevice;
        desc[d].location.id = d;
        desc[d].flags = flags;
    }
    e = symh_dev_hip.hipMemSetAccess_(va, size, desc, (size_t)symh_dev_hip.count);
    free(desc);
    return e == hipSuccess ? SYMH_OK : symh_dev_hip_fail("hipMemSetAccess", e);
}

static int symh_dev_hip_map(symh_dev_mem_t *mem, size_t offset, void *va, size_t size,
                            symh_dev_access_t access)
{
    hipError_t e;
    int status;

    if (size == 0 || (mem->size != 0 && (offset > mem->size || size > mem->size - offset))) {
        symh_error("map: [%zu, +%zu) is outside the %zu-byte memory object", offset, size,
                   mem->size);
        return SYMH_ERR_INVALID_ARG;
    }
    e = symh_dev_hip.hipMemMap_(va, size, offset, mem->handle, 0);
    if (e != hipSuccess)
        return symh_dev_hip_fail("hipMemMap", e);
    if (access == SYMH_DEV_ACCESS_NONE)
        return SYMH_OK;
    status = symh_dev_hip_access(va, size, access);
    if (status != SYMH_OK)
        symh_dev_hip.hipMemUnmap_(va, size);
    return status;
}

static int symh_dev_hip_unmap(void *va, size_t size)
{
    hipError_t e = symh_dev_hip.hipMemUnmap_(va, size);

    return e == hipSuccess ? SYMH_OK : symh_dev_hip_fail("hipMemUnmap", e);
}

static int symh_dev_hip_export_fd(const symh_dev_mem_t *mem, int *fd)
{
    int value = -1;
    hipError_t e = symh_dev_hip.hipMemExportToShareableHandle_(
        &value, mem->handle, hipMemHandleTypePosixFileDescriptor, 0);

    if (e != hipSuccess)
        return symh_dev_hip_fail("hipMemExportToShareableHandle", e);
    *fd = value;
    return SYMH_OK;
}

static int symh_dev_hip_import_fd(int fd, symh_dev_mem_t **mem)
{
    symh_dev_mem_t *m = malloc(sizeof(*m));
    hipError_t e;

    if (m == NULL)
        return SYMH_ERR_NO_MEMORY;
    /* The POSIX fd goes by value in the pointer argument, as in CUDA. */
    e = symh_dev_hip.hipMemImportFromShareableHandle_(&m->handle, (void *)(intptr_t)fd,
                                                      hipMemHandleTypePosixFileDescriptor);
    if (e != hipSuccess) {
        free(m);
        return symh_dev_hip_fail("hipMemImportFromShareableHandle", e);
    }
    m->size = 0;
    *mem = m;
    return SYMH_OK;
}

/* 1 when the runtime knows `va` as device memory; host memory it does not know reads as 0. */
static int symh_dev_hip_is_device(const void *va)
{
    hipPointerAttribute_t attr;

    memset(&attr, 0, sizeof(attr));
    return symh_dev_hip.hipPointerGetAttributes_(&attr, va) == hipSuccess &&
           attr.memoryType == hipMemoryTypeDevice;
}

static int symh_dev_hip_fill(void *va, int byte, size_t size)
{
    hipError_t e;

    if (!symh_dev_hip_is_device(va)) {
        memset(va, byte, size);
        return SYMH_OK;
    }
    e = symh_dev_hip.hipMemset_(va, byte, size);
    if (e == hipSuccess)
        e = symh_dev_hip.hipDeviceSynchronize_(); /* complete on return */
    return e == hipSuccess ? SYMH_OK : symh_dev_hip_fail("hipMemset", e);
}

static int symh_dev_hip_copy(void *dst, const void *src, size_t size)
{
    hipError_t e;

    if (size == 0)
        return SYMH_OK;
    if (!symh_dev_hip_is_device(dst) && !symh_dev_hip_is_device(src)) {
        memmove(dst, src, size);
        return SYMH_OK;
    }
    e = symh_dev_hip.hipMemcpy_(dst, src, size, hipMemcpyDefault);
    if (e == hipSuccess)
        e = symh_dev_hip.hipDeviceSynchronize_();
    return e == hipSuccess ? SYMH_OK : symh_dev_hip_fail("hipMemcpy", e);
}

/* hipMalloc allocates on the calling thread's current device: `device` for the call, then the
 * previous one again. Pointers are aligned to at least 256 bytes; a larger alignment
 * over-allocates by it and rounds up (the free finds the start with hipMemGetAddressRange). */
#define SYMH_DEV_HIP_ALLOC_ALIGN 256

static int symh_dev_hip_alloc(int device, size_t size, size_t alignment, void **ptr)
{
    size_t extra = alignment > SYMH_DEV_HIP_ALLOC_ALIGN ? alignment : 0;
    int prev = 0;
    void *p = NULL;
    hipError_t e;

    if (size > SIZE_MAX - extra) {
        symh_error("symh_mr_allocate: device resource: cannot allocate %zu bytes aligned to %zu",
                   size, alignment);
        return SYMH_ERR_NO_MEMORY;
    }
    e = symh_dev_hip.hipGetDevice_(&prev);
    if (e == hipSuccess)
        e = symh_dev_hip.hipSetDevice_(device);
    if (e != hipSuccess)
        return symh_dev_hip_fail("hipSetDevice", e);
    e = symh_dev_hip.hipMalloc_(&p, size + extra);
    (void)symh_dev_hip.hipSetDevice_(prev);
    if (e != hipSuccess)
        return symh_dev_hip_fail("hipMalloc", e);
    if (extra != 0)
        p = (void *)(((uintptr_t)p + alignment - 1) & ~(uintptr_t)(alignment - 1));
    *ptr = p;
    return SYMH_OK;
}

static int symh_dev_hip_free(int device, void *ptr)
{
    hipDeviceptr_t base = NULL;
    size_t size = 0;
    hipError_t e;

    (void)device; /* hipFree frees on the allocation's own device */
    e = symh_dev_hip.hipMemGetAddressRange_(&base, &size, (hipDeviceptr_t)ptr);
    if (e == hipSuccess)
        e = symh_dev_hip.hipFree_((void *)base);
    return e == hipSuccess ? SYMH_OK : symh_dev_hip_fail("hipFree", e);
}

static const symh_dev_ops_t symh_dev_hip_ops = {
    .name = "hip",
    .granularity = symh_dev_hip_granularity,
    .reserve = symh_dev_hip_reserve,
    .release = symh_dev_hip_release,
    .mem_create = symh_dev_hip_mem_create,
    .mem_release = symh_dev_hip_mem_release,
    .mem_size = symh_dev_hip_mem_size,
    .populate = symh_dev_hip_populate,
    .map = symh_dev_hip_map,
    .set_access = symh_dev_hip_access,
    .unmap = symh_dev_hip_unmap,
    .export_fd = symh_dev_hip_export_fd,
    .import_fd = symh_dev_hip_import_fd,
    .fill = symh_dev_hip_fill,
    .copy = symh_dev_hip_copy,
    .alloc = symh_dev_hip_alloc,
    .free = symh_dev_hip_free,
};

#endif /* SYMH_HAVE_HIP */
