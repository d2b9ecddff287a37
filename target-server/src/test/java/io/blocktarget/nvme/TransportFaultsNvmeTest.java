package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultBlockDevice;
import io.blocktarget.block.fault.FaultMatch;
import io.blocktarget.block.fault.FaultRule;
import io.blocktarget.block.fault.FaultTrigger;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Partial transfers, connection faults and the keep-alive stall as an NVMe host meets them (issue 11): a Read that
 * moves only its first blocks gets them and Data Transfer Error (no residual in NVMe), its Error Information log
 * entry at the first LBA not transferred; a Write persists only its first blocks; connection faults reach the
 * queue's connection (drop: no completion until the queue goes); Keep Alive commands a rule stalls get no completion
 * and do not restart the timer, so KATO expires (Base §3.9).
 */
class TransportFaultsNvmeTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:xfaults";
    private static final int LBS = 4096;

    private final LunState state = new LunState("x");
    private final LunFaults faults = state.faults();
    private final BlockDevice device = FaultBlockDevice.wrap(TestSupport.ram("x", LBS, LBS, 2048), faults);
    private final ManualClock clock = new ManualClock();
    private final NvmeSubsystems target = NvmeSubsystems.of(List.of(new NamespaceSpec(NQN, 1, "x", device, state)),
            List.of(), NvmeLimits.DEFAULT, clock, Map.of());

    /** A queue's connection that records the connection faults it was handed (and refuses async-logout). */
    static final class Recording implements NvmeHostConnection {
        final List<FaultAction.ConnectionFault> applied = new CopyOnWriteArrayList<>();
        final List<String> terminations = new CopyOnWriteArrayList<>();

        @Override
        public String peerAddress() {
            return "127.0.0.1:50001";
        }

        @Override
        public String localAddress() {
            return "127.0.0.1";
        }

        @Override
        public int localPort() {
            return 4420;
        }

        @Override
        public void terminate(String reason) {
            terminations.add(reason);
        }

        @Override
        public boolean applyFault(FaultAction.ConnectionFault fault, ActiveRule rule) {
            if (fault instanceof FaultAction.AsyncLogout) {
                return false; // as the NVMe/TCP transport: iSCSI's
            }
            applied.add(fault);
            return true;
        }
    }

    @AfterEach
    void tearDown() {
        assertThat(faults.holds().size()).as("held commands left").isZero();
        device.close();
    }

    private ActiveRule add(String id, FaultMatch match, FaultTrigger trigger, FaultAction action) {
        return faults.add(new FaultRule(id, match, trigger, action));
    }

    private static byte[] pattern(int seed, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    private static CompletableFuture<Reply> submitAsync(NvmeQueue queue, Sqe sqe) {
        CompletableFuture<Reply> done = new CompletableFuture<>();
        queue.submit(sqe, null, (status, dw0, dw1, data) -> {
            assertThat(done.complete(new Reply(status, dw0, dw1, data))).as("completed once").isTrue();
        });
        return done;
    }

    @Test
    void aPartialReadSendsTheFirstBlocksThenDataTransferError() {
        TestHost host = TestHost.enabled(target, NQN);
        NvmeQueue io = host.connectIo(1);
        byte[] data = pattern(1, 8 * LBS);
        assertThat(host.write(io, 1, 100, data, LBS, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        add("p", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.READ)).withLbas(100, 199), new FaultTrigger.FirstN(1),
                new FaultAction.PartialTransfer(3, false));
        Reply r = host.io(io, TestHost.rw(NvmOpcode.READ, 0x55, 1, 100, 8, LBS, false), null);
        assertThat(r.status()).isEqualTo(NvmeStatus.DATA_TRANSFER_ERROR);
        assertThat(r.status().dnr()).as("the host retries").isFalse();
        assertThat(r.bytes()).isEqualTo(Arrays.copyOf(data, 3 * LBS));
        ByteBuf page = host.getLogPage(1, 0, 0, 64, false).data();
        assertThat(page.getUnsignedShortLE(10)).as("CID").isEqualTo(0x55);
        assertThat(page.getLongLE(16)).as("LBA: the first not transferred").isEqualTo(103);
        page.release();
        Reply retry = host.read(io, 1, 100, 8, LBS);
        assertThat(retry.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(retry.bytes()).isEqualTo(data);
        host.admin.close();
    }

    @Test
    void aPartialWritePersistsOnlyItsFirstBlocks() {
        TestHost host = TestHost.enabled(target, NQN);
        NvmeQueue io = host.connectIo(1);
        ActiveRule rule = add("w", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.WRITE)), new FaultTrigger.Always(),
                new FaultAction.PartialTransfer(0, false));
        byte[] data = pattern(2, 4 * LBS);
        assertThat(host.write(io, 1, 40, data, LBS, false).status()).isEqualTo(NvmeStatus.DATA_TRANSFER_ERROR);
        assertThat(host.write(io, 1, 60, new byte[LBS], LBS, false).status()).as("one block: none of it")
                .isEqualTo(NvmeStatus.DATA_TRANSFER_ERROR);
        faults.remove("w");
        byte[] expected = new byte[4 * LBS];
        System.arraycopy(data, 0, expected, 0, 2 * LBS);
        assertThat(host.read(io, 1, 40, 4, LBS).bytes()).as("half by default").isEqualTo(expected);
        assertThat(rule.hits()).isEqualTo(2);
        host.admin.close();
    }

    @Test
    void aCommandThatIsNeitherReadNorWriteIsNotApplicable() {
        TestHost host = TestHost.enabled(target, NQN);
        NvmeQueue io = host.connectIo(1);
        ActiveRule rule = add("p", FaultMatch.ANY, new FaultTrigger.Always(), new FaultAction.PartialTransfer(1, false));
        assertThat(host.io(io, Sqe.of(NvmOpcode.FLUSH.code(), 9, 1, SglDescriptor.transportDataBlock(0)), null)
                .status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(rule.notApplicable()).isEqualTo(1);
        host.admin.close();
    }

    @Test
    void connectionFaultsReachTheQueuesConnectionAndDropHoldsTheCommand() {
        TestHost host = TestHost.enabled(target, NQN);
        Recording connection = new Recording();
        ConnectResult connected = TestSupport.connect(target, 1, 31, 0, host.cntlid, NQN, TestSupport.HOST_NQN,
                connection);
        assertThat(connected.status()).isEqualTo(NvmeStatus.SUCCESS);
        NvmeQueue io = connected.queue();
        add("s", FaultMatch.ANY.withLbas(0, 0), new FaultTrigger.Always(),
                new FaultAction.StallConnection(1_000_000, FaultAction.StallDirection.SEND));
        add("h", FaultMatch.ANY.withLbas(1, 1), new FaultTrigger.Always(),
                new FaultAction.CorruptDigest(FaultAction.DigestKind.HEADER));
        ActiveRule logout = add("l", FaultMatch.ANY.withLbas(2, 2), new FaultTrigger.Always(),
                new FaultAction.AsyncLogout(5));
        add("d", FaultMatch.ANY.withLbas(3, 3), new FaultTrigger.Always(), new FaultAction.DropConnection());
        for (long lba = 0; lba < 3; lba++) {
            Reply r = host.read(io, 1, lba, 1, LBS);
            assertThat(r.status()).as("LBA %d: the command itself goes on", lba).isEqualTo(NvmeStatus.SUCCESS);
            r.release();
        }
        assertThat(logout.notApplicable()).isEqualTo(1);
        CompletableFuture<Reply> dropped = submitAsync(io, TestHost.rw(NvmOpcode.READ, 0x66, 1, 3, 1, LBS, false));
        assertThat(connection.applied).containsExactly(
                new FaultAction.StallConnection(1_000_000, FaultAction.StallDirection.SEND),
                new FaultAction.CorruptDigest(FaultAction.DigestKind.HEADER), new FaultAction.DropConnection());
        assertThat(dropped).as("no completion").isNotDone();
        io.close(); // what the transport does once the dropped connection is closed
        assertThat(dropped.join().status()).isEqualTo(NvmeStatus.ABORTED_BY_REQUEST); // goes nowhere: it is closed
        host.admin.close();
    }

    @Test
    void aStalledKeepAliveLetsKatoExpire() {
        TestHost host = TestHost.connect(target, NQN, 1000);
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        ActiveRule other = add("other", FaultMatch.ANY.withInitiator("nqn.2014-08.org.example:other"),
                new FaultTrigger.Always(), new FaultAction.KeepAliveStall());
        ActiveRule stall = add("ka", FaultMatch.ANY, new FaultTrigger.FirstN(2), new FaultAction.KeepAliveStall());
        // I/O rules never see Keep Alive, and Keep Alive rules never see I/O
        NvmeQueue io = host.connectIo(1);
        Reply read = host.read(io, 1, 0, 1, LBS);
        assertThat(read.status()).isEqualTo(NvmeStatus.SUCCESS);
        read.release();
        assertThat(stall.matched()).isZero();
        clock.advanceMillis(500);
        CompletableFuture<Reply> first = submitAsync(host.admin, keepAlive(0x71));
        assertThat(first).as("held").isNotDone();
        assertThat(other.matched()).as("another host's rule").isZero();
        clock.advanceMillis(499);
        assertThat(host.adminConnection.terminations).isEmpty();
        clock.advanceMillis(1); // KATO since CC.EN's Keep Alive restart: the held one did not restart it
        assertThat(host.adminConnection.terminations).hasSize(1).allMatch(r -> r.contains("keep-alive"));
        assertThat(first.join().status()).as("released with the controller").isEqualTo(NvmeStatus.ABORTED_BY_REQUEST);
        assertThat(stall.hits()).isEqualTo(1);
    }

    @Test
    void afterTheStalledOnesKeepAliveWorksAgain() {
        TestHost host = TestHost.connect(target, NQN, 1000);
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        add("ka", FaultMatch.ANY, new FaultTrigger.FirstN(1), new FaultAction.KeepAliveStall());
        CompletableFuture<Reply> held = submitAsync(host.admin, keepAlive(0x72));
        clock.advanceMillis(600);
        assertThat(host.keepAlive().status()).as("the second one: answered").isEqualTo(NvmeStatus.SUCCESS);
        clock.advanceMillis(900);
        assertThat(host.adminConnection.terminations).as("restarted at 600 ms").isEmpty();
        host.admin.close(); // the admin connection goes: the held Keep Alive with it
        assertThat(held.join().status()).isEqualTo(NvmeStatus.ABORTED_BY_REQUEST);
    }

    private static Sqe keepAlive(int cid) {
        return Sqe.of(AdminOpcode.KEEP_ALIVE.code(), cid, 0, SglDescriptor.transportDataBlock(0));
    }

    @SuppressWarnings("unused")
    private static ByteBuf buf(byte[] b) {
        return Unpooled.wrappedBuffer(b);
    }
}
