# install() rules: the libraries (timingwheel::timer, ::timer_testing,
# ::purgatory, ::purgatory_testing, ::durable, ::metrics_http), their headers
# under include/timingwheel/ (so `#include "timer/timer.h"` works with
# -I<prefix>/include/timingwheel), twctl, the CMake package
# (find_package(timingwheel)) and timingwheel.pc for pkg-config.
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

get_property(_tw_targets GLOBAL PROPERTY TIMINGWHEEL_INSTALLED_TARGETS)
get_property(_tw_headers GLOBAL PROPERTY TIMINGWHEEL_INSTALLED_HEADERS)
set(_tw_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/timingwheel)

install(TARGETS ${_tw_targets} EXPORT timingwheelTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(_tw_header IN LISTS _tw_headers)
  get_filename_component(_tw_dir ${_tw_header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${_tw_header}
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/timingwheel/${_tw_dir})
endforeach()

install(EXPORT timingwheelTargets NAMESPACE timingwheel::
  DESTINATION ${_tw_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/timingwheelConfig.cmake.in
  ${PROJECT_BINARY_DIR}/timingwheelConfig.cmake
  INSTALL_DESTINATION ${_tw_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/timingwheelConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/timingwheelConfig.cmake
  ${PROJECT_BINARY_DIR}/timingwheelConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/TimingwheelFindLibpq.cmake
  ${PROJECT_SOURCE_DIR}/cmake/TimingwheelFindHttplib.cmake
  DESTINATION ${_tw_cmake_dir})

# timingwheel.pc: one package for the timer and the purgatory, and
# timingwheel-durable.pc adding the durable tier (libpq), and
# timingwheel-metrics-http.pc its /metrics and /healthz server (cpp-httplib). Abseil's Debian
# packages install one .pc per component; these name the ones used.
# The prefix is found from the .pc file's own place (relocatable: the same
# files work after `cmake --install --prefix` to any folder).
file(RELATIVE_PATH TW_PC_PREFIX_FROM_PCFILEDIR "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" TW_PC_PREFIX_FROM_PCFILEDIR "${TW_PC_PREFIX_FROM_PCFILEDIR}")
set(TW_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}/timingwheel")
set(TW_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(TW_PC_ABSL_CORE "absl_any_invocable absl_status absl_statusor absl_str_format absl_time absl_span absl_flat_hash_map absl_inlined_vector absl_hash")
configure_file(${PROJECT_SOURCE_DIR}/cmake/timingwheel.pc.in
  ${PROJECT_BINARY_DIR}/timingwheel.pc @ONLY)
if(TARGET timingwheel_durable)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/timingwheel-durable.pc.in
    ${PROJECT_BINARY_DIR}/timingwheel-durable.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/timingwheel-durable.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
if(TARGET timingwheel_metrics_http)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/timingwheel-metrics-http.pc.in
    ${PROJECT_BINARY_DIR}/timingwheel-metrics-http.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/timingwheel-metrics-http.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
install(FILES ${PROJECT_BINARY_DIR}/timingwheel.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
