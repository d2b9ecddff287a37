package io.blocktarget.scsi;

import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.scsi.ScsiStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static io.blocktarget.scsi.ReservationsTest.C;
import static io.blocktarget.scsi.ReservationsTest.prIn;
import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.ten;
import static io.blocktarget.scsi.Scsi.u64;
import static org.assertj.core.api.Assertions.assertThat;

/** PERSISTENT RESERVE OUT REGISTER AND MOVE (SPC-5 §5.14.8, §6.17.4): the move, each check, each sense. */
class RegisterAndMoveTest {
    static final int REGISTER = 0, RESERVE = 1, REGISTER_AND_MOVE = 7;
    static final int WE = 1, EA = 3, WE_AR = 7;

    private final RamBlockDevice device = Scsi.ram("move", 512, 512, 1 << 20);
    private final ScsiTarget target = Scsi.target(device);

    @BeforeEach
    void ready() {
        for (ItNexus n : new ItNexus[] {A, B, C}) {
            Scsi.ready(target, n, 0);
        }
    }

    @AfterEach
    void close() {
        device.close();
    }

    /** Table "REGISTER AND MOVE service action parameter list" with an iSCSI initiator port TransportID. */
    static byte[] moveParams(long key, long saKey, int flags, int port, String initiatorPort, int format) {
        byte[] name = initiatorPort.getBytes(StandardCharsets.UTF_8);
        int idLength = 4 + Math.max(20, (name.length + 1 + 3) & ~3);
        ByteBuffer b = ByteBuffer.allocate(24 + idLength);
        b.putLong(key).putLong(saKey).put((byte) 0).put((byte) flags).putShort((short) port).putInt(idLength);
        b.put((byte) (format << 6 | 0x05)).put((byte) 0).putShort((short) (idLength - 4)).put(name);
        return b.array();
    }

    private Scsi.Reply move(ItNexus from, int type, byte[] params) {
        return run(target, from, 0, ReservationsTest.prOut(REGISTER_AND_MOVE, type, params.length), params);
    }

    private Scsi.Reply out(ItNexus n, int sa, int type, long key, long saKey) {
        return run(target, n, 0, ReservationsTest.prOut(sa, type, 24), ReservationsTest.params(key, saKey, 0));
    }

    private void conflict(Scsi.Reply r) {
        assertThat(r.status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
    }

    @Test
    void movesTheReservationAndRegistersTheDestination() {
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        out(A, RESERVE, WE, 0xAA, 0).assertGood();
        move(A, EA, moveParams(0xAA, 0xBB, 0, 1, B.initiatorPortName(), 1)).assertGood();
        byte[] rr = run(target, C, 0, prIn(1, 64), null).assertGood().data();
        assertThat(u64(rr, 8)).isEqualTo(0xBB);                                       // B holds, with its new key
        assertThat(rr[21]).isEqualTo((byte) EA);                                       // the CDB's TYPE
        byte[] keys = run(target, C, 0, prIn(0, 64), null).assertGood().data();
        assertThat(keys).isEqualTo(ByteBuffer.allocate(24).putInt(2).putInt(16).putLong(0xAA).putLong(0xBB).array());
        run(target, B, 0, ten(0x2A, 0, 0, 1), new byte[512]).assertGood();
        conflict(run(target, A, 0, ten(0x28, 0, 0, 1), null));                        // EA held by B
        // UNREG: B moves it back to A and leaves
        move(B, WE, moveParams(0xBB, 0xA1, 0x02, 1, A.initiatorPortName(), 1)).assertGood();
        keys = run(target, C, 0, prIn(0, 64), null).assertGood().data();
        assertThat(keys).isEqualTo(ByteBuffer.allocate(16).putInt(3).putInt(8).putLong(0xA1).array());
        run(target, A, 0, ten(0x2A, 0, 0, 1), new byte[512]).assertGood();
        conflict(run(target, B, 0, ten(0x2A, 0, 0, 1), new byte[512]));
    }

    @Test
    void everyCheckHasItsAnswer() {
        byte[] toB = moveParams(0xAA, 0xBB, 0, 1, B.initiatorPortName(), 1);
        conflict(move(A, WE, toB));                                                     // A is not registered
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        conflict(move(A, WE, moveParams(0xA0, 0xBB, 0, 1, B.initiatorPortName(), 1))); // wrong key
        conflict(move(A, WE, toB));                                                     // no reservation
        out(B, REGISTER, 0, 0, 0xB0).assertGood();
        out(B, RESERVE, WE, 0xB0, 0).assertGood();
        conflict(move(A, WE, moveParams(0xAA, 0xCC, 0, 1, C.initiatorPortName(), 1))); // A is not the holder
        move(B, WE, moveParams(0xB0, 0, 0, 1, C.initiatorPortName(), 1))
                .assertCheck(0x5, 0x26, 0x00).assertParameterField(8, 7);               // SA key 0
        move(B, WE, moveParams(0xB0, 0xCC, 0x01, 1, C.initiatorPortName(), 1))
                .assertCheck(0x5, 0x26, 0x00).assertParameterField(17, 0);              // APTPL: PTPL_C = 0
        move(B, WE, moveParams(0xB0, 0xCC, 0, 2, C.initiatorPortName(), 1))
                .assertCheck(0x5, 0x26, 0x00).assertParameterField(18, 7);              // no such target port
        move(B, WE, moveParams(0xB0, 0xCC, 0, 1, "iqn.2026-11.test:host-c", 0))
                .assertCheck(0x5, 0x26, 0x00).assertParameterField(24, 7);              // device form: no port
        move(B, WE, moveParams(0xB0, 0xCC, 0, 1, B.initiatorPortName(), 1))
                .assertCheck(0x5, 0x26, 0x00).assertParameterField(24, 7);              // to itself
        byte[] reserved = moveParams(0xB0, 0xCC, 0, 1, C.initiatorPortName(), 1);
        reserved[16] = 1;
        move(B, WE, reserved).assertCheck(0x5, 0x26, 0x00).assertParameterField(16, 7); // reserved byte
        byte[] truncated = java.util.Arrays.copyOf(toB, toB.length - 4);
        move(B, WE, truncated).assertCheck(0x5, 0x1A, 0x00);                            // PARAMETER LIST LENGTH ERROR
        // all-registrants: there is no single holder to move from
        out(B, ReservationsTest.RELEASE, WE, 0xB0, 0).assertGood();
        out(B, RESERVE, WE_AR, 0xB0, 0).assertGood();
        conflict(move(B, WE, moveParams(0xB0, 0xCC, 0, 1, C.initiatorPortName(), 1)));
        // nothing of the refused moves took effect
        byte[] keys = run(target, C, 0, prIn(0, 64), null).assertGood().data();
        assertThat(keys).isEqualTo(ByteBuffer.allocate(24).putInt(2).putInt(16).putLong(0xAA).putLong(0xB0).array());
    }

    @Test
    void reportSupportedOperationCodesListsIt() {
        // one command: PERSISTENT RESERVE OUT, service action 07h (REPORTING OPTIONS 010b)
        run(target, A, 0, SpcCommandsTest.rsoc(2, 0x5F, 7, 64), null).assertGood();
    }
}
