/* device: the part of the CUDA driver API (cuda.h) the CUDA backend uses, declared here so the
 * backend builds without the CUDA toolkit (Debian main has no cuda.h). Every name is the
 * driver's with a symh_cu_ / SYMH_CU_ prefix, so a file may include both this header and the
 * real cuda.h: dev_cuda_check.c does exactly that where cuda.h is found and checks every size,
 * offset and value below against it at compile time.
 *
 * Source: the CUDA Driver API reference and cuda.h of CUDA 11.x and 12.x (the VMM types have
 * been stable since CUDA 10.2: CUmemAllocationProp's last 8 bytes were `unsigned long long
 * reserved` in 10.2 and became the 8-byte `allocFlags` struct in 11.0, same size and offset).
 * x86-64 / aarch64 LP64 only: CUdeviceptr is `unsigned long long` there. */
#ifndef SYMH_DEV_CUDA_API_H
#define SYMH_DEV_CUDA_API_H

#include <stddef.h>

typedef int symh_cu_result_t;                     /* CUresult (enum cudaError_enum) */
typedef int symh_cu_device_t;                     /* CUdevice (CUdevice_v1) */
typedef struct symh_cu_ctx_st *symh_cu_context_t; /* CUcontext (struct CUctx_st *) */
typedef unsigned long long symh_cu_deviceptr_t;   /* CUdeviceptr (CUdeviceptr_v2, LP64) */
typedef unsigned long long symh_cu_mem_handle_t;  /* CUmemGenericAllocationHandle (_v1) */

/* CUresult values the backend tells apart. */
enum {
    SYMH_CU_SUCCESS = 0,               /* CUDA_SUCCESS */
    SYMH_CU_ERROR_INVALID_VALUE = 1,   /* CUDA_ERROR_INVALID_VALUE */
    SYMH_CU_ERROR_OUT_OF_MEMORY = 2,   /* CUDA_ERROR_OUT_OF_MEMORY */
    SYMH_CU_ERROR_NOT_INITIALIZED = 3, /* CUDA_ERROR_NOT_INITIALIZED */
    SYMH_CU_ERROR_NO_DEVICE = 100,     /* CUDA_ERROR_NO_DEVICE */
    SYMH_CU_ERROR_NOT_SUPPORTED = 801  /* CUDA_ERROR_NOT_SUPPORTED */
};

/* CUdevice_attribute values. */
enum {
    SYMH_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
    SYMH_CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102,
    SYMH_CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103
};

/* CUpointer_attribute and CUmemorytype values. */
enum {
    SYMH_CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2, /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE */
    SYMH_CU_MEMORYTYPE_HOST = 1,               /* CU_MEMORYTYPE_HOST */
    SYMH_CU_MEMORYTYPE_DEVICE = 2              /* CU_MEMORYTYPE_DEVICE */
};

/* enum CUmemAllocationType_enum */
typedef enum {
    SYMH_CU_MEM_ALLOCATION_TYPE_INVALID = 0x0,
    SYMH_CU_MEM_ALLOCATION_TYPE_PINNED = 0x1,
    SYMH_CU_MEM_ALLOCATION_TYPE_MAX = 0x7FFFFFFF
} symh_cu_mem_allocation_type_t;

/* enum CUmemAllocationHandleType_enum */
typedef enum {
    SYMH_CU_MEM_HANDLE_TYPE_NONE = 0x0,
    SYMH_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1,
    SYMH_CU_MEM_HANDLE_TYPE_WIN32 = 0x2,
    SYMH_CU_MEM_HANDLE_TYPE_WIN32_KMT = 0x4,
    SYMH_CU_MEM_HANDLE_TYPE_MAX = 0x7FFFFFFF
} symh_cu_mem_handle_type_t;

/* enum CUmemLocationType_enum */
typedef enum {
    SYMH_CU_MEM_LOCATION_TYPE_INVALID = 0x0,
    SYMH_CU_MEM_LOCATION_TYPE_DEVICE = 0x1,
    SYMH_CU_MEM_LOCATION_TYPE_MAX = 0x7FFFFFFF
} symh_cu_mem_location_type_t;

/* enum CUmemAccess_flags_enum */
typedef enum {
    SYMH_CU_MEM_ACCESS_FLAGS_PROT_NONE = 0x0,
    SYMH_CU_MEM_ACCESS_FLAGS_PROT_READ = 0x1,
    SYMH_CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3,
    SYMH_CU_MEM_ACCESS_FLAGS_PROT_MAX = 0x7FFFFFFF
} symh_cu_mem_access_flags_t;

/* enum CUmemAllocationGranularity_flags_enum */
typedef enum {
    SYMH_CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0,
    SYMH_CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 0x1
} symh_cu_mem_granularity_flags_t;

/* struct CUmemLocation_st (8 bytes) */
typedef struct {
    symh_cu_mem_location_type_t type;
    int id;
} symh_cu_mem_location_t;

/* struct CUmemAllocationProp_st (32 bytes on LP64) */
typedef struct {
    symh_cu_mem_allocation_type_t type;
    symh_cu_mem_handle_type_t requestedHandleTypes;
    symh_cu_mem_location_t location;
    void *win32HandleMetaData;
    struct {
        unsigned char compressionType;
        unsigned char gpuDirectRDMACapable;
        unsigned short usage;
        unsigned char reserved[4];
    } allocFlags;
} symh_cu_mem_allocation_prop_t;

/* struct CUmemAccessDesc_st (12 bytes) */
typedef struct {
    symh_cu_mem_location_t location;
    symh_cu_mem_access_flags_t flags;
} symh_cu_mem_access_desc_t;

/* The driver entry points, by the symbol libcuda.so.1 exports for them (cuda.h maps the API
 * name to a versioned symbol where one exists: cuMemsetD8 -> cuMemsetD8_v2,
 * cuDevicePrimaryCtxRelease -> cuDevicePrimaryCtxRelease_v2; the others are unversioned). */
typedef symh_cu_result_t (*symh_cu_init_fn)(unsigned int flags);
typedef symh_cu_result_t (*symh_cu_driver_get_version_fn)(int *version);
typedef symh_cu_result_t (*symh_cu_device_get_count_fn)(int *count);
typedef symh_cu_result_t (*symh_cu_device_get_fn)(symh_cu_device_t *device, int ordinal);
typedef symh_cu_result_t (*symh_cu_device_get_attribute_fn)(int *value, int attribute,
                                                            symh_cu_device_t device);
typedef symh_cu_result_t (*symh_cu_primary_ctx_retain_fn)(symh_cu_context_t *ctx,
                                                          symh_cu_device_t device);
typedef symh_cu_result_t (*symh_cu_primary_ctx_release_fn)(symh_cu_device_t device);
typedef symh_cu_result_t (*symh_cu_ctx_set_current_fn)(symh_cu_context_t ctx);
typedef symh_cu_result_t (*symh_cu_ctx_synchronize_fn)(void);
typedef symh_cu_result_t (*symh_cu_get_error_string_fn)(symh_cu_result_t error, const char **text);
typedef symh_cu_result_t (*symh_cu_mem_get_allocation_granularity_fn)(
    size_t *granularity, const symh_cu_mem_allocation_prop_t *prop,
    symh_cu_mem_granularity_flags_t option);
typedef symh_cu_result_t (*symh_cu_mem_address_reserve_fn)(symh_cu_deviceptr_t *ptr, size_t size,
                                                           size_t alignment,
                                                           symh_cu_deviceptr_t addr,
                                                           unsigned long long flags);
typedef symh_cu_result_t (*symh_cu_mem_address_free_fn)(symh_cu_deviceptr_t ptr, size_t size);
typedef symh_cu_result_t (*symh_cu_mem_create_fn)(symh_cu_mem_handle_t *handle, size_t size,
                                                  const symh_cu_mem_allocation_prop_t *prop,
                                                  unsigned long long flags);
typedef symh_cu_result_t (*symh_cu_mem_release_fn)(symh_cu_mem_handle_t handle);
typedef symh_cu_result_t (*symh_cu_mem_map_fn)(symh_cu_deviceptr_t ptr, size_t size, size_t offset,
                                               symh_cu_mem_handle_t handle,
                                               unsigned long long flags);
typedef symh_cu_result_t (*symh_cu_mem_set_access_fn)(symh_cu_deviceptr_t ptr, size_t size,
                                                      const symh_cu_mem_access_desc_t *desc,
                                                      size_t count);
typedef symh_cu_result_t (*symh_cu_mem_unmap_fn)(symh_cu_deviceptr_t ptr, size_t size);
typedef symh_cu_result_t (*symh_cu_mem_export_fn)(void *shareable, symh_cu_mem_handle_t handle,
                                                  symh_cu_mem_handle_type_t type,
                                                  unsigned long long flags);
typedef symh_cu_result_t (*symh_cu_mem_import_fn)(symh_cu_mem_handle_t *handle, void *os_handle,
                                                  symh_cu_mem_handle_type_t type);
typedef symh_cu_result_t (*symh_cu_memcpy_fn)(symh_cu_deviceptr_t dst, symh_cu_deviceptr_t src,
                                              size_t size);
typedef symh_cu_result_t (*symh_cu_memset_d8_fn)(symh_cu_deviceptr_t dst, unsigned char value,
                                                 size_t count);
typedef symh_cu_result_t (*symh_cu_pointer_get_attribute_fn)(void *data, int attribute,
                                                             symh_cu_deviceptr_t ptr);
/* cuMemAlloc_v2, cuMemFree_v2, cuMemGetAddressRange_v2 (either output may be NULL). */
typedef symh_cu_result_t (*symh_cu_mem_alloc_fn)(symh_cu_deviceptr_t *dptr, size_t size);
typedef symh_cu_result_t (*symh_cu_mem_free_fn)(symh_cu_deviceptr_t dptr);
typedef symh_cu_result_t (*symh_cu_mem_get_address_range_fn)(symh_cu_deviceptr_t *base,
                                                             size_t *size,
                                                             symh_cu_deviceptr_t dptr);

#endif /* SYMH_DEV_CUDA_API_H */
