/* device: checks the private CUDA declarations (dev_cuda_api.h) against the real cuda.h at
 * compile time: every size, member offset and enum value the CUDA backend relies on. Compiled
 * with SYMH_HAVE_CUDA_H only where CMake finds cuda.h (never in CI, which has no toolkit);
 * elsewhere this file is empty. */
#include "device/dev_cuda_api.h"

#ifdef SYMH_HAVE_CUDA_H

#include <stddef.h>

#include <cuda.h>

#define SYMH_SAME_SIZE(a, b) _Static_assert(sizeof(a) == sizeof(b), "size of " #a " != " #b)
#define SYMH_SAME_OFFSET(a, b, m) \
    _Static_assert(offsetof(a, m) == offsetof(b, m), "offset of " #a "." #m)
#define SYMH_SAME_VALUE(a, b) _Static_assert((long long)(a) == (long long)(b), #a " != " #b)

_Static_assert(CUDA_VERSION >= 10020, "the VMM driver API needs CUDA 10.2 or later");

SYMH_SAME_SIZE(symh_cu_result_t, CUresult);
SYMH_SAME_SIZE(symh_cu_device_t, CUdevice);
SYMH_SAME_SIZE(symh_cu_context_t, CUcontext);
SYMH_SAME_SIZE(symh_cu_deviceptr_t, CUdeviceptr);
SYMH_SAME_SIZE(symh_cu_mem_handle_t, CUmemGenericAllocationHandle);

SYMH_SAME_VALUE(SYMH_CU_SUCCESS, CUDA_SUCCESS);
SYMH_SAME_VALUE(SYMH_CU_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE);
SYMH_SAME_VALUE(SYMH_CU_ERROR_OUT_OF_MEMORY, CUDA_ERROR_OUT_OF_MEMORY);
SYMH_SAME_VALUE(SYMH_CU_ERROR_NOT_INITIALIZED, CUDA_ERROR_NOT_INITIALIZED);
SYMH_SAME_VALUE(SYMH_CU_ERROR_NO_DEVICE, CUDA_ERROR_NO_DEVICE);
SYMH_SAME_VALUE(SYMH_CU_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_SUPPORTED);
SYMH_SAME_VALUE(SYMH_CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING,
                CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
SYMH_SAME_VALUE(SYMH_CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED);
SYMH_SAME_VALUE(SYMH_CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED);
SYMH_SAME_VALUE(SYMH_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
SYMH_SAME_VALUE(SYMH_CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_HOST);
SYMH_SAME_VALUE(SYMH_CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_DEVICE);

SYMH_SAME_SIZE(symh_cu_mem_allocation_type_t, CUmemAllocationType);
SYMH_SAME_VALUE(SYMH_CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_ALLOCATION_TYPE_PINNED);
SYMH_SAME_SIZE(symh_cu_mem_handle_type_t, CUmemAllocationHandleType);
SYMH_SAME_VALUE(SYMH_CU_MEM_HANDLE_TYPE_NONE, CU_MEM_HANDLE_TYPE_NONE);
SYMH_SAME_VALUE(SYMH_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
SYMH_SAME_SIZE(symh_cu_mem_location_type_t, CUmemLocationType);
SYMH_SAME_VALUE(SYMH_CU_MEM_LOCATION_TYPE_DEVICE, CU_MEM_LOCATION_TYPE_DEVICE);
SYMH_SAME_SIZE(symh_cu_mem_access_flags_t, CUmemAccess_flags);
SYMH_SAME_VALUE(SYMH_CU_MEM_ACCESS_FLAGS_PROT_NONE, CU_MEM_ACCESS_FLAGS_PROT_NONE);
SYMH_SAME_VALUE(SYMH_CU_MEM_ACCESS_FLAGS_PROT_READ, CU_MEM_ACCESS_FLAGS_PROT_READ);
SYMH_SAME_VALUE(SYMH_CU_MEM_ACCESS_FLAGS_PROT_READWRITE, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
SYMH_SAME_SIZE(symh_cu_mem_granularity_flags_t, CUmemAllocationGranularity_flags);
SYMH_SAME_VALUE(SYMH_CU_MEM_ALLOC_GRANULARITY_MINIMUM, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
SYMH_SAME_VALUE(SYMH_CU_MEM_ALLOC_GRANULARITY_RECOMMENDED, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);

SYMH_SAME_SIZE(symh_cu_mem_location_t, CUmemLocation);
SYMH_SAME_OFFSET(symh_cu_mem_location_t, CUmemLocation, type);
SYMH_SAME_OFFSET(symh_cu_mem_location_t, CUmemLocation, id);
SYMH_SAME_SIZE(symh_cu_mem_allocation_prop_t, CUmemAllocationProp);
SYMH_SAME_OFFSET(symh_cu_mem_allocation_prop_t, CUmemAllocationProp, type);
SYMH_SAME_OFFSET(symh_cu_mem_allocation_prop_t, CUmemAllocationProp, requestedHandleTypes);
SYMH_SAME_OFFSET(symh_cu_mem_allocation_prop_t, CUmemAllocationProp, location);
SYMH_SAME_OFFSET(symh_cu_mem_allocation_prop_t, CUmemAllocationProp, win32HandleMetaData);
SYMH_SAME_OFFSET(symh_cu_mem_allocation_prop_t, CUmemAllocationProp, allocFlags);
SYMH_SAME_SIZE(symh_cu_mem_access_desc_t, CUmemAccessDesc);
SYMH_SAME_OFFSET(symh_cu_mem_access_desc_t, CUmemAccessDesc, location);
SYMH_SAME_OFFSET(symh_cu_mem_access_desc_t, CUmemAccessDesc, flags);

/* The function pointer types are not compared: cuda.h returns the enum CUresult (unsigned
 * int underneath with gcc and clang), dev_cuda_api.h an int, the same in the ABI's registers
 * but not "compatible" types for C. Their parameters are the types checked above. */

#endif /* SYMH_HAVE_CUDA_H */

/* Keeps the translation unit non-empty without cuda.h. */
typedef int symh_dev_cuda_check_unit_t;
