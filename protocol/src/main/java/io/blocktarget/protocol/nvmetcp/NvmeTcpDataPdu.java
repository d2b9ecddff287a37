package io.blocktarget.protocol.nvmetcp;

import io.netty.buffer.ByteBuf;

/** A PDU that may carry data: the data is a slice this PDU holds one reference to (see {@link NvmeTcpPdu}). */
public interface NvmeTcpDataPdu {
    /** The PDU data without padding or digest; empty when the PDU carries none. */
    ByteBuf data();

    /**
     * Everything before the data: CH, PSH, HDGST and PAD up to PDO. A sender that writes {@link #data()} itself
     * (no copy) follows it with {@link NvmeTcpDigests#writeDataDigest} when data digests are on.
     */
    void encodeHeader(ByteBuf out, PduOptions options);
}
