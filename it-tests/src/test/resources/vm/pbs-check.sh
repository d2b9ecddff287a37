#!/bin/sh
# Guest script (initiator VM): the physical block as Linux sees it over both protocols (LinuxPhysicalBlockIT). The
# host serves the LUNs in $NAMES, each exported over iSCSI (target $IQN_PREFIX<name>) and NVMe/TCP (subsystem
# $NQN_PREFIX<name>); this script attaches every one over both protocols and prints, per disk:
#   PBS <name>-<proto> <dev> <logical> <physical> <minimum_io> <unit_min> <unit_max> <boundary>
#     (/sys/block/X/queue/...; the atomic_write_* files are -1 where the kernel has none, e.g. 6.1)
#   CHECK <name>-<proto> <what> OK|FAIL [detail]
# Checks: the partition scan at attach logged no "Buffer I/O error" / "unable to read partition table" for the disk
# (Linux 7.3 fails it for NVMe namespaces with logical blocks > 4 KiB: docs/known-issues.md); after
# blockdev --rereadpt (the documented workaround) a buffered read of the first logical block succeeds;
# where NVMe shows atomic writes beyond one logical block, an RWF_ATOMIC write (xfs_io pwrite -A) of unit_max at
# offset 0 succeeds. Env: TARGET_ADDR (run.sh), NAMES.
set -u
ISCSI_PORT="${ISCSI_PORT:-3260}"; NVME_PORT="${NVME_PORT:-4420}"
IQN_PREFIX="${IQN_PREFIX:-iqn.2026-11.io.blocktarget:}"; NQN_PREFIX="${NQN_PREFIX:-nqn.2026-11.io.blocktarget:}"
PORTAL="$TARGET_ADDR:$ISCSI_PORT"
echo "# kernel $(uname -r) names ${NAMES:-}"

check() { # name what rc [detail]
  if [ "$3" = 0 ]; then echo "CHECK $1 $2 OK ${4:-}"; else echo "CHECK $1 $2 FAIL ${4:-}"; fi
}
iscsi_dev() { # name -> sdX
  for s in /sys/class/iscsi_session/session*; do
    [ "$(cat "$s/targetname" 2>/dev/null)" = "$IQN_PREFIX$1" ] || continue
    for b in "$s"/device/target*/*/block/*; do [ -e "$b" ] && basename "$b" && return; done
  done
}
nvme_dev() { # name -> nvmeXnY
  for b in /sys/block/nvme*n*; do
    [ -e "$b" ] || continue
    case "$(basename "$b")" in nvme*c*n*) continue ;; esac
    nqn=$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn" 2>/dev/null)
    [ "$nqn" = "$NQN_PREFIX$1" ] && basename "$b" && return
  done
}
q() { cat "/sys/block/$1/queue/$2" 2>/dev/null || echo -1; }

timeout 60 iscsiadm -m discovery -t sendtargets -p "$PORTAL" >/tmp/disc.out 2>&1
check discovery sendtargets $? "$(wc -l </tmp/disc.out) records"
for n in ${NAMES:-}; do
  timeout 120 iscsiadm -m node -T "$IQN_PREFIX$n" -p "$PORTAL" --login >/tmp/login.out 2>&1
  check "$n-iscsi" login $? "$(tr '\n' ' ' </tmp/login.out | cut -c1-160)"
  timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s "$NVME_PORT" -n "$NQN_PREFIX$n" --nr-io-queues=2 \
    >/tmp/conn.out 2>&1
  check "$n-nvme" connect $? "$(tr '\n' ' ' </tmp/conn.out | cut -c1-160)"
done
udevadm settle 2>/dev/null; sleep 2
dmesg >/tmp/dmesg.out

for n in ${NAMES:-}; do
  for proto in iscsi nvme; do
    if [ $proto = iscsi ]; then d=$(iscsi_dev "$n"); else d=$(nvme_dev "$n"); fi
    name="$n-$proto"
    [ -n "${d:-}" ] || { check "$name" device 1 "no block device"; continue; }
    lbs=$(q "$d" logical_block_size); pbs=$(q "$d" physical_block_size); iomin=$(q "$d" minimum_io_size)
    min=$(q "$d" atomic_write_unit_min_bytes); max_unit=$(q "$d" atomic_write_unit_max_bytes)
    bnd=$(q "$d" atomic_write_boundary_bytes)
    echo "PBS $name $d $lbs $pbs $iomin $min $max_unit $bnd"
    errors=$(grep -c -E "dev $d, logical block|$d: unable to read partition table" /tmp/dmesg.out)
    check "$name" partition-scan "$errors" "$errors error lines: $(grep -E "dev $d,|$d: unable" /tmp/dmesg.out \
      | head -n 2 | tr '\n' ' ' | cut -c1-200)"
    if [ "$errors" != 0 ]; then
      blockdev --rereadpt "/dev/$d" >/tmp/rr.out 2>&1
      dd if="/dev/$d" of=/dev/null bs="$lbs" count=1 >/tmp/rr.out 2>&1
      check "$name" rereadpt-then-buffered-read $? "$(tr '\n' ' ' </tmp/rr.out | cut -c1-160)"
    fi
    if [ $proto = nvme ] && [ "$max_unit" -gt "$lbs" ] 2>/dev/null; then
      xfs_io -d -c "pwrite -A -V1 -b $max_unit 0 $max_unit" "/dev/$d" >/tmp/aw.out 2>&1
      grep -q 'wrote' /tmp/aw.out && ! grep -qi 'invalid\|not supported' /tmp/aw.out
      check "$name" rwf-atomic-unit-max $? "$(tr '\n' ' ' </tmp/aw.out | cut -c1-160)"
    fi
  done
done
grep -E "nvme|sd[a-z]|Buffer I/O|partition" /tmp/dmesg.out | tail -n 60 | sed 's/^/# dmesg: /'
for n in ${NAMES:-}; do
  nvme disconnect -n "$NQN_PREFIX$n" >/dev/null 2>&1
  iscsiadm -m node -T "$IQN_PREFIX$n" -p "$PORTAL" --logout >/dev/null 2>&1
done
exit 0
