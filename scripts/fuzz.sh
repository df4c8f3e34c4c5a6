#!/usr/bin/env bash
# Fuzzes the .npy reader with libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer: the header
# parser, then the whole open-and-map path, each for half of SECONDS (default 60). Installs clang if it is
# missing, builds tests/fuzz into build/fuzz, and fails on the first crash, leak or sanitizer report (the
# input that caused it is left in build/fuzz/artifacts/). Inputs found along the way accumulate in
# build/fuzz/corpus/; the seeds in tests/fuzz/corpus/ are only read.
#   bash scripts/fuzz.sh 3600    # an hour
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
SECONDS_TOTAL=${1:-60}

# clang's libFuzzer lives in libclang-rt-dev on Debian 12 (the clang package only recommends it).
FUZZ_PACKAGES=(clang libclang-rt-dev)
missing=()
for pkg in "${FUZZ_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then missing+=("$pkg"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages for fuzzing: ${missing[*]}"
  run_as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  run_as_root apt-get update -qq
  run_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

BUILD="$ROOT/build/fuzz"
cmake -S "$ROOT/tests/fuzz" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++
cmake --build "$BUILD"

mkdir -p "$BUILD/artifacts"
# intercept_tls_get_addr=0: see scripts/test-sanitizers.sh.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:intercept_tls_get_addr=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
run_fuzzer() {  # target, seconds, seed corpus folder
  mkdir -p "$BUILD/corpus/$1"
  echo "fuzzing $1 for $2 s"
  "$BUILD/$1" -max_total_time="$2" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$ROOT/tests/fuzz/npy.dict" -artifact_prefix="$BUILD/artifacts/$1-" \
    "$BUILD/corpus/$1" "$ROOT/tests/fuzz/corpus/$3"
}
half=$(( (SECONDS_TOTAL + 1) / 2 ))
run_fuzzer npy_header_fuzzer "$half" npy_header
run_fuzzer npy_open_fuzzer "$half" npy
