package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.blocktarget.protocol.scsi.SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
import static io.blocktarget.protocol.scsi.SenseReason.PARAMETER_LIST_LENGTH_ERROR;

/**
 * A MODE SELECT parameter list (SPC-4 §6.9, §7.5.5), parsed against the pages the logical unit has.
 * SPC-4 §6.9.1: a field the initiator may not change must come back with its current value, or the
 * command fails with INVALID FIELD IN PARAMETER LIST pointing at the bit. That rule is applied here
 * byte by byte: {@code (requested XOR current) AND NOT changeable} must be zero.
 *
 * @param pages the pages sent, decoded (the caller applies them in order)
 */
public record ModeSelectParameters(Optional<BlockDescriptor> blockDescriptor, List<ModePage> pages) {

    public ModeSelectParameters {
        pages = List.copyOf(pages);
    }

    /**
     * @param list       exactly the PARAMETER LIST LENGTH bytes received (readable bytes; indices untouched)
     * @param current    the current values of every page the logical unit has
     * @param changeable the changeable-values mask of each page, same page codes as {@code current}
     * @param geometry   the medium's block descriptor: a descriptor sent must match it (its NUMBER OF
     *                   LOGICAL BLOCKS may also be 0, "no change"); we cannot reformat
     */
    public static Parsed<ModeSelectParameters> parse(ByteBuf list, boolean tenByte, List<ModePage> current,
                                                     List<ModePage> changeable, BlockDescriptor geometry) {
        int base = list.readerIndex();
        int length = list.readableBytes();
        if (length == 0) {
            return Parsed.ok(new ModeSelectParameters(Optional.empty(), List.of()));
        }
        int headerLength = tenByte ? 8 : 4;
        if (length < headerLength) {
            return Parsed.invalid(PARAMETER_LIST_LENGTH_ERROR);
        }
        // MODE DATA LENGTH is reserved for MODE SELECT and the DEVICE-SPECIFIC PARAMETER (WP, DPOFUA)
        // is ignored for it (SBC-4 §6.4.1); MEDIUM TYPE must be 00h for a block device.
        int mediumTypeOffset = tenByte ? 2 : 1;
        if (list.getUnsignedByte(base + mediumTypeOffset) != 0) {
            return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(mediumTypeOffset, 7));
        }
        boolean longLba = tenByte && (list.getUnsignedByte(base + 4) & 0x01) != 0;
        int descriptorLength = tenByte ? list.getUnsignedShort(base + 6) : list.getUnsignedByte(base + 3);
        int descriptorLengthOffset = tenByte ? 6 : 3;
        int expected = longLba ? BlockDescriptor.LONG_LENGTH : BlockDescriptor.SHORT_LENGTH;
        if (descriptorLength != 0 && descriptorLength != expected) {
            return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(descriptorLengthOffset, 7));
        }
        if (headerLength + descriptorLength > length) {
            return Parsed.invalid(PARAMETER_LIST_LENGTH_ERROR);
        }
        Optional<BlockDescriptor> descriptor = Optional.empty();
        if (descriptorLength != 0) {
            int at = base + headerLength;
            BlockDescriptor sent = longLba ? BlockDescriptor.decodeLong(list, at) : BlockDescriptor.decodeShort(list, at);
            if (sent.numberOfBlocks() != 0 && sent.numberOfBlocks() != Math.min(geometry.numberOfBlocks(),
                    longLba ? Long.MAX_VALUE : 0xFFFF_FFFFL)) {
                return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(headerLength, 7));
            }
            if (sent.blockLength() != geometry.blockLength()) {
                return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST,
                        FieldPointer.parameter(headerLength + (longLba ? 12 : 5), 7));
            }
            descriptor = Optional.of(sent);
        }
        List<ModePage> pages = new ArrayList<>();
        int offset = headerLength + descriptorLength;
        while (offset < length) {
            Parsed<ModePage> page = parsePage(list, base, offset, length, current, changeable);
            if (page instanceof Parsed.Invalid<ModePage>(SenseReason reason, Optional<FieldPointer> pointer)) {
                return new Parsed.Invalid<>(reason, pointer);
            }
            ModePage decoded = ((Parsed.Ok<ModePage>) page).value();
            pages.add(decoded);
            offset += 2 + decoded.pageLength();
        }
        return Parsed.ok(new ModeSelectParameters(descriptor, pages));
    }

    private static Parsed<ModePage> parsePage(ByteBuf list, int base, int offset, int length,
                                              List<ModePage> current, List<ModePage> changeable) {
        if (length - offset < 2) {
            return Parsed.invalid(PARAMETER_LIST_LENGTH_ERROR);
        }
        int b0 = list.getUnsignedByte(base + offset);
        if ((b0 & 0x80) != 0) { // PS is reserved in MODE SELECT (SPC-4 §7.5.7)
            return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(offset, 7));
        }
        if ((b0 & 0x40) != 0) { // SPF: no subpages here
            return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(offset, 6));
        }
        int pageCode = b0 & 0x3F;
        Optional<ModePage> cur = current.stream().filter(p -> p.pageCode() == pageCode).findFirst();
        Optional<ModePage> mask = changeable.stream().filter(p -> p.pageCode() == pageCode).findFirst();
        if (cur.isEmpty() || mask.isEmpty()) {
            return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(offset, 5));
        }
        int pageLength = list.getUnsignedByte(base + offset + 1);
        if (pageLength != cur.get().pageLength()) {
            return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(offset + 1, 7));
        }
        if (offset + 2 + pageLength > length) {
            return Parsed.invalid(PARAMETER_LIST_LENGTH_ERROR);
        }
        byte[] currentBytes = encoded(cur.get());
        byte[] maskBytes = encoded(mask.get());
        for (int i = 2; i < 2 + pageLength; i++) {
            int bad = (list.getUnsignedByte(base + offset + i) ^ currentBytes[i]) & ~maskBytes[i] & 0xFF;
            if (bad != 0) {
                return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST,
                        FieldPointer.parameter(offset + i, 31 - Integer.numberOfLeadingZeros(bad)));
            }
        }
        return Parsed.ok(ModePage.decode(pageCode, list.slice(base + offset, 2 + pageLength)));
    }

    private static byte[] encoded(ModePage page) {
        ByteBuf buf = Unpooled.buffer(2 + page.pageLength());
        try {
            page.encode(buf);
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }
}
