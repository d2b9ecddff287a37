package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * REPORT TARGET PORT GROUPS parameter data (SPC-4 §6.36.2): RETURN DATA LENGTH, with the extended
 * header (FORMAT TYPE 001b, IMPLICIT TRANSITION TIME) when asked, then one target port group
 * descriptor per group (Table 186) with its target port descriptors (Table 189).
 */
public record TargetPortGroupsData(boolean extendedHeader, int implicitTransitionTime, List<Group> groups) {
    /** ASYMMETRIC ACCESS STATE 0h (SPC-4 Table 187). */
    public static final int ACTIVE_OPTIMIZED = 0x0;
    /** AO_SUP, byte 1 bit 0: the active/optimized state is supported. */
    public static final int AO_SUP = 0x01;

    public TargetPortGroupsData {
        groups = List.copyOf(groups);
        if ((implicitTransitionTime & ~0xFF) != 0) {
            throw new IllegalArgumentException("implicit transition time " + implicitTransitionTime);
        }
    }

    /**
     * One target port group.
     *
     * @param pref                 PREF: preferred group
     * @param asymmetricAccessState 4-bit state
     * @param supportedStates      byte 1: T_SUP .. AO_SUP
     * @param targetPortGroup      TARGET PORT GROUP, 16 bits (VPD 83h's target port group designator)
     * @param statusCode           STATUS CODE (0 = no status available)
     * @param relativeTargetPorts  RELATIVE TARGET PORT IDENTIFIERs, 16 bits each
     */
    public record Group(boolean pref, int asymmetricAccessState, int supportedStates, int targetPortGroup,
                        int statusCode, List<Integer> relativeTargetPorts) {
        public Group {
            relativeTargetPorts = List.copyOf(relativeTargetPorts);
            if ((asymmetricAccessState & ~0xF) != 0 || (supportedStates & ~0xFF) != 0
                    || (targetPortGroup & ~0xFFFF) != 0 || (statusCode & ~0xFF) != 0
                    || relativeTargetPorts.size() > 0xFF
                    || relativeTargetPorts.stream().anyMatch(p -> (p & ~0xFFFF) != 0)) {
                throw new IllegalArgumentException("target port group field out of range");
            }
        }
    }

    public void encode(ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0);                                                  // 0-3: RETURN DATA LENGTH, below
        if (extendedHeader) {
            out.writeByte(0x10);                                          // 4: FORMAT TYPE 001b
            out.writeByte(implicitTransitionTime);                        // 5
            out.writeShort(0);                                            // 6-7: reserved
        }
        for (Group g : groups) {
            out.writeByte((g.pref() ? 0x80 : 0) | g.asymmetricAccessState()); // 0: PREF, ASYMMETRIC ACCESS STATE
            out.writeByte(g.supportedStates());                           // 1: T_SUP .. AO_SUP
            out.writeShort(g.targetPortGroup());                          // 2-3
            out.writeByte(0);                                             // 4: reserved
            out.writeByte(g.statusCode());                                // 5: STATUS CODE
            out.writeByte(0);                                             // 6: vendor specific
            out.writeByte(g.relativeTargetPorts().size());                // 7: TARGET PORT COUNT
            for (int port : g.relativeTargetPorts()) {
                out.writeShort(0);                                        // 0-1: obsolete
                out.writeShort(port);                                     // 2-3: RELATIVE TARGET PORT IDENTIFIER
            }
        }
        // RETURN DATA LENGTH counts the bytes after itself, extended header included (SPC-4 §6.36.2)
        out.setInt(start, out.writerIndex() - start - 4);
    }
}
