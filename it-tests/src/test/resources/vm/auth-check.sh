#!/bin/sh
# Guest script (initiator VM): authentication as Linux does it (issue 14). The host test (LinuxAuthIT) serves:
#   $NQN1  DH-HMAC-CHAP, host key only ($HOSTKEY, DHHC-1:01: — transformed with the host NQN)
#   $NQN2  DH-HMAC-CHAP, bidirectional ($HOSTKEY + controller key $CTRLKEY)
#   $NQN3  DH-HMAC-CHAP keys per host: $KEYA for HOSTA, $KEYB (and controller key $CTRLB) for HOSTB
#   $IQN_OPEN    an iSCSI target without lists;  $IQN_LISTED  one whose initiators list does not name this guest
#   discovery-chap $DUSER / $DSECRET
# Lines for the host: CHECK <name> <what> OK|FAIL [detail]. Env: TARGET_ADDR (run.sh) and the names above.
set -u
echo "# kernel $(uname -r) auth-check nvme $NQN1 $NQN2 $NQN3 iscsi $IQN_OPEN $IQN_LISTED"
check() { # name what rc [detail]
  if [ "$3" = 0 ]; then echo "CHECK $1 $2 OK ${4:-}"; else echo "CHECK $1 $2 FAIL ${4:-}"; fi
}
neg() { if [ "$1" = 0 ]; then echo 1; else echo 0; fi; }
one() { tr '\n' ' ' <"$1" | cut -c1-220; }
nvme_dev() { # subsystem NQN -> nvmeXnY
  for b in /sys/block/nvme*n*; do
    [ -e "$b" ] || continue
    case "$(basename "$b")" in nvme*c*n*) continue ;; esac
    nqn=$(cat "$b/device/subsysnqn" 2>/dev/null || cat "$b/device/device/subsysnqn" 2>/dev/null)
    [ "$nqn" = "$1" ] && basename "$b" && return 0
  done
  return 1
}
until_ok() { n=$(( $1 * 5 )); shift; while [ "$n" -gt 0 ]; do "$@" >/dev/null 2>&1 && return 0; n=$((n-1)); sleep 0.2; done; return 1; }
HOSTA="nqn.2014-08.org.nvmexpress:uuid:0e6f9a2c-8d7b-4c1e-9f3a-5b6c7d8e9f01"
HOSTB="nqn.2014-08.org.nvmexpress:uuid:0e6f9a2c-8d7b-4c1e-9f3a-5b6c7d8e9f02"
# Each host NQN its own HOSTID: the kernel refuses a host NQN whose HOSTID another connected NQN uses, which
# would refuse host B before it is ever asked for a key.
IDA=0e6f9a2c-8d7b-4c1e-9f3a-5b6c7d8e9f01
IDB=0e6f9a2c-8d7b-4c1e-9f3a-5b6c7d8e9f02
modprobe nvme-tcp 2>/dev/null
nvme version | head -1 | sed 's/^/# /'

# --- NVMe: the right host key connects (admin and I/O queue authenticate) -------------------
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN1" --nr-io-queues=1 --hostnqn="$HOSTA" \
  --hostid="$IDA" --dhchap-secret="$HOSTKEY" >/tmp/c1.out 2>&1
check nvme1 right-key-connects $? "$(one /tmp/c1.out)"
until_ok 60 nvme_dev "$NQN1"; check nvme1 namespace $?
D1=$(nvme_dev "$NQN1")
# host A's I/O runs while host B tries a wrong key
dd if=/dev/urandom of=/tmp/pattern bs=1M count=16 2>/dev/null
( i=0; ok=0; while [ $i -lt 20 ]; do
    dd if=/tmp/pattern of="/dev/$D1" bs=1M count=16 oflag=direct 2>/dev/null && \
      dd if="/dev/$D1" of=/tmp/back bs=1M count=16 iflag=direct 2>/dev/null && cmp -s /tmp/pattern /tmp/back || ok=1
    i=$((i+1)); done; echo $ok >/tmp/io.rc ) &
IO=$!
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN1" --nr-io-queues=1 --hostnqn="$HOSTB" \
  --hostid="$IDB" --dhchap-secret="$WRONGKEY" >/tmp/c2.out 2>&1
check nvme1 wrong-key-refused "$(neg $?)" "$(one /tmp/c2.out)"
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN1" --nr-io-queues=1 --hostnqn="$HOSTB" \
  --hostid="$IDB" >/tmp/c3.out 2>&1
check nvme1 no-key-refused "$(neg $?)" "$(one /tmp/c3.out)"
wait $IO
check nvme1 other-host-io-continued "$(cat /tmp/io.rc)" "20 x 16 MiB write+read+cmp during the refusals"
nvme disconnect -n "$NQN1" >/dev/null 2>&1; check nvme1 disconnect $?

# --- NVMe: bidirectional: the controller must prove the controller key ----------------------
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN2" --nr-io-queues=1 --hostnqn="$HOSTA" \
  --hostid="$IDA" --dhchap-secret="$HOSTKEY" --dhchap-ctrl-secret="$CTRLKEY" >/tmp/c4.out 2>&1
check nvme2 bidirectional-connects $? "$(one /tmp/c4.out)"
until_ok 60 nvme_dev "$NQN2"; check nvme2 namespace $?
D2=$(nvme_dev "$NQN2") && dd if=/tmp/pattern of="/dev/$D2" bs=1M count=4 oflag=direct 2>/dev/null && \
  dd if="/dev/$D2" of=/tmp/back bs=1M count=4 iflag=direct 2>/dev/null && cmp -s /tmp/pattern /tmp/back -n 4194304
check nvme2 io $?
nvme disconnect -n "$NQN2" >/dev/null 2>&1
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN2" --nr-io-queues=1 --hostnqn="$HOSTA" \
  --hostid="$IDA" --dhchap-secret="$HOSTKEY" --dhchap-ctrl-secret="$WRONGKEY" >/tmp/c5.out 2>&1
check nvme2 wrong-ctrl-key-refused "$(neg $?)" "$(one /tmp/c5.out)"
nvme disconnect -n "$NQN2" >/dev/null 2>&1

# --- NVMe: a key per host NQN; each host proves its own, the other host's key is refused ------
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN3" --nr-io-queues=1 --hostnqn="$HOSTA" \
  --hostid="$IDA" --dhchap-secret="$KEYA" >/tmp/c6.out 2>&1
check nvme3 host-a-own-key-connects $? "$(one /tmp/c6.out)"
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN3" --nr-io-queues=1 --hostnqn="$HOSTB" \
  --hostid="$IDB" --dhchap-secret="$KEYB" --dhchap-ctrl-secret="$CTRLB" >/tmp/c7.out 2>&1
check nvme3 host-b-own-keys-connect $? "$(one /tmp/c7.out)"
n=$(cat /sys/class/nvme/nvme*/subsysnqn 2>/dev/null | grep -cx "$NQN3")
[ "$n" = 2 ]; check nvme3 two-controllers $? "controllers of $NQN3: $n"
nvme disconnect -n "$NQN3" >/dev/null 2>&1; check nvme3 disconnect $?
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN3" --nr-io-queues=1 --hostnqn="$HOSTA" \
  --hostid="$IDA" --dhchap-secret="$KEYB" >/tmp/c8.out 2>&1
check nvme3 host-a-with-b-key-refused "$(neg $?)" "$(one /tmp/c8.out)"
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$NQN3" --nr-io-queues=1 --hostnqn="$HOSTB" \
  --hostid="$IDB" --dhchap-secret="$KEYA" >/tmp/c9.out 2>&1
check nvme3 host-b-with-a-key-refused "$(neg $?)" "$(one /tmp/c9.out)"
nvme disconnect -n "$NQN3" >/dev/null 2>&1

# --- iSCSI: discovery needs CHAP; a target whose list does not name us is hidden and refused ----
timeout 60 iscsiadm -m discovery -t sendtargets -p "$TARGET_ADDR:3260" >/tmp/d0.out 2>&1
check iscsi discovery-without-chap-refused "$(neg $?)" "$(one /tmp/d0.out)"
iscsiadm -m discoverydb -t st -p "$TARGET_ADDR:3260" -o new >/dev/null 2>&1
iscsiadm -m discoverydb -t st -p "$TARGET_ADDR:3260" -o update -n discovery.sendtargets.auth.authmethod -v CHAP
iscsiadm -m discoverydb -t st -p "$TARGET_ADDR:3260" -o update -n discovery.sendtargets.auth.username -v "$DUSER"
iscsiadm -m discoverydb -t st -p "$TARGET_ADDR:3260" -o update -n discovery.sendtargets.auth.password -v "$DSECRET"
timeout 60 iscsiadm -m discoverydb -t st -p "$TARGET_ADDR:3260" --discover >/tmp/d1.out 2>&1
check iscsi discovery-with-chap $? "$(one /tmp/d1.out)"
grep -q "$IQN_OPEN" /tmp/d1.out; check iscsi open-target-listed $?
grep -q "$IQN_LISTED" /tmp/d1.out; check iscsi listed-target-hidden "$(neg $?)"
timeout 60 iscsiadm -m node -T "$IQN_OPEN" -p "$TARGET_ADDR:3260" --login >/tmp/l1.out 2>&1
check iscsi open-target-login $? "$(one /tmp/l1.out)"
iscsiadm -m node -T "$IQN_OPEN" -p "$TARGET_ADDR:3260" --logout >/dev/null 2>&1
# the hidden target by name: the login must be refused (0202, iscsiadm: authorization failure)
iscsiadm -m node -T "$IQN_LISTED" -p "$TARGET_ADDR:3260,1" -o new >/dev/null 2>&1
timeout 60 iscsiadm -m node -T "$IQN_LISTED" -p "$TARGET_ADDR:3260" --login >/tmp/l2.out 2>&1
check iscsi unlisted-initiator-refused "$(neg $?)" "$(one /tmp/l2.out)"
grep -qi "authoriz" /tmp/l2.out; check iscsi refusal-is-authorization-failure $? "$(one /tmp/l2.out)"
echo "# initiator $(grep -v '^#' /etc/iscsi/initiatorname.iscsi 2>/dev/null | head -1)"
exit 0
