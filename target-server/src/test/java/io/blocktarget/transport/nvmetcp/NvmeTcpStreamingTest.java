package io.blocktarget.transport.nvmetcp;

import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.NvmeTcpFraming;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPduType;
import io.blocktarget.protocol.nvmetcp.R2T;
import io.blocktarget.protocol.nvmetcp.TermReq;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Random;

import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.LIMITS;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.answer;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.bytes;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.pattern;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.read;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.write;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DESIGN.md §8 tier 2: a whole session fed whole, one byte at a time and at random splits produces the same
 * controller bytes; random garbage only ever ends in a C2HTermReq and a close (or waits for more bytes).
 */
class NvmeTcpStreamingTest {

    /** Runs a session interactively (digests as given) and returns {host bytes, controller bytes}. */
    private static byte[][] session(boolean digests) {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(digests, digests);
            host.connect(1, 127, 0, FakeTarget.SUBNQN);
            byte[] small = pattern(4096, 11);
            host.capsule(write(1, 0, SglDescriptor.inCapsule(0, small.length)), small);
            host.response();
            byte[] big = pattern(40_000, 12);
            host.capsule(write(2, 16, SglDescriptor.transportDataBlock(big.length)));
            answer(host, (R2T) host.next(), big, 20_000);
            host.response();
            host.capsule(read(3, 16, big.length));
            host.drain().forEach(NvmeTcpPdu::release);
            host.noData(0x00, 4);
            host.response();
            return new byte[][]{bytes(host.sentLog), bytes(host.receivedLog)};
        }
    }

    /** Replays {@code input} in pieces chosen by {@code split}; returns what the controller wrote. */
    private static byte[] replay(byte[] input, java.util.function.IntUnaryOperator split) {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            for (int i = 0; i < input.length; ) {
                int n = Math.min(input.length - i, Math.max(1, split.applyAsInt(i)));
                host.sendBytes(Unpooled.wrappedBuffer(input, i, n));
                i += n;
            }
            host.drain().forEach(NvmeTcpPdu::release);
            assertThat(host.channel.isOpen()).isTrue();
            return bytes(host.receivedLog);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void byteAtATimeGivesTheSameAnswers(boolean digests) {
        byte[][] s = session(digests);
        assertThat(replay(s[0], i -> 1)).isEqualTo(s[1]);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void randomSplitsGiveTheSameAnswers(int seed) {
        byte[][] s = session(seed % 2 == 0);
        Random r = new Random(seed);
        assertThat(replay(s[0], i -> r.nextInt(r.nextBoolean() ? 16 : 9000) + 1)).isEqualTo(s[1]);
    }

    @Test
    void randomGarbageEndsInATermReqOrWaits() {
        for (int seed = 0; seed < 400; seed++) {
            Random r = new Random(seed);
            try (HostEnd host = HostEnd.open(LIMITS)) {
                if (r.nextBoolean()) {
                    host.icReq(r.nextBoolean(), r.nextBoolean());
                    if (r.nextBoolean()) {
                        host.connect(r.nextInt(2), 127, 0, FakeTarget.SUBNQN);
                    }
                }
                byte[] garbage = new byte[r.nextInt(600) + 1];
                r.nextBytes(garbage);
                if (r.nextBoolean()) {
                    // a plausible common header makes the decoders go deeper
                    garbage[0] = (byte) r.nextInt(10);
                    if (garbage.length > 7) {
                        garbage[2] = (byte) (r.nextBoolean() ? 24 : 72);
                        garbage[3] = (byte) (r.nextBoolean() ? 0 : garbage[2]);
                        garbage[4] = (byte) Math.min(garbage.length, 255);
                        garbage[5] = 0;
                        garbage[6] = 0;
                        garbage[7] = 0;
                    }
                }
                host.sendBytes(garbage);
                List<NvmeTcpPdu> out = host.drain();
                out.forEach(NvmeTcpPdu::release);
                if (!host.channel.isOpen()) {
                    assertThat(out).as("seed " + seed).isNotEmpty();
                    assertThat(out.getLast()).as("seed " + seed).isInstanceOfAny(TermReq.class);
                    assertThat(((TermReq) out.getLast()).type()).isEqualTo(NvmeTcpPduType.C2H_TERM_REQ);
                }
                assertThat(host.undecodedBytes()).as("seed " + seed).isZero();
            }
        }
    }

    @Test
    void nothingIsReadAfterAFatalError() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(false, false);
            ByteBuf both = Unpooled.buffer();
            both.writeBytes(new byte[]{0x0B, 0, 24, 0, 24, 0, 0, 0});
            both.writeBytes(host.encode(new io.blocktarget.protocol.nvmetcp.CapsuleCmd(
                    Sqe.of(0x18, 1, 0, SglDescriptor.transportDataBlock(0)))));
            host.sendBytes(both);
            host.assertTerminated(1, 0);
            assertThat(host.target.submitted).isEmpty();
        }
        assertThat(NvmeTcpFraming.MAX_TERM_REQ_PLEN).isEqualTo(152);
    }
}
