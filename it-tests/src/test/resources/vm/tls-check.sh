#!/bin/sh
# Guest script (initiator VM): NVMe/TCP over TLS 1.3 with a PSK as Linux does it (issue 14 item 2). The host test
# (LinuxTlsIT) serves $SUB with access.tls: required and the configured PSK $KEY (interchange format), and $PLAIN
# without TLS, both on port 4420. Here: tlshd (ktls-utils) runs the handshake for the kernel with the key that
# `nvme check-tls-key --insert` put into the .nvme keyring under its PSK identity; `nvme connect --tls` then does
# Connect and I/O over kTLS. Lines for the host: CHECK <name> <what> OK|FAIL [detail].
set -u
echo "# kernel $(uname -r) tls-check $SUB $PLAIN"
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
HOST="nqn.2014-08.org.nvmexpress:uuid:7a1c2f3a-3b1d-4c8e-9a55-1a2b3c4d5e70"
modprobe nvme-tcp 2>/dev/null
modprobe tls 2>/dev/null
# each queue's handshake goes through tlshd (a fork and GnuTLS, under TCG): 60 s for it, not the module's 10
echo 60 > /sys/module/nvme_tcp/parameters/tls_handshake_timeout 2>/dev/null
nvme version | head -1 | sed 's/^/# /'
echo "# $(tlshd --version 2>&1 | head -1)"

# tlshd: the kernel's handshake upcall (net/handshake) is answered by it; it must see the .nvme keyring.
mkdir -p /etc/tlshd
cat >/tmp/tlshd.conf <<CONF
[debug]
loglevel=1
tls=0
nl=0

[authenticate]
keyrings=.nvme

[authenticate.client]

[authenticate.server]
CONF
tlshd_running() { for c in /proc/[0-9]*/comm; do [ "$(cat "$c" 2>/dev/null)" = tlshd ] && return 0; done; return 1; }
if ! tlshd_running; then
  tlshd -s -c /tmp/tlshd.conf >/tmp/tlshd.log 2>&1 &
fi
until_ok 10 tlshd_running; check tlshd running $?

# --- the right PSK: handshake, Connect, fio verify over TLS ---------------------------------
timeout 30 nvme check-tls-key --hostnqn="$HOST" --subsysnqn="$SUB" --keydata="$KEY" --identity=1 --insert \
  >/tmp/k1.out 2>&1
check key insert $? "$(one /tmp/k1.out)"
timeout 120 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$SUB" --nr-io-queues=2 --hostnqn="$HOST" --tls \
  >/tmp/c1.out 2>&1
check tls connects $? "$(one /tmp/c1.out)"
until_ok 60 nvme_dev "$SUB"; check tls namespace $?
D=$(nvme_dev "$SUB")
if [ -n "$D" ]; then
  fio --name=tlsverify --filename="/dev/$D" --direct=1 --ioengine=libaio --iodepth=16 --rw=randwrite --bs=4k \
    --size=32M --verify=crc32c --verify_fatal=1 --output=/tmp/fio1.out >/dev/null 2>&1
  rc=$?; check tls fio-verify-4k $rc "$(grep -E 'err=|WRITE:|READ:' /tmp/fio1.out | tr '\n' ' ' | cut -c1-200)"
  fio --name=tlsbig --filename="/dev/$D" --direct=1 --ioengine=libaio --iodepth=4 --rw=write --bs=256k \
    --size=32M --verify=crc32c --verify_fatal=1 --output=/tmp/fio2.out >/dev/null 2>&1
  rc=$?; check tls fio-verify-256k $rc "$(grep -E 'err=|WRITE:|READ:' /tmp/fio2.out | tr '\n' ' ' | cut -c1-200)"
  tr=$(cat /sys/class/nvme/$(echo "$D" | sed 's/n[0-9]*$//')/transport 2>/dev/null)
  echo "# transport $tr; tls_key $(cat /sys/class/nvme/$(echo "$D" | sed 's/n[0-9]*$//')/tls_key 2>/dev/null)"
fi
# a plain Connect to the subsystem that requires TLS is refused while the TLS controller works on
timeout 60 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$SUB" --nr-io-queues=1 \
  --hostnqn="nqn.2014-08.org.nvmexpress:uuid:7a1c2f3a-3b1d-4c8e-9a55-1a2b3c4d5e71" >/tmp/c2.out 2>&1
check plain refused-where-tls-required "$(neg $?)" "$(one /tmp/c2.out)"
if [ -n "$D" ]; then
  dd if=/dev/urandom of=/tmp/pattern bs=1M count=8 2>/dev/null
  dd if=/tmp/pattern of="/dev/$D" bs=1M count=8 oflag=direct 2>/dev/null && \
    dd if="/dev/$D" of=/tmp/back bs=1M count=8 iflag=direct 2>/dev/null && cmp -s /tmp/pattern /tmp/back
  check tls io-after-plain-refusal $?
fi
# a plain subsystem on the same port
timeout 60 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$PLAIN" --nr-io-queues=1 --hostnqn="$HOST" \
  >/tmp/c3.out 2>&1
check plain connects $? "$(one /tmp/c3.out)"
until_ok 60 nvme_dev "$PLAIN"; P=$(nvme_dev "$PLAIN")
[ -n "$P" ] && dd if=/tmp/pattern of="/dev/$P" bs=1M count=8 oflag=direct 2>/dev/null && \
  dd if="/dev/$P" of=/tmp/back bs=1M count=8 iflag=direct 2>/dev/null && cmp -s /tmp/pattern /tmp/back
check plain io $?
nvme disconnect -n "$PLAIN" >/dev/null 2>&1
nvme disconnect -n "$SUB" >/tmp/d1.out 2>&1; check tls disconnect $? "$(one /tmp/d1.out)"

# --- a wrong PSK under the same identity: the handshake fails -------------------------------
keyctl clear %:.nvme >/dev/null 2>&1 || true
timeout 30 nvme check-tls-key --hostnqn="$HOST" --subsysnqn="$SUB" --keydata="$WRONG" --identity=1 --insert \
  >/tmp/k2.out 2>&1
check key insert-wrong $? "$(one /tmp/k2.out)"
timeout 90 nvme connect -t tcp -a "$TARGET_ADDR" -s 4420 -n "$SUB" --nr-io-queues=1 --hostnqn="$HOST" --tls \
  >/tmp/c4.out 2>&1
check tls wrong-key-refused "$(neg $?)" "$(one /tmp/c4.out)"
nvme disconnect -n "$SUB" >/dev/null 2>&1
echo "# tlshd log:"; sed 's/^/#   /' /tmp/tlshd.log | tail -n 30
dmesg | grep -i -E "nvme|tls|handshake" | tail -n 20 | sed 's/^/# dmesg /'
exit 0
