package io.blocktarget.block;

/**
 * Zone conditions (ZBC-2 §4.4.3.1 ZONE CONDITION field; ZNS §2.1.1 zone states). The codes are ZBC's ZONE CONDITION
 * field values; ZNS's Zone State field uses the same values in its upper nibble (ZSE 1h, ZSIO 2h, ZSEO 3h, ZSC 4h,
 * ZSRO Dh, ZSF Eh, ZSO Fh).
 */
public enum ZoneCondition {
    /** A conventional zone (ZBC-2 0h). */
    NOT_WRITE_POINTER(0x0),
    EMPTY(0x1),
    /** Opened by a write; the device may close it to make room for another open zone. */
    IMPLICIT_OPEN(0x2),
    /** Opened by an OPEN ZONE / Zone Management Send Open; stays open until closed, finished or reset. */
    EXPLICIT_OPEN(0x3),
    CLOSED(0x4),
    /** Readable, not writable; reached only through {@link Zones#setReadOnly} (a fault rule), left only by none. */
    READ_ONLY(0xD),
    FULL(0xE),
    /** Neither readable nor writable; reached only through {@link Zones#setOffline}. */
    OFFLINE(0xF);

    private final int code;

    ZoneCondition(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** IMPLICIT_OPEN or EXPLICIT_OPEN: holds an open-zone resource. */
    public boolean isOpen() {
        return this == IMPLICIT_OPEN || this == EXPLICIT_OPEN;
    }

    /** Open or CLOSED: holds an active-zone resource (ZNS §2.1.1.4; ZBC-2 has no active limit). */
    public boolean isActive() {
        return isOpen() || this == CLOSED;
    }
}
