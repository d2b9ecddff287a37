package io.blocktarget.protocol.nvme;

import io.blocktarget.protocol.WireCode;

import java.util.Optional;

/**
 * Zone states as the Zone Descriptor's ZS field (byte 1 bits 7:4) carries them (ZNS §2.1.1, Figure "Zone State
 * Values"); the same numbers as Linux's BLK_ZONE_COND_*, which is why the host copies ZS >> 4 straight in.
 */
public enum ZoneState implements WireCode {
    EMPTY(0x1), IMPLICITLY_OPENED(0x2), EXPLICITLY_OPENED(0x3), CLOSED(0x4), READ_ONLY(0xD), FULL(0xE), OFFLINE(0xF);

    private final int code;

    ZoneState(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<ZoneState> of(int code) {
        return WireCode.lookup(ZoneState.class, code);
    }

    /** Whether the Write Pointer field of the descriptor is valid (ZNS §3.4.2.2.3: not in Full, Read Only, Offline). */
    public boolean writePointerValid() {
        return this != FULL && this != READ_ONLY && this != OFFLINE;
    }
}
