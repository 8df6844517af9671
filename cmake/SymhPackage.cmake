# Debian packages (`cpack -G DEB` in a build tree; README.md "Debian packages"): symheap
# (component runtime: libsymheap.so.N, libsymheap_fortran.so.N, symh_info,
# symh_functional_tests) and symheap-dev (component dev: headers, static libraries, the CMake
# and pkg-config files, symhcc, symhfort, the Fortran module, and oshcc/oshc++/oshrun in
# <libdir>/symheap/bin). The bin directory's OpenSHMEM tools (component osh_bindir) are left
# out: Debian's openmpi-bin owns /usr/bin/oshcc, oshCC and oshrun, which a package may not
# overwrite. Installed under /usr; tests/install/deb_test.sh builds, installs, uses and removes
# them.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME symheap)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "symheap developers <symheap-dev@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The libraries of the package itself, for dpkg-shlibdeps (symh_info needs libsymheap.so.N).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME symheap)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "symmetric-heap PGAS memory runtime (library and tools)
 symheap gives each MPI rank a symmetric heap that every other rank reads, writes and updates
 atomically, over load/store IPC on a node and UCX or libfabric beyond it; OpenSHMEM 1.5 on top.")
# libfabric is opened at run time (dlopen), so shlibdeps cannot see it.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "libfabric1, openmpi-bin")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME symheap-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "symheap (= ${PROJECT_VERSION}), libopenmpi-dev")
set(CPACK_DEBIAN_DEV_DESCRIPTION "symmetric-heap PGAS memory runtime (development files)
 Headers (<symheap.h>, OpenSHMEM's <shmem.h>), static libraries, CMake and pkg-config files,
 symhcc, and the OpenSHMEM tools oshcc, oshc++ and oshrun in
 ${CPACK_PACKAGING_INSTALL_PREFIX}/${SYMH_OSH_PKG_BINDIR} (beside Open MPI's own in /usr/bin:
 put that directory first on PATH to use symheap's).")
include(CPack)
