package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultBlockDevice;
import io.blocktarget.block.fault.FaultConnection;
import io.blocktarget.block.fault.FaultMatch;
import io.blocktarget.block.fault.FaultRule;
import io.blocktarget.block.fault.FaultTrigger;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Partial transfers and connection faults as the SCSI device server applies them (issue 11): a READ / WRITE that
 * moves only its first blocks reports what moved as its transfer length (the transport turns the rest into the
 * U-bit residual, RFC 7143 §11.4.5.1), optionally with CHECK CONDITION / MEDIUM ERROR and INFORMATION = the first
 * LBA not transferred; a connection fault goes to the command's connection — drop holds the command (no response)
 * until the nexus is lost, the others let it execute — and counts as not applicable where the connection refuses it.
 */
class TransportFaultsScsiTest {
    private static final int LBS = 4096;
    private static final int READ_10 = 0x28;
    private static final int WRITE_10 = 0x2A;

    private final LunState state = new LunState("xf");
    private final LunFaults faults = state.faults();
    private final BlockDevice ram = Scsi.ram("xf", LBS, LBS, 1024L * LBS);
    private final BlockDevice device = FaultBlockDevice.wrap(ram, faults);
    private final ScsiTarget target = ScsiTargetDevices.createTargets(List.of(
            new LogicalUnitSpec(Scsi.TARGET, 0, "xf", device, state))).get(Scsi.TARGET);

    /** A connection that records what it was asked to apply; it accepts everything but what {@code refuse} names. */
    private static final class Recording implements FaultConnection {
        final List<FaultAction.ConnectionFault> applied = new ArrayList<>();
        Class<?> refuse = Void.class;

        @Override
        public boolean applyFault(FaultAction.ConnectionFault fault, ActiveRule rule) {
            if (refuse.isInstance(fault)) {
                return false;
            }
            applied.add(fault);
            return true;
        }
    }

    TransportFaultsScsiTest() {
        Scsi.ready(target, A, 0);
        Scsi.ready(target, B, 0);
        target.attach(A, (scope, stopped) -> stopped.accept(0));
    }

    @AfterEach
    void tearDown() {
        assertThat(target.unit(0).tasksInExecution()).as("tasks left").isZero();
        assertThat(faults.holds().size()).as("held commands left").isZero();
        device.close();
    }

    private Scsi.Reply read(long lba, int blocks) {
        return Scsi.run(target, A, 0, Scsi.ten(READ_10, 0, lba, blocks), null, (long) blocks * LBS);
    }

    private Scsi.Reply write(long lba, byte[] data) {
        return Scsi.run(target, A, 0, Scsi.ten(WRITE_10, 0, lba, data.length / LBS), data);
    }

    private ActiveRule add(String id, FaultMatch match, FaultTrigger trigger, FaultAction action) {
        return faults.add(new FaultRule(id, match, trigger, action));
    }

    private static FaultMatch reads(long first, long last) {
        return FaultMatch.ANY.withKinds(EnumSet.of(IoKind.READ)).withLbas(first, last);
    }

    @Test
    void aPartialReadIsGoodWithTheFirstBlocksAndTheirLengthAsTransferLength() {
        byte[] data = Scsi.pattern(1, 8 * LBS);
        write(100, data).assertGood();
        add("p", reads(100, 199), new FaultTrigger.Always(), new FaultAction.PartialTransfer(3, false));
        Scsi.Reply r = read(100, 8).assertGood();
        assertThat(r.transferLength()).as("the transport's residual is EDTL minus this").isEqualTo(3L * LBS);
        assertThat(r.data()).isEqualTo(Arrays.copyOf(data, 3 * LBS));
        assertThat(read(200, 8).assertGood().transferLength()).as("outside the range: all of it").isEqualTo(8L * LBS);
        assertThat(faults.rules().getFirst().hits()).isEqualTo(1);
    }

    @Test
    void halfByDefaultAndNothingOfAOneBlockRead() {
        add("p", reads(0, 1023), new FaultTrigger.Always(), new FaultAction.PartialTransfer(0, false));
        assertThat(read(10, 8).assertGood().data()).hasSize(4 * LBS);
        assertThat(read(10, 7).assertGood().data()).hasSize(3 * LBS);
        Scsi.Reply one = read(10, 1).assertGood();
        assertThat(one.transferLength()).as("at most all but one block").isZero();
        // transfer-blocks above the command's blocks: still all but one
        faults.replace(List.of(new FaultRule("q", reads(0, 1023), new FaultTrigger.Always(),
                new FaultAction.PartialTransfer(100, false))));
        assertThat(read(10, 8).assertGood().transferLength()).isEqualTo(7L * LBS);
    }

    @Test
    void checkConditionCarriesTheDataAndTheFirstLbaNotTransferred() {
        byte[] data = Scsi.pattern(2, 8 * LBS);
        write(300, data).assertGood();
        add("p", reads(300, 399), new FaultTrigger.FirstN(1), new FaultAction.PartialTransfer(2, true));
        Scsi.Reply r = read(300, 8).assertCheck(0x3, 0x11, 0x00);
        assertThat(r.information()).isEqualTo(302);
        assertThat(r.data()).isEqualTo(Arrays.copyOf(data, 2 * LBS));
        assertThat(r.transferLength()).isEqualTo(2L * LBS);
        assertThat(read(300, 8).assertGood().data()).as("first 1: the retry reads all").isEqualTo(data);
    }

    @Test
    void aPartialWriteWritesOnlyItsFirstBlocks() {
        byte[] data = Scsi.pattern(3, 4 * LBS);
        add("w", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.WRITE)), new FaultTrigger.Always(),
                new FaultAction.PartialTransfer(1, false));
        Scsi.Reply r = write(40, data).assertGood();
        assertThat(r.transferLength()).isEqualTo(LBS);
        faults.remove("w");
        byte[] expected = new byte[4 * LBS];
        System.arraycopy(data, 0, expected, 0, LBS);
        assertThat(read(40, 4).assertGood().data()).isEqualTo(expected);
        add("w2", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.WRITE)), new FaultTrigger.Always(),
                new FaultAction.PartialTransfer(2, true));
        assertThat(write(40, data).assertCheck(0x3, 0x0C, 0x00).information()).isEqualTo(42);
    }

    @Test
    void aCommandWithoutBlocksIsNotApplicableAndGoesOn() {
        ActiveRule rule = add("p", FaultMatch.ANY, new FaultTrigger.Always(), new FaultAction.PartialTransfer(1, true));
        Scsi.run(target, A, 0, Scsi.testUnitReady(), null).assertGood();
        assertThat(rule.hits()).isEqualTo(1);
        assertThat(rule.notApplicable()).isEqualTo(1);
    }

    @Test
    void connectionFaultsGoToTheCommandsConnectionAndTheCommandExecutes() {
        Recording connection = new Recording();
        add("s", reads(0, 9), new FaultTrigger.Always(),
                new FaultAction.StallConnection(0, FaultAction.StallDirection.BOTH));
        add("d", reads(10, 19), new FaultTrigger.Always(), new FaultAction.CorruptDigest(FaultAction.DigestKind.DATA));
        add("l", reads(20, 29), new FaultTrigger.Always(), new FaultAction.AsyncLogout(5));
        assertThat(run(connection, 0).join().status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(run(connection, 10).join().status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(run(connection, 20).join().status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(connection.applied).containsExactly(
                new FaultAction.StallConnection(0, FaultAction.StallDirection.BOTH),
                new FaultAction.CorruptDigest(FaultAction.DigestKind.DATA), new FaultAction.AsyncLogout(5));
        // a connection that refuses (no digest negotiated): counted as not applicable, nothing else happens
        connection.refuse = FaultAction.CorruptDigest.class;
        assertThat(run(connection, 10).join().status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(faults.rules().get(1).hits()).isEqualTo(2);
        assertThat(faults.rules().get(1).notApplicable()).isEqualTo(1);
        // a command without a connection (internal): nothing applies
        read(0, 1).assertGood();
        assertThat(faults.rules().getFirst().notApplicable()).isEqualTo(1);
    }

    @Test
    void dropHoldsTheCommandWithoutAResponseUntilTheNexusIsLost() {
        Recording connection = new Recording();
        add("x", reads(5, 5), new FaultTrigger.FirstN(1), new FaultAction.DropConnection());
        CompletableFuture<ScsiResponse> dropped = run(connection, 5);
        assertThat(connection.applied).containsExactly(new FaultAction.DropConnection());
        assertThat(dropped).as("no response").isNotDone();
        assertThat(faults.holds().size()).isEqualTo(1);
        assertThat(run(connection, 5).join().status()).as("first 1: the retry reads").isEqualTo(ScsiStatus.GOOD);
        target.nexusLost(A); // what the transport does when the dropped connection is gone
        ScsiResponse r = dropped.join();
        assertThat(r.status()).isEqualTo(ScsiStatus.CHECK_CONDITION); // discarded by the transport: it is closed
        release(r);
        Scsi.run(target, A, 0, Scsi.testUnitReady(), null).assertCheck(0x6, 0x29, 0x07); // I_T NEXUS LOSS OCCURRED
        Scsi.run(target, A, 0, Scsi.testUnitReady(), null).assertGood();
    }

    @Test
    void aDropTheConnectionRefusesExecutesTheCommand() {
        Recording connection = new Recording();
        connection.refuse = FaultAction.DropConnection.class;
        ActiveRule rule = add("x", reads(5, 5), new FaultTrigger.Always(), new FaultAction.DropConnection());
        assertThat(run(connection, 5).join().status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(rule.notApplicable()).isEqualTo(1);
        assertThat(faults.holds().size()).isZero();
    }

    /** READ(10) of one block at {@code lba} from nexus A over {@code connection}. */
    private CompletableFuture<ScsiResponse> run(FaultConnection connection, long lba) {
        byte[] cdb = Arrays.copyOf(Scsi.ten(READ_10, 0, lba, 1), 16);
        ByteBuf cdbBuf = Unpooled.wrappedBuffer(cdb);
        CompletableFuture<ScsiResponse> done = new CompletableFuture<>();
        target.execute(ScsiCommand.of(A, 0, cdbBuf, TaskAttribute.SIMPLE, 1, LBS, null, connection), r -> {
            if (!done.complete(r)) {
                throw new AssertionError("completed twice");
            }
        });
        return done.thenApply(r -> {
            cdbBuf.release();
            return r;
        });
    }

    private static void release(ScsiResponse r) {
        if (r.dataIn() != null) {
            r.dataIn().release();
        }
        if (r.senseData() != null) {
            r.senseData().release();
        }
    }

    @SuppressWarnings("unused")
    private static String hex(ByteBuf b) {
        return ByteBufUtil.hexDump(b);
    }
}
