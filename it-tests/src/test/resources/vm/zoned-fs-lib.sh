# Shared by zoned-check.sh and zoned-nvme-check.sh (inlined at their "#@include zoned-fs-lib.sh" line): the
# file-system part of both, fs_plan DEV_OF_NAME. Not run on its own.
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
