# Defines the interface target timingwheel_libpq (libpq, PostgreSQL's client
# library): pkg-config's libpq.pc first (Debian, Homebrew, most Linux
# distributions), else CMake's FindPostgreSQL. Used by the build and by the
# installed timingwheelConfig.cmake.
include_guard(GLOBAL)
if(NOT TARGET timingwheel_libpq)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(TIMINGWHEEL_LIBPQ QUIET IMPORTED_TARGET GLOBAL libpq)
  endif()
  if(TARGET PkgConfig::TIMINGWHEEL_LIBPQ)
    add_library(timingwheel_libpq INTERFACE IMPORTED GLOBAL)
    target_link_libraries(timingwheel_libpq INTERFACE PkgConfig::TIMINGWHEEL_LIBPQ)
  else()
    find_package(PostgreSQL QUIET)
    if(NOT PostgreSQL_FOUND)
      message(FATAL_ERROR "libpq not found: install libpq-dev (Debian), libpq (Homebrew) or set PKG_CONFIG_PATH")
    endif()
    add_library(timingwheel_libpq INTERFACE IMPORTED GLOBAL)
    target_link_libraries(timingwheel_libpq INTERFACE PostgreSQL::PostgreSQL)
  endif()
endif()
