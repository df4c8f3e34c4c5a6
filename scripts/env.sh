# Shared settings for the build scripts (sourced, not run).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-python3}
# ccache hits across build folders need paths relative to the repository.
export CCACHE_BASEDIR="$ROOT"
export CCACHE_NOHASHDIR=1
# Two cores: parallel builds of two jobs keep memory use modest.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

install_package() {
  # Builds and installs the Python package and the `accelera` command (incremental in build/python).
  # Extra arguments go to pip (e.g. -C cmake.define.X=Y).
  "$PYTHON" -m pip install -q --no-build-isolation -C build-dir=build/python "$@" "$ROOT"
}
