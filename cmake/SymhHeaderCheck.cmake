# Every public header must compile alone, as C11 and as C++ (docs/conventions.md). One generated translation
# unit per header and language, built as part of `all`, so a header that is not self-contained
# breaks the build.

file(GLOB_RECURSE SYMH_PUBLIC_HEADERS RELATIVE ${PROJECT_SOURCE_DIR}/include
  ${PROJECT_SOURCE_DIR}/include/*.h)
list(APPEND SYMH_PUBLIC_HEADERS symheap/version.h)

set(SYMH_HEADER_CHECK_SOURCES)
foreach(header ${SYMH_PUBLIC_HEADERS})
  string(MAKE_C_IDENTIFIER ${header} id)
  foreach(ext c cc)
    set(src ${PROJECT_BINARY_DIR}/header_check/${id}.${ext})
    file(CONFIGURE OUTPUT ${src} CONTENT "/* generated: ${header} compiles alone */\n#include <${header}>\n#include <${header}> /* and twice */\nint symh_header_check_${id}_${ext}(void);\nint symh_header_check_${id}_${ext}(void) { return 0; }\n")
    list(APPEND SYMH_HEADER_CHECK_SOURCES ${src})
  endforeach()
endforeach()

add_library(symh_header_check OBJECT ${SYMH_HEADER_CHECK_SOURCES})
target_include_directories(symh_header_check PRIVATE ${PROJECT_SOURCE_DIR}/include
  ${PROJECT_BINARY_DIR}/include)
# <symheap_mpi.h> needs MPI's include path; C++ must not drag in MPI's C++ bindings.
target_link_libraries(symh_header_check PRIVATE MPI::MPI_C)
target_compile_definitions(symh_header_check PRIVATE OMPI_SKIP_MPICXX MPICH_SKIP_MPICXX)
target_compile_options(symh_header_check PRIVATE
  $<$<COMPILE_LANGUAGE:C>:-std=c11 -pedantic-errors>
  $<$<COMPILE_LANGUAGE:CXX>:-pedantic-errors>)
symh_target_warnings(symh_header_check)
