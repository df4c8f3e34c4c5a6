#!/usr/bin/env bash
# Run on a GPU machine, in the root of the working tree with the kit (.gpu-kit/, made by prepare.sh) in it:
#
#   bash scripts/gpu/check.sh [build|test|sanitize|bench|goals|all]... [--out DIR]
#
# Unpacks the kit into a private prefix (build/gpu-kit/root, never /), builds Accelera against it with CUDA
# for this machine's GPU (build/gpu, and the Python package in build/gpu-site), then runs the phases asked
# for, in order (default: all = build test sanitize bench goals):
#   build     configure and build everything, tests and the Python package included
#   test      every ctest test and pytest tests/python tests/seed_examples; fails when a test fails, when no
#             GPU test ran, or when a CUDA test skipped for lack of a device
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck and initcheck over the GPU tests; any finding
#             fails
#   bench     bench_cuda.py, bench_cuda_nn.py and bench_engine.py (n up to 32768, cuBLASXt as the anchor)
#   goals     the measured goals of the open issues that need a GPU: a CNN training epoch on cuda:0 against
#             the CPU (bench_train.py on synthetic data) and the offload runtime's policies and
#             par_iter(100 matrices of 1000 x 1000).gpu_map() on cuda:0 (bench_offload.py --quick)
# Each phase ends within ACCELERA_GPU_PHASE_SECONDS (default 540) and resumes from the build folders that an
# earlier call left (a phase builds first only when the sources changed or the folders are gone), so the
# phases can run as separate calls. report.md and the phases' logs (at most 8 files) go to DIR (default
# build/gpu-report). Exit status: 0 all phases passed, 1 a phase failed, 2 no CUDA device (after the build).
#
# Settings (environment): ACCELERA_CUDA_ARCHITECTURES (default: the GPU's, from nvidia-smi),
# ACCELERA_GPU_PHASE_SECONDS, ACCELERA_GPU_TEST_JOBS (concurrent ctest GPU tests, default 4),
# ACCELERA_GPU_PYTEST_ARGS (more pytest arguments, e.g. "-n 8" where pytest-xdist is installed),
# ACCELERA_SANITIZE_<TOOL>_FILTER / _SECONDS (TOOL: MEMCHECK, RACECHECK, SYNCCHECK, INITCHECK),
# ACCELERA_BENCH_ENGINE_SIZES (default "4096 8192 16384 32768").
set -euo pipefail
# shellcheck source=scripts/gpu/kit.sh
source "$(dirname "${BASH_SOURCE[0]}")/kit.sh"
ROOT=$GPU_KIT_ROOT


phases=()
out=$ROOT/build/gpu-report
while [ $# -gt 0 ]; do
  case $1 in
    build|test|sanitize|bench|goals) phases+=("$1") ;;
    all) phases+=(build test sanitize bench goals) ;;
    --out) [ $# -ge 2 ] || gpu_kit_die "--out needs a folder"; out=$2; shift ;;
    --out=*) out=${1#--out=} ;;
    -h|--help) gpu_kit_usage "${BASH_SOURCE[0]}"; exit 0 ;;
    *) gpu_kit_die "unknown argument '$1' (phases: build test sanitize bench goals all; option: --out DIR)" ;;
  esac
  shift
done
[ ${#phases[@]} -gt 0 ] || phases=(build test sanitize bench goals)
mkdir -p "$out"
out=$(cd "$out" && pwd)

BUILD=$ROOT/build/gpu            # CMake build: library, tests, CLI
PYBUILD=$ROOT/build/gpu-python   # scikit-build-core's build folder for the Python package
SITE=$ROOT/build/gpu-site        # the Python package, installed with pip --target
STATE=$ROOT/build/gpu-check      # phase results and logs, kept between calls for the report
mkdir -p "$STATE"
rm -f "$STATE/system.md"
# This call's console output also goes to the report folder (the place to look when the setup fails).
exec > >(tee "$STATE/console.log") 2>&1
PHASE_SECONDS=${ACCELERA_GPU_PHASE_SECONDS:-540}
# Where ccache is installed (not needed on the GPU machine), the CMake build and the pip build share hits.
export CCACHE_BASEDIR=$ROOT CCACHE_NOHASHDIR=1
JOBS=$(nproc)
PYTHON=${PYTHON:-python3}
KIT_PY=$GPU_KIT_SCRIPTS/kit.py

say() { echo "[check] $*"; }

# ---- tools ----------------------------------------------------------------------------------------------------

# shellcheck disable=SC2317 # called by the EXIT trap
report() {
  "$PYTHON" "$KIT_PY" report "$STATE" "$out" || say "writing the report failed"
}
trap report EXIT

gpu_kit_require cmake ninja "$PYTHON" ldd timeout
CXX_BIN=${CXX:-$(command -v c++ || command -v g++ || true)}
[ -n "$CXX_BIN" ] || gpu_kit_die "no C++ compiler: neither c++ nor g++ is on PATH (nor CXX set)"
if [ -n "${CUDACXX:-}" ]; then
  NVCC=$CUDACXX
elif command -v nvcc >/dev/null 2>&1; then
  NVCC=$(command -v nvcc)
elif [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
  NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
else
  gpu_kit_die "nvcc not found (CUDACXX, PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin): check.sh builds the CUDA backend"
fi
CUDA_BIN=$(dirname "$(readlink -f "$NVCC")")
# Python wheels of the kit (GPU_KIT_PY_WHEELS), if any, go to a private folder on PYTHONPATH.
if compgen -G "$GPU_KIT_WHEELS/*.whl" >/dev/null; then
  WHEELS_SITE=$ROOT/build/gpu-wheels
  "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$WHEELS_SITE" \
    "$GPU_KIT_WHEELS"/*.whl || gpu_kit_die "the kit's Python wheels do not install here (see above)"
  export PYTHONPATH="$WHEELS_SITE${PYTHONPATH:+:$PYTHONPATH}"
  say "Python wheels of the kit: $(find "$GPU_KIT_WHEELS" -name '*.whl' -printf '%f ')"
fi
"$PYTHON" - <<'EOF' || gpu_kit_die "$PYTHON lacks a module the build or the tests need (see above)"
import importlib.util, sys, sysconfig, os
missing = [m for m in ("numpy", "nanobind", "scikit_build_core", "pytest", "hypothesis") if importlib.util.find_spec(m) is None]
if missing:
    sys.exit(f"missing Python modules: {', '.join(missing)} (list them in GPU_KIT_PY_WHEELS of scripts/gpu/kit.sh)")
if not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
    sys.exit(f"Python.h not found in {sysconfig.get_paths()['include']}: the Python package cannot be built")
EOF

# ---- the kit: a private prefix, preferred by CMake, pkg-config, the linker and the loader ------------------------

"$PYTHON" "$KIT_PY" unpack "$GPU_KIT_TARBALL" "$GPU_KIT_PREFIX"
KIT_USR=$GPU_KIT_PREFIX/usr
mapfile -t kit_libdirs < <(gpu_kit_libdirs)
export CMAKE_PREFIX_PATH="$KIT_USR${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
PKGCONF=$KIT_USR/bin/pkgconf
export PKG_CONFIG=$PKGCONF
# The kit's .pc files only (LIBDIR replaces pkgconf's built-in /usr folders).
PKG_CONFIG_LIBDIR=$(printf '%s/pkgconfig:' "${kit_libdirs[@]}")$KIT_USR/share/pkgconfig
export PKG_CONFIG_LIBDIR PKG_CONFIG_PATH=$PKG_CONFIG_LIBDIR
# As if the packages were installed: their headers and libraries in the compiler's and the linker's default
# search paths too (CPATH, LIBRARY_PATH; Debian's alternatives put OpenBLAS's cblas.h in the multiarch folder).
CPATH=$KIT_USR/include:$KIT_USR/include/x86_64-linux-gnu:$KIT_USR/include/x86_64-linux-gnu/openblas-pthread${CPATH:+:$CPATH}
LIBRARY_PATH=$(IFS=:; echo "${kit_libdirs[*]}")${LIBRARY_PATH:+:$LIBRARY_PATH}
# Libraries that the kit's libraries need (libgfortran for OpenBLAS, libfmt for spdlog) are found through the
# loader's path: the build tree's RUNPATH covers only direct dependencies.
LD_LIBRARY_PATH=$(IFS=:; echo "${kit_libdirs[*]}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CPATH LIBRARY_PATH LD_LIBRARY_PATH
"$PYTHON" "$KIT_PY" libcheck "$GPU_KIT_PREFIX"
if [ -f "$KIT_USR/include/CL/cl.h" ] && [ -e "${kit_libdirs[0]}/libOpenCL.so" ] &&
   [ -f "${kit_libdirs[0]}/cmake/CLBlast/CLBlastConfig.cmake" ] && [ -f "$KIT_USR/include/vkFFT.h" ]; then
  OPENCL=ON
else
  OPENCL=OFF
  say "OpenCL off: the kit lacks the OpenCL headers, the ICD loader, CLBlast or VkFFT"
fi

# ---- the GPU ----------------------------------------------------------------------------------------------------

GPU_NAME="" GPU_DRIVER="" GPU_MEMORY="" GPU_CC="" SMI_REASON=""
if ! command -v nvidia-smi >/dev/null 2>&1; then
  SMI_REASON="nvidia-smi not found"
elif ! smi=$(nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader 2>&1); then
  SMI_REASON="nvidia-smi: $(head -n1 <<<"$smi")"
elif [ -z "$smi" ]; then
  SMI_REASON="nvidia-smi lists no GPU"
else
  IFS=, read -r GPU_NAME GPU_CC GPU_DRIVER GPU_MEMORY <<<"$(head -n1 <<<"$smi")"
  GPU_CC=${GPU_CC// /} GPU_DRIVER=${GPU_DRIVER# } GPU_MEMORY=${GPU_MEMORY# }
fi
if [ -n "${ACCELERA_CUDA_ARCHITECTURES:-}" ]; then
  ARCH=$ACCELERA_CUDA_ARCHITECTURES
elif [ -n "$GPU_CC" ]; then
  ARCH=${GPU_CC//./}
else
  ARCH=90
  say "no GPU to read the architecture from ($SMI_REASON): building for sm_$ARCH"
fi

# ---- the machine, for the report --------------------------------------------------------------------------------

cpu_model=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)
memory=$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
kit_packages=$(grep '^package ' "$GPU_KIT_MANIFEST" 2>/dev/null | awk '{ printf "%s%s", sep, $2; sep = ", " }' || true)
{
  echo "| | |"
  echo "| --- | --- |"
  echo "| date (UTC) | $(date -u '+%Y-%m-%d %H:%M') |"
  echo "| machine | $(uname -srm); ${cpu_model:-CPU} x $JOBS; $memory |"
  if [ -n "$GPU_NAME" ]; then
    echo "| GPU | $GPU_NAME, compute capability $GPU_CC, $GPU_MEMORY |"
    echo "| driver | $GPU_DRIVER (CUDA $(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n1)) |"
  else
    echo "| GPU | none: $SMI_REASON |"
  fi
  echo "| nvcc | $("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') ($NVCC); built for sm_$ARCH |"
  echo "| compiler | $("$CXX_BIN" --version | head -n1) |"
  echo "| cmake, Python | $(cmake --version | head -n1 | awk '{print $3}')," \
    "$("$PYTHON" -c 'import sys; print(sys.version.split()[0])') ($(command -v "$PYTHON")) |"
  echo "| kit | Debian 12 packages ($kit_packages) in $GPU_KIT_PREFIX; OpenCL $OPENCL |"
} > "$STATE/system.md"

# ---- phases -------------------------------------------------------------------------------------------------------

phase_start() {  # PHASE: resets its log and result, sets the deadline (within OUTER_DEADLINE, if set)
  PHASE=$1
  PHASE_T0=$(date +%s)
  DEADLINE=$((PHASE_T0 + PHASE_SECONDS))
  if [ -n "${OUTER_DEADLINE:-}" ] && [ "$OUTER_DEADLINE" -lt "$DEADLINE" ]; then DEADLINE=$OUTER_DEADLINE; fi
  rm -f "$STATE/$PHASE.status" "$STATE/$PHASE.md"
  : > "$STATE/$PHASE.log"
  say "$PHASE: start (at most ${PHASE_SECONDS} s)"
}

phase_end() {  # STATUS
  local seconds=$(($(date +%s) - PHASE_T0))
  echo "$1" > "$STATE/$PHASE.status"
  printf '{"seconds": %d, "when": "%s"}\n' "$seconds" "$(date -u '+%Y-%m-%d %H:%M')" > "$STATE/$PHASE.json"
  say "$PHASE: $1 in $seconds s"
}

remaining() {
  local r=$((DEADLINE - $(date +%s)))
  [ "$r" -gt 1 ] || r=1
  echo "$r"
}

# run LIMIT CMD...: runs CMD with the phase's log, killed after LIMIT seconds (status 124).
run() {
  local limit=$1
  shift
  echo "+ $*" >> "$STATE/$PHASE.log"
  set +e
  timeout --kill-after=20 "$limit" "$@" 2>&1 | tee -a "$STATE/$PHASE.log"
  local rc=${PIPESTATUS[0]}
  set -e
  return "$rc"
}

source_fingerprint() {
  (
    cd "$ROOT"
    find CMakeLists.txt pyproject.toml cmake src include python cli tests bench -type f \
      -not -path '*/__pycache__/*' -print0 | sort -z | xargs -0 sha256sum
    echo "arch=$ARCH opencl=$OPENCL kit=$(cat "$GPU_KIT_PREFIX/.kit-sha256")"
  ) | sha256sum | cut -d' ' -f1
}

phase_build() {
  phase_start build
  local rc=0 t
  t=$(date +%s)
  run "$(remaining)" cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DACCELERA_BUILD_TESTS=ON -DACCELERA_BUILD_CLI=ON -DACCELERA_CUDA=ON -DACCELERA_OPENCL=$OPENCL -DACCELERA_MPI=OFF \
    -DCMAKE_CXX_COMPILER="$CXX_BIN" -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DPKG_CONFIG_EXECUTABLE="$PKGCONF" || rc=$?
  [ $rc -ne 0 ] || run "$(remaining)" cmake --build "$BUILD" -j "$JOBS" || rc=$?
  local t_cmake=$(($(date +%s) - t))
  t=$(date +%s)
  [ $rc -ne 0 ] || run "$(remaining)" "$PYTHON" -m pip install --no-index --no-deps --no-build-isolation --no-compile \
    --no-cache-dir \
    --upgrade --target "$SITE" -C build-dir="$PYBUILD" -C cmake.define.ACCELERA_CUDA=ON \
    -C cmake.define.ACCELERA_OPENCL=$OPENCL -C cmake.define.CMAKE_CXX_COMPILER="$CXX_BIN" \
    -C cmake.define.CMAKE_CUDA_COMPILER="$NVCC" \
    -C cmake.define.CMAKE_CUDA_ARCHITECTURES="$ARCH" -C cmake.define.PKG_CONFIG_EXECUTABLE="$PKGCONF" \
    "$ROOT" || rc=$?
  local t_pip=$(($(date +%s) - t))
  {
    grep -m1 -- '-- accelera ' "$STATE/build.log" | sed 's/^-- //' || true
    echo
    echo "CMake build (build/gpu): ${t_cmake} s; Python package (pip, build/gpu-python): ${t_pip} s; $JOBS jobs."
    echo
    echo "Dependencies as CMake found them (the kit's prefix is $GPU_KIT_PREFIX):"
    echo
    grep -E '^(fmt|spdlog|GTest|CLI11|nlohmann_json|CLBlast|hwy|benchmark)_DIR:|^OPENBLAS_LINK_LIBRARIES:' \
      "$BUILD/CMakeCache.txt" 2>/dev/null | sed 's/^/    /' || true
    grep -E '^OpenCL_LIBRARY:|^OpenCL_INCLUDE_DIR:|^PKG_CONFIG_EXECUTABLE:' "$BUILD/CMakeCache.txt" 2>/dev/null |
      sed 's/^/    /' || true
    echo
    echo "Libraries libaccelera loads (ldd):"
    echo
    ldd "$BUILD"/src/libaccelera.so 2>/dev/null | grep -E 'fmt|spdlog|openblas|gfortran|OpenCL|clblast|hwy|cuda|cublas|nvrtc' |
      sed 's/ (0x[0-9a-f]*)//; s/^[[:space:]]*/    /' || true
  } > "$STATE/build.md"
  if [ $rc -eq 0 ]; then
    local now
    now=$(source_fingerprint)
    if [ "$now" != "$(cat "$STATE/build.stamp" 2>/dev/null)" ]; then
      # A new build: the results of the other phases were those of the one before.
      rm -f "$STATE"/test.* "$STATE"/sanitize.* "$STATE"/sanitize-* "$STATE"/bench.* "$STATE"/bench-* \
        "$STATE"/goals.* "$STATE"/goals-* "$STATE"/ctest-*.xml "$STATE/pytest.xml"
    fi
    echo "$now" > "$STATE/build.stamp"
    phase_end PASS
  else
    rm -f "$STATE/build.stamp"
    phase_end "$([ $rc -eq 124 ] && echo INCOMPLETE || echo FAIL) (exit $rc, see build.log)"
  fi
  return $rc
}

# The build that the other phases run on, within their time: rebuilt only when the sources, the architecture
# or the kit changed, or the build folders are gone (a fresh machine).
ensure_built() {
  if [ -f "$STATE/build.stamp" ] && [ -f "$BUILD/build.ninja" ] && [ -d "$SITE/accelera" ] &&
     [ "$(cat "$STATE/build.stamp")" = "$(source_fingerprint)" ]; then
    return 0
  fi
  say "$PHASE: the build is missing or out of date: building first"
  local saved=("$PHASE" "$PHASE_T0" "$DEADLINE") rc=0
  OUTER_DEADLINE=$DEADLINE phase_build || rc=$?
  PHASE=${saved[0]} PHASE_T0=${saved[1]} DEADLINE=${saved[2]}
  return $rc
}

# Exits 2 unless Accelera sees a CUDA device, saying why not (its reason, and nvidia-smi's).
require_gpu() {
  rm -f "$STATE/no-gpu.txt"
  "$PYTHON" "$KIT_PY" probe "$BUILD/cli/accelera" "$STATE/probe.json" && return 0
  local why
  why=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["reason"])' "$STATE/probe.json")
  [ -z "$SMI_REASON" ] || why="$why; $SMI_REASON"
  [ "$PHASE" = build ] || phase_end "NOT RUN (no CUDA device)"
  echo "no CUDA device: $why" | tee "$STATE/no-gpu.txt" >&2
  exit 2
}

phase_test() {
  phase_start test
  ensure_built || { phase_end "FAIL (the build failed)"; return 1; }
  require_gpu
  local rc late=0 gpu_jobs=${ACCELERA_GPU_TEST_JOBS:-4}
  rm -f "$STATE"/ctest-*.xml "$STATE/pytest.xml"
  rc=0; run "$(remaining)" ctest --test-dir "$BUILD" -LE gpu -j "$JOBS" --timeout 600 --output-on-failure \
    --test-output-size-passed 8192 --output-junit "$STATE/ctest-other.xml" || rc=$?
  [ $rc -ne 124 ] || { late=1; say "test: ctest (other tests) stopped at the phase's time limit"; }
  rc=0; run "$(remaining)" ctest --test-dir "$BUILD" -L gpu -j "$gpu_jobs" --timeout 600 --output-on-failure \
    --test-output-size-passed 8192 --output-junit "$STATE/ctest-gpu.xml" || rc=$?
  [ $rc -ne 124 ] || { late=1; say "test: ctest (label gpu) stopped at the phase's time limit"; }
  # pytest_cuda_usage (scripts/gpu) records which tests allocated on a CUDA device.
  local pytest_args=()
  read -r -a pytest_args <<<"${ACCELERA_GPU_PYTEST_ARGS:-}"
  rc=0; (cd "$ROOT" && PYTHONPATH="$SITE:$GPU_KIT_SCRIPTS${PYTHONPATH:+:$PYTHONPATH}" PATH="$SITE/bin:$PATH" run "$(remaining)" "$PYTHON" -m pytest \
    tests/python tests/seed_examples -q -rs -p no:cacheprovider -p pytest_cuda_usage --junitxml="$STATE/pytest.xml" "${pytest_args[@]}") ||
    rc=$?
  [ $rc -ne 124 ] || { late=1; say "test: pytest stopped at the phase's time limit"; }
  if "$PYTHON" "$KIT_PY" tests "$STATE" >> "$STATE/test.log"; then
    phase_end PASS
  else
    phase_end "$([ $late -eq 1 ] && echo "INCOMPLETE (stopped at the phase's time limit)" || echo FAIL)"
    return 1
  fi
}

# Sanitizer runs: which GPU tests each tool sees and for how long (see the README's "Verifying on a GPU").
GPU_FILTER='*/cuda*:Cuda*'
# Racecheck and synccheck look at shared memory and barriers: the kernels that use them (reductions, GELU,
# LayerNorm, softmax, attention), without the long-sequence attention cases (the same kernels, more blocks).
SHARED_FILTER='CudaHalfOps.*:CudaHalfAttention.*:CudaHalf/CudaHalfNn.*:AllDevices/*/cuda*'
SHARED_FILTER+=':Devices/DeviceOps.ReductionsMatchFloat64/cuda*-*LongSequences*'
declare -A SAN_FILTER=([memcheck]=$GPU_FILTER [racecheck]=$SHARED_FILTER [synccheck]=$SHARED_FILTER [initcheck]=$GPU_FILTER)
declare -A SAN_SECONDS=([memcheck]=180 [racecheck]=120 [synccheck]=90 [initcheck]=120)

phase_sanitize() {
  phase_start sanitize
  ensure_built || { phase_end "FAIL (the build failed)"; return 1; }
  require_gpu
  local sanitizer
  if [ -x "$CUDA_BIN/compute-sanitizer" ]; then
    sanitizer=$CUDA_BIN/compute-sanitizer
  elif command -v compute-sanitizer >/dev/null 2>&1; then
    sanitizer=$(command -v compute-sanitizer)
  else
    phase_end "FAIL (compute-sanitizer not found beside nvcc nor on PATH)"
    return 1
  fi
  local help common=() exclude=() notes=() memcheck_extra=() racecheck_extra=()
  help=$("$sanitizer" --help 2>&1 || true)
  has() { grep -q -- "$1" <<<"$help"; }
  # Options beyond --tool and --log-file are used only where this compute-sanitizer lists them.
  ! has '--print-limit' || common+=(--print-limit 200)
  if has '--kernel-name-exclude' && has 'kernel_regex'; then
    # cuBLAS's own kernels are not ours to fix, and dominate the run time under racecheck and initcheck.
    exclude=(--kernel-name-exclude 'kernel_regex=gemm|gemv|cutlass|xmma|splitKreduce')
    notes+=("racecheck and initcheck skip cuBLAS's kernels (names matching gemm, gemv, cutlass, xmma, splitKreduce); memcheck checks them too.")
  elif has '--kernel-name-exclude' && has 'kernel_substring'; then
    exclude=(--kernel-name-exclude 'kernel_substring=gemm')
    notes+=("racecheck and initcheck skip the kernels whose names contain gemm (cuBLAS's); memcheck checks them too.")
  else
    notes+=("this compute-sanitizer cannot exclude kernels by name: every tool checks cuBLAS's kernels too.")
  fi
  ! has '--leak-check' || memcheck_extra+=(--leak-check no)
  if has '--padding'; then
    memcheck_extra+=(--padding 256)
    notes+=("memcheck pads every allocation with 256 bytes, so that an access past a block's end does not land in the next block.")
  fi
  ! has '--racecheck-report' || racecheck_extra+=(--racecheck-report all)
  local note="Accelera's caching allocator rounds blocks up to size classes: memcheck sees accesses past a"
  notes+=("$note block's rounded end, initcheck also reads of its unwritten tail.")
  local tool rc limit t settings="{"
  rm -f "$STATE"/sanitize-*
  for tool in memcheck racecheck synccheck initcheck; do
    local var=${tool^^}
    local filter_var=ACCELERA_SANITIZE_${var}_FILTER seconds_var=ACCELERA_SANITIZE_${var}_SECONDS
    local filter=${!filter_var:-${SAN_FILTER[$tool]}}
    limit=${!seconds_var:-${SAN_SECONDS[$tool]}}
    [ "$limit" -le "$(remaining)" ] || limit=$(remaining)
    local extra=()
    case $tool in
      memcheck) extra=("${memcheck_extra[@]}") ;;
      racecheck) extra=("${exclude[@]}" "${racecheck_extra[@]}") ;;
      initcheck) extra=("${exclude[@]}") ;;
    esac
    say "sanitize: $tool over '$filter' (at most $limit s)"
    t=$(date +%s)
    rc=0
    run "$limit" "$sanitizer" --tool "$tool" "${common[@]}" "${extra[@]}" --log-file "$STATE/sanitize-$tool.log" \
      "$BUILD/tests/cpp/accelera_tests" --gtest_filter="$filter" > "$STATE/sanitize-$tool.out" || rc=$?
    "$PYTHON" "$KIT_PY" sanitizer "$STATE" "$tool" "$rc" | tee -a "$STATE/sanitize.log" || true
    {
      echo "===== $tool: compute-sanitizer log"
      cat "$STATE/sanitize-$tool.log" 2>/dev/null || true
    } >> "$STATE/sanitize.log"
    settings+="\"$tool\": {\"filter\": \"$filter\", \"limit\": $limit, \"seconds\": $(($(date +%s) - t))}, "
  done
  local notes_json
  notes_json=$("$PYTHON" -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "${notes[@]}")
  echo "$settings\"notes\": $notes_json}" > "$STATE/sanitize-settings.json"
  if "$PYTHON" - "$STATE" <<'EOF'
import json, sys, pathlib
st = pathlib.Path(sys.argv[1])
sys.exit(0 if all(json.loads((st / f"sanitize-{t}.json").read_text())["status"] == "CLEAN"
                  for t in ("memcheck", "racecheck", "synccheck", "initcheck")) else 1)
EOF
  then
    phase_end PASS
  else
    phase_end FAIL
    return 1
  fi
}

# bench_step TITLE FILE CMD...: runs a benchmark within the phase's time; its table (stdout) goes to the
# report section $BENCH_MD. Status: the command's.
bench_step() {
  local title=$1 file=$2
  shift 2
  echo "+ $*" | tee -a "$STATE/$PHASE.log"
  rc=0
  (cd "$ROOT" && PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 timeout --kill-after=20 "$(remaining)" "$@" \
    > "$STATE/$file" 2> "$STATE/$file.err") || rc=$?
  tee -a "$STATE/$PHASE.log" < "$STATE/$file"
  tee -a "$STATE/$PHASE.log" < "$STATE/$file.err"
  {
    echo "### $title"
    echo
    echo "\`$*\`"
    echo
    cat "$STATE/$file"
    echo
    if [ $rc -ne 0 ] && [ $rc -ne 3 ]; then
      echo "**exit $rc$([ $rc -eq 124 ] && echo ': stopped at the phase time limit')**"
      echo
      tail -n 5 "$STATE/$file.err" | sed 's/^/    /'
    fi
    echo
  } >> "$BENCH_MD"
  return $rc
}

phase_bench() {
  phase_start bench
  ensure_built || { phase_end "FAIL (the build failed)"; return 1; }
  require_gpu
  local sizes=${ACCELERA_BENCH_ENGINE_SIZES:-4096 8192 16384 32768} failed=0 rc
  BENCH_MD=$STATE/bench.md
  : > "$BENCH_MD"
  bench_step "Matmul, element-wise, transfers" bench-cuda.md "$PYTHON" bench/bench_cuda.py --device cuda:0 || failed=1
  bench_step "Fused NN kernels" bench-cuda-nn.md "$PYTHON" bench/bench_cuda_nn.py --device cuda:0 || failed=1
  # shellcheck disable=SC2086 # sizes is a list
  bench_step "Out-of-core matmul, float32, against cuBLASXt" bench-engine.md "$PYTHON" bench/bench_engine.py \
    --device cuda:0 --sizes $sizes --repeat 2 --anchor cublasxt || failed=1
  rc=0
  bench_step "Out-of-core matmul, bfloat16" bench-engine-bf16.md "$PYTHON" bench/bench_engine.py --device cuda:0 \
    --sizes 4096 --dtype bfloat16 || rc=$?
  [ $rc -eq 0 ] || [ $rc -eq 3 ] || failed=1  # 3: the engine does not take bfloat16 (the table says so)
  if [ $failed -eq 0 ]; then phase_end PASS; else phase_end FAIL; return 1; fi
}

phase_goals() {
  phase_start goals
  ensure_built || { phase_end "FAIL (the build failed)"; return 1; }
  require_gpu
  local failed=0
  BENCH_MD=$STATE/goals.md
  : > "$BENCH_MD"
  # Synthetic images (the kit carries no dataset) and no PyTorch rows (the kit carries no torch): the goal
  # is cuda:0's epoch against the CPU's, both Accelera's.
  bench_step "CNN training epoch, cuda:0 against the CPU (goal: >= 10x)" goals-train.md "$PYTHON" \
    bench/bench_train.py --part cnn --cnn-epochs 0 --rounds 1 --devices cpu,cuda:0 --synthetic --no-torch \
    --markdown || failed=1
  bench_step "Offload runtime on cuda:0: policies, prediction error, par_iter().gpu_map()" goals-offload.md \
    "$PYTHON" bench/bench_offload.py --devices cuda:0 --quick --par-iter 100x1000 --repeat 1 --markdown || failed=1
  if [ $failed -eq 0 ]; then phase_end PASS; else phase_end FAIL; return 1; fi
}

status=0
for p in "${phases[@]}"; do
  case $p in
    build) phase_build && require_gpu || status=1 ;;
    test) phase_test || status=1 ;;
    sanitize) phase_sanitize || status=1 ;;
    bench) phase_bench || status=1 ;;
    goals) phase_goals || status=1 ;;
  esac
done
exit $status
