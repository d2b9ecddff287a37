#!/usr/bin/env bash
# Runs the release tarball's blocktarget.service under a real systemd (PID 1 of a throw-away container) and checks
# what an operator relies on: the unit starts and verifies, runtime changes through the control API are written to
# /etc/blocktarget/luns.d, a member of group blocktarget reaches /run/blocktarget/control.sock with no option and a
# non-member is told why not, reload (SIGHUP), /etc/default/blocktarget, stop exits 0.
#
#   packaging/systemd/container-test.sh TARBALL      (as root; Linux with unshare, overlayfs and cgroup v2)
#
# The container: new mount, PID, network, UTS, IPC and cgroup namespaces; its root is an overlay of the host's /
# (writes go to a tmpfs, the host's files are never changed), /proc/sys read-only (systemd must not set the host's
# sysctls), and the host's services masked, so systemd starts only its own basics and blocktarget. The network
# namespace has only loopback. Everything is gone when the script ends. Prints one line per check and exits 1 when
# one fails.
set -euo pipefail
TARBALL=$(readlink -f "${1:?usage: container-test.sh TARBALL}")
[ "$(id -u)" = 0 ] || { echo "container-test: needs root (namespaces, overlayfs)" >&2; exit 2; }
[ -x /lib/systemd/systemd ] || { echo "container-test: needs systemd installed (/lib/systemd/systemd)" >&2; exit 2; }
CG=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
[ -n "$CG" ] || { echo "container-test: needs a cgroup2 mount" >&2; exit 2; }

WORK=$(mktemp -d /tmp/blocktarget-systemd.XXXXXX)
CGROUP="$CG/blocktarget-systemd-$$"
PID1=""
cleanup() {
  if [ -n "$PID1" ] && kill -0 "$PID1" 2>/dev/null; then
    nsenter -t "$PID1" -a -r -w systemctl poweroff >/dev/null 2>&1 || true
    for _ in $(seq 50); do kill -0 "$PID1" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$PID1" 2>/dev/null || true
  fi
  [ -n "${UNSHARE:-}" ] && wait "$UNSHARE" 2>/dev/null || true
  find "$CGROUP" -depth -type d -exec rmdir {} + 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# The container's PID 1 setup, run inside the new namespaces.
cat >"$WORK/boot" <<'EOF'
#!/bin/bash
set -euo pipefail
W=$1
mount --make-rprivate /
mount -t tmpfs tmpfs "$W/t"
mkdir -p "$W/t/upper" "$W/t/work" "$W/t/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$W/t/upper,workdir=$W/t/work" "$W/t/root"
R=$W/t/root
mount -t proc proc "$R/proc"
mount --bind "$R/proc/sys" "$R/proc/sys" && mount -o remount,bind,ro "$R/proc/sys"
mount -t sysfs sysfs "$R/sys" -o ro
mount -t cgroup2 cgroup2 "$R/sys/fs/cgroup"
mount --rbind /dev "$R/dev"
mount -t tmpfs tmpfs "$R/run"
mount -t tmpfs tmpfs "$R/tmp"
# only systemd's basics and blocktarget: the host's own services, timers and kernel setters stay off
for u in "$R"/etc/systemd/system/*.wants/*; do
  [ -e "$u" ] || continue
  ln -sf /dev/null "$R/etc/systemd/system/$(basename "$u")"
done
for u in systemd-sysctl.service systemd-modules-load.service systemd-udevd.service systemd-udev-trigger.service \
         systemd-timesyncd.service getty@tty1.service console-getty.service systemd-binfmt.service \
         proc-sys-fs-binfmt_misc.automount systemd-pstore.service; do
  ln -sf /dev/null "$R/etc/systemd/system/$u"
done
echo blocktarget-systemd-test >"$R/etc/hostname"
exec chroot "$R" /usr/bin/env -i container=blocktarget-test /lib/systemd/systemd --unit=multi-user.target \
  systemd.unified_cgroup_hierarchy=1 </dev/null >"$W/console.log" 2>&1
EOF
chmod 755 "$WORK/boot"
mkdir -p "$WORK/t" "$CGROUP"
# the container's cgroup: a child of this one's, so its systemd owns a tree of its own
sh -c "echo \$\$ > '$CGROUP/cgroup.procs'; exec unshare --mount --pid --net --uts --ipc --cgroup --fork '$WORK/boot' '$WORK'" &
UNSHARE=$!
for _ in $(seq 100); do
  PID1=$(pgrep -P "$UNSHARE" -x systemd 2>/dev/null || pgrep -P "$(pgrep -P "$UNSHARE" | head -n1)" -x systemd 2>/dev/null || true)
  [ -n "$PID1" ] && break
  sleep 0.1
done
[ -n "$PID1" ] || { echo "container-test: systemd did not start; console:" >&2; cat "$WORK/console.log" >&2; exit 1; }
ct() { nsenter -t "$PID1" -a -r -w "$@"; }
for _ in $(seq 150); do
  state=$(ct systemctl is-system-running 2>/dev/null || true)
  case "$state" in running|degraded) break ;; esac
  sleep 0.2
done
echo "systemd $(ct systemctl --version | head -n1 | awk '{print $2}') is PID 1 of the container (state: $state)"

failed=0
check() {   # check DESCRIPTION COMMAND...: one PASS / FAIL line, the command's output indented on failure
  local what=$1 out
  shift
  if out=$("$@" 2>&1); then
    echo "PASS  $what"
  else
    echo "FAIL  $what"
    echo "${out//$'\n'/$'\n'      }" | sed 's/^/      /'
    failed=1
  fi
}

# Install as doc/docs/operating.md says (the tarball unpacked in /opt, the unit and its snippets in /etc).
ct mkdir -p /opt
ct tar -C /opt -xzf - <"$TARBALL"
REL=$(ct sh -c 'ls -d /opt/blocktarget-*/ | head -n1')
ct ln -sfn "$REL" /opt/blocktarget
ct install -D -m 644 /opt/blocktarget/systemd/blocktarget.sysusers /etc/sysusers.d/blocktarget.conf
ct systemd-sysusers
ct install -D -m 644 /opt/blocktarget/systemd/blocktarget.tmpfiles /etc/tmpfiles.d/blocktarget.conf
ct systemd-tmpfiles --create blocktarget.conf
ct install -m 644 /opt/blocktarget/systemd/blocktarget.default /etc/default/blocktarget
ct install -m 644 /opt/blocktarget/systemd/blocktarget.service /etc/systemd/system/
ct sh -c 'printf "bind: 127.0.0.1\n" >/etc/blocktarget/blocktarget.yaml'
ct sh -c 'printf "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n" >/etc/blocktarget/luns.d/ram-4k.yaml'
ct useradd -m -G blocktarget alice
ct useradd -m bob
ct systemctl daemon-reload

# the man page the unit points at: from the tarball's man/ once it ships one; until then verify's one complaint
if ct test -f /opt/blocktarget/man/man8/blocktarget.8; then
  ct install -D -m 644 /opt/blocktarget/man/man8/blocktarget.8 /usr/local/share/man/man8/blocktarget.8
  check "systemd-analyze verify blocktarget.service" ct systemd-analyze verify /etc/systemd/system/blocktarget.service
else
  verify() {
    local out
    out=$(ct systemd-analyze verify /etc/systemd/system/blocktarget.service 2>&1 || true)
    echo "$out"
    ! grep -v "Command 'man blocktarget(8)' failed" <<<"$out" | grep -q .
  }
  check "systemd-analyze verify blocktarget.service (no man page in this tarball: that complaint only)" verify
fi
check "Documentation=man:blocktarget(8)" ct sh -c 'systemctl show -p Documentation blocktarget | grep -q "man:blocktarget(8)"'
check "systemctl start blocktarget" ct systemctl start blocktarget
wait_socket() {
  for _ in $(seq 300); do
    ct test -S /run/blocktarget/control.sock && return 0
    ct systemctl -q is-active blocktarget || return 1
    sleep 0.2
  done
  return 1
}
check "control socket /run/blocktarget/control.sock appears" wait_socket
check "service active, as user blocktarget" ct sh -c '[ "$(systemctl show -p User --value blocktarget)" = blocktarget ] && systemctl -q is-active blocktarget'
check "/run/blocktarget 0750 and the socket 0660, blocktarget:blocktarget" ct sh -c \
  '[ "$(stat -c %a:%U:%G /run/blocktarget)" = 750:blocktarget:blocktarget ] && [ "$(stat -c %a:%U:%G /run/blocktarget/control.sock)" = 660:blocktarget:blocktarget ]'
BT=/opt/blocktarget/bin/blocktarget
check "alice (group blocktarget): lun list with no --control" ct runuser -u alice -- env -u XDG_RUNTIME_DIR $BT lun list
check "alice: lun add rt1 (written to /etc/blocktarget/luns.d)" ct sh -c "runuser -u alice -- $BT lun add rt1 --backend ram --size 32MiB --logical-block-size 16KiB && test -f /etc/blocktarget/luns.d/rt1.yaml"
check "alice: lun resize rt1" ct sh -c "runuser -u alice -- $BT lun resize rt1 --size 64MiB && grep -q 64MiB /etc/blocktarget/luns.d/rt1.yaml"
check "alice: lun set rt1 rotational=true" ct sh -c "runuser -u alice -- $BT lun set rt1 rotational=true && grep -q 'rotational: true' /etc/blocktarget/luns.d/rt1.yaml"
check "alice: fault add / list --json" ct sh -c "runuser -u alice -- $BT fault add rt1 --action busy && runuser -u alice -- $BT fault list rt1 --json | grep -q busy"
check "alice: lun rm rt1 (its file deleted)" ct sh -c "runuser -u alice -- $BT lun rm rt1 && test ! -e /etc/blocktarget/luns.d/rt1.yaml"
bob_out=$(ct runuser -u bob -- env -u XDG_RUNTIME_DIR $BT lun list 2>&1 || true)
check "bob (not in the group): refused, told which sockets were tried and why" \
  grep -q "tried /tmp/blocktarget-[0-9]*.sock (no such file), /run/blocktarget/control.sock (permission denied: only members of group blocktarget may enter /run/blocktarget)" <<<"$bob_out"
check "root: sessions --json" ct sh -c "$BT sessions --json | grep -q sessions"
check "a LUN file added by hand + systemctl reload" ct sh -c \
  "printf 'backend: null\nsize: 1GiB\n' >/etc/blocktarget/luns.d/by-hand.yaml && systemctl reload blocktarget && for i in \$(seq 50); do $BT lun list | grep -q by-hand && exit 0; sleep 0.2; done; exit 1"
check "/metrics: build info and process figures" ct sh -c "curl -sf --unix-socket /run/blocktarget/control.sock http://localhost/metrics | grep -q '^process_resident_memory_bytes ' && curl -sf --unix-socket /run/blocktarget/control.sock http://localhost/metrics | grep -q '^blocktarget_build_info{'"
check "/etc/default/blocktarget: BLOCKTARGET_LOG=FINE reaches the server" ct sh -c \
  "echo BLOCKTARGET_LOG=FINE >>/etc/default/blocktarget && systemctl restart blocktarget && for i in \$(seq 300); do journalctl -u blocktarget -o cat | grep -q ' DEBUG ' && exit 0; sleep 0.2; done; exit 1"
check "socket back after restart" wait_socket
check "systemctl stop: exit status 0" ct sh -c 'systemctl stop blocktarget && [ "$(systemctl show -p ExecMainStatus --value blocktarget)" = 0 ]'
echo "--- journal of blocktarget.service (last 15 lines)"
ct journalctl -u blocktarget -o cat --no-pager | tail -n 15 | sed 's/^/      /'
echo "--- systemd-analyze security blocktarget (overall)"
ct systemd-analyze security blocktarget --no-pager 2>/dev/null | tail -n 1 | sed 's/^/      /' || true
exit $failed
