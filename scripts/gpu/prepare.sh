#!/usr/bin/env bash
# Run here, on Debian 12 (bookworm) amd64 with network access: fetches what a bare GPU machine lacks to
# build and test Accelera and packs it into .gpu-kit/, the folder to take along with the working tree.
#
#   bash scripts/gpu/prepare.sh
#
# The Debian packages of scripts/gpu/kit.sh (gpu_kit_packages: the libraries of scripts/install-deps.sh and
# a few more) and every dependency that a machine with none of them would need (minus GPU_KIT_EXCLUDED) are
# downloaded with `apt-get download` into build/gpu-kit/debs, unpacked, trimmed (documentation, sources,
# static libraries with shared twins) and packed into
# .gpu-kit/debian-bookworm-amd64.tar.xz with a MANIFEST. Python wheels listed in GPU_KIT_PY_WHEELS go to
# .gpu-kit/wheels. Re-running fetches only what is missing and repacks only when the package set changed.
set -euo pipefail
# shellcheck source=scripts/gpu/kit.sh
source "$(dirname "${BASH_SOURCE[0]}")/kit.sh"

if [ $# -gt 0 ]; then
  case $1 in
    -h|--help) gpu_kit_usage "${BASH_SOURCE[0]}"; exit 0 ;;
    *) gpu_kit_die "prepare.sh takes no arguments (got '$1')" ;;
  esac
fi

gpu_kit_require apt-get dpkg dpkg-deb tar xz sha256sum python3 git
# shellcheck source=/dev/null
. /etc/os-release
if [ "${ID:-}" != debian ] || [ "${VERSION_ID:-}" != 12 ]; then
  gpu_kit_die "prepare.sh fetches Debian 12 (bookworm) packages and must run on Debian 12; this is ${PRETTY_NAME:-an unknown system}"
fi
arch=$(dpkg --print-architecture)
[ "$arch" = amd64 ] || gpu_kit_die "prepare.sh must run on amd64 (the GPU machine is x86-64); this is $arch"

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=0
apt_update() {
  [ "$apt_updated" -eq 0 ] || return 1
  echo "updating the package lists (apt-get update)"
  sudo_if_needed apt-get update -qq
  apt_updated=1
}

# ---- 1. the package set: what apt would install on a machine that has none of the packages -------------

mapfile -t top < <(gpu_kit_packages)
empty_status=$(mktemp)
trap 'rm -f "$empty_status"' EXIT
resolve() {
  apt-get -s -o Dir::State::status="$empty_status" -o APT::Install-Recommends=false \
    -o APT::Install-Suggests=false install "${top[@]}" 2>&1
}
if ! plan=$(resolve); then
  apt_update || true
  plan=$(resolve) || { echo "$plan" >&2; gpu_kit_die "apt-get cannot resolve the kit's packages (see above)"; }
fi

# "Inst NAME (VERSION RELEASE [ARCH])" -> "NAME VERSION ARCH"
mapfile -t wanted < <(sed -nE 's/^Inst ([^ ]+) \(([^ ]+) .*\[([a-z0-9]+)\]\).*/\1 \2 \3/p' <<<"$plan" | sort)
[ ${#wanted[@]} -gt 0 ] || { echo "$plan" >&2; gpu_kit_die "apt-get planned no packages (see above)"; }

declare -A excluded=()
for p in "${GPU_KIT_EXCLUDED[@]}"; do excluded[$p]=1; done
packages=()   # NAME=VERSION
files=()      # the file names apt-get download gives them
for line in "${wanted[@]}"; do
  read -r name version arch <<<"$line"
  [ -z "${excluded[$name]:-}" ] || continue
  packages+=("$name=$version")
  files+=("${name}_${version//:/%3a}_${arch}.deb")
done
echo "kit packages (${#packages[@]}): ${packages[*]}"

# ---- 2. download what is missing ------------------------------------------------------------------------

mkdir -p "$GPU_KIT_DEBS"
missing=()
for i in "${!packages[@]}"; do
  f=$GPU_KIT_DEBS/${files[$i]}
  if [ -f "$f" ] && dpkg-deb --info "$f" >/dev/null 2>&1; then continue; fi
  rm -f "$f"
  missing+=("${packages[$i]}")
done
download() {
  local sandbox=()
  # As root, apt would hand the download to its unprivileged user, who cannot write here.
  [ "$(id -u)" -ne 0 ] || sandbox=(-o APT::Sandbox::User=root)
  (cd "$GPU_KIT_DEBS" && apt-get -q "${sandbox[@]}" download "$@")
}
if [ ${#missing[@]} -gt 0 ]; then
  echo "downloading ${#missing[@]} packages into ${GPU_KIT_DEBS#"$GPU_KIT_ROOT"/}"
  if ! download "${missing[@]}"; then
    apt_update || gpu_kit_die "apt-get download failed (see above)"
    download "${missing[@]}" || gpu_kit_die "apt-get download failed (see above)"
  fi
else
  echo "all ${#packages[@]} packages already downloaded"
fi
for f in "${files[@]}"; do
  [ -f "$GPU_KIT_DEBS/$f" ] || gpu_kit_die "apt-get download did not produce $f"
done
# Packages of an earlier package set (other versions) are removed.
declare -A keep=()
for f in "${files[@]}"; do keep[$f]=1; done
for f in "$GPU_KIT_DEBS"/*.deb; do
  b=${f##*/}
  if [ -z "${keep[$b]:-}" ]; then echo "removing $b (no longer in the kit)"; rm -f "$f"; fi
done

# ---- 3. unpack, trim and pack (only when the package set or these scripts changed) -----------------------

fingerprint=$(
  cd "$GPU_KIT_DEBS"
  { sha256sum "${files[@]}"; sha256sum "$GPU_KIT_SCRIPTS/prepare.sh" "$GPU_KIT_SCRIPTS/kit.sh" | cut -d' ' -f1; } | sha256sum | cut -d' ' -f1
)
mkdir -p "$GPU_KIT_DIR"
if [ -f "$GPU_KIT_TARBALL" ] && [ -f "$GPU_KIT_MANIFEST" ] && grep -qx "fingerprint $fingerprint" "$GPU_KIT_MANIFEST"; then
  echo "kit up to date: ${GPU_KIT_TARBALL#"$GPU_KIT_ROOT"/}"
else
  stage=$GPU_KIT_WORK/stage
  rm -rf "$stage"
  mkdir -p "$stage"
  echo "unpacking ${#files[@]} packages"
  for f in "${files[@]}"; do dpkg-deb -x "$GPU_KIT_DEBS/$f" "$stage"; done
  (
    cd "$stage"
    shopt -s nullglob
    for pattern in "${GPU_KIT_PRUNE[@]}"; do
      # shellcheck disable=SC2086 # the patterns are globs
      rm -rf -- $pattern
    done
  )
  # Links left dangling by the trimming go; absolute links would point outside the prefix: make them relative.
  find "$stage" -xtype l -delete
  python3 - "$stage" <<'EOF'
import os, sys
stage = sys.argv[1]
for dirpath, dirnames, filenames in os.walk(stage):
    for name in dirnames + filenames:
        path = os.path.join(dirpath, name)
        if os.path.islink(path) and os.readlink(path).startswith("/"):
            target = os.path.join(stage, os.readlink(path).lstrip("/"))
            os.remove(path)
            os.symlink(os.path.relpath(target, dirpath), path)
EOF
  find "$stage" -type d -empty -delete
  {
    echo "# Accelera GPU kit: Debian 12 (bookworm) amd64 packages, unpacked under usr/ (made by scripts/gpu/prepare.sh)"
    echo "fingerprint $fingerprint"
    for p in "${packages[@]}"; do echo "package ${p%%=*} ${p#*=}"; done
  } > "$stage/MANIFEST"
  echo "packing ${GPU_KIT_TARBALL#"$GPU_KIT_ROOT"/} ($(du -sh "$stage" | cut -f1) unpacked)"
  tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner -cf - . | xz -T0 -9 > "$GPU_KIT_TARBALL.tmp"
  mv "$GPU_KIT_TARBALL.tmp" "$GPU_KIT_TARBALL"
  cp "$stage/MANIFEST" "$GPU_KIT_MANIFEST"
  rm -rf "$stage"
fi

# ---- 4. Python wheels -------------------------------------------------------------------------------------

if [ ${#GPU_KIT_PY_WHEELS[@]} -eq 0 ]; then
  rm -rf "$GPU_KIT_WHEELS"
  echo "Python wheels: none needed (the GPU machine's Python has what the build and the tests import)"
else
  mkdir -p "$GPU_KIT_WHEELS"
  for spec in "${GPU_KIT_PY_WHEELS[@]}"; do
    name=${spec%%==*}
    norm=$(tr '-' '_' <<<"$name")
    if compgen -G "$GPU_KIT_WHEELS/${norm}-${spec#*==}-*.whl" >/dev/null; then continue; fi
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform any -d "$GPU_KIT_WHEELS" "$spec" \
      || gpu_kit_die "no Python 3.12 x86-64 wheel of $spec"
  done
  echo "Python wheels: $(find "$GPU_KIT_WHEELS" -name '*.whl' -printf '%f ')"
fi

# ---- 5. what travels ----------------------------------------------------------------------------------------

kit_bytes=$(du -sb "$GPU_KIT_DIR" | cut -f1)
tree_bytes=$(cd "$GPU_KIT_ROOT" && git ls-files -z --cached --others --exclude-standard |
  python3 -c 'import os, sys; print(sum(os.lstat(p).st_size for p in sys.stdin.read().split("\0") if p and os.path.lexists(p)))')
total=$((kit_bytes + tree_bytes))
limit=$((64 * 1048576))
echo "kit: ${GPU_KIT_DIR#"$GPU_KIT_ROOT"/} $(gpu_kit_human "$kit_bytes"); working tree $(gpu_kit_human "$tree_bytes");" \
  "together $(gpu_kit_human "$total") of $(gpu_kit_human "$limit")"
[ "$total" -lt "$limit" ] || gpu_kit_die "the working tree and the kit exceed 64 MiB together"
echo "carry: ${GPU_KIT_DIR#"$GPU_KIT_ROOT"/}"
