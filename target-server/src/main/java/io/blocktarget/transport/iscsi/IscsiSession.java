package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.SessionType;
import io.blocktarget.scsi.ItNexus;

import java.util.HexFormat;
import java.util.Optional;

/**
 * One session (RFC 7143 §4.2.7): identified by InitiatorName + ISID + target (the SSID with our single
 * portal group) and by its TSIH. MaxConnections=1, so it has exactly one connection, which owns it.
 */
final class IscsiSession {
    /** What makes two logins the same session (§4.2.7.3 session reinstatement). */
    /**
     * What identifies a session for reinstatement: the initiator, its ISID and the target, within one target portal
     * group (RFC 7143 §4.4.3, SSID = ISID + TPGT), so the same ISID through another portal is another session (a
     * second path), not a reinstatement of the first.
     */
    record Key(String initiatorName, long isid, String targetName, int portalGroupTag) {
    }

    private final int tsih;
    private final Key key;
    private final SessionType type;
    private final Optional<ItNexus> nexus;
    private final IscsiConnection connection;
    private SessionState state = SessionState.ACTIVE;

    IscsiSession(int tsih, Key key, SessionType type, Optional<ItNexus> nexus, IscsiConnection connection) {
        this.tsih = tsih;
        this.key = key;
        this.type = type;
        this.nexus = nexus;
        this.connection = connection;
    }

    int tsih() {
        return tsih;
    }

    Key key() {
        return key;
    }

    SessionType type() {
        return type;
    }

    Optional<ItNexus> nexus() {
        return nexus;
    }

    IscsiConnection connection() {
        return connection;
    }

    SessionState state() {
        return state;
    }

    void transitionTo(SessionState next) {
        state = States.transition(toString(), SessionState.MACHINE, state, next);
    }

    /** {@code <InitiatorName>,i,0x<ISID>} (§4.2.7.5). */
    static String initiatorPortName(String initiatorName, long isid) {
        return initiatorName + ",i,0x" + HexFormat.of().toHexDigits(isid).substring(4);
    }

    /** {@code <TargetName>,t,0x<TPGT>} (§4.2.7.5). */
    static String targetPortName(String targetName, int portalGroupTag) {
        return targetName + ",t,0x" + HexFormat.of().toHexDigits((short) portalGroupTag);
    }

    @Override
    public String toString() {
        return "session tsih=" + tsih + " " + initiatorPortName(key.initiatorName(), key.isid()) + " "
                + (type == SessionType.DISCOVERY ? "discovery" : key.targetName());
    }
}
