package io.blocktarget.protocol.nvmetcp;

import io.blocktarget.protocol.nvme.Cqe;
import io.netty.buffer.ByteBuf;

/** Response Capsule PDU (NVMe/TCP §3.6.2.7): the 16-byte CQE at 8..23; never data. */
public record CapsuleResp(Cqe cqe) implements NvmeTcpPdu {
    public static final int OFFSET_CQE = 8;

    static CapsuleResp get(ByteBuf buf, int i) {
        return new CapsuleResp(Cqe.decode(buf.slice(i + OFFSET_CQE, Cqe.SIZE)));
    }

    @Override
    public NvmeTcpPduType type() {
        return NvmeTcpPduType.CAPSULE_RESP;
    }

    @Override
    public void encode(ByteBuf out, PduOptions options) {
        int start = PduCodec.begin(out, type(), 0, options, 0);
        cqe.encode(out);
        PduCodec.endHeader(out, start, type(), options, 0);
    }
}
