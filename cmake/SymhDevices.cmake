# Device backends (docs/devices.md "Backends"). The host backend is always built. The CUDA
# backend is always built too: it declares the driver API it uses itself
# (src/device/dev_cuda_api.h) and opens libcuda.so.1 at run time. The HIP backend is built when
# the HIP headers are found (Debian: libamdhip64-dev); it opens libamdhip64.so.5 at run time.
# Neither vendor library is ever linked.

option(SYMH_WITH_HIP "build the HIP backend when hip/hip_runtime_api.h is found" ON)
set(SYMH_HIP_BUILT OFF)
if(SYMH_WITH_HIP)
  find_path(SYMH_HIP_INCLUDE_DIR hip/hip_runtime_api.h
    HINTS ENV ROCM_PATH ENV HIP_PATH PATHS /opt/rocm PATH_SUFFIXES include)
  if(SYMH_HIP_INCLUDE_DIR)
    set(SYMH_HIP_BUILT ON)
    set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/device/dev_hip.c APPEND PROPERTY
      COMPILE_DEFINITIONS SYMH_HAVE_HIP __HIP_PLATFORM_AMD__)
    if(NOT SYMH_HIP_INCLUDE_DIR IN_LIST CMAKE_C_IMPLICIT_INCLUDE_DIRECTORIES)
      set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/device/dev_hip.c APPEND PROPERTY
        INCLUDE_DIRECTORIES ${SYMH_HIP_INCLUDE_DIR})
    endif()
  endif()
endif()
target_link_libraries(symheap_obj PUBLIC ${CMAKE_DL_LIBS})

# Where the real cuda.h exists, dev_cuda_check.c checks dev_cuda_api.h against it.
find_path(SYMH_CUDA_INCLUDE_DIR cuda.h
  HINTS ENV CUDA_HOME ENV CUDA_PATH PATHS /usr/local/cuda PATH_SUFFIXES include)
if(SYMH_CUDA_INCLUDE_DIR)
  set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/device/dev_cuda_check.c APPEND PROPERTY
    COMPILE_DEFINITIONS SYMH_HAVE_CUDA_H)
  set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/device/dev_cuda_check.c APPEND PROPERTY
    INCLUDE_DIRECTORIES ${SYMH_CUDA_INCLUDE_DIR})
endif()
set(SYMH_DEVICE_BACKENDS_BUILT "host cuda")
if(SYMH_HIP_BUILT)
  string(APPEND SYMH_DEVICE_BACKENDS_BUILT " hip")
endif()
message(STATUS "symheap: device backends ${SYMH_DEVICE_BACKENDS_BUILT}; cuda.h for the ABI "
  "check: ${SYMH_CUDA_INCLUDE_DIR}")
