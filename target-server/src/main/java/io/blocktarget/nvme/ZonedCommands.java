package io.blocktarget.nvme;

import io.blocktarget.block.BlockError;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.Reservations;
import io.blocktarget.block.Zone;
import io.blocktarget.block.ZoneCondition;
import io.blocktarget.block.Zones;
import io.blocktarget.block.fault.FaultBlockDevice;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvme.ZoneAppendCommand;
import io.blocktarget.protocol.nvme.ZoneDescriptor;
import io.blocktarget.protocol.nvme.ZoneManagementReceiveCommand;
import io.blocktarget.protocol.nvme.ZoneManagementReceiveCommand.ReportingOption;
import io.blocktarget.protocol.nvme.ZoneManagementSendCommand;
import io.blocktarget.protocol.nvme.ZoneReport;
import io.blocktarget.protocol.nvme.ZoneState;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.ArrayList;
import java.util.List;

/**
 * The commands the Zoned Namespace Command Set adds (ZNS §3.4): Zone Management Send, Zone Management Receive and
 * Zone Append, over the zone state of the namespace's device ({@link Zones}, shared with SCSI ZBC). The NVM commands
 * need nothing here: the zoned device checks their writes and reads against the write pointers itself, and
 * {@link BlockStatus} turns its refusals into the ZNS status codes.
 *
 * <p>The commands are those of a namespace whose command set the host enabled: on a namespace that is not zoned, or
 * while CC.CSS = 000b (NVM only), they are Invalid Command Opcode (Base §3.3.2: opcodes of a set not enabled).
 */
final class ZonedCommands {
    private final Controller controller;
    private final NvmIo io;

    ZonedCommands(Controller controller, NvmIo io) {
        this.controller = controller;
        this.io = io;
    }

    /** The zone state of the addressed namespace, or null after completing the command. */
    private Zones zones(Namespace ns, NvmeCompletion done) {
        Zones zones = ns.zones();
        if (zones == null || !controller.zonedCommandSetEnabled()) {
            Replies.status(done, NvmeStatus.INVALID_OPCODE);
            return null;
        }
        return zones;
    }

    // ---------------------------------------------------------------------------------------- Zone Management Send

    /**
     * Zone Management Send (ZNS §3.4.3): Close, Finish, Open, Reset, Offline of the zone starting at SLBA or, with
     * Select All, of every zone in the action's source states. SLBA must be a zone's lowest LBA (Invalid Field) inside
     * the namespace (LBA Out of Range). No zone descriptor extensions (ZDES 0) and no ZRWA: those actions are Invalid
     * Field.
     */
    void send(Sqe sqe, NvmeCompletion done) {
        Parsed<ZoneManagementSendCommand> parsed = ZoneManagementSendCommand.parse(sqe);
        Namespace ns = io.resolve(parsed, ZoneManagementSendCommand::nsid, done);
        if (ns == null) {
            return;
        }
        Zones zones = zones(ns, done);
        if (zones == null) {
            return;
        }
        ZoneManagementSendCommand command = parsed.orNull();
        if (command.zsa() == ZoneManagementSendCommand.Action.SET_ZONE_DESCRIPTOR_EXTENSION
                || command.zsa() == ZoneManagementSendCommand.Action.FLUSH_EXPLICIT_ZRWA_RANGE) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        if (io.reservationConflict(ns, Reservations.Access.WRITE, done)) {
            return; // the zone actions change logical blocks (reset, finish): the write group
        }
        BlockError error;
        if (command.selectAll()) {
            error = switch (command.zsa()) {
                case CLOSE -> zones.closeAll();
                case FINISH -> zones.finishAll();
                case OPEN -> zones.openAll();
                case RESET -> zones.resetAll();
                case OFFLINE -> offlineAll(zones);
                default -> throw new IllegalStateException(command.zsa().name());
            };
        } else {
            NvmeStatus range = ReadWriteCommand.checkRange(command.slba(), 1, zones.blockCount());
            if (!range.isSuccess()) {
                Replies.status(done, range);
                return;
            }
            int index = zones.zoneIndex(command.slba());
            if (zones.zone(index).start() != command.slba()) {
                Replies.status(done, NvmeStatus.INVALID_FIELD); // ZNS §3.4.3: SLBA is the zone's lowest LBA
                return;
            }
            error = switch (command.zsa()) {
                case CLOSE -> zones.close(index);
                case FINISH -> zones.finish(index);
                case OPEN -> zones.open(index);
                case RESET -> zones.reset(index);
                case OFFLINE -> offline(zones, index);
                default -> throw new IllegalStateException(command.zsa().name());
            };
        }
        Replies.status(done, error == null ? NvmeStatus.SUCCESS : BlockStatus.of(error));
    }

    /**
     * Offline Zone (ZNS §2.1.1.7): only a Read Only zone goes Offline at the host's request; an Offline one stays, any
     * other state is Invalid Zone State Transition.
     */
    private static BlockError offline(Zones zones, int index) {
        return switch (zones.zone(index).condition()) {
            case READ_ONLY -> zones.setOffline(index);
            case OFFLINE -> null;
            default -> BlockError.ZONE_INVALID_STATE_TRANSITION;
        };
    }

    /** Offline with Select All: every Read Only zone. */
    private static BlockError offlineAll(Zones zones) {
        for (int i = 0; i < zones.zoneCount(); i++) {
            if (zones.zone(i).condition() == ZoneCondition.READ_ONLY) {
                BlockError error = zones.setOffline(i);
                if (error != null) {
                    return error;
                }
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------------- Zone Management Receive

    /**
     * Report Zones (ZNS §3.4.2.2): from the zone containing SLBA to the end of the namespace, the zones the reporting
     * option selects, as many as the buffer holds; NZ counts those transferred (Partial Report) or all that match.
     * Extended Report Zones needs descriptor extensions (ZDES 0 here): Invalid Field. The buffer is bounded by MDTS.
     */
    void receive(Sqe sqe, NvmeCompletion done) {
        Parsed<ZoneManagementReceiveCommand> parsed = ZoneManagementReceiveCommand.parse(sqe);
        Namespace ns = io.resolve(parsed, ZoneManagementReceiveCommand::nsid, done);
        if (ns == null) {
            return;
        }
        Zones zones = zones(ns, done);
        if (zones == null) {
            return;
        }
        ZoneManagementReceiveCommand command = parsed.orNull();
        if (command.zra() != ZoneManagementReceiveCommand.Action.REPORT_ZONES
                || command.lengthBytes() > controller.limits().maxDataTransferBytes()) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        NvmeStatus range = ReadWriteCommand.checkRange(command.slba(), 1, zones.blockCount());
        if (!range.isSuccess()) {
            Replies.status(done, range);
            return;
        }
        if (io.reservationConflict(ns, Reservations.Access.READ, done)) {
            return;
        }
        int length = (int) command.lengthBytes();
        long room = ZoneReport.capacity(length, ZoneDescriptor.SIZE);
        ReportingOption option = command.zrasf();
        List<ZoneDescriptor> listed = new ArrayList<>();
        long matching = 0;
        for (Zone zone : zones.zones(zones.zoneIndex(command.slba()), zones.zoneCount())) {
            ZoneState state = state(zone.condition());
            if (!option.matches(state)) {
                continue;
            }
            matching++;
            if (listed.size() < room) {
                listed.add(ZoneDescriptor.of(state, 0, zone.capacity(), zone.start(), zone.writePointer()));
            } else if (command.partial()) {
                break; // NZ counts what was transferred: no need to look further
            }
        }
        long nz = command.partial() ? listed.size() : matching;
        Replies.data(done, length, out -> ZoneReport.encode(out, nz, listed, 0, length));
    }

    /** The ZNS zone state of a model condition (the same codes, ZNS §2.1.1). */
    static ZoneState state(ZoneCondition condition) {
        return ZoneState.of(condition.code()).orElseThrow(
                () -> new IllegalStateException("no ZNS zone state for " + condition));
    }

    // ------------------------------------------------------------------------------------------------ Zone Append

    /**
     * Zone Append (ZNS §3.4.1): writes at the write pointer of the zone starting at ZSLBA (else Invalid Field), at
     * most ZASL bytes (else Invalid Field), and completes with the LBA written in DW0 / DW1. The zone rules are those
     * of a write at the write pointer.
     */
    void append(Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        Parsed<ZoneAppendCommand> parsed = ZoneAppendCommand.parse(sqe);
        Namespace ns = io.resolve(parsed, ZoneAppendCommand::nsid, done);
        if (ns == null) {
            return;
        }
        Zones zones = zones(ns, done);
        if (zones == null) {
            return;
        }
        ZoneAppendCommand command = parsed.orNull();
        int lbs = ns.geometry().logicalBlockSize();
        NvmeStatus valid = command.validate(zones.blockCount(), lbs, ZonedIdentify.zoneAppendLimitBytes(controller),
                controller.limits().ioInCapsuleDataBytes());
        if (!valid.isSuccess()) {
            Replies.status(done, valid);
            return;
        }
        int index = zones.zoneIndex(command.zslba());
        long zoneStart = zones.zone(index).start();
        if (zoneStart != command.zslba()) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        if (io.reservationConflict(ns, Reservations.Access.WRITE, done)) {
            return;
        }
        int length = (int) command.transferLength(lbs);
        if (dataOut == null || dataOut.readableBytes() < length) {
            Replies.status(done, NvmeStatus.DATA_TRANSFER_ERROR);
            return;
        }
        ByteBuf data = dataOut.slice(dataOut.readerIndex(), length);
        boolean fua = command.fua() || !controller.features().writeCacheEnabled();
        Subsystem stats = controller.subsystem();
        // through the LUN's device fault rules (torn-write of kind zone-append) when its device applies them
        FaultBlockDevice faulty = ns.device() instanceof FaultBlockDevice f ? f : null;
        // the blocks land somewhere in the zone: hold the whole zone against COMPARE AND WRITE / atomic ranges
        ns.state().rangeLocks().acquireShared(zoneStart, zones.zoneSize(), lease -> {
            IoCallback<Long> appended = (lba, failure) -> {
                lease.release();
                if (failure != null) {
                    io.fail(done, failure);
                } else {
                    stats.writeCommands.increment();
                    stats.bytesWritten.add(length);
                    done.complete(NvmeStatus.SUCCESS, ZoneAppendCommand.assignedLbaDw0(lba),
                            ZoneAppendCommand.assignedLbaDw1(lba), null);
                }
            };
            if (faulty != null) {
                faulty.append(zones, index, data, fua, appended);
            } else {
                zones.append(index, data, fua, appended);
            }
        });
    }
}
