package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Seeded random input: framing, PDU decoders and the text codec may only answer with a PDU or an
 * IscsiProtocolException — never another exception — and never keep a reference to the input.
 */
class FuzzTest {
    private static final int ROUNDS = 10_000;

    @Test
    void randomAndMutatedFramesOnlyYieldPdusOrProtocolErrors() {
        Random r = new Random(0x1C5C1);
        int decoded = 0;
        int refused = 0;
        for (int i = 0; i < ROUNDS; i++) {
            byte[] input = input(r, i);
            ByteBuf frame = PooledByteBufAllocator.DEFAULT.directBuffer(input.length).writeBytes(input);
            try {
                IscsiPdu pdu = IscsiPdus.decode(frame);
                decoded++;
                pdu.release();
            } catch (IscsiProtocolException e) {
                refused++;
            } catch (RuntimeException | Error e) {
                fail("input " + i + " " + Bytes.toHex(input) + " threw " + e, e);
            }
            assertThat(frame.refCnt()).as("input %d leaked", i).isEqualTo(1);
            frame.release();
        }
        // The mix exercises both outcomes substantially.
        assertThat(decoded).isGreaterThan(ROUNDS / 10);
        assertThat(refused).isGreaterThan(ROUNDS / 10);
    }

    @Test
    void randomWireBytesThroughFramingWithDigests() {
        Random r = new Random(0xD16E57);
        for (int i = 0; i < ROUNDS; i++) {
            byte[] input = input(r, i);
            Digest header = Samples.pick(r, Digest.values());
            Digest data = Samples.pick(r, Digest.values());
            FrameLimits limits = new FrameLimits(Samples.pick(r, PduSource.values()), r.nextInt(1 << 16),
                    r.nextInt(Bhs.MAX_AHS_LENGTH + 1), header, data);
            if (r.nextBoolean()) {
                input = withValidDigests(input, header, data);
            }
            ByteBuf wire = Unpooled.copiedBuffer(input);
            try {
                FrameLayout layout = IscsiFraming.layout(wire, limits);
                assertThat(layout.totalLength()).isPositive();
                IscsiFraming.decode(wire, limits).release();
            } catch (IscsiProtocolException e) {
                assertThat(e.reason()).isNotNull();
            } catch (RuntimeException | Error e) {
                fail("input " + i + " " + Bytes.toHex(input) + " threw " + e, e);
            }
            assertThat(wire.refCnt()).as("input %d leaked", i).isEqualTo(1);
            wire.release();
        }
    }

    @Test
    void randomTextSegments() {
        Random r = new Random(0x7E47);
        byte[] alphabet = Bytes.ascii("AB=\0=x-_.#\u00e9");
        for (int i = 0; i < ROUNDS; i++) {
            byte[] input = new byte[r.nextInt(80)];
            for (int j = 0; j < input.length; j++) {
                input[j] = r.nextInt(4) == 0 ? (byte) r.nextInt() : alphabet[r.nextInt(alphabet.length)];
            }
            try {
                TextParameters p = TextParameters.decode(Unpooled.wrappedBuffer(input));
                ByteBuf out = Unpooled.buffer();
                p.encode(out);
                assertThat(TextParameters.decode(out)).isEqualTo(p);
                out.release();
            } catch (IscsiProtocolException e) {
                assertThat(e.reason().name()).startsWith("TEXT_");
            } catch (RuntimeException | Error e) {
                fail("text " + Bytes.toHex(input) + " threw " + e, e);
            }
        }
    }

    /** A third pure noise, a third mutated valid PDUs, a third valid headers with random lengths. */
    private static byte[] input(Random r, int i) {
        switch (i % 3) {
            case 0 -> {
                return Samples.bytes(r, r.nextInt(120));
            }
            case 1 -> {
                List<IscsiPdu> pdus = Samples.all(r);
                byte[] valid = Bytes.encode(pdus.get(r.nextInt(pdus.size())));
                pdus.forEach(IscsiPdu::release);
                int flips = 1 + r.nextInt(4);
                for (int f = 0; f < flips; f++) {
                    // Mostly the header, where the structure is.
                    int at = r.nextInt(Math.min(valid.length, r.nextBoolean() ? 48 : valid.length));
                    valid[at] = (byte) r.nextInt();
                }
                return r.nextInt(8) == 0 ? java.util.Arrays.copyOf(valid, r.nextInt(valid.length + 1)) : valid;
            }
            default -> {
                byte[] b = Samples.bytes(r, 48 + r.nextInt(80));
                IscsiOpcode[] ops = IscsiOpcode.values();
                b[0] = (byte) (ops[r.nextInt(ops.length)].code() | (r.nextBoolean() ? 0x40 : 0));
                b[4] = (byte) r.nextInt(4);                // small TotalAHSLength
                b[5] = 0;
                b[6] = 0;
                b[7] = (byte) r.nextInt(b.length - 47);    // DSL near the real length
                return b;
            }
        }
    }

    /** Appends or overwrites digests so that some random frames get past the CRC checks. */
    private static byte[] withValidDigests(byte[] input, Digest header, Digest data) {
        if (input.length < Bhs.LENGTH) {
            return input;
        }
        ByteBuf in = Unpooled.wrappedBuffer(input);
        int ahs = Bhs.totalAhsLength(in, 0);
        int dsl = Bhs.dataSegmentLength(in, 0);
        int headerLength = Bhs.LENGTH + ahs;
        int padded = dsl + Bhs.padding(dsl);
        int total = headerLength + header.length() + padded + (dsl > 0 ? data.length() : 0);
        if (total > 4096) {
            return input;
        }
        ByteBuf out = Unpooled.buffer(total);
        out.writeBytes(java.util.Arrays.copyOf(input, headerLength));
        if (header == Digest.CRC32C) {
            out.writeIntLE(io.blocktarget.protocol.Crc32c.compute(out, 0, headerLength));
        }
        byte[] rest = java.util.Arrays.copyOfRange(input, Math.min(input.length, headerLength),
                Math.min(input.length, headerLength + padded));
        out.writeBytes(java.util.Arrays.copyOf(rest, padded));
        if (dsl > 0 && data == Digest.CRC32C) {
            out.writeIntLE(io.blocktarget.protocol.Crc32c.compute(out, headerLength + header.length(), padded));
        }
        return io.netty.buffer.ByteBufUtil.getBytes(out);
    }
}
