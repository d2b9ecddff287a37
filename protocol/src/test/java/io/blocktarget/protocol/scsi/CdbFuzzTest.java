package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Random CDB bytes only ever yield a typed CDB or a CdbError — never an exception, never a moved index. */
class CdbFuzzTest {

    @Test
    void randomBytesYieldCdbOrError() {
        Random random = new Random(0x5C51_2026L);
        Set<ScsiOpcode> seenValid = EnumSet.noneOf(ScsiOpcode.class);
        int errors = 0;
        for (int i = 0; i < 10_000; i++) {
            byte[] bytes = new byte[random.nextInt(17)];
            random.nextBytes(bytes);
            if (bytes.length > 0 && random.nextBoolean()) {
                // bias towards opcodes we implement, with a clean CONTROL byte half the time
                ScsiOpcode op = ScsiOpcode.values()[random.nextInt(ScsiOpcode.values().length)];
                bytes = new byte[Math.max(op.cdbLength(), bytes.length)];
                random.nextBytes(bytes);
                bytes[0] = (byte) op.code();
                if (random.nextBoolean()) {
                    for (int b = 1; b < bytes.length; b++) {
                        bytes[b] = (byte) (bytes[b] & random.nextInt(256) & random.nextInt(256)); // sparse bits
                    }
                    if (op.hasServiceAction()) {
                        bytes[1] = (byte) op.serviceAction();
                    }
                    bytes[op.cdbLength() - 1] = 0;
                }
            }
            ByteBuf buf = PooledByteBufAllocator.DEFAULT.buffer(bytes.length).writeBytes(bytes);
            try {
                Cdb cdb = Cdb.parse(buf);
                assertThat(cdb).isNotNull();
                assertThat(buf.readerIndex()).isZero();
                if (cdb instanceof CdbError e) {
                    errors++;
                    assertThat(e.reason().senseKey()).isEqualTo(SenseKey.ILLEGAL_REQUEST);
                    byte[] sense = Bytes.encode(out -> e.senseData().encodeFixed(out));
                    assertThat(sense).hasSize(SenseData.FIXED_LENGTH);
                    e.fieldPointer().ifPresent(fp -> assertThat(fp.field()).isLessThan(16));
                } else {
                    ScsiOpcode.of(bytes[0] & 0xFF, bytes[1] & 0x1F).ifPresent(seenValid::add);
                }
            } finally {
                buf.release();
            }
        }
        assertThat(errors).isBetween(1, 9_999);
        assertThat(seenValid).hasSizeGreaterThan(ScsiOpcode.values().length / 2);
    }
}
