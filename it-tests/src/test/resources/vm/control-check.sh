#!/bin/sh
# Guest script (initiator VM): the control plane as Linux sees it. The host test (LinuxControlPlaneIT) serves one
# 16 KiB LUN "ctl" on iSCSI target $IQN LUN 0 and NVMe subsystem $NQN NSID 1, and changes the server from its CLI
# whenever this script prints a STEP line:
#   STEP connected  -> host adds LUN "ctl-2" (16 KiB, SIZE1) as iSCSI LUN 1 of $IQN and NSID 2 of $NQN
#   STEP added      -> host resizes ctl-2 to SIZE2
#   STEP resized    -> host removes ctl-2
# The script never sleeps on the host: it waits for what the kernel shows (the new namespace, the new size), polling
# /sys with a deadline, and reconnects nothing — the point is that a connected host sees each change.
# Lines for the host: DISK <name> <dev> <logical> <physical> <size_bytes>, CHECK <name> <what> OK|FAIL [detail].
# Env: TARGET_ADDR (run.sh), IQN, NQN, SIZE1, SIZE2 (bytes), WAIT (seconds per step, default 120).
set -u
WAIT="${WAIT:-120}"
echo "# kernel $(uname -r) control-plane iqn $IQN nqn $NQN"

check() { # name what rc [detail]
  if [ "$3" = 0 ]; then echo "CHECK $1 $2 OK ${4:-}"; else echo "CHECK $1 $2 FAIL ${4:-}"; fi
}
# until SECONDS CMD...: runs CMD every 0.2 s until it succeeds or SECONDS pass; rc 0 when it succeeded
until_ok() {
  n=$(( $1 * 5 )); shift
  while [ "$n" -gt 0 ]; do
    "$@" >/dev/null 2>&1 && return 0
    n=$((n - 1)); sleep 0.2
  done
  return 1
}
nvme_dev() { # nsid -> nvmeXnY of $NQN
  for b in /sys/block/nvme*n*; do
    [ -e "$b" ] || continue
    case "$(basename "$b")" in nvme*c*n*) continue ;; esac
    nqn=$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn" 2>/dev/null)
    [ "$nqn" = "$NQN" ] || continue
    [ "$(cat "$b/nsid" 2>/dev/null)" = "$1" ] && basename "$b" && return 0
  done
  return 1
}
sd_dev() { # lun -> sdX of $IQN
  for s in /sys/class/iscsi_session/session*; do
    [ "$(cat "$s/targetname" 2>/dev/null)" = "$IQN" ] || continue
    for b in "$s"/device/target*/*:"$1"/block/*; do [ -e "$b" ] && basename "$b" && return 0; done
  done
  return 1
}
disk() { # name dev
  echo "DISK $1 $2 $(cat /sys/block/$2/queue/logical_block_size) $(cat /sys/block/$2/queue/physical_block_size) $(( $(cat /sys/block/$2/size) * 512 ))"
}
size_is() { [ "$(( $(cat /sys/block/$1/size) * 512 ))" = "$2" ]; }
rescan_sd() { # dev: what an administrator does after a LUN change on iSCSI (sd has no capacity AEN)
  iscsiadm -m session --rescan >/dev/null 2>&1
  [ -n "${1:-}" ] && [ -e "/sys/block/$1/device/rescan" ] && echo 1 > "/sys/block/$1/device/rescan"
  return 0
}
sd_lun1_seen() { rescan_sd; sd_dev 1; }
sd_lun1_size2() { d=$(sd_dev 1) && rescan_sd "$d" && size_is "$d" "$SIZE2"; }

# --- connect to both protocols ----------------------------------------------------------
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN" --nr-io-queues=1 >/tmp/c.out 2>&1
check ctl nvme-connect $? "$(tr '\n' ' ' </tmp/c.out | cut -c1-200)"
timeout 120 iscsiadm -m discovery -t sendtargets -p "$TARGET_ADDR:3260" >/tmp/d.out 2>&1
check ctl sendtargets $? "$(tr '\n' ' ' </tmp/d.out | cut -c1-200)"
timeout 120 iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --login >/tmp/l.out 2>&1
check ctl iscsi-login $? "$(tr '\n' ' ' </tmp/l.out | cut -c1-200)"
until_ok 60 nvme_dev 1; check ctl nvme-ns1 $?
until_ok 60 sd_dev 0; check ctl sd-lun0 $?
N1=$(nvme_dev 1) && disk ctl-nvme "$N1"
S0=$(sd_dev 0) && disk ctl-iscsi "$S0"
echo "STEP connected"

# --- the host adds ctl-2: NVMe by AEN (Namespace Attribute Changed), iSCSI after a rescan --
until_ok "$WAIT" nvme_dev 2; check ctl-2 nvme-ns-appeared $? "no reconnect"
until_ok "$WAIT" sd_lun1_seen; check ctl-2 sd-lun-appeared $? "iscsiadm -m session --rescan"
N2=$(nvme_dev 2) && disk ctl-2-nvme "$N2"
S1=$(sd_dev 1) && disk ctl-2-iscsi "$S1"
if [ -n "${N2:-}" ]; then
  dd if=/dev/urandom of=/tmp/pattern bs=16384 count=4 2>/dev/null
  dd if=/tmp/pattern of="/dev/$N2" bs=16384 count=4 oflag=direct 2>/dev/null && \
    dd if="/dev/${S1:-none}" of=/tmp/back bs=16384 count=4 iflag=direct 2>/dev/null && cmp -s /tmp/pattern /tmp/back
  check ctl-2 same-bytes-both-protocols $? "written over NVMe, read over iSCSI"
fi
echo "STEP added"

# --- the host resizes ctl-2 to SIZE2: NVMe by AEN, iSCSI after a rescan ------------------
[ -n "${N2:-}" ] && { until_ok "$WAIT" size_is "$N2" "$SIZE2"; check ctl-2 nvme-resized $? "$(( $(cat /sys/block/$N2/size) * 512 ))"; }
[ -n "${S1:-}" ] && { until_ok "$WAIT" sd_lun1_size2; check ctl-2 sd-resized $? "$(( $(cat /sys/block/$S1/size) * 512 ))"; }
[ -n "${N2:-}" ] && disk ctl-2-nvme "$N2"
[ -n "${S1:-}" ] && disk ctl-2-iscsi "$S1"
if [ -n "${N2:-}" ]; then
  dd if="/dev/$N2" of=/tmp/back bs=16384 count=4 iflag=direct 2>/dev/null && cmp -s /tmp/pattern /tmp/back
  check ctl-2 data-kept-after-resize $?
fi
echo "STEP resized"

# --- the host removes ctl-2: the namespace goes away; the iSCSI LUN refuses I/O ------------
nvme_gone() { ! nvme_dev 2; }
until_ok "$WAIT" nvme_gone; check ctl-2 nvme-ns-removed $?
sd_refuses() { ! dd if="/dev/$S1" of=/dev/null bs=16384 count=1 iflag=direct; }
[ -n "${S1:-}" ] && { until_ok "$WAIT" sd_refuses; check ctl-2 sd-io-refused $?; }
# the LUN that was never touched still works on both protocols
[ -n "${N1:-}" ] && { dd if=/tmp/pattern of="/dev/$N1" bs=16384 count=4 oflag=direct 2>/dev/null && \
  dd if="/dev/${S0:-none}" of=/tmp/back bs=16384 count=4 iflag=direct 2>/dev/null && cmp -s /tmp/pattern /tmp/back
  check ctl untouched-lun-works $?; }
echo "STEP removed"

nvme disconnect -n "$NQN" >/dev/null 2>&1; check ctl nvme-disconnect $?
iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --logout >/dev/null 2>&1; check ctl iscsi-logout $?
exit 0
