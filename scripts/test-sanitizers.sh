#!/usr/bin/env bash
# The C++ tests under AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
bash "$ROOT/scripts/install-deps.sh"
# Without CUDA: nvcc does not take the sanitizer flags, and the CUDA runtime under ASan needs
# ASAN_OPTIONS=protect_shadow_gap=0 on a GPU machine. The CUDA host code is covered by build/test.
cmake -S "$ROOT" -B "$ROOT/build/asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACCELERA_SANITIZE=ON \
  -DACCELERA_BUILD_CLI=OFF -DACCELERA_BUILD_TESTS=ON -DACCELERA_CUDA=OFF
cmake --build "$ROOT/build/asan"
# Leaks are reported; the first undefined-behaviour finding stops the run.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$ROOT/build/asan" --output-on-failure -j "$(nproc)"
