#!/bin/sh
# Guest script (initiator VM): multipath against two portals of blocktarget (issue 29). The host test
# (LinuxMultipathIT) serves one 16 KiB LUN "mp" (iSCSI $IQN LUN 0, NVMe $NQN NSID 1) on portal a ($ADDR_A) and
# portal b ($ADDR_B), paths { a: optimized, b: non-optimized }. Both protocols at once, on one LUN:
#   - native NVMe multipath: one controller per portal (two nvme connect), one head nvmeXnY with two paths;
#   - dm-multipath over two iSCSI sessions (one per portal) with the ALUA prioritizer, multipathd running.
# fio verify (crc32c, verify_backlog) runs on the NVMe head over the LUN's first half and on the dm map over its
# second half while the host changes path a: inaccessible, optimized again, then its connections dropped.
# A monitor samples every ~0.1 s what Linux shows and prints each change (EVENT KIND VALUE u=UPTIME), the host times
# them against its own change. KIND: nvme-ana (ana_state per path), nvme-ctrl (controller state), nvme-io (which
# path carried I/O in the last sample, "-" = none for 3 samples), dm-path (dm-multipath path state), sd-alua
# (scsi_dh_alua's access_state), iscsi (session state), dm-io (which sd carried the map's I/O), io (every 8th
# sample: I/Os completed so far per path, "nvme=A:N,B:N dm=A:N,B:N").
# Lines for the host: CHECK ..., T <transcript line>, EVENT ..., STEP ready u=UPTIME (the host then runs its
# sequence and creates /share/stop when done: fio and the monitor stop, results and the "after" transcript follow).
# Env: TARGET_ADDR (run.sh), ADDR_A, ADDR_B, IQN, NQN, FIO_MAX (fio's safety runtime, s), WAIT (s per wait).
set -u
#@include guest-lib.sh
WAIT="${WAIT:-90}"
FIO_MAX="${FIO_MAX:-240}"
BS=16384
echo "# kernel $(uname -r) multipath iqn $IQN nqn $NQN portals a=$ADDR_A b=$ADDR_B"
t() { echo "T $*"; }
need() { # RC WHAT: no point going on without it
  [ "$1" = 0 ] && return 0
  echo "# setup failed: $2"; dmesg | tail -n 15 | sed 's/^/# dmesg: /'; exit 1
}
tcmd() { t "\$ $*"; "$@" 2>&1 | sed 's/^/T   /'; } # a command and its output for the transcript

# --- native NVMe multipath: one subsystem through both portals -----------------------------------------------------
t "kernel $(uname -r); cmdline: $(cat /proc/cmdline)"
read -r MPARAM </sys/module/nvme_core/parameters/multipath
[ "$MPARAM" = Y ]; check nvme native-multipath-on $? "nvme_core.multipath=$MPARAM"
for a in "$ADDR_A" "$ADDR_B"; do
  timeout 120 nvme connect -t tcp -a "$a" -s 4420 -n "$NQN" --reconnect-delay=1 >/tmp/c.out 2>&1
  check nvme connect-"$a" $? "$(one /tmp/c.out)"
done
two_paths() { H=$(nvme_head "$NQN") && [ "$(ls /sys/block/"$H"/multipath | wc -l)" = 2 ]; }
until_ok 60 two_paths; check nvme one-head-two-paths $? "$(nvme_head "$NQN"): $(ls /sys/block/"$(nvme_head "$NQN")"/multipath 2>/dev/null | tr '\n' ' ')"
H=$(nvme_head "$NQN") || H=none
PA=none PB=none CA=none CB=none
for p in $(ls /sys/block/"$H"/multipath 2>/dev/null); do
  c=${p#nvme*c}; c=nvme${c%%n*}
  case "$(cat /sys/class/nvme/"$c"/address)," in
    *traddr="$ADDR_A",*) PA=$p CA=$c ;;
    *traddr="$ADDR_B",*) PB=$p CB=$c ;;
  esac
done
[ "$PA" != none ] && [ "$PB" != none ]; rc=$?; check nvme paths-per-portal $rc "a: $CA/$PA b: $CB/$PB"
need $rc "an NVMe path per portal"
ana_is() { [ "$(cat /sys/block/"$PA"/ana_state)" = "$1" ] && [ "$(cat /sys/block/"$PB"/ana_state)" = "$2" ]; }
until_ok 30 ana_is optimized non-optimized; check nvme ana-before $? "a: $(cat /sys/block/"$PA"/ana_state 2>/dev/null) b: $(cat /sys/block/"$PB"/ana_state 2>/dev/null)"

# --- dm-multipath over one iSCSI session per portal ----------------------------------------------------------------
timeout 120 iscsiadm -m discovery -t sendtargets -p "$ADDR_A:3260" >/tmp/d.out 2>&1
check iscsi sendtargets $? "$(one /tmp/d.out)"
grep -q "^$ADDR_B:3260,2 $IQN" /tmp/d.out; check iscsi sendtargets-lists-portal-b $?
for a in "$ADDR_A" "$ADDR_B"; do
  timeout 120 iscsiadm -m node -T "$IQN" -p "$a:3260" --login >/tmp/l.out 2>&1
  check iscsi login-"$a" $? "$(one /tmp/l.out)"
done
two_disks() { [ "$(iscsi_disks "$IQN" | wc -l)" = 2 ]; }
until_ok 60 two_disks; rc=$?; check iscsi two-disks $rc "$(iscsi_disks "$IQN" | tr '\n' ';')"
need $rc "an iSCSI disk per portal"
SA=none SB=none NA=none NB=none
while read -r n a d; do
  [ "$a" = "$ADDR_A" ] && SA=$d NA=$n
  [ "$a" = "$ADDR_B" ] && SB=$d NB=$n
done <<EOF
$(iscsi_disks "$IQN")
EOF
check iscsi disk-per-portal 0 "a: session$NA $SA b: session$NB $SB"
cat >/etc/multipath.conf <<'EOF'
defaults {
	user_friendly_names yes
	find_multipaths on
	polling_interval 1
}
devices {
	device {
		vendor "BLKTARGT"
		product "blocktarget"
		hardware_handler "1 alua"
		prio alua
		path_grouping_policy group_by_prio
		failback immediate
		no_path_retry fail
	}
}
overrides {
	uid_attribute ""
}
EOF
udevadm settle
multipath -v2 >/tmp/mp.out 2>&1; check dm multipath-v2 $? "$(one /tmp/mp.out)"
MAP=$(dmsetup ls --target multipath | awk '$2 ~ /^\(/ {print $1; exit}')
[ -n "$MAP" ]; rc=$?; check dm map $rc "$MAP"; need $rc "a multipath map"
multipathd -d -s >/tmp/multipathd.log 2>&1 &
MPD=$!
mpd_sees() { multipathd show paths | grep -q " $SA " && multipathd show paths | grep -q " $SB "; }
until_ok 60 mpd_sees; rc=$?
check dm multipathd-sees-both $rc "$(multipathd show paths 2>&1 | tr '\n' ';' | cut -c1-200)"
need $rc "multipathd with both paths"
multipath -ll "$MAP" >/tmp/ll.out 2>&1
groups=$(grep -c "prio=" /tmp/ll.out)
[ "$groups" = 2 ] && grep -q "prio=50" /tmp/ll.out && grep -q "prio=10" /tmp/ll.out && grep -q "hwhandler='1 alua'" /tmp/ll.out
check dm two-alua-groups $? "$(grep -E 'prio=|hwhandler' /tmp/ll.out | tr '\n' ';')"
read -r LBS </sys/block/"$H"/queue/logical_block_size
DMD=none  # /dev/mapper/NAME is a node of its own here (no udev, no dm-N symlink)
for d in /sys/block/dm-*; do [ "$(cat "$d"/dm/name 2>/dev/null)" = "$MAP" ] && DMD=${d##*/}; done
read -r DLBS 2>/dev/null </sys/block/"$DMD"/queue/logical_block_size || DLBS=?
[ "$LBS" = $BS ] && [ "$DLBS" = $BS ]; check lbs 16k-both $? "nvme $LBS dm $DLBS"

snapshot() { # WHEN: the transcript of what both stacks show
  t "----- $1 -----"
  tcmd multipath -ll "$MAP"
  tcmd grep . /sys/class/nvme-subsystem/*/*/*/ana_state
  tcmd grep . /sys/block/"$SA"/device/access_state /sys/block/"$SB"/device/access_state
  tcmd nvme list-subsys
}
snapshot before

# --- fio verify on both, the monitor ----------------------------------------------------------------------------------
SIZE=$(( $(cat /sys/block/"$H"/size) * 512 ))
HALF=$(( SIZE / 2 ))
fio_start() { # name dev offset
  fio --name="$1" --filename="/dev/$2" --offset="$3" --size=$HALF --rw=randwrite --bs=$BS --ioengine=libaio \
    --iodepth=8 --direct=1 --verify=crc32c --verify_backlog=32 --continue_on_error=all --time_based \
    --runtime="$FIO_MAX" --output-format=json --output=/tmp/fio-"$1".json >/tmp/fio-"$1".err 2>&1 &
}
fio_start nvme "$H" 0; FN=$!
fio_start dm "mapper/$MAP" "$HALF"; FD=$!
t "fio (both): --rw=randwrite --bs=$BS --iodepth=8 --direct=1 --verify=crc32c --verify_backlog=32 --continue_on_error=all; nvme: /dev/$H offset 0, dm: /dev/mapper/$MAP offset $HALF, $HALF bytes each"

# The monitors fork nothing per sample but dmsetup (a fork costs tens of ms under TCG with fio busy): sysfs is read
# with the read builtin, and they nap with "read -t" on a FIFO nobody writes (busybox sleep would be a process).
mkfifo /tmp/nap
exec 3<>/tmp/nap
nap() { read -t "$1" _nap <&3; }
read -r _u0 _i </proc/uptime; nap 0.2; read -r _u1 _i </proc/uptime
if [ "${_u1%.*}${_u1#*.}" -lt $(( ${_u0%.*}${_u0#*.} + 15 )) ]; then nap() { sleep "$1"; }; t "read -t cannot nap: sleep"; fi
read -r MMA </sys/block/"$SA"/dev
read -r MMB </sys/block/"$SB"/dev
monitor() { # NVMe ana_state / controller state / I/O per path, sd access_state, iSCSI session state, sd I/O
  last_ana= last_ctl= last_nio= last_dio= last_alua= last_iscsi=
  idle_n=0 idle_d=0 samples=0 pa= pb= sa= sb=
  while [ ! -e /share/stop ]; do
    read -r up _idle </proc/uptime
    aa=? ab=? ca=? cb=? xa=? xb=? ia=? ib=? r=0 w=0
    read -r aa 2>/dev/null </sys/block/"$PA"/ana_state; read -r ab 2>/dev/null </sys/block/"$PB"/ana_state
    v="A=$aa B=$ab"; [ "$v" != "$last_ana" ] && { echo "EVENT nvme-ana $v u=$up"; last_ana=$v; }
    read -r ca 2>/dev/null </sys/class/nvme/"$CA"/state; read -r cb 2>/dev/null </sys/class/nvme/"$CB"/state
    v="A=$ca B=$cb"; [ "$v" != "$last_ctl" ] && { echo "EVENT nvme-ctrl $v u=$up"; last_ctl=$v; }
    read -r xa 2>/dev/null </sys/block/"$SA"/device/access_state; read -r xb 2>/dev/null </sys/block/"$SB"/device/access_state
    v="A=$xa B=$xb"; [ "$v" != "$last_alua" ] && { echo "EVENT sd-alua $v u=$up"; last_alua=$v; }
    read -r ia 2>/dev/null </sys/class/iscsi_session/session"$NA"/state; read -r ib 2>/dev/null </sys/class/iscsi_session/session"$NB"/state
    v="A=$ia B=$ib"; [ "$v" != "$last_iscsi" ] && { echo "EVENT iscsi $v u=$up"; last_iscsi=$v; }
    # I/O per path: reads + writes completed (fields 1 and 5 of the stat file) moved since the last sample
    read -r r _ _ _ w _ 2>/dev/null </sys/block/"$PA"/stat; na=$((r + w))
    read -r r _ _ _ w _ 2>/dev/null </sys/block/"$PB"/stat; nb=$((r + w))
    read -r r _ _ _ w _ 2>/dev/null </sys/block/"$SA"/stat; da=$((r + w))
    read -r r _ _ _ w _ 2>/dev/null </sys/block/"$SB"/stat; db=$((r + w))
    v=; [ "$na" != "$pa" ] && v=A; [ "$nb" != "$pb" ] && v=${v}B; pa=$na pb=$nb
    if [ -z "$v" ]; then idle_n=$((idle_n + 1)); [ $idle_n -ge 3 ] && v=-; else idle_n=0; fi
    [ -n "$v" ] && [ "$v" != "$last_nio" ] && [ $samples -gt 0 ] && { echo "EVENT nvme-io $v u=$up"; last_nio=$v; }
    v=; [ "$da" != "$sa" ] && v=A; [ "$db" != "$sb" ] && v=${v}B; sa=$da sb=$db
    if [ -z "$v" ]; then idle_d=$((idle_d + 1)); [ $idle_d -ge 3 ] && v=-; else idle_d=0; fi
    [ -n "$v" ] && [ "$v" != "$last_dio" ] && [ $samples -gt 0 ] && { echo "EVENT dm-io $v u=$up"; last_dio=$v; }
    # every 8th sample the I/Os completed per path so far, so the host can let fio run on a path for a while
    [ $((samples % 8)) = 0 ] && echo "EVENT io nvme=A:$na,B:$nb dm=A:$da,B:$db u=$up"
    samples=$((samples + 1))
    nap 0.1
  done
  echo "$samples" >/tmp/monitor.samples
}
dm_monitor() { # dm-multipath's path states (dmsetup status: "... MAJ:MIN A|F ..."), one dmsetup per sample
  last_dm=
  while [ ! -e /share/stop ]; do
    st=$(dmsetup status "$MAP" 2>/dev/null)
    read -r up _idle </proc/uptime   # after dmsetup answered: the state is at least this old (dmsetup is slow here)
    sa=? sb=? next=
    for f in $st; do
      case "$next" in a) sa=$f ;; b) sb=$f ;; esac
      next=; [ "$f" = "$MMA" ] && next=a; [ "$f" = "$MMB" ] && next=b
    done
    case "$sa" in A) sa=active ;; F) sa=failed ;; esac
    case "$sb" in A) sb=active ;; F) sb=failed ;; esac
    v="A=$sa B=$sb"
    [ "$v" != "$last_dm" ] && { echo "EVENT dm-path $v u=$up"; last_dm=$v; }
    nap 0.1
  done
}
T_MON=$(uptime_s)
monitor &
MON=$!
dm_monitor &
DMON=$!
kill -0 "$FN" && kill -0 "$FD"; check fio started $? "nvme pid $FN dm pid $FD"
# the host takes its clock offset from this line, then waits for the monitor's "nvme-io A" and "dm-io A" (I/O on
# path a through both stacks) before it changes anything
echo "STEP ready u=$(uptime_s)"

# --- the host's sequence runs now; /share/stop ends it -------------------------------------------------------------
n=0
while [ ! -e /share/stop ] && [ $n -lt $((FIO_MAX * 5)) ]; do sleep 0.2; n=$((n + 1)); done
[ -e /share/stop ]; check seq host-done $?
fio_stop() { # name pid: stops the time-based job; 128 is fio's code for "ended by a signal"
  if kill -0 "$2" 2>/dev/null; then kill -TERM "$2"; wait "$2"; rc=$?; else wait "$2"; rc="ended-early:$?"; fi
  f=/tmp/fio-"$1".json
  err=$(sed -n 's/.*"total_err" : \([0-9]*\).*/\1/p' "$f" | head -n 1)
  jerr=$(sed -n 's/.*"error" : \([0-9]*\).*/\1/p' "$f" | head -n 1)
  ios=$(sed -n 's/.*"total_ios" : \([0-9]*\).*/\1/p' "$f" | head -n 2 | tr '\n' ' ')
  vbad=$(grep -ciE 'verify failed|bad magic|verify: bad' /tmp/fio-"$1".err "$f" | awk -F: '{s += $NF} END {print s + 0}')
  t "fio $1: rc=$rc (128 = stopped by us) total_err=${err:-?} error=${jerr:-?} verify-failures=$vbad ios(read/verify write)=$ios"
  [ "$rc" = 128 ]; check fio "$1"-ran-until-stopped $? "rc=$rc"
  [ "${err:-x}" = 0 ] && [ "${jerr:-x}" = 0 ] && [ "$vbad" = 0 ]; check fio "$1"-no-errors $? "total_err=${err:-?} error=${jerr:-?} verify=$vbad"
  w=$(echo "$ios" | awk '{print $2}')
  [ "${w:-0}" -gt 0 ]; check fio "$1"-did-io $? "$ios"
}
wait "$MON"; wait "$DMON"
T_END=$(uptime_s)
read -r SAMPLES 2>/dev/null </tmp/monitor.samples || SAMPLES=0
t "monitor: $SAMPLES samples in $(awk -v a="$T_MON" -v b="$T_END" 'BEGIN { printf "%.1f", b - a }') s"
echo "SAMPLES $SAMPLES $T_MON $T_END"
fio_stop nvme "$FN"
fio_stop dm "$FD"
snapshot after
ana_is optimized non-optimized; check nvme ana-after $? "a: $(cat /sys/block/"$PA"/ana_state) b: $(cat /sys/block/"$PB"/ana_state)"
multipath -ll "$MAP" >/tmp/ll.out 2>&1
[ "$(grep -c "prio=" /tmp/ll.out)" = 2 ] && grep -A1 "prio=50 status=active" /tmp/ll.out | grep -q " $SA "
check dm a-active-again $? "$(grep -E 'prio=| sd' /tmp/ll.out | tr '\n' ';')"
t "multipathd log (last lines):"; tail -n 12 /tmp/multipathd.log | sed 's/^/T   /'
grep -hiE 'error|verify' /tmp/fio-nvme.err /tmp/fio-dm.err | head -n 10 | sed 's/^/T   fio: /'
dmesg | grep -iE 'alua|ana|nvme|connection.*(error|fail)|multipath|I/O error' | grep -vE 'loaded|registered' \
  | tail -n 40 | sed 's/^/T   dmesg: /'
dmesg | grep -E "BUG:|Oops|Call Trace" | tail -n 5 | sed 's/^/# dmesg: /'

kill "$MPD" 2>/dev/null; wait "$MPD" 2>/dev/null
multipath -F >/dev/null 2>&1; check dm flush $?
iscsiadm -m node -T "$IQN" --logout >/dev/null 2>&1; check iscsi logout $?
nvme disconnect -n "$NQN" >/dev/null 2>&1; check nvme disconnect $?
exit 0
