#!/usr/bin/env bash
# Installs every Debian package allocsim needs, then configures and builds the Release tree in build/.
# Usage: bash ci/install.sh        (as root, or with sudo available)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build g++            # build
  libgtest-dev                     # unit tests
  librapidcheck-dev                # property tests
  libbenchmark-dev                 # benchmarks
  libsystemc-dev                   # the cycle-approximate simulator
  clang-19 libclang-rt-19-dev      # libFuzzer and the sanitizer runtimes (ci/fuzz_build.sh says why 19)
  python3 python3-numpy            # the NKI front end (python/) and its tests: numpy holds their data
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLOCSIM_WERROR=ON
ninja -C build
echo "built: build/allocsim"
