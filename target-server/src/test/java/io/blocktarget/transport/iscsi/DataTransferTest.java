package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataIn;
import io.blocktarget.protocol.iscsi.DataOut;
import io.blocktarget.protocol.iscsi.R2t;
import io.blocktarget.protocol.iscsi.ResidualFlag;
import io.blocktarget.protocol.iscsi.ScsiResponse;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;

import static io.blocktarget.transport.iscsi.Harness.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

/** Reads and writes (RFC 7143 §10.7 Data-In, §10.8 R2T, §11.4.5 residuals) against the RAM test double. */
class DataTransferTest {
    private final RamTestTarget target = new RamTestTarget(TARGET, 512, 1024);
    private Harness h;

    @AfterEach
    void tearDown() {
        h.close();
        target.releaseHeld();
        assertThat(target.unreleased()).as("buffers the transport did not release").isEmpty();
    }

    private void login(String... keys) {
        h = new Harness(Harness.transport(IscsiSettings.defaults(), target));
        h.login(keys).release();
    }

    @Test
    void readIsSegmentedToTheInitiatorsMaxRecvDataSegmentLengthWithStatusInTheLastDataIn() {
        login("MaxRecvDataSegmentLength", "8192");
        byte[] content = Harness.pattern(32768, 3);
        System.arraycopy(content, 0, target.store(), 512 * 10, content.length);
        h.send(h.command(Harness.read10(10, 64), true, false, 32768, Unpooled.EMPTY_BUFFER, true));
        List<TargetPdu> pdus = h.receiveAll();
        assertThat(pdus).hasSize(4).allMatch(p -> p instanceof DataIn);
        ByteBuf got = Unpooled.buffer();
        for (int i = 0; i < 4; i++) {
            DataIn d = (DataIn) pdus.get(i);
            assertThat(d.dataSN()).isEqualTo(i);
            assertThat(d.bufferOffset()).isEqualTo(8192L * i);
            assertThat(d.data().readableBytes()).isEqualTo(8192);
            assertThat(d.finalBit()).isEqualTo(i == 3);
            assertThat(d.status().isPresent()).isEqualTo(i == 3);
            got.writeBytes(d.data());
            d.release();
        }
        DataIn last = (DataIn) pdus.get(3);
        assertThat(last.status().getAsInt()).isZero();
        assertThat(last.residual()).isEqualTo(ResidualFlag.NONE);
        assertThat(Arrays.equals(Bytes.of(got), content)).isTrue();
        got.release();
    }

    /**
     * The data-less responses of one socket read burst leave as one buffer, handed to the channel before a PDU with
     * data and at the burst's end (IscsiConnection.send): two writes, a read, a write arriving together make three
     * buffers — the first two responses with the Data-In header, its data, the last response — instead of five, and
     * the PDUs keep their order.
     */
    @Test
    void theResponsesOfOneReadBurstLeaveTogetherInOrder() {
        login();
        byte[] content = Harness.pattern(512, 4);
        int first = h.itt;
        h.sendTogether(
                h.command(Harness.write10(0, 1), false, true, 512, Unpooled.wrappedBuffer(content), true),
                h.command(Harness.write10(1, 1), false, true, 512, Unpooled.wrappedBuffer(content), true),
                h.command(Harness.read10(0, 1), true, false, 512, Unpooled.EMPTY_BUFFER, true),
                h.command(Harness.write10(2, 1), false, true, 512, Unpooled.wrappedBuffer(content), true));
        assertThat(h.channel.outboundMessages()).as("buffers handed to the channel").hasSize(3);
        List<TargetPdu> sent = List.of(h.receive(), h.receive(), h.receive(), h.receive());
        try {
            assertThat(sent).extracting(TargetPdu::itt).containsExactly(first, first + 1, first + 2, first + 3);
            assertThat(sent).extracting(p -> p.getClass().getSimpleName())
                    .containsExactly("ScsiResponse", "ScsiResponse", "DataIn", "ScsiResponse");
            assertThat(io.netty.buffer.ByteBufUtil.getBytes(sent.get(2).data())).isEqualTo(content);
        } finally {
            sent.forEach(TargetPdu::release);
        }
        assertThat(h.receive()).isNull();
    }

    /**
     * Behind the production flush consolidation, a read burst's responses are flushed every
     * {@link IscsiConnection#FLUSH_AFTER_PDUS} PDUs handled, not only at its end: 20 reads arriving together leave in
     * two flushes of 16 and 4 Data-In (48-byte header and 512 bytes each), in order; two bursts of 10 in one flush
     * each (the count starts again with every burst).
     */
    @Test
    void aLongReadBurstIsFlushedEverySixteenPdusHandled() {
        h = new Harness(Harness.transport(IscsiSettings.defaults(), target)).withFlushConsolidation();
        h.login().release();
        byte[] content = Harness.pattern(512 * 20, 6);
        System.arraycopy(content, 0, target.store(), 0, content.length);
        h.flushedBytes.clear();
        int first = h.itt;
        h.sendTogether(oneBlockReads(20));
        assertThat(IscsiConnection.FLUSH_AFTER_PDUS).isEqualTo(16);
        assertThat(h.flushedBytes).containsExactly(16L * (48 + 512), 4L * (48 + 512));
        for (int i = 0; i < 20; i++) {
            DataIn d = h.expect(DataIn.class);
            assertThat(d.itt()).isEqualTo(first + i);
            assertThat(io.netty.buffer.ByteBufUtil.getBytes(d.data()))
                    .isEqualTo(Arrays.copyOfRange(content, 512 * i, 512 * (i + 1)));
            d.release();
        }
        h.flushedBytes.clear();
        for (int burst = 0; burst < 2; burst++) {
            h.sendTogether(oneBlockReads(10));
        }
        assertThat(h.flushedBytes).containsExactly(10L * (48 + 512), 10L * (48 + 512));
        h.receiveAll().forEach(TargetPdu::release);
    }

    /** READ(10)s of blocks 0 .. n - 1, one block each, with consecutive ITTs and CmdSNs. */
    private io.blocktarget.protocol.iscsi.InitiatorPdu[] oneBlockReads(int n) {
        return java.util.stream.IntStream.range(0, n)
                .mapToObj(i -> h.command(Harness.read10(i, 1), true, false, 512, Unpooled.EMPTY_BUFFER, true))
                .toArray(io.blocktarget.protocol.iscsi.InitiatorPdu[]::new);
    }

    @Test
    void dataInSequencesEndAtEveryMaxBurstLength() {
        login("MaxRecvDataSegmentLength", "8192", "MaxBurstLength", "16384", "FirstBurstLength", "8192");
        h.send(h.command(Harness.read10(0, 96), true, false, 49152, Unpooled.EMPTY_BUFFER, true));
        List<TargetPdu> pdus = h.receiveAll();
        assertThat(pdus).hasSize(6);
        for (int i = 0; i < 6; i++) {
            DataIn d = (DataIn) pdus.get(i);
            assertThat(d.finalBit()).as("F bit of PDU %d", i).isEqualTo(i % 2 == 1);
            d.release();
        }
    }

    @Test
    void shortTransferReportsUnderflowAndLongOneOverflow() {
        login();
        h.send(h.command(Harness.read10(0, 2), true, false, 4096, Unpooled.EMPTY_BUFFER, true));
        DataIn under = h.expect(DataIn.class);
        assertThat(under.data().readableBytes()).isEqualTo(1024);
        assertThat(under.residual()).isEqualTo(ResidualFlag.UNDERFLOW);
        assertThat(under.residualCount()).isEqualTo(3072);
        under.release();

        h.send(h.command(Harness.read10(0, 4), true, false, 1000, Unpooled.EMPTY_BUFFER, true));
        DataIn over = h.expect(DataIn.class);
        assertThat(over.data().readableBytes()).isEqualTo(1000);
        assertThat(over.residual()).isEqualTo(ResidualFlag.OVERFLOW);
        assertThat(over.residualCount()).isEqualTo(1048);
        over.release();
    }

    @Test
    void checkConditionGoesInAScsiResponseWithSense() {
        login();
        h.send(h.command(Harness.read10(5000, 1), true, false, 512, Unpooled.EMPTY_BUFFER, true));
        Harness.assertCheckCondition(h.expect(ScsiResponse.class), 0x05, 0x21);
        assertThat(h.receive()).isNull();
    }

    @Test
    void oversizedTransferIsRefusedWithInvalidFieldInCdb() {
        login();
        h.send(h.command(Harness.read10(0, 1), true, false, 32L * 1024 * 1024, Unpooled.EMPTY_BUFFER, true));
        Harness.assertCheckCondition(h.expect(ScsiResponse.class), 0x05, 0x24);
    }

    @Test
    void immediateDataThenR2tForTheRest() {
        login("ImmediateData", "Yes", "InitialR2T", "Yes", "FirstBurstLength", "65536", "MaxBurstLength", "262144");
        byte[] content = Harness.pattern(65536, 7);
        h.send(h.command(Harness.write10(4, 128), false, true, 65536, Unpooled.copiedBuffer(content, 0, 8192), true));
        R2t r2t = h.expect(R2t.class);
        assertThat(r2t.bufferOffset()).isEqualTo(8192);
        assertThat(r2t.desiredDataTransferLength()).isEqualTo(65536 - 8192);
        assertThat(r2t.r2tSN()).isZero();
        sendData(r2t, content, 8192);
        ScsiResponse done = h.expect(ScsiResponse.class);
        assertThat(done.status()).isZero();
        assertThat(done.expDataSN()).isEqualTo(1);
        done.release();
        assertThat(Arrays.copyOfRange(target.store(), 4 * 512, 4 * 512 + 65536)).isEqualTo(content);
    }

    @Test
    void immediateDataNoAndInitialR2tYesSolicitsEverything() {
        login("ImmediateData", "No", "InitialR2T", "Yes");
        byte[] content = Harness.pattern(20480, 9);
        h.send(h.command(Harness.write10(0, 40), false, true, 20480, Unpooled.EMPTY_BUFFER, true));
        R2t r2t = h.expect(R2t.class);
        assertThat(r2t.bufferOffset()).isZero();
        assertThat(r2t.desiredDataTransferLength()).isEqualTo(20480);
        sendData(r2t, content, 4096);
        ScsiResponse done = h.expect(ScsiResponse.class);
        assertThat(done.status()).isZero();
        done.release();
        assertThat(Arrays.copyOfRange(target.store(), 0, 20480)).isEqualTo(content);
    }

    @Test
    void immediateDataWhenNegotiatedOffIsRejected() {
        login("ImmediateData", "No", "InitialR2T", "Yes");
        h.send(h.command(Harness.write10(0, 1), false, true, 512, Unpooled.wrappedBuffer(new byte[512]), true));
        io.blocktarget.protocol.iscsi.Reject r = h.expect(io.blocktarget.protocol.iscsi.Reject.class);
        assertThat(r.reason()).isEqualTo(io.blocktarget.protocol.iscsi.RejectReason.PROTOCOL_ERROR);
        r.release();
    }

    @Test
    void largeWriteCrossesBurstsWithinMaxOutstandingR2t() {
        login("ImmediateData", "No", "InitialR2T", "Yes", "MaxBurstLength", "16384", "FirstBurstLength", "8192",
                "MaxOutstandingR2T", "2");
        byte[] content = Harness.pattern(65536, 11);
        h.send(h.command(Harness.write10(100, 128), false, true, 65536, Unpooled.EMPTY_BUFFER, true));
        R2t first = h.expect(R2t.class);
        R2t second = h.expect(R2t.class);
        assertThat(h.receive()).isNull();
        assertThat(first.bufferOffset()).isZero();
        assertThat(second.bufferOffset()).isEqualTo(16384);
        assertThat(second.r2tSN()).isEqualTo(1);
        assertThat(first.ttt()).isNotEqualTo(second.ttt());
        sendData(first, content, 8192);
        R2t third = h.expect(R2t.class);
        assertThat(third.bufferOffset()).isEqualTo(32768);
        assertThat(third.desiredDataTransferLength()).isEqualTo(16384);
        assertThat(third.r2tSN()).isEqualTo(2);
        sendData(second, content, 8192);
        R2t fourth = h.expect(R2t.class);
        sendData(third, content, 8192);
        sendData(fourth, content, 8192);
        ScsiResponse done = h.expect(ScsiResponse.class);
        assertThat(done.status()).isZero();
        assertThat(done.expDataSN()).isEqualTo(4);
        done.release();
        assertThat(Arrays.copyOfRange(target.store(), 100 * 512, 100 * 512 + 65536)).isEqualTo(content);
    }

    @Test
    void unsolicitedDataOutUpToFirstBurstThenR2t() {
        login("ImmediateData", "Yes", "InitialR2T", "No", "FirstBurstLength", "16384");
        byte[] content = Harness.pattern(49152, 13);
        h.send(h.command(Harness.write10(0, 96), false, true, 49152, Unpooled.copiedBuffer(content, 0, 4096), false));
        assertThat(h.receive()).isNull();
        h.send(new DataOut(false, 0, h.itt - 1, Bhs.RESERVED_TAG, 0, 0, 4096,
                Unpooled.copiedBuffer(content, 4096, 8192)));
        h.send(new DataOut(true, 0, h.itt - 1, Bhs.RESERVED_TAG, 0, 1, 12288,
                Unpooled.copiedBuffer(content, 12288, 4096)));
        R2t r2t = h.expect(R2t.class);
        assertThat(r2t.bufferOffset()).isEqualTo(16384);
        assertThat(r2t.desiredDataTransferLength()).isEqualTo(32768);
        sendData(r2t, content, 16384);
        ScsiResponse done = h.expect(ScsiResponse.class);
        assertThat(done.status()).isZero();
        done.release();
        assertThat(Arrays.copyOfRange(target.store(), 0, 49152)).isEqualTo(content);
    }

    @Test
    void dataOutAtTheWrongOffsetIsFatal() {
        login("ImmediateData", "No", "InitialR2T", "Yes");
        h.send(h.command(Harness.write10(0, 8), false, true, 4096, Unpooled.EMPTY_BUFFER, true));
        R2t r2t = h.expect(R2t.class);
        h.send(new DataOut(true, 0, r2t.itt(), r2t.ttt(), 0, 0, 512, Unpooled.wrappedBuffer(new byte[512])));
        assertThat(h.open()).isFalse();
    }

    /** CHECK CONDITION, ABORTED COMMAND, PROTOCOL SERVICE CRC ERROR (RFC 7143 §11.4.7.2, §7.8 option b). */
    private void expectProtocolServiceCrcError(int itt) {
        ScsiResponse r = h.expect(ScsiResponse.class);
        assertThat(r.itt()).isEqualTo(itt);
        assertThat(r.senseData().getByte(13) & 0xff).as("ASCQ").isEqualTo(0x05);
        Harness.assertCheckCondition(r, 0x0b, 0x47);
        assertThat(h.open()).as("the session goes on").isTrue();
        assertThat(target.events()).as("the task never reached the device server").doesNotContain("op 2a");
        // and the session still works
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        ScsiResponse tur = h.expect(ScsiResponse.class);
        assertThat(tur.status()).isZero();
        tur.release();
    }

    @Test
    void solicitedDataOutWithAWrongDataSnFailsTheTaskWithProtocolServiceCrcError() {
        login("ImmediateData", "No", "InitialR2T", "Yes");
        h.send(h.command(Harness.write10(0, 8), false, true, 4096, Unpooled.EMPTY_BUFFER, true));
        R2t r2t = h.expect(R2t.class);
        h.send(new DataOut(true, 0, r2t.itt(), r2t.ttt(), 0, 5, 0, Unpooled.wrappedBuffer(new byte[4096])));
        expectProtocolServiceCrcError(r2t.itt());
    }

    /**
     * The DataSN cases libiscsi's iSCSIDataSnInvalid sends (unsolicited Data-Out, one block per PDU): two PDUs both
     * DataSN 0, one with DataSN 27, one with -1, and two with DataSN 1, 0. RFC 7143 §7.9: a DataSN out of order
     * implies a lost PDU; §7.8 at ERL 0: the task ends with protocol service CRC error after its last PDU (F).
     */
    @ParameterizedTest(name = "DataSN {0}")
    @ValueSource(strings = {"0,0", "27", "-1", "1,0"})
    void unsolicitedDataSnOutOfSequenceFailsTheTaskOnceItsDataHasArrived(String dataSNs) {
        login("ImmediateData", "No", "InitialR2T", "No");
        int[] sns = Arrays.stream(dataSNs.split(",")).mapToInt(Integer::parseInt).toArray();
        h.send(h.command(Harness.write10(0, sns.length), false, true, 512L * sns.length, Unpooled.EMPTY_BUFFER,
                false));
        int itt = h.itt - 1;
        for (int i = 0; i < sns.length; i++) {
            assertThat(h.receive()).as("nothing before the last PDU of the sequence").isNull();
            h.send(new DataOut(i == sns.length - 1, 0, itt, Bhs.RESERVED_TAG, 0, sns[i], 512L * i,
                    Unpooled.wrappedBuffer(new byte[512])));
        }
        expectProtocolServiceCrcError(itt);
    }

    @Test
    void aDrainingTaskWaitsForEveryOutstandingR2tAndSolicitsNoMore() {
        login("ImmediateData", "No", "InitialR2T", "Yes", "MaxBurstLength", "1024", "FirstBurstLength", "512",
                "MaxOutstandingR2T", "2");
        h.send(h.command(Harness.write10(0, 8), false, true, 4096, Unpooled.EMPTY_BUFFER, true));
        R2t first = h.expect(R2t.class);
        R2t second = h.expect(R2t.class);
        // R2T 1: its second PDU is "lost" (DataSN jumps from 0 to 2)
        h.send(new DataOut(false, 0, first.itt(), first.ttt(), 0, 0, 0, Unpooled.wrappedBuffer(new byte[512])));
        h.send(new DataOut(true, 0, first.itt(), first.ttt(), 0, 2, 512, Unpooled.wrappedBuffer(new byte[512])));
        assertThat(h.receive()).as("no third R2T, no response while R2T 2 is open").isNull();
        h.send(new DataOut(true, 0, second.itt(), second.ttt(), 0, 0, 1024, Unpooled.wrappedBuffer(new byte[1024])));
        expectProtocolServiceCrcError(first.itt());
    }

    @Test
    void abortTaskConcludesADrainingTask() {
        login("ImmediateData", "No", "InitialR2T", "Yes");
        h.send(h.command(Harness.write10(0, 8), false, true, 4096, Unpooled.EMPTY_BUFFER, true));
        R2t r2t = h.expect(R2t.class);
        h.send(new DataOut(false, 0, r2t.itt(), r2t.ttt(), 0, 3, 0, Unpooled.wrappedBuffer(new byte[512])));
        assertThat(h.receive()).isNull();
        h.send(new io.blocktarget.protocol.iscsi.TaskManagementRequest(true,
                io.blocktarget.protocol.iscsi.TmfFunction.ABORT_TASK, 0, 0x700, r2t.itt(), h.cmdSN, 0, h.cmdSN - 1, 0));
        io.blocktarget.protocol.iscsi.TaskManagementResponse tmf =
                h.expect(io.blocktarget.protocol.iscsi.TaskManagementResponse.class);
        assertThat(tmf.response()).isEqualTo(io.blocktarget.protocol.iscsi.TmfResponse.FUNCTION_COMPLETE);
        tmf.release();
        h.send(new DataOut(true, 0, r2t.itt(), r2t.ttt(), 0, 1, 512, Unpooled.wrappedBuffer(new byte[3584])));
        assertThat(h.receive()).as("no response for the aborted task").isNull();
        assertThat(h.open()).isTrue();
    }

    @Test
    void dataOutForAnUnknownTaskIsDiscarded() {
        login();
        h.send(new DataOut(true, 0, 0x7777, 3, 0, 0, 0, Unpooled.wrappedBuffer(new byte[512])));
        assertThat(h.receive()).isNull();
        assertThat(h.open()).isTrue();
    }

    /** Answers one R2T with Data-Out PDUs of {@code pdu} bytes. */
    private void sendData(R2t r2t, byte[] content, int pdu) {
        long end = r2t.bufferOffset() + r2t.desiredDataTransferLength();
        int dataSN = 0;
        for (long off = r2t.bufferOffset(); off < end; off += pdu) {
            int n = (int) Math.min(pdu, end - off);
            h.send(new DataOut(off + n == end, 0, r2t.itt(), r2t.ttt(), 0, dataSN++, off,
                    Unpooled.copiedBuffer(content, (int) off, n)));
        }
    }

    /** Byte array helpers. */
    static final class Bytes {
        static byte[] of(ByteBuf b) {
            byte[] out = new byte[b.readableBytes()];
            b.getBytes(b.readerIndex(), out);
            return out;
        }
    }
}
