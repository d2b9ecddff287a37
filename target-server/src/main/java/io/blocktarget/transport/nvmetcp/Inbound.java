package io.blocktarget.transport.nvmetcp;

import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.NvmeTcpProtocolException;
import io.blocktarget.protocol.nvmetcp.TermReq;
import io.netty.buffer.ByteBuf;

/** What {@link NvmeTcpFrameDecoder} hands the connection: one message per received PDU. */
sealed interface Inbound {

    /**
     * A decoded PDU plus its whole frame (a retained slice, reader index at the PDU start) for the TermReq copy
     * should the connection find the PDU fatal. The receiver releases both the PDU and the frame.
     */
    record Pdu(NvmeTcpPdu pdu, ByteBuf frame) implements Inbound {
    }

    /**
     * A CapsuleCmd whose in-capsule data failed its data digest (NVMe/TCP §3.6.2.6 / Base "Transient Transport
     * Error"): the SQE itself is intact (the header digest, if any, passed), the command completes with
     * TRANSIENT_TRANSPORT_ERROR without executing.
     */
    record CapsuleDigestError(Sqe sqe) implements Inbound {
    }

    /** An H2CData whose data failed its digest: the header fields, for the command's bookkeeping. */
    record H2CDataDigestError(int cccid, int ttag, long datao, int datal, boolean last) implements Inbound {
    }

    /** The stream cannot be framed or decoded any further: send {@code termReq} and close. */
    record Fatal(NvmeTcpProtocolException error, TermReq termReq) implements Inbound {
    }
}
