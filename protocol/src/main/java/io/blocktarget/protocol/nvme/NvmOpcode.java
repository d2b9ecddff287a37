package io.blocktarget.protocol.nvme;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/**
 * I/O opcodes of the NVM Command Set (NVM Command Set §3, Figure "Opcodes for NVM Commands") and the three the
 * Zoned Namespace Command Set adds (ZNS §3.4); I/O Management Receive / Send of Flexible Data Placement; 7Fh is
 * Fabrics.
 */
public enum NvmOpcode implements WireCode {
    FLUSH(0x00), WRITE(0x01), READ(0x02), WRITE_UNCORRECTABLE(0x04), COMPARE(0x05), WRITE_ZEROES(0x08),
    DATASET_MANAGEMENT(0x09), VERIFY(0x0C), RESERVATION_REGISTER(0x0D), RESERVATION_REPORT(0x0E),
    RESERVATION_ACQUIRE(0x11), RESERVATION_RELEASE(0x15), COPY(0x19),
    // Flexible Data Placement (TP4146, NVM Command Set 1.1): RUH Status (receive) and RUH Update (send)
    IO_MANAGEMENT_RECEIVE(0x12), IO_MANAGEMENT_SEND(0x1D),
    // Zoned Namespace Command Set (ZNS §3.4, Figure "Opcodes for Zoned Namespace Commands")
    ZONE_MANAGEMENT_SEND(0x79), ZONE_MANAGEMENT_RECEIVE(0x7A), ZONE_APPEND(0x7D),
    FABRICS(0x7F);

    /** Looked up once or twice per command: built once (WireCode.Table). */
    private static final WireCode.Table<NvmOpcode> TABLE = WireCode.Table.of(NvmOpcode.class);

    private final int code;

    NvmOpcode(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<NvmOpcode> of(int code) {
        return TABLE.get(code);
    }
}
