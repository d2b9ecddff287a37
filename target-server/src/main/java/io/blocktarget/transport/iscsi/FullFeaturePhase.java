package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataOut;
import io.blocktarget.protocol.iscsi.InitiatorPdu;
import io.blocktarget.protocol.iscsi.LoginRequest;
import io.blocktarget.protocol.iscsi.LogoutReason;
import io.blocktarget.protocol.iscsi.LogoutRequest;
import io.blocktarget.protocol.iscsi.LogoutResponse;
import io.blocktarget.protocol.iscsi.LogoutResponseCode;
import io.blocktarget.protocol.iscsi.NopIn;
import io.blocktarget.protocol.iscsi.NopOut;
import io.blocktarget.protocol.iscsi.RejectReason;
import io.blocktarget.protocol.iscsi.ScsiCommand;
import io.blocktarget.protocol.iscsi.SnackRequest;
import io.blocktarget.protocol.iscsi.TaskManagementRequest;
import io.blocktarget.protocol.iscsi.TextRequest;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Optional;

/**
 * The full feature phase dispatch of one connection (RFC 7143 §4.2, §11): Data-Out, NOP-Out answers to our pings and
 * SNACK / Login (refused) go straight to their handler; every PDU that carries a CmdSN goes through the
 * {@link CommandWindow} first (§4.2.2.1), then to its handler in CmdSN order — SCSI Command to the {@link TaskEngine},
 * NOP-Out (answered), Text to the {@link TextExchange}, Task Management to {@link TaskManagement}, Logout here.
 * Confined to the connection's event loop.
 */
final class FullFeaturePhase {
    private static final Logger LOG = System.getLogger("blocktarget.iscsi");

    private final IscsiConnection connection;
    private final Optional<TaskEngine> engine;
    private final TextExchange text;
    private final NopInPinger pinger;
    private final int cid;

    FullFeaturePhase(IscsiConnection connection, Optional<TaskEngine> engine, TextExchange text, NopInPinger pinger,
                     int cid) {
        this.connection = connection;
        this.engine = engine;
        this.text = text;
        this.pinger = pinger;
        this.cid = cid;
    }

    /** One PDU of full feature phase; releases it. */
    void onPdu(InitiatorPdu pdu) {
        switch (pdu) {
            case DataOut out -> engineOr(pdu).ifPresent(e -> e.dataOut(out));
            case NopOut nop when nop.itt() == Bhs.RESERVED_TAG -> {
                // §11.18: an answer to our NOP-In ping (or a pure ExpStatSN update): no CmdSN, no response.
                pinger.answered(nop.ttt());
                nop.release();
            }
            case SnackRequest snack -> {
                // ErrorRecoveryLevel 0: SNACK is not supported (§11.16, as LIO answers it).
                connection.reject(RejectReason.PROTOCOL_ERROR, snack);
            }
            case LoginRequest l -> {
                connection.reject(RejectReason.PROTOCOL_ERROR, l);
                l.release();
            }
            default -> ordered(pdu);
        }
    }

    /** The task engine of a normal session; a PDU that needs one on a discovery session is rejected (§4.2.2). */
    Optional<TaskEngine> engineOr(InitiatorPdu pdu) {
        if (engine.isEmpty()) {
            connection.reject(RejectReason.PROTOCOL_ERROR, pdu);
            pdu.release();
        }
        return engine;
    }

    /**
     * A Data-Out lost to a data digest error (§7.8 at ErrorRecoveryLevel 0): the write's data is incomplete; the task
     * fails once its data has arrived, the session goes on.
     */
    void dataOutLost(int itt, int ttt, boolean finalBit) {
        engine.ifPresent(en -> en.dataOutLost(itt, ttt, finalBit));
    }

    /** PDUs that carry a CmdSN go through the window (§4.2.2.1). */
    private void ordered(InitiatorPdu pdu) {
        boolean immediate;
        int cmdSN;
        switch (pdu) {
            case ScsiCommand c -> { immediate = c.immediate(); cmdSN = c.cmdSN(); }
            case NopOut n -> { immediate = n.immediate(); cmdSN = n.cmdSN(); }
            case TextRequest t -> { immediate = t.immediate(); cmdSN = t.cmdSN(); }
            case TaskManagementRequest t -> { immediate = t.immediate(); cmdSN = t.cmdSN(); }
            case LogoutRequest l -> { immediate = l.immediate(); cmdSN = l.cmdSN(); }
            default -> throw new IllegalStateException("not an ordered PDU: " + pdu.opcode());
        }
        CommandWindow window = connection.window();
        switch (window.admit(pdu, immediate, cmdSN)) {
            case DELIVER -> {
                deliver(pdu);
                // indexed: the list is nearly always empty, and an iterator over it was one allocation per command
                java.util.List<InitiatorPdu> ready = window.drainReady();
                for (int i = 0; i < ready.size(); i++) {
                    InitiatorPdu next = ready.get(i);
                    if (connection.state() != ConnectionState.LOGGED_IN) {
                        next.release();
                    } else {
                        deliver(next);
                    }
                }
            }
            case HELD -> {
            }
            case DROPPED -> pdu.release();
        }
    }

    private void deliver(InitiatorPdu pdu) {
        switch (pdu) {
            case ScsiCommand c -> engineOr(c).ifPresent(e -> e.command(c));
            case NopOut n -> connection.send(new NopIn(n.lun(), n.itt(), Bhs.RESERVED_TAG, connection.nextStatSN(),
                    connection.expCmdSN(), connection.maxCmdSN(), n.data()));
            case TextRequest t -> text.request(t);
            case TaskManagementRequest t -> engineOr(t).ifPresent(e -> TaskManagement.request(connection, t, e));
            case LogoutRequest l -> logout(l);
            default -> pdu.release();
        }
    }

    /** §11.14-11.15: ErrorRecoveryLevel 0, one connection: closing the connection closes the session. */
    private void logout(LogoutRequest request) {
        LogoutResponseCode code = switch (request.reason()) {
            case CLOSE_SESSION -> LogoutResponseCode.CONNECTION_OR_SESSION_CLOSED;
            case CLOSE_CONNECTION -> request.cid() == cid ? LogoutResponseCode.CONNECTION_OR_SESSION_CLOSED
                    : LogoutResponseCode.CID_NOT_FOUND;
            case REMOVE_CONNECTION_FOR_RECOVERY -> LogoutResponseCode.CONNECTION_RECOVERY_NOT_SUPPORTED;
        };
        connection.send(new LogoutResponse(code, request.itt(), connection.nextStatSN(), connection.expCmdSN(),
                connection.maxCmdSN(), 0, 0));
        if (code == LogoutResponseCode.CONNECTION_OR_SESSION_CLOSED) {
            if (connection.sessionEventAdmitted()) {
                LOG.log(Level.INFO, "{0}: logout ({1})", connection.who(),
                        request.reason() == LogoutReason.CLOSE_SESSION ? "close session" : "close connection");
            }
            engine.ifPresent(TaskEngine::close);
            connection.loggingOut();
        }
    }
}
