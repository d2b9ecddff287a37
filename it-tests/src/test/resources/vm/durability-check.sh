#!/bin/sh
# Guest script (initiator VM) of LinuxDurabilityIT: a power cut of a machine running blocktarget. The target runs IN
# this guest, on the JDK and jar the host put into /share, and serves file LUNs whose files live on ext4 file
# systems of this guest; each ext4 sits on a loop device over an image file in /share (9p, cache=none: a write that
# reaches the loop device is on the host at once, and survives the guest). So the guest's page cache is the disk's
# volatile write cache: what blocktarget wrote but did not fdatasync is in guest RAM only, and the power cut — sysrq
# 'b', an immediate reset without syncing anything, which qemu (-no-reboot) turns into its exit — loses it.
#
# MODE=cut (first boot): per LUN in $LUNS (one ext4 each, so no fsync of one LUN can write another's page cache)
#   mkfs + mount, a 4 MiB LUN file fully written and synced (overwrites later need no allocation, so nothing but
#   writeback or fsync moves their data), starts blocktarget (env JAVA_OPTS; $DROPPED are the LUNs whose flush/FUA
#   the test switch drops), attaches the LUN over its protocol from this guest's own initiator (127.0.0.1) and
#   writes 4 KiB blocks "BTDUR <lun> <lba>\n" + zeros with pass-through commands (exact opcodes and FUA bits, no
#   block-layer flush added):
#     *-flush LUNs: 4 rounds of two plain writes (SCSI WRITE(10) / NVMe Write, FUA 0) + SYNCHRONIZE CACHE(10) /
#                   NVMe Flush; after the flush completed: "ACK <lun> <lba>" for both blocks
#     *-fua LUNs:   8 writes with FUA 1; after each completed: "ACK <lun> <lba>"
#     then 4 plain writes and no flush: "UNSYNCED <lun> <lba>" (must be gone after the cut: the premise)
#   Records go to /share/rec-<lun>.log (9p cache=none: synchronous to the host) only after the command completed
#   GOOD, then /share/cut is written and the guest is reset. run.sh then reports 125 (no exit code), which the
#   test expects only together with /share/cut.
# MODE=check (second boot): mounts every image (ext4 journal replay), copies the first 64 KiB of each LUN file to
#   /share/after-<lun>.img, unmounts and runs e2fsck -fn. The host compares the blocks with the records.
# Lines: CHECK <name> <what> OK|FAIL [detail], INFO ..., TIME <what> <seconds since script start>.
# Env: MODE, LUNS (names; the part before the first '-' is the protocol, iscsi|nvme; "flush"|"fua" the method),
#      JAVA_OPTS, IQN_PREFIX, NQN_PREFIX.
set -u
S=/share
IQN_PREFIX="${IQN_PREFIX:-iqn.2026-11.io.blocktarget:}"; NQN_PREFIX="${NQN_PREFIX:-nqn.2026-11.io.blocktarget:}"
echo "# kernel $(uname -r) durability mode $MODE luns $LUNS"
T0=$(cut -d. -f1 /proc/uptime)
t() { echo "TIME $1 $(( $(cut -d. -f1 /proc/uptime) - T0 ))"; }
check() { # name what rc [detail]
  if [ "$3" = 0 ]; then echo "CHECK $1 $2 OK ${4:-}"; else echo "CHECK $1 $2 FAIL ${4:-}"; fi
}
# until_ok SECONDS CMD...: runs CMD every 0.2 s until it succeeds or SECONDS pass
until_ok() {  # (its counter is not called n: the callers' loops use n)
  _tries=$(( $1 * 5 )); shift
  while [ "$_tries" -gt 0 ]; do
    "$@" >/dev/null 2>&1 && return 0
    _tries=$((_tries - 1)); sleep 0.2
  done
  return 1
}
modprobe loop || { check guest modprobe-loop 1; exit 1; }
mkdir -p /mnt

attach_image() { # lun -> mounts /mnt/<lun>; rc
  dev=$(/usr/sbin/losetup -f --show "$S/fs-$1.img") || return 1
  mkdir -p "/mnt/$1"
  mount -t ext4 -o noatime "$dev" "/mnt/$1"
}

if [ "$MODE" = check ]; then
  rc_all=0
  for n in $LUNS; do
    attach_image "$n" >/tmp/m.out 2>&1; rc=$?
    check "$n" mount-after-cut $rc "$(tr '\n' ' ' </tmp/m.out | cut -c1-160)"
    [ $rc = 0 ] || { rc_all=1; continue; }
    dd if="/mnt/$n/lun.img" of="$S/after-$n.img" bs=65536 count=1 2>/tmp/dd.out
    check "$n" copy-out $? "$(tr '\n' ' ' </tmp/dd.out | cut -c1-120)"
    dev=$(findmnt -n -o SOURCE "/mnt/$n")
    umount "/mnt/$n"
    /usr/sbin/e2fsck -fn "$dev" >/tmp/fsck.out 2>&1
    check "$n" e2fsck-clean $? "$(tail -n 1 /tmp/fsck.out | cut -c1-160)"
    /usr/sbin/losetup -d "$dev"
  done
  dmesg | grep -E 'EXT4-fs \(loop' | sed 's/^/INFO dmesg /'
  t check-done
  exit $rc_all
fi

# ---- MODE=cut ----------------------------------------------------------------------------------------------------
# Nothing but an explicit fsync / sync may write dirty pages back: no periodic flusher, no expiry, no threshold.
echo 0 > /proc/sys/vm/dirty_writeback_centisecs
echo 8640000 > /proc/sys/vm/dirty_expire_centisecs
echo 90 > /proc/sys/vm/dirty_background_ratio
echo 95 > /proc/sys/vm/dirty_ratio
for n in $LUNS; do
  truncate -s 25165824 "$S/fs-$n.img" &&
    /usr/sbin/mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$S/fs-$n.img" >/tmp/mkfs.out 2>&1 &&
    attach_image "$n" >>/tmp/mkfs.out 2>&1 &&
    dd if=/dev/zero of="/mnt/$n/lun.img" bs=1048576 count=4 conv=fsync 2>>/tmp/mkfs.out
  rc=$?; check "$n" ext4-lun-file $rc "$(tr '\n' ' ' </tmp/mkfs.out | cut -c1-160)"
  [ $rc = 0 ] || exit 1
done
sync
t file-systems-ready

mkdir -p /tmp/bt/luns.d
cat > /tmp/bt/blocktarget.yaml <<EOF
bind: 127.0.0.1
discovery-port: 0
memory-budget: 64MiB
EOF
for n in $LUNS; do
  case "$n" in iscsi-*) off=nvme ;; *) off=iscsi ;; esac
  cat > "/tmp/bt/luns.d/$n.yaml" <<EOF
backend: file
path: /mnt/$n/lun.img
size: 4MiB
logical-block-size: 4KiB
export:
  $off: false
EOF
done
COUNT=$(echo $LUNS | wc -w)
# shellcheck disable=SC2086 # JAVA_OPTS is a list of options
"$S/jdk/bin/java" $JAVA_OPTS -jar "$S/blocktarget.jar" serve --config /tmp/bt >/tmp/bt.log 2>&1 &
BT=$!
serving() { grep -q "serving $COUNT LUNs" /tmp/bt.log; }
until_ok 600 serving; rc=$?
check target started $rc "pid $BT"
if [ $rc != 0 ] || ! kill -0 $BT 2>/dev/null; then cat /tmp/bt.log; exit 1; fi
sed 's/^/INFO target /' /tmp/bt.log
t target-serving

iscsi_dev() { # lun -> sdX
  for s in /sys/class/iscsi_session/session*; do
    [ "$(cat "$s/targetname" 2>/dev/null)" = "$IQN_PREFIX$1" ] || continue
    for b in "$s"/device/target*/*/block/*; do [ -e "$b" ] && basename "$b" && return 0; done
  done
  return 1
}
nvme_dev() { # lun -> nvmeXnY
  for b in /sys/block/nvme*n*; do
    [ -e "$b" ] || continue
    case "$(basename "$b")" in nvme*c*n*) continue ;; esac
    nqn=$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn" 2>/dev/null)
    [ "$nqn" = "$NQN_PREFIX$1" ] && basename "$b" && return 0
  done
  return 1
}
timeout 120 iscsiadm -m discovery -t sendtargets -p 127.0.0.1:3260 >/tmp/disc.out 2>&1
check discovery sendtargets $? "$(wc -l </tmp/disc.out) records"
for n in $LUNS; do
  case "$n" in
    iscsi-*) timeout 120 iscsiadm -m node -T "$IQN_PREFIX$n" -p 127.0.0.1:3260 --login >/tmp/a.out 2>&1 ;;
    # keep-alive 60 s, not 5: the target runs in this TCG guest too, beside 7 other LUNs' writers, and a pass-through
    # command fails at once (no retry) if a late Keep Alive resets the controller
    *) timeout 120 nvme connect -t tcp -a 127.0.0.1 -s 4420 -n "$NQN_PREFIX$n" --nr-io-queues=1 --keep-alive-tmo=60 \
         >/tmp/a.out 2>&1 ;;
  esac
  check "$n" attach $? "$(tr '\n' ' ' </tmp/a.out | cut -c1-160)"
done
for n in $LUNS; do
  case "$n" in iscsi-*) f=iscsi_dev ;; *) f=nvme_dev ;; esac
  until_ok 60 $f "$n"; d=$($f "$n")
  check "$n" device $? "$d"
  [ -n "$d" ] || exit 1
  echo "INFO $n dev $d write_cache '$(cat /sys/block/$d/queue/write_cache)' fua $(cat /sys/block/$d/queue/fua)"
  echo "$d" > "/tmp/dev-$n"
done
t attached

be32() { printf '%02x %02x %02x %02x' $(( $1 >> 24 & 255 )) $(( $1 >> 16 & 255 )) $(( $1 >> 8 & 255 )) $(( $1 & 255 )); }
block() { # lun lba -> /tmp/blk-<lun>: the 4 KiB the host expects there
  printf 'BTDUR %s %s\n' "$1" "$2" | dd of="/tmp/blk-$1" bs=4096 count=1 conv=sync 2>/dev/null
}
# write PROTO DEV LUN LBA FUA(0|1): one block by pass-through: SBC-4 WRITE(10) (FUA = byte 1 bit 3) or NVMe Write
write_block() {
  block "$3" "$4"
  if [ "$1" = iscsi ]; then
    if [ "$5" = 1 ]; then b1=08; else b1=00; fi
    # shellcheck disable=SC2046 # be32 yields four CDB bytes
    sg_raw -t 120 -s 4096 -i "/tmp/blk-$3" "/dev/$2" 2a $b1 $(be32 "$4") 00 00 01 00 >"/tmp/w-$3.out" 2>&1
  elif [ "$5" = 1 ]; then
    nvme write "/dev/$2" -s "$4" -c 0 -z 4096 -d "/tmp/blk-$3" -f >"/tmp/w-$3.out" 2>&1
  else
    nvme write "/dev/$2" -s "$4" -c 0 -z 4096 -d "/tmp/blk-$3" >"/tmp/w-$3.out" 2>&1
  fi
}
flush_dev() { # PROTO DEV: SBC-4 SYNCHRONIZE CACHE(10) of the whole LU / NVMe Flush
  if [ "$1" = iscsi ]; then sg_sync "/dev/$2"; else nvme flush "/dev/$2"; fi >"/tmp/f-$3.out" 2>&1
}
fail() { # lun what: the command's output, and stop this LUN
  check "$1" "$2" 1 "$(tr '\n' ' ' <"/tmp/$3-$1.out" | cut -c1-200)"; exit 1
}
run_lun() { # lun
  n=$1; proto=${n%%-*}; d=$(cat "/tmp/dev-$n"); rec="$S/rec-$n.log"
  case "$n" in
    *-flush*)
      for r in 0 1 2 3; do
        a=$((2 * r)); b=$((2 * r + 1))
        write_block "$proto" "$d" "$n" $a 0 || fail "$n" "write-$a" w
        write_block "$proto" "$d" "$n" $b 0 || fail "$n" "write-$b" w
        flush_dev "$proto" "$d" "$n" || fail "$n" "flush-$r" f
        echo "ACK $n $a" >> "$rec"; echo "ACK $n $b" >> "$rec"
      done ;;
    *-fua*)
      for a in 0 1 2 3 4 5 6 7; do
        write_block "$proto" "$d" "$n" $a 1 || fail "$n" "fua-write-$a" w
        echo "ACK $n $a" >> "$rec"
      done ;;
  esac
  for a in 8 9 10 11; do
    write_block "$proto" "$d" "$n" $a 0 || fail "$n" "write-$a" w
    echo "UNSYNCED $n $a" >> "$rec"
  done
  check "$n" sequence 0 "$(grep -c ACK "$rec") acknowledged, $(grep -c UNSYNCED "$rec") unsynced"
}
# every LUN at once, as one machine's applications would: the cut finds them all in the same state
pids=""
for n in $LUNS; do run_lun "$n" & pids="$pids $!"; done
# shellcheck disable=SC2086 # one PID each (a bare wait would also wait for the target)
wait $pids
t written
kill -0 $BT 2>/dev/null; check target alive-before-cut $? ""
tail -n 5 /tmp/bt.log | sed 's/^/INFO target /'
echo "cut after $(( $(cut -d. -f1 /proc/uptime) - T0 )) s" > "$S/cut"
echo "INFO power cut now"
echo b > /proc/sysrq-trigger
sleep 30
check guest reset-by-sysrq 1 "still running 30 s after sysrq b"
exit 1
