package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.IscsiKey;
import io.blocktarget.protocol.iscsi.IscsiProtocolException;
import io.blocktarget.protocol.iscsi.KeyNegotiation;
import io.blocktarget.protocol.iscsi.LoginStage;
import io.blocktarget.protocol.iscsi.RejectReason;
import io.blocktarget.protocol.iscsi.SessionType;
import io.blocktarget.protocol.iscsi.TargetPolicy;
import io.blocktarget.protocol.iscsi.TextAccumulator;
import io.blocktarget.protocol.iscsi.TextParameter;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.protocol.iscsi.TextRequest;
import io.blocktarget.protocol.iscsi.TextResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Text Request / Response in full feature phase (RFC 7143 §11.10-11.11): SendTargets (§13.3) and key
 * negotiation answers, with long answers split over several responses (C bit and a TTT the initiator echoes
 * in an empty Text Request to get the next part).
 */
final class TextExchange {
    private enum State { IDLE, CONTINUING }

    private final IscsiConnection connection;
    private final IscsiTransport transport;
    private State state = State.IDLE;
    private byte[] remaining = new byte[0];
    private int continuationTtt;
    private int segmentLength = 8192;
    private TextAccumulator incoming = TextAccumulator.empty(LoginExchange.MAX_LOGIN_TEXT);

    TextExchange(IscsiConnection connection, IscsiTransport transport) {
        this.connection = connection;
        this.transport = transport;
    }

    void parameters(OperationalParameters params) {
        segmentLength = params.initiatorMaxRecvDataSegmentLength();
    }

    /** Takes ownership of {@code request}. */
    void request(TextRequest request) {
        try {
            if (state == State.CONTINUING && request.ttt() == continuationTtt) {
                sendPart(request);
                return;
            }
            state = State.IDLE;
            incoming = incoming.append(request.data());
            if (request.continueBit()) {
                respond(request, false, false, Bhs.RESERVED_TAG, Unpooled.EMPTY_BUFFER);
                return;
            }
            TextParameters offered = incoming.complete();
            incoming = TextAccumulator.empty(LoginExchange.MAX_LOGIN_TEXT);
            remaining = answer(offered);
            sendPart(request);
        } catch (IscsiProtocolException e) {
            incoming = TextAccumulator.empty(LoginExchange.MAX_LOGIN_TEXT);
            connection.reject(e.reason().rejectReason().orElse(RejectReason.PROTOCOL_ERROR), request);
        } finally {
            request.release();
        }
    }

    private byte[] answer(TextParameters offered) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean discovery = connection.sessionType() == SessionType.DISCOVERY;
        TargetPolicy policy = new TargetPolicy(Map.of(), connection.sessionType(), LoginStage.FULL_FEATURE_PHASE,
                TargetPolicy.Connection.LEADING);
        for (TextParameter p : offered.entries()) {
            if (p.key().equals(IscsiKey.SEND_TARGETS.keyName())) {
                String own = connection.session().map(s -> s.key().targetName()).filter(n -> !n.isEmpty())
                        .orElse(null);
                // RFC 7143 §11.13.5 / issue 14: an initiator sees no target it may not log in to (0202).
                String initiator = connection.session().map(s -> s.key().initiatorName()).orElse("");
                IscsiSettings settings = transport.settings();
                List<String> visible = transport.targets().keySet().stream()
                        .filter(name -> settings.admits(name, initiator)).toList();
                out.writeBytes(SendTargets.answer(p.value(), discovery, own, visible,
                        transport.settings().portals(), transport.settings().portalGroupTag(),
                        connection.port().localAddress()));
                continue;
            }
            KeyNegotiation.negotiate(p.key(), p.value(), policy).responseValue().ifPresent(v -> {
                out.writeBytes((p.key() + "=" + v).getBytes(StandardCharsets.UTF_8));
                out.write(0);
            });
        }
        return out.toByteArray();
    }

    private void sendPart(TextRequest request) {
        int n = Math.min(segmentLength, remaining.length);
        ByteBuf part = Unpooled.wrappedBuffer(Arrays.copyOf(remaining, n));
        remaining = Arrays.copyOfRange(remaining, n, remaining.length);
        if (remaining.length == 0) {
            state = State.IDLE;
            respond(request, true, false, Bhs.RESERVED_TAG, part);
        } else {
            state = State.CONTINUING;
            continuationTtt = continuationTtt == Bhs.RESERVED_TAG - 1 ? 1 : continuationTtt + 1;
            respond(request, false, true, continuationTtt, part);
        }
    }

    private void respond(TextRequest request, boolean fin, boolean cont, int ttt, ByteBuf data) {
        connection.send(new TextResponse(fin, cont, request.lun(), request.itt(), ttt, connection.nextStatSN(),
                connection.expCmdSN(), connection.maxCmdSN(), data));
    }

    void close() {
        remaining = new byte[0];
        state = State.IDLE;
    }
}
