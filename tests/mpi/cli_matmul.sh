#!/usr/bin/env bash
# `mpirun -np N accelera matmul` (Note [Matmul under MPI]): products of .npy files (C and Fortran order,
# float32 and float64, odd shapes) against NumPy, and failures that leave no output: inputs that do not fit
# (every rank agrees), an output directory that does not exist (rank 0 finds it), a device no rank has
# (every rank stops the job during the product).
# Usage: cli_matmul.sh ACCELERA_PROGRAM RANKS
set -euo pipefail
program=$1
ranks=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
launch=(mpirun -np "$ranks" --oversubscribe "$program" matmul)

python3 - "$work" <<'PY'
import sys
import numpy as np
work = sys.argv[1]
rng = np.random.default_rng(11)
np.save(f"{work}/a64.npy", rng.uniform(-1, 1, (301, 263)))
np.save(f"{work}/b64.npy", np.asfortranarray(rng.uniform(-1, 1, (263, 517))))
np.save(f"{work}/a32.npy", rng.uniform(-1, 1, (1, 700)).astype(np.float32))
np.save(f"{work}/b32.npy", rng.uniform(-1, 1, (700, 3)).astype(np.float32))
PY

for dt in 64 32; do
  "${launch[@]}" "$work/a$dt.npy" "$work/b$dt.npy" -o "$work/c$dt.npy" > "$work/log" 2>&1 || {
    cat "$work/log"; echo "FAIL: float$dt product exited non-zero"; exit 1; }
  grep -q "on $ranks ranks" "$work/log" || { cat "$work/log"; echo "FAIL: the run did not use $ranks ranks"; exit 1; }
done
python3 - "$work" <<'PY'
import sys
import numpy as np
work = sys.argv[1]
for dt, eps in (("64", 1.2e-16), ("32", 6e-8)):
    a, b, c = (np.load(f"{work}/{n}{dt}.npy") for n in "abc")
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert c.dtype == a.dtype and c.shape == want.shape, (c.dtype, c.shape)
    err = np.abs(c - want).max()
    assert err <= 8 * a.shape[1] * eps, f"float{dt}: max error {err}"
PY

expect_failure() {  # what, words the error must contain, arguments...
  local what=$1 words=$2
  shift 2
  if "${launch[@]}" "$@" > "$work/log" 2>&1; then cat "$work/log"; echo "FAIL: $what succeeded"; exit 1; fi
  grep -q -- "$words" "$work/log" || { cat "$work/log"; echo "FAIL: $what: no '$words' in the error"; exit 1; }
}
expect_failure "mismatched inputs" "A's columns must equal B's rows" "$work/a64.npy" "$work/a64.npy" -o "$work/x.npy"
expect_failure "a missing output directory" "cannot create a temporary" "$work/a64.npy" "$work/b64.npy" \
  -o "$work/missing/x.npy"
expect_failure "a device no rank has" "no such device opencl:57" "$work/a64.npy" "$work/b64.npy" -o "$work/x.npy" \
  --device opencl:57
# Nothing at the output path, and no temporary left beside it.
leftovers=$(find "$work" -name '*x.npy*')
[ -z "$leftovers" ] || { echo "FAIL: left behind: $leftovers"; exit 1; }
echo "mpirun -np $ranks accelera matmul: products match NumPy; failures leave no output"
