# Test helpers: GoogleTest unit binaries and multi-PE binaries under mpiexec (docs/design.md "Testing").
find_package(GTest REQUIRED)

# Open MPI needs a flag to run more PEs than cores; other MPIs do not know the flag.
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE SYMH_MPIEXEC_VERSION
  ERROR_QUIET)
set(SYMH_MPIEXEC_OVERSUBSCRIBE "")
set(SYMH_MPI_TEST_ENV "")
if(SYMH_MPIEXEC_VERSION MATCHES "Open MPI|OpenRTE")
  set(SYMH_MPIEXEC_OVERSUBSCRIBE --oversubscribe)
  # Root is the rule in containers and CI; yielding keeps 8 PEs on 2 cores quick. pml ob1 is
  # the PML Debian's Open MPI ends up with here anyway (its openmpi-mca-params.conf excludes
  # ucx): naming it skips the probe of the others, which took 0.2 s of each 2-PE start (symh_hello:
  # 0.50 s, 0.29 s with it, means of 5) and, over some 700 starts, minutes of CI's 2 cores.
  # Where a site's Open MPI would choose another PML, the tests still check symheap alike: MPI is
  # its bootstrap, never its data path.
  set(SYMH_MPI_TEST_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_pml=ob1)
endif()
# The NIC transport SYMH_TRANSPORT=auto picks in this build (tests/mpi expected_route).
if(SYMH_UCX_BUILT)
  list(APPEND SYMH_MPI_TEST_ENV SYMHTEST_NIC=ucx)
elseif(SYMH_OFI_BUILT)
  list(APPEND SYMH_MPI_TEST_ENV SYMHTEST_NIC=ofi)
else()
  list(APPEND SYMH_MPI_TEST_ENV SYMHTEST_NIC=none)
endif()

# Sanitizer runtimes: MPI's own allocations at exit are not ours to report (the slow unwinder
# walks through MPI's frame-pointer-less code, so the suppressions can match its frames).
# use_tls=0: LeakSanitizer 14's tracer crashed (SEGV in ScanRangeForPointers) on a bogus TLS
# range of an exiting Open MPI thread in about half of the 8-PE heap runs; symheap keeps no
# pointers in thread-local storage, so skipping TLS as a root hides no leak of ours.
set(SYMH_SANITIZER_TEST_ENV
  "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0:use_tls=0"
  "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
  "ASAN_OPTIONS=detect_stack_use_after_return=0"
  "TSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/tsan.supp:halt_on_error=1:ignore_noninstrumented_modules=1")

# A GoogleTest binary whose GTEST_FILTER selects no test prints this line and exits 0; GoogleTest
# 1.12 (Debian 12) has no --gtest_fail_if_no_test_selected, so both helpers below make CTest fail
# such a run on the line (FAIL_REGULAR_EXPRESSION). A run whose selected tests all skip prints
# "N tests from M test suites ran." and still passes. [^0-9]*: under mpiexec GoogleTest writes
# to a terminal and colours the line (an escape sequence before the count).
set(SYMH_GTEST_NONE_SELECTED "\\[==========\\] [^0-9]*0 tests from 0 test suites ran\\.")

# symh_add_unit_test(NAME <name> SOURCES <files...> [LABELS <labels...>] [TIMEOUT <s>])
# A GoogleTest binary reaching C code only through tests/shim.
function(symh_add_unit_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE symh_shim GTest::gtest_main)
  symh_target_warnings(${T_NAME})
  add_test(NAME ${T_NAME} COMMAND ${T_NAME})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "unit;${T_LABELS}"
    ENVIRONMENT "${SYMH_SANITIZER_TEST_ENV}"
    FAIL_REGULAR_EXPRESSION "${SYMH_GTEST_NONE_SELECTED}")
endfunction()

# symh_add_mpi_test(NAME <name> TARGET <executable> [NP <counts...>] [SINGLETON]
#                   [ENVS <label:VAR=value,VAR=value ...>] [LABELS <labels...>] [TIMEOUT <s>])
# One CTest test per (PE count, environment): <name>.np<N>[.<label>], run as
# `mpiexec -n N [--oversubscribe] <executable>`. NP defaults to 1 2 4 8 (8 oversubscribes a
# 2-core machine). SINGLETON adds <name>.singleton, run without mpiexec (one PE). ENVS entries
# name an environment: "plain:" is the empty one, "node2:SYMHTEST_NODE_SIZE=2" splits the PEs
# into nodes of two (tests/mpi/mpi_test_main.cc turns it into per-PE SYMH_HOSTID values).
# MULTI_PE_ONLY patterns (GoogleTest filter syntax) name tests that need two PEs or more: the
# one-PE runs (np1, singleton) leave them out instead of letting them skip or pass vacuously.
function(symh_add_mpi_test)
  cmake_parse_arguments(T "SINGLETON" "NAME;TARGET;TIMEOUT" "NP;ENVS;LABELS;MULTI_PE_ONLY"
    ${ARGN})
  if(NOT T_NP)
    set(T_NP 1 2 4 8)
  endif()
  if(NOT T_ENVS)
    set(T_ENVS "plain:")
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  list(LENGTH T_ENVS n_envs)
  foreach(entry ${T_ENVS})
    string(FIND "${entry}" ":" colon)
    if(colon LESS 1)
      message(FATAL_ERROR "symh_add_mpi_test(${T_NAME}): ENVS entry '${entry}' is not label:VARS")
    endif()
    string(SUBSTRING "${entry}" 0 ${colon} label)
    math(EXPR start "${colon} + 1")
    string(SUBSTRING "${entry}" ${start} -1 vars)
    string(REPLACE "," ";" vars "${vars}")
    set(suffix "")
    if(n_envs GREATER 1)
      set(suffix ".${label}")
    endif()
    set(env ${SYMH_MPI_TEST_ENV} ${SYMH_SANITIZER_TEST_ENV} ${vars})
    set(env_one_pe ${env})
    if(T_MULTI_PE_ONLY)
      if("${vars}" MATCHES "GTEST_FILTER")
        message(FATAL_ERROR "symh_add_mpi_test(${T_NAME}): MULTI_PE_ONLY with a GTEST_FILTER")
      endif()
      string(REPLACE ";" ":" excluded "${T_MULTI_PE_ONLY}")
      list(APPEND env_one_pe "GTEST_FILTER=-${excluded}")
    endif()
    foreach(np ${T_NP})
      set(test ${T_NAME}.np${np}${suffix})
      add_test(NAME ${test} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np}
        ${SYMH_MPIEXEC_OVERSUBSCRIBE} ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${T_TARGET}>
        ${MPIEXEC_POSTFLAGS})
      if(np EQUAL 1)
        set(test_env ${env_one_pe})
      else()
        set(test_env ${env})
      endif()
      set_tests_properties(${test} PROPERTIES TIMEOUT ${T_TIMEOUT} PROCESSORS 2
        LABELS "mpi;np${np};${label};${T_LABELS}" ENVIRONMENT "${test_env}"
        FAIL_REGULAR_EXPRESSION "${SYMH_GTEST_NONE_SELECTED}")
    endforeach()
    if(T_SINGLETON)
      add_test(NAME ${T_NAME}.singleton${suffix} COMMAND ${T_TARGET})
      set_tests_properties(${T_NAME}.singleton${suffix} PROPERTIES TIMEOUT ${T_TIMEOUT}
        LABELS "mpi;singleton;${label};${T_LABELS}" ENVIRONMENT "${env_one_pe}"
        FAIL_REGULAR_EXPRESSION "${SYMH_GTEST_NONE_SELECTED}")
    endif()
  endforeach()
endfunction()
