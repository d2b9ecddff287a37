package io.blocktarget.nvme;

import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.FeatureCommand;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.PropertyCommand;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import static org.assertj.core.api.Assertions.assertThat;

/** A test initiator speaking to the NVMe layer the way the Linux host does, one command at a time. */
final class TestHost {
    /** CC as Linux writes it: EN, CSS NVM, MPS 4 KiB, IOSQES 6, IOCQES 4 (Base §3.1.4.5). */
    static final int CC_ENABLE = 1 | 6 << 16 | 4 << 20;

    final NvmeTarget target;
    final String subnqn;
    final TestConnection adminConnection;
    final NvmeQueue admin;
    final int cntlid;
    private int cid;

    private TestHost(NvmeTarget target, String subnqn, TestConnection adminConnection, NvmeQueue admin) {
        this.target = target;
        this.subnqn = subnqn;
        this.adminConnection = adminConnection;
        this.admin = admin;
        this.cntlid = admin.cntlid();
    }

    /** A host around an admin queue connected elsewhere. */
    static TestHost wrap(NvmeTarget target, String subnqn, NvmeQueue admin) {
        return new TestHost(target, subnqn, new TestConnection(), admin);
    }

    static TestHost connect(NvmeTarget target, String subnqn, long kato) {
        return connect(target, subnqn, kato, new TestConnection());
    }

    static TestHost connect(NvmeTarget target, String subnqn, long kato, TestConnection connection) {
        ConnectResult result = TestSupport.connect(target, 0, 31, kato, 0xFFFF, subnqn, TestSupport.HOST_NQN,
                connection);
        assertThat(result.status()).isEqualTo(NvmeStatus.SUCCESS);
        // DW0: CNTLID, and AUTHREQ.ATR (bit 17) when the subsystem requires DH-HMAC-CHAP
        assertThat(result.dw0() & ~(1 << 17)).isEqualTo(result.queue().cntlid());
        return new TestHost(target, subnqn, connection, result.queue());
    }

    /** Connect + CC.EN = 1, as the host does before anything else. */
    static TestHost enabled(NvmeTarget target, String subnqn) {
        TestHost host = connect(target, subnqn, 0);
        assertThat(host.propertySet(ControllerRegister.CC, CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        return host;
    }

    int nextCid() {
        cid = (cid + 1) & 0xFFFF;
        return cid;
    }

    Reply admin(Sqe sqe) {
        return TestSupport.submit(admin, sqe, null);
    }

    Reply admin(Sqe sqe, ByteBuf dataOut) {
        return TestSupport.submit(admin, sqe, dataOut);
    }

    Reply property(FabricsCommandType type, ControllerRegister register, long value) {
        return admin(new PropertyCommand(nextCid(), type, register, value).toSqe());
    }

    long propertyGet(ControllerRegister register) {
        Reply r = property(FabricsCommandType.PROPERTY_GET, register, 0);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        return Integer.toUnsignedLong(r.dw0()) | (long) r.dw1() << 32;
    }

    NvmeStatus propertySet(ControllerRegister register, long value) {
        return property(FabricsCommandType.PROPERTY_SET, register, value).status();
    }

    Reply identify(int cns, int nsid, int csi) {
        return admin(new IdentifyCommand(nextCid(), nsid, cns, 0, 0, csi, 0,
                SglDescriptor.transportDataBlock(IdentifyCommand.DATA_SIZE)).toSqe());
    }

    /** Identify data, asserting success; the caller releases it. */
    ByteBuf identifyData(int cns, int nsid) {
        Reply r = identify(cns, nsid, 0);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(r.data().readableBytes()).isEqualTo(4096);
        return r.data();
    }

    Reply getLogPage(int lid, int nsid, long offset, int length, boolean rae) {
        return admin(new GetLogPageCommand(nextCid(), nsid, lid, 0, rae, length / 4 - 1, 0, offset, false, 0,
                SglDescriptor.transportDataBlock(length)).toSqe());
    }

    Reply setFeature(FeatureId fid, int cdw11) {
        return admin(new FeatureCommand(AdminOpcode.SET_FEATURES, nextCid(), 0, fid, false, 0, cdw11,
                SglDescriptor.transportDataBlock(0)).toSqe());
    }

    Reply getFeature(FeatureId fid, int sel, int cdw11) {
        return admin(new FeatureCommand(AdminOpcode.GET_FEATURES, nextCid(), 0, fid, false, sel, cdw11,
                SglDescriptor.transportDataBlock(0)).toSqe());
    }

    Reply keepAlive() {
        return admin(Sqe.of(AdminOpcode.KEEP_ALIVE.code(), nextCid(), 0, SglDescriptor.transportDataBlock(0)));
    }

    ConnectResult tryConnectIo(int qid, int sqsize, TestConnection connection) {
        return TestSupport.connect(target, qid, sqsize, 0, cntlid, subnqn, TestSupport.HOST_NQN, connection);
    }

    NvmeQueue connectIo(int qid) {
        ConnectResult r = tryConnectIo(qid, 127, new TestConnection());
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(r.queue().qid()).isEqualTo(qid);
        assertThat(r.queue().entries()).isEqualTo(128);
        return r.queue();
    }

    static Sqe rw(NvmOpcode opcode, int cid, int nsid, long slba, int blocks, int lbs, boolean fua) {
        return new ReadWriteCommand(opcode, cid, nsid, slba, blocks - 1, fua, false, 0, 0,
                SglDescriptor.transportDataBlock(blocks * lbs)).toSqe();
    }

    /** Dataset Management (NVM Command Set §3.2.2): CDW10 NR, CDW11 IDR / IDW / AD. */
    static Sqe dsm(int cid, int nsid, int nr, boolean idr, boolean idw, boolean ad, SglDescriptor dptr) {
        return Sqe.of(NvmOpcode.DATASET_MANAGEMENT.code(), cid, nsid, dptr, nr,
                (idr ? 1 : 0) | (idw ? 2 : 0) | (ad ? 4 : 0));
    }

    Reply read(NvmeQueue queue, int nsid, long slba, int blocks, int lbs) {
        return TestSupport.submit(queue, rw(NvmOpcode.READ, nextCid(), nsid, slba, blocks, lbs, false), null);
    }

    Reply write(NvmeQueue queue, int nsid, long slba, byte[] data, int lbs, boolean fua) {
        return TestSupport.submit(queue, rw(NvmOpcode.WRITE, nextCid(), nsid, slba, data.length / lbs, lbs, fua),
                Unpooled.wrappedBuffer(data));
    }

    Reply io(NvmeQueue queue, Sqe sqe, ByteBuf dataOut) {
        return TestSupport.submit(queue, sqe, dataOut);
    }

    /** Fabrics Disconnect (FCTYPE 08h) on {@code queue}. */
    Reply disconnect(NvmeQueue queue) {
        return TestSupport.submit(queue, new Sqe(Sqe.OPCODE_FABRICS, 0, Sqe.PSDT_SGL_MPTR_ADDRESS, nextCid(),
                FabricsCommandType.DISCONNECT.code(), 0, 0, 0, SglDescriptor.transportDataBlock(0), 0, 0, 0, 0, 0,
                0), null);
    }
}
