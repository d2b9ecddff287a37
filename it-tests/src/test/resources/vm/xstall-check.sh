#!/bin/sh
# Guest script (initiator VM): stalled connections and a stalled NVMe Keep Alive as Linux meets them (issue 11). The
# host test (LinuxStallFaultsIT) serves one 16 KiB LUN "xstall" (iSCSI target $IQN LUN 0, NVMe subsystem $NQN NSID 1)
# with these rules in its LUN file, each hitting the first read of its LBA only:
#   stall-iscsi LBA 5700  stall-connection, both directions, until the rule is removed
#   stall-nvme  LBA 5800  stall-connection, receive side only, for 60 s
# and, once this script prints "STEP keep-alive", adds rule ka (keep-alive-stall, the first Keep Alive only).
# Short initiator timeouts so that Linux notices in seconds: open-iscsi pings (NOP-Out) after 2 s without traffic and
# waits 2 s for the NOP-In (node.conn[0].timeo.noop_out_interval / _timeout, set before login), replacement_timeout
# 15 s; sd's command timeout 30 s, longer than ping + timeout, so the ping (not SCSI error handling) finds the stall;
# nvme_core io_timeout 5 s (read when nvme-tcp allocates the controller's tag set, so it is set before nvme connect),
# keep-alive timeout 5 s (nvme connect --keep-alive-tmo).
# Data: 4 random blocks are written through one protocol and read back through the other (md5sum per block).
# Lines for the host: DISK ..., CHECK <name> <what> OK|FAIL [detail], STEP <what>.
# Env: TARGET_ADDR (run.sh), IQN, NQN.
set -u
BS=16384
echo "# kernel $(uname -r) stalled connections iqn $IQN nqn $NQN"

check() { # name what rc [detail]
  if [ "$3" = 0 ]; then echo "CHECK $1 $2 OK ${4:-}"; else echo "CHECK $1 $2 FAIL ${4:-}"; fi
}
until_ok() { # SECONDS CMD...
  n=$(( $1 * 5 )); shift
  while [ "$n" -gt 0 ]; do
    "$@" >/dev/null 2>&1 && return 0
    n=$((n - 1)); sleep 0.2
  done
  return 1
}
nvme_dev() {
  for b in /sys/block/nvme*n*; do
    [ -e "$b" ] || continue
    case "$(basename "$b")" in nvme*c*n*) continue ;; esac
    nqn=$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn" 2>/dev/null)
    [ "$nqn" = "$NQN" ] && basename "$b" && return 0
  done
  return 1
}
nvme_ctrl() { # the controller (nvmeX) of $NQN
  for c in /sys/class/nvme/nvme*; do
    [ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && basename "$c" && return 0
  done
  return 1
}
ctrl_live() { [ "$(cat "/sys/class/nvme/$(nvme_ctrl)/state" 2>/dev/null)" = live ]; }
sd_dev() {
  for s in /sys/class/iscsi_session/session*; do
    [ "$(cat "$s/targetname" 2>/dev/null)" = "$IQN" ] || continue
    for b in "$s"/device/target*/*:0/block/*; do [ -e "$b" ] && basename "$b" && return 0; done
  done
  return 1
}
iscsi_session() {
  for s in /sys/class/iscsi_session/session*; do
    [ "$(cat "$s/targetname" 2>/dev/null)" = "$IQN" ] && echo "$s" && return 0
  done
  return 1
}
session_logged_in() { [ "$(cat "$(iscsi_session)/state" 2>/dev/null)" = LOGGED_IN ]; }
disk() { echo "DISK $1 $2 $(cat /sys/block/$2/queue/logical_block_size) $(cat /sys/block/$2/queue/physical_block_size) $(( $(cat /sys/block/$2/size) * 512 ))"; }
rd() { timeout 150 dd if="/dev/$1" of=/dev/null bs=$BS skip="$2" count=1 iflag=direct 2>/dev/null; } # dev lba
rdto() { timeout 150 dd if="/dev/$1" of="$3" bs=$BS skip="$2" count=1 iflag=direct 2>/dev/null; } # dev lba file
sum() { md5sum <"$1" | cut -d' ' -f1; }
want() { dd if=/tmp/pat bs=$BS skip="$1" count=1 2>/dev/null | md5sum | cut -d' ' -f1; } # block of the pattern
same() { [ -s "$1" ] && [ "$(sum "$1")" = "$(want "$2")" ]; } # file pattern-block
klog() { dmesg | tail -n "+$(( $1 + 1 ))" | grep -iE "$2" | tail -n 3 | tr '\n' ' ' | cut -c1-300; } # mark pattern
seen() { dmesg | tail -n "+$(( $1 + 1 ))" | grep -qiE "$2"; } # a kernel line after the mark matches
mark() { dmesg | wc -l; }

echo 5 > /sys/module/nvme_core/parameters/io_timeout
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN" --nr-io-queues=1 --reconnect-delay=1 \
  --keep-alive-tmo=5 >/tmp/c.out 2>&1
check xstall nvme-connect $? "$(tr '\n' ' ' </tmp/c.out | cut -c1-200)"
timeout 120 iscsiadm -m discovery -t sendtargets -p "$TARGET_ADDR:3260" >/tmp/d.out 2>&1
check xstall sendtargets $? "$(tr '\n' ' ' </tmp/d.out | cut -c1-200)"
for kv in node.conn[0].timeo.noop_out_interval=2 node.conn[0].timeo.noop_out_timeout=2 \
    node.session.timeo.replacement_timeout=15; do
  iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" -o update -n "${kv%%=*}" -v "${kv#*=}" >/dev/null 2>&1
done
timeout 120 iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --login >/tmp/l.out 2>&1
check xstall iscsi-login $? "$(tr '\n' ' ' </tmp/l.out | cut -c1-200)"
until_ok 60 nvme_dev; check xstall nvme-ns $?
until_ok 60 sd_dev; check xstall sd-lun $?
N=$(nvme_dev) && disk xstall-nvme "$N"
S=$(sd_dev) && disk xstall-iscsi "$S"
N="${N:-none}"; S="${S:-none}"
echo 30 > "/sys/block/$S/device/timeout" 2>/dev/null
# what the kernel took of the settings: the connection's ping / receive timeouts, the session's recovery timeout,
# the I/O timeout (ms) of the NVMe path's request queue and the controller's KATO
SESS=$(iscsi_session); CONN=$(ls -d /sys/class/iscsi_connection/connection"${SESS##*session}":* 2>/dev/null | head -n 1)
p="$(cat "$CONN/ping_tmo" 2>/dev/null) $(cat "$CONN/recv_tmo" 2>/dev/null) $(cat "$SESS/recovery_tmo" 2>/dev/null)"
[ "$p" = "2 2 15" ]; check xstall iscsi-timeouts $? "ping_tmo recv_tmo recovery_tmo = $p"
PATHQ=$(ls -d /sys/block/nvme*c*n1/queue 2>/dev/null | head -n 1)
[ -n "$PATHQ" ] || PATHQ=/sys/block/$N/queue
t="$(cat "$PATHQ/io_timeout" 2>/dev/null)"
[ "$t" = 5000 ]; check xstall nvme-io-timeout $? "$PATHQ/io_timeout = $t ms; kato $(cat "/sys/class/nvme/$(nvme_ctrl)/kato" 2>/dev/null)"
dd if=/dev/urandom of=/tmp/pat bs=$BS count=4 2>/dev/null
# the blocks the iSCSI session reads are written over NVMe and the other way round
timeout 60 dd if=/tmp/pat of="/dev/$N" bs=$BS seek=5700 count=4 oflag=direct 2>/dev/null
check xstall write-over-nvme $?
timeout 60 dd if=/tmp/pat of="/dev/$S" bs=$BS seek=5800 count=4 oflag=direct 2>/dev/null
check xstall write-over-iscsi $?
echo "STEP connected"

# --- iSCSI, both directions stalled until the rule goes: open-iscsi's ping times out, iscsid logs in again (a new
# connection, TSIH 0: the target reinstates the session and closes the stalled one), sd retries the read ----------
m=$(mark); rm -f /tmp/s.rc
( rdto "$S" 5700 /tmp/s0; echo $? >/tmp/s.rc ) &
ok=0; bad=0; end=$(( $(date +%s) + 170 ))
while [ ! -s /tmp/s.rc ] && [ "$(date +%s)" -lt "$end" ]; do
  if rd "$N" 5710; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
done
wait
rc=$(cat /tmp/s.rc 2>/dev/null || echo none)
check stall-iscsi sd-read-through-stall "$rc" "dd exit $rc"
same /tmp/s0 0; check stall-iscsi sd-data-after-stall $?
seen "$m" "ping timeout"; check stall-iscsi sd-kernel-saw-ping-timeout $? "$(klog "$m" 'ping timeout|conn error')"
seen "$m" "detected conn error"; check stall-iscsi sd-kernel-saw-conn-error $? "$(klog "$m" 'conn error')"
[ "$ok" -gt 0 ] && [ "$bad" = 0 ]; check stall-iscsi nvme-reads-on-during-iscsi-stall $? "$ok read, $bad failed"
until_ok 60 session_logged_in; check stall-iscsi sd-session-logged-in-again $?
until_ok 60 rdto "$S" 5701 /tmp/s1; same /tmp/s1 1; check stall-iscsi sd-io-resumes $?
echo "STEP iscsi-stalled"

# --- NVMe/TCP, receive side stalled for 60 s: the hit read's own completion still goes out; the next command is not
# read, its I/O timeout fires, nvme-tcp's error recovery reconnects (a new controller) and retries the read -------
m=$(mark); rdto "$N" 5800 /tmp/n0; rc=$?; same /tmp/n0 0; ok=$?; ! seen "$m" "nvme.*(timeout|recovery)"
check stall-nvme nvme-hit-read-completes $((rc + ok + $?)) "dd exit $rc, no timeout: $(klog "$m" 'nvme')"
m=$(mark); rm -f /tmp/n.rc
( rdto "$N" 5801 /tmp/n1; echo $? >/tmp/n.rc ) &
ok=0; bad=0; end=$(( $(date +%s) + 170 ))
while [ ! -s /tmp/n.rc ] && [ "$(date +%s)" -lt "$end" ]; do
  if rd "$S" 5810; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
done
wait
rc=$(cat /tmp/n.rc 2>/dev/null || echo none)
check stall-nvme nvme-read-through-stall "$rc" "dd exit $rc"
same /tmp/n1 1; check stall-nvme nvme-data-after-stall $?
seen "$m" "nvme.*timeout"; check stall-nvme nvme-kernel-saw-io-timeout $? "$(klog "$m" 'nvme.*timeout')"
seen "$m" "nvme.*(Successfully reconnected|reconnect)"; check stall-nvme nvme-kernel-reconnected $? \
  "$(klog "$m" 'nvme.*(recovery|reconnect)')"
[ "$ok" -gt 0 ] && [ "$bad" = 0 ]; check stall-nvme sd-reads-on-during-nvme-stall $? "$ok read, $bad failed"
until_ok 60 rdto "$N" 5802 /tmp/n2; same /tmp/n2 2; check stall-nvme nvme-io-resumes $?
echo "STEP nvme-stalled"

# --- NVMe Keep Alive without completion: the host adds rule ka now. The target's keep-alive timer (KATO 5 s after the
# last Keep Alive it completed) expires first; it ends the controller (the held Keep Alive completes as aborted, the
# connections close), nvme-tcp reconnects to a new controller, whose Keep Alives are answered ----------------------
until_ok 60 ctrl_live; m=$(mark)
echo "STEP keep-alive"
until_ok 90 seen "$m" "keep.?alive"; check ka nvme-kernel-saw-keep-alive-fail $? "$(klog "$m" 'keep.?alive')"
until_ok 60 seen "$m" "nvme.*(Successfully reconnected|reconnect)"; check ka nvme-kernel-reconnected $? \
  "$(klog "$m" 'nvme.*(recovery|reconnect)')"
rd "$S" 5811; check ka sd-unaffected-by-keep-alive-stall $?
until_ok 60 ctrl_live; check ka nvme-controller-live $? "$(cat "/sys/class/nvme/$(nvme_ctrl)/state" 2>/dev/null)"
until_ok 60 rdto "$N" 5803 /tmp/n3; same /tmp/n3 3; check ka nvme-io-after-keep-alive-stall $?
# the new controller's Keep Alives are answered: it stays live over more than one KATO
until_ok 30 seen "$m" "Successfully reconnected"; m2=$(mark)
sleep 11
seen "$m2" "keep.?alive|reconnect|recovery"; [ $? != 0 ] && ctrl_live; check ka nvme-keep-alive-answered-after $? \
  "$(klog "$m2" 'nvme')"
echo "STEP done"

dmesg | grep -iE "ping timeout|conn error|nvme.*(timeout|keep|reconnect|recovery|reset|abort)" | tail -n 20 \
  | sed 's/^/# dmesg: /'
dmesg | grep -E "BUG:|Oops|Call Trace" | tail -n 5 | sed 's/^/# dmesg: /'
nvme disconnect -n "$NQN" >/dev/null 2>&1; check xstall nvme-disconnect $?
iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --logout >/dev/null 2>&1; check xstall iscsi-logout $?
exit 0
