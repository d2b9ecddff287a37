#!/bin/sh
# Guest script (initiator VM): the load whose device-side trace LinuxTraceIT checks. The host serves one 16 KiB LUN
# on iSCSI target $IQN LUN 0 and NVMe subsystem $NQN NSID 1 with its trace already on; this script connects both,
# then runs fio --bs=16k --rw=randwrite --iodepth=$QD --direct=1 (libaio) on the iSCSI disk, then on the NVMe one
# (one after the other, so the queue depth the trace sees per protocol is that protocol's), and disconnects.
# Lines for the host: DISK <name> <dev> <logical> <physical> <size_bytes>, CHECK <name> <what> OK|FAIL [detail],
# FIO <proto> <ios issued>.
# Env: TARGET_ADDR (run.sh), IQN, NQN, QD (fio iodepth), SIZE (fio --size, e.g. 32M).
set -u
echo "# kernel $(uname -r) trace iqn $IQN nqn $NQN qd $QD size $SIZE"

check() { # name what rc [detail]
  if [ "$3" = 0 ]; then echo "CHECK $1 $2 OK ${4:-}"; else echo "CHECK $1 $2 FAIL ${4:-}"; fi
}
until_ok() { # seconds cmd...: every 0.2 s until it succeeds
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
disk() { # name dev
  echo "DISK $1 $2 $(cat /sys/block/$2/queue/logical_block_size) $(cat /sys/block/$2/queue/physical_block_size) $(( $(cat /sys/block/$2/size) * 512 ))"
}
load() { # proto dev
  # no merging in the block layer: the trace is to show each write fio issued as one command. NVMe multipath
  # passes bios from the head node (nvmeXnY) to a path device's queue (nvmeXcZnY), which merges on its own.
  for q in "/sys/block/$2/queue/nomerges" /sys/block/nvme*c*n*/queue/nomerges; do
    [ -e "$q" ] && echo 2 > "$q"
  done
  echo "# nomerges $2: $(cat /sys/block/$2/queue/nomerges) $(cat /sys/block/nvme*c*n*/queue/nomerges 2>/dev/null | tr '\n' ' ')"
  fio --name=t --filename="/dev/$2" --rw=randwrite --bs=16k --iodepth="$QD" --direct=1 --ioengine=libaio \
      --size="$SIZE" --output-format=terse --terse-version=3 --output=/tmp/fio.$1 >/dev/null 2>&1
  rc=$?
  # terse v3: field 49 write IOPS, 48 write KiB/s; total write I/O (KiB) is field 47
  kib=$(awk -F';' '{print $47}' /tmp/fio.$1)
  check "$1" fio-randwrite-16k $rc "kib=$kib iops=$(awk -F';' '{print $49}' /tmp/fio.$1)"
  echo "FIO $1 $(( ${kib:-0} / 16 ))"
}

timeout 120 iscsiadm -m discovery -t sendtargets -p "$TARGET_ADDR:3260" >/tmp/d.out 2>&1
check tr sendtargets $? "$(tr '\n' ' ' </tmp/d.out | cut -c1-200)"
timeout 120 iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --login >/tmp/l.out 2>&1
check tr iscsi-login $? "$(tr '\n' ' ' </tmp/l.out | cut -c1-200)"
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN" --nr-io-queues=1 >/tmp/c.out 2>&1
check tr nvme-connect $? "$(tr '\n' ' ' </tmp/c.out | cut -c1-200)"
until_ok 60 sd_dev; check tr sd-disk $?
until_ok 60 nvme_dev; check tr nvme-disk $?
S=$(sd_dev) && disk tr-iscsi "$S"
N=$(nvme_dev) && disk tr-nvme "$N"
udevadm settle >/dev/null 2>&1
[ -n "${S:-}" ] && load iscsi "$S"
[ -n "${N:-}" ] && load nvme "$N"
nvme disconnect -n "$NQN" >/dev/null 2>&1; check tr nvme-disconnect $?
iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --logout >/dev/null 2>&1; check tr iscsi-logout $?
exit 0
