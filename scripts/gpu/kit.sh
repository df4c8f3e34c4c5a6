# Settings shared by prepare.sh and check.sh (sourced, not run).
#
# The kit: the Debian 12 (bookworm, amd64) packages that Accelera builds against and that a GPU machine with
# only the CUDA toolkit, a C++ compiler and a Python with NumPy lacks, unpacked, trimmed and packed into one
# tarball under .gpu-kit/ (ignored by git; take it along with the working tree).
# shellcheck shell=bash
# shellcheck disable=SC2034 # the settings are used by the scripts that source this file

GPU_KIT_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GPU_KIT_ROOT=$(cd "$GPU_KIT_SCRIPTS/../.." && pwd)

# What travels: the tarball, its manifest and any Python wheels.
GPU_KIT_DIR=${ACCELERA_GPU_KIT_DIR:-$GPU_KIT_ROOT/.gpu-kit}
GPU_KIT_TARBALL=$GPU_KIT_DIR/debian-bookworm-amd64.tar.xz
GPU_KIT_MANIFEST=$GPU_KIT_DIR/MANIFEST
GPU_KIT_WHEELS=$GPU_KIT_DIR/wheels

# What stays: downloaded .deb files (prepare.sh) and the private prefix they unpack into (check.sh).
GPU_KIT_WORK=${ACCELERA_GPU_KIT_WORK:-$GPU_KIT_ROOT/build/gpu-kit}
GPU_KIT_DEBS=$GPU_KIT_WORK/debs
GPU_KIT_PREFIX=$GPU_KIT_WORK/root   # the packages' /usr lands in $GPU_KIT_PREFIX/usr

# The Debian packages of the kit: scripts/install-deps.sh's APT_PACKAGES (read from there, so that a library
# added to the build's dependencies joins the kit), less what the GPU machine has or does not need, plus
# gmock (gtest's CMake package refers to it), Google Highway and pkg-config. MPI and ScaLAPACK stay out: the
# one-GPU machine checks the GPU (check.sh builds with ACCELERA_MPI off), and with their dependencies they
# would not fit the 64 MiB that travels to it.
GPU_KIT_NOT_NEEDED=(g++ cmake ninja-build ccache pkg-config git pocl-opencl-icd openmpi-bin libopenmpi-dev
                    libscalapack-openmpi-dev)
GPU_KIT_EXTRA=(libgmock-dev libhwy-dev pkgconf)

gpu_kit_packages() {  # prints the kit's top-level packages, one a line
  local apt
  apt=$(bash -c 'eval "$(sed -n "/^APT_PACKAGES=(/,/^)/p" "$1")"; printf "%s\n" "${APT_PACKAGES[@]}"' _ \
    "$GPU_KIT_ROOT/scripts/install-deps.sh") || gpu_kit_die "cannot read APT_PACKAGES from scripts/install-deps.sh"
  [ -n "$apt" ] || gpu_kit_die "APT_PACKAGES of scripts/install-deps.sh is empty"
  { grep -vxF -f <(printf '%s\n' "${GPU_KIT_NOT_NEEDED[@]}") <<<"$apt" || true; printf '%s\n' "${GPU_KIT_EXTRA[@]}"; } | sort -u
}

# Dependencies left out: the C and C++ runtime every machine with a compiler has, OpenMP's libgomp included
# (gcc's libgcc-12-dev depends on it; a kit copy would hide the machine's and leave gcc's libgomp.so link
# dangling, so that CMake picked the static libgomp.a; check.sh verifies that the kit's libraries resolve
# against that machine's), and packages not needed to build Accelera (Catch2 comes with CLI11's headers,
# googletest is the source of the gtest/gmock libraries that libgtest-dev ships).
GPU_KIT_EXCLUDED=(libc6 libgcc-s1 libstdc++6 libgomp1 gcc-12-base catch2 googletest)

# Trimmed from the unpacked packages: documentation, sources, and static libraries that have shared twins.
GPU_KIT_PRUNE=(
  usr/share/doc usr/share/man usr/share/info usr/share/lintian usr/share/bug usr/src
  'usr/lib/x86_64-linux-gnu/openblas-pthread/*.a'
  usr/lib/x86_64-linux-gnu/libclblast.a
)

# Python wheels the GPU machine lacks, as NAME==VERSION (its Python 3.12 has numpy, nanobind,
# scikit-build-core, pytest, hypothesis, cmake and ninja). prepare.sh downloads them into .gpu-kit/wheels.
GPU_KIT_PY_WHEELS=()

# The multiarch library folders of the prefix, for pkg-config, the linker and the loader.
gpu_kit_libdirs() {
  printf '%s\n' "$GPU_KIT_PREFIX/usr/lib/x86_64-linux-gnu" "$GPU_KIT_PREFIX/usr/lib/x86_64-linux-gnu/openblas-pthread"
}

gpu_kit_die() {
  echo "error: $*" >&2
  exit 1
}

# Fails naming the first of the given commands that is not on PATH.
gpu_kit_require() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || gpu_kit_die "'$tool' not found on PATH (needed by ${0##*/})"
  done
}

gpu_kit_usage() {  # prints the comment block at the top of the script given (its usage)
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$1"
}

gpu_kit_human() {  # bytes -> "12.3 MiB"
  awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'
}
