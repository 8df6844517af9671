# Runs one example program (PROG) and compares its standard output with EXPECTED exactly; the
# standard error (symheap's log lines, with host and pid) is shown on failure but not compared.
# Usage: cmake -DPROG=<program> -DEXPECTED=<file> -P run_example.cmake
execute_process(COMMAND ${PROG} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(READ ${EXPECTED} expected)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROG} exited with ${rc}\n--- stdout\n${out}--- stderr\n${err}")
endif()
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "${PROG}: output differs from ${EXPECTED}\n--- expected\n${expected}"
    "--- got\n${out}--- stderr\n${err}")
endif()
message(STATUS "${PROG}: output as expected")
