package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * The FDP Events feature (Feature Identifier 1Eh; NVMe Base 2.1 "FDP Events", TP4146), per namespace: CDW11 bits 15:0
 * PHNDL (the placement handle whose events are meant) and bits 23:16 NOET (how many event types the data holds).
 * Get Features returns NOET Supported FDP Events descriptors — 2 bytes: FDPET (the event type) and FDPETA bit 0
 * (enabled) — and the count of descriptors in completion DW0; Set Features sends NOET event-type bytes and CDW12
 * bit 0 FDPEE: enable (1) or disable (0) them.
 *
 * @param placementHandle    PHNDL
 * @param numberOfEventTypes NOET
 */
public record FdpEventsFeature(int placementHandle, int numberOfEventTypes) {
    public static final int FEATURE_ID = 0x1E;
    public static final int DESCRIPTOR_SIZE = 2;
    /** CDW12 bit 0 of Set Features: enable the listed event types. */
    public static final int FDPEE = 1;

    public FdpEventsFeature {
        if (placementHandle < 0 || placementHandle > 0xFFFF || numberOfEventTypes < 0 || numberOfEventTypes > 0xFF) {
            throw new IllegalArgumentException("PHNDL / NOET out of range");
        }
    }

    public static FdpEventsFeature fromCdw11(int cdw11) {
        return new FdpEventsFeature(cdw11 & 0xFFFF, cdw11 >>> 16 & 0xFF);
    }

    public int toCdw11() {
        return placementHandle | numberOfEventTypes << 16;
    }

    /** A Supported FDP Events descriptor of the Get Features data. */
    public record SupportedEvent(int type, boolean enabled) {
        public SupportedEvent {
            if (type < 0 || type > 0xFF) {
                throw new IllegalArgumentException("FDPET " + type);
            }
        }

        public void encode(ByteBuf out) {
            out.writeByte(type).writeByte(enabled ? 1 : 0);
        }
    }

    /** The Get Features data: the descriptors in order. */
    public static void encodeSupported(ByteBuf out, List<SupportedEvent> events) {
        for (SupportedEvent e : events) {
            e.encode(out);
        }
    }

    /**
     * The Set Features data: NOET event types, one byte each; INVALID_FIELD when the host sent fewer bytes.
     * {@code data} is read from its reader index and not consumed.
     */
    public Parsed<List<Integer>> eventTypes(ByteBuf data) {
        if (data.readableBytes() < numberOfEventTypes) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        List<Integer> types = new ArrayList<>(numberOfEventTypes);
        for (int i = 0; i < numberOfEventTypes; i++) {
            types.add((int) data.getUnsignedByte(data.readerIndex() + i));
        }
        return Parsed.ok(List.copyOf(types));
    }
}
