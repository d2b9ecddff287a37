#!/bin/sh
# Guest script (initiator VM): log in to blocktarget over iSCSI (PROTO=iscsi) or connect over
# NVMe/TCP (PROTO=nvme), then check every disk and print machine-readable lines for the host test:
#   DISK <name> <dev> <logical> <physical> <size_bytes>
#   CHECK <name> <what> OK|FAIL [detail]
#   PERF <name> <workload> <iops> <kib_per_s>
# Env: TARGET_ADDR (set by run.sh); ISCSI_PORT (3260), NVME_PORT (4420), DISCOVERY_PORT (8009);
#   NAMES: space-separated LUN names (target IQN / NQN = PREFIX + name)
#   IO=1: fio verify + mkfs/mount/checksum per disk; DIGEST_NAME: log in to this one with CRC32C
#   header+data digests (iSCSI) / -g -G (NVMe); PERF_NAME: fio figures on this one;
#   RECONNECT=1 (NVMe): disconnect, reconnect, check data written before is still there.
# Never logs in anywhere but $TARGET_ADDR. Exit code 0 unless the script itself breaks.
set -u
PROTO="${PROTO:-iscsi}"
ISCSI_PORT="${ISCSI_PORT:-3260}"; NVME_PORT="${NVME_PORT:-4420}"; DISCOVERY_PORT="${DISCOVERY_PORT:-8009}"
IQN_PREFIX="${IQN_PREFIX:-iqn.2026-11.io.blocktarget:}"; NQN_PREFIX="${NQN_PREFIX:-nqn.2026-11.io.blocktarget:}"
PORTAL="$TARGET_ADDR:$ISCSI_PORT"
echo "# kernel $(uname -r) proto $PROTO names ${NAMES:-}"

#@include guest-lib.sh

# --- attach ----------------------------------------------------------------------
iscsi_login() { # name [digest]
  iqn="$IQN_PREFIX$1"
  iscsiadm -m node -T "$iqn" -p "$PORTAL" >/dev/null 2>&1 || iscsiadm -m node -o new -T "$iqn" -p "$PORTAL" >/dev/null
  if [ "${2:-}" = digest ]; then
    for k in HeaderDigest DataDigest; do
      iscsiadm -m node -T "$iqn" -p "$PORTAL" -o update -n "node.conn[0].iscsi.$k" -v CRC32C >/dev/null
    done
  fi
  timeout 120 iscsiadm -m node -T "$iqn" -p "$PORTAL" --login >/tmp/login.out 2>&1
  rc=$?; check "$1" "login${2:+-$2}" $rc "$(tr '\n' ' ' </tmp/login.out | cut -c1-200)"
  return $rc
}
iscsi_dev() { # name -> /dev/sdX
  for s in /sys/class/iscsi_session/session*; do
    [ "$(cat "$s/targetname" 2>/dev/null)" = "$IQN_PREFIX$1" ] || continue
    for b in "$s"/device/target*/*/block/*; do [ -e "$b" ] && echo "/dev/$(basename "$b")" && return; done
  done
}
nvme_connect() { # name [digest]
  nqn="$NQN_PREFIX$1"; extra=""
  [ "${2:-}" = digest ] && extra="-g -G"
  # shellcheck disable=SC2086
  timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s "$NVME_PORT" -n "$nqn" --nr-io-queues=2 $extra >/tmp/conn.out 2>&1
  rc=$?; check "$1" "connect${2:+-$2}" $rc "$(tr '\n' ' ' </tmp/conn.out | cut -c1-200)"
  return $rc
}
nvme_dev() { # name -> /dev/nvmeXnY
  for b in /sys/block/nvme*n*; do
    [ -e "$b" ] || continue
    case "$(basename "$b")" in nvme*c*n*) continue ;; esac
    nqn=$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn" 2>/dev/null)
    [ "$nqn" = "$NQN_PREFIX$1" ] && echo "/dev/$(basename "$b")" && return
  done
}
attach() { if [ "$PROTO" = iscsi ]; then iscsi_login "$@"; else nvme_connect "$@"; fi; }
device() { if [ "$PROTO" = iscsi ]; then iscsi_dev "$1"; else nvme_dev "$1"; fi; }
has_device() { [ -n "$(device "$1")" ]; }
# await_device NAME: its block device once the kernel has one, up to 60 s: login / connect return before the scan
# (iscsid's, sd's probe, the NVMe namespace scan) has added the disk, which under TCG can take seconds
await_device() { until_ok 60 has_device "$1"; device "$1"; }

if [ "$PROTO" = iscsi ]; then
  timeout 60 iscsiadm -m discovery -t sendtargets -p "$PORTAL" >/tmp/disc.out 2>&1
  check discovery sendtargets $? "$(wc -l </tmp/disc.out) records"
  sed 's/^/# discovered: /' /tmp/disc.out
else
  for port in "$DISCOVERY_PORT" "$NVME_PORT"; do
    timeout 60 nvme discover -t tcp -a "$TARGET_ADDR" -s "$port" >/tmp/disc.out 2>&1
    check discovery "nvme-discover-$port" $? "$(grep -c 'subnqn:' /tmp/disc.out) records"
  done
  grep -E 'subnqn:|traddr:|trsvcid:' /tmp/disc.out | sed 's/^/# discovered: /'
fi
for n in ${NAMES:-}; do attach "$n"; done

# --- per disk ----------------------------------------------------------------------
fs_check() { # name fs dev mkfs-args...
  name=$1; fs=$2; dev=$3; shift 3
  if ! "mkfs.$fs" "$@" "$dev" >/tmp/mkfs.out 2>&1; then check "$name" "mkfs.$fs" 1 "$(tail -n 2 /tmp/mkfs.out | tr '\n' ' ')"; return; fi
  mkdir -p /mnt/t
  if ! mount -t "$fs" "$dev" /mnt/t 2>/tmp/mount.out; then check "$name" "mount.$fs" 1 "$(cat /tmp/mount.out)"; return; fi
  head -c 8388608 /dev/urandom > /tmp/f
  want=$(md5sum </tmp/f | cut -d' ' -f1)
  cp /tmp/f /mnt/t/f && sync && umount /mnt/t && echo 3 > /proc/sys/vm/drop_caches &&
    mount -t "$fs" "$dev" /mnt/t && got=$(md5sum </mnt/t/f | cut -d' ' -f1)
  [ "${got:-}" = "$want" ]; check "$name" "$fs-checksum" $? "$want"
  umount /mnt/t 2>/dev/null
}
fio_verify() { # name dev bs
  size=8M
  fio --name=v --filename="$2" --rw=randwrite --bs="$3" --size=$size --direct=1 --ioengine=libaio \
      --iodepth=32 --verify=crc32c --do_verify=1 --verify_fatal=1 --output=/tmp/fio.out >/dev/null 2>&1
  rc=$?; grep -q 'verify:' /tmp/fio.out && rc=1
  check "$1" "fio-verify-bs$3" $rc "$(grep -oE 'err= *[0-9]+' /tmp/fio.out | head -n1)"
}
perf() { # name dev workload rw bs iodepth
  fio --name=p --filename="$2" --rw="$4" --bs="$5" --iodepth="$6" --ioengine=libaio --direct=1 \
      --time_based --runtime="${PERF_SECONDS:-10}" --size=256M --output-format=terse --terse-version=3 \
      --output=/tmp/perf.out >/dev/null 2>&1
  # terse v3: field 7 read KiB/s, 8 read IOPS; 48 write KiB/s, 49 write IOPS
  awk -F';' -v n="$1" -v w="$3" '{ if ($8 > 0) print "PERF", n, w, $8, $7; else print "PERF", n, w, $49, $48 }' /tmp/perf.out
}
field() { # file key -> value of "key : value" lines of nvme id-ctrl / id-ns
  sed -n "s/^$2[[:space:]]*:[[:space:]]*//p" "$1" | head -n 1
}
id_check() { # name dev lbs size: nvme id-ctrl / id-ns fields as Linux's own tool sees them
  nvme id-ctrl "$2" >/tmp/idc 2>&1; nvme id-ns "$2" >/tmp/idn 2>&1
  mdts=$(field /tmp/idc mdts); subnqn=$(field /tmp/idc subnqn); nn=$(field /tmp/idc nn)
  ioccsz=$(field /tmp/idc ioccsz); sgls=$(field /tmp/idc sgls); vwc=$(field /tmp/idc vwc); oncs=$(field /tmp/idc oncs)
  nsze=$(field /tmp/idn nsze); npwg=$(field /tmp/idn npwg); nawupf=$(field /tmp/idn nawupf)
  lbads=$(grep 'in use' /tmp/idn | sed -n 's/.*lbads:\([0-9]*\).*/\1/p')
  echo "# id-ctrl $1: mdts=$mdts nn=$nn ioccsz=$ioccsz sgls=$sgls vwc=$vwc oncs=$oncs subnqn=$subnqn"
  echo "# id-ns $1: nsze=$nsze lbads=$lbads npwg=$npwg nawupf=$nawupf"
  [ -n "$mdts" ] && [ "$mdts" != 0 ] && [ "$subnqn" = "$NQN_PREFIX$1" ] && [ "${ioccsz:-0}" -ge 4 ] 2>/dev/null
  check "$1" id-ctrl $? "mdts=$mdts ioccsz=$ioccsz subnqn=$subnqn"
  [ -n "$lbads" ] && [ $((1 << lbads)) = "$3" ] && [ $(( $(printf '%d' "$nsze") << lbads )) = "$4" ] 2>/dev/null
  check "$1" id-ns $? "nsze=$nsze lbads=$lbads npwg=$npwg nawupf=$nawupf"
}
for n in ${NAMES:-}; do
  dev=$(await_device "$n")
  [ -n "$dev" ] || { check "$n" device 1 "no block device"; continue; }
  d=${dev#/dev/}
  lbs=$(cat "/sys/block/$d/queue/logical_block_size"); pbs=$(cat "/sys/block/$d/queue/physical_block_size")
  size=$(blockdev --getsize64 "$dev" 2>/dev/null || echo 0)
  echo "DISK $n $d $lbs $pbs $size"
  # nvme-cli id-ctrl / id-ns (skipped for 0-byte disks: a kernel that refuses the LBA format, e.g. 6.1 > 4 KiB)
  if [ "$PROTO" = nvme ] && [ "$size" -gt 0 ]; then id_check "$n" "$dev" "$lbs" "$size"; fi
  [ "${IO:-0}" = 1 ] && [ "$size" -gt 0 ] || continue
  fio_verify "$n" "$dev" "$lbs"
  fio_verify "$n" "$dev" 131072
  fsb=$lbs; [ "$fsb" -lt 4096 ] && fsb=4096
  if [ "$lbs" -le 32768 ]; then
    fs_check "$n" xfs "$dev" -q -f -K -b size="$fsb" -s size="$lbs"
  else   # XFS sectors stop at 32 KiB: ext4 with 64 KiB blocks instead
    fs_check "$n" ext4 "$dev" -q -F -E nodiscard -b "$lbs"
  fi
done
if [ "$PROTO" = nvme ] && [ "${RECONNECT:-0}" = 1 ]; then
  for n in ${NAMES:-}; do
    dev=$(device "$n"); [ -n "$dev" ] || continue
    head -c 1048576 /dev/urandom > /tmp/r; want=$(md5sum </tmp/r | cut -d' ' -f1)
    dd if=/tmp/r of="$dev" bs=1048576 count=1 oflag=direct 2>/dev/null
    nvme disconnect -n "$NQN_PREFIX$n" >/dev/null 2>&1; sleep 1
    nvme_connect "$n" >/dev/null
    dev=$(await_device "$n"); got=$(dd if="$dev" bs=1048576 count=1 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)
    [ -n "$dev" ] && [ "$got" = "$want" ]; check "$n" reconnect-data $? "$want"
  done
fi
if [ -n "${PERF_NAME:-}" ]; then
  dev=$(device "$PERF_NAME")
  if [ -n "$dev" ]; then
    perf "$PERF_NAME" "$dev" randread-4k-qd32 randread 4096 32
    perf "$PERF_NAME" "$dev" read-128k-qd8 read 131072 8
  fi
fi
if [ -n "${DIGEST_NAME:-}" ]; then
  if [ "$PROTO" = iscsi ]; then
    iscsiadm -m node -T "$IQN_PREFIX$DIGEST_NAME" -p "$PORTAL" --logout >/dev/null 2>&1
  else
    nvme disconnect -n "$NQN_PREFIX$DIGEST_NAME" >/dev/null 2>&1
  fi
  sleep 1
  if attach "$DIGEST_NAME" digest; then
    dev=$(await_device "$DIGEST_NAME")
    if [ -n "$dev" ]; then
      fio_verify "$DIGEST_NAME-digest" "$dev" "$(cat "/sys/block/${dev#/dev/}/queue/logical_block_size")"
    else
      check "$DIGEST_NAME-digest" device 1 "no block device"
    fi
  fi
fi
dmesg | grep -E "BUG:|Oops|Call Trace|I/O error|[Uu]nsupported sector size|XFS .*(error|corrupt)|EXT4-fs error|nvme.*(error|fail)|iscsi.*(error|fail)|detected conn error" \
  | tail -n 15 | sed 's/^/# dmesg: /'

# --- detach ------------------------------------------------------------------------
if [ "$PROTO" = iscsi ]; then
  iscsiadm -m node --logout >/tmp/logout.out 2>&1; check all logout $? ""
else
  nvme disconnect-all >/dev/null 2>&1; check all disconnect $? ""
fi
exit 0
