#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, and run every test (C++ via ctest, Python via
# pytest: the package's tests and the seed guides' examples, which end with a summary of the examples).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
bash "$ROOT/scripts/install-deps.sh"

# One CUDA architecture keeps the build short where nvcc is installed (ignored without it). The package and
# the test build use the same one, so that ccache compiles the library once for both.
CUDA_ARCH="${ACCELERA_CUDA_ARCHITECTURES:-90}"
install_package -C cmake.define.CMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH"
cmake -S "$ROOT" -B "$ROOT/build/test" -G Ninja -DCMAKE_BUILD_TYPE=Release -DACCELERA_BUILD_TESTS=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH"
cmake --build "$ROOT/build/test"
ctest --test-dir "$ROOT/build/test" --output-on-failure -j "$(nproc)"

cd "$ROOT"
"$PYTHON" -m pytest -q tests/python tests/seed_examples
