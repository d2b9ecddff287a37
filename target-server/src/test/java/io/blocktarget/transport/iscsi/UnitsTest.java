package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataIn;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.NopIn;
import io.blocktarget.protocol.iscsi.NopOut;
import io.blocktarget.protocol.iscsi.ResidualFlag;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The small pure pieces: CmdSN window, CHAP arithmetic, Data-In cutting, SendTargets, frame writer, settings. */
class UnitsTest {
    private static NopOut nop(int cmdSN) {
        return new NopOut(false, 0, 1, Bhs.RESERVED_TAG, cmdSN, 0, Unpooled.EMPTY_BUFFER);
    }

    @Test
    void commandWindowAcrossTheSerialNumberWrap() {
        CommandWindow w = new CommandWindow(0xFFFF_FFFE, 4, () -> 0);
        assertThat(w.maxCmdSN()).isEqualTo(1);
        assertThat(w.admit(nop(0xFFFF_FFFE), false, 0xFFFF_FFFE)).isEqualTo(CommandWindow.Admission.DELIVER);
        assertThat(w.admit(nop(0), false, 0)).isEqualTo(CommandWindow.Admission.HELD);
        assertThat(w.admit(nop(5), false, 5)).isEqualTo(CommandWindow.Admission.DROPPED);
        assertThat(w.admit(nop(0xFFFF_FFF0), false, 0xFFFF_FFF0)).isEqualTo(CommandWindow.Admission.DROPPED);
        assertThat(w.admit(nop(7), true, 7)).isEqualTo(CommandWindow.Admission.DELIVER);
        assertThat(w.expCmdSN()).isEqualTo(0xFFFF_FFFF);
        assertThat(w.admit(nop(0xFFFF_FFFF), false, 0xFFFF_FFFF)).isEqualTo(CommandWindow.Admission.DELIVER);
        assertThat(w.drainReady()).hasSize(1);
        assertThat(w.expCmdSN()).isEqualTo(1);
        assertThat(w.maxCmdSN()).isEqualTo(4);
    }

    @Test
    void outstandingTasksNarrowTheWindowWithoutEverShrinkingIt() {
        int[] active = {0};
        CommandWindow w = new CommandWindow(10, 3, () -> active[0]);
        assertThat(w.maxCmdSN()).isEqualTo(12);
        for (int sn = 10; sn <= 12; sn++) {
            assertThat(w.admit(nop(sn), false, sn)).isEqualTo(CommandWindow.Admission.DELIVER);
            active[0]++;
            assertThat(w.maxCmdSN()).isEqualTo(12);
        }
        assertThat(w.maxCmdSN()).isEqualTo(w.expCmdSN() - 1);
        assertThat(w.admit(nop(13), false, 13)).isEqualTo(CommandWindow.Admission.DROPPED);
        active[0]--;
        assertThat(w.maxCmdSN()).isEqualTo(13);
        assertThat(w.admit(nop(13), false, 13)).isEqualTo(CommandWindow.Admission.DELIVER);
    }

    @Test
    void chapMd5MatchesAnIndependentVector() {
        // MD5(0x07 || "secretsecret" || 00 01 .. 0f), computed outside the project (Python hashlib).
        byte[] challenge = new byte[16];
        for (int i = 0; i < 16; i++) {
            challenge[i] = (byte) i;
        }
        assertThat(HexFormat.of().formatHex(ChapAuthenticator.md5(7, "secretsecret", challenge)))
                .isEqualTo("6ecf51cbe0f7ac32d9cd952f3fd639c0");
        ChapAuthenticator auth = new ChapAuthenticator(Chap.oneWay("u", "secretsecret"),
                new ChapAuthenticator.Challenge(7, challenge));
        assertThat(auth.verify("u", "0x6ecf51cbe0f7ac32d9cd952f3fd639c0")).isTrue();
        assertThat(auth.verify("u", "0bbs9Ry+D3rDLZzZUvP9Y5wA==")).isTrue();
        assertThat(auth.verify("u", "0bAs9Ry+D3rDLZzZUvP9Y5wA==")).isFalse();
        assertThat(auth.verify("u", "0b!!")).isFalse();
        assertThat(auth.verify("u", "0b" + java.util.Base64.getEncoder().encodeToString(
                HexFormat.of().parseHex("6ecf51cbe0f7ac32d9cd952f3fd639c0")))).isTrue();
        assertThat(auth.verify("v", "0x6ecf51cbe0f7ac32d9cd952f3fd639c0")).isFalse();
        assertThat(auth.verify("u", "6ecf51cbe0f7ac32d9cd952f3fd639c0")).isFalse();
        assertThat(auth.verify("u", "0xzz")).isFalse();
    }

    @Test
    void mutualChapRefusesAReflectedChallenge() {
        byte[] challenge = new byte[16];
        ChapAuthenticator auth = new ChapAuthenticator(Chap.mutual("u", "s1", "t", "s2"),
                new ChapAuthenticator.Challenge(1, challenge));
        assertThat(auth.answer("1", "0x" + HexFormat.of().formatHex(challenge))).isEmpty();
        assertThat(auth.answer("300", "0x01")).isEmpty();
        assertThat(auth.answer("3", "0x01")).contains(List.of("t",
                "0x" + HexFormat.of().formatHex(ChapAuthenticator.md5(3, "s2", new byte[] {1}))));
        assertThat(ChapAuthenticator.newChallenge().challenge()).hasSizeGreaterThanOrEqualTo(16);
    }

    @Test
    void chapSecretsNeverShowInToString() {
        assertThat(Chap.mutual("u", "topsecret", "t", "othersecret").toString())
                .doesNotContain("topsecret").doesNotContain("othersecret");
    }

    private static final class FixedSequence implements ConnectionIo {
        int statSN = 100;

        @Override public int nextStatSN() { return statSN++; }
        @Override public int statSN() { return statSN; }
        @Override public int expCmdSN() { return 5; }
        @Override public int maxCmdSN() { return 20; }
        @Override public void send(io.blocktarget.protocol.iscsi.TargetPdu pdu) { pdu.release(); }
        @Override public void reject(io.blocktarget.protocol.iscsi.RejectReason r,
                                     io.blocktarget.protocol.iscsi.InitiatorPdu p) { }
        @Override public void fatal(String reason) { }
        @Override public io.netty.util.concurrent.EventExecutor executor() { return null; }
        @Override public io.netty.buffer.ByteBufAllocator alloc() { return UnpooledByteBufAllocator.DEFAULT; }
    }

    /** RFC 7143 §11.3.1 ATTR codes 0..4 are SAM-5's UNTAGGED..ACA, mapped by constant, not by name. */
    @Test
    void everyAttrCodeMapsToTheSamTaskAttributeOfThatCode() {
        for (io.blocktarget.protocol.iscsi.TaskAttribute a : io.blocktarget.protocol.iscsi.TaskAttribute.values()) {
            io.blocktarget.scsi.TaskAttribute sam = TaskEngine.samAttribute(a);
            assertThat(sam.name()).isEqualTo(a.name());
            assertThat(sam.ordinal()).as(a + " code").isEqualTo(a.code());
        }
        assertThat(io.blocktarget.protocol.iscsi.TaskAttribute.values()).hasSameSizeAs(
                io.blocktarget.scsi.TaskAttribute.values());
    }

    /** Segments and bursts of 8 KiB, no digests: a 4 KiB read fits one Data-In. */
    private static final OperationalParameters ONE_SEGMENT_PER_4K_READ =
            new OperationalParameters(Digest.NONE, Digest.NONE, 8192, 8192, 8192, true, true, 1);

    /** A READ task (ITT 9, LUN 0) of {@code edtl} bytes whose data-in is being cut. */
    private static ScsiTask readTask(long edtl) {
        return new ScsiTask(9, 0, edtl, true, false, null, 0, ScsiTask.UnsolicitedPhase.ENDED,
                ScsiTask.State.MACHINE.newCounters());
    }

    @Test
    void dataInIsCutBySegmentAndBurstWithStatusOnlyInTheLast() {
        ScsiTask task = readTask(20000);
        OperationalParameters p = new OperationalParameters(Digest.NONE, Digest.NONE, 4096, 10000, 4096, true, true, 1);
        ByteBuf data = Unpooled.wrappedBuffer(new byte[20000]);
        FixedSequence io = new FixedSequence();
        List<DataIn> pdus = DataInSegmenter.segments(task, data, 20000, p, 0, ResidualFlag.UNDERFLOW, 12, io);
        // bursts of 10000: 4096 + 4096 + 1808 | 4096 + 4096 + 1808
        assertThat(pdus).extracting(d -> d.data().readableBytes()).containsExactly(4096, 4096, 1808, 4096, 4096, 1808);
        assertThat(pdus).extracting(DataIn::bufferOffset).containsExactly(0L, 4096L, 8192L, 10000L, 14096L, 18192L);
        assertThat(pdus).extracting(DataIn::finalBit).containsExactly(false, false, true, false, false, true);
        assertThat(pdus).extracting(DataIn::dataSN).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(pdus.getLast().status()).hasValue(0);
        assertThat(pdus.getLast().residual()).isEqualTo(ResidualFlag.UNDERFLOW);
        assertThat(pdus.getLast().statSN()).isEqualTo(100);
        assertThat(pdus.getFirst().status()).isEmpty();
        assertThat(io.statSN).isEqualTo(101);
        assertThat(data.refCnt()).as("one reference per PDU: the segmenter gave the caller's up").isEqualTo(6);
        pdus.forEach(DataIn::release);
        assertThat(data.refCnt()).isZero();
    }

    @Test
    void dataInOfOneSegmentCarriesTheBufferItselfAndAShorterOneASlice() {
        ScsiTask task = readTask(4096);
        OperationalParameters p = ONE_SEGMENT_PER_4K_READ;
        ByteBuf data = Unpooled.wrappedBuffer(new byte[4096]);
        List<DataIn> sent = new java.util.ArrayList<>();
        int n = DataInSegmenter.send(task, data, 4096, p, 0, ResidualFlag.NONE, 0, new FixedSequence(), sent::add);
        assertThat(n).isOne();
        // no slice object, and no retain and release of the data, per read (issue 31): the PDU owns the buffer
        assertThat(sent.getFirst().data()).isSameAs(data);
        assertThat(data.refCnt()).isOne();
        sent.getFirst().release();
        assertThat(data.refCnt()).isZero();
        // EDTL below the data: a slice of the first 1000 bytes, the residual reported by the caller
        data = Unpooled.wrappedBuffer(new byte[4096]);
        n = DataInSegmenter.send(task, data, 1000, p, 0, ResidualFlag.NONE, 0, new FixedSequence(), sent::add);
        assertThat(n).isOne();
        assertThat(sent.getLast().data()).isNotSameAs(data);
        assertThat(sent.getLast().data().readableBytes()).isEqualTo(1000);
        assertThat(data.refCnt()).as("the slice's reference only").isOne();
        sent.getLast().release();
        assertThat(data.refCnt()).isZero();
    }

    @Test
    void dataInSegmenterReleasesTheDataWhenAPduCannotBeBuilt() {
        ScsiTask task = readTask(4096);
        OperationalParameters p = ONE_SEGMENT_PER_4K_READ;
        ByteBuf data = Unpooled.wrappedBuffer(new byte[4096]);
        // a residual count beyond 32 bits: the Data-In record refuses it before the sink ever owns the buffer
        assertThatThrownBy(() -> DataInSegmenter.send(task, data, 4096, p, 0, ResidualFlag.UNDERFLOW, 1L << 32,
                new FixedSequence(), d -> { })).isInstanceOf(IllegalArgumentException.class);
        assertThat(data.refCnt()).isZero();
    }

    @Test
    void sendTargetsReplacesWildcardsAndBracketsIpv6() {
        InetSocketAddress v4 = new InetSocketAddress("10.1.2.3", 3260);
        InetSocketAddress v6 = new InetSocketAddress("::1", 3260);
        assertThat(SendTargets.addresses(List.of(), v4)).containsExactly("10.1.2.3:3260");
        assertThat(SendTargets.addresses(List.of("0.0.0.0:3260", "192.0.2.1:3261"), v4))
                .containsExactly("10.1.2.3:3260", "192.0.2.1:3261");
        assertThat(SendTargets.addresses(List.of("[::]:3260"), v6)).containsExactly("[0:0:0:0:0:0:0:1]:3260");
        byte[] one = SendTargets.answer("iqn.b", true, null, List.of("iqn.a", "iqn.b"), List.of(), 2, v4);
        assertThat(new String(one, java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("TargetName=iqn.b\0TargetAddress=10.1.2.3:3260,2\0");
        assertThat(SendTargets.answer("iqn.zzz", true, null, List.of("iqn.a"), List.of(), 1, v4)).isEmpty();
        // a portal per target portal group (issue 29): each address keeps its own tag (RFC 7143 §13.8)
        assertThat(SendTargets.addresses(List.of("0.0.0.0:3260,1", "192.0.2.1:3261,2"), v4))
                .containsExactly("10.1.2.3:3260,1", "192.0.2.1:3261,2");
        assertThat(new String(SendTargets.answer("All", true, null, List.of("iqn.a"),
                List.of("0.0.0.0:3260,1", "192.0.2.1:3261,2"), 1, v4), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("TargetName=iqn.a\0TargetAddress=10.1.2.3:3260,1\0TargetAddress=192.0.2.1:3261,2\0");
        assertThat(new String(SendTargets.answer("All", false, "iqn.a", List.of("iqn.a", "iqn.b"), List.of(), 1, v4),
                java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("TargetName=iqn.a\0TargetAddress=10.1.2.3:3260,1\0");
    }

    @Test
    void frameWriterAppendsPaddingAndDigestsByteExact() {
        NopIn pdu = new NopIn(0, 0x01020304, Bhs.RESERVED_TAG, 7, 8, 9, Unpooled.wrappedBuffer(new byte[] {'a'}));
        ByteBuf frame = PduWriter.frame(pdu, UnpooledByteBufAllocator.DEFAULT, Digest.CRC32C, Digest.CRC32C);
        byte[] bytes = ByteBufUtil.getBytes(frame);
        frame.release();
        assertThat(bytes).hasSize(48 + 4 + 4 + 4);
        byte[] expectedBhs = new byte[48];
        expectedBhs[0] = 0x20;                 // opcode NOP-In
        expectedBhs[1] = (byte) 0x80;          // F
        expectedBhs[7] = 1;                    // DataSegmentLength = 1
        expectedBhs[16] = 1; expectedBhs[17] = 2; expectedBhs[18] = 3; expectedBhs[19] = 4; // ITT
        for (int i = 20; i < 24; i++) {
            expectedBhs[i] = (byte) 0xff;      // TTT
        }
        expectedBhs[27] = 7;                   // StatSN
        expectedBhs[31] = 8;                   // ExpCmdSN
        expectedBhs[35] = 9;                   // MaxCmdSN
        assertThat(java.util.Arrays.copyOf(bytes, 48)).isEqualTo(expectedBhs);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(expectedBhs);
        int headerCrc = (int) crc.getValue();
        assertThat(java.nio.ByteBuffer.wrap(bytes, 48, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt())
                .isEqualTo(headerCrc);
        assertThat(java.util.Arrays.copyOfRange(bytes, 52, 56)).containsExactly('a', 0, 0, 0);
        crc.reset();
        crc.update(new byte[] {'a', 0, 0, 0});
        assertThat(java.nio.ByteBuffer.wrap(bytes, 56, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt())
                .isEqualTo((int) crc.getValue());
    }

    @Test
    void settingsAreValidated() {
        IscsiSettings d = IscsiSettings.defaults();
        assertThat(d.maxRecvDataSegmentLength()).isGreaterThanOrEqualTo(256 * 1024);
        assertThat(d.queueDepth()).isEqualTo(128);
        assertThat(d.portalGroupTag()).isEqualTo(1);
        assertThatThrownBy(() -> d.withBursts(4096, 8192, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withPortals(List.of("no-port"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> d.withQueueDepth(0)).isInstanceOf(IllegalArgumentException.class);
        // RFC 7143 §13.12: 512 is the smallest MaxRecvDataSegmentLength (a session knob may go down to it)
        assertThatThrownBy(() -> new IscsiSettings(1, List.of(), 1, 511, 65536, 8192, 1, 1 << 20,
                Duration.ZERO, Duration.ZERO, Duration.ofSeconds(1), Map.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Chap("u", "s", java.util.Optional.of("t"), java.util.Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
