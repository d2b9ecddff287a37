package io.blocktarget.scsi;

import io.blocktarget.block.lun.AccessState;
import io.blocktarget.block.lun.PathStates;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.TargetPortGroupsData;

import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.Parsed;
import io.blocktarget.protocol.scsi.SetTargetPortGroupsCdb;
import io.blocktarget.protocol.scsi.SetTargetPortGroupsParameters;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Asymmetric logical unit access (SPC-5 §5.16) over a LUN's {@link PathStates}: the one place that maps an {@link
 * AccessState} to its ALUA code, reports the target port groups and refuses what a port's state does not allow.
 *
 * <p>Each portal of the server is one iSCSI target portal group (its TPGT), one SCSI target port (relative target port
 * identifier = the portal id: in iSCSI the target port is the target portal group, RFC 7143 §4.4.1) and one ALUA
 * target port group with that same id, holding that one port. A nexus's portal is therefore its relative target port.
 *
 * <p>Asymmetric access is implicit (TPGS = 01b): the target changes states (configuration, {@code path set}, a
 * transition's end). With {@code commands.set-target-port-groups: true} it is also explicit (TPGS = 11b): an initiator
 * may change them with SET TARGET PORT GROUPS ({@link #setTargetPortGroups}), and the server writes such a change back
 * to the LUN's file like a {@code path set}. Off by default, because Linux's scsi_dh_alua sends it whenever
 * dm-multipath activates a non-optimized path group, which would rewrite the states an operator set for a test.
 */
final class Alua {
    /** Every state a group can be in: T_SUP, O_SUP, U_SUP, S_SUP, AN_SUP, AO_SUP (no logical block dependent). */
    static final int SUPPORTED_STATES = TargetPortGroupsData.T_SUP | TargetPortGroupsData.O_SUP
            | TargetPortGroupsData.U_SUP | TargetPortGroupsData.S_SUP | TargetPortGroupsData.AN_SUP
            | TargetPortGroupsData.AO_SUP;

    private Alua() {
    }

    /**
     * The ASYMMETRIC ACCESS STATE of a path state. SCSI has no "inaccessible": it is unavailable (the port serves
     * nothing until the state changes); persistent loss is offline (SPC-5 §5.16.2.4.7).
     */
    static int code(AccessState state) {
        return switch (state) {
            case OPTIMIZED -> TargetPortGroupsData.ACTIVE_OPTIMIZED;
            case NON_OPTIMIZED -> TargetPortGroupsData.ACTIVE_NON_OPTIMIZED;
            case STANDBY -> TargetPortGroupsData.STANDBY;
            case INACCESSIBLE, UNAVAILABLE -> TargetPortGroupsData.UNAVAILABLE;
            case PERSISTENT_LOSS -> TargetPortGroupsData.OFFLINE;
            case TRANSITIONING -> TargetPortGroupsData.TRANSITIONING;
        };
    }

    /** STATUS CODE: what last changed the group's state. */
    static int statusCode(PathStates.Origin origin) {
        return switch (origin) {
            case CONFIGURED -> TargetPortGroupsData.STATUS_NONE;
            case IMPLICIT -> TargetPortGroupsData.STATUS_ALTERED_BY_IMPLICIT_BEHAVIOR;
            case EXPLICIT -> TargetPortGroupsData.STATUS_ALTERED_BY_SET_TARGET_PORT_GROUPS;
        };
    }

    /**
     * REPORT TARGET PORT GROUPS parameter data (SPC-5 §6.37): one descriptor per portal, group id = relative target
     * port = portal id, in portal order; no group is preferred (PREF 0: the states say which path to use). IMPLICIT
     * TRANSITION TIME 0 (unspecified): a transition lasts as long as {@code path set --transition} says, which is not
     * known in advance.
     */
    static TargetPortGroupsData report(PathStates paths, boolean extendedHeader) {
        List<TargetPortGroupsData.Group> groups = new ArrayList<>();
        List<PathStates.Path> all = paths.all();
        for (int i = 0; i < all.size(); i++) {
            int portal = i + 1;
            groups.add(new TargetPortGroupsData.Group(false, code(all.get(i).state()), SUPPORTED_STATES, portal,
                    statusCode(all.get(i).origin()), List.of(portal)));
        }
        return new TargetPortGroupsData(extendedHeader, 0, groups);
    }

    /**
     * The state a SET TARGET PORT GROUPS descriptor asks for (SPC-5 §6.41): the primary states active/optimized,
     * active/non-optimized, standby and unavailable, and offline (the secondary state, of a target port: here the
     * port is its group) as persistent loss; null for transitioning (the device server's own, SPC-5 §5.16.2.5),
     * logical block dependent (LBD_SUP is 0) and the reserved codes.
     */
    static AccessState requested(int code) {
        return switch (code) {
            case TargetPortGroupsData.ACTIVE_OPTIMIZED -> AccessState.OPTIMIZED;
            case TargetPortGroupsData.ACTIVE_NON_OPTIMIZED -> AccessState.NON_OPTIMIZED;
            case TargetPortGroupsData.STANDBY -> AccessState.STANDBY;
            case TargetPortGroupsData.UNAVAILABLE -> AccessState.UNAVAILABLE;
            case TargetPortGroupsData.OFFLINE -> AccessState.PERSISTENT_LOSS;
            default -> null;
        };
    }

    /**
     * SET TARGET PORT GROUPS (SPC-5 §6.41): every descriptor is checked before any state changes, then all change in
     * one step, explicitly ({@link PathStates.Origin#EXPLICIT}: RTPG STATUS CODE 01h), with no transition. Every other
     * I_T nexus of the logical unit gets ASYMMETRIC ACCESS STATE CHANGED ({@code LogicalUnit} compares the paths'
     * stamp), NVMe controllers an ANA change notice, and the server writes the new states to the LUN's file.
     * PARAMETER LIST LENGTH 0 changes nothing. A list that ends inside a descriptor is PARAMETER LIST LENGTH ERROR; a
     * state that cannot be asked for, a group that does not exist or a group named twice is INVALID FIELD IN
     * PARAMETER LIST pointing at the field.
     */
    static void setTargetPortGroups(Task task, SetTargetPortGroupsCdb cdb, PathStates paths) {
        if (cdb.parameterListLength() == 0) {
            task.good();
            return;
        }
        ByteBuf list = task.parameterList(cdb.parameterListLength(), FieldPointer.cdb(6, 7));
        if (list == null) {
            return;
        }
        Parsed<SetTargetPortGroupsParameters> parsed = SetTargetPortGroupsParameters.parse(list);
        if (parsed instanceof Parsed.Invalid<SetTargetPortGroupsParameters> invalid) {
            task.fail(invalid);
            return;
        }
        Map<Integer, AccessState> changes = new LinkedHashMap<>();
        for (SetTargetPortGroupsParameters.Descriptor d
                : ((Parsed.Ok<SetTargetPortGroupsParameters>) parsed).value().descriptors()) {
            AccessState state = requested(d.state());
            if (state == null) {
                task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(d.offset(), 3));
                return;
            }
            int group = d.groupOrPort();
            if (group < 1 || group > paths.portals() || changes.containsKey(group)) {
                task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(d.offset() + 2, 7));
                return;
            }
            changes.put(group, state);
        }
        paths.set(changes, 0, task.nexus());
        task.good(cdb.parameterListLength());
    }

    /**
     * What the state of the nexus's port refuses, before the CDB is parsed (SPC-5 §5.16.2.4): null when the command
     * may run. Active states allow everything. The lists are SPC-5's, by operation code and service action:
     * <ul>
     * <li>standby (§5.16.2.4.4): INQUIRY, LOG SELECT, LOG SENSE, MODE SELECT, MODE SENSE, REPORT LUNS, RECEIVE
     *     DIAGNOSTIC RESULTS, SEND DIAGNOSTIC, REPORT / SET TARGET PORT GROUPS, REQUEST SENSE, PERSISTENT RESERVE
     *     IN / OUT, the echo buffer modes of READ / WRITE BUFFER; anything else NOT READY, LOGICAL UNIT NOT
     *     ACCESSIBLE, TARGET PORT IN STANDBY STATE (04h/0Bh);</li>
     * <li>unavailable (§5.16.2.4.5): INQUIRY, REPORT LUNS, REPORT / SET TARGET PORT GROUPS, REQUEST SENSE, echo
     *     buffer; else 04h/0Ch;</li>
     * <li>transitioning (§5.16.2.5): INQUIRY, REPORT LUNS, REPORT TARGET PORT GROUPS, REQUEST SENSE, echo buffer;
     *     else 04h/0Ah;</li>
     * <li>offline (§5.16.2.4.7: the port is not accessible; our choice: the same few commands as in transition
     *     answer, so an initiator can see why): else LOGICAL UNIT NOT READY, OFFLINE (04h/12h, LIO's code too).</li>
     * </ul>
     * A command these lists allow but the unit does not support is refused afterwards as unsupported.
     *
     * @param opcode        byte 0 of the CDB, -1 for an empty CDB
     * @param serviceAction byte 1 bits 4-0, -1 for a CDB shorter than 2 bytes
     */
    static SenseReason refusal(AccessState state, int opcode, int serviceAction) {
        return switch (state) {
            case OPTIMIZED, NON_OPTIMIZED -> null;
            case STANDBY -> allowedInStandby(opcode, serviceAction) ? null
                    : SenseReason.LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_STANDBY;
            case INACCESSIBLE, UNAVAILABLE -> allowedInUnavailable(opcode, serviceAction) ? null
                    : SenseReason.LOGICAL_UNIT_NOT_READY_TARGET_PORT_UNAVAILABLE;
            case TRANSITIONING -> allowedInTransition(opcode, serviceAction) ? null
                    : SenseReason.LOGICAL_UNIT_NOT_READY_TARGET_PORT_IN_TRANSITION;
            case PERSISTENT_LOSS -> allowedInTransition(opcode, serviceAction) ? null
                    : SenseReason.LOGICAL_UNIT_NOT_READY_OFFLINE;
        };
    }

    private static final int INQUIRY = 0x12;
    private static final int REQUEST_SENSE = 0x03;
    private static final int REPORT_LUNS = 0xA0;
    private static final int MAINTENANCE_IN = 0xA3;
    private static final int MAINTENANCE_OUT = 0xA4;
    private static final int REPORT_TARGET_PORT_GROUPS = 0x0A; // MAINTENANCE IN service action
    private static final int SET_TARGET_PORT_GROUPS = 0x0A;    // MAINTENANCE OUT service action
    private static final int READ_BUFFER_10 = 0x3C;
    private static final int WRITE_BUFFER = 0x3B;
    /** READ / WRITE BUFFER MODE (byte 1 bits 4-0): echo buffer 0Ah; READ BUFFER's echo buffer descriptor 0Bh. */
    private static final int MODE_ECHO_BUFFER = 0x0A;
    private static final int MODE_ECHO_BUFFER_DESCRIPTOR = 0x0B;

    private static boolean allowedInTransition(int opcode, int serviceAction) {
        return opcode == INQUIRY || opcode == REPORT_LUNS || opcode == REQUEST_SENSE
                || opcode == MAINTENANCE_IN && serviceAction == REPORT_TARGET_PORT_GROUPS
                || echoBuffer(opcode, serviceAction);
    }

    private static boolean allowedInUnavailable(int opcode, int serviceAction) {
        return allowedInTransition(opcode, serviceAction)
                || opcode == MAINTENANCE_OUT && serviceAction == SET_TARGET_PORT_GROUPS;
    }

    private static boolean allowedInStandby(int opcode, int serviceAction) {
        return allowedInUnavailable(opcode, serviceAction) || switch (opcode) {
            case 0x4C, 0x4D -> true;              // LOG SELECT, LOG SENSE
            case 0x15, 0x55, 0x1A, 0x5A -> true;  // MODE SELECT (6) / (10), MODE SENSE (6) / (10)
            case 0x1C, 0x1D -> true;              // RECEIVE DIAGNOSTIC RESULTS, SEND DIAGNOSTIC
            case 0x5E, 0x5F -> true;              // PERSISTENT RESERVE IN / OUT
            default -> false;
        };
    }

    private static boolean echoBuffer(int opcode, int mode) {
        return opcode == WRITE_BUFFER && mode == MODE_ECHO_BUFFER
                || opcode == READ_BUFFER_10 && (mode == MODE_ECHO_BUFFER || mode == MODE_ECHO_BUFFER_DESCRIPTOR);
    }
}
