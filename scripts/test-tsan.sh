#!/usr/bin/env bash
# The C++ tests that share a device between threads, under ThreadSanitizer: eight threads calling ops, the
# out-of-core engine and user kernels on every device (test_threads.cpp), the allocator's and the kernel
# cache's concurrency tests, the streams tests, and the engine over several devices (test_multi_device.cpp).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
bash "$ROOT/scripts/install-deps.sh"
# Without CUDA (nvcc does not take -fsanitize=thread, and no GPU runs here) and without the CLI.
cmake -S "$ROOT" -B "$ROOT/build/tsan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACCELERA_TSAN=ON \
  -DACCELERA_BUILD_CLI=OFF -DACCELERA_BUILD_TESTS=ON -DACCELERA_CUDA=OFF -DACCELERA_MPI=OFF
cmake --build "$ROOT/build/tsan" --target accelera_tests
# libgomp and OpenBLAS are not built with ThreadSanitizer and synchronise their pools in ways it cannot
# see: their loops run on the calling thread here, so every thread TSan watches is one of the test's.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
"$ROOT/build/tsan/tests/cpp/accelera_tests" \
  --gtest_filter='Devices/Threads.*:*Concurren*:*Thread*:Devices/StreamsTest.*:KernelCache*'
# The engine over several devices: a thread per device, work stealing, faults and cancellation.
POCL_DEVICES="pthread pthread" "$ROOT/build/tsan/tests/cpp/accelera_tests" --gtest_filter='MultiDevice*'
