package io.blocktarget.transport.iscsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultBlockDevice;
import io.blocktarget.block.fault.FaultMatch;
import io.blocktarget.block.fault.FaultRule;
import io.blocktarget.block.fault.FaultTrigger;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.iscsi.AsyncEvent;
import io.blocktarget.protocol.iscsi.AsyncMessage;
import io.blocktarget.protocol.iscsi.DataIn;
import io.blocktarget.protocol.iscsi.IscsiProtocolException;
import io.blocktarget.protocol.iscsi.ResidualFlag;
import io.blocktarget.protocol.iscsi.ScsiResponse;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.blocktarget.transport.tcp.StallHandler;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;

import static io.blocktarget.transport.iscsi.Harness.TARGET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fault rules' partial transfers and connection faults on the iSCSI wire (issue 11), through the real connection and
 * device server: the residual of a short read (RFC 7143 §11.4.5.1: U bit, Residual Count = EDTL − bytes sent) with
 * GOOD in the last Data-In or CHECK CONDITION in a SCSI Response after the data; a dropped connection (closed, no
 * response); a stalled one (nothing in or out until the rule goes, then everything in order); a wrong header or
 * data digest on the next PDU that has one (not applicable without the digest); AsyncEvent 1 (§11.9.1).
 */
class TransportFaultsIscsiTest {
    private static final int LBS = 512;

    private final LunState state = new LunState("xf");
    private RamBlockDevice device;
    private Harness h;

    @AfterEach
    void tearDown() {
        h.close();
        device.close();
    }

    private void login(String... keys) {
        device = new RamBlockDevice("xf", new BlockGeometry(LBS, 4096, 256), false, new MemoryBudget(1 << 20));
        ScsiTargetDevice target = ScsiTargetDevices.create(List.of(new LogicalUnitSpec(TARGET, 0, "xf",
                FaultBlockDevice.wrap(device, state.faults()), state))).get(TARGET);
        h = new Harness(Harness.transport(IscsiSettings.defaults(), target));
        h.login(keys).release();
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true)); // POWER ON unit attention
        h.expect(ScsiResponse.class).release();
    }

    private void add(String id, long lba, FaultTrigger trigger, FaultAction action) {
        state.faults().add(new FaultRule(id, FaultMatch.ANY.withKinds(EnumSet.of(IoKind.READ)).withLbas(lba, lba),
                trigger, action));
    }

    private void sendRead(long lba, int blocks) {
        h.send(h.command(Harness.read10(lba, blocks), true, false, (long) blocks * LBS, Unpooled.EMPTY_BUFFER, true));
    }

    @Test
    void aPartialReadIsGoodWithTheUnderflowResidualInItsLastDataIn() {
        login();
        add("p", 10, new FaultTrigger.Always(), new FaultAction.PartialTransfer(3, false));
        sendRead(10, 8);
        DataIn d = h.expect(DataIn.class);
        try {
            assertThat(d.data().readableBytes()).isEqualTo(3 * LBS);
            assertThat(d.status()).as("phase collapse: GOOD in the last Data-In").hasValue(0);
            assertThat(d.residual()).isEqualTo(ResidualFlag.UNDERFLOW);
            assertThat(d.residualCount()).isEqualTo(5L * LBS);
        } finally {
            d.release();
        }
    }

    @Test
    void aPartialReadWithCheckConditionSendsTheDataThenTheResponseWithTheResidual() {
        login();
        add("p", 20, new FaultTrigger.Always(), new FaultAction.PartialTransfer(0, true));
        sendRead(20, 8);
        DataIn d = h.expect(DataIn.class);
        assertThat(d.data().readableBytes()).isEqualTo(4 * LBS);
        assertThat(d.status()).as("status goes in the SCSI Response, with the sense").isEmpty();
        d.release();
        ScsiResponse r = h.expect(ScsiResponse.class);
        assertThat(r.residual()).isEqualTo(ResidualFlag.UNDERFLOW);
        assertThat(r.residualCount()).isEqualTo(4L * LBS);
        Harness.assertCheckCondition(r, 0x3, 0x11);
    }

    @Test
    void aDroppedConnectionClosesWithoutAResponse() {
        login();
        add("d", 30, new FaultTrigger.Always(), new FaultAction.DropConnection());
        sendRead(30, 1);
        assertThat(h.open()).isFalse();
        assertThat(h.receive()).as("no response").isNull();
        assertThat(state.faults().holds().size()).as("the nexus loss released it").isZero();
    }

    @Test
    void aStalledConnectionSendsAndReadsNothingUntilTheRuleIsRemoved() {
        login();
        add("s", 40, new FaultTrigger.FirstN(1), new FaultAction.StallConnection(0, FaultAction.StallDirection.BOTH));
        sendRead(40, 1);
        assertThat(h.receive()).as("the response is held back").isNull();
        assertThat(StallHandler.stalled(h.channel)).isTrue();
        sendRead(41, 1); // not read while stalled
        assertThat(h.receive()).isNull();
        assertThat(h.open()).as("still connected").isTrue();
        state.faults().remove("s");
        List<TargetPdu> out = h.receiveAll();
        try {
            assertThat(out).hasSize(2).allMatch(p -> p instanceof DataIn d && d.status().equals(java.util.OptionalInt.of(0)));
            assertThat(out.stream().map(p -> ((DataIn) p).itt()).toList()).as("in order")
                    .isEqualTo(List.of(h.itt - 2, h.itt - 1));
        } finally {
            out.forEach(TargetPdu::release);
        }
        assertThat(StallHandler.stalled(h.channel)).isFalse();
    }

    @Test
    void aReceiveStallStillSendsWhatIsDue() {
        login();
        add("s", 42, new FaultTrigger.FirstN(1),
                new FaultAction.StallConnection(0, FaultAction.StallDirection.RECEIVE));
        sendRead(42, 1);
        h.expect(DataIn.class).release();
        sendRead(43, 1);
        assertThat(h.receive()).as("not read").isNull();
        state.faults().remove("s");
        h.expect(DataIn.class).release();
    }

    @Test
    void aWrongHeaderDigestOnTheNextPduOnlyWhenHeaderDigestIsOn() {
        login("HeaderDigest", "CRC32C", "DataDigest", "CRC32C");
        add("h", 50, new FaultTrigger.FirstN(1), new FaultAction.CorruptDigest(FaultAction.DigestKind.HEADER));
        sendRead(50, 1);
        assertThatThrownBy(h::receive).isInstanceOf(IscsiProtocolException.class)
                .hasMessageContaining("CRC32C mismatch");
        sendRead(50, 1);
        h.expect(DataIn.class).release(); // only the next one
        add("d", 51, new FaultTrigger.FirstN(1), new FaultAction.CorruptDigest(FaultAction.DigestKind.DATA));
        sendRead(51, 1);
        assertThatThrownBy(h::receive).isInstanceOf(IscsiProtocolException.class)
                .hasMessageContaining("CRC32C mismatch");
        assertThat(state.faults().rules().get(1).notApplicable()).isZero();
    }

    @Test
    void withoutDigestsCorruptDigestIsNotApplicable() {
        login();
        add("h", 50, new FaultTrigger.Always(), new FaultAction.CorruptDigest(FaultAction.DigestKind.HEADER));
        sendRead(50, 1);
        h.expect(DataIn.class).release();
        assertThat(state.faults().rules().getFirst().hits()).isEqualTo(1);
        assertThat(state.faults().rules().getFirst().notApplicable()).isEqualTo(1);
    }

    @Test
    void asyncLogoutSendsAsyncEventOneWithTheSecondsAndTheCommandCompletes() {
        login();
        add("l", 60, new FaultTrigger.FirstN(1), new FaultAction.AsyncLogout(7));
        sendRead(60, 1);
        List<TargetPdu> out = h.receiveAll();
        try {
            assertThat(out).hasSize(2);
            assertThat(out).anyMatch(p -> p instanceof DataIn);
            AsyncMessage m = (AsyncMessage) out.stream().filter(p -> p instanceof AsyncMessage).findFirst().orElseThrow();
            assertThat(m.asyncEvent()).isEqualTo(AsyncEvent.LOGOUT_REQUEST);
            assertThat(m.parameter3()).as("seconds to log out in").isEqualTo(7);
        } finally {
            out.forEach(TargetPdu::release);
        }
    }
}
