#!/bin/sh
# Guest script (initiator VM): connection faults of fault rules as Linux meets them (issue 11). The host test
# (LinuxTransportFaultsIT) serves one 16 KiB LUN "xflt" (iSCSI target $IQN LUN 0, NVMe subsystem $NQN NSID 1) with
# these rules in its LUN file, each hitting the first read of its LBA only:
#   drop-iscsi  LBA 5000  drop-connection     (open-iscsi: conn error, relogin, sd retries the read)
#   drop-nvme   LBA 5100  drop-connection     (nvme-tcp: error recovery, reconnect, the read is retried)
#   logout      LBA 5200  async-logout 30 s   (AsyncEvent 1: iscsid logs out and logs in again)
#   hdgst-iscsi LBA 5300  corrupt-digest header   ddgst-iscsi LBA 5400 corrupt-digest data
#   hdgst-nvme  LBA 5500  corrupt-digest header   ddgst-nvme  LBA 5600 corrupt-digest data
# Both sessions log in with header and data digests on (CRC32C / -g -G). After each fault the read must succeed,
# I/O goes on, and the other protocol's session never noticed.
# Lines for the host: DISK ..., CHECK <name> <what> OK|FAIL [detail], STEP <what>.
# Env: TARGET_ADDR (run.sh), IQN, NQN.
set -u
BS=16384
echo "# kernel $(uname -r) transport faults iqn $IQN nqn $NQN"

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
sd_dev() {
  for s in /sys/class/iscsi_session/session*; do
    [ "$(cat "$s/targetname" 2>/dev/null)" = "$IQN" ] || continue
    for b in "$s"/device/target*/*:0/block/*; do [ -e "$b" ] && basename "$b" && return 0; done
  done
  return 1
}
disk() { echo "DISK $1 $2 $(cat /sys/block/$2/queue/logical_block_size) $(cat /sys/block/$2/queue/physical_block_size) $(( $(cat /sys/block/$2/size) * 512 ))"; }
rd() { timeout 150 dd if="/dev/$1" of=/dev/null bs=$BS skip="$2" count=1 iflag=direct 2>/dev/null; } # dev lba
klog() { dmesg | grep -iE "$1" | tail -n 2 | tr '\n' ' ' | cut -c1-200; }
since() { dmesg | tail -n "+$1"; } # kernel lines after line $1
mark() { dmesg | wc -l; }

echo 5 > /sys/module/nvme_core/parameters/io_timeout 2>/dev/null
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN" --nr-io-queues=1 --reconnect-delay=1 -g -G \
  >/tmp/c.out 2>&1
check xflt nvme-connect-digests $? "$(tr '\n' ' ' </tmp/c.out | cut -c1-200)"
timeout 120 iscsiadm -m discovery -t sendtargets -p "$TARGET_ADDR:3260" >/tmp/d.out 2>&1
check xflt sendtargets $? "$(tr '\n' ' ' </tmp/d.out | cut -c1-200)"
for k in HeaderDigest DataDigest; do
  iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" -o update -n "node.conn[0].iscsi.$k" -v CRC32C >/dev/null 2>&1
done
timeout 120 iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --login >/tmp/l.out 2>&1
check xflt iscsi-login-digests $? "$(tr '\n' ' ' </tmp/l.out | cut -c1-200)"
until_ok 60 nvme_dev; check xflt nvme-ns $?
until_ok 60 sd_dev; check xflt sd-lun $?
N=$(nvme_dev) && disk xflt-nvme "$N"
S=$(sd_dev) && disk xflt-iscsi "$S"
N="${N:-none}"; S="${S:-none}"
echo 5 > "/sys/block/$S/device/timeout" 2>/dev/null
echo "STEP connected"

# --- drop the connection at a read: both initiators reconnect and the read is retried -------------------------
m=$(mark); t0=$(date +%s); rd "$S" 5000; rc=$?; t1=$(date +%s)
check drop sd-read-after-drop $rc "$((t1 - t0)) s"
since "$m" | grep -q "detected conn error"; check drop sd-kernel-saw-conn-error $? "$(klog 'conn error')"
rd "$N" 5001; check drop nvme-unaffected-by-iscsi-drop $?
until_ok 60 rd "$S" 5001; check drop sd-io-resumes $?
m=$(mark); t0=$(date +%s); rd "$N" 5100; rc=$?; t1=$(date +%s)
check drop nvme-read-after-drop $rc "$((t1 - t0)) s"
since "$m" | grep -qiE "nvme.*(reconnect|recovery|resetting|reset)"; check drop nvme-kernel-reconnected $? \
  "$(klog 'nvme.*(reconnect|recovery|reset)')"
rd "$S" 5101; check drop sd-unaffected-by-nvme-drop $?
until_ok 60 rd "$N" 5101; check drop nvme-io-resumes $?
echo "STEP dropped"

# --- iSCSI Async Message, AsyncEvent 1: iscsid logs out and in again; I/O goes on ------------------------------
rd "$S" 5200; check logout sd-read-with-async-logout $?
echo "STEP logout-requested"
# the host waits for the second login in the target's log; meanwhile I/O blocks at most for the relogin
sleep 12
until_ok 60 rd "$S" 5201; check logout sd-io-resumes $?
rd "$N" 5201; check logout nvme-unaffected $?
echo "STEP relogged"

# --- a wrong digest with digests on: Linux detects it, recovers, the read succeeds ----------------------------
m=$(mark); rd "$S" 5300; check hdgst sd-read-after-header-digest $?
since "$m" | grep -q "detected conn error"; check hdgst sd-kernel-saw-digest-error $? "$(klog 'conn error')"
m=$(mark); rd "$S" 5400; check ddgst sd-read-after-data-digest $?
since "$m" | grep -q "detected conn error"; check ddgst sd-kernel-saw-digest-error $? "$(klog 'conn error')"
until_ok 60 rd "$S" 5401; check ddgst sd-io-resumes $?
m=$(mark); rd "$N" 5500; check hdgst nvme-read-after-header-digest $?
since "$m" | grep -qi "header digest error"; check hdgst nvme-kernel-saw-header-digest $? "$(klog 'digest')"
m=$(mark); rd "$N" 5600; check ddgst nvme-read-after-data-digest $?
since "$m" | grep -qi "data digest error"; check ddgst nvme-kernel-saw-data-digest $? "$(klog 'digest')"
until_ok 60 rd "$N" 5601; check ddgst nvme-io-resumes $?
echo "STEP done"

dmesg | grep -iE "digest|conn error|nvme.*(reconnect|reset)" | tail -n 12 | sed 's/^/# dmesg: /'
dmesg | grep -E "BUG:|Oops|Call Trace" | tail -n 5 | sed 's/^/# dmesg: /'
nvme disconnect -n "$NQN" >/dev/null 2>&1; check xflt nvme-disconnect $?
iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --logout >/dev/null 2>&1; check xflt iscsi-logout $?
exit 0
