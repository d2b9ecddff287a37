package io.blocktarget.protocol.nvme;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** Feature Identifiers (Base §5.27.1, Figure "Feature Identifiers"). */
public enum FeatureId implements WireCode {
    ARBITRATION(0x01), POWER_MANAGEMENT(0x02), LBA_RANGE_TYPE(0x03), TEMPERATURE_THRESHOLD(0x04),
    ERROR_RECOVERY(0x05), VOLATILE_WRITE_CACHE(0x06), NUMBER_OF_QUEUES(0x07), INTERRUPT_COALESCING(0x08),
    INTERRUPT_VECTOR_CONFIGURATION(0x09), WRITE_ATOMICITY_NORMAL(0x0A), ASYNC_EVENT_CONFIGURATION(0x0B),
    AUTONOMOUS_POWER_STATE_TRANSITION(0x0C), TIMESTAMP(0x0E), KEEP_ALIVE_TIMER(0x0F), HOST_BEHAVIOR_SUPPORT(0x16),
    /** Base 2.0 §5.27.1.21: which I/O Command Set Combination (Identify CNS 1Ch) the controller runs. */
    IO_COMMAND_SET_PROFILE(0x19),
    /** TP4146: Flexible Data Placement (FdpMode) and FDP Events (FdpEventsFeature), per endurance group / handle. */
    FDP(0x1D), FDP_EVENTS(0x1E),
    // reservations (Base §5.27.1.25-27): Host Identifier, Reservation Notification Mask, Reservation Persistence
    HOST_IDENTIFIER(0x81), RESERVATION_NOTIFICATION_MASK(0x82), RESERVATION_PERSISTENCE(0x83);

    private final int code;

    FeatureId(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<FeatureId> of(int code) {
        return WireCode.lookup(FeatureId.class, code);
    }
}
