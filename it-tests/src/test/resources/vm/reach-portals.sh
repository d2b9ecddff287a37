#!/bin/sh
# Guest script (initiator VM): the real Linux initiators open a connection to each blocktarget
# portal. Until the iSCSI / NVMe-TCP transports land the target closes every connection, so the
# tools fail; what is checked (on the host side) is that the target saw the guest's connections.
# Prints one line per tool with its exit code; always exits 0 unless a tool is missing.
set -u
for tool in iscsiadm nvme; do
  command -v "$tool" >/dev/null || { echo "missing $tool in the guest"; exit 2; }
done
echo "guest kernel $(uname -r), target $TARGET_ADDR"
timeout 60 iscsiadm -m discovery -t sendtargets -p "$TARGET_ADDR:${ISCSI_PORT:-3260}" >/tmp/iscsi.out 2>&1
echo "iscsiadm discovery rc=$?"
timeout 60 nvme discover -t tcp -a "$TARGET_ADDR" -s "${DISCOVERY_PORT:-8009}" >/tmp/nvme.out 2>&1
echo "nvme discover (discovery port) rc=$?"
timeout 60 nvme discover -t tcp -a "$TARGET_ADDR" -s "${NVME_PORT:-4420}" >/tmp/nvme2.out 2>&1
echo "nvme discover (I/O port) rc=$?"
exit 0
