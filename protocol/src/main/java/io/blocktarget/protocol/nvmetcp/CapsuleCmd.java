package io.blocktarget.protocol.nvmetcp;

import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Command Capsule PDU (NVMe/TCP §3.6.2.6): the 64-byte SQE at 8..71, then optional in-capsule data at PDO.
 * The SGL in the SQE (Data Block, Offset subtype) addresses that data.
 */
public record CapsuleCmd(Sqe sqe, ByteBuf data) implements NvmeTcpPdu, NvmeTcpDataPdu {
    public static final int OFFSET_SQE = 8;
    /** The SQE's CID within the PDU: the FEI of a CID conflict. */
    public static final int OFFSET_CID = OFFSET_SQE + Sqe.OFFSET_CID;

    public CapsuleCmd(Sqe sqe) {
        this(sqe, Unpooled.EMPTY_BUFFER);
    }

    static CapsuleCmd get(ByteBuf buf, int i, NvmeTcpHeader ch) throws NvmeTcpProtocolException {
        Sqe sqe = Sqe.get(buf, i + OFFSET_SQE);
        return new CapsuleCmd(sqe, PduCodec.data(buf, i, ch, sqe.cid()));
    }

    @Override
    public NvmeTcpPduType type() {
        return NvmeTcpPduType.CAPSULE_CMD;
    }

    @Override
    public void encode(ByteBuf out, PduOptions options) {
        encodeHeader(out, options);
        PduCodec.writeData(out, type(), options, data);
    }

    @Override
    public void encodeHeader(ByteBuf out, PduOptions options) {
        int n = data.readableBytes();
        int start = PduCodec.begin(out, type(), 0, options, n);
        sqe.encode(out);
        PduCodec.endHeader(out, start, type(), options, n);
    }

    @Override
    public void release() {
        data.release();
    }
}
