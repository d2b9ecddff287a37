#!/bin/sh
# Guest script (initiator VM): data placement as Linux 7.x sees it (LinuxPlacementIT, issue 32). The host serves the
# LUNs in $NAMES, each exported over iSCSI (target $IQN_PREFIX<name>) and NVMe/TCP (subsystem $NQN_PREFIX<name>);
# this script attaches every one over both protocols and prints
#   STREAMS <name>-nvme <dev> <max_write_streams> <write_stream_granularity>   (/sys/block/X/queue; -1: no file)
#   CHECK <name>-<proto> <what> OK|FAIL [detail]
# then, on the iSCSI disk of $HINT_LUN, two fio jobs with lifetime hints (write_hint=short at 0, 1 MiB; extreme at
# 8 MiB, 2 MiB; one after the other), which sd turns into GROUP NUMBER 2 and 5 when the unit reports permanent streams — the host reads
# the server's per-stream counters after this script. Where fio knows write_stream (io_uring), two jobs on the NVMe
# namespace of $HINT_LUN with write streams 2 and 3 (FDP placement identifiers 1 and 2): "FIO-WRITE-STREAM yes",
# else "FIO-WRITE-STREAM no"; and fio's own FDP path (io_uring_cmd on /dev/ngXnY, fdp=1, fdp_pli=3: the fourth RUH
# Status descriptor, handle 3) for 1 MiB. On the iSCSI disk of $FAULT_LUN (whose
# B7h fails) write_hint=short for 1 MiB. Env: TARGET_ADDR (run.sh), NAMES, HINT_LUN, FAULT_LUN.
set -u
ISCSI_PORT="${ISCSI_PORT:-3260}"; NVME_PORT="${NVME_PORT:-4420}"
IQN_PREFIX="${IQN_PREFIX:-iqn.2026-11.io.blocktarget:}"; NQN_PREFIX="${NQN_PREFIX:-nqn.2026-11.io.blocktarget:}"
PORTAL="$TARGET_ADDR:$ISCSI_PORT"
echo "# kernel $(uname -r) names ${NAMES:-} fio $(fio --version 2>/dev/null) nvme_core multipath=$(cat \
  /sys/module/nvme_core/parameters/multipath 2>/dev/null)"

#@include guest-lib.sh
iscsi_dev() { iscsi_disks "$IQN_PREFIX$1" | { read -r _n _a _d && echo "$_d"; }; }   # name -> sdX (LUN 0)
nvme_dev() { nvme_head "$NQN_PREFIX$1"; }                                           # name -> nvmeXnY (NSID 1)
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

for n in ${NAMES:-}; do
  d=$(nvme_dev "$n")
  if [ -n "${d:-}" ]; then
    echo "STREAMS $n-nvme $d $(q "$d" max_write_streams) $(q "$d" write_stream_granularity)"
    dd if=/dev/zero of="/dev/$d" bs="$(q "$d" logical_block_size)" count=1 oflag=direct >/tmp/dd.out 2>&1
    check "$n-nvme" write $? "$(tr '\n' ' ' </tmp/dd.out | cut -c1-120)"
  else
    check "$n-nvme" device 1 "no block device"
  fi
  s=$(iscsi_dev "$n")
  if [ -n "${s:-}" ]; then
    # what sd read: B7h (sg_vpd) and GET STREAM STATUS (sg_stream_ctl), for the record
    sg_vpd -p 0xb7 "/dev/$s" 2>&1 | head -n 8 | sed "s/^/# $n-iscsi b7: /"
    sg_stream_ctl --get "/dev/$s" 2>&1 | head -n 6 | sed "s/^/# $n-iscsi get-stream-status: /"
    dd if=/dev/zero of="/dev/$s" bs="$(q "$s" logical_block_size)" count=1 oflag=direct >/tmp/dd.out 2>&1
    check "$n-iscsi" write $? "$(tr '\n' ' ' </tmp/dd.out | cut -c1-120)"
  else
    check "$n-iscsi" device 1 "no block device"
  fi
done

if [ -n "${HINT_LUN:-}" ]; then
  s=$(iscsi_dev "$HINT_LUN")
  # one job after the other: fio sets the hint on the device node's inode (F_SET_RW_HINT), which both jobs share
  fio --name=short --filename="/dev/$s" --rw=write --bs=64k --offset=0 --size=1M --direct=1 --ioengine=psync \
    --write_hint=short >/tmp/fio.out 2>&1
  check "$HINT_LUN-iscsi" fio-write-hint-short $? "$(grep -E 'err=|WRITE:' /tmp/fio.out | tr '\n' ' ' | cut -c1-200)"
  fio --name=extreme --filename="/dev/$s" --rw=write --bs=64k --offset=8M --size=2M --direct=1 --ioengine=psync \
    --write_hint=extreme >/tmp/fio.out 2>&1
  check "$HINT_LUN-iscsi" fio-write-hint-extreme $? "$(grep -E 'err=|WRITE:' /tmp/fio.out | tr '\n' ' ' \
    | cut -c1-200)"
  d=$(nvme_dev "$HINT_LUN")
  # nvme-cli's FDP plugin reads the same structures Linux does (log 20h-23h, RUH Status)
  c=$(echo "$d" | sed 's/n[0-9]*$//')
  for cmd in "configs /dev/$c --endgrp-id=1" "usage /dev/$c --endgrp-id=1" "stats /dev/$c --endgrp-id=1" \
      "status /dev/$d"; do
    # shellcheck disable=SC2086
    nvme fdp $cmd >/tmp/fdp.out 2>&1
    rc=$?
    head -n 12 /tmp/fdp.out | sed "s|^|# nvme fdp ${cmd%% *}: |"
    check "$HINT_LUN-nvme" "nvme-fdp-${cmd%% *}" $rc "$(head -n 1 /tmp/fdp.out | cut -c1-120)"
  done
  if fio --cmdhelp=write_stream 2>&1 | grep -q '^write_stream'; then
    echo "FIO-WRITE-STREAM yes"
    fio --name=s2 --filename="/dev/$d" --rw=write --bs=64k --offset=16M --size=1M --direct=1 --ioengine=io_uring \
      --write_stream=2 --name=s3 --filename="/dev/$d" --rw=write --bs=64k --offset=24M --size=2M --direct=1 \
      --ioengine=io_uring --write_stream=3 >/tmp/fio2.out 2>&1
    check "$HINT_LUN-nvme" fio-write-streams $? "$(grep -E 'err=|WRITE:|rror' /tmp/fio2.out | tr '\n' ' ' \
      | cut -c1-200)"
  else
    echo "FIO-WRITE-STREAM no"
    fio --cmdhelp=write_stream 2>&1 | head -n 2 | sed 's/^/# fio --cmdhelp=write_stream: /'
  fi
  # fio's own FDP path: io_uring_cmd on the generic character device, placement identifier index 3 of RUH Status
  g=$(echo "$d" | sed 's/^nvme/ng/')
  fio --name=pli3 --filename="/dev/$g" --ioengine=io_uring_cmd --cmd_type=nvme --fdp=1 --fdp_pli=3 --rw=write \
    --bs=64k --offset=32M --size=1M >/tmp/fio3.out 2>&1
  check "$HINT_LUN-nvme" fio-fdp-pli $? "$(grep -E 'err=|WRITE:|error|fdp' /tmp/fio3.out | tr '\n' ' ' | cut -c1-200)"
fi
if [ -n "${FAULT_LUN:-}" ]; then   # B7h fails there: sd has no RSCS and sends GROUP NUMBER 0 whatever the hint
  s=$(iscsi_dev "$FAULT_LUN")
  fio --name=short --filename="/dev/$s" --rw=write --bs=64k --offset=0 --size=1M --direct=1 --ioengine=psync \
    --write_hint=short >/tmp/fio.out 2>&1
  check "$FAULT_LUN-iscsi" fio-write-hint-short $? "$(grep -E 'err=|WRITE:' /tmp/fio.out | tr '\n' ' ' | cut -c1-200)"
fi
dmesg | grep -iE "fdp|stream|nvme" | tail -n 40 | sed 's/^/# dmesg: /'
for n in ${NAMES:-}; do
  nvme disconnect -n "$NQN_PREFIX$n" >/dev/null 2>&1
  iscsiadm -m node -T "$IQN_PREFIX$n" -p "$PORTAL" --logout >/dev/null 2>&1
done
exit 0
