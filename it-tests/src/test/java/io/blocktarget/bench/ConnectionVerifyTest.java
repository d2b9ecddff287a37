package io.blocktarget.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * --verify as a connection applies it, on embedded channels: a writer and a reader connection of one run share the
 * record of acknowledged writes, both on one 4 KiB unit, QD 1; completions and read data are handed in by hand.
 */
class ConnectionVerifyTest {
    private static final int BS = 4096;

    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final AckedWrites acked = new AckedWrites(1);
    private final JobStats readStats = stats();
    private final Recording writer = started(Workload.WRITE, stats());
    private final Recording reader = started(Workload.READ, readStats);

    /** A connection that sends nothing: what it issued is its slot 0 (QD 1). */
    private static final class Recording extends Connection {
        int issued;

        Recording() {
            super("test", BS);
        }

        @Override
        protected boolean canSubmit() {
            return true;
        }

        @Override
        protected void issue(Slot s) {
            issued++;
        }

        @Override
        protected boolean decodeFrame(ByteBuf in) {
            return false;
        }
    }

    private static JobStats stats() {
        return new JobStats(Long.MIN_VALUE / 2, Long.MAX_VALUE / 2);
    }

    private Recording started(Workload workload, JobStats stats) {
        Recording c = new Recording();
        EmbeddedChannel channel = new EmbeddedChannel(c);
        channels.add(channel);
        c.start(new IoPattern(workload, 70, 1, 1, 0, 1), stats, System.nanoTime() + TimeUnit.HOURS.toNanos(1), 1, BS,
                BS, workload == Workload.WRITE, acked);
        channel.runPendingTasks();
        return c;
    }

    @AfterEach
    void close() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    /** Hands {@code data} to the reader's outstanding read as one PDU at {@code offsetInIo}, then releases it. */
    private void read(ByteBuf data, long offsetInIo) {
        try {
            reader.checkRead(reader.slot(0), data, offsetInIo);
        } finally {
            data.release();
        }
    }

    private static ByteBuf zeros(int length) {
        return Unpooled.buffer(length).writeZero(length);
    }

    @Test
    void zerosAreAnErrorOnlyAfterAWriteWasAcknowledgedBeforeTheRead() {
        assertThat(writer.issued).isEqualTo(1);
        // read 1, sent before any write: zeros in two PDUs are one unwritten read
        read(zeros(BS / 2), 0);
        read(zeros(BS / 2), BS / 2);
        assertThat(readStats.unwrittenReads).isEqualTo(1);
        reader.complete(reader.slot(0), true);
        // read 2, sent while the write is outstanding (submitted, not acknowledged): zeros are still unwritten
        writer.complete(writer.slot(0), true);
        read(zeros(BS), 0);
        assertThat(readStats.unwrittenReads).isEqualTo(2);
        assertThat(readStats.verifyErrors).isZero();
        reader.complete(reader.slot(0), true);
        // read 3, sent after the acknowledgement: zeros are an error, the pattern is fine
        assertThat(reader.issued).isEqualTo(3);
        read(zeros(BS), 0);
        assertThat(readStats.verifyErrors).isEqualTo(1);
        ByteBuf data = Unpooled.buffer(BS).writerIndex(BS);
        IoPattern.fill(data, 0, BS);
        read(data, 0);
        assertThat(readStats.verifyErrors).isEqualTo(1);
        assertThat(readStats.unwrittenReads).isEqualTo(2);
    }

    @Test
    void aFailedWriteIsNoAcknowledgement() {
        writer.complete(writer.slot(0), false);
        reader.complete(reader.slot(0), true);
        read(zeros(BS), 0);
        assertThat(readStats.unwrittenReads).isEqualTo(1);
        assertThat(readStats.verifyErrors).isZero();
        assertThat(acked.isAcknowledged(0)).isFalse();
    }

    @Test
    void wrongDataIsAnErrorBeforeAnyWrite() {
        ByteBuf data = Unpooled.buffer(BS).writerIndex(BS);
        IoPattern.fill(data, BS, BS);       // the next unit's pattern
        read(data, 0);
        assertThat(readStats.verifyErrors).isEqualTo(1);
        assertThat(readStats.unwrittenReads).isZero();
    }
}
