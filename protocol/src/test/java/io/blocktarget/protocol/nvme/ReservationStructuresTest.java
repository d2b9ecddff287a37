package io.blocktarget.protocol.nvme;

import static io.blocktarget.protocol.nvme.TestBytes.hex;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;

/** Reservation commands, Reservation Report data and the Reservation Notification log page, byte by byte. */
class ReservationStructuresTest {
    static final String SGL_16 = "0000000000000000 10000000 000000 01"; // in-capsule, offset 0, 16 bytes

    static Sqe sqe(String opcode, String cdw10, String cdw11) {
        return IoAndAdminCommandsTest.sqe(IoAndAdminCommandsTest.sqeBytes(opcode, "01000000", SGL_16,
                cdw10 + cdw11 + TestBytes.zeros(16)));
    }

    @Test
    void registerFields() {
        // RREGA 010b replace, IEKEY, CPTPL 11b: CDW10 = C000000Ah
        ReservationCommand.Register r = (ReservationCommand.Register) ReservationCommand.parse(
                sqe("0d", "0a0000c0", "00000000")).orNull();
        assertThat(r.action()).isEqualTo(ReservationCommand.Register.Action.REPLACE);
        assertThat(r.iekey()).isTrue();
        assertThat(r.cptpl()).isEqualTo(ReservationCommand.Register.Cptpl.SET);
        assertThat(r.dataLength()).isEqualTo(16);
        assertThat(ReservationCommand.registerCdw10(r.action(), true, r.cptpl())).isEqualTo(0xC000000A);
        assertThat(ReservationCommand.parse(sqe("0d", "03000000", "00000000")).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);                                  // RREGA 3
        assertThat(ReservationCommand.parse(sqe("0d", "00000040", "00000000")).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);                                  // CPTPL 01b
        ByteBuf keys = Unpooled.wrappedBuffer(hex("0102030405060708 1112131415161718"));
        assertThat(ReservationCommand.currentKey(keys)).isEqualTo(0x0807060504030201L);
        assertThat(ReservationCommand.secondKey(keys)).isEqualTo(0x1817161514131211L);
    }

    @Test
    void acquireReleaseReportFields() {
        ReservationCommand.Acquire a = (ReservationCommand.Acquire) ReservationCommand.parse(
                sqe("11", "02060000", "00000000")).orNull();                          // preempt and abort, EAAR
        assertThat(a.action()).isEqualTo(ReservationCommand.Acquire.Action.PREEMPT_AND_ABORT);
        assertThat(a.rtype()).isEqualTo(6);
        assertThat(ReservationCommand.parse(sqe("11", "00070000", "00000000")).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);                                  // RTYPE 7
        assertThat(ReservationCommand.parse(sqe("11", "03010000", "00000000")).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);                                  // RACQA 3
        ReservationCommand.Release c = (ReservationCommand.Release) ReservationCommand.parse(
                sqe("15", "01000000", "00000000")).orNull();                          // clear: RTYPE ignored
        assertThat(c.action()).isEqualTo(ReservationCommand.Release.Action.CLEAR);
        assertThat(c.dataLength()).isEqualTo(8);
        assertThat(ReservationCommand.parse(sqe("15", "00000000", "00000000")).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);                                  // release needs RTYPE
        ReservationCommand.Report r = (ReservationCommand.Report) ReservationCommand.parse(
                sqe("0e", "0f000000", "01000000")).orNull();
        assertThat(r.dataLength()).isEqualTo(64);
        assertThat(r.eds()).isTrue();
    }

    @Test
    void extendedReservationStatus() {
        byte[] id = hex("000102030405060708090a0b0c0d0e0f");
        ReservationStatus s = new ReservationStatus(0x01020304, 3, true,
                List.of(new ReservationStatus.Entry(0xFFFF, true, id, 0x1122334455667788L)));
        ByteBuf out = Unpooled.buffer();
        s.encodeExtended(out);
        assertThat(ByteBufUtil.getBytes(out)).isEqualTo(hex("04030201 03 0100 0000 01" + TestBytes.zeros(14)
                + TestBytes.zeros(40)
                + "ffff 01 0000000000 8877665544332211 000102030405060708090a0b0c0d0e0f" + TestBytes.zeros(32)));
        assertThat(s.size(true)).isEqualTo(128);
    }

    @Test
    void notificationLogPage() {
        ByteBuf out = Unpooled.buffer();
        new ReservationNotification(0x0102, ReservationNotification.Type.RESERVATION_PREEMPTED, 300, 5).encode(out);
        assertThat(ByteBufUtil.getBytes(out)).isEqualTo(hex("0201000000000000 03 ff 0000 05000000"
                + TestBytes.zeros(48)));
    }
}
