package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Asymmetric Namespace Access log page (Log Identifier 0Ch, NVMe Base 2.x §5.16.1.12, Figure "Asymmetric Namespace
 * Access Log Page"): a 16-byte header — Change Count (bytes 0..7), Number of ANA Group Descriptors (8..9), reserved —
 * then one descriptor per ANA group: ANAGRPID (0..3), Number of NSID Values (4..7), Change Count (8..15), ANA State
 * (byte 16, bits 3:0), reserved to byte 31, then the NSIDs of the group in ascending order, 4 bytes each. With Return
 * Groups Only (LSP bit 0, RGO) every descriptor has no NSIDs and Number of NSID Values 0.
 *
 * @param changeCount the log's change count
 * @param groups      the descriptors, in the order given
 */
public record AnaLogPage(long changeCount, List<Group> groups) {
    /** LSP bit 0 of Get Log Page for this log: Return Groups Only. */
    public static final int LSP_RGO = 1;
    public static final int HEADER_SIZE = 16;
    public static final int DESCRIPTOR_SIZE = 32;

    /** ANA State values (Base 2.x §8.1.1, Figure "ANA State"). */
    public static final int OPTIMIZED = 0x1;
    public static final int NON_OPTIMIZED = 0x2;
    public static final int INACCESSIBLE = 0x3;
    public static final int PERSISTENT_LOSS = 0x4;
    public static final int CHANGE = 0xF;

    /**
     * One ANA group descriptor.
     *
     * @param anagrpid    the group, 1.. ANAGRPMAX
     * @param changeCount the group's change count
     * @param state       one of the ANA State values
     * @param nsids       the group's NSIDs (unsigned, ascending)
     */
    public record Group(int anagrpid, long changeCount, int state, List<Integer> nsids) {
        public Group {
            nsids = List.copyOf(nsids);
            if (anagrpid == 0 || (state & ~0xF) != 0) {
                throw new IllegalArgumentException("ANA group " + Integer.toUnsignedString(anagrpid) + " state "
                        + state);
            }
        }
    }

    public AnaLogPage {
        groups = List.copyOf(Objects.requireNonNull(groups, "groups"));
        if (groups.size() > 0xFFFF) {
            throw new IllegalArgumentException(groups.size() + " ANA groups");
        }
    }

    /** Bytes of the page, with or without NSIDs ({@code rgo}). */
    public int size(boolean rgo) {
        int size = HEADER_SIZE + DESCRIPTOR_SIZE * groups.size();
        if (!rgo) {
            for (Group g : groups) {
                size += 4 * g.nsids().size();
            }
        }
        return size;
    }

    public void encode(ByteBuf out, boolean rgo) {
        out.writeLongLE(changeCount);
        out.writeShortLE(groups.size());
        out.writeZero(6);
        for (Group g : groups) {
            out.writeIntLE(g.anagrpid());
            out.writeIntLE(rgo ? 0 : g.nsids().size());
            out.writeLongLE(g.changeCount());
            out.writeByte(g.state());
            out.writeZero(15);
            if (!rgo) {
                g.nsids().forEach(out::writeIntLE);
            }
        }
    }

    /** Reads a page (host side, tests): the NSIDs as many as each descriptor says. */
    public static AnaLogPage decode(ByteBuf in) {
        long changeCount = in.readLongLE();
        int count = in.readUnsignedShortLE();
        in.skipBytes(6);
        List<Group> groups = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int anagrpid = in.readIntLE();
            long nnsids = in.readUnsignedIntLE();
            long groupCount = in.readLongLE();
            int state = in.readUnsignedByte() & 0xF;
            in.skipBytes(15);
            List<Integer> nsids = new ArrayList<>();
            for (long k = 0; k < nnsids; k++) {
                nsids.add(in.readIntLE());
            }
            groups.add(new Group(anagrpid, groupCount, state, nsids));
        }
        return new AnaLogPage(changeCount, groups);
    }
}
