package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.Reservations;
import io.blocktarget.protocol.nvme.CopyCommand;
import io.blocktarget.protocol.nvme.CopyCommand.SourceRange;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

import java.util.List;

/**
 * Copy (NVM Command Set §3.2.2) with source range entries in format 0h (OCFS bit 0): the source ranges are read in
 * order into one buffer (a copy, not slices of backend memory), then written at SDLBA — so overlapping source and
 * destination copy what the sources held before the command. The limits advertised in Identify Namespace are enforced here from the same numbers
 * ({@link #limits}): more than MSRC + 1 ranges, a range longer than MSSRL or more than MCL blocks in all is
 * Command Size Limit Exceeded (SCT 1h SC 83h). MCL × LBS is MDTS, so one Copy buffers at most what one Write may
 * carry.
 */
final class NvmCopy {
    /** MSRC, 0's based: 128 source ranges (4 KiB of range entries). */
    static final int MSRC = 127;

    private final Controller controller;
    private final NvmIo io;

    NvmCopy(Controller controller, NvmIo io) {
        this.controller = controller;
        this.io = io;
    }

    /** MSSRL / MCL / MSRC for a namespace of {@code lbs}-byte blocks: MCL blocks fill MDTS. */
    static CopyCommand.Limits limits(NvmeLimits limits, int lbs) {
        long mcl = Math.max(1, limits.maxDataTransferBytes() / lbs);
        return new CopyCommand.Limits((int) Math.min(mcl, 0xFFFF), mcl, MSRC);
    }

    void execute(Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        Parsed<CopyCommand> parsed = CopyCommand.parse(sqe);
        Namespace ns = io.resolve(parsed, CopyCommand::nsid, done);
        if (ns == null) {
            return;
        }
        CopyCommand command = parsed.orNull();
        BlockGeometry g = ns.geometry();
        CopyCommand.Limits limits = limits(controller.limits(), g.logicalBlockSize());
        if (command.ranges() > limits.msrc() + 1) {
            Replies.status(done, NvmeStatus.COMMAND_SIZE_LIMIT_EXCEEDED);
            return;
        }
        if (dataOut == null || dataOut.readableBytes() < command.dataLength()) {
            Replies.status(done, NvmeStatus.DATA_TRANSFER_ERROR);
            return;
        }
        Parsed<List<SourceRange>> ranges = command.parseRanges(dataOut);
        if (!(ranges instanceof Parsed.Ok<List<SourceRange>>(List<SourceRange> list))) {
            Replies.invalid(done, ranges);
            return;
        }
        long total = 0;
        for (SourceRange r : list) {
            if (r.blocks() > limits.mssrl()) {
                Replies.status(done, NvmeStatus.COMMAND_SIZE_LIMIT_EXCEEDED);
                return;
            }
            total += r.blocks();
        }
        if (total > limits.mcl()) {
            Replies.status(done, NvmeStatus.COMMAND_SIZE_LIMIT_EXCEEDED);
            return;
        }
        for (SourceRange r : list) {
            NvmeStatus range = ReadWriteCommand.checkRange(r.slba(), r.blocks(), g.blockCount());
            if (!range.isSuccess()) {
                Replies.status(done, range);
                return;
            }
        }
        NvmeStatus destination = ReadWriteCommand.checkRange(command.sdlba(), total, g.blockCount());
        if (!destination.isSuccess()) {
            Replies.status(done, destination);
            return;
        }
        BlockDevice device = ns.device();
        if (device.readOnly()) {
            Replies.status(done, NvmeStatus.NAMESPACE_IS_WRITE_PROTECTED);
            return;
        }
        // Copy is in the write command group of the reservation figure (NVMe Base §8.1.22)
        if (io.reservationConflict(ns, Reservations.Access.WRITE, done)) {
            return;
        }
        CompositeByteBuf gathered = ByteBufAllocator.DEFAULT.compositeBuffer(list.size());
        boolean fua = command.fua() || !controller.features().writeCacheEnabled();
        long blocks = total;
        readNext(device, list, 0, gathered, (ignored, failure) -> {
            if (failure != null) {
                gathered.release();
                io.fail(done, failure);
                return;
            }
            // the destination takes the range lock shared with SCSI, like a Write: a COMPARE AND WRITE of these
            // blocks stays atomic against the copy
            ns.state().rangeLocks().acquireShared(command.sdlba(), blocks, lease ->
                    device.write(command.sdlba(), gathered, fua, (none, writeFailure) -> {
                        lease.release();
                        gathered.release();
                        if (writeFailure != null) {
                            io.fail(done, writeFailure);
                        } else {
                            // TP4146: the destination is placed by DTYPE / DSPEC (CDW12 23:20, CDW13 31:16)
                            Fdp.written(ns, sqe, command.sdlba(), blocks);
                            Replies.status(done, NvmeStatus.SUCCESS);
                        }
                    }));
        });
    }

    /** Reads source range {@code index} and the rest after it into {@code into}, then calls {@code then}. */
    private static void readNext(BlockDevice device, List<SourceRange> ranges, int index, CompositeByteBuf into,
                                 io.blocktarget.block.IoCallback<Void> then) {
        if (index == ranges.size()) {
            then.complete(null, null);
            return;
        }
        SourceRange r = ranges.get(index);
        device.read(r.slba(), r.blocks(), (data, failure) -> {
            if (failure != null) {
                then.complete(null, failure);
                return;
            }
            // a RAM read is a slice of backend memory: snapshot it, or a destination overlapping this source would
            // change the data while it is being written
            ByteBuf snapshot = ByteBufAllocator.DEFAULT.buffer(data.readableBytes());
            snapshot.writeBytes(data);
            data.release();
            into.addComponent(true, snapshot);
            readNext(device, ranges, index + 1, into, then);
        });
    }
}
