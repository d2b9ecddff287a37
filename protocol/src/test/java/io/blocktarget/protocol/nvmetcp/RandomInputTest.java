package io.blocktarget.protocol.nvmetcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.blocktarget.protocol.nvme.AbortCommand;
import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.DatasetManagementCommand;
import io.blocktarget.protocol.nvme.FeatureCommand;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.PropertyCommand;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvme.WriteZeroesCommand;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.function.Function;

/** Random bytes may only ever produce a protocol exception or an NVMe status — never another throwable or a leak. */
class RandomInputTest {
    static final int ROUNDS = 10_000;
    static final int[] TYPES = {0, 1, 2, 3, 4, 5, 6, 7, 9};

    @Test
    void framingAndDecodingRandomPdus() {
        Random rnd = new Random(0x5EED_4420L);
        List<NvmeTcpFraming> framings = List.of(NvmeTcpFraming.controller(8192, 65536),
                NvmeTcpFraming.controller(8192, 65536).established(new PduOptions(true, true, 0)),
                NvmeTcpFraming.controller(16384, 65536).established(new PduOptions(false, false, 3)),
                NvmeTcpFraming.host(65536).established(new PduOptions(true, false, 0)));
        int framed = 0;
        int decoded = 0;
        for (int round = 0; round < ROUNDS; round++) {
            byte[] b = new byte[8 + rnd.nextInt(400)];
            rnd.nextBytes(b);
            if (rnd.nextBoolean()) { // make headers plausible so the deeper checks run
                int type = TYPES[rnd.nextInt(TYPES.length)];
                b[0] = (byte) type;
                b[1] = (byte) (b[1] & 0x0F);
                int hlen = NvmeTcpPduType.of(type).orElseThrow().hlen();
                b[2] = (byte) hlen;
                int plen = hlen + rnd.nextInt(Math.max(1, b.length - hlen + 1));
                b[4] = (byte) plen;
                b[5] = (byte) (plen >>> 8);
                b[6] = 0;
                b[7] = 0;
                b[3] = rnd.nextInt(4) == 0 ? 0 : (byte) (hlen + 4 * rnd.nextInt(3));
            }
            ByteBuf buf = Unpooled.wrappedBuffer(b);
            NvmeTcpFraming f = framings.get(rnd.nextInt(framings.size()));
            try {
                int n = f.frameLength(buf);
                if (n > 0 && n <= buf.readableBytes()) {
                    framed++;
                    ByteBuf frame = buf.readRetainedSlice(n);
                    try {
                        NvmeTcpPdu pdu = NvmeTcpPdu.decode(frame);
                        decoded++;
                        pdu.release();
                    } finally {
                        frame.release();
                    }
                }
            } catch (NvmeTcpProtocolException expected) {
                assertThat(expected.reason()).isNotNull();
            }
            // decoding without framing first must be just as safe
            ByteBuf raw = Unpooled.wrappedBuffer(b);
            try {
                NvmeTcpPdu.decode(raw).release();
            } catch (NvmeTcpProtocolException expected) {
                assertThat(expected.reason()).isNotNull();
            }
            assertThat(raw.release()).isTrue();
            assertThat(buf.release()).as("round %d leaked", round).isTrue();
        }
        assertThat(framed).isGreaterThan(ROUNDS / 100);
        assertThat(decoded).isGreaterThan(ROUNDS / 200); // most framed ones then fail a random digest
    }

    @Test
    void randomSqesOnlyYieldAStatus() {
        Random rnd = new Random(0xC0FFEEL);
        List<Function<Sqe, Parsed<?>>> parsers = List.of(ConnectCommand::parse, PropertyCommand::parse,
                ReadWriteCommand::parse, WriteZeroesCommand::parse, DatasetManagementCommand::parse,
                IdentifyCommand::parse, GetLogPageCommand::parse, FeatureCommand::parse, AbortCommand::parse);
        byte[] b = new byte[1024];
        for (int round = 0; round < ROUNDS; round++) {
            rnd.nextBytes(b);
            ByteBuf buf = Unpooled.wrappedBuffer(b);
            Sqe sqe = Sqe.get(buf, 0);
            for (Function<Sqe, Parsed<?>> parser : parsers) {
                Parsed<?> p = parser.apply(sqe);
                assertThat(p.status()).isNotNull();
                if (p.orNull() instanceof FeatureCommand fc) {
                    assertThat(fc.value().status()).isNotNull();
                }
                if (p.orNull() instanceof ReadWriteCommand rw) {
                    NvmeStatus s = rw.validate(rnd.nextLong() & Long.MAX_VALUE, 4096, 1 << 20, 8192);
                    assertThat(s).isNotNull();
                }
                if (p.orNull() instanceof DatasetManagementCommand dsm) {
                    assertThat(dsm.parseRanges(buf, 1L << 40).status()).isNotNull();
                }
            }
            assertThat(ConnectData.parse(buf).status()).isNotNull();
            assertThat(buf.release()).isTrue();
        }
    }
}
