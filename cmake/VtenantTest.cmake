# vtenant_test(<name> LABEL unit|integration|e2e SOURCES ... [LIBS ...] [TIMEOUT s])
#
# Builds one GoogleTest binary and registers it with ctest under the given
# label, so `ctest -L unit` and friends select by kind.
function(vtenant_test name)
  cmake_parse_arguments(T "" "LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  if(NOT T_LABEL MATCHES "^(unit|integration|e2e)$")
    message(FATAL_ERROR "vtenant_test(${name}): LABEL must be unit, integration or e2e")
  endif()
  if(NOT T_TIMEOUT)
    if(T_LABEL STREQUAL "unit")
      set(T_TIMEOUT 120)
    else()
      set(T_TIMEOUT 900)
    endif()
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main GTest::gmock)
  add_test(NAME ${name} COMMAND ${name})
  vtenant_test_properties(${name} ${T_LABEL} ${T_TIMEOUT})
endfunction()

# vtenant_test_properties(<test> <label> <timeout s>)
#
# What every registered test gets: its label and timeout, where the source
# tree and the Kubernetes tools are, and (for a test that starts servers)
# a run of its own.
function(vtenant_test_properties name label timeout)
  set_tests_properties(${name} PROPERTIES LABELS ${label} TIMEOUT ${timeout}
    ENVIRONMENT "VTENANT_SOURCE_DIR=${PROJECT_SOURCE_DIR};VTENANT_TOOLS_BIN=${PROJECT_SOURCE_DIR}/.tools/bin")
  if(NOT label STREQUAL "unit")
    # Real API servers use ports and CPU; run them one at a time.
    set_tests_properties(${name} PROPERTIES RUN_SERIAL TRUE)
  endif()
endfunction()

# vtenant_tests(LABEL unit|integration|e2e [PREFIX p] NAMES n... [LIBS ...])
#
# One vtenant_test per name: <p><n>_test from <n>_test.cc, all under the
# same label and linked with the same libraries.
function(vtenant_tests)
  cmake_parse_arguments(T "" "LABEL;PREFIX" "NAMES;LIBS" ${ARGN})
  foreach(n ${T_NAMES})
    vtenant_test(${T_PREFIX}${n}_test LABEL ${T_LABEL} SOURCES ${n}_test.cc LIBS ${T_LIBS})
  endforeach()
endfunction()
