#!/usr/bin/env bash
# The Debian package on a Debian host (issue 28), for real, on this machine:
# scripts/package builds lodwash_VERSION_ARCH.deb from the tree (lintian
# without errors), apt-get installs it, and the test checks what an operator
# gets: the programs, man pages holding every option of their --help, the
# conffiles, the system user and its state folder, the scheduler enabled the
# Debian way and the worker template not, `systemd-analyze verify` on the
# installed units. An upgrade keeps the edited /etc/lodwash files. Then the
# programs run as the installed units say (their ExecStart, User, Group,
# WorkingDirectory, Environment and EnvironmentFile, parsed from the unit
# files: systemd is not PID 1 here), with /etc/lodwash/lodwash.env and
# registry.yaml edited to point at the test's redis-server and the example
# providers served on loopback, and harvest them; the installed tool reads
# the graphs. `apt-get purge` then leaves nothing behind but the system user
# (kept by the package, as Debian's packages do: debian/lodwash.postrm);
# the test removes the user itself when it made it.
#
# It changes the machine (a package, a user): it runs only as root (CI), not
# when a lodwash package is installed already (it would remove it), and
# once, with the plain build (it does not use the build tree). Everything it
# started or installed is stopped and purged on exit, also on failure.
set -uo pipefail
source "$LODWASH_SOURCE_DIR/tests/support/lib.sh"
source "$LODWASH_SOURCE_DIR/scripts/lib/servers.sh"
source "$LODWASH_SOURCE_DIR/scripts/lib/examples.sh"

if grep -qs '^LODWASH_SANITIZE:BOOL=ON' "$LODWASH_BINARY_DIR/CMakeCache.txt"; then
  lw_test_skip "the package test runs once, with the plain build's tests"
fi
[ "$(id -u)" -eq 0 ] || lw_test_skip "installs a package on this machine: run it as root (CI does)"
for tool in dpkg-buildpackage dh help2man lintian apt-get systemd-analyze setpriv runuser redis-server redis-cli; do
  command -v "$tool" > /dev/null || lw_test_skip "$tool is missing (scripts/setup installs it)"
done
if dpkg-query -W -f='${db:Status-Abbrev}' lodwash 2>/dev/null | grep -q '^.[ic]'; then
  lw_test_skip "a lodwash package is installed on this machine: the test would replace and purge it"
fi
if pgrep -u lodwash > /dev/null 2>&1; then
  lw_test_skip "processes of a user lodwash run on this machine"
fi
user_existed=""
getent passwd lodwash > /dev/null && user_existed=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lodwash-test-package-XXXXXX")
chmod 755 "$tmp"
installed=""
PROG_PIDS=()
# apt and dpkg wait for a lock another engineer's apt holds, within reason.
APT=(apt-get -y -q -o DPkg::Lock::Timeout=120)

cleanup() {
  trap '' INT TERM
  if [ ${#PROG_PIDS[@]} -gt 0 ]; then
    lw_stop_pids 30 "${PROG_PIDS[@]}"
  fi
  # The user was made by this test (none of its processes ran before):
  # whatever runs as lodwash was started here.
  if [ -z "$user_existed" ] && getent passwd lodwash > /dev/null; then
    local pid
    for pid in $(pgrep -u lodwash); do lw_stop_pid "$pid" 10; done
  fi
  lw_servers_stop
  if [ -n "$installed" ] && dpkg-query -W -f='${db:Status-Abbrev}' lodwash 2>/dev/null | grep -q '^.[ichHUFW]'; then
    DEBIAN_FRONTEND=noninteractive timeout 300 "${APT[@]}" purge lodwash > "$tmp/purge-cleanup.log" 2>&1 ||
      { echo "cleanup: apt-get purge failed, dpkg --purge:" >&2; dpkg --purge lodwash >&2 || true; }
  fi
  if [ -z "$user_existed" ] && getent passwd lodwash > /dev/null; then
    userdel lodwash 2>/dev/null || true
    getent group lodwash > /dev/null && groupdel lodwash 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

check() { # check WHAT COMMAND...: the command succeeds
  local what=$1; shift
  if "$@" > /dev/null 2>&1; then lw_pass; else lw_fail "$what"; fi
}
fatal() { lw_fail "$*"; lw_test_done; exit 1; }

# ---- build and install -------------------------------------------------------
echo "== scripts/package"
deb=$(bash "$LODWASH_SOURCE_DIR/scripts/package" --output "$tmp/debs" 2> "$tmp/package.log") ||
  { cat "$tmp/package.log"; fatal "scripts/package failed"; }
grep -E '^[EW]: ' "$tmp/package.log" || true
expect_match "the package's name" "$(basename "$deb")" '^lodwash_[0-9.]+_[a-z0-9]+\.deb$'
check "lintian: no error (scripts/package fails otherwise)" bash -c "! grep -q '^E: ' '$tmp/package.log'"

echo "== apt-get install ./$(basename "$deb")"
installed=1
# --no-install-recommends: the test's own redis-server is enough; nothing
# else is pulled onto the machine.
(cd "$(dirname "$deb")" && DEBIAN_FRONTEND=noninteractive "${APT[@]}" install \
   --no-install-recommends "./$(basename "$deb")") > "$tmp/install.log" 2>&1 ||
  { tail -30 "$tmp/install.log"; fatal "apt-get install failed"; }
expect_eq "installed" "$(dpkg-query -W -f='${db:Status-Abbrev}' lodwash)" "ii "

# ---- what the package installed ----------------------------------------------
for prog in lodwash lodwash-scheduler lodwash-worker; do
  check "/usr/bin/$prog runs" "/usr/bin/$prog" --version
done
expect_eq "the version" "$(/usr/bin/lodwash-worker --version)" \
  "lodwash-worker $(dpkg-query -W -f='${Version}' lodwash)"
check "Depends names the shared libraries (dpkg-shlibdeps)" \
  bash -c "dpkg-query -W -f='\${Depends}' lodwash | grep -q 'libhiredis'"
expect_match "Recommends redis-server" "$(dpkg-query -W -f='${Recommends}' lodwash)" 'redis-server'

# Every option (and the tool's every command) of --help is in the man page:
# help2man makes them from --help at build time; this checks it did.
man_has_help() { # man_has_help PAGE PROGRAM
  local page=$1 prog=$2 text opt cmd missing=""
  text=$(zcat "$page" | sed 's/\\-/-/g; s/\\f[BIRP]//g')
  for opt in $("$prog" --help | grep -oE '^ +--[a-z0-9-]+'); do
    grep -qE -- "$opt([^a-z0-9-]|$)" <<< "$text" || missing+=" $opt"
  done
  for cmd in $("$prog" --help | sed -n '/^Commands:/,/^$/p' | grep -oE '^  [a-z]+' | sort -u); do
    grep -qE "(^| )$cmd( |$)" <<< "$text" || missing+=" $cmd"
  done
  expect_eq "$page has every option of $prog --help" "$missing" ""
}
man_has_help /usr/share/man/man1/lodwash.1.gz /usr/bin/lodwash
man_has_help /usr/share/man/man8/lodwash-scheduler.8.gz /usr/bin/lodwash-scheduler
man_has_help /usr/share/man/man8/lodwash-worker.8.gz /usr/bin/lodwash-worker
check "lodwash-registry(5) is installed" test -s /usr/share/man/man5/lodwash-registry.5.gz
for kind in void dcat ckan sitemap sparql; do
  check "lodwash-registry(5) says $kind:" bash -c "zcat /usr/share/man/man5/lodwash-registry.5.gz | grep -q '^.BI $kind:'"
done

conffiles=$(dpkg-query -W -f='${Conffiles}' lodwash)
expect_match "lodwash.env is a conffile" "$conffiles" ' /etc/lodwash/lodwash\.env '
expect_match "registry.yaml is a conffile" "$conffiles" ' /etc/lodwash/registry\.yaml '
expect_eq "lodwash.env: root:lodwash 0640 (it may hold passwords)" \
  "$(stat -c '%U:%G %a' /etc/lodwash/lodwash.env)" "root:lodwash 640"
check "the system user lodwash" bash -c "getent passwd lodwash | grep -q ':/var/lib/lodwash:/usr/sbin/nologin$'"
expect_eq "its state folder" "$(stat -c '%U:%G %a' /var/lib/lodwash)" "lodwash:lodwash 750"
units=/lib/systemd/system
check "the scheduler's unit" test -f $units/lodwash-scheduler.service
check "the workers' template" test -f $units/lodwash-worker@.service
check "the scheduler is enabled (deb-systemd-helper)" \
  test -L /etc/systemd/system/multi-user.target.wants/lodwash-scheduler.service
check "no worker is enabled by the package" \
  bash -c "! ls /etc/systemd/system/*.wants/lodwash-worker@* 2> /dev/null"

# systemd-analyze verify: the syntax, the executables, the man pages of
# Documentation=. A template is verified through an instance.
mkdir -p "$tmp/verify"
cp $units/lodwash-scheduler.service "$tmp/verify/"
cp $units/lodwash-worker@.service "$tmp/verify/lodwash-worker@1.service"
if systemd-analyze verify "$tmp/verify/lodwash-scheduler.service" "$tmp/verify/lodwash-worker@1.service" \
     > "$tmp/verify.log" 2>&1; then
  lw_pass
else
  cat "$tmp/verify.log" >&2
  lw_fail "systemd-analyze verify on the installed units"
fi
# The hardening, as systemd scores it (0 to 10, lower is safer; the units
# score 1.6; --threshold is in tenths): above 2.0, a protection was lost.
if systemd-analyze security --offline=true --threshold=20 "$tmp/verify/lodwash-scheduler.service" \
     "$tmp/verify/lodwash-worker@1.service" > "$tmp/security.log" 2>&1; then
  lw_pass
else
  grep -E '✗|Overall' "$tmp/security.log" >&2
  lw_fail "systemd-analyze security: the units' exposure is above 2.0"
fi
unit_value() { # unit_value UNIT KEY: the values of KEY= in [Service], one a line
  awk -v key="$2" '/^\[/ { s = ($0 == "[Service]") } s && index($0, key "=") == 1 { print substr($0, length(key) + 2) }' "$1"
}
for unit in lodwash-scheduler.service lodwash-worker@.service; do
  for want in NoNewPrivileges=yes ProtectSystem=strict ReadWritePaths=/var/lib/lodwash PrivateTmp=yes \
              ProtectHome=yes Restart=on-failure; do
    expect_eq "$unit: $want" "$(unit_value $units/$unit "${want%%=*}")" "${want#*=}"
  done
done
expect_eq "an exit 3 (job time limit) restarts a worker" \
  "$(unit_value $units/lodwash-worker@.service RestartForceExitStatus)" 3
expect_match "a worker has time to hand its job back" \
  "$(unit_value $units/lodwash-worker@.service TimeoutStopSec)" '^[0-9]+min$'

# `systemctl enable` works without systemd running (links only): the
# README's way to add workers; purge must remove the link.
systemctl enable lodwash-worker@1.service > "$tmp/enable.log" 2>&1 || true
check "systemctl enable lodwash-worker@1 made its link" \
  test -L /etc/systemd/system/multi-user.target.wants/lodwash-worker@1.service

# ---- configure, as the README says --------------------------------------------
redis_port=$(lw_free_port)
lw_start_redis "$redis_port" || fatal "redis-server did not start"
http_port=$(lw_free_port)
lw_publish_examples "$tmp/web"
lw_start_http "$http_port" "$tmp/web" || fatal "the providers' HTTP server did not start"
metrics_port=$(lw_free_port)
lw_example_registry /etc/lodwash/registry.yaml "http://127.0.0.1:$http_port"
cat >> /etc/lodwash/lodwash.env <<ENV
# the test's own (tests/test_package.sh)
LODWASH_REDIS=redis://127.0.0.1:$redis_port/0
LODWASH_PREFIX=lwtest:package:$$:
LODWASH_ALLOW_NET=127.0.0.1:$http_port
LODWASH_INTERVAL=1
LODWASH_HOST_INTERVAL_MS=0
LODWASH_ROBOTS_TTL=0
LODWASH_METRICS_PORT=$metrics_port
ENV
cp /etc/lodwash/lodwash.env "$tmp/lodwash.env.mine"
cp /etc/lodwash/registry.yaml "$tmp/registry.yaml.mine"

# ---- an upgrade keeps them -----------------------------------------------------
# The same package under a later version (repacked: a second build would
# take a minute): dpkg's conffile rule keeps the files the operator changed.
echo "== upgrade"
dpkg-deb -R "$deb" "$tmp/upgrade"
sed -i 's/^Version: .*/&+upgrade/' "$tmp/upgrade/DEBIAN/control"
dpkg-deb --root-owner-group -b "$tmp/upgrade" "$tmp/upgrade.deb" > /dev/null
(cd "$tmp" && DEBIAN_FRONTEND=noninteractive "${APT[@]}" install --no-install-recommends ./upgrade.deb) \
  > "$tmp/upgrade.log" 2>&1 || { tail -20 "$tmp/upgrade.log"; lw_fail "the upgrade failed"; }
expect_match "upgraded" "$(dpkg-query -W -f='${Version}' lodwash)" '\+upgrade$'
check "lodwash.env kept on upgrade" cmp /etc/lodwash/lodwash.env "$tmp/lodwash.env.mine"
check "registry.yaml kept on upgrade" cmp /etc/lodwash/registry.yaml "$tmp/registry.yaml.mine"
expect_eq "lodwash.env still root:lodwash 0640" "$(stat -c '%U:%G %a' /etc/lodwash/lodwash.env)" "root:lodwash 640"

# ---- run the programs as the units say ----------------------------------------
# UNIT_ENV: the environment systemd would give UNIT's process (its PATH,
# USER, HOME, LOGNAME, SHELL for User=, then Environment=, then the
# EnvironmentFile=, whose values win); UNIT_CMD: its ExecStart; %i is the
# instance. Only the forms the units use are read (one KEY=VALUE a line in
# Environment=, no quotes, a plain ExecStart).
unit_load() { # unit_load UNIT-FILE INSTANCE
  local file=$1 instance=$2 line file_env user
  user=$(unit_value "$file" User)
  UNIT_USER=$user UNIT_GROUP=$(unit_value "$file" Group) UNIT_DIR=$(unit_value "$file" WorkingDirectory)
  UNIT_NNP=$(unit_value "$file" NoNewPrivileges)
  UNIT_ENV=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
            "USER=$user" "LOGNAME=$user" "HOME=$(getent passwd "$user" | cut -d: -f6)"
            "SHELL=$(getent passwd "$user" | cut -d: -f7)")
  while IFS= read -r line; do
    UNIT_ENV+=("${line//%i/$instance}")
  done < <(unit_value "$file" Environment)
  while IFS= read -r file_env; do
    file_env=${file_env#-}
    [ -r "$file_env" ] || continue
    while IFS= read -r line || [ -n "$line" ]; do
      case "$line" in ''|'#'*|';'*) continue ;; esac
      UNIT_ENV+=("$line")
    done < "$file_env"
  done < <(unit_value "$file" EnvironmentFile)
  read -r -a UNIT_CMD <<< "$(unit_value "$file" ExecStart | sed "s/%i/$instance/g")"
}
# UNIT_AS: the command that runs what follows as the unit would: its user
# and group, no new privileges, its folder, its environment and none other.
unit_as() {
  UNIT_AS=(setpriv --reuid="$UNIT_USER" --regid="$UNIT_GROUP" --init-groups)
  [ "$UNIT_NNP" = yes ] && UNIT_AS+=(--no-new-privs)
  UNIT_AS+=(env -i -C "$UNIT_DIR" "${UNIT_ENV[@]}")
}
as_unit() { "${UNIT_AS[@]}" "$@"; }
start_unit() { # start_unit UNIT-FILE INSTANCE LOG
  unit_load "$1" "$2"
  unit_as
  # exec: $! is the program itself (setpriv and env exec it), which
  # receives the SIGTERM and whose exit code wait gives
  (exec "${UNIT_AS[@]}" "${UNIT_CMD[@]}") > "$3" 2>&1 &
  PROG_PIDS+=($!)
}

echo "== the scheduler and two workers, as their units say"
start_unit $units/lodwash-scheduler.service "" "$tmp/scheduler.log"
start_unit $units/lodwash-worker@.service 1 "$tmp/worker1.log"
start_unit $units/lodwash-worker@.service 2 "$tmp/worker2.log"
expect_eq "ExecStart of the worker" "${UNIT_CMD[*]}" /usr/bin/lodwash-worker
check "the scheduler's pages answer (LODWASH_METRICS_PORT from lodwash.env)" \
  lw_wait_url "http://127.0.0.1:$metrics_port/healthz" "the scheduler" 200

# The installed tool, as the lodwash user with the units' settings.
graph_size() { as_unit /usr/bin/lodwash graph "$1" 2> /dev/null | wc -l; }
harvested() {
  [ "$(graph_size library)" = 27 ] && [ "$(graph_size museum)" = 18 ] && [ "$(graph_size city)" = 10 ]
}
done_in=""
for i in $(seq 120); do
  if harvested; then done_in=$i; break; fi
  sleep 1
done
if [ -z "$done_in" ]; then
  lw_fail "the example providers were not harvested within 120 s"
  tail -15 "$tmp/scheduler.log" "$tmp/worker1.log" "$tmp/worker2.log" >&2
  as_unit /usr/bin/lodwash status >&2 || true
else
  echo "harvested in about $done_in s"
fi
expect_eq "library's graph (Turtle and N-Triples)" "$(graph_size library)" 27
expect_eq "museum's graph (a tar.gz of RDF/XML and JSON-LD)" "$(graph_size museum)" 18
expect_eq "city's graph (TriG, a broken statement)" "$(graph_size city)" 10
expect_match "a triple of the library" "$(as_unit /usr/bin/lodwash graph library 2>&1)" \
  '<http://library.lodwash.example/person/darwin> '
check "the data folder is the units' (/var/lib/lodwash)" test -d /var/lib/lodwash/graphs
# The tool the way lodwash.env and lodwash(1) tell an operator to run it.
expect_eq "the tool with lodwash.env, as the user lodwash" \
  "$(cd / && runuser -u lodwash -- sh -c 'set -a; . /etc/lodwash/lodwash.env; exec lodwash graph city' | wc -l)" 10
expect_eq "its files belong to lodwash" "$(find /var/lib/lodwash ! -user lodwash | head -3)" ""

# SIGTERM, as systemctl stop: each ends with 0.
for pid in "${PROG_PIDS[@]}"; do kill -TERM "$pid" 2> /dev/null; done
for pid in "${PROG_PIDS[@]}"; do
  for _ in $(seq 300); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2> /dev/null && lw_fail "process $pid ignored SIGTERM for 30 s"
  code=0
  wait "$pid" || code=$?
  expect_eq "process $pid stopped by SIGTERM exits" "$code" 0
done
PROG_PIDS=()
check "no process of the user lodwash is left" bash -c "! pgrep -u lodwash"

# ---- purge ---------------------------------------------------------------------
echo "== apt-get purge lodwash"
DEBIAN_FRONTEND=noninteractive "${APT[@]}" purge lodwash > "$tmp/purge.log" 2>&1 ||
  { tail -20 "$tmp/purge.log"; lw_fail "apt-get purge failed"; }
expect_eq "purged" "$(dpkg-query -W -f='${db:Status-Abbrev}' lodwash 2> /dev/null)" ""
left=$(ls -d /usr/bin/lodwash* /lib/systemd/system/lodwash* /usr/lib/systemd/system/lodwash* \
          /etc/systemd/system/*/lodwash* /etc/lodwash /var/lib/lodwash /usr/share/man/man*/lodwash* \
          /usr/share/doc/lodwash /var/lib/systemd/deb-systemd-helper-enabled/*lodwash* \
          /var/lib/systemd/deb-systemd-helper-enabled/*/lodwash* 2> /dev/null)
expect_eq "nothing of the package is left" "$left" ""
check "the system user is kept (debian/lodwash.postrm says why)" getent passwd lodwash
lw_test_done
