package io.blocktarget.transport.nvmetcp;

import io.blocktarget.nvme.NvmeCompletion;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.C2HData;
import io.blocktarget.protocol.nvmetcp.H2CData;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.R2T;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.LIMITS;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.read;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.write;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * CID reuse (Base §4.2: a CID is unique among a queue's outstanding commands) after every way a command completes,
 * the stale Asynchronous Event Request SPDK's host leaves behind at detach (issue 10 item 8b), and Abort of a
 * command waiting for its data (Base §5.1).
 */
class CidReuseTest {
    private static final int AER = 0x0C;
    private static final int KEEP_ALIVE = 0x18;
    private static final int IDENTIFY = 0x06;
    private static final int INVALID_PDU_HEADER_FIELD = 1;
    /** Connect CATTR bit 2: SQ flow control disabled, C2HData may carry SUCCESS (NVMe/TCP §3.6.2.8). */
    private static final int CATTR_SQ_FLOW_CONTROL_DISABLED = 1 << 2;

    private static Sqe admin(int opcode, int cid) {
        return Sqe.of(opcode, cid, 0, SglDescriptor.transportDataBlock(opcode == IDENTIFY ? 4096 : 0));
    }

    @Test
    void staleAsyncEventRequestIsRetiredAndItsCidServesTheNextCommand() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(0, 31, 0);
            host.capsule(admin(AER, 3));
            host.capsule(admin(AER, 4));
            assertThat(host.drain()).isEmpty();
            FakeTarget.FakeQueue q = host.target.queues.getFirst();
            NvmeCompletion staleDone = q.aers.get(3);
            // SPDK at detach: its AER 3 cancelled locally, CID 3 reused for the next admin command
            host.capsule(admin(KEEP_ALIVE, 3));
            Cqe cqe = host.response();
            assertThat(cqe.cid()).isEqualTo(3);
            assertThat(cqe.status().sc()).isZero();
            assertThat(q.retired).containsExactly(3);
            assertThat(q.aers).containsOnlyKeys(4);
            // a completion of the retired request that was already on its way never reaches the host
            staleDone.complete(NvmeStatus.SUCCESS, 0x0002, 0, null);
            assertThat(host.drain()).isEmpty();
            // the other request is still outstanding and completes normally with its own CID
            q.postEvent(4, 0x0402);
            Cqe event = host.response();
            assertThat(event.cid()).isEqualTo(4);
            assertThat(event.dw0()).isEqualTo(0x0402);
            assertThat(host.channel.isOpen()).isTrue();
        }
    }

    @Test
    void strictPolicyKeepsTheReusedAerCidFatal() {
        try (HostEnd host = new HostEnd(LIMITS, false, CidReusePolicy.STRICT)) {
            host.open(0, 31, 0);
            host.capsule(admin(AER, 3));
            host.capsule(admin(KEEP_ALIVE, 3));
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 10);
            assertThat(host.target.queues.getFirst().retired).isEmpty();
        }
    }

    @Test
    void reuseOfAnOutstandingNormalCommandStaysFatal() {
        // admin queue: an outstanding Keep Alive is not an AER
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(0, 31, 0);
            host.target.holdCompletions = true;
            host.capsule(admin(KEEP_ALIVE, 5));
            host.capsule(admin(KEEP_ALIVE, 5));
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 10);
        }
        // I/O queue: opcode 0Ch is NVM Verify there, never an AER
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.target.holdCompletions = true;
            host.capsule(Sqe.of(AER, 5, 1, SglDescriptor.transportDataBlock(0)));
            host.capsule(Sqe.of(AER, 5, 1, SglDescriptor.transportDataBlock(0)));
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 10);
            assertThat(host.target.queues.getFirst().retired).isEmpty();
        }
    }

    @Test
    void cidIsFreeAfterACapsuleResp() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(0, 31, 0);
            for (int i = 0; i < 3; i++) {
                host.capsule(admin(KEEP_ALIVE, 7));
                assertThat(host.response().cid()).isEqualTo(7);
            }
        }
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            byte[] data = NvmeTcpConnectionTest.pattern(4096, 2);
            host.capsule(write(7, 0, SglDescriptor.inCapsule(0, data.length)), data);
            assertThat(host.response().cid()).isEqualTo(7);
            host.capsule(write(7, 8, SglDescriptor.transportDataBlock(data.length)));
            R2T r2t = (R2T) host.next();
            h2c(host, 7, r2t.ttag(), 0, data, true);
            assertThat(host.response().cid()).isEqualTo(7);
            host.capsule(read(7, 8, data.length));
            C2HData c2h = (C2HData) host.next();
            assertThat(NvmeTcpConnectionTest.bytes(c2h.data())).isEqualTo(data);
            c2h.release();
            assertThat(host.response().cid()).isEqualTo(7);
        }
    }

    @Test
    void cidIsFreeAfterAC2HDataWithSuccess() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(0, 31, CATTR_SQ_FLOW_CONTROL_DISABLED);
            for (int i = 0; i < 3; i++) {
                host.capsule(admin(IDENTIFY, 9));
                C2HData c2h = (C2HData) host.next();
                assertThat(c2h.success()).isTrue();
                assertThat(c2h.cccid()).isEqualTo(9);
                c2h.release();
                assertThat(host.drain()).as("no CapsuleResp after SUCCESS").isEmpty();
            }
        }
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, CATTR_SQ_FLOW_CONTROL_DISABLED);
            for (int i = 0; i < 3; i++) {
                host.capsule(read(9, i, 512));
                C2HData c2h = (C2HData) host.next();
                assertThat(c2h.success()).isTrue();
                c2h.release();
                assertThat(host.drain()).isEmpty();
            }
            assertThat(host.channel.isOpen()).isTrue();
        }
    }

    @Test
    void cidIsFreeAfterAnAsyncEventCompletes() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(0, 31, 0);
            FakeTarget.FakeQueue q = host.target.queues.getFirst();
            for (int i = 0; i < 3; i++) {
                host.capsule(admin(AER, 3));
                q.postEvent(3, 0x0002);
                Cqe cqe = host.response();
                assertThat(cqe.cid()).isEqualTo(3);
                assertThat(cqe.dw0()).isEqualTo(0x0002);
            }
            // and by a different command: nothing was retired, since nothing was outstanding
            host.capsule(admin(KEEP_ALIVE, 3));
            assertThat(host.response().cid()).isEqualTo(3);
            assertThat(q.retired).isEmpty();
        }
    }

    private static void h2c(HostEnd host, int cccid, int ttag, long datao, byte[] bytes, boolean last) {
        ByteBuf data = Unpooled.wrappedBuffer(bytes);
        host.send(new H2CData(cccid, ttag, datao, last, data));
        data.release();
    }

    private static List<Boolean> abort(HostEnd host, int cid) {
        List<Boolean> result = new ArrayList<>();
        host.target.connection.abort(cid, result::add);
        return result;
    }

    @Test
    void abortOfACommandWaitingForDataCompletesItAndDrainsTheR2T() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.capsule(write(11, 0, SglDescriptor.transportDataBlock(8192)));
            R2T r2t = (R2T) host.next();
            assertThat(abort(host, 11)).containsExactly(true);
            Cqe cqe = host.response();
            assertThat(cqe.cid()).isEqualTo(11);
            assertThat(cqe.status()).isEqualTo(NvmeStatus.ABORTED_BY_REQUEST.toCqeStatus());
            // the data the host had already queued for the R2T is accepted and dropped, never executed
            h2c(host, 11, r2t.ttag(), 0, new byte[4096], false);
            // meanwhile the host reuses CID 11: a new command, a new TTAG
            host.capsule(write(11, 16, SglDescriptor.transportDataBlock(4096)));
            R2T second = (R2T) host.next();
            assertThat(second.ttag()).isNotEqualTo(r2t.ttag());
            h2c(host, 11, r2t.ttag(), 4096, new byte[4096], true);
            assertThat(host.drain()).isEmpty();
            byte[] data = NvmeTcpConnectionTest.pattern(4096, 3);
            h2c(host, 11, second.ttag(), 0, data, true);
            assertThat(host.response().status().sc()).isZero();
            assertThat(host.target.submitted).hasSize(1);
            assertThat(host.target.submitted.getFirst().sqe().cdw10()).isEqualTo(16);
            // after draining the old TTAG is gone: more data for it is a protocol error
            h2c(host, 11, r2t.ttag(), 0, new byte[4], false);
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 10);
        }
    }

    @Test
    void abortIsHonestWhenTheCommandCannotBeAborted() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.target.holdCompletions = true;
            host.noData(0x00, 12);                     // executing on the (held) backend
            assertThat(abort(host, 12)).containsExactly(false);
            assertThat(abort(host, 13)).containsExactly(false);   // no such command
            host.target.held.getFirst().run();
            Cqe cqe = host.response();
            assertThat(cqe.cid()).isEqualTo(12);
            assertThat(cqe.status().sc()).isZero();
            assertThat(abort(host, 12)).containsExactly(false);   // already completed
        }
    }

    @Test
    void drainingCommandsDoNotCostQueueDepth() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 3, 0);                         // 4 entries
            for (int cid = 0; cid < 4; cid++) {
                host.capsule(write(cid, 0, SglDescriptor.transportDataBlock(4096)));
                host.next().release();
                assertThat(abort(host, cid)).containsExactly(true);
                assertThat(host.response().cid()).isEqualTo(cid);
            }
            // four TTAGs still draining, yet the host may have its four commands outstanding
            host.target.holdCompletions = true;
            for (int cid = 10; cid < 14; cid++) {
                host.noData(0x00, cid);
            }
            assertThat(host.channel.isOpen()).isTrue();
            assertThat(host.target.submitted).hasSize(4);
            host.noData(0x00, 14);
            host.assertTerminated(2, 0);                // a fifth outstanding command: PDU Sequence Error
        }
    }
}
