#!/usr/bin/env bash
# Installs whatever this machine lacks to build and test Accelera: Debian packages, then Python packages.
# Safe to re-run: it only installs what is missing.
set -euo pipefail

APT_PACKAGES=(
  g++ cmake ninja-build ccache pkg-config git
  libopenblas-dev libfmt-dev libspdlog-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libbenchmark-dev libhwy-dev libdnnl-dev
  ocl-icd-opencl-dev opencl-headers libclblast-dev libvkfft-dev pocl-opencl-icd
  dataset-fashion-mnist
  openmpi-bin libopenmpi-dev libscalapack-openmpi-dev
)
# torch: accelera.torch and its tests (PyPI's Linux wheel brings its CUDA libraries, a few GB).
# scikit-learn: accelera.datasets.digits() reads its bundled copy of the digits dataset; matplotlib:
# accelera train draws its loss and accuracy curves. mpi4py (built against the OpenMPI above):
# nn.DistributedTraining over MPI ranks. array-api-strict: the array API standard's reference
# implementation, which tests/python/test_array_api_reference.py compares accelera with (2.6: the
# standard's 2025.12 draft, with isin).
PY_PACKAGES=("numpy>=2.1" "nanobind>=2.4" "scikit-build-core>=0.10" "pytest>=7" "hypothesis>=6" "torch>=2.4"
             "scikit-learn>=1.2" "matplotlib>=3.6" "mpi4py>=3.1" "array-api-strict>=2.6")
PY_MODULES=(numpy nanobind scikit_build_core pytest hypothesis torch sklearn matplotlib mpi4py array_api_strict)

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing_apt=()
for pkg in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing_apt+=("$pkg")
  fi
done
if [ ${#missing_apt[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing_apt[*]}"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing_apt[@]}"
fi

PYTHON=${PYTHON:-python3}
missing_py=()
for i in "${!PY_MODULES[@]}"; do
  if ! "$PYTHON" -c "import ${PY_MODULES[$i]}" 2>/dev/null; then
    missing_py+=("${PY_PACKAGES[$i]}")
  fi
done
if [ ${#missing_py[@]} -gt 0 ]; then
  echo "installing Python packages: ${missing_py[*]}"
  "$PYTHON" -m pip install -q "${missing_py[@]}"
fi
