# Defines the interface target timingwheel_httplib (cpp-httplib, for
# durable/metrics_http and `twctl serve`): cpp-httplib's own CMake package
# (httplib::httplib) first, else pkg-config's cpp-httplib.pc (Debian's
# libcpp-httplib-dev ships only that, and a shared library built with
# OpenSSL: its header then calls OpenSSL, so OpenSSL is linked too).
include_guard(GLOBAL)
if(NOT TARGET timingwheel_httplib)
  find_package(httplib QUIET CONFIG)
  if(TARGET httplib::httplib)
    add_library(timingwheel_httplib INTERFACE IMPORTED GLOBAL)
    target_link_libraries(timingwheel_httplib INTERFACE httplib::httplib)
  else()
    find_package(PkgConfig QUIET)
    if(PkgConfig_FOUND)
      pkg_check_modules(TIMINGWHEEL_HTTPLIB QUIET IMPORTED_TARGET GLOBAL cpp-httplib)
    endif()
    if(TARGET PkgConfig::TIMINGWHEEL_HTTPLIB)
      find_package(OpenSSL QUIET)
      find_package(Threads REQUIRED)
      add_library(timingwheel_httplib INTERFACE IMPORTED GLOBAL)
      target_link_libraries(timingwheel_httplib INTERFACE PkgConfig::TIMINGWHEEL_HTTPLIB Threads::Threads)
      if(TARGET OpenSSL::SSL)
        target_link_libraries(timingwheel_httplib INTERFACE OpenSSL::SSL OpenSSL::Crypto)
      endif()
    elseif(TIMINGWHEEL_BUILD_TWCTL)
      message(FATAL_ERROR "cpp-httplib not found: install libcpp-httplib-dev (Debian) or cpp-httplib (Homebrew)")
    endif()
  endif()
endif()
