#!/usr/bin/env bash
# Install what gpudiag needs (Debian/Ubuntu packages) and build it into ./build.
# Usage: scripts/bootstrap.sh            (as root, or with sudo available)
#        scripts/bootstrap.sh --build-only   only what building and packaging need (compiler,
#                                            -dev libraries, dpkg-dev for `cpack -G DEB`): no test
#                                            tools; deploy/Dockerfile uses it
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_PKGS=(gcc g++ make cmake pkg-config libyajl-dev libsimdjson-dev libisal-dev zlib1g-dev libsqlite3-dev libmicrohttpd-dev
  python3 dpkg-dev file)  # python3: where the Python package installs; dpkg-dev, file: cpack -G DEB (dpkg-shlibdeps)
PKGS=(gcc g++ make cmake pkg-config libyajl-dev libsimdjson-dev libisal-dev zlib1g-dev libsqlite3-dev sqlite3 python3 python3-yaml gzip libmicrohttpd-dev prometheus chromium python3-jsonschema
  clang libclang-rt-dev valgrind cppcheck  # fuzzing, memcheck, static analysis (scripts/check.sh)
  python3-torch python3-setuptools python3-wheel python3-venv python3-pip)  # the Python package's tests (tests/cli/test_python.sh)
if [ "${1:-}" = "--build-only" ]; then
  PKGS=("${BUILD_PKGS[@]}")
elif [ -n "${1:-}" ]; then
  echo "usage: scripts/bootstrap.sh [--build-only]" >&2
  exit 2
else
  PKGS+=(dpkg-dev file)  # scripts/test_deb.sh: cpack -G DEB
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
echo "built: $(pwd)/build/gpudiag"
