package io.blocktarget.nvme;

/**
 * Transport-dependent numbers both the NVMe/TCP transport (what it accepts) and the controller
 * (what Identify Controller reports: IOCCSZ, MDTS) must agree on. In-capsule data on I/O queues is 256 KiB, the
 * twin of our iSCSI FirstBurstLength: Linux sends a write that fits in the capsule at once, a larger one waits
 * for an R2T — one more round trip (nvmet's 16 KiB made 128 KiB writes 0.7× iSCSI's rate). The admin queue
 * keeps nvmet's 8 KiB.
 *
 * @param ioInCapsuleDataBytes    in-capsule data accepted on I/O queues (IOCCSZ = 4 + this / 16)
 * @param adminInCapsuleDataBytes in-capsule data accepted on the admin queue
 * @param maxDataTransferBytes    largest data transfer of one command (MDTS, a power of two ≥ 64 KiB, the
 *                                largest logical block)
 * @param maxH2CDataBytes         MAXH2CDATA in ICResp (≥ 4096, multiple of 4)
 */
public record NvmeLimits(int ioInCapsuleDataBytes, int adminInCapsuleDataBytes, int maxDataTransferBytes,
                         int maxH2CDataBytes) {
    public static final NvmeLimits DEFAULT = new NvmeLimits(256 * 1024, 8 * 1024, 1024 * 1024, 1024 * 1024);

    public NvmeLimits {
        if (Integer.bitCount(maxDataTransferBytes) != 1 || maxDataTransferBytes < 64 * 1024) {
            throw new IllegalArgumentException("maxDataTransferBytes must be a power of two >= 64 KiB");
        }
        if (maxH2CDataBytes < 4096 || maxH2CDataBytes % 4 != 0) {
            throw new IllegalArgumentException("maxH2CDataBytes must be >= 4096 and a multiple of 4");
        }
    }
}
