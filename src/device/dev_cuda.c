/* device: the CUDA backend: VMM through the driver API (cuMemCreate, cuMemAddressReserve,
 * cuMemMap, cuMemSetAccess, POSIX file descriptor handles), copies through cuMemcpy and fills
 * through cuMemsetD8. libcuda.so.1 is opened with dlopen at symh_init and every entry point
 * resolved with dlsym, so symheap builds without the toolkit (dev_cuda_api.h) and starts on a
 * machine without a driver; it is always built. Not run on a GPU yet (docs/devices.md). */
#include "device/dev.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <symheap/status.h>

#include "core/core_log.h"
#include "device/dev_cuda_api.h"

#define SYMH_DEV_CUDA_LIBRARY "libcuda.so.1"

struct symh_dev_mem {
    symh_cu_mem_handle_t handle;
    size_t size; /* 0 when imported: a handle does not tell its size */
    int device;
};

static struct {
    void *lib;
    int count; /* devices started, 0 when stopped */
    atomic_uint generation;
    symh_cu_context_t *ctx;
    symh_cu_init_fn init;
    symh_cu_driver_get_version_fn driver_get_version;
    symh_cu_device_get_count_fn device_get_count;
    symh_cu_device_get_fn device_get;
    symh_cu_device_get_attribute_fn device_get_attribute;
    symh_cu_primary_ctx_retain_fn primary_ctx_retain;
    symh_cu_primary_ctx_release_fn primary_ctx_release;
    symh_cu_ctx_set_current_fn ctx_set_current;
    symh_cu_ctx_synchronize_fn ctx_synchronize;
    symh_cu_get_error_string_fn get_error_string;
    symh_cu_mem_get_allocation_granularity_fn mem_get_allocation_granularity;
    symh_cu_mem_address_reserve_fn mem_address_reserve;
    symh_cu_mem_address_free_fn mem_address_free;
    symh_cu_mem_create_fn mem_create;
    symh_cu_mem_release_fn mem_release;
    symh_cu_mem_map_fn mem_map;
    symh_cu_mem_set_access_fn mem_set_access;
    symh_cu_mem_unmap_fn mem_unmap;
    symh_cu_mem_export_fn mem_export;
    symh_cu_mem_import_fn mem_import;
    symh_cu_memcpy_fn memcpy_;
    symh_cu_memset_d8_fn memset_d8;
    symh_cu_pointer_get_attribute_fn pointer_get_attribute;
    symh_cu_mem_alloc_fn mem_alloc;
    symh_cu_mem_free_fn mem_free;
    symh_cu_mem_get_address_range_fn mem_get_address_range;
} symh_dev_cuda;

/* The generation whose context this thread made current. */
static _Thread_local unsigned symh_dev_cuda_tls_generation;

static const symh_dev_ops_t symh_dev_cuda_ops;

int symh_dev_cuda_built(void)
{
    return 1;
}

static const char *symh_dev_cuda_strerror(symh_cu_result_t r)
{
    const char *text = NULL;

    if (symh_dev_cuda.get_error_string == NULL ||
        symh_dev_cuda.get_error_string(r, &text) != SYMH_CU_SUCCESS || text == NULL)
        return "unknown CUDA error";
    return text;
}

/* A driver error to a status, logging the call once. */
static int symh_dev_cuda_fail(const char *call, symh_cu_result_t r)
{
    symh_error("%s failed: CUDA error %d (%s)", call, r, symh_dev_cuda_strerror(r));
    switch (r) {
    case SYMH_CU_ERROR_OUT_OF_MEMORY:
        return SYMH_ERR_NO_MEMORY;
    case SYMH_CU_ERROR_INVALID_VALUE:
        return SYMH_ERR_INVALID_ARG;
    case SYMH_CU_ERROR_NOT_SUPPORTED:
        return SYMH_ERR_UNSUPPORTED;
    default:
        return SYMH_ERR_SYSTEM;
    }
}

/* The driver's API is per thread: a thread that has not made device 0's primary context
 * current since the backend started does so before its first call. */
static int symh_dev_cuda_enter(void)
{
    unsigned generation = atomic_load(&symh_dev_cuda.generation);
    symh_cu_result_t r;

    if (symh_dev_cuda_tls_generation == generation)
        return SYMH_OK;
    if (symh_dev_cuda.count < 1) {
        symh_error("CUDA backend: used while not started");
        return SYMH_ERR_NOT_INITIALIZED;
    }
    r = symh_dev_cuda.ctx_set_current(symh_dev_cuda.ctx[0]);
    if (r != SYMH_CU_SUCCESS)
        return symh_dev_cuda_fail("cuCtxSetCurrent", r);
    symh_dev_cuda_tls_generation = generation;
    return SYMH_OK;
}

static void *symh_dev_cuda_sym(const char *name, char *why, size_t why_len)
{
    void *p = dlsym(symh_dev_cuda.lib, name);

    if (p == NULL)
        snprintf(why, why_len, "%s lacks %s (driver too old for VMM)", SYMH_DEV_CUDA_LIBRARY, name);
    return p;
}

/* Resolves every entry point; 0 with the reason in `why` on the first one missing. */
static int symh_dev_cuda_resolve(char *why, size_t why_len)
{
#define SYMH_DEV_CUDA_SYM(field, name)                    \
    do {                                                  \
        void *p_ = symh_dev_cuda_sym(name, why, why_len); \
        if (p_ == NULL)                                   \
            return 0;                                     \
        memcpy(&symh_dev_cuda.field, &p_, sizeof(p_));    \
    } while (0)
    SYMH_DEV_CUDA_SYM(init, "cuInit");
    SYMH_DEV_CUDA_SYM(driver_get_version, "cuDriverGetVersion");
    SYMH_DEV_CUDA_SYM(device_get_count, "cuDeviceGetCount");
    SYMH_DEV_CUDA_SYM(device_get, "cuDeviceGet");
    SYMH_DEV_CUDA_SYM(device_get_attribute, "cuDeviceGetAttribute");
    SYMH_DEV_CUDA_SYM(primary_ctx_retain, "cuDevicePrimaryCtxRetain");
    SYMH_DEV_CUDA_SYM(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2");
    SYMH_DEV_CUDA_SYM(ctx_set_current, "cuCtxSetCurrent");
    SYMH_DEV_CUDA_SYM(ctx_synchronize, "cuCtxSynchronize");
    SYMH_DEV_CUDA_SYM(get_error_string, "cuGetErrorString");
    SYMH_DEV_CUDA_SYM(mem_get_allocation_granularity, "cuMemGetAllocationGranularity");
    SYMH_DEV_CUDA_SYM(mem_address_reserve, "cuMemAddressReserve");
    SYMH_DEV_CUDA_SYM(mem_address_free, "cuMemAddressFree");
    SYMH_DEV_CUDA_SYM(mem_create, "cuMemCreate");
    SYMH_DEV_CUDA_SYM(mem_release, "cuMemRelease");
    SYMH_DEV_CUDA_SYM(mem_map, "cuMemMap");
    SYMH_DEV_CUDA_SYM(mem_set_access, "cuMemSetAccess");
    SYMH_DEV_CUDA_SYM(mem_unmap, "cuMemUnmap");
    SYMH_DEV_CUDA_SYM(mem_export, "cuMemExportToShareableHandle");
    SYMH_DEV_CUDA_SYM(mem_import, "cuMemImportFromShareableHandle");
    SYMH_DEV_CUDA_SYM(memcpy_, "cuMemcpy");
    SYMH_DEV_CUDA_SYM(memset_d8, "cuMemsetD8_v2");
    SYMH_DEV_CUDA_SYM(pointer_get_attribute, "cuPointerGetAttribute");
    SYMH_DEV_CUDA_SYM(mem_alloc, "cuMemAlloc_v2");
    SYMH_DEV_CUDA_SYM(mem_free, "cuMemFree_v2");
    SYMH_DEV_CUDA_SYM(mem_get_address_range, "cuMemGetAddressRange_v2");
#undef SYMH_DEV_CUDA_SYM
    return 1;
}

int symh_dev_cuda_open(const symh_dev_ops_t **ops, int *count, char *why, size_t why_len)
{
    symh_cu_result_t r;
    int n = 0, d, vmm, fd_ok;

    if (symh_dev_cuda.lib == NULL) {
        /* Kept open for the life of the process: unloading a driver is never worth it. */
        symh_dev_cuda.lib = dlopen(SYMH_DEV_CUDA_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        if (symh_dev_cuda.lib == NULL) {
            /* glibc keeps the message until dlerror is called twice: free it (LeakSanitizer). */
            (void)dlerror();
            (void)dlerror();
            snprintf(why, why_len, "no CUDA driver (%s not found)", SYMH_DEV_CUDA_LIBRARY);
            return SYMH_ERR_NO_DEVICE;
        }
        if (!symh_dev_cuda_resolve(why, why_len)) {
            dlclose(symh_dev_cuda.lib);
            symh_dev_cuda.lib = NULL;
            return SYMH_ERR_NO_DEVICE;
        }
    }
    r = symh_dev_cuda.init(0);
    if (r == SYMH_CU_SUCCESS)
        r = symh_dev_cuda.device_get_count(&n);
    if (r != SYMH_CU_SUCCESS || n < 1) {
        if (r == SYMH_CU_SUCCESS || r == SYMH_CU_ERROR_NO_DEVICE)
            snprintf(why, why_len, "no CUDA device (the driver reports none)");
        else
            snprintf(why, why_len,
                     "the CUDA driver does not start: cuInit/cuDeviceGetCount: "
                     "CUDA error %d (%s)",
                     r, symh_dev_cuda_strerror(r));
        return SYMH_ERR_NO_DEVICE;
    }
    for (d = 0; d < n; ++d) {
        symh_cu_device_t dev;

        vmm = fd_ok = 0;
        r = symh_dev_cuda.device_get(&dev, d);
        if (r == SYMH_CU_SUCCESS)
            r = symh_dev_cuda.device_get_attribute(
                &vmm, SYMH_CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
        if (r == SYMH_CU_SUCCESS)
            r = symh_dev_cuda.device_get_attribute(
                &fd_ok, SYMH_CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev);
        if (r != SYMH_CU_SUCCESS || !vmm || !fd_ok) {
            snprintf(why, why_len,
                     "CUDA device %d lacks virtual memory management or file descriptor handles",
                     d);
            return SYMH_ERR_NO_DEVICE;
        }
    }
    *ops = &symh_dev_cuda_ops;
    *count = n;
    return SYMH_OK;
}

int symh_dev_cuda_start(int count)
{
    symh_cu_result_t r = SYMH_CU_SUCCESS;
    int d;

    symh_dev_cuda.ctx = calloc((size_t)count, sizeof(*symh_dev_cuda.ctx));
    if (symh_dev_cuda.ctx == NULL)
        return SYMH_ERR_NO_MEMORY;
    for (d = 0; d < count && r == SYMH_CU_SUCCESS; ++d) {
        symh_cu_device_t dev;

        r = symh_dev_cuda.device_get(&dev, d);
        if (r == SYMH_CU_SUCCESS)
            r = symh_dev_cuda.primary_ctx_retain(&symh_dev_cuda.ctx[d], dev);
        if (r == SYMH_CU_SUCCESS)
            symh_dev_cuda.count = d + 1;
    }
    if (r != SYMH_CU_SUCCESS) {
        int status = symh_dev_cuda_fail("cuDevicePrimaryCtxRetain", r);

        symh_dev_cuda_stop();
        return status;
    }
    atomic_fetch_add(&symh_dev_cuda.generation, 1);
    symh_debug("CUDA backend: %d device(s) started", count);
    return SYMH_OK;
}

void symh_dev_cuda_stop(void)
{
    int d;

    for (d = 0; d < symh_dev_cuda.count; ++d) {
        symh_cu_device_t dev;

        if (symh_dev_cuda.device_get(&dev, d) == SYMH_CU_SUCCESS)
            symh_dev_cuda.primary_ctx_release(dev);
    }
    symh_dev_cuda.count = 0;
    atomic_fetch_add(&symh_dev_cuda.generation, 1);
    free(symh_dev_cuda.ctx);
    symh_dev_cuda.ctx = NULL;
}

static void symh_dev_cuda_prop(int device, symh_cu_mem_allocation_prop_t *prop)
{
    memset(prop, 0, sizeof(*prop));
    prop->type = SYMH_CU_MEM_ALLOCATION_TYPE_PINNED;
    prop->requestedHandleTypes = SYMH_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    prop->location.type = SYMH_CU_MEM_LOCATION_TYPE_DEVICE;
    prop->location.id = device;
}

static size_t symh_dev_cuda_granularity(int device, int recommended)
{
    symh_cu_mem_allocation_prop_t prop;
    size_t g = 0;
    symh_cu_result_t r;

    if (symh_dev_cuda_enter() != SYMH_OK)
        return 0;
    symh_dev_cuda_prop(device, &prop);
    r = symh_dev_cuda.mem_get_allocation_granularity(&g, &prop,
                                                     recommended
                                                         ? SYMH_CU_MEM_ALLOC_GRANULARITY_RECOMMENDED
                                                         : SYMH_CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (r != SYMH_CU_SUCCESS) {
        symh_dev_cuda_fail("cuMemGetAllocationGranularity", r);
        return 0;
    }
    return g;
}

static int symh_dev_cuda_reserve(size_t size, size_t alignment, void **va)
{
    symh_cu_deviceptr_t p = 0;
    symh_cu_result_t r;
    int status = symh_dev_cuda_enter();

    if (status != SYMH_OK)
        return status;
    r = symh_dev_cuda.mem_address_reserve(&p, size, alignment, 0, 0);
    if (r != SYMH_CU_SUCCESS)
        return symh_dev_cuda_fail("cuMemAddressReserve", r);
    *va = (void *)(uintptr_t)p;
    return SYMH_OK;
}

static int symh_dev_cuda_release(void *va, size_t size)
{
    symh_cu_result_t r;
    int status = symh_dev_cuda_enter();

    if (status != SYMH_OK)
        return status;
    r = symh_dev_cuda.mem_address_free((symh_cu_deviceptr_t)(uintptr_t)va, size);
    return r == SYMH_CU_SUCCESS ? SYMH_OK : symh_dev_cuda_fail("cuMemAddressFree", r);
}

static int symh_dev_cuda_mem_create(int device, size_t size, symh_dev_mem_t **mem)
{
    symh_cu_mem_allocation_prop_t prop;
    symh_dev_mem_t *m;
    symh_cu_result_t r;
    int status = symh_dev_cuda_enter();

    if (status != SYMH_OK)
        return status;
    m = malloc(sizeof(*m));
    if (m == NULL)
        return SYMH_ERR_NO_MEMORY;
    symh_dev_cuda_prop(device, &prop);
    r = symh_dev_cuda.mem_create(&m->handle, size, &prop, 0);
    if (r != SYMH_CU_SUCCESS) {
        free(m);
        return symh_dev_cuda_fail("cuMemCreate", r);
    }
    m->size = size;
    m->device = device;
    *mem = m;
    return SYMH_OK;
}

static int symh_dev_cuda_mem_release(symh_dev_mem_t *mem)
{
    symh_cu_result_t r = symh_dev_cuda.mem_release(mem->handle);

    free(mem);
    return r == SYMH_CU_SUCCESS ? SYMH_OK : symh_dev_cuda_fail("cuMemRelease", r);
}

static size_t symh_dev_cuda_mem_size(const symh_dev_mem_t *mem)
{
    return mem->size;
}

/* cuMemCreate allocates the physical memory itself: nothing is left to allocate. */
static int symh_dev_cuda_populate(symh_dev_mem_t *mem, char *why, size_t why_len)
{
    (void)mem;
    (void)why;
    (void)why_len;
    return SYMH_OK;
}

/* Every device of the backend gets the same access to a range (a PE may use all its GPUs). */
static int symh_dev_cuda_access(void *va, size_t size, symh_dev_access_t access)
{
    symh_cu_mem_access_desc_t *desc;
    symh_cu_mem_access_flags_t flags =
        access == SYMH_DEV_ACCESS_READ_WRITE ? SYMH_CU_MEM_ACCESS_FLAGS_PROT_READWRITE
        : access == SYMH_DEV_ACCESS_READ     ? SYMH_CU_MEM_ACCESS_FLAGS_PROT_READ
                                             : SYMH_CU_MEM_ACCESS_FLAGS_PROT_NONE;
    symh_cu_result_t r;
    int d;

    desc = calloc((size_t)symh_dev_cuda.count, sizeof(*desc));
    if (desc == NULL)
        return SYMH_ERR_NO_MEMORY;
    for (d = 0; d < symh_dev_cuda.count; ++d) {
        desc[d].location.type = SYMH_CU_MEM_LOCATION_TYPE_DEVICE;
        desc[d].location.id = d;
        desc[d].flags = flags;
    }
    r = symh_dev_cuda.mem_set_access((symh_cu_deviceptr_t)(uintptr_t)va, size, desc,
                                     (size_t)symh_dev_cuda.count);
    free(desc);
    return r == SYMH_CU_SUCCESS ? SYMH_OK : symh_dev_cuda_fail("cuMemSetAccess", r);
}

static int symh_dev_cuda_map(symh_dev_mem_t *mem, size_t offset, void *va, size_t size,
                             symh_dev_access_t access)
{
    symh_cu_result_t r;
    int status = symh_dev_cuda_enter();

    if (status != SYMH_OK)
        return status;
    if (size == 0 || (mem->size != 0 && (offset > mem->size || size > mem->size - offset))) {
        symh_error("map: [%zu, +%zu) is outside the %zu-byte memory object", offset, size,
                   mem->size);
        return SYMH_ERR_INVALID_ARG;
    }
    /* The driver documents `offset` as "currently must be zero"; it says so if it refuses. */
    r = symh_dev_cuda.mem_map((symh_cu_deviceptr_t)(uintptr_t)va, size, offset, mem->handle, 0);
    if (r != SYMH_CU_SUCCESS)
        return symh_dev_cuda_fail("cuMemMap", r);
    if (access == SYMH_DEV_ACCESS_NONE)
        return SYMH_OK;
    status = symh_dev_cuda_access(va, size, access);
    if (status != SYMH_OK)
        symh_dev_cuda.mem_unmap((symh_cu_deviceptr_t)(uintptr_t)va, size);
    return status;
}

static int symh_dev_cuda_set_access(void *va, size_t size, symh_dev_access_t access)
{
    int status = symh_dev_cuda_enter();

    return status != SYMH_OK ? status : symh_dev_cuda_access(va, size, access);
}

static int symh_dev_cuda_unmap(void *va, size_t size)
{
    symh_cu_result_t r;
    int status = symh_dev_cuda_enter();

    if (status != SYMH_OK)
        return status;
    r = symh_dev_cuda.mem_unmap((symh_cu_deviceptr_t)(uintptr_t)va, size);
    return r == SYMH_CU_SUCCESS ? SYMH_OK : symh_dev_cuda_fail("cuMemUnmap", r);
}

static int symh_dev_cuda_export_fd(const symh_dev_mem_t *mem, int *fd)
{
    int value = -1;
    symh_cu_result_t r;
    int status = symh_dev_cuda_enter();

    if (status != SYMH_OK)
        return status;
    r = symh_dev_cuda.mem_export(&value, mem->handle, SYMH_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                                 0);
    if (r != SYMH_CU_SUCCESS)
        return symh_dev_cuda_fail("cuMemExportToShareableHandle", r);
    *fd = value;
    return SYMH_OK;
}

static int symh_dev_cuda_import_fd(int fd, symh_dev_mem_t **mem)
{
    symh_dev_mem_t *m;
    symh_cu_result_t r;
    int status = symh_dev_cuda_enter();

    if (status != SYMH_OK)
        return status;
    m = malloc(sizeof(*m));
    if (m == NULL)
        return SYMH_ERR_NO_MEMORY;
    /* The POSIX fd goes by value in the pointer argument, as the driver documents. */
    r = symh_dev_cuda.mem_import(&m->handle, (void *)(intptr_t)fd,
                                 SYMH_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    if (r != SYMH_CU_SUCCESS) {
        free(m);
        return symh_dev_cuda_fail("cuMemImportFromShareableHandle", r);
    }
    m->size = 0;
    m->device = -1;
    *mem = m;
    return SYMH_OK;
}

/* 1 when the driver knows `va` as device memory; host memory it does not know reads as 0. */
static int symh_dev_cuda_is_device(const void *va)
{
    unsigned int type = 0;

    return symh_dev_cuda.pointer_get_attribute(&type, SYMH_CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                               (symh_cu_deviceptr_t)(uintptr_t)va) ==
               SYMH_CU_SUCCESS &&
           type == SYMH_CU_MEMORYTYPE_DEVICE;
}

static int symh_dev_cuda_fill(void *va, int byte, size_t size)
{
    symh_cu_result_t r;
    int status = symh_dev_cuda_enter();

    if (status != SYMH_OK)
        return status;
    if (!symh_dev_cuda_is_device(va)) {
        memset(va, byte, size);
        return SYMH_OK;
    }
    r = symh_dev_cuda.memset_d8((symh_cu_deviceptr_t)(uintptr_t)va, (unsigned char)byte, size);
    if (r == SYMH_CU_SUCCESS)
        r = symh_dev_cuda.ctx_synchronize(); /* complete on return */
    return r == SYMH_CU_SUCCESS ? SYMH_OK : symh_dev_cuda_fail("cuMemsetD8", r);
}

static int symh_dev_cuda_copy(void *dst, const void *src, size_t size)
{
    symh_cu_result_t r;
    int status = symh_dev_cuda_enter();

    if (status != SYMH_OK)
        return status;
    if (size == 0)
        return SYMH_OK;
    if (!symh_dev_cuda_is_device(dst) && !symh_dev_cuda_is_device(src)) {
        memmove(dst, src, size);
        return SYMH_OK;
    }
    /* Unified addressing: the driver infers the direction from the addresses. */
    r = symh_dev_cuda.memcpy_((symh_cu_deviceptr_t)(uintptr_t)dst,
                              (symh_cu_deviceptr_t)(uintptr_t)src, size);
    if (r == SYMH_CU_SUCCESS)
        r = symh_dev_cuda.ctx_synchronize(); /* a device-to-device copy may be asynchronous */
    return r == SYMH_CU_SUCCESS ? SYMH_OK : symh_dev_cuda_fail("cuMemcpy", r);
}

/* cuMemAlloc allocates in the current context: `device`'s primary context for the call, then
 * device 0's again (what symh_dev_cuda_enter leaves current for every other call). */
static int symh_dev_cuda_on(int device)
{
    symh_cu_result_t r;
    int status = symh_dev_cuda_enter();

    if (status != SYMH_OK || device == 0)
        return status;
    if (device < 0 || device >= symh_dev_cuda.count) {
        symh_error("CUDA backend: device %d is not started (0 to %d)", device,
                   symh_dev_cuda.count - 1);
        return SYMH_ERR_NO_DEVICE;
    }
    r = symh_dev_cuda.ctx_set_current(symh_dev_cuda.ctx[device]);
    return r == SYMH_CU_SUCCESS ? SYMH_OK : symh_dev_cuda_fail("cuCtxSetCurrent", r);
}

static void symh_dev_cuda_off(int device)
{
    if (device != 0)
        (void)symh_dev_cuda.ctx_set_current(symh_dev_cuda.ctx[0]);
}

/* cuMemAlloc's pointers are aligned to at least 256 bytes; a larger alignment over-allocates by
 * it and rounds up (the free finds the allocation's start with cuMemGetAddressRange). */
#define SYMH_DEV_CUDA_ALLOC_ALIGN 256

static int symh_dev_cuda_alloc(int device, size_t size, size_t alignment, void **ptr)
{
    symh_cu_deviceptr_t p = 0;
    symh_cu_result_t r;
    size_t extra = alignment > SYMH_DEV_CUDA_ALLOC_ALIGN ? alignment : 0;
    int status;

    if (size > SIZE_MAX - extra) {
        symh_error("symh_mr_allocate: device resource: cannot allocate %zu bytes aligned to %zu",
                   size, alignment);
        return SYMH_ERR_NO_MEMORY;
    }
    status = symh_dev_cuda_on(device);
    if (status != SYMH_OK)
        return status;
    r = symh_dev_cuda.mem_alloc(&p, size + extra);
    symh_dev_cuda_off(device);
    if (r != SYMH_CU_SUCCESS)
        return symh_dev_cuda_fail("cuMemAlloc", r);
    if (extra != 0)
        p = (p + alignment - 1) & ~(symh_cu_deviceptr_t)(alignment - 1);
    *ptr = (void *)(uintptr_t)p;
    return SYMH_OK;
}

static int symh_dev_cuda_free(int device, void *ptr)
{
    symh_cu_deviceptr_t base = 0;
    symh_cu_result_t r;
    int status = symh_dev_cuda_on(device);

    if (status != SYMH_OK)
        return status;
    r = symh_dev_cuda.mem_get_address_range(&base, NULL, (symh_cu_deviceptr_t)(uintptr_t)ptr);
    if (r == SYMH_CU_SUCCESS)
        r = symh_dev_cuda.mem_free(base);
    symh_dev_cuda_off(device);
    return r == SYMH_CU_SUCCESS ? SYMH_OK : symh_dev_cuda_fail("cuMemFree", r);
}

static const symh_dev_ops_t symh_dev_cuda_ops = {
    .name = "cuda",
    .granularity = symh_dev_cuda_granularity,
    .reserve = symh_dev_cuda_reserve,
    .release = symh_dev_cuda_release,
    .mem_create = symh_dev_cuda_mem_create,
    .mem_release = symh_dev_cuda_mem_release,
    .mem_size = symh_dev_cuda_mem_size,
    .populate = symh_dev_cuda_populate,
    .map = symh_dev_cuda_map,
    .set_access = symh_dev_cuda_set_access,
    .unmap = symh_dev_cuda_unmap,
    .export_fd = symh_dev_cuda_export_fd,
    .import_fd = symh_dev_cuda_import_fd,
    .fill = symh_dev_cuda_fill,
    .copy = symh_dev_cuda_copy,
    .alloc = symh_dev_cuda_alloc,
    .free = symh_dev_cuda_free,
};
