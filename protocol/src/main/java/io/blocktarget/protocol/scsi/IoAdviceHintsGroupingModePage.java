package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * IO Advice Hints Grouping mode page, 0Ah / 05h (SBC-5 §6.5.7), sub_page format (SPC-5 §7.5.7, Table "Sub_page mode
 * page format"): byte 0 PS (7) = 0, SPF (6) = 1, PAGE CODE 0Ah; byte 1 SUBPAGE CODE 05h; bytes 2-3 PAGE LENGTH
 * (n - 3); 4-15 reserved; then one 16-byte IO advice hints group descriptor per GROUP NUMBER from 0:
 * <pre>
 * 0  7:6 IO ADVICE HINTS MODE (00b: the hints below are valid), 2 ST_ENBLE (the group is a stream), 1 CS_ENBLE,
 *    0 IC_ENABLE
 * 1-3 reserved; 4-15 logical block markup descriptor (zero: none)
 * </pre>
 * Linux (sd_read_io_hints) asks MODE SENSE with DBD for this page into a 512-byte buffer, and counts the leading
 * descriptors, from GROUP NUMBER 0, that have ST_ENBLE set and whose stream GET STREAM STATUS reports permanent:
 * that count caps the GROUP NUMBER it derives from a write's lifetime hint. A page longer than its buffer (more than 30
 * descriptors after an 8-byte header) is cut short; kernels before the clamp of the mode data length walk past it.
 */
public record IoAdviceHintsGroupingModePage(List<GroupDescriptor> descriptors) {
    public static final int PAGE_CODE = 0x0A;
    public static final int SUBPAGE_CODE = 0x05;
    public static final int HEADER_SIZE = 16;
    public static final int DESCRIPTOR_SIZE = 16;
    /** One descriptor per GROUP NUMBER (six bits). */
    public static final int MAX_DESCRIPTORS = 64;

    /**
     * @param ioAdviceHintsMode 2 bits, 00b = valid
     * @param stEnble           the GROUP NUMBER names a stream (its stream identifier)
     * @param csEnble           CS_ENBLE
     * @param icEnable          IC_ENABLE
     */
    public record GroupDescriptor(int ioAdviceHintsMode, boolean stEnble, boolean csEnble, boolean icEnable) {
        public static final GroupDescriptor STREAM = new GroupDescriptor(0, true, false, false);
        public static final GroupDescriptor NONE = new GroupDescriptor(0, false, false, false);

        public GroupDescriptor {
            if ((ioAdviceHintsMode & ~0x3) != 0) {
                throw new IllegalArgumentException("IO ADVICE HINTS MODE " + ioAdviceHintsMode);
            }
        }

        public void encode(ByteBuf out) {
            out.writeByte(ioAdviceHintsMode << 6 | (stEnble ? 0x04 : 0) | (csEnble ? 0x02 : 0) | (icEnable ? 0x01 : 0));
            out.writeZero(DESCRIPTOR_SIZE - 1);
        }

        static GroupDescriptor decode(ByteBuf buf, int index) {
            int b0 = buf.getUnsignedByte(index);
            return new GroupDescriptor(b0 >>> 6, (b0 & 0x04) != 0, (b0 & 0x02) != 0, (b0 & 0x01) != 0);
        }
    }

    public IoAdviceHintsGroupingModePage {
        descriptors = List.copyOf(descriptors);
        if (descriptors.size() > MAX_DESCRIPTORS) {
            throw new IllegalArgumentException("at most 64 IO advice hints group descriptors");
        }
    }

    /** Descriptors for GROUP NUMBER 0..{@code groups - 1}, every one a stream. */
    public static IoAdviceHintsGroupingModePage streams(int groups) {
        return new IoAdviceHintsGroupingModePage(java.util.Collections.nCopies(groups, GroupDescriptor.STREAM));
    }

    /** The changeable values (PC = 01b): as many descriptors, nothing changeable. */
    public IoAdviceHintsGroupingModePage changeable() {
        return new IoAdviceHintsGroupingModePage(java.util.Collections.nCopies(descriptors.size(), GroupDescriptor.NONE));
    }

    /** PAGE LENGTH: the bytes after byte 3. */
    public int pageLength() {
        return HEADER_SIZE - 4 + DESCRIPTOR_SIZE * descriptors.size();
    }

    public void encode(ByteBuf out) {
        out.writeByte(0x40 | PAGE_CODE).writeByte(SUBPAGE_CODE).writeShort(pageLength()).writeZero(12);
        for (GroupDescriptor d : descriptors) {
            d.encode(out);
        }
    }

    /**
     * The page as a MODE SELECT parameter list carries it, from {@code page}'s reader index (not consumed): empty when
     * the bytes are not this page (page / subpage code, SPF), the page length is not 12 + a multiple of 16 or exceeds
     * the bytes given.
     */
    public static java.util.Optional<IoAdviceHintsGroupingModePage> decode(ByteBuf page) {
        int i = page.readerIndex();
        if (page.readableBytes() < HEADER_SIZE || (page.getUnsignedByte(i) & 0x7F) != (0x40 | PAGE_CODE)
                || page.getUnsignedByte(i + 1) != SUBPAGE_CODE) {
            return java.util.Optional.empty();
        }
        int length = page.getUnsignedShort(i + 2);
        int body = length - (HEADER_SIZE - 4);
        if (body < 0 || body % DESCRIPTOR_SIZE != 0 || body / DESCRIPTOR_SIZE > MAX_DESCRIPTORS
                || page.readableBytes() < length + 4) {
            return java.util.Optional.empty();
        }
        List<GroupDescriptor> out = new ArrayList<>();
        for (int at = i + HEADER_SIZE; at < i + length + 4; at += DESCRIPTOR_SIZE) {
            out.add(GroupDescriptor.decode(page, at));
        }
        return java.util.Optional.of(new IoAdviceHintsGroupingModePage(out));
    }
}
