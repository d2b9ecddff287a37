# Shared functions of the guest scripts (busybox sh). Not run on its own: GuestScripts.ship inlines it in every guest
# script that has the line "#@include guest-lib.sh" (run.sh copies one file into the VM, so the harness inlines this
# file at that line before booting). Scripts written before this file keep their own copies.

# check NAME WHAT RC [DETAIL]: one CHECK line for the host (GuestReport); RC 0 = OK
check() {
  if [ "$3" = 0 ]; then echo "CHECK $1 $2 OK ${4:-}"; else echo "CHECK $1 $2 FAIL ${4:-}"; fi
}
# until_ok SECONDS CMD...: runs CMD every 0.2 s until it succeeds or SECONDS pass; rc 0 when it succeeded
until_ok() {
  _u=$(( $1 * 5 )); shift
  while [ "$_u" -gt 0 ]; do
    "$@" >/dev/null 2>&1 && return 0
    _u=$((_u - 1)); sleep 0.2
  done
  return 1
}
# one FILE: the file on one line, cut to 200 characters (command output as a CHECK detail)
one() { tr '\n' ' ' <"$1" | cut -c1-200; }
# uptime: seconds since boot with 10 ms resolution (/proc/uptime), no fork
uptime_s() { read -r _up _idle </proc/uptime; echo "$_up"; }
# nvme_head NQN [NSID]: the namespace head nvmeXnY of subsystem NQN (NSID 1 by default); the per-path devices of native
# multipath (nvmeXcYnZ) are skipped
nvme_head() {
  for _b in /sys/block/nvme*n*; do
    [ -e "$_b" ] || continue
    case "${_b##*/}" in nvme*c*n*) continue ;; esac
    _q=$(cat "$_b/device/subsysnqn" 2>/dev/null || cat "$_b/device/device/subsysnqn" 2>/dev/null)
    [ "$_q" = "$1" ] || continue
    [ "$(cat "$_b/nsid" 2>/dev/null)" = "${2:-1}" ] && echo "${_b##*/}" && return 0
  done
  return 1
}
# iscsi_disks IQN [LUN]: "SESSION_NUMBER PORTAL_ADDRESS sdX" per logged-in session of target IQN that has LUN (0)
iscsi_disks() {
  for _s in /sys/class/iscsi_session/session*; do
    [ "$(cat "$_s/targetname" 2>/dev/null)" = "$1" ] || continue
    _n=${_s##*session}
    _a=$(cat /sys/class/iscsi_connection/connection"$_n":0/persistent_address 2>/dev/null)
    for _d in "$_s"/device/target*/*:"${2:-0}"/block/*; do [ -e "$_d" ] && echo "$_n $_a ${_d##*/}"; done
  done
}
