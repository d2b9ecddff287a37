package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataOut;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.InitiatorPdu;
import io.blocktarget.protocol.iscsi.LogoutReason;
import io.blocktarget.protocol.iscsi.LogoutRequest;
import io.blocktarget.protocol.iscsi.NopOut;
import io.blocktarget.protocol.iscsi.TaskManagementRequest;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.protocol.iscsi.TextRequest;
import io.blocktarget.protocol.iscsi.TmfFunction;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static io.blocktarget.transport.iscsi.Harness.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Valid PDUs with random bytes of their BHS flipped, after login: whatever happens (Reject, dropped, closed),
 * no exception leaves the pipeline, the connection never hits an "internal error", and nothing leaks across
 * the SCSI contract.
 */
class MutatedPduTest {
    private static final List<Function<Harness, InitiatorPdu>> SEEDS = List.of(
            h -> h.command(Harness.write10(1, 2), false, true, 1024, Unpooled.wrappedBuffer(new byte[1024]), true),
            h -> h.command(Harness.write10(1, 8), false, true, 4096, Unpooled.wrappedBuffer(new byte[512]), true),
            h -> h.command(Harness.read10(0, 4), true, false, 2048, Unpooled.EMPTY_BUFFER, true),
            h -> new DataOut(true, 0, 0x10, 0, 0, 0, 512, Unpooled.wrappedBuffer(new byte[512])),
            h -> new NopOut(false, 0, 0x40, Bhs.RESERVED_TAG, h.cmdSN, 0, Unpooled.wrappedBuffer(new byte[8])),
            h -> new TextRequest(false, true, false, 0, 0x41, Bhs.RESERVED_TAG, h.cmdSN, 0,
                    Harness.text(TextParameters.of("SendTargets", "All"))),
            h -> new TaskManagementRequest(true, TmfFunction.ABORT_TASK, 0, 0x42, 0x10, h.cmdSN, 0, h.cmdSN, 0),
            h -> new LogoutRequest(true, LogoutReason.CLOSE_SESSION, 0x43, 0, h.cmdSN, 0));

    @Test
    void mutatedHeadersNeverBreakTheTarget() {
        List<String> internalErrors = new ArrayList<>();
        Handler watcher = new Handler() {
            @Override
            public void publish(LogRecord r) {
                String text = java.text.MessageFormat.format(r.getMessage(), r.getParameters());
                if (text.contains("internal error")) {
                    internalErrors.add(text);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger("blocktarget.iscsi");
        log.addHandler(watcher);
        try {
            Random random = new Random(1234);
            for (int round = 0; round < 400; round++) {
                RamTestTarget target = new RamTestTarget(TARGET, 512, 64);
                try (Harness h = new Harness(Harness.transport(IscsiSettings.defaults(), target))) {
                    h.login("ImmediateData", "Yes", "InitialR2T", "Yes").release();
                    ByteBuf wire = Harness.frame(SEEDS.get(round % SEEDS.size()).apply(h), Digest.NONE, Digest.NONE);
                    int flips = 1 + random.nextInt(4);
                    for (int i = 0; i < flips; i++) {
                        int at = random.nextInt(Bhs.LENGTH);
                        wire.setByte(at, wire.getByte(at) ^ (1 << random.nextInt(8)));
                    }
                    h.channel.writeInbound(wire);
                    // A well-formed follow-up: either answered or the connection is gone.
                    if (h.open()) {
                        h.send(new NopOut(true, 0, 0x99, Bhs.RESERVED_TAG, h.cmdSN, 0, Unpooled.EMPTY_BUFFER));
                    }
                    h.receiveAll().forEach(p -> p.release());
                    target.releaseHeld();
                    h.receiveAll().forEach(p -> p.release());
                }
                assertThat(target.unreleased()).as("round %d", round).isEmpty();
            }
        } finally {
            log.removeHandler(watcher);
        }
        assertThat(internalErrors).isEmpty();
    }
}
