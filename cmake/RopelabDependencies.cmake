# Find every system dependency of the C++ core before stopping, so that a user who lacks several
# gets ONE message, before anything is compiled, that lists each missing one with the package to
# install on Debian/Ubuntu, Fedora/RHEL, Homebrew and conda-forge (and one line per package
# manager that installs all of them). Nothing is downloaded.
#
# Defines on success: the imported targets Eigen3::Eigen, Boost::headers, ropelab::fftw3,
# ropelab::sleef, Threads::Threads, and RANDOM123_INCLUDE_DIR.
#
# tests/test_build_deps.py hides each dependency in turn, and all of them at once, with the
# standard switches (CMAKE_DISABLE_FIND_PACKAGE_<Name>, PKG_CONFIG_LIBDIR, and a folder without
# the headers as RANDOM123_INCLUDE_DIR, ROPELAB_BOOST_INCLUDE_DIR, ROPELAB_FFTW3_INCLUDE_DIR or
# ROPELAB_SLEEF_INCLUDE_DIR) and checks that the message lists exactly the hidden ones.

set(_ropelab_missing "")

# ropelab_dependency_missing(<id> <description> <apt> <dnf> <brew> <conda> [<note>])
# Where a package manager has no package, "!<command>" gives the shell command that installs the
# dependency into its prefix instead; <note> is printed under the entry.
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

# --- pkg-config, then FFTW3 and SLEEF through it ---------------------------------------------------
# FFTW's own CMake config is broken when FFTW is built with autotools (Debian's is): the build takes
# both libraries' flags from pkg-config. Each is also looked up by its header and library file
# (find_path/find_library), so that whatever else is missing, pkg-config included, this one round
# tells whether they are installed: a missing pkg-config never hides a missing FFTW3 or SLEEF.
find_package(PkgConfig QUIET)
if(NOT PKG_CONFIG_FOUND)
  ropelab_dependency_missing(pkgconfig "pkg-config (finds FFTW3 and SLEEF)"
    pkg-config pkgconf-pkg-config pkgconf pkg-config)
endif()

# ropelab_find_pc_library(<id> <pkg-config module> <header> <library> <description> <apt> <dnf> <brew> <conda>)
# Defines the target ropelab::<id> from pkg-config, or records <id> as missing. The cache variables
# ROPELAB_<MODULE>_INCLUDE_DIR and ROPELAB_<MODULE>_LIBRARY hold the header/library look-up (a
# folder without <header> given there counts as not installed: tests/test_build_deps.py).
function(ropelab_find_pc_library id module header library description apt dnf brew conda)
  string(TOUPPER "${module}" _up)
  find_path(ROPELAB_${_up}_INCLUDE_DIR ${header})
  find_library(ROPELAB_${_up}_LIBRARY ${library})
  mark_as_advanced(ROPELAB_${_up}_INCLUDE_DIR ROPELAB_${_up}_LIBRARY)
  set(_files FALSE)
  if(ROPELAB_${_up}_INCLUDE_DIR AND EXISTS "${ROPELAB_${_up}_INCLUDE_DIR}/${header}" AND ROPELAB_${_up}_LIBRARY)
    set(_files TRUE)
  endif()
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(${_up} QUIET IMPORTED_TARGET ${module})
    if(${_up}_FOUND AND TARGET PkgConfig::${_up})
      add_library(ropelab::${id} ALIAS PkgConfig::${_up})
      return()
    endif()
    if(_files)
      set(_note "${header} (in ${ROPELAB_${_up}_INCLUDE_DIR}) and ${ROPELAB_${_up}_LIBRARY} are there, but "
                "pkg-config finds no ${module}.pc: add the folder that holds it to PKG_CONFIG_PATH")
      string(JOIN "" _note ${_note})
      ropelab_dependency_missing(${id} "${description}" ${apt} ${dnf} ${brew} ${conda} "${_note}")
    else()
      ropelab_dependency_missing(${id} "${description}" ${apt} ${dnf} ${brew} ${conda})
    endif()
  elseif(NOT _files)
    # (installed or not, the build stops for pkg-config, listed above)
    ropelab_dependency_missing(${id} "${description}" ${apt} ${dnf} ${brew} ${conda})
  endif()
  set(_ropelab_missing ${_ropelab_missing} PARENT_SCOPE)
  foreach(field description apt dnf brew conda note)
    set(_ropelab_dep_${id}_${field} "${_ropelab_dep_${id}_${field}}" PARENT_SCOPE)
  endforeach()
endfunction()

ropelab_find_pc_library(fftw3 fftw3 fftw3.h fftw3 "FFTW3 (double precision, library + headers)"
  libfftw3-dev fftw-devel fftw fftw)
ropelab_find_pc_library(sleef sleef sleef.h sleef "SLEEF (vectorised math library + headers)"
  libsleef-dev sleef-devel sleef sleef)

# --- Random123 (headers only, BSD-3-Clause) ---------------------------------------------------------
# Debian/Ubuntu and Fedora package the headers; Homebrew and conda-forge do not, so their entries are
# the commands that unpack Random123's release headers into the include folder of that prefix (which
# CMake searches once the prefix's bin/ is on PATH, as `brew shellenv` and `conda activate` put it).
# RANDOM123_INCLUDE_DIR, as a CMake variable or an environment variable, points elsewhere.
find_path(RANDOM123_INCLUDE_DIR Random123/philox.h HINTS ENV RANDOM123_INCLUDE_DIR)
if(NOT RANDOM123_INCLUDE_DIR OR NOT EXISTS "${RANDOM123_INCLUDE_DIR}/Random123/philox.h")
  set(_r123 "curl -fsSL https://github.com/DEShawResearch/random123/archive/refs/tags/v1.14.0.tar.gz | "
            "tar -xzf - --strip-components=2 -C")
  string(JOIN "" _r123 ${_r123})
  set(_r123_tail "random123-1.14.0/include/Random123")
  set(_note "Elsewhere, unpack the same Random123/ folder into any <dir> and build with "
            "-DRANDOM123_INCLUDE_DIR=<dir> (pip: -Ccmake.define.RANDOM123_INCLUDE_DIR=<dir>, or the "
            "environment variable RANDOM123_INCLUDE_DIR=<dir>)")
  string(JOIN "" _note ${_note})
  if(RANDOM123_INCLUDE_DIR)
    set(_note "RANDOM123_INCLUDE_DIR=${RANDOM123_INCLUDE_DIR} has no Random123/philox.h. ${_note}")
  endif()
  ropelab_dependency_missing(random123 "Random123 (counter-based RNG headers)"
    librandom123-dev Random123-devel
    "!${_r123} \"$(brew --prefix)/include\" ${_r123_tail}"
    "!${_r123} \"$CONDA_PREFIX/include\" ${_r123_tail}"
    "${_note}")
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
    set(_cmd_${pm} "")
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
      if(_pkg MATCHES "^!(.*)$")
        string(APPEND _msg "     ${_label} no package; this puts the headers into its prefix:\n")
        string(APPEND _msg "       ${CMAKE_MATCH_1}\n")
        list(APPEND _cmd_${pm} "${CMAKE_MATCH_1}")
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
  foreach(pm apt dnf brew conda)
    if(pm STREQUAL "apt")
      set(_line "   Debian/Ubuntu:  sudo apt-get install")
    elseif(pm STREQUAL "dnf")
      set(_line "   Fedora/RHEL:    sudo dnf install")
    elseif(pm STREQUAL "brew")
      set(_line "   Homebrew:       brew install")
    else()
      set(_line "   conda-forge:    conda install -c conda-forge")
    endif()
    if(_all_${pm})
      string(APPEND _line "${_all_${pm}}")
      if(_cmd_${pm})
        string(APPEND _line " && ")
      endif()
    elseif(_cmd_${pm})
      string(REGEX REPLACE "^(   [^:]+: +).*" "\\1" _line "${_line}")
    endif()
    if(_all_${pm} OR _cmd_${pm})
      list(JOIN _cmd_${pm} " && " _cmds)
      string(APPEND _msg "${_line}${_cmds}\n")
    endif()
  endforeach()
  string(APPEND _msg " (From a Debian/Ubuntu checkout, `make install` runs the apt-get line for you.)")
  message(FATAL_ERROR "${_msg}")
endif()
