package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.Reservations;
import io.blocktarget.block.UncorrectableBlocks;
import io.blocktarget.protocol.nvme.LbaRangeCommand;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.Sqe;

/**
 * Verify (NVM Command Set §3.2.9) and Write Uncorrectable (§3.2.7): the two NVM commands about the medium itself.
 *
 * <p>Verify reads the range through the device (so a block marked uncorrectable, or a backend read error, fails it
 * with Unrecovered Read Error) and returns no data. Its size is bounded by VSL in the NVM Command Set Identify
 * Controller, which we set to MDTS: the read is buffered (RAM: slices, file: one buffer).
 *
 * <p>Write Uncorrectable marks the range in the device's {@link UncorrectableBlocks}: device state, so SCSI READs
 * of those blocks fail too, until a write, write zeroes or deallocate covers them. Offered (ONCS bit 1) only when
 * every namespace's device keeps such a set.
 */
final class NvmMediaCommands {
    private final Controller controller;
    private final NvmIo io;

    NvmMediaCommands(Controller controller, NvmIo io) {
        this.controller = controller;
        this.io = io;
    }

    /** VSL / MDTS in bytes: the most one Verify may read. */
    static long verifySizeLimitBytes(NvmeLimits limits) {
        return limits.maxDataTransferBytes();
    }

    /** ONCS bit 1: every namespace of the subsystem can mark blocks uncorrectable. */
    static boolean writeUncorrectableSupported(Subsystem subsystem) {
        return !subsystem.namespaces().isEmpty() && subsystem.namespaces().values().stream()
                .allMatch(ns -> ns.device().uncorrectableBlocks().isPresent());
    }

    void verify(Sqe sqe, NvmeCompletion done) {
        Parsed<LbaRangeCommand> parsed = LbaRangeCommand.parse(sqe);
        Namespace ns = io.resolve(parsed, LbaRangeCommand::nsid, done);
        if (ns == null) {
            return;
        }
        LbaRangeCommand command = parsed.orNull();
        NvmeStatus valid = command.validate(ns.geometry().blockCount());
        if (!valid.isSuccess()) {
            Replies.status(done, valid);
            return;
        }
        long bytes = (long) command.blocks() * ns.geometry().logicalBlockSize();
        if (bytes > verifySizeLimitBytes(controller.limits())) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        if (io.reservationConflict(ns, Reservations.Access.READ, done)) {
            return; // Verify is in the read command group (NVMe Base §8.1.22)
        }
        Subsystem stats = controller.subsystem();
        ns.device().read(command.slba(), command.blocks(), (data, failure) -> {
            if (failure != null) {
                io.fail(done, failure);
                return;
            }
            data.release();
            // SMART: Verify is a host read command and its blocks are data units read (NVM Command Set §4.1.4.2)
            stats.readCommands.increment();
            stats.bytesRead.add(bytes);
            Replies.status(done, NvmeStatus.SUCCESS);
        });
    }

    void writeUncorrectable(Sqe sqe, NvmeCompletion done) {
        Parsed<LbaRangeCommand> parsed = LbaRangeCommand.parse(sqe);
        Namespace ns = io.resolve(parsed, LbaRangeCommand::nsid, done);
        if (ns == null) {
            return;
        }
        BlockDevice device = ns.device();
        UncorrectableBlocks blocks = device.uncorrectableBlocks().orElse(null);
        if (blocks == null) {
            Replies.status(done, NvmeStatus.INVALID_OPCODE);
            return;
        }
        LbaRangeCommand command = parsed.orNull();
        NvmeStatus valid = command.validate(ns.geometry().blockCount());
        if (!valid.isSuccess()) {
            Replies.status(done, valid);
            return;
        }
        if (device.readOnly()) {
            Replies.status(done, NvmeStatus.NAMESPACE_IS_WRITE_PROTECTED);
            return;
        }
        if (io.reservationConflict(ns, Reservations.Access.WRITE, done)) {
            return; // Write Uncorrectable is in the write command group (NVMe Base §8.1.22)
        }
        blocks.mark(command.slba(), command.blocks());
        Replies.status(done, NvmeStatus.SUCCESS);
    }

    /** For the error log: the first marked block of a failed read's range, else its SLBA. */
    static long firstBadLba(Namespace ns, long slba, long blocks) {
        long bad = ns.device().uncorrectableBlocks().map(b -> b.firstIn(slba, blocks)).orElse(-1L);
        return bad >= 0 ? bad : slba;
    }
}
