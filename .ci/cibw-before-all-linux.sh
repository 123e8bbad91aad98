#!/usr/bin/env bash
# cibuildwheel `before-all` on the manylinux_2_28 image (AlmaLinux 8, x86_64): ropelab's C/C++
# dependencies. From the distribution: Eigen, FFTW, pkg-config. From upstream releases (pinned):
#   Boost.Math headers  - AlmaLinux 8 has Boost 1.66, ropelab needs >= 1.71 (headers only, no build)
#   SLEEF 3.5.1         - not packaged for AlmaLinux 8 (nor EPEL 8); the version Debian 12 ships
#   Random123 1.14.0    - headers only; the version Debian 12 ships
# The release build runs on CI machines with network access; ropelab's own build never downloads.
set -euxo pipefail
BOOST_VERSION=1.83.0
SLEEF_VERSION=3.5.1
RANDOM123_VERSION=1.14.0
PREFIX=/usr/local
work=$(mktemp -d)

dnf install -y eigen3-devel fftw-devel pkgconf-pkg-config

boost=boost_${BOOST_VERSION//./_}
curl -fsSL "https://archives.boost.io/release/${BOOST_VERSION}/source/${boost}.tar.bz2" | tar xj -C "$work" "$boost/boost"
cp -r "$work/$boost/boost" "$PREFIX/include/"

curl -fsSL "https://github.com/shibatch/sleef/archive/refs/tags/${SLEEF_VERSION}.tar.gz" | tar xz -C "$work"
cmake -S "$work/sleef-${SLEEF_VERSION}" -B "$work/sleef-build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=ON \
  -DBUILD_TESTS=OFF -DBUILD_DFT=OFF -DBUILD_QUAD=OFF -DBUILD_GNUABI_LIBS=OFF -DBUILD_INLINE_HEADERS=OFF
cmake --build "$work/sleef-build" -j "$(nproc)"
cmake --install "$work/sleef-build"
if [ ! -f "$PREFIX/lib/pkgconfig/sleef.pc" ]; then   # (older releases install no .pc file)
  mkdir -p "$PREFIX/lib/pkgconfig"
  printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\nName: SLEEF\nDescription: SIMD Library for Evaluating Elementary Functions\nVersion: %s\nCflags: -I${includedir}\nLibs: -L${libdir} -lsleef\n' \
    "$PREFIX" "$SLEEF_VERSION" > "$PREFIX/lib/pkgconfig/sleef.pc"
fi

curl -fsSL "https://github.com/DEShawResearch/random123/archive/refs/tags/v${RANDOM123_VERSION}.tar.gz" | tar xz -C "$work"
cp -r "$work/random123-${RANDOM123_VERSION}/include/Random123" "$PREFIX/include/"

ldconfig
rm -rf "$work"
