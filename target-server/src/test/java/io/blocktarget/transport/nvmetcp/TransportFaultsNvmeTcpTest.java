package io.blocktarget.transport.nvmetcp;

import io.blocktarget.block.fault.ActiveRule;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultMatch;
import io.blocktarget.block.fault.FaultRule;
import io.blocktarget.block.fault.FaultTrigger;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.C2HData;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.time.ManualClock;
import io.blocktarget.transport.tcp.StallHandler;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fault rules on the NVMe/TCP wire (issue 11): an error completion that carries data sends it as C2HData without
 * SUCCESS, then the CapsuleResp with the error (NVMe/TCP §3.6.2.8: a partial transfer); the connection faults the
 * NVMe layer hands the queue's connection — drop (closed), stall (nothing out until the rule goes), a wrong HDGST /
 * DDGST on the next PDU that has one (not applicable when the ICReq did not ask for it), async logout (iSCSI's).
 */
class TransportFaultsNvmeTcpTest {
    private final LunFaults faults = new LunFaults(new ManualClock());

    private ActiveRule rule(String id, FaultAction action) {
        return faults.add(new FaultRule(id, FaultMatch.ANY, new FaultTrigger.Always(), action));
    }

    private static HostEnd open(boolean digests) {
        HostEnd host = HostEnd.open(NvmeTcpConnectionTest.LIMITS);
        host.icReq(digests, digests);
        assertThat(host.connect(1, 127, 0, FakeTarget.SUBNQN).status().sc()).isZero();
        return host;
    }

    @Test
    void anErrorWithDataSendsTheDataWithoutSuccessThenTheResponse() {
        try (HostEnd host = open(false)) {
            Sqe sqe = Sqe.of(0x02, 9, 1, SglDescriptor.transportDataBlock(8192), 0, 0, 0, 0, 0,
                    FakeTarget.PARTIAL_READ);
            host.capsule(sqe);
            NvmeTcpPdu pdu = host.next();
            assertThat(pdu).isInstanceOf(C2HData.class);
            C2HData c2h = (C2HData) pdu;
            assertThat(c2h.data().readableBytes()).isEqualTo(4096);
            assertThat(c2h.last()).isTrue();
            assertThat(c2h.success()).as("the command did not succeed").isFalse();
            c2h.release();
            Cqe cqe = host.response();
            assertThat(cqe.cid()).isEqualTo(9);
            assertThat(cqe.status().sc()).isEqualTo(NvmeStatus.DATA_TRANSFER_ERROR.sc());
        }
    }

    /**
     * A fault rule's exact Status Field reaches the CQE bit for bit (Base §4.2.3: DW3 bits 31:17 = DNR, M, CRD, SCT,
     * SC; bit 16 the phase tag, 0 on fabrics) — also for pairs no {@link NvmeStatus} row names.
     */
    @Test
    void aRawStatusGoesOnTheWireAsItIs() {
        try (HostEnd host = open(false)) {
            int cid = 20;
            for (int field : new int[] {0x8380, 0x0604, 0xFFFE, 0x0FFE, 0x0502}) {
                host.capsule(Sqe.of(0x02, cid, 1, SglDescriptor.transportDataBlock(4096), 0, 0, 0, 0, field,
                        FakeTarget.RAW_STATUS));
                Cqe cqe = host.response();
                assertThat(cqe.cid()).isEqualTo(cid++);
                assertThat(cqe.phase()).isZero();
                assertThat(cqe.status().encode(0)).as("status field %04x", field).isEqualTo(field);
            }
        }
    }

    @Test
    void dropClosesTheConnection() {
        try (HostEnd host = open(false)) {
            assertThat(host.target.connection.applyFault(new FaultAction.DropConnection(),
                    rule("d", new FaultAction.DropConnection()))).isTrue();
            host.channel.runPendingTasks();
            assertThat(host.channel.isOpen()).isFalse();
        }
    }

    @Test
    void aSendStallHoldsTheResponsesUntilTheRuleIsRemoved() {
        try (HostEnd host = open(false)) {
            FaultAction.StallConnection stall = new FaultAction.StallConnection(0, FaultAction.StallDirection.SEND);
            assertThat(host.target.connection.applyFault(stall, rule("s", stall))).isTrue();
            assertThat(StallHandler.stalled(host.channel)).isTrue();
            host.noData(0x00, 11); // Flush: read (the stall is send-only) and executed, its response held back
            assertThat(host.poll()).isNull();
            assertThat(host.target.submitted).anyMatch(s -> s.sqe().cid() == 11);
            faults.remove("s");
            host.channel.runPendingTasks();
            assertThat(host.response().cid()).isEqualTo(11);
            assertThat(StallHandler.stalled(host.channel)).isFalse();
        }
    }

    @Test
    void aFatalErrorOnASendStalledConnectionDropsWhatTheStallHeldAndCloses() {
        try (HostEnd host = open(false)) {
            FaultAction.StallConnection stall = new FaultAction.StallConnection(0, FaultAction.StallDirection.SEND);
            assertThat(host.target.connection.applyFault(stall, rule("s", stall))).isTrue();
            host.noData(0x00, 20); // completed; its CapsuleResp held back by the stall
            host.target.holdCompletions = true;
            host.noData(0x00, 21);
            host.noData(0x00, 21); // the CID of an outstanding command: a fatal transport error
            host.channel.runPendingTasks();
            // the C2HTermReq goes out and the connection closes although the rule still stalls it: the target ended
            // it (a close that waits for its C2HTermReq to be written would wait behind the stall for ever)
            assertThat(faults.rules()).extracting(r -> r.rule().id()).contains("s");
            java.util.List<NvmeTcpPdu> out = new java.util.ArrayList<>();
            for (NvmeTcpPdu p; (p = host.poll()) != null; ) {
                out.add(p);
            }
            try {
                assertThat(out).as("the C2HTermReq last").isNotEmpty().last()
                        .isInstanceOf(io.blocktarget.protocol.nvmetcp.TermReq.class);
                assertThat(out).as("the CapsuleResp of CID 20 the stall held is dropped").noneMatch(p ->
                        p instanceof io.blocktarget.protocol.nvmetcp.CapsuleResp r && r.cqe().cid() == 20);
            } finally {
                out.forEach(NvmeTcpPdu::release);
            }
            assertThat(host.channel.isOpen()).isFalse();
        }
    }

    @Test
    void aWrongHeaderDigestThenAWrongDataDigest() {
        try (HostEnd host = open(true)) {
            FaultAction.CorruptDigest header = new FaultAction.CorruptDigest(FaultAction.DigestKind.HEADER);
            assertThat(host.target.connection.applyFault(header, rule("h", header))).isTrue();
            host.noData(0x00, 12);
            assertThatThrownBy(host::poll).as("HDGST of the CapsuleResp").hasMessageContaining("HEADER_DIGEST_ERROR");
        }
        try (HostEnd host = open(true)) {
            FaultAction.CorruptDigest data = new FaultAction.CorruptDigest(FaultAction.DigestKind.DATA);
            assertThat(host.target.connection.applyFault(data, rule("d2", data))).isTrue();
            host.noData(0x00, 13);
            assertThat(host.response().cid()).as("no data: its digest waits for the next C2HData").isEqualTo(13);
            host.capsule(NvmeTcpConnectionTest.read(14, 0, 4096));
            assertThatThrownBy(host::poll).as("DDGST of the C2HData").hasMessageContaining("DATA_DIGEST");
        }
    }

    @Test
    void digestsNotNegotiatedAndAsyncLogoutAreNotApplicable() {
        try (HostEnd host = open(false)) {
            FaultAction.CorruptDigest header = new FaultAction.CorruptDigest(FaultAction.DigestKind.HEADER);
            assertThat(host.target.connection.applyFault(header, rule("h", header))).isFalse();
            FaultAction.AsyncLogout logout = new FaultAction.AsyncLogout(5);
            assertThat(host.target.connection.applyFault(logout, rule("l", logout))).isFalse();
            host.noData(0x00, 15);
            assertThat(host.response().cid()).isEqualTo(15);
        }
    }
}
