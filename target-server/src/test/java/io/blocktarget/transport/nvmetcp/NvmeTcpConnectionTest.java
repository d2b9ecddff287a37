package io.blocktarget.transport.nvmetcp;

import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.C2HData;
import io.blocktarget.protocol.nvmetcp.CapsuleResp;
import io.blocktarget.protocol.nvmetcp.H2CData;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.R2T;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The transport's happy paths on an EmbeddedChannel: initialization, Connect, data in and out, SQHD. */
class NvmeTcpConnectionTest {
    static final NvmeLimits LIMITS = NvmeLimits.DEFAULT;

    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }

    static Sqe write(int cid, int slba, SglDescriptor sgl) {
        return Sqe.of(0x01, cid, 1, sgl, slba);
    }

    static Sqe read(int cid, int slba, int length) {
        return Sqe.of(0x02, cid, 1, SglDescriptor.transportDataBlock(length), slba);
    }

    @Test
    void icRespIsByteExact() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            // ICReq (§3.6.2.2): CH 00 00 80 00 80000000, PFV 0, HPDA 0, DGST 03 (both digests), MAXR2T 0
            byte[] icreq = new byte[128];
            icreq[2] = (byte) 0x80;
            icreq[4] = (byte) 0x80;
            icreq[11] = 3;
            host.sendBytes(icreq);
            ByteBuf out = host.channel.readOutbound();
            byte[] expected = new byte[128];
            expected[0] = 0x01;              // PDU-Type ICResp
            expected[2] = (byte) 0x80;       // HLEN 128
            expected[4] = (byte) 0x80;       // PLEN 128 (LE)
            // 8..9 PFV 0, 10 CPDA 0
            expected[11] = 3;                // DGST: header and data digest, exactly as requested
            expected[12] = 0x00;             // 12..15 MAXH2CDATA = 1 MiB = 0x00100000 LE
            expected[13] = 0x00;
            expected[14] = 0x10;
            expected[15] = 0x00;
            assertThat(bytes(out)).isEqualTo(expected);
            out.release();
        }
    }

    @Test
    void linuxAdminConnectAndPropertyGet() throws Exception {
        Map<String, byte[]> pdus = HostEnd.captured();
        for (String kernel : List.of("linux-7.3", "linux-6.1")) {
            try (HostEnd host = HostEnd.open(LIMITS)) {
                host.sendBytes(pdus.get(kernel + "/icreq"));
                host.next().release();
                host.sendBytes(pdus.get(kernel + "/connect-admin"));
                ByteBuf raw = host.channel.readOutbound();
                // CapsuleResp (§3.6.2.7): CH 05 00 18 00 18000000; CQE DW0 = CNTLID 0x0017, DW1 0, SQHD 1 (the
                // Connect was the first capsule of a 32-entry SQ), SQID 0, CID 0, status 0
                assertThat(HexFormat.of().formatHex(bytes(raw)))
                        .isEqualTo("05001800" + "18000000" + "17000000" + "00000000" + "0100" + "0000" + "0000" + "0000");
                raw.release();
                host.sendBytes(pdus.get(kernel + "/property-get-cap"));
                Cqe cqe = host.response();
                assertThat(cqe.dw0()).isEqualTo(FakeTarget.PROPERTY_DW0);
                assertThat(cqe.dw1()).isEqualTo(FakeTarget.PROPERTY_DW1);
                assertThat(cqe.sqhd()).isEqualTo(2);
                Sqe sqe = host.target.submitted.getFirst().sqe();
                assertThat(host.target.submitted.getFirst().data()).isNull();
                assertThat(cqe.cid()).isEqualTo(sqe.cid());
                host.sendBytes(pdus.get(kernel + "/identify-cns-1"));
                NvmeTcpPdu data = host.next();
                assertThat(data).isInstanceOf(C2HData.class);
                C2HData c2h = (C2HData) data;
                assertThat(c2h.data().readableBytes()).isEqualTo(4096);
                assertThat((int) c2h.data().getUnsignedByte(255)).isEqualTo(255);
                assertThat(c2h.last()).isTrue();
                assertThat(c2h.success()).isFalse();
                c2h.release();
                assertThat(host.response().status().sc()).isZero();
            }
        }
    }

    @Test
    void linuxIoConnect() throws Exception {
        Map<String, byte[]> pdus = HostEnd.captured();
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.sendBytes(pdus.get("linux-7.3/icreq"));
            host.next().release();
            host.sendBytes(pdus.get("linux-7.3/connect-io"));
            Cqe cqe = host.response();
            assertThat(cqe.status().sc()).isZero();
            assertThat(cqe.sqid()).isEqualTo(1);
            assertThat(host.target.queues.getFirst().entries()).isEqualTo(128);
        }
    }

    @Test
    void inCapsuleWriteThenRead() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            byte[] data = pattern(16 * 1024, 1);
            host.capsule(write(7, 8, SglDescriptor.inCapsule(0, data.length)), data);
            Cqe cqe = host.response();
            assertThat(cqe.cid()).isEqualTo(7);
            assertThat(cqe.status().sc()).isZero();
            assertThat(host.target.submitted.getLast().data()).isEqualTo(data);
            host.capsule(read(8, 8, data.length));
            C2HData c2h = (C2HData) host.next();
            assertThat(bytes(c2h.data())).isEqualTo(data);
            assertThat(c2h.cccid()).isEqualTo(8);
            c2h.release();
            assertThat(host.response().sqhd()).isEqualTo(3);
        }
    }

    /** Sends {@code data} for an R2T in H2CData PDUs of {@code pduSize}. */
    static void answer(HostEnd host, R2T r2t, byte[] data, int pduSize) {
        for (long off = r2t.r2to(); off < r2t.r2to() + r2t.r2tl(); off += pduSize) {
            int n = (int) Math.min(pduSize, r2t.r2to() + r2t.r2tl() - off);
            ByteBuf b = Unpooled.wrappedBuffer(data, (int) off, n);
            host.send(new H2CData(r2t.cccid(), r2t.ttag(), off, off + n == r2t.r2to() + r2t.r2tl(), b));
            b.release();
        }
    }

    @Test
    void r2tWriteGathersH2CData() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            byte[] data = pattern(64 * 1024, 2);
            host.capsule(write(9, 0, SglDescriptor.transportDataBlock(data.length)));
            R2T r2t = (R2T) host.next();
            assertThat(r2t.cccid()).isEqualTo(9);
            assertThat(r2t.r2to()).isZero();
            assertThat(r2t.r2tl()).isEqualTo(data.length);
            assertThat(host.target.submitted).isEmpty();
            answer(host, r2t, data, 4096 * 3);
            assertThat(host.response().status().sc()).isZero();
            assertThat(host.target.submitted.getLast().data()).isEqualTo(data);
        }
    }

    @Test
    void r2tsAreSplitAtMaxH2CDataOneAtATime() {
        NvmeLimits small = new NvmeLimits(16 * 1024, 8 * 1024, 1 << 20, 16 * 1024);
        try (HostEnd host = HostEnd.open(small)) {
            host.open(1, 127, 0);
            byte[] data = pattern(40 * 1024, 3);
            host.capsule(write(10, 0, SglDescriptor.transportDataBlock(data.length)));
            long[][] expected = {{0, 16384}, {16384, 16384}, {32768, 8192}};
            for (long[] e : expected) {
                List<NvmeTcpPdu> out = host.drain();
                assertThat(out).hasSize(1);   // MAXR2T 0: never more than one R2T outstanding
                R2T r2t = (R2T) out.getFirst();
                assertThat(new long[]{r2t.r2to(), r2t.r2tl()}).isEqualTo(e);
                answer(host, r2t, data, 8192);
            }
            assertThat(host.response().status().sc()).isZero();
            assertThat(host.target.submitted.getLast().data()).isEqualTo(data);
        }
    }

    @Test
    void c2hDataIsSplitAt128KiB() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            byte[] data = pattern(256 * 1024 + 1024, 4);
            host.target.storage.setBytes(0, data);
            host.capsule(read(11, 0, data.length));
            List<NvmeTcpPdu> out = host.drain();
            assertThat(out).hasSize(4);
            ByteBuf all = Unpooled.buffer();
            long[] offsets = {0, 131072, 262144};
            for (int i = 0; i < 3; i++) {
                C2HData c = (C2HData) out.get(i);
                assertThat(c.datao()).isEqualTo(offsets[i]);
                assertThat(c.last()).isEqualTo(i == 2);
                assertThat(c.success()).isFalse();
                all.writeBytes(c.data());
                c.release();
            }
            assertThat(bytes(all)).isEqualTo(data);
            all.release();
            assertThat(out.get(3)).isInstanceOf(CapsuleResp.class);
        }
    }

    @Test
    void readCappedAtTheSglLength() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(0, 31, 0);
            // Identify returns 4096 bytes; the host asked for 1024
            host.capsule(Sqe.of(0x06, 12, 0, SglDescriptor.transportDataBlock(1024), 1));
            C2HData c = (C2HData) host.next();
            assertThat(c.data().readableBytes()).isEqualTo(1024);
            c.release();
            assertThat(host.response().status().sc()).isZero();
        }
    }

    /**
     * A burst of full socket reads grows the read buffer to 256 KiB, not Netty's default 64 KiB; the channel turns
     * unwritable at 4 MiB queued, not 64 KiB. Both from StreamTuning, which both transports apply at accept.
     */
    @Test
    void socketReadsGrowTo256KiB() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            io.blocktarget.transport.tcp.StreamTuning.apply(host.channel);
            assertThat(host.channel.config().getWriteBufferHighWaterMark()).isEqualTo(4 << 20);
            assertThat(host.channel.config().getWriteBufferLowWaterMark()).isEqualTo(1 << 20);
            var allocator = host.channel.config().getRecvByteBufAllocator();
            assertThat(allocator).isSameAs(io.blocktarget.transport.tcp.StreamTuning.RECEIVE_BUFFER);
            var handle = (io.netty.channel.RecvByteBufAllocator.ExtendedHandle) allocator.newHandle();
            for (int burst = 0; burst < 16; burst++) {
                handle.reset(host.channel.config());
                int guess = handle.guess();
                handle.lastBytesRead(guess);
                handle.readComplete();
            }
            assertThat(handle.guess()).isEqualTo(256 * 1024);
        }
    }

    @Test
    void successFlagReplacesTheResponseWhenSqFlowControlIsDisabled() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(false, false);
            Cqe connect = host.connect(1, 127, ConnectCommand.CATTR_DISABLE_SQ_FLOW_CONTROL, FakeTarget.SUBNQN);
            assertThat(connect.sqhd()).isEqualTo(0xFFFF);
            host.capsule(read(13, 0, 8192));
            List<NvmeTcpPdu> out = host.drain();
            assertThat(out).hasSize(1);
            C2HData c = (C2HData) out.getFirst();
            assertThat(c.last()).isTrue();
            assertThat(c.success()).isTrue();
            c.release();
            // a command without data still gets its CapsuleResp
            host.noData(0x00, 14);
            assertThat(host.response().cid()).isEqualTo(14);
        }
    }

    @Test
    void digestsBothWays() throws Exception {
        Map<String, byte[]> pdus = HostEnd.captured();
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.sendBytes(pdus.get("linux-6.1-digests/icreq"));
            host.next().release();
            host.sendBytes(pdus.get("linux-6.1-digests/connect-admin"));
            ByteBuf raw = host.channel.readOutbound();
            // CapsuleResp with HDGST: FLAGS 01, PLEN 28, the CRC32C of the 24 header bytes at 24..27
            assertThat(raw.getByte(1)).isEqualTo((byte) 1);
            assertThat(raw.readableBytes()).isEqualTo(28);
            assertThat(raw.getIntLE(24)).isEqualTo(io.blocktarget.protocol.Crc32c.compute(raw, 0, 24));
            raw.release();
        }
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(true, true);
            host.connect(1, 127, 0, FakeTarget.SUBNQN);
            byte[] data = pattern(8192, 5);
            host.capsule(write(1, 0, SglDescriptor.inCapsule(0, data.length)), data);
            assertThat(host.response().status().sc()).isZero();
            byte[] big = pattern(100_000, 6);
            host.capsule(write(2, 64, SglDescriptor.transportDataBlock(big.length)));
            answer(host, (R2T) host.next(), big, 32768);
            assertThat(host.response().status().sc()).isZero();
            // the host end verifies HDGST and DDGST of every C2HData while decoding
            host.capsule(read(3, 64, big.length));
            C2HData c = (C2HData) host.next();
            assertThat(bytes(c.data())).isEqualTo(Arrays.copyOf(big, big.length));
            c.release();
            assertThat(host.response().status().sc()).isZero();
        }
    }

    @Test
    void completionsAfterTheResponseOrderAreMatchedByCid() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.target.holdCompletions = true;
            host.noData(0x00, 21);
            host.noData(0x00, 22);
            assertThat(host.drain()).isEmpty();
            host.target.held.get(1).run();
            host.target.held.get(0).run();
            assertThat(host.response().cid()).isEqualTo(22);
            assertThat(host.response().cid()).isEqualTo(21);
        }
    }

    @Test
    void connectDataMayComeByR2T() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(false, false);
            ByteBuf data = Unpooled.buffer(1024);
            new io.blocktarget.protocol.nvme.ConnectData(HostEnd.HOSTID, 0xFFFF, FakeTarget.SUBNQN, HostEnd.HOSTNQN)
                    .encode(data);
            host.capsule(new ConnectCommand(5, 0, 0, 31, 0, 5000, SglDescriptor.transportDataBlock(1024)).toSqe());
            R2T r2t = (R2T) host.next();
            assertThat(r2t.r2tl()).isEqualTo(1024);
            answer(host, r2t, bytes(data), 512);
            data.release();
            Cqe cqe = host.response();
            assertThat(cqe.status().sc()).isZero();
            assertThat(cqe.dw0()).isEqualTo(FakeTarget.CNTLID);
        }
    }

    @Test
    void c2hDataIsAlignedToTheHostsHpda() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.sendBytes(new byte[]{0, 0, (byte) 0x80, 0, (byte) 0x80, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0});
            host.sendBytes(new byte[112]);   // the rest of the 128-byte ICReq: HPDA 3 = 16-byte alignment
            host.next().release();
            host.connect(1, 127, 0, FakeTarget.SUBNQN);
            host.capsule(read(1, 0, 512));
            ByteBuf raw = host.channel.readOutbound();
            // C2HData: HLEN 24, PDO 32 (24 rounded up to 16), PLEN 32 + 512
            assertThat(raw.getUnsignedByte(0)).isEqualTo((short) 0x07);
            assertThat(raw.getUnsignedByte(3)).isEqualTo((short) 32);
            assertThat(raw.getUnsignedIntLE(4)).isEqualTo(32 + 512);
            raw.release();
        }
    }

    @Test
    void readingPausesWhileTheHostDoesNotTakeItsData() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.channel.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
            host.channel.runPendingTasks();
            assertThat(host.channel.config().isAutoRead()).isFalse();
            host.channel.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
            host.channel.runPendingTasks();
            assertThat(host.channel.config().isAutoRead()).isTrue();
        }
    }

    @Test
    void refusedConnectIsReportedAndMayBeRetried() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(false, false);
            Cqe refused = host.connect(0, 31, 0, FakeTarget.REFUSED);
            assertThat(refused.status()).isEqualTo(status(NvmeStatus.CONNECT_INVALID_HOST));
            assertThat(host.connect(0, 31, 0, FakeTarget.SUBNQN).status().sc()).isZero();
        }
    }

    @Test
    void unusableSglsAndOversizedWritesFailTheCommandOnly() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.capsule(write(1, 0, new SglDescriptor(0, 4096, 0, SglDescriptor.TYPE_KEYED_DATA_BLOCK, 0)));
            assertThat(status(host.response())).isEqualTo(status(NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID));
            host.capsule(write(2, 0, SglDescriptor.transportDataBlock(2 << 20)));
            assertThat(status(host.response())).isEqualTo(status(NvmeStatus.INVALID_FIELD));
            host.capsule(Sqe.of(0x02, 3, 1, SglDescriptor.inCapsule(0, 4096), 0));
            assertThat(status(host.response())).isEqualTo(status(NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID));
            host.capsule(write(4, 0, SglDescriptor.inCapsule(512, 4096)), new byte[4096]);
            assertThat(status(host.response())).isEqualTo(status(NvmeStatus.DATA_SGL_LENGTH_INVALID));
            assertThat(host.target.submitted).isEmpty();
            assertThat(host.channel.isActive()).isTrue();
        }
    }

    /** The CQE's status as the reason's row encodes it (SCT/SC alone are ambiguous across command sets). */
    static io.blocktarget.protocol.nvme.CqeStatus status(Cqe cqe) {
        return cqe.status();
    }

    static io.blocktarget.protocol.nvme.CqeStatus status(NvmeStatus reason) {
        return reason.toCqeStatus();
    }
}
