# NIC transports (docs/transports.md). UCX is built when pkg-config finds `ucx` (Debian:
# libucx-dev), libfabric when it finds `libfabric` (Debian: libfabric-dev); each can be turned off.
# UCX is linked. libfabric is only compiled against: tl_ofi.c opens libfabric.so.1 at run time
# when the ofi transport starts (its PSM dependencies would otherwise hijack SIGABRT in every
# program linking symheap; see the top of tl_ofi.c).

find_package(PkgConfig QUIET)
option(SYMH_WITH_UCX "build the UCX transport when libucx-dev is found" ON)
option(SYMH_WITH_OFI "build the libfabric transport when libfabric-dev is found" ON)
set(SYMH_UCX_BUILT OFF)
set(SYMH_OFI_BUILT OFF)
if(PkgConfig_FOUND AND SYMH_WITH_UCX)
  pkg_check_modules(SYMH_UCX IMPORTED_TARGET ucx)
  if(SYMH_UCX_FOUND)
    set(SYMH_UCX_BUILT ON)
    file(GLOB SYMH_UCX_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/transport/ucx/*.c)
    list(APPEND SYMH_SOURCES ${SYMH_UCX_SOURCES})
  endif()
endif()
if(PkgConfig_FOUND AND SYMH_WITH_OFI)
  pkg_check_modules(SYMH_OFI IMPORTED_TARGET libfabric)
  if(SYMH_OFI_FOUND)
    set(SYMH_OFI_BUILT ON)
    file(GLOB SYMH_OFI_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/transport/ofi/*.c)
    list(APPEND SYMH_SOURCES ${SYMH_OFI_SOURCES})
  endif()
endif()
message(STATUS "symheap: NIC transports: ucx ${SYMH_UCX_BUILT}, ofi ${SYMH_OFI_BUILT}")

# Called after symheap_obj exists.
macro(symh_link_transports)
  if(SYMH_UCX_BUILT)
    target_compile_definitions(symheap_obj PUBLIC SYMH_HAVE_UCX)
    target_include_directories(symheap_obj PRIVATE ${SYMH_UCX_INCLUDE_DIRS})
  endif()
  if(SYMH_OFI_BUILT)
    target_compile_definitions(symheap_obj PUBLIC SYMH_HAVE_OFI)
    target_include_directories(symheap_obj PRIVATE ${SYMH_OFI_INCLUDE_DIRS})
    target_link_libraries(symheap_obj PUBLIC ${CMAKE_DL_LIBS})
  endif()
endmacro()

# The shared library links UCX privately; the static one passes it on to its users, by full
# library paths (not pkg-config's imported target, which an installed package could not name).
macro(symh_link_transport_libraries target scope)
  if(SYMH_UCX_BUILT)
    target_link_libraries(${target} ${scope} ${SYMH_UCX_LINK_LIBRARIES})
  endif()
endmacro()
