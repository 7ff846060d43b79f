# shellcheck shell=bash
# shellcheck disable=SC2154  # root, work, suite, mirror, mount_points: the caller's
# A minimal Debian root for the checks that need a machine with nothing installed
# (fresh-machine-check.sh, gpu-check-container.sh). Sourced; the caller sets `root`,
# `work` (where the debootstrap tarball is kept, so that a second run downloads nothing),
# `suite`, `mirror` and `mount_points` (below the root, unmounted on exit), and defines
# say and fail.

# The mounts below the root (also what an earlier, killed run left), unmounted
# recursively; then nothing may be mounted there any more, or the root is not removed
# (rm would walk into the host's /dev).
unmount_all() {
  [ -d "$root" ] || return 0
  local point
  for point in "${mount_points[@]}"; do
    if mountpoint -q "$root/$point"; then
      umount -R "$root/$point" 2>/dev/null || umount -R -l "$root/$point" 2>/dev/null || true
    fi
  done
  for point in "${mount_points[@]}"; do
    if mountpoint -q "$root/$point"; then
      say "cannot unmount $root/$point; leaving $root in place" >&2
      return 1
    fi
  done
}

# Downloads the minbase system into $work/$suite-minbase.tar.gz unless it is there
# (debootstrap installed first where missing).
download_base_system() {
  if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap \
      >/dev/null || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends debootstrap >/dev/null; }
  fi
  local tarball=$work/$suite-minbase.tar.gz
  mkdir -p "$work"
  if [ ! -s "$tarball" ]; then
    say "downloading a minimal $suite base system into $tarball"
    rm -rf "$work/tarball-staging"
    debootstrap --variant=minbase --make-tarball="$tarball.part" "$suite" "$work/tarball-staging" \
      "$mirror" >"$work/debootstrap-download.log" 2>&1 ||
      fail "debootstrap --make-tarball (log: $work/debootstrap-download.log)"
    mv "$tarball.part" "$tarball"
    rm -rf "$work/tarball-staging"
  fi
}

# Unpacks a fresh minbase root at $root (downloaded first where missing) and mounts
# proc, dev and sys in it.
make_minimal_root() {
  local tarball=$work/$suite-minbase.tar.gz
  unmount_all || fail "something is still mounted below $root"
  # --one-file-system: never into a mount, whatever happened before.
  rm -rf --one-file-system "$root"
  download_base_system
  say "unpacking a minimal $suite root in $root"
  # In two steps, so that dpkg in the root is told, before it installs anything, not to
  # flush every file it writes to disk (force-unsafe-io): the root is thrown away after
  # the check, and what dpkg installs is the same either way. On the development
  # machine, idle, the flushes were a third of dpkg's time: the base system took 29 s
  # with them and 18 s without, the quickstart's packages 60 s and 45 s.
  debootstrap --variant=minbase --foreign --unpack-tarball="$tarball" "$suite" "$root" \
    "$mirror" >"$work/debootstrap.log" 2>&1 || fail "debootstrap (log: $work/debootstrap.log)"
  mkdir -p "$root/etc/dpkg/dpkg.cfg.d"
  echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/unsafe-io"
  chroot "$root" /debootstrap/debootstrap --second-stage >>"$work/debootstrap.log" 2>&1 ||
    fail "debootstrap --second-stage (log: $work/debootstrap.log)"
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount --make-rslave "$root/dev"
  mount -t sysfs sysfs "$root/sys"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
}

in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
