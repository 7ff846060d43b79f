#!/usr/bin/env bash
# The README's promise, checked on a machine with nothing installed: builds a minimal
# Debian 12 root (debootstrap --variant=minbase bookworm), clones this checkout into it
# and runs scripts/quickstart.sh there, using only what that script installs.
#
#   1. as a normal user, before anything is installed: the set-up must refuse at once,
#      say that it needs root, and print the apt-get command to run;
#   2. as root: installs the packages, builds the quickstart target and runs it;
#   3. as the normal user again, on the same tree: nothing left to install, and the
#      build from step 2 is reused, not redone.
#
# Needs root (debootstrap, chroot, mount) and Debian's package mirror. Everything lives
# under build/fresh-machine/ (STUBJIT_FRESH_DIR overrides it); the debootstrap tarball
# is kept there, so a second run does not download the base system again. Everything
# mounted is unmounted on exit, failure included.
#
#   scripts/fresh-machine-check.sh                  the check
#   scripts/fresh-machine-check.sh --download-only  the base system's download only
#                                                   (.ci/run, beside its first stage)
set -euo pipefail

download_only=false
for argument in "$@"; do
  case "$argument" in
    --download-only) download_only=true ;;
    *)
      echo "scripts/fresh-machine-check.sh: unknown argument '$argument' (--download-only)" >&2
      exit 2
      ;;
  esac
done

repo=$(cd "$(dirname "$0")/.." && pwd)
work=${STUBJIT_FRESH_DIR:-$repo/build/fresh-machine}
mirror=${STUBJIT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
root=$work/root
user=newcomer

say() { echo "fresh-machine-check: $*"; }
fail() {
  say "FAILED: $*" >&2
  exit 1
}

[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot and mount); run it with sudo"

mount_points=(dev proc sys)
# shellcheck source=scripts/lib/minimal-root.sh
. "$repo/scripts/lib/minimal-root.sh"
if $download_only; then
  download_base_system
  say "the base system is in $work"
  exit 0
fi
trap unmount_all EXIT
make_minimal_root

as_user() {
  chroot --userspec="$uid:$gid" "$root" /usr/bin/env -i HOME="/home/$user" USER="$user" \
    PATH=/usr/bin:/bin bash -c "$1"
}

in_root useradd --create-home --shell /bin/bash "$user"
uid=$(in_root id -u "$user")
gid=$(in_root id -g "$user")
# The committed state, as CI and a new user get it.
git clone --quiet --no-hardlinks "$repo" "$root/home/$user/stubjit"
chown -R "$uid:$gid" "$root/home/$user/stubjit"
source_dir=/home/$user/stubjit

say "1/3: scripts/quickstart.sh as $user, nothing installed (must refuse, asking for root)"
set +e
refusal=$(as_user "cd $source_dir && scripts/quickstart.sh" 2>&1)
status=$?
set -e
echo "$refusal" | sed 's/^/    | /'
[ $status -ne 0 ] || fail "the quickstart succeeded without its packages"
first_line=$(echo "$refusal" | head -n 1)
case "$first_line" in
  *"needs root"*) ;;
  *) fail "the first thing printed should say that root is needed, got: $first_line" ;;
esac
echo "$refusal" | grep -q "apt-get install" || fail "the refusal does not print the apt-get command"

say "2/3: scripts/quickstart.sh as root"
used_before=$(du -sxm "$root" | cut -f1)
start=$(date +%s)
if ! in_root bash -c "cd $source_dir && scripts/quickstart.sh" >"$work/as-root.log" 2>&1; then
  sed 's/^/    | /' "$work/as-root.log"
  fail "scripts/quickstart.sh as root (log: $work/as-root.log)"
fi
# What a newcomer would look at: the set-up's own lines, apt's totals, the program.
grep -E '^(stubjit|backend|plan|compiled|result|-- stubjit|Need to get|After this|[0-9]+ upgraded)' \
  "$work/as-root.log" | sed 's/^/    | /' || true
# LLVM's CMake files report a missing optional package as "Could NOT find ...": to a
# newcomer that reads as an error, so the set-up installs what they look for.
if grep -q "Could NOT find" "$work/as-root.log"; then
  grep "Could NOT find" "$work/as-root.log" | sed 's/^/    | /'
  fail "the configure step looked for something the set-up did not install"
fi
used_after=$(du -sxm "$root" | cut -f1)
say "quickstart as root: $(($(date +%s) - start)) s; the root grew from $used_before to $used_after MiB"

say "3/3: scripts/quickstart.sh as $user, packages installed, on root's build"
chown -R "$uid:$gid" "$root$source_dir"
start=$(date +%s)
status=0
as_user "cd $source_dir && scripts/quickstart.sh" >"$work/as-user.log" 2>&1 || status=$?
sed 's/^/    | /' "$work/as-user.log"
[ $status -eq 0 ] || fail "scripts/quickstart.sh as $user (log: $work/as-user.log)"
grep -q "all build dependencies are installed" "$work/as-user.log" ||
  fail "the second run did not find every dependency installed"
if grep -q "Building CXX object CMakeFiles/stubjit_objects" "$work/as-user.log"; then
  fail "the second run rebuilt the library instead of reusing the first run's build"
fi
say "quickstart as $user: $(($(date +%s) - start)) s"
say "passed"
