package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * SET TARGET PORT GROUPS parameter list (SPC-5 §6.41, Table "SET TARGET PORT GROUPS parameter list format"): 4 reserved
 * bytes, then set target port group descriptors of 4 bytes each — byte 0 bits 3-0 ASYMMETRIC ACCESS STATE, byte 1
 * reserved, bytes 2-3 TARGET PORT GROUP OR TARGET PORT (a target port group for a primary state, a relative target port
 * identifier for offline, the one secondary state).
 */
public record SetTargetPortGroupsParameters(List<Descriptor> descriptors) {
    /** The header's length and each descriptor's. */
    public static final int HEADER_LENGTH = 4;
    public static final int DESCRIPTOR_LENGTH = 4;

    /** One descriptor; {@code offset}: its first byte in the parameter list (for field pointers). */
    public record Descriptor(int state, int groupOrPort, int offset) {
    }

    public SetTargetPortGroupsParameters {
        descriptors = List.copyOf(descriptors);
    }

    /**
     * The descriptors of {@code list} (its readable bytes: the whole parameter list). A list that ends inside the
     * header or a descriptor is PARAMETER LIST LENGTH ERROR (1Ah/00h); reserved bits are not checked (SPC-5 §4.5.1:
     * a device server may ignore them).
     */
    public static Parsed<SetTargetPortGroupsParameters> parse(ByteBuf list) {
        int length = list.readableBytes();
        if (length < HEADER_LENGTH || (length - HEADER_LENGTH) % DESCRIPTOR_LENGTH != 0) {
            return Parsed.invalid(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        }
        int base = list.readerIndex();
        List<Descriptor> descriptors = new ArrayList<>();
        for (int off = HEADER_LENGTH; off < length; off += DESCRIPTOR_LENGTH) {
            descriptors.add(new Descriptor(list.getUnsignedByte(base + off) & 0x0F,
                    list.getUnsignedShort(base + off + 2), off));
        }
        return Parsed.ok(new SetTargetPortGroupsParameters(descriptors));
    }

    /** The list as an initiator sends it (tests). */
    public void encode(ByteBuf out) {
        out.writeZero(HEADER_LENGTH);
        for (Descriptor d : descriptors) {
            out.writeByte(d.state() & 0x0F).writeByte(0).writeShort(d.groupOrPort());
        }
    }
}
