package io.blocktarget.nvme;

import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.DeviceKnobs.Session;

/**
 * Transport-dependent numbers both the NVMe/TCP transport (what it accepts) and the controller
 * (what Identify Controller reports: IOCCSZ, MDTS) must agree on. In-capsule data on I/O queues is 256 KiB, the
 * twin of our iSCSI FirstBurstLength: Linux sends a write that fits in the capsule at once, a larger one waits
 * for an R2T — one more round trip (nvmet's 16 KiB made 128 KiB writes 0.7× iSCSI's rate). The admin queue
 * keeps nvmet's 8 KiB.
 *
 * <p>The server's limits are the defaults; a subsystem whose LUN files give {@code session:} keys hands its
 * controllers {@link #forSubsystem} of them: a controller takes its limits when it is created (admin Connect) and
 * keeps them, so a runtime change reaches new controllers only.
 *
 * @param ioInCapsuleDataBytes    in-capsule data accepted on I/O queues (IOCCSZ = 4 + this / 16)
 * @param adminInCapsuleDataBytes in-capsule data accepted on the admin queue
 * @param maxDataTransferBytes    largest data transfer of one command (MDTS: a power of two ≥ 4 KiB, CAP.MPSMIN)
 * @param maxH2CDataBytes         MAXH2CDATA in ICResp (≥ 4096, multiple of 4)
 * @param maxIoQueues             I/O queues Set Features Number of Queues grants at most (1 .. 128)
 * @param maxQueueEntries         entries of an I/O queue: CAP.MQES + 1 and MAXCMD (2 .. 1024)
 */
public record NvmeLimits(int ioInCapsuleDataBytes, int adminInCapsuleDataBytes, int maxDataTransferBytes,
                         int maxH2CDataBytes, int maxIoQueues, int maxQueueEntries) {
    public static final NvmeLimits DEFAULT = new NvmeLimits(256 * 1024, 8 * 1024, 1024 * 1024, 1024 * 1024);

    public NvmeLimits {
        if (Integer.bitCount(maxDataTransferBytes) != 1 || maxDataTransferBytes < ControllerConstants.MPSMIN_BYTES) {
            throw new IllegalArgumentException("maxDataTransferBytes must be a power of two >= 4 KiB");
        }
        if (maxH2CDataBytes < 4096 || maxH2CDataBytes % 4 != 0) {
            throw new IllegalArgumentException("maxH2CDataBytes must be >= 4096 and a multiple of 4");
        }
        if (ioInCapsuleDataBytes < 0 || ioInCapsuleDataBytes % 16 != 0) {
            throw new IllegalArgumentException("ioInCapsuleDataBytes must be a multiple of 16 (IOCCSZ)");
        }
        if (maxIoQueues < 1 || maxIoQueues > ControllerConstants.MAX_IO_QUEUES) {
            throw new IllegalArgumentException("maxIoQueues must be 1.." + ControllerConstants.MAX_IO_QUEUES);
        }
        if (maxQueueEntries < 2 || maxQueueEntries > ControllerConstants.MAX_QUEUE_ENTRIES) {
            throw new IllegalArgumentException("maxQueueEntries must be 2.." + ControllerConstants.MAX_QUEUE_ENTRIES);
        }
    }

    /** Today's queue count and size (128 I/O queues of 1024 entries, as nvmet). */
    public NvmeLimits(int ioInCapsuleDataBytes, int adminInCapsuleDataBytes, int maxDataTransferBytes,
                      int maxH2CDataBytes) {
        this(ioInCapsuleDataBytes, adminInCapsuleDataBytes, maxDataTransferBytes, maxH2CDataBytes,
                ControllerConstants.MAX_IO_QUEUES, ControllerConstants.MAX_QUEUE_ENTRIES);
    }

    /** These limits with the {@code session:} keys a subsystem's LUN files give (the config made them agree). */
    public NvmeLimits forSubsystem(DeviceKnobs knobs) {
        if (knobs.session().isEmpty()) {
            return this;
        }
        return new NvmeLimits(
                (int) (long) knobs.session(Session.IN_CAPSULE_DATA).orElse((long) ioInCapsuleDataBytes),
                adminInCapsuleDataBytes,
                (int) (long) knobs.session(Session.MDTS).orElse((long) maxDataTransferBytes),
                maxH2CDataBytes,
                (int) (long) knobs.session(Session.IO_QUEUES).orElse((long) maxIoQueues),
                (int) (long) knobs.session(Session.QUEUE_SIZE).orElse((long) maxQueueEntries));
    }
}
