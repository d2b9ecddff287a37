package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * REPORT TARGET PORT GROUPS parameter data (SPC-4 §6.36.2): RETURN DATA LENGTH, with the extended
 * header (FORMAT TYPE 001b, IMPLICIT TRANSITION TIME) when asked, then one target port group
 * descriptor per group (Table 186) with its target port descriptors (Table 189).
 */
public record TargetPortGroupsData(boolean extendedHeader, int implicitTransitionTime, List<Group> groups) {
    /** ASYMMETRIC ACCESS STATE values (SPC-5 §6.37, Table "ASYMMETRIC ACCESS STATE field"). */
    public static final int ACTIVE_OPTIMIZED = 0x0;
    public static final int ACTIVE_NON_OPTIMIZED = 0x1;
    public static final int STANDBY = 0x2;
    public static final int UNAVAILABLE = 0x3;
    public static final int LOGICAL_BLOCK_DEPENDENT = 0x4;
    public static final int OFFLINE = 0xE;
    public static final int TRANSITIONING = 0xF;
    /** Byte 1, the supported states: T_SUP (7), O_SUP (6), LBD_SUP (4), U_SUP (3), S_SUP (2), AN_SUP (1), AO_SUP (0). */
    public static final int T_SUP = 0x80;
    public static final int O_SUP = 0x40;
    public static final int LBD_SUP = 0x10;
    public static final int U_SUP = 0x08;
    public static final int S_SUP = 0x04;
    public static final int AN_SUP = 0x02;
    public static final int AO_SUP = 0x01;
    /** STATUS CODE values (SPC-5 §6.37, Table "STATUS CODE field"). */
    public static final int STATUS_NONE = 0x00;
    public static final int STATUS_ALTERED_BY_SET_TARGET_PORT_GROUPS = 0x01;
    public static final int STATUS_ALTERED_BY_IMPLICIT_BEHAVIOR = 0x02;

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
