#!/bin/sh
# Guest script (initiator VM, latest): the upstream harnesses blktests and fstests against blocktarget, for
# LinuxBlktestsIT and LinuxFstestsIT (docs/blktests-fstests.md). The host serves examples/harnesses in the test
# namespace and shares (run.sh --share) what the guest needs at /share:
#   /share/harnesses/           the server's config directory (with control.token): the blktests configs and
#                               fstests' local.config of examples/harnesses, and where the hook writes DH-HMAC-CHAP keys
#   /share/blocktarget/contrib/ the repository's blktests hook
#   /share/blktests, /share/xfstests   the harnesses as scripts/build-harnesses built them on the host
# Env (every phase is optional; they run in this order):
#   BLKTESTS_NVME      blktests tests/groups run with harnesses/blktests/nvme.config (the hook), e.g. "nvme"
#   BLKTESTS_NVME_LBS  block sizes of the hook's LUNs, one ./check each (default "512 16384")
#   BLKTESTS_NVME_DEV  the device tests to run after each, with harnesses/blktests/nvme-devices.config (-d)
#   BLKTESTS_SCSI      blktests tests/groups run with harnesses/blktests/scsi.config on an iSCSI disk
#   BLKTESTS_SCSI_DEVS which disk: luns.d/blktests-dev-512 and/or -16k (default "512 16k")
#   FSTESTS_SECTIONS   fstests configurations of harnesses/fstests/local.config (BLOCKTARGET_FSTESTS), one
#                      ./check each: e.g. "xfs_16k_nvme xfs_4k_iscsi"
#   FSTESTS_ARGS       ./check arguments for xfs_4k_* / xfs_16k_* (e.g. "-g quick"); FSTESTS_ATOMIC_ARGS for
#                      xfs_atomic_* (default "-g atomicwrites")
#   NVME_IMG_SIZE      blktests' image size, so the size of the hook's LUNs (default here 512M at 512 B blocks: nvme/012
#                      needs 350M, and under TCG blktests' 1G makes nvme/010's fio verify take about 10 minutes; 1G at
#                      larger blocks, where nvme/012's mkfs.xfs -l size=128m needs it: "internal log size 8192 too
#                      large, must be less than 8177" at 512M and 16 KiB blocks)
#   BLKTESTS_EXPUNGE, FSTESTS_EXPUNGE  expunge files ("group/NNN  # reason" lines; default the ones in
#                      harnesses/{blktests,fstests}/expunge; blktests' nvme runs add expunge-LBS where it exists)
#   BLKTESTS_TIMEOUT   blktests' TIMEOUT: the seconds of I/O a TIMED test (fio runs of block/005, block/007, ...)
#                      may take (unset: the tests' own sizes, under emulation up to 10 minutes each)
#   HARNESS_PS=SECONDS  print the guest's processes every SECONDS (to see where a run hangs)
# Results: /share/results/PHASE/ (blktests' -o directory; fstests' RESULT_BASE: check.log, result.xml,
# per-test files) and /share/results/dmesg.txt. Lines for the host: "PHASE NAME START", "PHASE NAME rc=N seconds=S".
set -u
echo "# kernel $(uname -r) harnesses"
H=/share/harnesses
OUT=/share/results
mkdir -p "$OUT" /dev/disk/by-id /dev/disk/by-path /mnt/test /mnt/scratch
PORTAL="$TARGET_ADDR:3260"

# --- what udev would do: the two persistent links the configs name (no udevd in the guest) -----------------
# 60-persistent-storage.rules: nvme namespaces get by-id/nvme-$attr{wwid}; path_id gives an iSCSI disk
# by-path/ip-ADDRESS:PORT-iscsi-TARGET-lun-LUN (the connection's persistent address and port).
make_links() {
  local b s t c a p d hctl
  for b in /sys/block/nvme*n*; do
    [ -e "$b/wwid" ] || continue
    case "${b##*/}" in nvme*c*n*) continue ;; esac
    ln -sfn "../../${b##*/}" "/dev/disk/by-id/nvme-$(cat "$b/wwid")"
  done
  for s in /sys/class/iscsi_session/session*; do
    [ -e "$s" ] || continue
    t=$(cat "$s/targetname")
    c=$(ls -d /sys/class/iscsi_connection/connection"${s##*session}":* 2>/dev/null | head -n1)
    [ -n "$c" ] || continue
    a=$(cat "$c/persistent_address"); p=$(cat "$c/persistent_port")
    for d in "$s"/device/target*/*:*:*:*/block/*; do
      [ -e "$d" ] || continue
      hctl=$(basename "$(dirname "$(dirname "$d")")")
      ln -sfn "../../${d##*/}" "/dev/disk/by-path/ip-$a:$p-iscsi-$t-lun-${hctl##*:}"
    done
  done
}
now() { cut -d. -f1 /proc/uptime; }
# until_ok SECONDS CMD...: CMD every 0.2 s until it succeeds; rc 0 when it did
until_ok() {
  local n=$(( $1 * 5 )); shift
  while [ "$n" -gt 0 ]; do
    "$@" >/dev/null 2>&1 && return 0
    n=$((n - 1)); sleep 0.2
  done
  return 1
}
link_ready() { make_links; [ -b "$1" ] && blockdev --getsize64 "$1"; }
dev_name() { basename "$(readlink -f "$1")"; }
nvme_connect() { # NQN
  timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$1" >/tmp/connect.out 2>&1 \
    || { echo "nvme connect $1 failed: $(cat /tmp/connect.out)"; return 1; }
}
nvme_disconnect() { nvme disconnect -n "$1" >/dev/null 2>&1; rm -f /dev/disk/by-id/nvme-*; }
iscsi_login() { # IQN
  iscsiadm -m node -T "$1" -p "$PORTAL" >/dev/null 2>&1 || iscsiadm -m node -o new -T "$1" -p "$PORTAL" >/dev/null
  timeout 120 iscsiadm -m node -T "$1" -p "$PORTAL" --login >/tmp/login.out 2>&1 \
    || { echo "iSCSI login to $1 failed: $(cat /tmp/login.out)"; return 1; }
}
iscsi_logout() { iscsiadm -m node -T "$1" -p "$PORTAL" --logout >/dev/null 2>&1; rm -f /dev/disk/by-path/ip-*; }
owner_of() { # DEV -> the NVMe subsystem NQN or iSCSI target IQN it belongs to
  local n s b
  n=$(dev_name "$1")
  cat "/sys/block/$n/device/subsysnqn" 2>/dev/null && return 0
  for s in /sys/class/iscsi_session/session*; do
    for b in "$s"/device/target*/*:*:*:*/block/"$n"; do [ -e "$b" ] && cat "$s/targetname" && return 0; done
  done
  echo none
}
wait_devs() { # EXPECTED_NQN_OR_IQN DEV...: each DEV appears and belongs to it (tests never touch another disk)
  local want="$1" d; shift
  for d in "$@"; do
    until_ok 60 link_ready "$d" || { echo "no device $d"; ls -l /dev/disk/by-id /dev/disk/by-path; return 1; }
    echo "  $d -> $(dev_name "$d") logical $(cat /sys/block/"$(dev_name "$d")"/queue/logical_block_size) $(owner_of "$d")"
    [ "$(owner_of "$d")" = "$want" ] || { echo "$d is not a disk of $want"; return 1; }
  done
}
excludes() { # expunge file -> "-x test" arguments for blktests
  [ -f "$1" ] || return 0
  /usr/bin/sed 's/#.*//' "$1" | while read -r t; do [ -n "$t" ] && printf -- '-x %s ' "$t"; done
}

if [ -n "${HARNESS_PS:-}" ]; then
  while sleep "$HARNESS_PS"; do echo "== ps $(cat /proc/uptime)"; /usr/bin/ps -eo pid,stat,etime,wchan:24,args --sort=start_time | tail -n 14; done &
fi

# Root already, but blktests' nvme/067 runs a helper with sudo, which the guest lacks: one that runs the command.
[ -n "${BLKTESTS_NVME:-}" ] && ! command -v sudo >/dev/null && printf '#!/bin/sh\nexec "$@"\n' > /usr/bin/sudo \
  && chmod 755 /usr/bin/sudo

# blktests' connect helper waits for the namespaces only through the local nvmet configfs, which the hook never fills
# (common/nvme _nvme_ns_ready), so after "udevadm settle" it checks the namespaces (nvme/004, 008: _check_uuid)
# whether the kernel's namespace scan has added them yet or not. Under TCG the scan can take more than that second:
# settle here also waits (up to 10 s) until every live NVMe controller but a discovery one shows a namespace.
if [ -n "${BLKTESTS_NVME:-}" ]; then
  mkdir -p /usr/local/bin
  cat > /usr/local/bin/udevadm <<'SETTLE'
#!/bin/sh
/usr/bin/udevadm "$@"; rc=$?
[ "${1:-}" = settle ] || exit $rc
n=50
while [ $n -gt 0 ]; do
  waiting=0
  for c in /sys/class/nvme/nvme*; do
    [ "$(cat "$c/state" 2>/dev/null)" = live ] || continue
    case "$(cat "$c/subsysnqn" 2>/dev/null)" in *discovery*) continue ;; esac
    ls -d "$c"/nvme*n* >/dev/null 2>&1 || waiting=1
  done
  [ $waiting = 0 ] && break
  n=$((n - 1)); sleep 0.2
done
/usr/bin/udevadm settle
exit $rc
SETTLE
  chmod 755 /usr/local/bin/udevadm
  export PATH="/usr/local/bin:$PATH"   # before /usr/bin, where the stand-in is
fi

# The harnesses run from the guest's RAM (the share is 9p: slow for thousands of small script reads).
[ -n "${BLKTESTS_NVME:-}${BLKTESTS_SCSI:-}" ] && cp -a /share/blktests /tmp/blktests
[ -n "${FSTESTS_SECTIONS:-}" ] && cp -a /share/xfstests /tmp/xfstests
# With NVME_TARGET_CONTROL blktests still attaches a loop device per test (common/nvme _nvmet_target_setup) and
# never detaches it (_cleanup_nvmet returns before _cleanup_blkdev): loaded by the test, the loop module would then
# be "patiently" unloaded after every test and wait out MODPROBE_PATIENT_RM_TIMEOUT_SECONDS. Loaded here, blktests
# leaves it alone; the leaked devices are sparse, never written.
[ -n "${BLKTESTS_NVME:-}" ] && /usr/sbin/modprobe loop
IMG_SIZE="${NVME_IMG_SIZE:-}"
BX="$(excludes "${BLKTESTS_EXPUNGE:-$H/blktests/expunge}")"
[ -n "${BLKTESTS_TIMEOUT:-}" ] && export TIMEOUT="$BLKTESTS_TIMEOUT"
rc_all=0

# --- blktests nvme group through contrib/blktests/nvme_target_control ---------------------------------------
# Per block size two ./check runs: the hook's tests (nvme.config), then the device tests (-d) on a namespace of
# luns.d/blktests-dev-*.yaml (nvme-devices.config) - a hook test disconnects every NVMe/TCP controller at its end.
if [ -n "${BLKTESTS_NVME:-}" ]; then
  for lbs in ${BLKTESTS_NVME_LBS:-512 16384}; do
    case "$lbs" in 16384) dev=16k ;; *) dev=512 ;; esac
    phase="blktests-nvme-$lbs"
    echo "PHASE $phase START"; t0=$(now)
    cd /tmp/blktests || exit 2
    if [ -n "$IMG_SIZE" ]; then export NVME_IMG_SIZE="$IMG_SIZE"
    elif [ "$lbs" -le 4096 ]; then export NVME_IMG_SIZE=512M
    else export NVME_IMG_SIZE=1G; fi
    # shellcheck disable=SC2086  # word splitting intended
    BLOCKTARGET_LBS=$lbs bash ./check -c "$H/blktests/nvme.config" -o "/tmp/bt-$phase" $BX \
      $(excludes "$H/blktests/expunge-$lbs") $BLKTESTS_NVME
    rc=$?
    cd / || exit 2
    cp -a "/tmp/bt-$phase" "$OUT/$phase"
    echo "PHASE $phase rc=$rc seconds=$(( $(now) - t0 ))"
    [ "$rc" = 0 ] || rc_all=1

    [ -n "${BLKTESTS_NVME_DEV:-}" ] || continue
    phase="blktests-nvme-dev-$lbs"
    echo "PHASE $phase START"; t0=$(now)
    nvme_connect "nqn.2026-11.io.blocktarget:blktests-dev-$dev"
    # shellcheck disable=SC2046
    wait_devs "nqn.2026-11.io.blocktarget:blktests-dev-$dev" $(bash -c ". $H/blktests/nvme-devices.config; echo \${TEST_DEVS[@]}") \
      || { echo "PHASE $phase rc=2 seconds=0"; rc_all=1; nvme_disconnect "nqn.2026-11.io.blocktarget:blktests-dev-$dev"; continue; }
    cd /tmp/blktests || exit 2
    # shellcheck disable=SC2086
    BLOCKTARGET_LBS=$lbs bash ./check -c "$H/blktests/nvme-devices.config" -d -o "/tmp/bt-$phase" $BX \
      $(excludes "$H/blktests/expunge-$lbs") $BLKTESTS_NVME_DEV
    rc=$?
    cd / || exit 2
    nvme_disconnect "nqn.2026-11.io.blocktarget:blktests-dev-$dev"
    cp -a "/tmp/bt-$phase" "$OUT/$phase"
    echo "PHASE $phase rc=$rc seconds=$(( $(now) - t0 ))"
    [ "$rc" = 0 ] || rc_all=1
  done
fi

# --- blktests scsi / block device tests on an iSCSI disk ----------------------------------------------------
if [ -n "${BLKTESTS_SCSI:-}" ]; then
  for dev in ${BLKTESTS_SCSI_DEVS:-512 16k}; do
    phase="blktests-scsi-$dev"
    echo "PHASE $phase START"; t0=$(now)
    iscsi_login "iqn.2026-11.io.blocktarget:blktests-dev-$dev"
    # shellcheck disable=SC2046
    wait_devs "iqn.2026-11.io.blocktarget:blktests-dev-$dev" $(bash -c ". $H/blktests/scsi.config; echo \${TEST_DEVS[@]}") \
      || { echo "PHASE $phase rc=2 seconds=0"; rc_all=1; iscsi_logout "iqn.2026-11.io.blocktarget:blktests-dev-$dev"; continue; }
    cd /tmp/blktests || exit 2
    # shellcheck disable=SC2086
    case "$dev" in 16k) lbs=16384 ;; *) lbs=512 ;; esac
    # shellcheck disable=SC2086
    bash ./check -c "$H/blktests/scsi.config" -d -o "/tmp/bt-$phase" $BX $(excludes "$H/blktests/expunge-$lbs") \
      $BLKTESTS_SCSI
    rc=$?
    cd / || exit 2
    iscsi_logout "iqn.2026-11.io.blocktarget:blktests-dev-$dev"
    cp -a "/tmp/bt-$phase" "$OUT/$phase"
    echo "PHASE $phase rc=$rc seconds=$(( $(now) - t0 ))"
    [ "$rc" = 0 ] || rc_all=1
  done
fi

# --- fstests, one local.config configuration (BLOCKTARGET_FSTESTS) at a time -----------------------------------
if [ -n "${FSTESTS_SECTIONS:-}" ]; then
  for section in $FSTESTS_SECTIONS; do
    phase="fstests-$section"
    echo "PHASE $phase START"; t0=$(now)
    size="${section#xfs_}"; size="${size%_*}"                 # 4k, 16k, atomic
    case "$section" in
      *_nvme) want="nqn.2026-11.io.blocktarget:fstests-$size"; nvme_connect "$want" ;;
      *) want="iqn.2026-11.io.blocktarget:fstests-$size"; iscsi_login "$want" ;;
    esac
    conf=$(BLOCKTARGET_FSTESTS=$section bash -c ". $H/fstests/local.config; echo \$TEST_DEV \$SCRATCH_DEV \$MKFS_OPTIONS")
    # shellcheck disable=SC2046,SC2086
    if wait_devs "$want" $(echo $conf | cut -d' ' -f1-2) \
      && mkfs.xfs -q -f $(echo $conf | cut -d' ' -f3-) "$(echo $conf | cut -d' ' -f1)"   # ./check mounts TEST_DEV first
    then
      case "$section" in
        xfs_atomic_*) args="${FSTESTS_ATOMIC_ARGS:--g atomicwrites}" ;;
        *) args="${FSTESTS_ARGS:--g quick}" ;;
      esac
      rm -rf /tmp/fst-results
      cd /tmp/xfstests || exit 2
      # shellcheck disable=SC2086
      BLOCKTARGET_FSTESTS=$section HOST_OPTIONS="$H/fstests/local.config" RESULT_BASE="/tmp/fst-results" \
        bash ./check -R xunit -E "${FSTESTS_EXPUNGE:-$H/fstests/expunge}" $args
      rc=$?
      cd / || exit 2
      umount /mnt/test /mnt/scratch 2>/dev/null
      rm -rf "$OUT/$phase"
      [ -d /tmp/fst-results ] && cp -a /tmp/fst-results "$OUT/$phase"
    else
      rc=2
    fi
    case "$section" in
      *_nvme) nvme_disconnect "$want" ;;
      *) iscsi_logout "$want" ;;
    esac
    echo "PHASE $phase rc=$rc seconds=$(( $(now) - t0 ))"
    [ "$rc" = 0 ] || rc_all=1
  done
fi

dmesg > "$OUT/dmesg.txt"
exit "$rc_all"
