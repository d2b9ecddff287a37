#!/bin/sh
# Guest script (initiator VM): LUN knobs (issue 11) as Linux sees them. The host test (LinuxKnobsIT) serves one
# 4 KiB LUN "knob" on iSCSI target $IQN LUN 0 and NVMe subsystem $NQN NSID 1 whose LUN file sets limits, rotational,
# write-cache and identity; this script checks /sys/block/X/queue/*, sg_vpd -p bl and nvme id-ctrl / id-ns, then
# prints STEP file. The host then changes knobs at runtime with `blocktarget lun set` (optimal and maximum transfer
# 512 KiB, rotational false); NVMe must show the change by itself (Namespace Attribute Changed AEN), iSCSI after a
# rescan of the sd device (it has no AEN; the unit attention INQUIRY DATA HAS CHANGED makes sd revalidate too).
# The LUN file also sets session: values (MDTS 512 KiB, in-capsule 8 KiB, 1 I/O queue of 64 entries; iSCSI 64 KiB
# segments, 64 KiB first / 128 KiB max burst): Linux must negotiate them; the runtime change of session values must
# leave the sessions as they are and reach new ones (after a reconnect, which also shows rotational 0 on NVMe).
# Lines for the host: CHECK <name> <what> OK|FAIL [detail]; "# ..." lines are for the log.
# Env: TARGET_ADDR (run.sh), IQN, NQN, WAIT (seconds per step, default 120).
set -u
WAIT="${WAIT:-120}"
echo "# kernel $(uname -r) knobs iqn $IQN nqn $NQN"

check() { # name what rc [detail]
  if [ "$3" = 0 ]; then echo "CHECK $1 $2 OK ${4:-}"; else echo "CHECK $1 $2 FAIL ${4:-}"; fi
}
until_ok() { # SECONDS CMD...: every 0.2 s until CMD succeeds or SECONDS pass
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
q() { cat "/sys/block/$1/queue/$2" 2>/dev/null; }
q_is() { [ "$(q "$1" "$2")" = "$3" ]; }
is() { # name what dev file expected
  q_is "$3" "$4" "$5"; check "$1" "$2" $? "$4=$(q "$3" "$4") want $5"
}
show() { # dev: the queue limits of interest, for the log
  for f in max_hw_sectors_kb max_sectors_kb optimal_io_size minimum_io_size physical_block_size \
      discard_max_hw_bytes discard_granularity write_same_max_bytes write_zeroes_max_bytes rotational write_cache; do
    echo "# $1 $f=$(q "$1" "$f")"
  done
}
field() { # file key -> value of "key : value" lines of nvme id-ctrl / id-ns
  sed -n "s/^$2[[:space:]]*:[[:space:]]*//p" "$1" | head -n 1 | sed 's/[[:space:]]*$//'
}
vpd_bl() { # dev -> sg_vpd -p bl into /tmp/bl (false when sg3_utils is missing)
  command -v sg_vpd >/dev/null 2>&1 || return 1
  sg_vpd -p bl "/dev/$1" >/tmp/bl 2>&1; sed 's/^/# bl: /' /tmp/bl
}
bl_has() { grep -qi "$1" /tmp/bl; }
nvme_ctrl() { # -> nvmeX (the controller) of $NQN
  for c in /sys/class/nvme/nvme*; do
    [ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] && basename "$c" && return 0
  done
  return 1
}
iscsi_param() { # key -> the negotiated value iscsiadm -m session -P 2 shows for the session of $IQN
  iscsiadm -m session -P 2 2>/dev/null | awk -v t="$IQN" -v k="$1" '
    $1 == "Target:" { mine = ($2 == t) }
    mine && $1 == k":" { print $2; exit }'
}
rescan_sd() { echo 1 > "/sys/block/$1/device/rescan" 2>/dev/null; return 0; }
sd_rescanned_to() { rescan_sd "$1"; q_is "$1" "$2" "$3"; }

# --- connect to both protocols ----------------------------------------------------------
# two I/O queues asked for (the guest has 2 CPUs): the subsystem's session.io-queues 1 is what Linux gets
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN" --nr-io-queues=2 >/tmp/c.out 2>&1
check knob nvme-connect $? "$(tr '\n' ' ' </tmp/c.out | cut -c1-200)"
timeout 120 iscsiadm -m discovery -t sendtargets -p "$TARGET_ADDR:3260" >/tmp/d.out 2>&1
check knob sendtargets $? "$(tr '\n' ' ' </tmp/d.out | cut -c1-200)"
timeout 120 iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --login >/tmp/l.out 2>&1
check knob iscsi-login $? "$(tr '\n' ' ' </tmp/l.out | cut -c1-200)"
until_ok 60 nvme_dev 1; check knob nvme-ns1 $?
until_ok 60 sd_dev 0; check knob sd-lun0 $?
N=$(nvme_dev 1)
S=$(sd_dev 0)
show "$S"; show "$N"

# --- from the LUN file: iSCSI --------------------------------------------------------------
is file sd-optimal-io "$S" optimal_io_size 262144            # OPTIMAL TRANSFER LENGTH 64 x 4 KiB
is file sd-discard-max "$S" discard_max_hw_bytes 16777216     # MAXIMUM UNMAP LBA COUNT 4096 x 4 KiB
is file sd-discard-granularity "$S" discard_granularity 65536 # OPTIMAL UNMAP GRANULARITY 16 x 4 KiB
is file sd-rotational "$S" rotational 1                       # MEDIUM ROTATION RATE 7200
is file sd-write-cache "$S" write_cache "write back"          # caching page WCE = 1
is file sd-max-sectors "$S" max_sectors_kb 1024               # MAXIMUM TRANSFER LENGTH 256 x 4 KiB
is file sd-write-zeroes "$S" write_zeroes_max_bytes 8388608   # MAXIMUM WRITE SAME LENGTH 2048 x 4 KiB
vendor=$(tr -d ' ' <"/sys/block/$S/device/vendor"); model=$(sed 's/ *$//' <"/sys/block/$S/device/model")
[ "$vendor" = ACME ] && [ "$model" = KnobDisk ]; check file sd-identity $? "vendor=$vendor model=$model"
if vpd_bl "$S"; then
  bl_has "maximum transfer length: 0x100"; check file sg-vpd-max-transfer $?   # sg_vpd prints hex
  bl_has "optimal transfer length: 0x40"; check file sg-vpd-optimal-transfer $?
  bl_has "maximum write same length: 0x800"; check file sg-vpd-max-write-same $?
else
  echo "# sg_vpd: not in the guest (sg3_utils missing)"
fi

# --- from the LUN file: NVMe ---------------------------------------------------------------
is file nvme-optimal-io "$N" optimal_io_size 262144           # NOWS 63
is file nvme-write-cache "$N" write_cache "write back"        # VWC present
is file nvme-rotational "$N" rotational 1                     # CNS 08h NSFEAT bit 4 (7.x reads it)
nvme id-ctrl "/dev/$N" >/tmp/idc 2>&1; nvme id-ns "/dev/$N" >/tmp/idn 2>&1
sn=$(field /tmp/idc sn); mn=$(field /tmp/idc mn); vwc=$(field /tmp/idc vwc); oncs=$(field /tmp/idc oncs)
npwg=$(field /tmp/idn npwg); npdg=$(field /tmp/idn npdg); nows=$(field /tmp/idn nows); npwa=$(field /tmp/idn npwa)
echo "# id-ctrl: sn=$sn mn=$mn vwc=$vwc oncs=$oncs; id-ns: npwg=$npwg npwa=$npwa npdg=$npdg nows=$nows"
[ "$sn" = KNOB0001 ] && [ "$mn" = KnobDisk ]; check file nvme-id-ctrl-identity $? "sn=$sn mn=$mn"
[ "$npwg" = 15 ] && [ "$npdg" = 15 ] && [ "$nows" = 63 ]; check file nvme-id-ns-granularities $? \
  "npwg=$npwg npdg=$npdg nows=$nows"
npda=$(field /tmp/idn npda)
[ "$npda" = 31 ]; check file nvme-id-ns-npda $? "npda=$npda (limits.npda 128KiB, NPDG stays 15)"

# --- session: values (per controller / session) ---------------------------------------------
mdts=$(field /tmp/idc mdts); ioccsz=$(field /tmp/idc ioccsz); maxcmd=$(field /tmp/idc maxcmd)
echo "# id-ctrl: mdts=$mdts ioccsz=$ioccsz maxcmd=$maxcmd"
[ "$mdts" = 7 ]; check file nvme-id-ctrl-mdts $? "mdts=$mdts (2^7 x 4 KiB = 512 KiB)"
[ "$ioccsz" = 516 ]; check file nvme-id-ctrl-ioccsz $? "ioccsz=$ioccsz (4 + 8192 / 16)"
[ "$maxcmd" = 64 ]; check file nvme-id-ctrl-maxcmd $? "maxcmd=$maxcmd"
is file nvme-max-hw-sectors "$N" max_hw_sectors_kb 512            # MDTS bounds Linux's requests
C=$(nvme_ctrl)
qc=$(cat "/sys/class/nvme/$C/queue_count" 2>/dev/null); sq=$(cat "/sys/class/nvme/$C/sqsize" 2>/dev/null)
echo "# $C queue_count=$qc sqsize=$sq; $(dmesg | grep -i "$C" | grep -i -E 'queue|sqsize|maxcmd' | tail -n 3 | tr '\n' ' ')"
[ "$qc" = 2 ]; check file nvme-io-queues $? "queue_count=$qc (admin + 1 I/O queue; 2 asked for)"
[ "$sq" = 63 ]; check file nvme-queue-size $? "sqsize=$sq (0's based; MAXCMD 64 clamps Linux's 128)"
mrdsl=$(iscsi_param MaxRecvDataSegmentLength); mxdsl=$(iscsi_param MaxXmitDataSegmentLength)
fbl=$(iscsi_param FirstBurstLength); mbl=$(iscsi_param MaxBurstLength)
echo "# iscsiadm -P 2: MaxRecvDataSegmentLength=$mrdsl MaxXmitDataSegmentLength=$mxdsl FirstBurstLength=$fbl MaxBurstLength=$mbl"
[ "$mxdsl" = 65536 ]; check file iscsi-max-xmit-data-segment-length $? "MaxXmitDataSegmentLength=$mxdsl (our declared 64 KiB)"
[ "$fbl" = 65536 ]; check file iscsi-first-burst-length $? "FirstBurstLength=$fbl"
[ "$mbl" = 131072 ]; check file iscsi-max-burst-length $? "MaxBurstLength=$mbl"
# a write larger than a burst and than MDTS still works (split by Linux / solicited by R2T)
dd if=/dev/urandom of=/tmp/big bs=1M count=2 2>/dev/null
dd if=/tmp/big of="/dev/$S" bs=1M count=2 oflag=direct 2>/dev/null && \
  dd if="/dev/$N" of=/tmp/bigback bs=1M count=2 iflag=direct 2>/dev/null && cmp -s /tmp/big /tmp/bigback
check file big-write-both-protocols $? "2 MiB written over iSCSI (128 KiB bursts), read over NVMe (512 KiB MDTS)"
echo "STEP file"

# --- changed at runtime through the control socket -------------------------------------------
until_ok "$WAIT" q_is "$N" optimal_io_size 524288
check runtime nvme-optimal-io-changed $? "optimal_io_size=$(q "$N" optimal_io_size) (AEN, no reconnect)"
nvme id-ns "/dev/$N" >/tmp/idn 2>&1; nows=$(field /tmp/idn nows)
[ "$nows" = 127 ]; check runtime nvme-id-ns-nows $? "nows=$nows"
# Reported, not checked: Linux's nvme_update_ns_info_block only sets BLK_FEAT_ROTATIONAL, never clears it (README,
# "Why NVMe rotational 1 -> 0 needs a reconnect"); the new value is in CNS 08h at once, the reconnect below shows it
echo "# runtime nvme-rotational after the rescan: $(q "$N" rotational) (0 expected after a reconnect)"
until_ok "$WAIT" sd_rescanned_to "$S" rotational 0
check runtime sd-rotational-changed $? "rotational=$(q "$S" rotational) after rescan"
is runtime sd-optimal-io-changed "$S" optimal_io_size 524288
is runtime sd-max-sectors-changed "$S" max_sectors_kb 512
if vpd_bl "$S"; then
  bl_has "maximum transfer length: 0x80"; check runtime sg-vpd-max-transfer $?
fi
show "$S"; show "$N"
# data path still works on both after the change (same device, nothing reconnected)
dd if=/dev/urandom of=/tmp/pattern bs=4096 count=16 2>/dev/null
dd if=/tmp/pattern of="/dev/$N" bs=4096 count=16 oflag=direct 2>/dev/null && \
  dd if="/dev/$S" of=/tmp/back bs=4096 count=16 iflag=direct 2>/dev/null && cmp -s /tmp/pattern /tmp/back
check runtime same-bytes-both-protocols $? "written over NVMe, read over iSCSI"
# session values changed at runtime (mdts 1 MiB, max-burst-length 256 KiB): the sessions keep what they negotiated
mbl=$(iscsi_param MaxBurstLength)
[ "$mbl" = 131072 ]; check runtime iscsi-session-kept $? "MaxBurstLength=$mbl (negotiated at login)"
is runtime nvme-controller-kept "$N" max_hw_sectors_kb 512
echo "STEP runtime"

# --- reconnect: new controller and session take the new values ------------------------------
nvme disconnect -n "$NQN" >/dev/null 2>&1
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN" --nr-io-queues=2 >/tmp/c.out 2>&1
check reconnect nvme-connect $? "$(tr '\n' ' ' </tmp/c.out | cut -c1-200)"
iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --logout >/dev/null 2>&1
timeout 120 iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --login >/tmp/l.out 2>&1
check reconnect iscsi-login $? "$(tr '\n' ' ' </tmp/l.out | cut -c1-200)"
until_ok 60 nvme_dev 1; until_ok 60 sd_dev 0
N=$(nvme_dev 1); S=$(sd_dev 0)
show "$N"
is reconnect nvme-max-hw-sectors-changed "$N" max_hw_sectors_kb 1024
nvme id-ctrl "/dev/$N" >/tmp/idc 2>&1; mdts=$(field /tmp/idc mdts)
[ "$mdts" = 8 ]; check reconnect nvme-id-ctrl-mdts-changed $? "mdts=$mdts"
is reconnect nvme-rotational-after-reconnect "$N" rotational 0
mbl=$(iscsi_param MaxBurstLength)
[ "$mbl" = 262144 ]; check reconnect iscsi-max-burst-length-changed $? "MaxBurstLength=$mbl"
echo "STEP reconnect"

nvme disconnect -n "$NQN" >/dev/null 2>&1; check knob nvme-disconnect $?
iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --logout >/dev/null 2>&1; check knob iscsi-logout $?
exit 0
