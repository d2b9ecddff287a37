#!/bin/sh
# Guest script (initiator VM): zoned namespaces (NVMe ZNS) over NVMe/TCP as Linux sees them. The host test
# (LinuxZonedNvmeIT) serves zoned RAM LUNs; for each entry of $LUNS ("name:lbs:zone_bytes:cap_bytes:max_open:
# max_active:append_bytes:size_bytes", space separated) this connects to $NQN_PREFIX<name> and checks what the
# kernel made of it: queue/zoned, chunk_sectors, nr_zones, max_open_zones, max_active_zones, zone_append_max_bytes,
# `blkzone report` against the config, `nvme zns id-ns`, Zone Append's returned LBA, fio --zonemode=zbd with
# verify, `blkzone reset`; then the file systems of $FSPLAN ("name=step,step ...", see fs_step below).
# Lines for the host: DISK <name> <dev> <logical> <physical> <size_bytes>, CHECK <name> <what> OK|FAIL [detail],
# FS <name> <step> OK|FAIL|STALL|REFUSED [detail].
# Env: TARGET_ADDR (run.sh), NQN_PREFIX, LUNS, FSPLAN.
set -u
exec 3>&1   # the host's stdout, also from inside redirected commands
echo "# kernel $(uname -r) zoned-nvme"
check() { # name what rc [detail]
  if [ "$3" = 0 ]; then echo "CHECK $1 $2 OK ${4:-}"; else echo "CHECK $1 $2 FAIL ${4:-}"; fi
}
eq() { # name what expected actual
  [ "$3" = "$4" ]; check "$1" "$2" $? "expected $3 got $4"
}
nvme_dev() { # nqn -> nvmeXnY
  for b in /sys/block/nvme*n*; do
    [ -e "$b" ] || continue
    case "$(basename "$b")" in nvme*c*n*) continue ;; esac
    nqn=$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn" 2>/dev/null)
    [ "$nqn" = "$1" ] && basename "$b" && return 0
  done
  return 1
}
wait_dev() { tries=300; while [ $tries -gt 0 ]; do nvme_dev "$1" && return 0; tries=$((tries - 1)); sleep 0.2; done; return 1; }
idns() { # dev field -> value (decimal) from `nvme zns id-ns`
  v=$(nvme zns id-ns "/dev/$1" 2>/dev/null | sed -n "s/^$2 *: *//p" | head -n1)
  [ -n "$v" ] && echo $((v))
}

for spec in $LUNS; do
  IFS=: read -r n lbs zone cap mor mar append size <<EOF2
$spec
EOF2
  nqn="$NQN_PREFIX$n"
  timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$nqn" --nr-io-queues=2 >/tmp/conn.out 2>&1
  check "$n" nvme-connect $? "$(tr '\n' ' ' </tmp/conn.out | cut -c1-200)"
  if ! wait_dev "$nqn" >/dev/null; then
    check "$n" namespace-appeared 1 "$(dmesg | grep -i nvme | tail -n 5 | tr '\n' ' ')"
    continue
  fi
  dev=$(nvme_dev "$nqn")
  case " ${FSONLY:-} " in *" $n "*) DEVS="${DEVS:-} $n:$dev"; continue ;; esac
  q=/sys/block/$dev/queue
  echo "DISK $n $dev $(cat $q/logical_block_size) $(cat $q/physical_block_size) $(( $(cat /sys/block/$dev/size) * 512 ))"
  zones=$((size / zone))
  eq "$n" zoned host-managed "$(cat $q/zoned)"
  eq "$n" chunk_sectors $((zone / 512)) "$(cat $q/chunk_sectors)"
  eq "$n" nr_zones $zones "$(cat $q/nr_zones)"
  eq "$n" max_open_zones "$mor" "$(cat $q/max_open_zones)"
  eq "$n" max_active_zones "$mar" "$(cat $q/max_active_zones)"
  eq "$n" zone_append_max_bytes "$append" "$(cat $q/zone_append_max_bytes)"
  ro=$(cat /sys/block/$dev/ro); eq "$n" writable 0 "$ro"
  # blkzone report: one line per zone; start, len, cap in 512-byte sectors as the config says; all empty
  blkzone report "/dev/$dev" >/tmp/rep.out 2>&1; check "$n" blkzone-report $? "$(head -c 200 /tmp/rep.out)"
  eq "$n" report-zones $zones "$(grep -c 'start:' /tmp/rep.out)"
  first=$(grep 'start:' /tmp/rep.out | head -n1)
  eq "$n" report-len $((zone / 512)) "$(( $(echo "$first" | sed -n 's/.*len \(0x[0-9a-f]*\).*/\1/p') ))"
  eq "$n" report-cap $((cap / 512)) "$(( $(echo "$first" | sed -n 's/.*cap \(0x[0-9a-f]*\).*/\1/p') ))"
  last=$(grep 'start:' /tmp/rep.out | tail -n1)
  eq "$n" report-last-start $(( (zones - 1) * zone / 512 )) "$(( $(echo "$last" | sed -n 's/.*start: \(0x[0-9a-f]*\).*/\1/p') ))"
  eq "$n" report-empty $zones "$(grep -c 'zcond: *1(' /tmp/rep.out)"
  # nvme zns id-ns: MAR / MOR 0's based (FFFFFFFFh = none), ZSZE in logical blocks
  exp_mor=$(( mor == 0 ? 4294967295 : mor - 1 )); exp_mar=$(( mar == 0 ? 4294967295 : mar - 1 ))
  eq "$n" id-ns-mor $exp_mor "$(idns "$dev" mor)"
  eq "$n" id-ns-mar $exp_mar "$(idns "$dev" mar)"
  eq "$n" id-ns-zoc 0 "$(idns "$dev" zoc)"
  zsze=$(nvme zns id-ns "/dev/$dev" 2>/dev/null | sed -n 's/.*zsze: *\(0x[0-9a-f]*\).*/\1/p' | head -n1)
  eq "$n" id-ns-zsze $((zone / lbs)) "$(( ${zsze:-0} ))"
  # Zone Append into zone 1: the LBAs it returns follow the write pointer
  z1=$((zone / lbs))
  dd if=/dev/urandom of=/tmp/app bs="$lbs" count=2 2>/dev/null
  a1=$(nvme zns zone-append "/dev/$dev" -s $z1 -z $((2 * lbs)) -d /tmp/app 2>&1)
  a2=$(nvme zns zone-append "/dev/$dev" -s $z1 -z $((2 * lbs)) -d /tmp/app 2>&1)
  # nvme-cli prints the LBA in hex without 0x
  l1=$(echo "$a1" | sed -n 's/.*LBA \([0-9a-f]*\).*/\1/p'); l2=$(echo "$a2" | sed -n 's/.*LBA \([0-9a-f]*\).*/\1/p')
  [ -n "$l1" ] && [ -n "$l2" ] && [ $((0x$l1)) = $z1 ] && [ $((0x$l2)) = $((z1 + 2)) ]
  check "$n" zone-append-lba $? "$(echo "$a1 / $a2" | tr '\n' ' ' | cut -c1-160)"
  dd if="/dev/$dev" of=/tmp/app.back bs="$lbs" skip=$((z1 + 2)) count=2 iflag=direct 2>/dev/null
  cmp -s /tmp/app /tmp/app.back; check "$n" zone-append-data $?
  # a write not at the write pointer fails (zone 2, one block in)
  dd if=/tmp/app of="/dev/$dev" bs="$lbs" seek=$((2 * z1 + 1)) count=1 oflag=direct 2>/dev/null
  [ $? != 0 ]; check "$n" unaligned-write-refused $?
  # fio zbd: sequential writes with verify over 3 zones
  fio --name=z --filename="/dev/$dev" --zonemode=zbd --direct=1 --ioengine=libaio --iodepth=1 --rw=write \
      --bs=$((lbs > 65536 ? lbs : 65536)) --offset=$((3 * zone)) --size=$((3 * zone)) --verify=crc32c \
      --do_verify=1 --verify_fatal=1 --output=/tmp/fio.out >/dev/null 2>&1
  rc=$?; grep -q 'verify:' /tmp/fio.out && rc=1
  check "$n" fio-zbd-verify $rc "$(grep -oE 'err= *[0-9]+' /tmp/fio.out | head -n1) $(grep -i -m1 'error\|fio:' /tmp/fio.out | cut -c1-120)"
  blkzone report -o $((3 * zone / 512)) -c 1 "/dev/$dev" >/tmp/z3.out 2>&1
  grep -q 'zcond: *14' /tmp/z3.out; check "$n" fio-zone-full $? "$(head -c 160 /tmp/z3.out)"
  # blkzone reset: every zone empty again, data gone
  blkzone reset "/dev/$dev" >/tmp/reset.out 2>&1; check "$n" blkzone-reset $? "$(head -c 160 /tmp/reset.out)"
  blkzone report "/dev/$dev" >/tmp/rep2.out 2>&1
  eq "$n" reset-all-empty $zones "$(grep -c 'zcond: *1(' /tmp/rep2.out)"
  dd if="/dev/$dev" of=/tmp/z.back bs="$lbs" skip=$z1 count=1 iflag=direct 2>/dev/null
  head -c "$lbs" /dev/zero | cmp -s - /tmp/z.back; check "$n" reset-reads-zeros $?
  DEVS="${DEVS:-} $n:$dev"
done
#@include zoned-fs-lib.sh
dev_of_name() { # LUN name -> nvmeXnY
  for nd in $DEVS; do [ "${nd%%:*}" = "$1" ] && { echo "${nd#*:}"; return 0; }; done
  return 1
}
fs_plan dev_of_name
if [ "${FS_STALLED:-0}" = 1 ]; then   # nvme disconnect would wait for the stalled file system (seen on 7.3.4)
  dmesg | grep -iE 'nvme|zone|btrfs|f2fs' | tail -n 20 | sed 's/^/# dmesg: /'
  # init's sync after this script would wait for it too (the VM then runs into run.sh's timeout): the exit code
  # is written before that sync, so power off a little later
  ( sleep 15; echo o > /proc/sysrq-trigger ) &
  exit 0
fi
# bounded: with a file system hung on the device, nvme disconnect waits for it forever (seen on 7.3.4)
for nd in $DEVS; do bounded 60 nvme disconnect -n "$NQN_PREFIX${nd%%:*}" >/dev/null 2>&1; done
dmesg | grep -iE 'nvme|zone|btrfs' | tail -n 20 | sed 's/^/# dmesg: /'
exit 0
