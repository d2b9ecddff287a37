#!/bin/sh
# Guest script (initiator VM): zoned LUNs over iSCSI as Linux sees them (LinuxZonedIscsiIT). The host serves one
# host-managed zoned RAM LUN per target of $IQNS ("iqn=name" pairs); for each it logs in and reports:
#   DISK <name> <dev> <logical> <physical> <size_bytes>
#   ZONED <name> <queue/zoned> <chunk_sectors> <nr_zones> <max_open_zones> <max_active_zones>
#   ZONES <name> <zones in blkzone report> <conventional> <seq len sectors> <seq cap sectors> <empty seq zones>
#   CHECK <name> <what> OK|FAIL [detail]
#   FS <name> <step> OK|FAIL|STALL|REFUSED [detail]
# Checks: a write at the write pointer moves it, one elsewhere is refused, blkzone reset (one zone and all) empties,
# fio --zonemode=zbd --verify=crc32c; then the file systems of $FSPLAN (see fs_step below).
# Env: TARGET_ADDR (run.sh), IQNS, FSONLY (names without block checks), FSPLAN ("name=step,step ...").
set -u
exec 3>&1   # the host's stdout, also from inside redirected commands
echo "# kernel $(uname -r) zoned-iscsi $IQNS"
PORTAL="$TARGET_ADDR:3260"
check() { if [ "$3" = 0 ]; then echo "CHECK $1 $2 OK ${4:-}"; else echo "CHECK $1 $2 FAIL ${4:-}"; fi; }
sd_of() { # iqn -> sdX of LUN 0
  for s in /sys/class/iscsi_session/session*; do
    [ "$(cat "$s/targetname" 2>/dev/null)" = "$1" ] || continue
    for b in "$s"/device/target*/*:0/block/*; do [ -e "$b" ] && basename "$b" && return 0; done
  done
  return 1
}
wp_of() { # dev start-sector -> the write pointer's offset in the zone, in sectors (blkzone prints it relative)
  printf '%d' "$(blkzone report -o "$2" -c 1 "/dev/$1" | sed -n 's/.*wptr \(0x[0-9a-f]*\).*/\1/p')"
}

timeout 60 iscsiadm -m discovery -t sendtargets -p "$PORTAL" >/tmp/disc.out 2>&1
check discovery sendtargets $? "$(wc -l </tmp/disc.out) records"
for pair in $IQNS; do
  iqn=${pair%%=*}; name=${pair#*=}
  timeout 60 iscsiadm -m node -T "$iqn" -p "$PORTAL" --login >/tmp/l.out 2>&1
  check "$name" iscsi-login $? "$(tr '\n' ' ' </tmp/l.out | cut -c1-160)"
done
sleep 3
for pair in $IQNS; do
  iqn=${pair%%=*}; name=${pair#*=}
  case " ${FSONLY:-} " in *" $name "*) continue ;; esac
  d=""; n=50
  while [ -z "$d" ] && [ $n -gt 0 ]; do d=$(sd_of "$iqn"); [ -n "$d" ] || { sleep 0.2; n=$((n - 1)); }; done
  [ -n "$d" ] || { check "$name" device 1 "no sd device"; dmesg | tail -n 20 | sed 's/^/# dmesg: /'; continue; }
  q=/sys/block/$d/queue
  lbs=$(cat $q/logical_block_size)
  echo "DISK $name $d $lbs $(cat $q/physical_block_size) $(( $(cat /sys/block/$d/size) * 512 ))"
  echo "ZONED $name $(cat $q/zoned) $(cat $q/chunk_sectors) $(cat /sys/block/$d/queue/nr_zones 2>/dev/null || echo -) $(cat $q/max_open_zones 2>/dev/null || echo -) $(cat $q/max_active_zones 2>/dev/null || echo -)"
  dmesg | grep -E "\[$d\].*(zone|Zone|ZBC)" | tail -n 4 | sed 's/^/# dmesg: /'
  blkzone report /dev/$d >/tmp/z.out 2>&1; check "$name" blkzone-report $? "$(head -c 160 /tmp/z.out | tr '\n' ' ')"
  head -n 3 /tmp/z.out | sed 's/^/# blkzone: /'
  total=$(grep -c 'start:' /tmp/z.out)
  conv=$(grep -c 'CONVENTIONAL' /tmp/z.out)
  seqline=$(grep -m1 'SEQ_WRITE_REQUIRED' /tmp/z.out)
  seqstart=$(echo "$seqline" | sed -n 's/.*start: \(0x[0-9a-f]*\).*/\1/p')
  seqlen=$(printf '%d' "$(echo "$seqline" | sed -n 's/.*len \(0x[0-9a-f]*\).*/\1/p')")
  seqcap=$(printf '%d' "$(echo "$seqline" | sed -n 's/.*cap \(0x[0-9a-f]*\).*/\1/p')")
  empty=$(grep -c 'zcond: 1(em)' /tmp/z.out)
  echo "ZONES $name $total $conv $seqlen $seqcap $empty"
  start=$(printf '%d' "$seqstart")
  # a write at the write pointer (the zone's start) moves it; the same LBA again is no longer at the pointer
  dd if=/dev/urandom of=/tmp/w bs=1M count=1 2>/dev/null
  dd if=/tmp/w of=/dev/$d bs=1M count=1 seek=$((start / 2048)) oflag=direct 2>/tmp/dd.out
  check "$name" write-at-wp $? "$(tail -n 1 /tmp/dd.out)"
  wp=$(wp_of "$d" "$start"); [ "$wp" = 2048 ]; check "$name" wp-moved $? "wptr +$wp"
  dd if=/tmp/w of=/dev/$d bs=1M count=1 seek=$((start / 2048)) oflag=direct 2>/tmp/dd.out
  [ $? != 0 ]; check "$name" unaligned-write-refused $? "$(tail -n 1 /tmp/dd.out)"
  dmesg | grep -E "\[$d\].*(Sense|ASC|Unaligned|unaligned)" | tail -n 2 | sed 's/^/# dmesg: /'
  dd if=/dev/$d of=/tmp/r bs=1M count=1 skip=$((start / 2048)) iflag=direct 2>/dev/null && cmp -s /tmp/w /tmp/r
  check "$name" read-back $?
  blkzone reset -o "$start" -c 1 /dev/$d; rc=$?
  wp=$(wp_of "$d" "$start"); [ $rc = 0 ] && [ "$wp" = 0 ]; check "$name" blkzone-reset-one $? "wptr +$wp"
  head -c 1048576 /dev/zero >/tmp/zero
  dd if=/dev/$d of=/tmp/r bs=1M count=1 skip=$((start / 2048)) iflag=direct 2>/dev/null && cmp -s /tmp/r /tmp/zero
  check "$name" reset-reads-zeros $?
  # fio in zbd mode over the sequential zones, verified
  fio --name=zbd --filename=/dev/$d --direct=1 --ioengine=psync --zonemode=zbd --rw=write --bs=$((lbs > 65536 ? lbs : 65536)) \
      --offset="$((start * 512))" --size=96M --verify=crc32c --do_verify=1 --verify_fatal=1 --output=/tmp/fio.out >/dev/null 2>&1
  rc=$?; grep -q 'verify:' /tmp/fio.out && rc=1
  check "$name" fio-zbd-verify $rc "$(grep -oE 'err= *[0-9]+' /tmp/fio.out | head -n1) $(grep -oE 'WRITE: bw=[^,]*' /tmp/fio.out | head -n1)"
  [ $rc = 0 ] || tail -n 15 /tmp/fio.out | sed 's/^/# fio: /'
  blkzone reset /dev/$d; rc=$?
  blkzone report /dev/$d >/tmp/z.out 2>&1
  [ $rc = 0 ] && [ "$(grep -c 'zcond: 1(em)' /tmp/z.out)" = $((total - conv)) ]; check "$name" blkzone-reset-all $?
done
#@include zoned-fs-lib.sh
sd_of_name() { # LUN name -> sdX
  for pair in $IQNS; do [ "${pair#*=}" = "$1" ] && { sd_of "${pair%%=*}"; return; }; done
  return 1
}
fs_plan sd_of_name
if [ "${FS_STALLED:-0}" = 1 ]; then   # a logout would wait for the stalled file system, and so would init's sync
  ( sleep 15; echo o > /proc/sysrq-trigger ) &   # after init wrote the exit code (before its sync)
  exit 0
fi
for pair in $IQNS; do
  iqn=${pair%%=*}
  iscsiadm -m node -T "$iqn" -p "$PORTAL" --logout >/dev/null 2>&1
done
exit 0
