#!/bin/sh
# Guest script (initiator VM, latest kernel): what Linux's nvme-cli / libnvme put into the kernel's .nvme keyring for
# NVMe/TCP TLS (issue 14 item 2). The host test (LinuxTlsKeysIT) gives two configured PSKs in the interchange format
# ($KEY01: hash 01, 32 bytes; $KEY02: hash 02, 48 bytes) and the NQNs $HOST / $SUB; for each key, identity version
# 0 and 1, `nvme check-tls-key --insert` derives the TLS PSK and stores it under its
# PSK identity (what `nvme connect --tls` then has tlshd send in the ClientHello). Lines for the host:
#   PSK <version> <compat 0|1> <hash> <psk hex> <identity ...>
#   GEN <hash> <interchange key>          (nvme gen-tls-key output)
#   CHECK <name> <what> OK|FAIL [detail]
set -u
echo "# kernel $(uname -r) tls-keys-check"
nvme version | head -1 | sed 's/^/# /'
check() { # name what rc [detail]
  if [ "$3" = 0 ]; then echo "CHECK $1 $2 OK ${4:-}"; else echo "CHECK $1 $2 FAIL ${4:-}"; fi
}
command -v keyctl >/dev/null; check tools keyctl $?
command -v tlshd >/dev/null; check tools tlshd $? "$(tlshd --version 2>&1 | head -1)"
# nvme-cli 2.13 has no --compat (libnvme's pre-RFC 8446 HkdfLabel), and the kernel keeps psk keys unreadable to
# keyctl pipe on some builds: the identity (the key's description) is always compared, the PSK bytes when readable.
for h in 01 02; do
  if [ $h = 01 ]; then K=$KEY01; else K=$KEY02; fi
  for v in 0 1; do
    c=0
    out=$(nvme check-tls-key --hostnqn="$HOST" --subsysnqn="$SUB" --keydata="$K" --identity=$v --insert 2>&1)
    rc=$?
    check "key$h-v$v" insert $rc "$(echo "$out" | tr '\n' ' ' | cut -c1-160)"
    serial=$(echo "$out" | sed -n 's/.*Inserted TLS key \([0-9a-fA-F]*\).*/\1/p' | head -1)
    [ -n "$serial" ] || continue
    id=$(printf '%d' "0x$serial")
    desc=$(keyctl rdescribe "$id" 2>/dev/null | cut -d';' -f5-)
    [ -n "$desc" ]; check "key$h-v$v" describe $? "$desc"
    psk=$(keyctl pipe "$id" 2>/dev/null | od -An -v -tx1 | tr -d ' \n')
    [ -n "$psk" ] || psk=-
    [ -n "$desc" ] && echo "PSK $v $c $h $psk $desc"
    keyctl unlink "$id" %:.nvme >/dev/null 2>&1 || keyctl revoke "$id" >/dev/null 2>&1
  done
done
for h in 1 2; do
  g=$(nvme gen-tls-key --hmac=$h 2>&1 | grep -o 'NVMeTLSkey-1:[^ ]*' | head -1)
  [ -n "$g" ]; check gen hmac$h $?
  [ -n "$g" ] && echo "GEN 0$h $g"
done
exit 0
