package io.blocktarget.transport.nvmetcp;

import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.protocol.Crc32c;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.CapsuleCmd;
import io.blocktarget.protocol.nvmetcp.CapsuleResp;
import io.blocktarget.protocol.nvmetcp.H2CData;
import io.blocktarget.protocol.nvmetcp.ICReq;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPduType;
import io.blocktarget.protocol.nvmetcp.R2T;
import io.blocktarget.protocol.nvmetcp.TermReq;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.LIMITS;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.read;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.status;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.write;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every connection-fatal path ends in a C2HTermReq with the FES and FEI of NVMe/TCP §3.6.2.4 and a closed
 * connection, never an exception out of the pipeline; data digest errors fail only their command.
 */
class NvmeTcpFatalTest {
    private static final int INVALID_PDU_HEADER_FIELD = 1;
    private static final int PDU_SEQUENCE_ERROR = 2;
    private static final int HEADER_DIGEST_ERROR = 3;
    private static final int DATA_TRANSFER_OUT_OF_RANGE = 4;
    private static final int DATA_TRANSFER_LIMIT_EXCEEDED = 5;
    private static final int UNSUPPORTED_PARAMETER = 6;

    static byte[] icReq(int pfv, int hpda) {
        byte[] b = new byte[128];
        b[2] = (byte) 0x80;                 // HLEN
        b[4] = (byte) 0x80;                 // PLEN
        b[8] = (byte) pfv;                  // PFV
        b[10] = (byte) hpda;                // HPDA
        return b;
    }

    @Test
    void capsuleBeforeICReqIsASequenceError() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.noData(0x18, 1);
            TermReq t = host.assertTerminated(PDU_SEQUENCE_ERROR, 0);
            // the offending header is copied (HLEN 72 bytes of the CapsuleCmd)
            assertThat(t.offendingHeader()).hasSize(72);
            assertThat(host.target.queues).isEmpty();
        }
    }

    @Test
    void icReqWithAnotherPfvOrTooLargeHpdaIsUnsupported() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.sendBytes(icReq(1, 0));
            host.assertTerminated(UNSUPPORTED_PARAMETER, 8);
        }
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.sendBytes(icReq(0, 32));
            host.assertTerminated(UNSUPPORTED_PARAMETER, 10);
        }
    }

    @Test
    void secondICReqIsASequenceError() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(false, false);
            host.sendBytes(icReq(0, 0));
            host.assertTerminated(PDU_SEQUENCE_ERROR, 0);
        }
    }

    @Test
    void unknownTypeBadHlenAndControllerPdusAreInvalidHeaderFields() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(false, false);
            host.sendBytes(new byte[]{0x0A, 0, 24, 0, 24, 0, 0, 0});
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 0);
        }
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(false, false);
            host.sendBytes(new byte[]{0x04, 0, 24, 0, 24, 0, 0, 0});   // CapsuleCmd with HLEN 24
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 2);
        }
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(false, false);
            host.send(new CapsuleResp(Cqe.of(1, 0, 0, NvmeStatus.SUCCESS, 0)));
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 0);
        }
    }

    @Test
    void headerDigestErrorIsFatal() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(true, false);
            byte[] capsule = host.encodeBytes(new CapsuleCmd(Sqe.of(0x18, 1, 0, SglDescriptor.transportDataBlock(0))));
            capsule[72] ^= 1;   // HDGST follows the 72-byte header
            host.sendBytes(capsule);
            TermReq t = host.assertTerminated(HEADER_DIGEST_ERROR, 0);
            assertThat(t.offendingHeader()).hasSize(76);   // header plus its (bad) digest
        }
    }

    @Test
    void inCapsuleDataOverTheQueueLimitIsFatal() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(0, 31, 0);
            // admin queue: 8 KiB in-capsule; PLEN is the field in error
            host.capsule(write(1, 0, SglDescriptor.inCapsule(0, 8193)), new byte[8193]);
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 4);
        }
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(false, false);
            // before Connect only the 1024 bytes of Connect data fit
            host.capsule(write(1, 0, SglDescriptor.inCapsule(0, 2048)), new byte[2048]);
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 4);
        }
    }

    @Test
    void cidConflictAndQueueOverrunAreFatal() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.target.holdCompletions = true;
            host.noData(0x00, 5);
            host.noData(0x00, 5);
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 10);
            assertThat(host.target.queues.getFirst().closed).isEqualTo(1);
            // the held completion arrives after the close: nothing is sent, nothing breaks
            host.target.held.getFirst().run();
            assertThat(host.drain()).isEmpty();
        }
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(0, 31, 0);
            host.target.holdCompletions = true;
            for (int cid = 0; cid < 33; cid++) {
                host.noData(0x18, cid);
            }
            host.assertTerminated(PDU_SEQUENCE_ERROR, 0);
            assertThat(host.target.submitted).hasSize(32);
        }
    }

    /** A 64 KiB R2T write on a fresh I/O queue; returns the R2T. */
    private static R2T startWrite(HostEnd host, int cid) {
        host.open(1, 127, 0);
        host.capsule(write(cid, 0, SglDescriptor.transportDataBlock(65536)));
        return (R2T) host.next();
    }

    private static void h2c(HostEnd host, int cccid, int ttag, long datao, int n, boolean last) {
        ByteBuf data = Unpooled.wrappedBuffer(new byte[n]);
        host.send(new H2CData(cccid, ttag, datao, last, data));
        data.release();
    }

    @Test
    void h2cDataForNoR2TOrAnotherCommandIsFatal() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            R2T r2t = startWrite(host, 3);
            h2c(host, 3, r2t.ttag() + 1, 0, 4096, false);
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 10);
        }
        try (HostEnd host = HostEnd.open(LIMITS)) {
            R2T r2t = startWrite(host, 3);
            h2c(host, 4, r2t.ttag(), 0, 4096, false);
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 8);
        }
    }

    @Test
    void h2cDataOutsideTheR2TIsOutOfRange() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            R2T r2t = startWrite(host, 3);
            h2c(host, 3, r2t.ttag(), 4096, 4096, false);   // a gap: expected offset 0
            host.assertTerminated(DATA_TRANSFER_OUT_OF_RANGE, 0);
        }
        try (HostEnd host = HostEnd.open(LIMITS)) {
            R2T r2t = startWrite(host, 3);
            h2c(host, 3, r2t.ttag(), 0, 65536 + 4, true);   // beyond R2TL
            host.assertTerminated(DATA_TRANSFER_OUT_OF_RANGE, 0);
        }
    }

    @Test
    void h2cDataOverMaxH2CDataExceedsTheLimit() {
        NvmeLimits small = new NvmeLimits(16 * 1024, 8 * 1024, 1 << 20, 16 * 1024);
        try (HostEnd host = HostEnd.open(small)) {
            R2T r2t = startWrite(host, 3);
            h2c(host, 3, r2t.ttag(), 0, 16 * 1024 + 4, false);
            host.assertTerminated(DATA_TRANSFER_LIMIT_EXCEEDED, 0);
        }
    }

    @Test
    void lastPduMustEndTheR2TExactly() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            R2T r2t = startWrite(host, 3);
            h2c(host, 3, r2t.ttag(), 0, 4096, true);
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 1);
        }
        try (HostEnd host = HostEnd.open(LIMITS)) {
            R2T r2t = startWrite(host, 3);
            h2c(host, 3, r2t.ttag(), 0, 65536, false);
            host.assertTerminated(INVALID_PDU_HEADER_FIELD, 1);
        }
    }

    @Test
    void h2cTermReqClosesWithoutAnswer() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(0, 31, 0);
            host.send(new TermReq(NvmeTcpPduType.H2C_TERM_REQ, 2, 0, new byte[0]));
            assertThat(host.drain()).isEmpty();
            assertThat(host.channel.isOpen()).isFalse();
            assertThat(host.target.queues.getFirst().closed).isEqualTo(1);
        }
    }

    @Test
    void terminateFromTheControllerClosesTheConnection() throws Exception {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(0, 31, 0);
            Thread t = new Thread(() -> host.target.connection.terminate("keep-alive timer expired"));
            t.start();
            t.join();
            host.channel.runPendingTasks();
            assertThat(host.channel.isOpen()).isFalse();
            assertThat(host.target.queues.getFirst().closed).isEqualTo(1);
        }
    }

    @Test
    void dataDigestErrorInACapsuleFailsOnlyThatCommand() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(false, true);
            host.connect(1, 127, 0, FakeTarget.SUBNQN);
            byte[] data = NvmeTcpConnectionTest.pattern(4096, 7);
            byte[] capsule = host.encodeBytes(new CapsuleCmd(write(6, 0, SglDescriptor.inCapsule(0, 4096)),
                    Unpooled.wrappedBuffer(data)));
            capsule[capsule.length - 1] ^= 1;   // DDGST is the last 4 bytes
            host.sendBytes(capsule);
            Cqe cqe = host.response();
            assertThat(cqe.cid()).isEqualTo(6);
            assertThat(cqe.status()).isEqualTo(status(NvmeStatus.TRANSIENT_TRANSPORT_ERROR));
            assertThat(host.target.submitted).isEmpty();
            assertThat(host.channel.isOpen()).isTrue();
            host.capsule(read(7, 0, 4096));
            host.next().release();
            assertThat(host.response().status().sc()).isZero();
        }
    }

    @Test
    void dataDigestErrorInH2CDataFailsTheCommandAfterItsData() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(false, true);
            host.connect(1, 127, 0, FakeTarget.SUBNQN);
            host.capsule(write(8, 0, SglDescriptor.transportDataBlock(8192)));
            R2T r2t = (R2T) host.next();
            byte[] first = host.encodeBytes(new H2CData(8, r2t.ttag(), 0, false, Unpooled.wrappedBuffer(new byte[4096])));
            first[first.length - 2] ^= 0x40;
            host.sendBytes(first);
            assertThat(host.drain()).isEmpty();   // the rest of the R2T's data is still expected
            h2c(host, 8, r2t.ttag(), 4096, 4096, true);
            Cqe cqe = host.response();
            assertThat(cqe.status()).isEqualTo(status(NvmeStatus.TRANSIENT_TRANSPORT_ERROR));
            assertThat(host.target.submitted).isEmpty();
            host.capsule(write(9, 0, SglDescriptor.transportDataBlock(4096)));
            R2T again = (R2T) host.next();
            h2c(host, 9, again.ttag(), 0, 4096, true);
            assertThat(host.response().status().sc()).isZero();
        }
    }

    @Test
    void aFatalErrorLeavesOtherConnectionsAlone() {
        FakeTarget shared = new FakeTarget();
        NvmeTcpTransport transport = new NvmeTcpTransport(shared, LIMITS);
        try (HostEnd bad = new HostEnd(transport); HostEnd good = new HostEnd(transport)) {
            bad.open(0, 31, 0);
            good.open(1, 127, 0);
            bad.sendBytes(new byte[]{(byte) 0xFF, 0, 0, 0, 0, 0, 0, 0});
            bad.assertTerminated(INVALID_PDU_HEADER_FIELD, 0);
            good.capsule(read(1, 0, 512));
            good.next().release();
            assertThat(good.response().status().sc()).isZero();
            assertThat(good.channel.isOpen()).isTrue();
            assertThat(shared.queues.get(1).closed).isZero();
            transport.close();
            assertThat(good.channel.isOpen()).isFalse();
            assertThat(shared.queues.get(1).closed).isEqualTo(1);
        } finally {
            shared.release();
        }
    }

    @Test
    void headerDigestOfTheCapturedLinuxConnectIsVerified() throws Exception {
        byte[] connect = HostEnd.captured().get("linux-6.1-digests/connect-admin").clone();
        // the capture's HDGST at 72..75 is the CRC32C of the 72 header bytes
        assertThat(Unpooled.wrappedBuffer(connect).getIntLE(72))
                .isEqualTo(Crc32c.compute(Unpooled.wrappedBuffer(connect), 0, 72));
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.sendBytes(HostEnd.captured().get("linux-6.1-digests/icreq"));
            host.next().release();
            byte[] broken = Arrays.copyOf(connect, connect.length);
            broken[40] ^= 0x01;
            host.sendBytes(broken);
            host.assertTerminated(HEADER_DIGEST_ERROR, 0);
        }
    }

}
