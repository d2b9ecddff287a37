package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** encode → decode gives the same record, for random values of every PDU type, with and without digests. */
class RoundTripTest {
    @Test
    void everyPduTypeRoundTrips() {
        Random r = new Random(7143);
        Set<IscsiOpcode> seen = EnumSet.noneOf(IscsiOpcode.class);
        for (int i = 0; i < 300; i++) {
            for (IscsiPdu pdu : Samples.all(r)) {
                seen.add(pdu.opcode());
                ByteBuf out = Unpooled.buffer();
                try {
                    pdu.encode(out);
                    assertThat(out.readableBytes() % 4).as("PDUs are 4-byte aligned").isZero();
                    assertThat(Bhs.dataSegmentLength(out, 0)).isEqualTo(pdu.data().readableBytes());
                    IscsiPdu back = IscsiPdus.decode(out);
                    try {
                        assertThat(back).isEqualTo(pdu);
                        assertThat(back.itt()).isEqualTo(pdu.itt());
                    } finally {
                        back.release();
                    }
                    assertThat(out.refCnt()).isEqualTo(1);
                } finally {
                    out.release();
                    pdu.release();
                }
            }
        }
        assertThat(seen).containsExactlyInAnyOrder(IscsiOpcode.values());
    }

    @Test
    void everyPduTypeRoundTripsThroughFramingWithDigests() {
        Random r = new Random(3720);
        for (int i = 0; i < 100; i++) {
            Digest header = Samples.pick(r, Digest.values());
            Digest data = Samples.pick(r, Digest.values());
            for (IscsiPdu pdu : Samples.all(r)) {
                FrameLimits limits = new FrameLimits(pdu.opcode().source(), Bhs.MAX_DATA_SEGMENT_LENGTH,
                        Bhs.MAX_AHS_LENGTH, header, data);
                ByteBuf wire = Unpooled.buffer();
                try {
                    IscsiFraming.encode(pdu, wire, header, data);
                    FrameLayout layout = IscsiFraming.layout(wire, limits);
                    assertThat(layout.totalLength()).isEqualTo(wire.readableBytes());
                    IscsiPdu back = IscsiFraming.decode(wire, limits);
                    try {
                        assertThat(back).isEqualTo(pdu);
                    } finally {
                        back.release();
                    }
                    assertThat(wire.refCnt()).isEqualTo(1);
                } finally {
                    wire.release();
                    pdu.release();
                }
            }
        }
    }

    @Test
    void bhsIsFortyEightBytesForEveryPduWithoutAhs() {
        for (IscsiPdu pdu : Samples.all(new Random(48))) {
            ByteBuf out = Unpooled.buffer();
            try {
                pdu.encodeHeader(out);
                int ahs = pdu instanceof ScsiCommand c
                        ? (c.cdbLength() > 16 ? 4 + c.cdbLength() - 16 + Bhs.padding(c.cdbLength() - 16) : 0)
                        + (c.bidirectionalReadLength().isPresent() ? 8 : 0)
                        : 0;
                assertThat(out.readableBytes()).isEqualTo(Bhs.LENGTH + ahs);
                assertThat(Bhs.totalAhsLength(out, 0)).isEqualTo(ahs);
            } finally {
                out.release();
                pdu.release();
            }
        }
        assertThat(Bhs.LENGTH).isEqualTo(48);
    }

    @Test
    void encodersWriteZerosInReservedFields() {
        // Every PDU with all-ones field values: bytes the §11 figures mark reserved stay zero.
        List<IscsiPdu> pdus = List.of(
                new R2t(-1, -1, -1, -1, -1, -1, -1, 0xFFFF_FFFFL, 0xFFFF_FFFFL),
                new LogoutResponse(LogoutResponseCode.CLEANUP_FAILED, -1, -1, -1, -1, 0xffff, 0xffff),
                new TaskManagementResponse(TmfResponse.FUNCTION_REJECTED, -1, -1, -1, -1),
                new LogoutRequest(true, LogoutReason.REMOVE_CONNECTION_FOR_RECOVERY, -1, 0xffff, -1, -1));
        int[][] reserved = {
                {2, 3},                                              // R2T: bytes 2-3
                {3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 36, 37, 38, 39, 44, 45, 46, 47}, // Logout Response
                {3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47},
                {2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 22, 23, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46,
                        47}};
        for (int i = 0; i < pdus.size(); i++) {
            byte[] bytes = Bytes.encode(pdus.get(i));
            for (int offset : reserved[i]) {
                assertThat(bytes[offset]).as("%s byte %d", pdus.get(i).opcode(), offset).isZero();
            }
        }
    }
}
