package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.FeatureCommand;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.FeatureValue;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.Sqe;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Set / Get Features of one controller (Base §5.27 / §5.15). NVM controllers support Arbitration, Power
 * Management, Temperature Threshold, Volatile Write Cache (when a namespace has one), Number of Queues,
 * Interrupt Coalescing, Async Event Configuration and Keep Alive Timer; the discovery controller the last
 * two. Other FIDs are Invalid Field in Command. Nothing is saveable (SV is refused by the parser), so SEL
 * "saved" returns the default. Values that have no effect over fabrics (arbitration, coalescing) are kept
 * and returned as set.
 */
final class Features {
    private static final Set<FeatureId> NVM = EnumSet.of(FeatureId.ARBITRATION, FeatureId.POWER_MANAGEMENT,
            FeatureId.TEMPERATURE_THRESHOLD, FeatureId.VOLATILE_WRITE_CACHE, FeatureId.NUMBER_OF_QUEUES,
            FeatureId.INTERRUPT_COALESCING, FeatureId.ASYNC_EVENT_CONFIGURATION, FeatureId.KEEP_ALIVE_TIMER,
            FeatureId.IO_COMMAND_SET_PROFILE);
    private static final Set<FeatureId> DISCOVERY = EnumSet.of(FeatureId.ASYNC_EVENT_CONFIGURATION,
            FeatureId.KEEP_ALIVE_TIMER);
    /** Get Features SEL 011b result bit 2: the feature is changeable (Base §5.15.2). */
    private static final int CAPABILITY_CHANGEABLE = 1 << 2;
    /** Temperature Threshold TMPSEL: composite temperature (0) or all sensors (Fh). */
    private static final int TMPSEL_COMPOSITE = 0;
    private static final int TMPSEL_ALL = 0xF;
    /** Default over-temperature threshold: 358 K (85 °C), under-temperature 0 K (disabled). */
    private static final int DEFAULT_OVER_THRESHOLD_KELVIN = 358;

    private final Controller controller;
    private final Map<FeatureId, Integer> values = new EnumMap<>(FeatureId.class);
    private int overThreshold = DEFAULT_OVER_THRESHOLD_KELVIN;
    private int underThreshold;
    /** VWC WCE, read lock-free by every write on every I/O queue. */
    private volatile int writeCache = 1;

    Features(Controller controller) {
        this.controller = controller;
    }

    /** Whether writes may complete from the volatile cache (VWC feature WCE; on while the cache exists). */
    boolean writeCacheEnabled() {
        return writeCache != 0;
    }

    private Set<FeatureId> supported() {
        if (controller.isDiscovery()) {
            return DISCOVERY;
        }
        if (!controller.subsystem().volatileWriteCache()) {
            EnumSet<FeatureId> set = EnumSet.copyOf(NVM);
            set.remove(FeatureId.VOLATILE_WRITE_CACHE);
            return set;
        }
        return NVM;
    }

    void execute(Sqe sqe, NvmeCompletion done) {
        execute(sqe, null, done);
    }

    /** {@code dataOut}: the Set Features data (only FDP Events, 1Eh, takes any), or null. */
    void execute(Sqe sqe, io.netty.buffer.ByteBuf dataOut, NvmeCompletion done) {
        Parsed<FeatureCommand> parsed = FeatureCommand.parse(sqe);
        if (!(parsed instanceof Parsed.Ok<FeatureCommand>(FeatureCommand command))) {
            Replies.invalid(done, parsed);
            return;
        }
        if (!controller.isDiscovery() && ReservationCommands.isReservationFeature(command.fid())) {
            controller.reservations().feature(command, done); // 81h..83h, Base §5.27.1.25-27
            return;
        }
        if (!controller.isDiscovery() && Fdp.isFdpFeature(command.fid())) {
            Fdp.feature(controller, command, sqe.cdw12(), dataOut, done); // 1Dh / 1Eh, TP4146
            return;
        }
        if (!supported().contains(command.fid())) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        if (command.opcode() == AdminOpcode.SET_FEATURES) {
            set(command, done);
        } else {
            get(command, done);
        }
    }

    private void set(FeatureCommand command, NvmeCompletion done) {
        Parsed<FeatureValue> parsed = command.value();
        if (!(parsed instanceof Parsed.Ok<FeatureValue>(FeatureValue value))) {
            Replies.invalid(done, parsed);
            return;
        }
        switch (value) {
            case FeatureValue.NumberOfQueues q -> {
                // Base §5.27.1.5: only before I/O queues exist, else Command Sequence Error
                if (controller.connectedIoQueues() > 0) {
                    Replies.status(done, NvmeStatus.COMMAND_SEQUENCE_ERROR);
                    return;
                }
                int granted = controller.grantIoQueues(Math.min(q.nsqr(), q.ncqr()) + 1);
                done.complete(NvmeStatus.SUCCESS, queuesDw0(granted), 0, null);
                return;
            }
            case FeatureValue.KeepAliveTimer k -> controller.setKato(k.katoMillis());
            case FeatureValue.IoCommandSetProfile p -> {
                // Base 2.0 §5.27.1.21: the index must name a combination of Identify CNS 1Ch; there is one (0)
                if (p.iocsci() != ZonedIdentify.COMBINATION_INDEX) {
                    Replies.status(done, NvmeStatus.IO_COMMAND_SET_COMBINATION_REJECTED);
                    return;
                }
                store(value);
            }
            case FeatureValue.AsyncEventConfiguration a -> controller.events().configure(a.bits());
            case FeatureValue.PowerManagement p -> {
                if (p.ps() != 0) { // NPSS = 0: power state 0 only
                    Replies.status(done, NvmeStatus.INVALID_FIELD);
                    return;
                }
                store(value);
            }
            case FeatureValue.VolatileWriteCache v -> {
                writeCache = v.encode();
                store(value);
            }
            case FeatureValue.TemperatureThreshold t -> {
                if (t.tmpsel() != TMPSEL_COMPOSITE && t.tmpsel() != TMPSEL_ALL) {
                    Replies.status(done, NvmeStatus.INVALID_FIELD);
                    return;
                }
                setThreshold(t);
            }
            default -> store(value);
        }
        Replies.status(done, NvmeStatus.SUCCESS);
    }

    private static int queuesDw0(int granted) {
        return granted - 1 | granted - 1 << 16;
    }

    private synchronized void store(FeatureValue value) {
        values.put(value.fid(), value.encode());
    }

    private synchronized void setThreshold(FeatureValue.TemperatureThreshold t) {
        if (t.thsel() == 0) {
            overThreshold = t.tmpth();
        } else {
            underThreshold = t.tmpth();
        }
    }

    private void get(FeatureCommand command, NvmeCompletion done) {
        int dw0 = switch (command.sel()) {
            case FeatureCommand.SEL_CURRENT -> current(command);
            case FeatureCommand.SEL_SUPPORTED_CAPABILITIES -> CAPABILITY_CHANGEABLE;
            default -> defaultValue(command);
        };
        done.complete(NvmeStatus.SUCCESS, dw0, 0, null);
    }

    private int current(FeatureCommand command) {
        return switch (command.fid()) {
            case NUMBER_OF_QUEUES -> queuesDw0(controller.grantedIoQueues());
            case KEEP_ALIVE_TIMER -> (int) controller.katoMillis();
            case ASYNC_EVENT_CONFIGURATION -> controller.events().configuration();
            case TEMPERATURE_THRESHOLD -> threshold(command.cdw11());
            default -> {
                synchronized (this) {
                    yield values.getOrDefault(command.fid(), defaultValue(command));
                }
            }
        };
    }

    private synchronized int threshold(int cdw11) {
        int thsel = cdw11 >>> 20 & 0x3;
        return (thsel == 0 ? overThreshold : underThreshold) | cdw11 & 0x3F_0000;
    }

    private int defaultValue(FeatureCommand command) {
        return switch (command.fid()) {
            case NUMBER_OF_QUEUES -> queuesDw0(controller.limits().maxIoQueues());
            case VOLATILE_WRITE_CACHE -> 1;
            case TEMPERATURE_THRESHOLD -> ((command.cdw11() >>> 20 & 0x3) == 0 ? DEFAULT_OVER_THRESHOLD_KELVIN : 0)
                    | command.cdw11() & 0x3F_0000;
            default -> 0;
        };
    }
}
