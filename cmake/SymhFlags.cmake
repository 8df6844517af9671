# Compiler warnings, sanitizers and the libFuzzer switch (options declared in CMakeLists.txt).

set(SYMH_C_WARNINGS -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
    -Wpointer-arith -Wformat=2)
set(SYMH_CXX_WARNINGS -Wall -Wextra -Wshadow)
# clang only: a variable that some path reads before any store (gcc's -Wmaybe-uninitialized is
# too noisy at -O2 and silent at -O0; this one caught symh_reg_map_insert returning an unset
# status on its common path).
if(CMAKE_C_COMPILER_ID MATCHES "Clang")
  list(APPEND SYMH_C_WARNINGS -Wconditional-uninitialized)
endif()
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  list(APPEND SYMH_CXX_WARNINGS -Wconditional-uninitialized)
endif()
if(SYMH_WERROR)
  list(APPEND SYMH_C_WARNINGS -Werror)
  list(APPEND SYMH_CXX_WARNINGS -Werror)
endif()

# Warnings for one of our targets (not for third-party code such as GoogleTest).
function(symh_target_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:${SYMH_C_WARNINGS}>
    $<$<COMPILE_LANGUAGE:CXX>:${SYMH_CXX_WARNINGS}>)
endfunction()

if(SYMH_SANITIZE)
  if(SYMH_SANITIZE MATCHES "thread" AND SYMH_SANITIZE MATCHES "address")
    message(FATAL_ERROR "SYMH_SANITIZE: thread cannot be combined with address")
  endif()
  set(SYMH_SANITIZE_FLAGS -fsanitize=${SYMH_SANITIZE} -fno-omit-frame-pointer -g)
  if(SYMH_SANITIZE MATCHES "undefined")
    list(APPEND SYMH_SANITIZE_FLAGS -fno-sanitize-recover=undefined)
  endif()
  add_compile_options(${SYMH_SANITIZE_FLAGS})
  add_link_options(-fsanitize=${SYMH_SANITIZE})
  message(STATUS "symheap: sanitizers ${SYMH_SANITIZE}")
endif()

# clang's sanitizer builds link some 60 test programs, each with the instrumented library and
# GoogleTest: LLVM's lld links one in 1.3 s where the default ld took 3.3 s (test_mpi_rma under
# ASan), about a minute of ./dev.sh test. Only where lld is installed (./dev.sh installs it), and
# only for C and C++ links (gfortran's are left alone).
if((SYMH_SANITIZE OR SYMH_FUZZ) AND CMAKE_C_COMPILER_ID MATCHES "Clang")
  find_program(SYMH_LLD ld.lld)
  if(SYMH_LLD)
    add_link_options($<$<LINK_LANGUAGE:C,CXX>:-fuse-ld=lld>)
  endif()
endif()

if(SYMH_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SYMH_FUZZ needs clang (configure with CC=clang CXX=clang++)")
  endif()
  # Every object gets coverage instrumentation; only fuzz targets link the libFuzzer main.
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>) # not gfortran's
endif()
