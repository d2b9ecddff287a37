package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.lun.CommandStats.OpClass;
import io.blocktarget.block.lun.CommandStats.Protocol;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.trace.TraceRecord;
import io.blocktarget.block.trace.TraceRing;
import io.blocktarget.block.trace.Tracer;
import io.blocktarget.nvme.InProcessNvmeTransport.Response;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ConnectResponse;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.DiscoveryLog;
import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.PropertyCommand;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One request object and one completion function per NVMe command (issue 27), driven through the in-process
 * transport: the Fabrics Connect and SQHD of {@link NvmeQueuePair} as the host reads them from the CQEs, and each
 * step of the completion — statistics, in-flight release, trace record, Error log entry, response — exactly once per
 * command, whichever way it ends. The Connect / SQHD cases ran through Netty in NvmeTcpConnectionTest before they
 * moved into the NVMe layer; they need no socket now.
 */
class NvmeRequestPipelineTest {
    static final String NQN = ReservationCommandsTest.NQN;
    static final int LBS = 512;

    private final BlockDevice device = TestSupport.ram("pl", LBS, 4096, 1024);
    private final LunState state = new LunState("pl");
    private final NvmeTarget target = NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "pl", device, state)),
            List.of(), NvmeLimits.DEFAULT, new ManualClock());
    private final List<InProcessNvmeTransport> transports = new ArrayList<>();

    @AfterEach
    void close() {
        transports.forEach(InProcessNvmeTransport::close);
        device.close();
    }

    private InProcessNvmeTransport transport(boolean discoveryOnly) {
        InProcessNvmeTransport t = new InProcessNvmeTransport(target, new TestSupport.TestConnection(), discoveryOnly);
        transports.add(t);
        return t;
    }

    private static Sqe propertyGet(int cid) {
        return new PropertyCommand(cid, FabricsCommandType.PROPERTY_GET, ControllerRegister.CAP, 0).toSqe();
    }

    /** Base §4.1 / §6.3: the Connect response carries SQHD 1 (the Connect's own entry), then one more per command. */
    @Test
    void connectIsParsedByTheQueuePairAndSqhdAdvancesPerCommandWrappingAtTheQueueSize() {
        InProcessNvmeTransport t = transport(false);
        Response early = t.submit(propertyGet(1), null);
        assertThat(early.status()).isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR.toCqeStatus()); // before Connect
        assertThat(early.cqe().sqhd()).isZero();
        assertThat(t.pair.state()).isEqualTo(NvmeQueuePair.State.AWAIT_CONNECT);

        Response connect = t.connect(0, 31, 0, 0xFFFF, NQN);   // SQSIZE 31: 32 entries (the admin minimum)
        assertThat(connect.status()).isEqualTo(NvmeStatus.SUCCESS.toCqeStatus());
        assertThat(connect.cqe().sqhd()).isEqualTo(1);
        assertThat(connect.cqe().sqid()).isZero();
        assertThat(connect.cqe().cid()).isEqualTo(9);
        assertThat(connect.cqe().dw0() & 0xFFFF).isEqualTo(t.queue.cntlid());
        assertThat(t.pair.state()).isEqualTo(NvmeQueuePair.State.LIVE);

        List<Integer> heads = new ArrayList<>();
        List<Integer> expected = new ArrayList<>();
        for (int cid = 10; cid < 42; cid++) {
            expected.add((cid - 8) % 32);
            Response r = t.submit(propertyGet(cid), null);
            assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS.toCqeStatus());
            assertThat(r.cqe().cid()).isEqualTo(cid);
            heads.add(r.cqe().sqhd());
        }
        assertThat(heads).startsWith(2, 3).endsWith(31, 0, 1).isEqualTo(expected);
        // one queue per connection: a second Connect is out of sequence, and still takes its entry
        Response again = t.connect(0, 31, 0, 0xFFFF, NQN);
        assertThat(again.status()).isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR.toCqeStatus());
        assertThat(again.cqe().sqhd()).isEqualTo(2);
        assertThat(t.responses.get()).isEqualTo(1 + 1 + 32 + 1);
    }

    /** TP 8005: CATTR bit 2 — the Connect response says SQHD FFFFh, every later one 0. */
    @Test
    void sqFlowControlDisabledConnectAnswersFfffhThenZero() {
        InProcessNvmeTransport t = transport(false);
        Response connect = t.connect(0, 31, 0x4, 0xFFFF, NQN);
        assertThat(connect.status()).isEqualTo(NvmeStatus.SUCCESS.toCqeStatus());
        assertThat(connect.cqe().sqhd()).isEqualTo(0xFFFF);
        assertThat(t.pair.sqFlowControlDisabled()).isTrue();
        for (int cid = 10; cid < 50; cid++) {
            assertThat(t.submit(propertyGet(cid), null).cqe().sqhd()).isZero();
        }
    }

    /** A discovery port serves only the discovery subsystem; a refused Connect may be retried on the connection. */
    @Test
    void aDiscoveryPortRefusesAnNvmSubsystemAndTheConnectMayBeRetried() {
        InProcessNvmeTransport t = transport(true);
        Response refused = t.connect(0, 31, 0, 0xFFFF, NQN);
        assertThat(refused.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS.toCqeStatus());
        assertThat(refused.cqe().dw0()).isEqualTo(ConnectResponse.invalidParameter(true, ConnectData.OFFSET_SUBNQN));
        assertThat(t.pair.state()).isEqualTo(NvmeQueuePair.State.AWAIT_CONNECT);
        Response discovery = t.connect(0, 31, 0, 0xFFFF, DiscoveryLog.DISCOVERY_NQN);
        assertThat(discovery.status()).isEqualTo(NvmeStatus.SUCCESS.toCqeStatus());
        assertThat(t.pair.state()).isEqualTo(NvmeQueuePair.State.LIVE);
    }

    /**
     * Each step once per command: commands that reached the namespace are traced, counted in its statistics and
     * released from its in-flight count once each — successes and errors alike; one for an inactive NSID never
     * reached it and is in neither; every error is in the Error log once; every command got one response.
     */
    @Test
    void everyStepRunsOncePerCommandOnEveryExitPath() {
        InProcessNvmeTransport admin = transport(false);
        assertThat(admin.connect(0, 31, 0, 0xFFFF, NQN).status()).isEqualTo(NvmeStatus.SUCCESS.toCqeStatus());
        TestHost host = TestHost.wrap(target, NQN, admin.queue);
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        InProcessNvmeTransport ioq = transport(false);
        assertThat(ioq.connect(1, 31, 0, admin.queue.cntlid(), NQN).status())
                .isEqualTo(NvmeStatus.SUCCESS.toCqeStatus());
        Tracer tracer = new Tracer(64, LBS, 4096, 1 << 20, state.clock());
        state.startTrace(tracer);

        int cid = 100;
        for (int i = 0; i < 4; i++) {
            ByteBuf data = Unpooled.buffer(LBS).writeZero(LBS);
            assertThat(ioq.submit(TestHost.rw(NvmOpcode.WRITE, cid++, 1, i, 1, LBS, false), data).status())
                    .isEqualTo(NvmeStatus.SUCCESS.toCqeStatus());
        }
        for (int i = 0; i < 4; i++) {
            Response r = ioq.submit(TestHost.rw(NvmOpcode.READ, cid++, 1, i, 1, LBS, false), null);
            assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS.toCqeStatus());
            assertThat(r.bytes()).hasSize(LBS);
        }
        for (int i = 0; i < 2; i++) {
            assertThat(ioq.submit(TestHost.rw(NvmOpcode.READ, cid++, 1, 1024, 1, LBS, false), null).status())
                    .isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE.toCqeStatus());
        }
        assertThat(ioq.submit(TestHost.rw(NvmOpcode.READ, cid++, 9, 0, 1, LBS, false), null).status())
                .isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT.toCqeStatus());
        assertThat(ioq.submit(Sqe.of(NvmOpcode.FLUSH.code(), cid++, 1,
                SglDescriptor.transportDataBlock(0)), null).status())
                .isEqualTo(NvmeStatus.SUCCESS.toCqeStatus());

        assertThat(ioq.responses.get()).isEqualTo(1 + 12);   // the Connect and every command, once each
        assertThat(traced(tracer)).hasSize(11);            // all but the inactive NSID's
        assertThat(state.inFlight().count()).isZero();
        var stats = state.commandStats();
        assertThat(stats.commands(Protocol.NVME, OpClass.WRITE)).isEqualTo(4);
        assertThat(stats.commands(Protocol.NVME, OpClass.READ)).isEqualTo(6);
        assertThat(stats.errors(Protocol.NVME, OpClass.READ)).isEqualTo(2);
        assertThat(stats.commands(Protocol.NVME, OpClass.FLUSH)).isEqualTo(1);
        // Error Information log (Base §5.16.1.2): Error Count of the newest entry = the errors logged
        var log = host.getLogPage(0x01, 0, 0, 64, false);
        assertThat(log.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(log.data().getLongLE(0)).isEqualTo(3);
        log.release();
    }

    /** A second completion of one request is a bug elsewhere: it is dropped, its data released, never sent. */
    @Test
    void aSecondCompletionIsDroppedAndItsDataReleased() {
        InProcessNvmeTransport t = transport(false);
        InProcessNvmeTransport.Request r = new InProcessNvmeTransport.Request(propertyGet(3), null);
        t.pair.end(r, NvmeStatus.INVALID_FIELD);
        ByteBuf late = Unpooled.buffer(8).writeLong(1);
        r.complete(NvmeStatus.SUCCESS, 0, 0, late);
        assertThat(late.refCnt()).isZero();
        assertThat(t.responses.get()).isEqualTo(1);
        assertThat(InProcessNvmeTransport.await(r).status()).isEqualTo(NvmeStatus.INVALID_FIELD.toCqeStatus());
        assertThat(r.completed()).isTrue();
    }

    private static List<TraceRecord> traced(Tracer tracer) {
        List<TraceRecord> records = new ArrayList<>();
        tracer.ring().reader().poll(10_000, new TraceRing.Sink() {
            @Override
            public void record(TraceRecord record) {
                records.add(record);
            }

            @Override
            public void dropped(long count) {
                throw new AssertionError("dropped " + count);
            }
        });
        return records;
    }
}
