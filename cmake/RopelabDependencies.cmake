# Find every system dependency of the C++ core before stopping, so that a user who lacks several
# gets ONE message, before anything is compiled, that lists each missing one with the package to
# install on Debian/Ubuntu, Fedora/RHEL, Homebrew and conda-forge (and one line per package
# manager that installs all of them). Nothing is downloaded.
#
# Defines on success: the imported targets Eigen3::Eigen, Boost::headers, ropelab::fftw3,
# ropelab::sleef, Threads::Threads, and RANDOM123_INCLUDE_DIR.
#
# tests/test_build_deps.py hides each dependency in turn with the standard switches
# (CMAKE_DISABLE_FIND_PACKAGE_<Name>, PKG_CONFIG_LIBDIR, a RANDOM123_INCLUDE_DIR or
# ROPELAB_BOOST_INCLUDE_DIR without the headers) and checks the message.

set(_ropelab_missing "")

# ropelab_dependency_missing(<id> <description> <apt> <dnf> <brew> <conda> [<note>])
# Use "-" for a package manager that has no package; <note> is printed under the entry.
function(ropelab_dependency_missing id description apt dnf brew conda)
  set(_ropelab_missing ${_ropelab_missing} ${id} PARENT_SCOPE)
  set(_ropelab_dep_${id}_description "${description}" PARENT_SCOPE)
  set(_ropelab_dep_${id}_apt "${apt}" PARENT_SCOPE)
  set(_ropelab_dep_${id}_dnf "${dnf}" PARENT_SCOPE)
  set(_ropelab_dep_${id}_brew "${brew}" PARENT_SCOPE)
  set(_ropelab_dep_${id}_conda "${conda}" PARENT_SCOPE)
  set(_ropelab_dep_${id}_note "${ARGN}" PARENT_SCOPE)
endfunction()

# --- Eigen >= 3.3 (headers, CMake config) -------------------------------------------------------
find_package(Eigen3 3.3 CONFIG QUIET)
if(NOT Eigen3_FOUND OR NOT TARGET Eigen3::Eigen)
  set(_note "")
  if(Eigen3_CONSIDERED_VERSIONS)
    set(_note "found only version(s) ${Eigen3_CONSIDERED_VERSIONS}, older than 3.3")
  endif()
  ropelab_dependency_missing(eigen "Eigen >= 3.3 (C++ headers)"
    libeigen3-dev eigen3-devel eigen eigen ${_note})
endif()

# --- Boost >= 1.71, header-only Boost.Math ---------------------------------------------------------
# Boost's CMake config first; else plain headers (a Boost release's boost/ folder copied into an
# include directory, as the manylinux release build does): ROPELAB_BOOST_INCLUDE_DIR.
find_package(Boost 1.71 CONFIG QUIET)
set(_ropelab_boost_ok FALSE)
set(_note "")
if(Boost_FOUND AND TARGET Boost::headers)
  find_path(ROPELAB_BOOST_MATH_INCLUDE_DIR boost/math/special_functions/gamma.hpp
            HINTS ${Boost_INCLUDE_DIRS} NO_DEFAULT_PATH)
  if(ROPELAB_BOOST_MATH_INCLUDE_DIR)
    set(_ropelab_boost_ok TRUE)
  else()
    set(_note "Boost ${Boost_VERSION} was found, but not its Boost.Math headers")
  endif()
else()
  find_path(ROPELAB_BOOST_INCLUDE_DIR boost/version.hpp)
  if(ROPELAB_BOOST_INCLUDE_DIR AND EXISTS "${ROPELAB_BOOST_INCLUDE_DIR}/boost/version.hpp")
    file(STRINGS "${ROPELAB_BOOST_INCLUDE_DIR}/boost/version.hpp" _v REGEX "^#define BOOST_VERSION [0-9]+")
    string(REGEX REPLACE "^#define BOOST_VERSION ([0-9]+).*" "\\1" _v "${_v}")
    math(EXPR _major "${_v} / 100000")
    math(EXPR _minor "${_v} / 100 % 1000")
    if(_v LESS 107100)
      set(_note "found only Boost ${_major}.${_minor} in ${ROPELAB_BOOST_INCLUDE_DIR}, older than 1.71")
    elseif(NOT EXISTS "${ROPELAB_BOOST_INCLUDE_DIR}/boost/math/special_functions/gamma.hpp")
      set(_note "Boost ${_major}.${_minor} in ${ROPELAB_BOOST_INCLUDE_DIR} lacks the Boost.Math headers")
    else()
      set(_ropelab_boost_ok TRUE)
      add_library(Boost::headers INTERFACE IMPORTED)
      set_target_properties(Boost::headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${ROPELAB_BOOST_INCLUDE_DIR}")
    endif()
  elseif(Boost_CONSIDERED_VERSIONS)
    set(_note "found only version(s) ${Boost_CONSIDERED_VERSIONS}, older than 1.71")
  endif()
endif()
if(NOT _ropelab_boost_ok)
  ropelab_dependency_missing(boost "Boost >= 1.71 with the Boost.Math headers"
    libboost-dev boost-devel boost libboost-headers ${_note})
endif()

# --- Threads (part of the C/C++ toolchain) --------------------------------------------------------
find_package(Threads REQUIRED)

# --- pkg-config, then FFTW3 and SLEEF through it ------------------------------------------------------
# FFTW's own CMake config is broken when FFTW is built with autotools (Debian's is): use pkg-config.
find_package(PkgConfig QUIET)
set(_ropelab_fftw_ok FALSE)
set(_ropelab_sleef_ok FALSE)
set(_ropelab_pc_note "")
if(PKG_CONFIG_FOUND)
  pkg_check_modules(FFTW3 QUIET IMPORTED_TARGET fftw3)
  pkg_check_modules(SLEEF QUIET IMPORTED_TARGET sleef)
  if(FFTW3_FOUND AND TARGET PkgConfig::FFTW3)
    set(_ropelab_fftw_ok TRUE)
    add_library(ropelab::fftw3 ALIAS PkgConfig::FFTW3)
  endif()
  if(SLEEF_FOUND AND TARGET PkgConfig::SLEEF)
    set(_ropelab_sleef_ok TRUE)
    add_library(ropelab::sleef ALIAS PkgConfig::SLEEF)
  endif()
else()
  ropelab_dependency_missing(pkgconfig "pkg-config (finds FFTW3 and SLEEF)"
    pkg-config pkgconf-pkg-config pkgconf pkg-config)
  # Without pkg-config, still tell whether FFTW3 and SLEEF are installed, so that the message
  # lists everything at once; the build itself uses pkg-config's answer.
  find_path(ROPELAB_FFTW3_INCLUDE_DIR fftw3.h)
  find_library(ROPELAB_FFTW3_LIBRARY fftw3)
  find_path(ROPELAB_SLEEF_INCLUDE_DIR sleef.h)
  find_library(ROPELAB_SLEEF_LIBRARY sleef)
  if(ROPELAB_FFTW3_INCLUDE_DIR AND ROPELAB_FFTW3_LIBRARY)
    set(_ropelab_fftw_ok TRUE)
  endif()
  if(ROPELAB_SLEEF_INCLUDE_DIR AND ROPELAB_SLEEF_LIBRARY)
    set(_ropelab_sleef_ok TRUE)
  endif()
  set(_ropelab_pc_note "(looked for without pkg-config)")
endif()
if(NOT _ropelab_fftw_ok)
  ropelab_dependency_missing(fftw "FFTW3 (double precision, library + headers)"
    libfftw3-dev fftw-devel fftw fftw ${_ropelab_pc_note})
endif()
if(NOT _ropelab_sleef_ok)
  ropelab_dependency_missing(sleef "SLEEF (vectorised math library + headers)"
    libsleef-dev sleef-devel sleef sleef ${_ropelab_pc_note})
endif()

# --- Random123 (headers only) ---------------------------------------------------------------------------
find_path(RANDOM123_INCLUDE_DIR Random123/philox.h)
if(NOT RANDOM123_INCLUDE_DIR OR NOT EXISTS "${RANDOM123_INCLUDE_DIR}/Random123/philox.h")
  set(_note "Headers only: without a package, unpack a release of github.com/DEShawResearch/random123 "
            "and pass -DRANDOM123_INCLUDE_DIR=<release>/include")
  string(JOIN "" _note ${_note})
  if(RANDOM123_INCLUDE_DIR)
    set(_note "RANDOM123_INCLUDE_DIR=${RANDOM123_INCLUDE_DIR} has no Random123/philox.h. ${_note}")
  endif()
  ropelab_dependency_missing(random123 "Random123 (counter-based RNG headers)"
    librandom123-dev Random123-devel - - "${_note}")
endif()

# --- One message for all that is missing --------------------------------------------------------------
if(_ropelab_missing)
  list(LENGTH _ropelab_missing _n)
  if(_n EQUAL 1)
    set(_msg " ropelab cannot be built: 1 dependency is missing (nothing has been compiled).\n")
  else()
    set(_msg " ropelab cannot be built: ${_n} dependencies are missing (nothing has been compiled).\n")
  endif()
  # (Every line starts with a space: CMake prints such lines as they are, without re-wrapping.)
  string(APPEND _msg " Install the packages below, then build again.\n")
  foreach(pm apt dnf brew conda)
    set(_all_${pm} "")
  endforeach()
  foreach(id ${_ropelab_missing})
    string(APPEND _msg " \n   ${_ropelab_dep_${id}_description}\n")
    foreach(pm apt dnf brew conda)
      set(_pkg "${_ropelab_dep_${id}_${pm}}")
      if(pm STREQUAL "apt")
        set(_label "Debian/Ubuntu (apt):")
      elseif(pm STREQUAL "dnf")
        set(_label "Fedora/RHEL (dnf):  ")
      elseif(pm STREQUAL "brew")
        set(_label "Homebrew (brew):    ")
      else()
        set(_label "conda-forge (conda):")
      endif()
      if(_pkg STREQUAL "-")
        string(APPEND _msg "     ${_label} no package (see the note)\n")
      else()
        string(APPEND _msg "     ${_label} ${_pkg}\n")
        string(APPEND _all_${pm} " ${_pkg}")
      endif()
    endforeach()
    if(_ropelab_dep_${id}_note)
      string(APPEND _msg "     note: ${_ropelab_dep_${id}_note}\n")
    endif()
  endforeach()
  string(APPEND _msg " \n All at once:\n")
  if(_all_apt)
    string(APPEND _msg "   Debian/Ubuntu:  sudo apt-get install${_all_apt}\n")
  endif()
  if(_all_dnf)
    string(APPEND _msg "   Fedora/RHEL:    sudo dnf install${_all_dnf}\n")
  endif()
  if(_all_brew)
    string(APPEND _msg "   Homebrew:       brew install${_all_brew}\n")
  endif()
  if(_all_conda)
    string(APPEND _msg "   conda-forge:    conda install -c conda-forge${_all_conda}\n")
  endif()
  string(APPEND _msg " (From a Debian/Ubuntu checkout, `make install` runs the apt-get line for you.)")
  message(FATAL_ERROR "${_msg}")
endif()
