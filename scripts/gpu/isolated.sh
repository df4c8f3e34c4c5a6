#!/usr/bin/env bash
# Runs a command on this machine as the bare GPU machine would see it: in a private mount namespace where
# everything that the kit's Debian packages installed here (headers, libraries, CMake and pkg-config files,
# pkg-config itself) is hidden under an overlay on /usr, so that a build can find those packages only in the
# kit's private prefix. A kit that lacks something the build needs then fails here, not on the GPU machine.
#
#   bash scripts/gpu/isolated.sh bash scripts/gpu/check.sh build
#
# Needs root for the mount namespace and the overlay; nothing changes outside the namespace. Run with sudo, it
# runs the command as the user who called sudo.
set -euo pipefail
# shellcheck source=scripts/gpu/kit.sh
source "$(dirname "${BASH_SOURCE[0]}")/kit.sh"

if [ "${1:-}" != --inside ]; then
  case ${1:-} in
    -h|--help) gpu_kit_usage "${BASH_SOURCE[0]}"; exit 0 ;;
    '') gpu_kit_usage "${BASH_SOURCE[0]}" >&2; exit 1 ;;
  esac
  [ "$(id -u)" -eq 0 ] || gpu_kit_die "isolated.sh needs root (or sudo): it mounts an overlay on /usr in a private mount namespace"
  gpu_kit_require unshare mount dpkg-query find setpriv
  unshare --mount true 2>/dev/null ||
    gpu_kit_die "cannot create a mount namespace here (unshare --mount needs the CAP_SYS_ADMIN capability)"
  [ -f "$GPU_KIT_MANIFEST" ] || gpu_kit_die "no kit manifest at $GPU_KIT_MANIFEST: run scripts/gpu/prepare.sh first"
  exec unshare --mount --propagation private -- bash "${BASH_SOURCE[0]}" --inside "$@"
fi
shift

# Inside the namespace: an overlay on /usr whose upper layer (on a private tmpfs) records the deletions.
layer=$(mktemp -d /tmp/accelera-isolated.XXXXXX)
mount -t tmpfs tmpfs "$layer" || gpu_kit_die "cannot mount a tmpfs in the namespace"
mkdir "$layer/upper" "$layer/work"
mount -t overlay overlay -o "lowerdir=/usr,upperdir=$layer/upper,workdir=$layer/work" /usr ||
  gpu_kit_die "cannot mount an overlay on /usr (overlayfs missing?)"

mapfile -t packages < <(awk '$1 == "package" { print $2 }' "$GPU_KIT_MANIFEST")
hidden=0 installed=0
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || continue
  installed=$((installed + 1))
  while IFS= read -r f; do
    case $f in /usr/*|/lib/*|/lib64/*|/bin/*|/sbin/*) ;; *) continue ;; esac
    if [ -L "$f" ] || [ -f "$f" ]; then rm -f "$f" && hidden=$((hidden + 1)); fi
  done < <(dpkg-query -L "$p")
done
# Links left dangling (update-alternatives' links to OpenBLAS's libraries and .pc files) go too.
find /usr/lib/x86_64-linux-gnu /usr/include -xtype l -delete
for f in /usr/include/fmt/format.h /usr/include/spdlog/spdlog.h /usr/include/gtest/gtest.h /usr/bin/pkg-config; do
  [ ! -e "$f" ] || gpu_kit_die "isolation failed: $f is still visible"
done
echo "[isolated] hid $hidden files of the $installed kit packages installed here; running: $*"
if [ -n "${SUDO_UID:-}" ] && [ "$SUDO_UID" != 0 ]; then
  exec setpriv --reuid="$SUDO_UID" --regid="${SUDO_GID:?}" --init-groups -- "$@"
fi
exec "$@"
