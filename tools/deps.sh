#!/usr/bin/env bash
# deps.sh - installs what ksim needs to build and test on Debian 12, and
# nothing when it is all there. Run as root (or with sudo available).
#   tools/deps.sh        build + test dependencies (xmllint, from libxml2-utils,
#                        validates the JUnit report against tests/junit.xsd)
#   tools/deps.sh --ci   the same, and what .ci/run uses besides (clang, libFuzzer,
#                        valgrind, and chromium for the report page's browser test)
set -euo pipefail

pkgs=(gcc make cmake pkg-config libjansson-dev libcmocka-dev gnuplot-nox libxml2-utils)
if [ "${1:-}" = "--ci" ]; then
  pkgs+=(clang libclang-rt-14-dev valgrind chromium)
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "deps.sh: missing packages: ${missing[*]}" >&2
  echo "deps.sh: run as root: apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
