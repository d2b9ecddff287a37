package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.OptionalInt;

/**
 * A designation descriptor (SPC-4 §7.8.6.1, Table 603): byte 0 PROTOCOL IDENTIFIER (7-4) and CODE
 * SET (3-0); byte 1 PIV (7), ASSOCIATION (5-4), DESIGNATOR TYPE (3-0); byte 3 DESIGNATOR LENGTH.
 * PIV = 1 exactly when a protocol identifier is given, which SPC-4 allows only for the target port
 * and target device associations.
 */
public sealed interface Designator permits Designator.NaaRegisteredExtended, Designator.T10VendorId,
        Designator.RelativeTargetPort, Designator.TargetPortGroup, Designator.ScsiNameString {

    /** PROTOCOL IDENTIFIER of iSCSI (SPC-4 §7.6.1, Table 446). */
    int PROTOCOL_ISCSI = 0x5;

    int CODE_SET_BINARY = 1;
    int CODE_SET_ASCII = 2;
    int CODE_SET_UTF8 = 3;

    /** ASSOCIATION field (SPC-4 Table 605). */
    enum Association {
        LOGICAL_UNIT(0), TARGET_PORT(1), TARGET_DEVICE(2);

        private final int code;

        Association(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    Association association();

    OptionalInt protocolIdentifier();

    int codeSet();

    int designatorType();

    int designatorLength();

    void encodeDesignator(ByteBuf out);

    default void encode(ByteBuf out) {
        OptionalInt protocol = protocolIdentifier();
        out.writeByte(protocol.orElse(0) << 4 | codeSet());
        out.writeByte((protocol.isPresent() ? 0x80 : 0) | association().code() << 4 | designatorType());
        out.writeByte(0);
        out.writeByte(designatorLength());
        encodeDesignator(out);
    }

    private static OptionalInt checkedProtocol(Association association, OptionalInt protocol) {
        if (protocol.isPresent() && association == Association.LOGICAL_UNIT) {
            throw new IllegalArgumentException("PIV is only valid for target port / target device designators");
        }
        return protocol;
    }

    /**
     * NAA IEEE Registered Extended, NAA 6h (SPC-4 §7.8.6.6.5, Table 614): 24-bit IEEE COMPANY_ID,
     * 36-bit VENDOR SPECIFIC IDENTIFIER, 64-bit VENDOR SPECIFIC IDENTIFIER EXTENSION. Linux builds
     * /dev/disk/by-id/wwn-0x6… from it.
     */
    record NaaRegisteredExtended(int companyId, long vendorSpecificId, long vendorSpecificIdExtension)
            implements Designator {
        public NaaRegisteredExtended {
            if ((companyId & ~0xFFFFFF) != 0 || (vendorSpecificId & ~0xF_FFFF_FFFFL) != 0) {
                throw new IllegalArgumentException("COMPANY_ID is 24 bits, VENDOR SPECIFIC IDENTIFIER 36 bits");
            }
        }

        @Override public Association association() { return Association.LOGICAL_UNIT; }
        @Override public OptionalInt protocolIdentifier() { return OptionalInt.empty(); }
        @Override public int codeSet() { return CODE_SET_BINARY; }
        @Override public int designatorType() { return 0x3; }
        @Override public int designatorLength() { return 16; }

        @Override
        public void encodeDesignator(ByteBuf out) {
            out.writeByte(0x60 | companyId >>> 20);                               // NAA 6h, COMPANY_ID 23-20
            out.writeShort(companyId >>> 4 & 0xFFFF);                             // COMPANY_ID 19-4
            out.writeByte((companyId & 0xF) << 4 | (int) (vendorSpecificId >>> 32)); // COMPANY_ID 3-0, VSID 35-32
            out.writeInt((int) vendorSpecificId);                                 // VSID 31-0
            out.writeLong(vendorSpecificIdExtension);                             // VSID EXTENSION
        }
    }

    /** T10 vendor ID based (SPC-4 §7.8.6.4): 8-byte T10 VENDOR IDENTIFICATION, then vendor specific ASCII. */
    record T10VendorId(String vendorId, String vendorSpecific) implements Designator {
        public T10VendorId {
            WireText.ascii(vendorSpecific);
            if (WireText.ascii(vendorId).length > 8 || 8 + vendorSpecific.length() > 255) {
                throw new IllegalArgumentException("T10 vendor ID designator too long");
            }
        }

        @Override public Association association() { return Association.LOGICAL_UNIT; }
        @Override public OptionalInt protocolIdentifier() { return OptionalInt.empty(); }
        @Override public int codeSet() { return CODE_SET_ASCII; }
        @Override public int designatorType() { return 0x1; }
        @Override public int designatorLength() { return 8 + vendorSpecific.length(); }

        @Override
        public void encodeDesignator(ByteBuf out) {
            WireText.writeAsciiPadded(out, vendorId, 8);
            out.writeBytes(WireText.ascii(vendorSpecific));
        }
    }

    /** Relative target port identifier (SPC-4 §7.8.6.7): 2 reserved bytes, 2-byte identifier (0 is reserved). */
    record RelativeTargetPort(int relativeTargetPortId, OptionalInt protocolIdentifier) implements Designator {
        public RelativeTargetPort {
            if (relativeTargetPortId < 1 || relativeTargetPortId > 0xFFFF) {
                throw new IllegalArgumentException("relative target port identifier 1..65535");
            }
        }

        @Override public Association association() { return Association.TARGET_PORT; }
        @Override public int codeSet() { return CODE_SET_BINARY; }
        @Override public int designatorType() { return 0x4; }
        @Override public int designatorLength() { return 4; }

        @Override
        public void encodeDesignator(ByteBuf out) {
            out.writeShort(0);
            out.writeShort(relativeTargetPortId);
        }
    }

    /** Target port group (SPC-4 §7.8.6.8): 2 reserved bytes, 2-byte TARGET PORT GROUP. */
    record TargetPortGroup(int targetPortGroup, OptionalInt protocolIdentifier) implements Designator {
        public TargetPortGroup {
            if (targetPortGroup < 0 || targetPortGroup > 0xFFFF) {
                throw new IllegalArgumentException("target port group 0..65535");
            }
        }

        @Override public Association association() { return Association.TARGET_PORT; }
        @Override public int codeSet() { return CODE_SET_BINARY; }
        @Override public int designatorType() { return 0x5; }
        @Override public int designatorLength() { return 4; }

        @Override
        public void encodeDesignator(ByteBuf out) {
            out.writeShort(0);
            out.writeShort(targetPortGroup);
        }
    }

    /**
     * SCSI name string (SPC-4 §7.8.6.11): UTF-8, null-terminated, zero-padded to a multiple of 4.
     * For iSCSI the target device name is the iSCSI name and the target port name is
     * {@code <name>,t,0x<TPGT as 4 hex digits>} (RFC 7143 §13.4 / SPC-4 Table 627).
     */
    record ScsiNameString(Association association, OptionalInt protocolIdentifier, String name)
            implements Designator {
        public ScsiNameString {
            checkedProtocol(association, protocolIdentifier);
            if (WireText.nullTerminatedPadded4Length(name) > 252) {
                throw new IllegalArgumentException("SCSI name string longer than 252 bytes: " + name);
            }
        }

        /** The iSCSI target port name: {@code iqn…,t,0x0001}. */
        public static ScsiNameString iscsiTargetPort(String targetName, int tpgt) {
            return new ScsiNameString(Association.TARGET_PORT, OptionalInt.of(PROTOCOL_ISCSI),
                    targetName + ",t,0x" + String.format("%04x", tpgt));
        }

        /** The iSCSI target device name. */
        public static ScsiNameString iscsiTargetDevice(String targetName) {
            return new ScsiNameString(Association.TARGET_DEVICE, OptionalInt.of(PROTOCOL_ISCSI), targetName);
        }

        @Override public int codeSet() { return CODE_SET_UTF8; }
        @Override public int designatorType() { return 0x8; }
        @Override public int designatorLength() { return WireText.nullTerminatedPadded4Length(name); }

        @Override
        public void encodeDesignator(ByteBuf out) {
            WireText.writeNullTerminatedPadded4(out, name);
        }
    }
}
