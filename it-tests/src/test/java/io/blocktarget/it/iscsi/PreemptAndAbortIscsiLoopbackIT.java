package io.blocktarget.it.iscsi;

import io.blocktarget.protocol.iscsi.R2t;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.blocktarget.transport.iscsi.IscsiSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.blocktarget.it.iscsi.LoopbackTarget.targetName;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * PREEMPT AND ABORT over the iSCSI transport (SPC-5 §5.14.11.2.6, issue 28 item 5): a write of the preempted session
 * that is waiting for its Data-Out is aborted in the transport — its data, sent after GOOD, is discarded, it gets no
 * response (TAS = 0) and nothing reaches the medium — and the preempted session learns REGISTRATIONS PREEMPTED, then
 * COMMANDS CLEARED BY ANOTHER INITIATOR, once each.
 */
@Tag("loopback")
class PreemptAndAbortIscsiLoopbackIT {
    private static LoopbackTarget server;
    private static long nextIsid = 0x600000000001L;

    @BeforeAll
    static void start() throws Exception {
        server = new LoopbackTarget(IscsiSettings.defaults());
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static IscsiTestInitiator session(String... keys) throws Exception {
        IscsiTestInitiator i;
        synchronized (PreemptAndAbortIscsiLoopbackIT.class) {
            i = IscsiTestInitiator.connect(server.address(), nextIsid++);
        }
        i.login(targetName(4096), null, keys);
        i.clearUnitAttention();
        return i;
    }

    private static int[] tur(IscsiTestInitiator i) throws Exception {
        IscsiTestInitiator.Result r = i.command(0, new byte[6], 0, null);
        if (r.status() == 0) {
            return new int[0];
        }
        byte[] s = r.sense();
        int off = s.length > 2 && (s[2] & 0x7F) >= 0x70 ? 2 : 0;
        return new int[] {s[off + 2] & 0xF, s[off + 12] & 0xFF, s[off + 13] & 0xFF};
    }

    private static int prOut(IscsiTestInitiator i, int serviceAction, int type, long key, long serviceActionKey)
            throws Exception {
        byte[] cdb = {0x5F, (byte) serviceAction, (byte) type, 0, 0, 0, 0, 0, 24, 0};
        return i.command(0, cdb, 0, ByteBuffer.allocate(24).putLong(key).putLong(serviceActionKey).array()).status();
    }

    @Test
    void thePreemptedSessionsWriteWaitingForDataIsAbortedBeforeGood() throws Exception {
        try (IscsiTestInitiator a = session();
             IscsiTestInitiator b = session("ImmediateData", "No", "InitialR2T", "Yes")) {
            assertThat(prOut(a, 0, 0, 0, 0xA)).isZero();                          // REGISTER
            assertThat(prOut(b, 0, 0, 0, 0xB)).isZero();
            byte[] write16 = ByteBuffer.allocate(16).put((byte) 0x8A).put((byte) 0).putLong(40).putInt(1)
                    .put((byte) 0).put((byte) 0).array();
            b.startCommand(0, write16, 4096, true);
            TargetPdu pdu = b.receive();
            assertThat(pdu).isInstanceOf(R2t.class);                              // waiting for its Data-Out
            R2t r2t = (R2t) pdu;
            assertThat(prOut(a, 5, 5, 0xA, 0xB)).isZero();                        // PREEMPT AND ABORT, WE_RO
            byte[] data = new byte[4096];
            java.util.Arrays.fill(data, (byte) 0x5A);
            b.answerR2t(r2t, data);                                               // too late: discarded
            assertThat(tur(b)).containsExactly(0x6, 0x2A, 0x05);                  // REGISTRATIONS PREEMPTED
            assertThat(tur(b)).containsExactly(0x6, 0x2F, 0x00);                  // COMMANDS CLEARED BY ANOTHER ...
            assertThat(tur(b)).isEmpty();                                         // and no response for the write
            byte[] read16 = ByteBuffer.allocate(16).put((byte) 0x88).put((byte) 0).putLong(40).putInt(1)
                    .put((byte) 0).put((byte) 0).array();
            IscsiTestInitiator.Result read = a.command(0, read16, 4096, null);
            assertThat(read.status()).isZero();
            assertThat(read.data()).as("the aborted write never reached the medium").isEqualTo(new byte[4096]);
            assertThat(prOut(a, 3, 0, 0xA, 0)).isZero();                          // CLEAR, for the next test
            a.logout();
            b.logout();
        }
    }
}
