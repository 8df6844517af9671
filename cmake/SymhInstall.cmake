# Installation: headers, libraries, CMake package, pkg-config file, symh_info, symhcc.
include(CMakePackageConfigHelpers)

set(SYMH_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/symheap
  CACHE STRING "where the symheap CMake package files go (relative to the prefix)")
mark_as_advanced(SYMH_INSTALL_CMAKEDIR)

# ---- headers ----------------------------------------------------------------------------------
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/symheap/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/symheap)

# ---- RPATHs -------------------------------------------------------------------------------------
# Installed programs find libsymheap next to them ($ORIGIN/../lib), wherever the prefix is moved.
# Link directories outside the system ones (an MPI under /opt or a module tree) are kept too, so
# nothing installed needs LD_LIBRARY_PATH.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}")
  set(SYMH_INSTALL_RPATH "${CMAKE_INSTALL_FULL_LIBDIR}")
else()
  file(RELATIVE_PATH SYMH_BIN_TO_LIB /p/${CMAKE_INSTALL_BINDIR} /p/${CMAKE_INSTALL_LIBDIR})
  set(SYMH_INSTALL_RPATH "$ORIGIN/${SYMH_BIN_TO_LIB}")
endif()
set_target_properties(symh_info PROPERTIES INSTALL_RPATH "${SYMH_INSTALL_RPATH}"
  INSTALL_RPATH_USE_LINK_PATH ON)
set_target_properties(symheap PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

# ---- libraries and programs -------------------------------------------------------------------
install(TARGETS symheap symheap_static EXPORT symheapTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS symh_info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# ---- CMake package: find_package(symheap) -> symheap::symheap, symheap::symheap_static --------
install(EXPORT symheapTargets NAMESPACE symheap:: DESTINATION ${SYMH_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/symheapConfig.cmake.in
  ${PROJECT_BINARY_DIR}/symheapConfig.cmake INSTALL_DESTINATION ${SYMH_INSTALL_CMAKEDIR})
# SameMajorVersion mirrors the library's SOVERSION (the major version).
write_basic_package_version_file(${PROJECT_BINARY_DIR}/symheapConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/symheapConfig.cmake
  ${PROJECT_BINARY_DIR}/symheapConfigVersion.cmake DESTINATION ${SYMH_INSTALL_CMAKEDIR})

# ---- pkg-config: symheap.pc -------------------------------------------------------------------
# <symheap_mpi.h> includes <mpi.h>, so `pkg-config --cflags symheap` must carry MPI's include
# path. MPI goes in Requires.private, not Requires: pkg-config merges the Cflags of both, but
# only Requires adds MPI's Libs to every `--libs`. libsymheap.so already records libmpi
# (DT_NEEDED), so a program that only calls symh_* links with -lsymheap alone; a program that
# calls MPI itself names MPI too (`pkg-config --libs symheap ompi-c`), as it would without us;
# `--static` brings MPI's libraries for libsymheap.a. The MPI module is the one whose Cflags
# point at the mpi.h we were built with (Debian's mpi-c.pc follows `update-alternatives` and may
# name another MPI than the one libsymheap.so is linked to).
set(SYMH_PC_REQUIRES_PRIVATE "")
set(SYMH_PC_MPI_CFLAGS "")
set(SYMH_PC_MPI_LIBS "")
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND AND MPI_C_HEADER_DIR)
  foreach(module ompi-c mpich mpi-c mpi)
    execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --cflags-only-I ${module}
      RESULT_VARIABLE ret OUTPUT_VARIABLE cflags ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    string(FIND " ${cflags} " " -I${MPI_C_HEADER_DIR} " at)
    if(ret EQUAL 0 AND at GREATER_EQUAL 0)
      set(SYMH_PC_REQUIRES_PRIVATE ${module})
      break()
    endif()
  endforeach()
endif()
if(NOT SYMH_PC_REQUIRES_PRIVATE)
  # No pkg-config module for our MPI: spell out its include path and libraries.
  foreach(dir ${MPI_C_INCLUDE_DIRS})
    if(NOT dir IN_LIST CMAKE_C_IMPLICIT_INCLUDE_DIRECTORIES)
      string(APPEND SYMH_PC_MPI_CFLAGS " -I${dir}")
    endif()
  endforeach()
  foreach(lib ${MPI_C_LIBRARIES})
    string(APPEND SYMH_PC_MPI_LIBS " ${lib}")
  endforeach()
endif()
# libsymheap.a needs UCX's libraries too (libfabric is opened at run time, never linked).
if(SYMH_UCX_BUILT)
  string(APPEND SYMH_PC_REQUIRES_PRIVATE " ucx")
endif()
message(STATUS "symheap: symheap.pc MPI dependency: "
  "${SYMH_PC_REQUIRES_PRIVATE}${SYMH_PC_MPI_CFLAGS}")

# Directories as the pkg-config file and symhcc both spell them: relative to ${prefix} (a shell
# and a pkg-config variable alike) unless configured absolute.
foreach(kind LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${kind}}")
    set(SYMH_PC_${kind} "${CMAKE_INSTALL_${kind}}")
  else()
    set(SYMH_PC_${kind} "\${prefix}/${CMAKE_INSTALL_${kind}}")
  endif()
endforeach()
# The prefix is only known at install time (`cmake --install --prefix P`), so configure the
# template now except @SYMH_PC_PREFIX@, and finish it while installing.
set(SYMH_PC_PREFIX "@SYMH_PC_PREFIX@")
configure_file(cmake/symheap.pc.in ${PROJECT_BINARY_DIR}/symheap.pc.in @ONLY)
install(CODE "
  set(SYMH_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/symheap.pc.in\" \"${PROJECT_BINARY_DIR}/symheap.pc\" @ONLY)
")
install(FILES ${PROJECT_BINARY_DIR}/symheap.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ---- symhcc: the compiler wrapper ---------------------------------------------------------------
# symhcc finds the prefix from its own location; it only needs the relative layout. With an
# absolute bin directory it cannot, and falls back to the configured prefix.
if(IS_ABSOLUTE "${CMAKE_INSTALL_BINDIR}")
  set(SYMHCC_PREFIX_FROM_BIN "")
else()
  file(RELATIVE_PATH SYMHCC_PREFIX_FROM_BIN /p/${CMAKE_INSTALL_BINDIR} /p)
endif()
set(SYMHCC_LIBDIR "${SYMH_PC_LIBDIR}")
set(SYMHCC_INCLUDEDIR "${SYMH_PC_INCLUDEDIR}")
configure_file(tools/symhcc.in ${PROJECT_BINARY_DIR}/symhcc @ONLY)
install(PROGRAMS ${PROJECT_BINARY_DIR}/symhcc DESTINATION ${CMAKE_INSTALL_BINDIR})
