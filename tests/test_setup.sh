#!/usr/bin/env bash
# scripts/setup split (issue 23): the quick start installs only what it
# needs (no Chromium, Node.js, Docker, Virtuoso), the suite what it needs;
# what it installs is not left running or enabled. The installation itself
# runs against stand-ins for dpkg-query, apt-get and systemctl on the PATH
# (nothing is installed): apt-get records whether the daemons' start was
# refused (policy-rc.d) while it ran, systemctl what was disabled.
set -euo pipefail
source "$(dirname "$0")/support/lib.sh"
setup="$LODWASH_SOURCE_DIR/scripts/setup"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

quick=$(bash "$setup" quickstart --list)
suite=$(bash "$setup" test --list)
for p in chromium nodejs docker.io virtuoso-opensource debootstrap lintian; do
  expect_eq "the quick start does not install $p" "$(grep -cx "$p" <<< "$quick" || true)" 0
  expect_eq "the suite installs $p" "$(grep -cx "$p" <<< "$suite")" 1
done
for p in cmake libhiredis-dev redis-server python3 curl; do
  expect_eq "the quick start installs $p (it uses it)" "$(grep -cx "$p" <<< "$quick")" 1
done
expect_eq "the suite's list holds the quick start's" \
  "$(comm -23 <(sort <<< "$quick") <(sort <<< "$suite") | wc -l)" 0
expect_status "an unknown role: exit 2" 2 bash "$setup" frob --list

# --- an installation, with stand-ins: redis-server and docker.io missing
mkdir -p "$dir/bin" "$dir/systemd"
cat > "$dir/bin/dpkg-query" <<'SH'
#!/bin/sh
for last; do :; done
case "$last" in redis-server|docker.io) exit 1 ;; esac
printf 'install ok installed'
SH
cat > "$dir/bin/apt-get" <<SH
#!/bin/sh
echo "apt-get \$*" >> "$dir/calls"
if [ "\$1" = install ] || [ "\$2" = install ] || [ "\$3" = install ]; then
  "$dir/policy-rc.d" redis-server start; echo "policy-rc.d says \$?" >> "$dir/calls"
fi
SH
printf '#!/bin/sh\necho "systemctl $*" >> "%s/calls"\n' "$dir" > "$dir/bin/systemctl"
chmod +x "$dir/bin/"*
PATH="$dir/bin:$PATH" LODWASH_POLICY_RC_D="$dir/policy-rc.d" LODWASH_SYSTEMD_RUN="$dir/systemd" \
  bash "$setup" quickstart > "$dir/out" 2>&1 || { cat "$dir/out"; lw_fail "setup quickstart with stand-ins"; }
calls=$(cat "$dir/calls")
expect_eq "only the missing package is installed" "$(grep '^apt-get install' <<< "$calls")" \
  'apt-get install -y -qq --no-install-recommends redis-server'
expect_match "its daemon's start refused while installing (policy-rc.d: 101)" "$calls" 'policy-rc.d says 101'
expect_match "its service disabled and stopped" "$calls" 'systemctl disable --now redis-server'
expect_eq "no other service touched" "$(grep -c '^systemctl' <<< "$calls")" 1
expect_eq "the policy removed afterwards" "$([ -e "$dir/policy-rc.d" ] && echo left || echo gone)" gone
lw_test_done
