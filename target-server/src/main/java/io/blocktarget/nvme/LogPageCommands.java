package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.ChangedZoneList;
import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.protocol.nvme.AnaLogPage;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.LogPages;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.ReservationNotification;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.List;
import java.util.function.Consumer;
import io.blocktarget.protocol.nvme.DiscoveryLog;

/**
 * Get Log Page (Base §5.16): each page is encoded whole and the requested window (LPO, NUMD) cut from it,
 * zero filled past its end; an offset beyond the page is Invalid Field. NVM controllers serve Error
 * Information, SMART / Health, Firmware Slot, Changed Namespace List, Commands Supported and Effects (per CSI) and
 * Changed Zone List (BFh); the
 * discovery controller serves the Discovery log (70h). Anything else is Invalid Log Page.
 */
final class LogPageCommands {
    private static final long NSID_ALL = 0xFFFF_FFFFL;

    private LogPageCommands() {
    }

    static void execute(Controller controller, Sqe sqe, NvmeCompletion done) {
        Parsed<GetLogPageCommand> parsed = GetLogPageCommand.parse(sqe);
        if (!(parsed instanceof Parsed.Ok<GetLogPageCommand>(GetLogPageCommand command))) {
            Replies.invalid(done, parsed);
            return;
        }
        if (command.lengthBytes() > controller.limits().maxDataTransferBytes()) {
            // more than MDTS in one command (Base §5.16: the transfer is bounded by MDTS)
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        if (controller.isDiscovery()) {
            if (command.lid() != GetLogPageCommand.LID_DISCOVERY) {
                Replies.status(done, NvmeStatus.INVALID_LOG_PAGE);
                return;
            }
            DiscoveryLog page = controller.target().discoveryLog(controller);
            reply(command, done, page.size(), page::encode);
            controller.events().discoveryLogRead(command.rae());
            return;
        }
        switch (command.lid()) {
            case GetLogPageCommand.LID_ERROR_INFORMATION -> reply(command, done,
                    ErrorLog.ENTRIES * LogPages.ERROR_ENTRY_SIZE, controller.errors()::encode);
            case GetLogPageCommand.LID_SMART_HEALTH -> {
                long nsid = Integer.toUnsignedLong(command.nsid());
                if (nsid != 0 && nsid != NSID_ALL) {
                    // LPA bit 0 clear: no per-namespace SMART (Base §5.16.1.3)
                    Replies.status(done, NvmeStatus.INVALID_FIELD);
                } else {
                    reply(command, done, LogPages.SMART_SIZE, out -> smart(controller).encode(out));
                }
            }
            case GetLogPageCommand.LID_FIRMWARE_SLOT -> reply(command, done, LogPages.FIRMWARE_SLOT_SIZE,
                    out -> LogPages.encodeFirmwareSlots(out, 1, List.of(ControllerConstants.FIRMWARE)));
            case GetLogPageCommand.LID_CHANGED_NAMESPACE_LIST -> {
                List<Integer> changed = controller.events().readChangedNamespaces(command.rae());
                reply(command, done, LogPages.CHANGED_NAMESPACES_SIZE,
                        out -> LogPages.encodeChangedNamespaces(out, changed));
            }
            case GetLogPageCommand.LID_COMMANDS_SUPPORTED_AND_EFFECTS -> {
                // one page per command set, CSI in CDW14 (Base 2.0 §5.16.1.6); Linux reads CSI 02h for a zoned
                // namespace and makes it read-only unless Zone Append is supported there (drivers/nvme/host/zns.c)
                int[] io = switch (command.csi()) {
                    case IdentifyCommand.CSI_NVM -> ioEffects(controller, IO_EFFECTS);
                    case IdentifyCommand.CSI_ZNS -> ioEffects(controller, ZNS_IO_EFFECTS);
                    default -> null;
                };
                if (io == null) {
                    Replies.status(done, NvmeStatus.INVALID_FIELD);
                } else {
                    reply(command, done, LogPages.COMMAND_EFFECTS_SIZE,
                            out -> LogPages.encodeCommandEffects(out, ADMIN_EFFECTS, io));
                }
            }
            case GetLogPageCommand.LID_CHANGED_ZONE_LIST -> {
                // namespace scoped (ZNS §5.3.1): an active zoned namespace, else Invalid Field
                Namespace ns = controller.subsystem().namespace(Integer.toUnsignedLong(command.nsid()));
                if (ns == null || ns.zones() == null) {
                    Replies.status(done, NvmeStatus.INVALID_FIELD);
                } else {
                    List<Long> zones = controller.changedZones().read(ns.nsid(), command.rae());
                    reply(command, done, ChangedZoneList.SIZE, out -> ChangedZoneList.encode(out, zones));
                }
            }
            case GetLogPageCommand.LID_ANA -> {
                // LSP bit 0, RGO: descriptors without NSIDs (Base 2.x §5.16.1.12); other LSP bits are reserved
                if ((command.lsp() & ~AnaLogPage.LSP_RGO) != 0) {
                    Replies.status(done, NvmeStatus.INVALID_FIELD);
                } else {
                    boolean rgo = (command.lsp() & AnaLogPage.LSP_RGO) != 0;
                    AnaLogPage page = Ana.logPage(controller);
                    reply(command, done, page.size(rgo), out -> page.encode(out, rgo));
                    controller.events().anaLogRead(command.rae());
                }
            }
            case ReservationNotification.LID -> controller.reservations().logPage(command,
                    encoder -> reply(command, done, ReservationNotification.SIZE, encoder));
            case FdpConfigurationsLogIds.CONFIGURATIONS, FdpConfigurationsLogIds.RUH_USAGE,
                 FdpConfigurationsLogIds.STATISTICS, FdpConfigurationsLogIds.EVENTS ->
                    Fdp.logPage(controller, command, done, (size, encoder) -> reply(command, done, size, encoder));
            default -> Replies.status(done, NvmeStatus.INVALID_LOG_PAGE);
        }
    }

    /** The FDP log page identifiers as constants a switch can take (TP4146). */
    private static final class FdpConfigurationsLogIds {
        static final int CONFIGURATIONS = io.blocktarget.protocol.nvme.FdpConfigurationsLog.LOG_PAGE_ID;
        static final int RUH_USAGE = io.blocktarget.protocol.nvme.RuhUsageLog.LOG_PAGE_ID;
        static final int STATISTICS = io.blocktarget.protocol.nvme.FdpStatisticsLog.LOG_PAGE_ID;
        static final int EVENTS = io.blocktarget.protocol.nvme.FdpEventsLog.LOG_PAGE_ID;
    }

    /** Encodes the whole page, then completes with the window the command asked for. */
    private static void reply(GetLogPageCommand command, NvmeCompletion done, int pageSize, Consumer<ByteBuf> encoder) {
        ByteBuf page = ByteBufAllocator.DEFAULT.buffer(pageSize, pageSize);
        try {
            encoder.accept(page);
            Parsed<ByteBuf> window = LogPages.slice(page, command.lpo(), command.lengthBytes(), ByteBufAllocator.DEFAULT);
            if (window instanceof Parsed.Ok<ByteBuf>(ByteBuf data)) {
                done.complete(NvmeStatus.SUCCESS, 0, 0, data);
            } else {
                Replies.invalid(done, window);
            }
        } finally {
            page.release();
        }
    }

    /**
     * SMART / Health (Base §5.16.1.3): the subsystem's data units and host commands (Read, Compare, Verify / Write),
     * its media and data integrity errors (unrecovered reads, write faults only), and this controller's lifetime
     * count of Error Information log entries.
     */
    private static LogPages.Smart smart(Controller controller) {
        Subsystem s = controller.subsystem();
        return new LogPages.Smart(0, 0, 100, 10, 0, LogPages.Smart.dataUnits(s.bytesRead.sum()),
                LogPages.Smart.dataUnits(s.bytesWritten.sum()), s.readCommands.sum(), s.writeCommands.sum(), 0, 0,
                0, s.mediaErrors.sum(), controller.errors().errorCount());
    }

    private static final int[] ADMIN_EFFECTS = new int[256];
    private static final int[] IO_EFFECTS = new int[256];

    /** The I/O commands supported, without the ones the subsystem's knobs switch off (as ONCS says). */
    /** {@code base} (the NVM or the ZNS command set's page) without the commands the subsystem's knobs switch off. */
    private static int[] ioEffects(Controller controller, int[] base) {
        if (controller.isDiscovery()) {
            return base;
        }
        io.blocktarget.config.DeviceKnobs knobs = controller.subsystem().knobs();
        int[] effects = base.clone();
        if (Fdp.enabled(controller.subsystem())) {
            // TP4146: RUH Status reads, RUH Update changes no logical block content
            effects[NvmOpcode.IO_MANAGEMENT_RECEIVE.code()] = LogPages.EFFECT_CSUPP;
            effects[NvmOpcode.IO_MANAGEMENT_SEND.code()] = LogPages.EFFECT_CSUPP;
        }
        for (NvmOpcode op : NvmOpcode.values()) {
            if (!Namespace.supports(knobs, op)) {
                effects[op.code()] = 0;
            }
        }
        return effects;
    }

    static {
        for (AdminOpcode op : List.of(AdminOpcode.GET_LOG_PAGE, AdminOpcode.IDENTIFY, AdminOpcode.ABORT,
                AdminOpcode.SET_FEATURES, AdminOpcode.GET_FEATURES, AdminOpcode.ASYNC_EVENT_REQUEST,
                AdminOpcode.KEEP_ALIVE)) {
            ADMIN_EFFECTS[op.code()] = LogPages.EFFECT_CSUPP;
        }
        for (NvmOpcode op : List.of(NvmOpcode.FLUSH, NvmOpcode.READ, NvmOpcode.COMPARE, NvmOpcode.VERIFY,
                NvmOpcode.RESERVATION_REGISTER, NvmOpcode.RESERVATION_REPORT, NvmOpcode.RESERVATION_ACQUIRE,
                NvmOpcode.RESERVATION_RELEASE)) {
            IO_EFFECTS[op.code()] = LogPages.EFFECT_CSUPP;
        }
        // commands that change logical block content (LBCC)
        for (NvmOpcode op : List.of(NvmOpcode.WRITE, NvmOpcode.WRITE_ZEROES, NvmOpcode.DATASET_MANAGEMENT,
                NvmOpcode.COPY, NvmOpcode.WRITE_UNCORRECTABLE)) {
            IO_EFFECTS[op.code()] = LogPages.EFFECT_CSUPP | LogPages.EFFECT_LBCC;
        }
    }

    /** CSI 02h: the NVM commands (zoned namespaces take them all, under the zone rules) and the three of ZNS §3.4. */
    private static final int[] ZNS_IO_EFFECTS = IO_EFFECTS.clone();

    static {
        ZNS_IO_EFFECTS[NvmOpcode.ZONE_MANAGEMENT_RECEIVE.code()] = LogPages.EFFECT_CSUPP;
        ZNS_IO_EFFECTS[NvmOpcode.ZONE_MANAGEMENT_SEND.code()] = LogPages.EFFECT_CSUPP | LogPages.EFFECT_LBCC;
        ZNS_IO_EFFECTS[NvmOpcode.ZONE_APPEND.code()] = LogPages.EFFECT_CSUPP | LogPages.EFFECT_LBCC;
    }
}
