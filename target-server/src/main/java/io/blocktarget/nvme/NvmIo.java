package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.Reservations;
import io.blocktarget.block.lun.CommandStats;
import io.blocktarget.protocol.nvme.DatasetManagementCommand;
import io.blocktarget.protocol.nvme.DatasetManagementCommand.DsmRange;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvme.WriteZeroesCommand;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToIntFunction;

/**
 * The NVM command set on I/O queues (NVM Command Set §3): Read, Write, Compare, Flush, Write Zeroes and
 * Dataset Management over the namespace's block device. Parse (the protocol records), check against the
 * namespace (NSID active, LBA range, MDTS, SGL length = NLB × LBS), then execute; backend failures map
 * through {@link BlockStatus}.
 *
 * <p>Data the host sends: the SGL length is checked by the parse (Data SGL Length Invalid, DNR); if the
 * transport then hands over fewer bytes than that, the transfer itself failed and the command completes
 * with Data Transfer Error (no DNR: a retry may succeed). Extra bytes are ignored.
 */
final class NvmIo {
    private static final long NSID_ALL = 0xFFFF_FFFFL;

    private final Controller controller;
    private final NvmMediaCommands media;
    private final NvmCopy copy;
    private final ZonedCommands zoned;
    private final NvmeFaults faults;
    /** {@link #dispatch} as the fault rules' continuation, made once: a method reference per command allocates. */
    private final NvmeFaults.Dispatch dispatch = this::dispatch;

    NvmIo(Controller controller) {
        this.controller = controller;
        this.faults = new NvmeFaults(controller);
        this.media = new NvmMediaCommands(controller, this);
        this.copy = new NvmCopy(controller, this);
        this.zoned = new ZonedCommands(controller, this);
    }

    /** The fault rules' hook of this controller (Abort, resets and the Error log reach held commands through it). */
    NvmeFaults faults() {
        return faults;
    }

    /**
     * The NVM command {@code r}: once it addresses an active namespace, its LUN step starts ({@link
     * NvmeRequest#enterLun}: counted in the device for as long as it executes, so a removal can drain it; a draining
     * namespace is as good as gone), then the namespace's ANA state on this port, the fault rules, and the command.
     */
    void execute(NvmeRequest r) {
        Sqe sqe = r.sqe();
        Namespace addressed = controller.subsystem().namespace(Integer.toUnsignedLong(sqe.nsid()));
        if (addressed != null) {
            if (!addressed.supports(sqe.opcode())) {
                // advertise == enforce: an optional command the namespace's knobs switch off (ONCS bit clear)
                Replies.status(r, NvmeStatus.INVALID_OPCODE);
                return;
            }
            if (!r.enterLun(addressed, controller)) {
                Replies.status(r, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
                return;
            }
            // the namespace's ANA state on this controller's port (Base 2.x §8.1.1.3-5): one volatile read
            NvmeStatus asymmetric = Ana.refusal(Ana.stateOn(addressed, controller));
            if (asymmetric != null) {
                Replies.status(r, asymmetric);
                return;
            }
            if (faults.intercept(addressed, r, dispatch)) {
                return;
            }
        }
        dispatch(sqe, r.dataOut(), r);
    }

    /**
     * The opcode class an I/O command is counted in (NVM Command Set §3.3): Read; Write; Flush; Dataset Management
     * (deallocate) as unmap; everything else (Write Zeroes, Compare, Verify, Copy, zone and reservation commands)
     * other.
     */
    static CommandStats.OpClass opClass(int opcode) {
        return switch (opcode) {
            case 0x02 -> CommandStats.OpClass.READ;
            case 0x01 -> CommandStats.OpClass.WRITE;
            case 0x00 -> CommandStats.OpClass.FLUSH;
            case 0x09 -> CommandStats.OpClass.UNMAP;
            default -> CommandStats.OpClass.OTHER;
        };
    }

    /**
     * A fused operation (Base §3.4.2), paired by the transport: the only one is Compare and Write (NVM Command Set
     * §3.2.3, FUSES bit 0) — a Compare (FUSE first) and a Write (FUSE second) of the same LBA range of one namespace.
     * Any other pair, or ranges that differ, is Invalid Field in Command for both, as are both when the namespace's
     * knobs switch Compare off (FUSES then says 0). Fault rules do not apply to a fused pair.
     */
    void executeFused(NvmeRequest firstDone, NvmeRequest secondDone) {
        Sqe first = firstDone.sqe();
        Sqe second = secondDone.sqe();
        Namespace ns = namespace(first.nsid());
        boolean compareAndWrite = first.opcode() == NvmOpcode.COMPARE.code()
                && second.opcode() == NvmOpcode.WRITE.code() && first.nsid() == second.nsid()
                && first.cdw10() == second.cdw10() && first.cdw11() == second.cdw11()
                && (first.cdw12() & 0xFFFF) == (second.cdw12() & 0xFFFF);
        if (!compareAndWrite || ns != null && !ns.supports(NvmOpcode.COMPARE)) {
            Replies.status(firstDone, NvmeStatus.INVALID_FIELD);
            Replies.status(secondDone, NvmeStatus.INVALID_FIELD);
            return;
        }
        if (ns == null) {
            Replies.status(firstDone, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
            Replies.status(secondDone, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
            return;
        }
        NvmeStatus asymmetric = Ana.refusal(Ana.stateOn(ns, controller));
        if (asymmetric != null) {
            Replies.status(firstDone, asymmetric);
            Replies.status(secondDone, asymmetric);
            return;
        }
        if (!firstDone.enterLun(ns, controller)) {
            Replies.status(firstDone, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
            Replies.status(secondDone, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
            return;
        }
        if (!secondDone.enterLun(ns, controller)) {
            Replies.status(firstDone, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
            Replies.status(secondDone, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
            return;
        }
        compareAndWrite(ns, first, firstDone.dataOut(), firstDone, second, secondDone.dataOut(), secondDone);
    }

    /**
     * Compare and Write (NVM Command Set §3.2.3 with Base §3.4.2): under the LBA range lock both command sets share,
     * taken exclusively — the lock a SCSI COMPARE AND WRITE takes, so the two exclude each other, and no write,
     * unmap or write zeroes of either protocol runs in between — read and compare; on a miscompare (or any failure
     * of the Compare) the Write is not run and ends Command Aborted due to Failed Fused Command; else the Write is
     * applied, all or nothing where the backend can (a RAM LUN's copy-on-write path: the lock is rounded out to its
     * chunks, as {@link io.blocktarget.block.AtomicWrites#write} does), and its outcome is the second completion's
     * only: the Compare's status stands whatever the Write does.
     */
    private void compareAndWrite(Namespace ns, Sqe first, ByteBuf firstData, NvmeCompletion done1, Sqe second,
                                 ByteBuf secondData, NvmeCompletion done2) {
        Parsed<ReadWriteCommand> parsedCompare = ReadWriteCommand.parse(first);
        if (!(parsedCompare instanceof Parsed.Ok<ReadWriteCommand>(ReadWriteCommand compare))) {
            Replies.invalid(done1, parsedCompare);
            Replies.status(done2, NvmeStatus.ABORTED_FAILED_FUSED);
            return;
        }
        int lbs = ns.geometry().logicalBlockSize();
        NvmeLimits limits = controller.limits();
        NvmeStatus valid = compare.validate(ns.geometry().blockCount(), lbs, limits.maxDataTransferBytes(),
                limits.ioInCapsuleDataBytes());
        int length = (int) compare.transferLength(lbs);
        if (valid.isSuccess() && (firstData == null || firstData.readableBytes() < length)) {
            valid = NvmeStatus.DATA_TRANSFER_ERROR;
        }
        if (valid.isSuccess() && conflicts(ns, Reservations.Access.READ)) {
            valid = NvmeStatus.RESERVATION_CONFLICT;
        }
        if (!valid.isSuccess()) {
            Replies.status(done1, valid);
            Replies.status(done2, NvmeStatus.ABORTED_FAILED_FUSED);
            return;
        }
        // the Write's own checks: a failure there fails the Write only (the Compare still runs, Base §3.4.2)
        Parsed<ReadWriteCommand> parsedWrite = ReadWriteCommand.parse(second);
        NvmeStatus writeStatus = parsedWrite instanceof Parsed.Ok<ReadWriteCommand>(ReadWriteCommand w)
                ? w.validate(ns.geometry().blockCount(), lbs, limits.maxDataTransferBytes(),
                        limits.ioInCapsuleDataBytes())
                : parsedWrite.status();
        if (writeStatus.isSuccess() && (secondData == null || secondData.readableBytes() < length)) {
            writeStatus = NvmeStatus.DATA_TRANSFER_ERROR;
        }
        if (writeStatus.isSuccess() && conflicts(ns, Reservations.Access.WRITE)) {
            writeStatus = NvmeStatus.RESERVATION_CONFLICT;
        }
        NvmeStatus writeRefused = writeStatus.isSuccess() ? null : writeStatus;
        boolean fua = parsedWrite.orNull() != null && parsedWrite.orNull().fua()
                || !controller.features().writeCacheEnabled();
        BlockDevice device = ns.device();
        boolean atomic = ns.zones() == null && device.atomicWriteGranule() > 0;
        long granule = atomic ? device.atomicWriteGranule() : 1;
        long lba = compare.slba();
        int blocks = compare.blocks();
        long lockFirst = lba - lba % granule;
        long last = lba + blocks - 1;                          // validated: no overflow
        long lockEnd = last - last % granule + granule;
        ByteBuf expected = firstData.slice(firstData.readerIndex(), length);
        Subsystem stats = controller.subsystem();
        ns.state().rangeLocks().acquireExclusive(lockFirst, lockEnd - lockFirst, lease ->
                device.read(lba, blocks, (stored, failure) -> {
                    if (failure != null) {
                        lease.release();
                        fail(done1, failure);
                        Replies.status(done2, NvmeStatus.ABORTED_FAILED_FUSED);
                        return;
                    }
                    boolean same = ByteBufUtil.equals(stored, expected);
                    stored.release();
                    stats.readCommands.increment();
                    stats.bytesRead.add(length);
                    if (!same || writeRefused != null) {
                        lease.release();
                        Replies.status(done1, same ? NvmeStatus.SUCCESS : NvmeStatus.COMPARE_FAILURE);
                        Replies.status(done2, same ? writeRefused : NvmeStatus.ABORTED_FAILED_FUSED);
                        return;
                    }
                    ByteBuf data = secondData.slice(secondData.readerIndex(), length);
                    IoCallback<Void> written = (ignored, writeFailure) -> {
                        lease.release();
                        Replies.status(done1, NvmeStatus.SUCCESS);
                        if (writeFailure != null) {
                            fail(done2, writeFailure);
                        } else {
                            stats.writeCommands.increment();
                            stats.bytesWritten.add(length);
                            Fdp.written(ns, second, lba, blocks);
                            Replies.status(done2, NvmeStatus.SUCCESS);
                        }
                    };
                    if (atomic) {
                        device.writeAtomic(lba, data, fua, written);
                    } else {
                        device.write(lba, data, fua, written);
                    }
                }));
    }

    /** Whether the host's {@code access} conflicts with the namespace's reservation (no completion). */
    private boolean conflicts(Namespace ns, Reservations.Access access) {
        Reservations reservations = ns.state().reservations();
        return !reservations.quiet() && reservations.conflicts(controller.registrant(), access);
    }

    private void dispatch(Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        NvmOpcode opcode = NvmOpcode.of(sqe.opcode()).orElse(null);
        if (opcode == null) {
            Replies.status(done, NvmeStatus.INVALID_OPCODE);
            return;
        }
        switch (opcode) {
            case READ, WRITE, COMPARE -> readWrite(sqe, dataOut, done);
            case FLUSH -> flush(sqe, done);
            case WRITE_ZEROES -> writeZeroes(sqe, done);
            case DATASET_MANAGEMENT -> datasetManagement(sqe, dataOut, done);
            case VERIFY -> media.verify(sqe, done);
            case WRITE_UNCORRECTABLE -> media.writeUncorrectable(sqe, done);
            case COPY -> copy.execute(sqe, dataOut, done);
            case ZONE_MANAGEMENT_SEND -> zoned.send(sqe, done);
            case ZONE_MANAGEMENT_RECEIVE -> zoned.receive(sqe, done);
            case ZONE_APPEND -> zoned.append(sqe, dataOut, done);
            case IO_MANAGEMENT_RECEIVE, IO_MANAGEMENT_SEND -> ioManagement(opcode, sqe, dataOut, done);
            case RESERVATION_REGISTER, RESERVATION_REPORT, RESERVATION_ACQUIRE, RESERVATION_RELEASE ->
                    controller.reservations().execute(sqe, dataOut, done);
            default -> Replies.status(done, NvmeStatus.INVALID_OPCODE);
        }
    }

    /**
     * The namespace a parsed command addresses, or null after completing the command with the parse failure
     * or Invalid Namespace or Format (an inactive NSID, NVM Command Set §3.3).
     */
    <T> Namespace resolve(Parsed<T> parsed, ToIntFunction<T> nsid, NvmeCompletion done) {
        if (!(parsed instanceof Parsed.Ok<T>(T command))) {
            Replies.invalid(done, parsed);
            return null;
        }
        Namespace ns = namespace(nsid.applyAsInt(command));
        if (ns == null) {
            Replies.status(done, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        }
        return ns;
    }

    /**
     * Whether the host's {@code access} conflicts with the namespace's reservation (NVMe Base §8.1.22, Figure
     * "Command Behavior in the Presence of a Reservation"; the same state SCSI persistent reservations use),
     * after completing the command with Reservation Conflict. One volatile read while nothing is reserved.
     */
    boolean reservationConflict(Namespace ns, Reservations.Access access, NvmeCompletion done) {
        Reservations reservations = ns.state().reservations();
        if (reservations.quiet() || !reservations.conflicts(controller.registrant(), access)) {
            return false;
        }
        Replies.status(done, NvmeStatus.RESERVATION_CONFLICT);
        return true;
    }

    private Namespace namespace(int nsid) {
        return controller.subsystem().namespace(Integer.toUnsignedLong(nsid));
    }

    private void readWrite(Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        Parsed<ReadWriteCommand> parsed = ReadWriteCommand.parse(sqe);
        Namespace ns = resolve(parsed, ReadWriteCommand::nsid, done);
        if (ns == null) {
            return;
        }
        ReadWriteCommand command = parsed.orNull();
        int lbs = ns.geometry().logicalBlockSize();
        NvmeLimits limits = controller.limits();
        NvmeStatus valid = command.validate(ns.geometry().blockCount(), lbs, limits.maxDataTransferBytes(),
                limits.ioInCapsuleDataBytes());
        if (!valid.isSuccess()) {
            Replies.status(done, valid);
            return;
        }
        if (reservationConflict(ns, command.opcode() == NvmOpcode.WRITE ? Reservations.Access.WRITE
                : Reservations.Access.READ, done)) {
            return;
        }
        int length = (int) command.transferLength(lbs);
        BlockDevice device = ns.device();
        Subsystem stats = controller.subsystem();
        if (command.opcode() == NvmOpcode.READ) {
            device.read(command.slba(), command.blocks(), (data, failure) -> {
                if (failure != null) {
                    fail(done, failure);
                } else {
                    stats.readCommands.increment();
                    stats.bytesRead.add(length);
                    done.complete(NvmeStatus.SUCCESS, 0, 0, data);
                }
            });
            return;
        }
        if (dataOut == null || dataOut.readableBytes() < length) {
            Replies.status(done, NvmeStatus.DATA_TRANSFER_ERROR);
            return;
        }
        ByteBuf data = dataOut.slice(dataOut.readerIndex(), length);
        if (command.opcode() == NvmOpcode.COMPARE) {
            device.read(command.slba(), command.blocks(), (stored, failure) -> {
                if (failure != null) {
                    fail(done, failure);
                    return;
                }
                boolean same = ByteBufUtil.equals(stored, data);
                stored.release();
                // SMART: Compare is a host read command and its blocks are data units read
                stats.readCommands.increment();
                stats.bytesRead.add(length);
                Replies.status(done, same ? NvmeStatus.SUCCESS : NvmeStatus.COMPARE_FAILURE);
            });
            return;
        }
        // With the volatile write cache disabled (Set Features VWC WCE = 0) every write is written through.
        boolean fua = command.fua() || !controller.features().writeCacheEnabled();
        if (NvmeAtomics.applies(ns, command.slba(), command.blocks())) {
            // within NAWUN and not across an NABSN boundary: all or nothing (NVM Command Set §2.1.4.1)
            io.blocktarget.block.AtomicWrites.write(ns.state().rangeLocks(), device, command.slba(), data, fua,
                    (ignored, failure) -> {
                        if (failure != null) {
                            fail(done, failure);
                        } else {
                            stats.writeCommands.increment();
                            stats.bytesWritten.add(length);
                            Fdp.written(ns, sqe, command.slba(), command.blocks());
                            Replies.status(done, NvmeStatus.SUCCESS);
                        }
                    });
            return;
        }
        // the range lock shared with SCSI: a COMPARE AND WRITE of these blocks is atomic against this write
        ns.state().rangeLocks().acquireShared(command.slba(), command.blocks(), lease ->
                device.write(command.slba(), data, fua, (ignored, failure) -> {
                    lease.release();
                    if (failure != null) {
                        fail(done, failure);
                    } else {
                        stats.writeCommands.increment();
                        stats.bytesWritten.add(length);
                        Fdp.written(ns, sqe, command.slba(), command.blocks());
                        Replies.status(done, NvmeStatus.SUCCESS);
                    }
                }));
    }

    /**
     * I/O Management Receive / Send (TP4146): Invalid Opcode in a subsystem without FDP (as before it), else RUH
     * Status / RUH Update of the namespace ({@link Fdp}).
     */
    private void ioManagement(NvmOpcode opcode, Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        if (!Fdp.enabled(controller.subsystem())) {
            Replies.status(done, NvmeStatus.INVALID_OPCODE);
            return;
        }
        Namespace ns = namespace(sqe.nsid());
        if (ns == null) {
            Replies.status(done, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        } else if (opcode == NvmOpcode.IO_MANAGEMENT_RECEIVE) {
            Fdp.receive(ns, sqe, controller.limits().maxDataTransferBytes(), done);
        } else {
            Fdp.send(ns, sqe, dataOut, done);
        }
    }

    /** Flush (NVM Command Set §3.2.4); NSID FFFFFFFFh flushes every namespace (VWC bits 2:1 = 11b). */
    private void flush(Sqe sqe, NvmeCompletion done) {
        if (Integer.toUnsignedLong(sqe.nsid()) == NSID_ALL) {
            List<Namespace> all = List.copyOf(controller.subsystem().namespaces().values());
            AtomicInteger left = new AtomicInteger(all.size());
            AtomicReference<BlockIoException> first = new AtomicReference<>();
            if (all.isEmpty()) {
                Replies.status(done, NvmeStatus.SUCCESS);
            }
            for (Namespace ns : all) {
                ns.device().flush((ignored, failure) -> {
                    if (failure != null) {
                        first.compareAndSet(null, failure);
                    }
                    if (left.decrementAndGet() == 0) {
                        complete(done, first.get());
                    }
                });
            }
            return;
        }
        Namespace ns = namespace(sqe.nsid());
        if (ns == null) {
            Replies.status(done, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
            return;
        }
        if (reservationConflict(ns, Reservations.Access.WRITE, done)) {
            return; // Flush is in the write command group of the reservation figure
        }
        ns.device().flush((ignored, failure) -> complete(done, failure));
    }

    /** Write Zeroes (NVM Command Set §3.2.8): DEAC deallocates (reads return zeros, DLFEAT); FUA then flushes. */
    private void writeZeroes(Sqe sqe, NvmeCompletion done) {
        Parsed<WriteZeroesCommand> parsed = WriteZeroesCommand.parse(sqe);
        Namespace ns = resolve(parsed, WriteZeroesCommand::nsid, done);
        if (ns == null) {
            return;
        }
        WriteZeroesCommand command = parsed.orNull();
        NvmeStatus valid = command.validate(ns.geometry().blockCount());
        if (!valid.isSuccess()) {
            Replies.status(done, valid);
            return;
        }
        if (reservationConflict(ns, Reservations.Access.WRITE, done)) {
            return;
        }
        BlockDevice device = ns.device();
        ns.state().rangeLocks().acquireShared(command.slba(), command.blocks(), lease -> {
            IoCallback<Void> then = (ignored, failure) -> {
                lease.release();
                if (failure == null && command.deac()) {
                    Fdp.deallocated(ns, command.slba(), command.blocks());
                } else if (failure == null) {
                    Fdp.written(ns, sqe, command.slba(), command.blocks());
                }
                if (failure == null && command.fua() && device.volatileWriteCache()) {
                    device.flush((none, flushFailure) -> complete(done, flushFailure));
                } else {
                    complete(done, failure);
                }
            };
            if (command.deac()) {
                device.unmap(List.of(new BlockRange(command.slba(), command.blocks())), then);
            } else {
                device.writeZeroes(command.slba(), command.blocks(), then);
            }
        });
    }

    /** Dataset Management (NVM Command Set §3.2.2): AD deallocates the ranges; IDR / IDW hints are accepted. */
    private void datasetManagement(Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        Parsed<DatasetManagementCommand> parsed = DatasetManagementCommand.parse(sqe);
        Namespace ns = resolve(parsed, DatasetManagementCommand::nsid, done);
        if (ns == null) {
            return;
        }
        DatasetManagementCommand command = parsed.orNull();
        if (command.ad() && reservationConflict(ns, Reservations.Access.WRITE, done)) {
            return; // deallocation changes the blocks; the hints alone do not
        }
        if (dataOut == null || dataOut.readableBytes() < command.dataLength()) {
            Replies.status(done, NvmeStatus.DATA_TRANSFER_ERROR);
            return;
        }
        Parsed<List<DsmRange>> ranges = command.parseRanges(dataOut, ns.geometry().blockCount());
        if (!(ranges instanceof Parsed.Ok<List<DsmRange>>(List<DsmRange> list))) {
            Replies.invalid(done, ranges);
            return;
        }
        List<BlockRange> deallocate = new ArrayList<>(list.size());
        for (DsmRange r : list) {
            if (r.length() != 0) {
                deallocate.add(new BlockRange(r.slba(), r.lengthUnsigned()));
            }
        }
        if (!command.ad() || deallocate.isEmpty()) {
            Replies.status(done, NvmeStatus.SUCCESS);
            return;
        }
        long first = Long.MAX_VALUE;
        long end = 0;
        for (BlockRange r : deallocate) {
            first = Math.min(first, r.lba());
            end = Math.max(end, r.lba() + r.count());
        }
        ns.state().rangeLocks().acquireShared(first, end - first, lease -> ns.device().unmap(deallocate,
                (ignored, failure) -> {
                    lease.release();
                    if (failure == null) {
                        deallocate.forEach(r -> Fdp.deallocated(ns, r.lba(), r.count()));
                    }
                    complete(done, failure);
                }));
    }

    private void complete(NvmeCompletion done, BlockIoException failure) {
        if (failure == null) {
            Replies.status(done, NvmeStatus.SUCCESS);
        } else {
            fail(done, failure);
        }
    }

    void fail(NvmeCompletion done, BlockIoException failure) {
        if (failure.error() == BlockError.READ_ERROR || failure.error() == BlockError.WRITE_ERROR) {
            controller.subsystem().mediaErrors.increment();
        }
        Replies.status(done, BlockStatus.of(failure.error()));
    }
}
