#!/bin/sh
# Guest script (initiator VM): fault rules as Linux sees them (issue 11). The host test (LinuxFaultsIT) serves one
# 16 KiB LUN "flt" on iSCSI target $IQN LUN 0 and NVMe subsystem $NQN NSID 1, with these rules in its LUN file:
#   once-iscsi  read LBA 2000-2009, once-per-lba, medium-error   (recoverable: fails once, then heals)
#   once-nvme   read LBA 2100-2109, once-per-lba, medium-error
#   hang-iscsi  read LBA 3000, first 1, no-response              (the SCSI error handler aborts, sd retries)
#   hang-nvme   read LBA 3100, first 1, no-response              (nvme-tcp's timeout resets the controller)
#   flip        LBA 500-599, corrupt-read                        (fio's crc32c verify must catch it)
# and adds / removes one from its CLI whenever this script prints a STEP line:
#   STEP connected -> host runs: blocktarget fault add flt --id bad --ops read --lba 1000-1099 --action medium-error
#   STEP bad-seen  -> host runs: blocktarget fault rm flt bad
# Sector numbers in the kernel log are 512-byte units: LBA 1000 of a 16 KiB LUN is sector 32000.
# Lines for the host: DISK ..., CHECK <name> <what> OK|FAIL [detail], STEP <what>.
# Env: TARGET_ADDR (run.sh), IQN, NQN, WAIT (seconds per step, default 120).
set -u
WAIT="${WAIT:-120}"
BS=16384
echo "# kernel $(uname -r) faults iqn $IQN nqn $NQN"

check() { # name what rc [detail]
  if [ "$3" = 0 ]; then echo "CHECK $1 $2 OK ${4:-}"; else echo "CHECK $1 $2 FAIL ${4:-}"; fi
}
until_ok() { # SECONDS CMD...
  n=$(( $1 * 5 )); shift
  while [ "$n" -gt 0 ]; do
    "$@" >/dev/null 2>&1 && return 0
    n=$((n - 1)); sleep 0.2
  done
  return 1
}
nvme_dev() {
  for b in /sys/block/nvme*n*; do
    [ -e "$b" ] || continue
    case "$(basename "$b")" in nvme*c*n*) continue ;; esac
    nqn=$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn" 2>/dev/null)
    [ "$nqn" = "$NQN" ] && basename "$b" && return 0
  done
  return 1
}
sd_dev() {
  for s in /sys/class/iscsi_session/session*; do
    [ "$(cat "$s/targetname" 2>/dev/null)" = "$IQN" ] || continue
    for b in "$s"/device/target*/*:0/block/*; do [ -e "$b" ] && basename "$b" && return 0; done
  done
  return 1
}
disk() { echo "DISK $1 $2 $(cat /sys/block/$2/queue/logical_block_size) $(cat /sys/block/$2/queue/physical_block_size) $(( $(cat /sys/block/$2/size) * 512 ))"; }
rd() { dd if="/dev/$1" of=/dev/null bs=$BS skip="$2" count="${3:-1}" iflag=direct 2>/dev/null; } # dev lba [blocks]
fails() { ! rd "$@"; }
logged() { dmesg | grep -q "$1"; } # the kernel logged this

# --- short timeouts so that recovery runs within the test: 5 s per command on both protocols ---------------------
echo 5 > /sys/module/nvme_core/parameters/io_timeout 2>/dev/null
check flt nvme-io-timeout-5s $? "$(cat /sys/module/nvme_core/parameters/io_timeout 2>/dev/null)"
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN" --nr-io-queues=1 --reconnect-delay=1 \
  >/tmp/c.out 2>&1
check flt nvme-connect $? "$(tr '\n' ' ' </tmp/c.out | cut -c1-200)"
timeout 120 iscsiadm -m discovery -t sendtargets -p "$TARGET_ADDR:3260" >/tmp/d.out 2>&1
check flt sendtargets $? "$(tr '\n' ' ' </tmp/d.out | cut -c1-200)"
timeout 120 iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --login >/tmp/l.out 2>&1
check flt iscsi-login $? "$(tr '\n' ' ' </tmp/l.out | cut -c1-200)"
until_ok 60 nvme_dev; check flt nvme-ns $?
until_ok 60 sd_dev; check flt sd-lun $?
N=$(nvme_dev) && disk flt-nvme "$N"
S=$(sd_dev) && disk flt-iscsi "$S"
N="${N:-none}"; S="${S:-none}"
echo 5 > "/sys/block/$S/device/timeout" 2>/dev/null; check flt sd-timeout-5s $?
echo "STEP connected"

# --- bad: LBA 1000-1099 unreadable, exactly there, on both protocols; the kernel logs sector 32000 --------------
until_ok "$WAIT" fails "$S" 1000; check bad sd-fails-at-1000 $?
rd "$S" 999; check bad sd-reads-999 $?
fails "$S" 1099; check bad sd-fails-at-1099 $?
rd "$S" 1100; check bad sd-reads-1100 $?
fails "$S" 990 20; check bad sd-fails-across $?
until_ok 10 logged "sector 32000"; check bad sd-kernel-logs-sector-32000 $? "$(dmesg | grep -m1 'sector 32000')"
fails "$N" 1000; check bad nvme-fails-at-1000 $?
rd "$N" 999; check bad nvme-reads-999 $?
fails "$N" 1099; check bad nvme-fails-at-1099 $?
rd "$N" 1100; check bad nvme-reads-1100 $?
# the error is logged on the path device (nvme0c0n1 under native multipath), and printk is rate limited (the sd errors
# just before may have used the budget): read again until a line appears
nvme_logged() { dmesg | grep -E 'nvme[0-9]+(c[0-9]+)?n[0-9]+' | grep -qE 'sector 32000|LBA (1000|32000)([^0-9]|$)'; }
nvme_fail_logged() { fails "$N" 1000; sleep 1; nvme_logged; }
until_ok 8 nvme_fail_logged; check bad nvme-kernel-logs-sector-32000 $? \
  "$(dmesg | grep -E 'nvme[0-9]+(c[0-9]+)?n[0-9]+' | grep -m1 -E 'sector 32000|LBA (1000|32000)')"
dmesg | grep -E 'nvme' | grep -iE 'error|LBA' | tail -n 3 | sed 's/^/# dmesg: /'
echo "STEP bad-seen"
until_ok "$WAIT" rd "$S" 1000; check bad sd-reads-after-rm $?
rd "$N" 1050; check bad nvme-reads-after-rm $?

# --- recoverable once: the first read fails (iSCSI: sd does not retry a medium error), the next one succeeds ------
fails "$S" 2000; check once sd-first-read-fails $?
rd "$S" 2000; check once sd-second-read-heals $?
# NVMe: Unrecovered Read Error without DNR is retried by the host itself, so the read succeeds at once
rd "$N" 2100; check once nvme-read-recovered $?

# --- no response: Linux recovers and I/O resumes ------------------------------------------------------------------
t0=$(date +%s); rd "$S" 3000; rc=$?; t1=$(date +%s)
check hang sd-read-after-abort $rc "$((t1 - t0)) s"
[ $((t1 - t0)) -ge 5 ]; check hang sd-waited-for-the-timeout $? "$((t1 - t0)) s"
rd "$S" 3001; check hang sd-io-resumes $?
t0=$(date +%s); rd "$N" 3100; rc=$?; t1=$(date +%s)
check hang nvme-read-after-recovery $rc "$((t1 - t0)) s"
[ $((t1 - t0)) -ge 5 ]; check hang nvme-waited-for-the-timeout $? "$((t1 - t0)) s"
until_ok 60 rd "$N" 3101; check hang nvme-io-resumes $?
dmesg | grep -iE "nvme.*(timeout|reset|reconnect)" | tail -n 4 | sed 's/^/# dmesg: /'

# --- corrupted read data: fio's crc32c verify catches it in the range, and only there -----------------------------
fio_verify() { # dev first-lba blocks
  fio --name=v --filename="/dev/$1" --rw=write --bs=$BS --offset=$(( $2 * BS )) --size=$(( $3 * BS )) --direct=1 \
      --ioengine=libaio --iodepth=4 --verify=crc32c --do_verify=1 --output=/tmp/fio.out >/dev/null 2>&1
  rc=$?; grep -qE 'verify failed|verify: ' /tmp/fio.out && rc=1
  return $rc
}
fio_verify "$S" 500 100; rc=$?; check flip sd-fio-verify-fails $(( rc == 0 )) "$(grep -m1 -iE 'crc32c|verify' /tmp/fio.out)"
fio_verify "$N" 500 100; rc=$?; check flip nvme-fio-verify-fails $(( rc == 0 )) "$(grep -m1 -iE 'crc32c|verify' /tmp/fio.out)"
fio_verify "$S" 600 100; check flip sd-fio-verify-ok-outside $?
fio_verify "$N" 700 100; check flip nvme-fio-verify-ok-outside $?
echo "STEP done"

dmesg | grep -E "BUG:|Oops|Call Trace" | tail -n 5 | sed 's/^/# dmesg: /'
nvme disconnect -n "$NQN" >/dev/null 2>&1; check flt nvme-disconnect $?
iscsiadm -m node -T "$IQN" -p "$TARGET_ADDR:3260" --logout >/dev/null 2>&1; check flt iscsi-logout $?
exit 0
