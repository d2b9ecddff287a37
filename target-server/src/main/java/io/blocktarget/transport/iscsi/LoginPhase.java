package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.InitiatorPdu;
import io.blocktarget.protocol.iscsi.LoginFlags;
import io.blocktarget.protocol.iscsi.LoginRequest;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.scsi.ItNexus;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Optional;

/**
 * The login phase of one connection (RFC 7143 §6, §11.12-11.13): each Login Request goes to the
 * {@link LoginExchange} (negotiation, CHAP, the target's access rules); its answer goes out as a Login Response; the
 * final one registers the session (reinstating an older one with the same ISID, §6.3.5), builds the
 * {@link TaskEngine} of a normal session and hands the connection to full feature phase. A refused login is answered
 * and the connection closes after the response. Confined to the connection's event loop.
 */
final class LoginPhase {
    private static final Logger LOG = System.getLogger("blocktarget.iscsi");

    private final IscsiConnection connection;
    private final IscsiTransport transport;
    private final LoginExchange login;

    LoginPhase(IscsiConnection connection, IscsiTransport transport, int portalGroupTag) {
        this.connection = connection;
        this.transport = transport;
        this.login = new LoginExchange(transport.settings().withPortalGroupTag(portalGroupTag), transport.targets(),
                transport.registry()::exists, connection.who());
    }

    /** A PDU before full feature phase: only Login Requests are allowed (§6.1). Releases it. */
    void onPdu(InitiatorPdu pdu) {
        if (!(pdu instanceof LoginRequest request)) {
            pdu.release();
            connection.fatal(pdu.opcode() + " during login");
            return;
        }
        try {
            connection.beginLogin(request);
            LoginStep step = login.handle(request);
            // The target's CmdSN window from the first Login Response on: an initiator never lowers its MaxCmdSN
            // (RFC 7143 §4.2.2.1 b), so a window opened wider during login could not be narrowed afterwards.
            connection.window().queueDepth(login.settings().queueDepth());
            switch (step) {
                case LoginStep.Respond r -> send(request, r.flags(), LoginStatus.SUCCESS, 0, encode(r.keys()));
                case LoginStep.Complete c -> {
                    try {
                        complete(request, c);
                    } catch (RuntimeException e) {
                        if (connection.state() != ConnectionState.IN_LOGIN) {
                            throw e;
                        }
                        // §11.13.5: 0300 target error when the session cannot be set up.
                        LOG.log(Level.WARNING, "{0}: login failed on the target side: {1}", connection.who(),
                                e.toString());
                        send(request, new LoginFlags(false, false, request.flags().csg(), request.flags().csg()),
                                LoginStatus.TARGET_ERROR, 0, Unpooled.EMPTY_BUFFER);
                        connection.session().ifPresent(transport.registry()::remove);
                        connection.closeAfterFlush();
                    }
                }
                case LoginStep.Fail f -> {
                    if (transport.errorLog().admit(connection.port().remoteAddress())) {
                        LOG.log(Level.INFO, "{0}: login refused {1} ({2}): {3}", connection.who(), f.status(),
                                String.format("%02x%02x", f.status().statusClass(), f.status().statusDetail()), f.why());
                    }
                    send(request, new LoginFlags(false, false,
                            request.flags().csg(), request.flags().csg()), f.status(), 0, Unpooled.EMPTY_BUFFER);
                    connection.closeAfterFlush();
                }
            }
        } finally {
            request.release();
        }
    }

    /** The login's settings (the target's as this login read them: later knob changes reach new sessions only). */
    IscsiSettings settings() {
        return login.settings();
    }

    private static ByteBuf encode(TextParameters keys) {
        if (keys.isEmpty()) {
            return Unpooled.EMPTY_BUFFER;
        }
        ByteBuf b = Unpooled.buffer(keys.encodedLength());
        keys.encode(b);
        return b;
    }

    private void send(LoginRequest request, LoginFlags flags, LoginStatus status, int tsih, ByteBuf data) {
        CommandWindow window = connection.window();
        connection.send(new LoginResponse(flags, LoginExchange.VERSION, LoginExchange.VERSION, request.isid(), tsih,
                request.itt(), connection.nextStatSN(), window.expCmdSN(), window.maxCmdSN(), status, data));
    }

    private void complete(LoginRequest request, LoginStep.Complete c) {
        LoginResult result = c.result();
        IscsiSettings settings = login.settings();
        String targetName = result.target().map(ScsiTargetDevice::targetName).orElse("");
        Optional<ItNexus> nexus = result.target().map(t -> new ItNexus(
                IscsiSession.initiatorPortName(result.initiatorName(), result.isid()),
                IscsiSession.targetPortName(t.targetName(), settings.portalGroupTag()), settings.portalGroupTag()));
        IscsiSession.Key key = new IscsiSession.Key(result.initiatorName(), result.isid(), targetName,
                settings.portalGroupTag());
        Optional<SessionRegistry.Registered> registered = transport.registry().register(key,
                tsih -> new IscsiSession(tsih, key, result.sessionType(), nexus, connection));
        if (registered.isEmpty()) {
            send(request, c.flags(), LoginStatus.OUT_OF_RESOURCES, 0, Unpooled.EMPTY_BUFFER);
            connection.closeAfterFlush();
            return;
        }
        IscsiSession s = registered.get().session();
        OperationalParameters params = result.parameters();
        Optional<TaskEngine> engine = result.target().map(t -> new TaskEngine(connection, t, nexus.orElseThrow(),
                params, settings.maxTransferLength(), settings.queueDepth()));
        connection.adopt(s, key, params, engine);
        registered.get().replaced().ifPresent(old -> {
            if (connection.sessionEventAdmitted()) {
                LOG.log(Level.INFO, "{0}: reinstates {1}", connection.who(), old);
            }
            old.connection().closeFromElsewhere("session reinstated by tsih=" + s.tsih());
        });
        engine.ifPresent(en -> en.target().attach(en.nexus(), en.nexusTasks()));
        send(request, c.flags(), LoginStatus.SUCCESS, s.tsih(), encode(c.keys()));
        // §13.1: digests start with the first PDU after the final Login Response.
        connection.enterFullFeature(settings);
        if (connection.sessionEventAdmitted()) {
            LOG.log(Level.INFO, "{0}: logged in ({1}, HeaderDigest={2}, DataDigest={3}, MaxRecvDataSegmentLength={4},"
                            + " MaxBurstLength={5}, FirstBurstLength={6}, InitialR2T={7}, ImmediateData={8})",
                    connection.who(), result.sessionType().keyValue(), params.headerDigest().keyValue(),
                    params.dataDigest().keyValue(), Integer.toString(params.initiatorMaxRecvDataSegmentLength()),
                    Integer.toString(params.maxBurstLength()), Integer.toString(params.firstBurstLength()),
                    params.initialR2T(), params.immediateData());
        }
    }
}
