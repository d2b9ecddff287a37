#!/bin/sh
# Guest script (initiator VM): atomic writes as Linux sees them (LinuxAtomicIT). The host serves the LUNs in $NAMES,
# each exported over iSCSI (target $IQN_PREFIX<name>) and NVMe/TCP (subsystem $NQN_PREFIX<name>); this script
# attaches every one over both protocols and prints, per disk:
#   ATOMIC <name>-<proto> <dev> <unit_min> <unit_max> <boundary> <max> <logical> <physical> <io_min>
#     (/sys/block/X/queue/atomic_write_unit_min_bytes, _unit_max_bytes, _boundary_bytes, atomic_write_max_bytes)
#   CHECK <name>-<proto> <what> OK|FAIL [detail]
# Checks, where the kernel shows atomic writes (unit_max > 0): xfs_io -d "pwrite -A -V1" (RWF_ATOMIC) of unit_min and
# of unit_max at offset 0 succeed; 2 x unit_max, and unit_min at an offset not a multiple of 2 x unit_min with length
# 2 x unit_min, fail with EINVAL; fio --atomic=1 --verify=crc32c at bs = unit_max is clean. Where it shows none, an
# RWF_ATOMIC write of one logical block fails with EOPNOTSUPP. Env: TARGET_ADDR (run.sh), NAMES.
set -u
ISCSI_PORT="${ISCSI_PORT:-3260}"; NVME_PORT="${NVME_PORT:-4420}"
IQN_PREFIX="${IQN_PREFIX:-iqn.2026-11.io.blocktarget:}"; NQN_PREFIX="${NQN_PREFIX:-nqn.2026-11.io.blocktarget:}"
PORTAL="$TARGET_ADDR:$ISCSI_PORT"
echo "# kernel $(uname -r) names ${NAMES:-} $(xfs_io -V 2>&1) $(fio --version 2>&1)"

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

# xfs_io RWF_ATOMIC write: name what expect(ok|einval) dev offset length
aw() {
  xfs_io -d -c "pwrite -A -V1 -b $6 $5 $6" "/dev/$4" >/tmp/aw.out 2>&1
  rc=$?; out=$(tr '\n' ' ' </tmp/aw.out | cut -c1-160)
  # xfs_io reports a failed pwrite on stderr and may still exit 0: judge by its message
  if grep -qi 'invalid argument' /tmp/aw.out; then got=einval
  elif grep -qi 'not supported' /tmp/aw.out; then got=eopnotsupp
  elif [ $rc = 0 ] && grep -q 'wrote' /tmp/aw.out; then got=ok
  else got="error"; fi
  [ "$got" = "$3" ]; check "$1" "$2" $? "want $3 got $got: off $5 len $6: $out"
}

for n in ${NAMES:-}; do
  for proto in iscsi nvme; do
    if [ $proto = iscsi ]; then d=$(iscsi_dev "$n"); else d=$(nvme_dev "$n"); fi
    name="$n-$proto"
    [ -n "${d:-}" ] || { check "$name" device 1 "no block device"; continue; }
    min=$(q "$d" atomic_write_unit_min_bytes); max_unit=$(q "$d" atomic_write_unit_max_bytes)
    bnd=$(q "$d" atomic_write_boundary_bytes); max=$(q "$d" atomic_write_max_bytes)
    lbs=$(q "$d" logical_block_size); pbs=$(q "$d" physical_block_size); iomin=$(q "$d" minimum_io_size)
    echo "ATOMIC $name $d $min $max_unit $bnd $max $lbs $pbs $iomin"
    if [ "$max_unit" -gt 0 ] 2>/dev/null; then
      aw "$name" xfs_io-unit-min ok "$d" 0 "$min"
      aw "$name" xfs_io-unit-max ok "$d" 0 "$max_unit"
      aw "$name" xfs_io-unit-max-at-offset ok "$d" "$((max_unit * 3))" "$max_unit"
      aw "$name" xfs_io-twice-unit-max einval "$d" 0 "$((max_unit * 2))"
      if [ "$max_unit" -ge $((min * 2)) ]; then
        aw "$name" xfs_io-misaligned einval "$d" "$min" "$((min * 2))"
      fi
      fio --name=a --filename="/dev/$d" --rw=randwrite --bs="$max_unit" --size=4M --direct=1 \
          --ioengine=pvsync2 --atomic=1 --verify=crc32c --do_verify=1 --verify_fatal=1 --output=/tmp/fio.out \
          >/dev/null 2>&1
      rc=$?; grep -q 'verify:' /tmp/fio.out && rc=1
      check "$name" fio-atomic-verify $rc "bs $max_unit $(grep -oE 'err= *[0-9]+' /tmp/fio.out | head -n1)"
    else
      # no FMODE_CAN_ATOMIC_WRITE on the open block device: RWF_ATOMIC is refused before any limit is checked
      aw "$name" xfs_io-no-atomics eopnotsupp "$d" 0 "$lbs"
    fi
  done
done
for n in ${NAMES:-}; do
  nvme disconnect -n "$NQN_PREFIX$n" >/dev/null 2>&1
  iscsiadm -m node -T "$IQN_PREFIX$n" -p "$PORTAL" --logout >/dev/null 2>&1
done
exit 0
