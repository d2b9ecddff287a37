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
# --- file systems last ($FSPLAN "name=step,step ..."), every step bounded: a stall is reported with the blocked
# tasks' stacks and ends the file-system part (the device stays busy), never the run ---------------------------
# FS <name> <step> OK|FAIL|STALL|REFUSED <detail>: one line per step for the host. Steps:
#   btrfs         mkfs.btrfs -O zoned (defaults: DUP metadata), mount, 8 MiB round trip
#   btrfs-single  the same with -m single -d single
#   btrfs-stall   defaults on a LUN btrfs gives 8 active zones: expected to stall in writeback (bounded 150 s)
#   f2fs          mkfs.f2fs -m (+ -c ZONED with a null_blk RAM disk for metadata when the LUN has no conventional zone)
fs() { echo "FS $1 $2 $3 ${4:-}"; }
bounded() { # SECONDS CMD...: rc of CMD, or 124 (after dumping the blocked tasks) when it still runs
  secs=$1; shift
  "$@" & pid=$!
  while [ "$secs" -gt 0 ] && kill -0 "$pid" 2>/dev/null; do sleep 1; secs=$((secs - 1)); done
  if kill -0 "$pid" 2>/dev/null; then
    echo w > /proc/sysrq-trigger 2>/dev/null   # blocked (D state) tasks' stacks into the kernel log
    sleep 2
    for p in /proc/[0-9]*; do
      [ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "$p/status" 2>/dev/null)" = D ] || continue
      echo "# D-state $(cat "$p/comm" 2>/dev/null) (pid ${p#/proc/}):" >&3
      sed 's/^/#     /' "$p/stack" 2>/dev/null | head -n 14 >&3
    done
    dmesg | grep -v 'hung_task_timeout_secs\|Not tainted' | tail -n 40 | sed 's/^/# hung: /' >&3
    return 124
  fi
  wait "$pid"
}
roundtrip() { # fstype dev [mount dev]: 8 MiB file: cp, sync, umount, drop caches, mount, md5sum
  dd if=/dev/urandom of=/tmp/f bs=1M count=8 2>/dev/null
  echo "# $1: cp" >&3; cp /tmp/f /mnt/t/f || return 1
  echo "# $1: sync" >&3; sync || return 1
  echo "# $1: umount" >&3; umount /mnt/t || return 1
  echo 3 > /proc/sys/vm/drop_caches
  echo "# $1: mount again" >&3; mount -t "$1" "/dev/$2" /mnt/t || return 1
  [ "$(md5sum </mnt/t/f | cut -d' ' -f1)" = "$(md5sum </tmp/f | cut -d' ' -f1)" ]
}
zone_conds() { # dev: how many zones are in each condition, one line
  timeout 20 blkzone report "/dev/$1" 2>/dev/null | grep -o 'zcond: *[0-9]*([a-z]*)' | sed 's/zcond: *//' | sort \
    | uniq -c | tr -s ' \n' ' '
}
zoned_stats() { # what btrfs says about its zones (7.x: active block groups in mountstats) and the limits it saw
  dmesg | grep -iE 'btrfs.*(zone|zoned)|f2fs.*(zone|zoned)' | tail -n 4 | sed 's/^/# dmesg: /' >&3
  sed -n '/mounted on \/mnt\/t/,/^device/p' /proc/self/mountstats 2>/dev/null | grep -v '^device' | head -n 20 \
    | sed 's/^/# mountstats: /' >&3
}
fs_step() { # name dev step
  name=$1; dev=$2; step=$3
  lbs=$(cat /sys/block/$dev/queue/logical_block_size)
  limits="max_open_zones $(cat /sys/block/$dev/queue/max_open_zones) max_active_zones $(cat /sys/block/$dev/queue/max_active_zones)"
  # 7.3 sd BUG in WRITE SAME(16) setup above 4 KiB blocks (initiator-vm README): mkfs may zero with it
  for k in /sys/block/$dev/device/scsi_disk/*/max_write_same_blocks; do [ -e "$k" ] && [ "$lbs" -gt 4096 ] && echo 0 > "$k"; done
  case $step in
    btrfs|btrfs-single|btrfs-stall)
      /usr/bin/kmod modprobe btrfs 2>/dev/null
      opts=""; [ "$step" = btrfs-single ] && opts="-m single -d single"
      [ "$lbs" -gt 4096 ] && opts="$opts -s $lbs"
      bounded 300 mkfs.btrfs -f -O zoned $opts "/dev/$dev" >/tmp/mkfs.out 2>&1; rc=$?
      if [ $rc != 0 ]; then
        fs "$name" "$step" "$([ $rc = 124 ] && echo STALL || echo REFUSED)" "mkfs.btrfs $opts: $(grep -iE -m2 'error|invalid|unsupported|not' /tmp/mkfs.out | tr '\n' ' ' | cut -c1-200)"
        [ $rc = 124 ] && return 124; return 0
      fi
      grep -iE 'metadata|data|system' /tmp/mkfs.out | grep -iE 'single|dup' | head -n 3 | sed 's/^/# mkfs.btrfs: /' >&3
      mkdir -p /mnt/t
      bounded 120 mount -t btrfs "/dev/$dev" /mnt/t 2>/tmp/mount.out; rc=$?
      if [ $rc != 0 ]; then
        fs "$name" "$step" "$([ $rc = 124 ] && echo STALL || echo REFUSED)" "mount: $(tr '\n' ' ' </tmp/mount.out | cut -c1-120) $(dmesg | grep -i btrfs | tail -n 2 | tr '\n' ' ' | cut -c1-240)"
        [ $rc = 124 ] && return 124; return 0
      fi
      zoned_stats
      limit_s=400; [ "$step" = btrfs-stall ] && limit_s=150
      bounded $limit_s roundtrip btrfs "$dev"; rc=$?
      case $rc in
        0) fs "$name" "$step" OK "$limits; cp, sync, umount, drop caches, mount, md5sum; zones: $(zone_conds "$dev")" ;;
        124) zoned_stats
          # the zones as the target reports them: what btrfs holds open / closed (active) when it stalls
          timeout 20 blkzone report "/dev/$dev" 2>/dev/null | grep -v 'zcond: 1(em)\|zcond: 0(nw)' | head -n 16 \
            | sed 's/^/# zones: /' >&3
          fs "$name" "$step" STALL "$limits; no completion in $limit_s s" ;;
        *) fs "$name" "$step" FAIL "$limits; $(dmesg | grep -i btrfs | tail -n 2 | tr '\n' ' ' | cut -c1-240)" ;;
      esac
      [ $rc = 124 ] && return 124
      umount /mnt/t 2>/dev/null; return 0 ;;
    f2fs)
      /usr/bin/kmod modprobe f2fs 2>/dev/null
      main=$dev; extra=""
      if ! blkzone report -c 8 "/dev/$dev" 2>/dev/null | grep -q CONVENTIONAL; then
        # no conventional zone (ZNS): f2fs keeps its metadata on a regular device, the zoned one joins with -c.
        # A memory-backed null_blk disk (7.3 without udev: brd's /dev/ram0 never appeared and losetup failed with
        # "No such file or directory"; this variant has not run yet)
        if [ -z "${META_LOOP:-}" ]; then
          [ -e /dev/nullb0 ] || /usr/bin/kmod modprobe null_blk nr_devices=1 gb=1 bs=4096 memory_backed=1 \
            2>/tmp/nullb.out
          n2=50; while [ ! -e /dev/nullb0 ] && [ $n2 -gt 0 ]; do sleep 0.1; n2=$((n2 - 1)); done
          [ -e /dev/nullb0 ] || { fs "$name" f2fs FAIL "no null_blk disk: $(head -c 120 /tmp/nullb.out)"; return 0; }
          META_LOOP=/dev/nullb0
        fi
        main=${META_LOOP#/dev/}; extra="-c /dev/$dev"
      fi
      bounded 300 mkfs.f2fs -f -m $extra "/dev/$main" >/tmp/mkfs.out 2>&1; rc=$?
      if [ $rc != 0 ]; then
        fs "$name" f2fs "$([ $rc = 124 ] && echo STALL || echo REFUSED)" "mkfs.f2fs -m $extra /dev/$main: $(grep -iE -m2 'error|invalid|not|wrong|fail' /tmp/mkfs.out | tr '\n' ' ' | cut -c1-200)"
        [ $rc = 124 ] && return 124; return 0
      fi
      mkdir -p /mnt/t
      bounded 120 mount -t f2fs "/dev/$main" /mnt/t 2>/tmp/mount.out; rc=$?
      if [ $rc != 0 ]; then
        fs "$name" f2fs "$([ $rc = 124 ] && echo STALL || echo REFUSED)" "mount: $(tr '\n' ' ' </tmp/mount.out | cut -c1-120) $(dmesg | grep -i f2fs | tail -n 2 | tr '\n' ' ' | cut -c1-240)"
        [ $rc = 124 ] && return 124; return 0
      fi
      zoned_stats
      bounded 400 roundtrip f2fs "$main"; rc=$?
      case $rc in
        0) fs "$name" f2fs OK "$limits${extra:+; metadata on a memory-backed null_blk disk, $extra}; cp, sync, umount, drop caches, mount, md5sum" ;;
        124) fs "$name" f2fs STALL "$limits; no completion in 400 s" ;;
        *) fs "$name" f2fs FAIL "$limits; $(dmesg | grep -i f2fs | tail -n 2 | tr '\n' ' ' | cut -c1-240)" ;;
      esac
      [ $rc = 124 ] && return 124
      umount /mnt/t 2>/dev/null; return 0 ;;
  esac
}
fs_plan() { # dev_of_name function name; runs $FSPLAN; sets FS_STALLED=1 after a stall
  for entry in ${FSPLAN:-}; do
    n=${entry%%=*}; steps=${entry#*=}
    d=$($1 "$n") || { fs "$n" - FAIL "no device"; continue; }
    for s in $(echo "$steps" | tr ',' ' '); do
      fs_step "$n" "$d" "$s"
      if [ $? = 124 ]; then FS_STALLED=1; return; fi
    done
  done
}
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
