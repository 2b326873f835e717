# The CMake counterparts of the Bazel rules the generated tests/ and
# benchmarks/ CMakeLists.txt files call (tools/cmake/bazel_to_cmake.py writes
# those calls from the BUILD.bazel files).
#
#   timingwheel_cc_library(NAME t SRCS ... DEPS ... [TESTONLY] [BENCHMARK])
#   timingwheel_cc_binary(NAME t OUTPUT_NAME n SRCS ... DEPS ... [BENCHMARK])
#   timingwheel_cc_test(NAME t OUTPUT_NAME n TEST_NAME //pkg:n TIMEOUT s
#                       [LABELS ...] [RUN_SERIAL] [ENV K=V ...] [DATA t ...]
#                       SRCS ... DEPS ... [DEFINES ...] [COPTS ...])
#   timingwheel_sh_test(TEST_NAME //pkg:n SCRIPT path TIMEOUT s [ARGS ...]
#                       [DATA t ...] WORKING_DIRECTORY dir)
#   timingwheel_genrule(OUTPUT f DEPENDS ... COMMAND "shell command")
#
# Bazel runs a test with its runfiles tree as the working directory, where a
# built binary such as tests/durable/scheduler_process sits at its package
# path. Here every executable is written to the build folder of its package
# (RUNTIME_OUTPUT_DIRECTORY), and C++ tests run in ${PROJECT_BINARY_DIR}, so
# the same relative paths reach the same binaries.

include_guard(GLOBAL)

# timingwheel_project_warnings(TARGET): the warnings .bazelrc gives the
# project's own code (-Wall -Wextra, and -Werror with TIMINGWHEEL_WERROR).
function(timingwheel_project_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(TIMINGWHEEL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Sources generated in the build folder (the README's examples) get what
# Bazel gives them: -Wall -Werror and the rule's own copts, not -Wextra.
function(_timingwheel_generated_sources_warnings srcs)
  foreach(src IN LISTS srcs)
    if(src MATCHES "^${CMAKE_BINARY_DIR}/")
      set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS -Wno-extra)
    endif()
  endforeach()
endfunction()

# _timingwheel_test_copts(TARGET): TIMINGWHEEL_TEST_COPTS (CMakeLists.txt)
# on a target only tests use, after the build type's flags (so `-O1` there
# overrides Release's `-O3` for the tests alone).
function(_timingwheel_test_copts target)
  if(TIMINGWHEEL_TEST_COPTS)
    target_compile_options(${target} PRIVATE ${TIMINGWHEEL_TEST_COPTS})
  endif()
endfunction()

# _timingwheel_test_pch(TARGET): with TIMINGWHEEL_TEST_PCH, TARGET reuses
# one precompiled header of GoogleTest, the Abseil headers and the standard
# headers most tests include (made once, by the object library
# timingwheel_test_pch, with the tests' flags). Parsing those headers is
# about half of a test file's compile. A target whose flags differ from the
# tests' still builds: GCC ignores a precompiled header it cannot use and
# reads the headers themselves.
function(_timingwheel_test_pch target)
  if(NOT TIMINGWHEEL_TEST_PCH)
    return()
  endif()
  if(NOT TARGET timingwheel_test_pch)
    set(source ${PROJECT_BINARY_DIR}/timingwheel_test_pch.cc)
    if(NOT EXISTS ${source})
      file(WRITE ${source} "// The object library that makes the tests' precompiled header.\n")
    endif()
    add_library(timingwheel_test_pch OBJECT ${source})
    target_link_libraries(timingwheel_test_pch PRIVATE GTest::gtest absl::time
      absl::strings absl::status absl::statusor absl::synchronization)
    target_include_directories(timingwheel_test_pch PRIVATE ${PROJECT_SOURCE_DIR})
    target_precompile_headers(timingwheel_test_pch PRIVATE
      <algorithm> <atomic> <chrono> <cstdint> <map> <memory> <mutex> <string>
      <thread> <utility> <vector>
      <gtest/gtest.h> <absl/status/status.h> <absl/status/statusor.h>
      <absl/strings/str_cat.h> <absl/time/clock.h> <absl/time/time.h>)
    timingwheel_project_warnings(timingwheel_test_pch)
    _timingwheel_test_copts(timingwheel_test_pch)
  endif()
  target_precompile_headers(${target} REUSE_FROM timingwheel_test_pch)
endfunction()

function(timingwheel_cc_library)
  cmake_parse_arguments(A "TESTONLY;BENCHMARK" "NAME" "SRCS;DEPS;DEFINES;COPTS" ${ARGN})
  set(compiled ${A_SRCS})
  list(FILTER compiled INCLUDE REGEX "\\.cc$")
  if(compiled)
    add_library(${A_NAME} STATIC ${A_SRCS})
    target_link_libraries(${A_NAME} PUBLIC ${A_DEPS})
    target_include_directories(${A_NAME} PUBLIC ${PROJECT_SOURCE_DIR})
    target_compile_definitions(${A_NAME} PRIVATE ${A_DEFINES})
    target_compile_options(${A_NAME} PRIVATE ${A_COPTS})
    timingwheel_project_warnings(${A_NAME})
    if(A_TESTONLY)
      _timingwheel_test_copts(${A_NAME})
    endif()
  else()
    add_library(${A_NAME} INTERFACE)
    target_link_libraries(${A_NAME} INTERFACE ${A_DEPS})
    target_include_directories(${A_NAME} INTERFACE ${PROJECT_SOURCE_DIR})
  endif()
endfunction()

function(_timingwheel_executable name output_name)
  cmake_parse_arguments(A "" "" "SRCS;DEPS;DEFINES;COPTS" ${ARGN})
  add_executable(${name} ${A_SRCS})
  set_target_properties(${name} PROPERTIES
    OUTPUT_NAME ${output_name}
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  target_link_libraries(${name} PRIVATE ${A_DEPS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_definitions(${name} PRIVATE ${A_DEFINES})
  target_compile_options(${name} PRIVATE ${A_COPTS})
  timingwheel_project_warnings(${name})
  _timingwheel_generated_sources_warnings("${A_SRCS}")
endfunction()

function(timingwheel_cc_binary)
  cmake_parse_arguments(A "TESTONLY;BENCHMARK" "NAME;OUTPUT_NAME" "SRCS;DEPS;DEFINES;COPTS" ${ARGN})
  _timingwheel_executable(${A_NAME} ${A_OUTPUT_NAME} SRCS ${A_SRCS} DEPS ${A_DEPS}
    DEFINES ${A_DEFINES} COPTS ${A_COPTS})
  if(A_TESTONLY)
    _timingwheel_test_copts(${A_NAME})
  endif()
endfunction()

# _timingwheel_test_properties(TEST_NAME ...): timeout, labels, serial runs
# (Bazel's "exclusive"), environment, and the binaries the test runs. Like
# Bazel, every test gets a writable folder of its own in TEST_TMPDIR (made
# at configure time in the test's build folder, kept between runs).
function(_timingwheel_test_properties test_name timeout run_serial labels env data)
  set_tests_properties("${test_name}" PROPERTIES TIMEOUT ${timeout} LABELS "${labels}")
  if(run_serial)
    set_tests_properties("${test_name}" PROPERTIES RUN_SERIAL TRUE)
  endif()
  string(MAKE_C_IDENTIFIER "${test_name}" tmp_name)
  set(tmp_dir ${CMAKE_CURRENT_BINARY_DIR}/test_tmp/${tmp_name})
  file(MAKE_DIRECTORY ${tmp_dir})
  set_tests_properties("${test_name}" PROPERTIES ENVIRONMENT "TEST_TMPDIR=${tmp_dir}")
  if(env)
    set_property(TEST "${test_name}" APPEND PROPERTY ENVIRONMENT "${env}")
  endif()
  # A test that starts other binaries needs them built: CTest does not
  # build, so the DATA binaries are dependencies of the test's own target
  # (see timingwheel_cc_test) or of `all` (sh tests).
endfunction()

function(timingwheel_cc_test)
  cmake_parse_arguments(A "TESTONLY;RUN_SERIAL" "NAME;OUTPUT_NAME;TEST_NAME;TIMEOUT"
    "SRCS;DEPS;DEFINES;COPTS;LABELS;ENV;DATA;ARGS" ${ARGN})
  _timingwheel_executable(${A_NAME} ${A_OUTPUT_NAME} SRCS ${A_SRCS} DEPS ${A_DEPS}
    DEFINES ${A_DEFINES} COPTS ${A_COPTS})
  _timingwheel_test_copts(${A_NAME})
  _timingwheel_test_pch(${A_NAME})
  if(A_DATA)
    add_dependencies(${A_NAME} ${A_DATA})
  endif()
  add_test(NAME "${A_TEST_NAME}" COMMAND ${A_NAME} ${A_ARGS}
    WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  _timingwheel_test_properties("${A_TEST_NAME}" ${A_TIMEOUT} "${A_RUN_SERIAL}"
    "${A_LABELS}" "${A_ENV}" "${A_DATA}")
endfunction()

function(timingwheel_sh_test)
  cmake_parse_arguments(A "RUN_SERIAL" "TEST_NAME;SCRIPT;TIMEOUT;WORKING_DIRECTORY"
    "ARGS;LABELS;DATA" ${ARGN})
  add_test(NAME "${A_TEST_NAME}" COMMAND bash ${A_SCRIPT} ${A_ARGS}
    WORKING_DIRECTORY ${A_WORKING_DIRECTORY})
  _timingwheel_test_properties("${A_TEST_NAME}" ${A_TIMEOUT} "${A_RUN_SERIAL}"
    "${A_LABELS}" "" "${A_DATA}")
endfunction()

function(timingwheel_genrule)
  cmake_parse_arguments(A "" "OUTPUT;COMMAND" "DEPENDS" ${ARGN})
  add_custom_command(OUTPUT ${A_OUTPUT} COMMAND sh -c "${A_COMMAND}"
    DEPENDS ${A_DEPENDS} VERBATIM)
endfunction()

# timingwheel_library(TARGET EXPORT_NAME GROUP [INSTALL]): one of the
# libraries users link, from the TIMINGWHEEL_<GROUP>_SOURCES, _HEADERS and
# _DEPS lists of cmake/timingwheel_sources.cmake; the alias
# timingwheel::EXPORT_NAME is the name users write (in the source tree and
# from an installed prefix alike). INSTALL adds it to the exported package.
function(timingwheel_library target export_name group)
  cmake_parse_arguments(A "INSTALL" "" "" ${ARGN})
  set(sources ${TIMINGWHEEL_${group}_SOURCES})
  if(sources)
    add_library(${target} ${sources})
    set(scope PUBLIC)
    timingwheel_project_warnings(${target})
    if(NOT A_INSTALL)
      _timingwheel_test_copts(${target})  # Test support (durable/testing).
    endif()
  else()
    add_library(${target} INTERFACE)
    set(scope INTERFACE)
  endif()
  add_library(timingwheel::${export_name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  if(sources)
    set_target_properties(${target} PROPERTIES
      OUTPUT_NAME ${target} POSITION_INDEPENDENT_CODE ON)
  endif()
  target_link_libraries(${target} ${scope} ${TIMINGWHEEL_${group}_DEPS} Threads::Threads)
  target_compile_features(${target} ${scope} cxx_std_17)
  target_include_directories(${target} ${scope}
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/timingwheel>)
  if(A_INSTALL)
    set_property(GLOBAL APPEND PROPERTY TIMINGWHEEL_INSTALLED_TARGETS ${target})
    set_property(GLOBAL APPEND PROPERTY TIMINGWHEEL_INSTALLED_HEADERS ${TIMINGWHEEL_${group}_HEADERS})
  endif()
endfunction()
