#!/usr/bin/env bash
# cibuildwheel `before-all` on macOS: ropelab's C/C++ dependencies from Homebrew, and Random123
# (headers only, no Homebrew formula) from its pinned upstream release. delocate then copies the
# FFTW and SLEEF dylibs into the wheel (ropelab/.dylibs).
set -euxo pipefail
RANDOM123_VERSION=1.14.0
brew install eigen boost fftw sleef pkgconf
work=$(mktemp -d)
curl -fsSL "https://github.com/DEShawResearch/random123/archive/refs/tags/v${RANDOM123_VERSION}.tar.gz" | tar xz -C "$work"
mkdir -p "$work/include" && cp -r "$work/random123-${RANDOM123_VERSION}/include/Random123" "$(brew --prefix)/include/"
rm -rf "$work"
