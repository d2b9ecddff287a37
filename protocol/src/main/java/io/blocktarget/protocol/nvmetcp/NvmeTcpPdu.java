package io.blocktarget.protocol.nvmetcp;

import io.netty.buffer.ByteBuf;

/**
 * An NVMe/TCP PDU (NVMe/TCP §3.6.2). Decode a frame whose length {@link NvmeTcpFraming#frameLength} returned;
 * encode writes the whole PDU — header, header digest, padding, data, data digest — as {@link PduOptions} say.
 * <p>
 * Buffer rule: a decoded PDU with data ({@link NvmeTcpDataPdu}) holds one reference to a retained slice of the
 * frame; whoever takes the PDU releases it with {@link #release()}. Encoding never releases.
 */
public sealed interface NvmeTcpPdu permits ICReq, ICResp, TermReq, CapsuleCmd, CapsuleResp, H2CData, C2HData, R2T {
    NvmeTcpPduType type();

    void encode(ByteBuf out, PduOptions options);

    /** Releases the data this PDU holds, if any. */
    default void release() {
    }

    /**
     * Decodes the framed PDU at the reader index of {@code frame} (exactly PLEN readable bytes) and consumes it.
     * Verifies the header digest when HDGSTF is set and the data digest when DDGSTF is set.
     *
     * @throws NvmeTcpProtocolException HEADER_DIGEST_ERROR, DATA_DIGEST_ERROR (with the command ID),
     *                                  UNSUPPORTED_PARAMETER (ICReq/ICResp) or INVALID_PDU_HEADER_FIELD
     */
    static NvmeTcpPdu decode(ByteBuf frame) throws NvmeTcpProtocolException {
        NvmeTcpHeader ch = NvmeTcpHeader.peek(frame);
        if (frame.readableBytes() < ch.plen() || ch.plen() < ch.hlen() || ch.hlen() < NvmeTcpHeader.SIZE) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_PLEN, "frame shorter than PLEN/HLEN");
        }
        NvmeTcpPduType type = NvmeTcpPduType.of(ch.type()).orElseThrow(
                () -> NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_TYPE, "unknown PDU type " + ch.type()));
        if (ch.hlen() != type.hlen()) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_HLEN, "HLEN " + ch.hlen());
        }
        if (ch.has(NvmeTcpHeader.FLAG_HDGSTF)) {
            if (ch.plen() < ch.hlen() + PduOptions.DIGEST_LENGTH) {
                throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_PLEN, "no room for HDGST");
            }
            NvmeTcpDigests.verifyHeaderDigest(frame);
        }
        int start = frame.readerIndex();
        NvmeTcpPdu pdu = switch (type) {
            case IC_REQ -> ICReq.get(frame, start);
            case IC_RESP -> ICResp.get(frame, start);
            case H2C_TERM_REQ, C2H_TERM_REQ -> TermReq.get(frame, start, type, ch);
            case CAPSULE_CMD -> CapsuleCmd.get(frame, start, ch);
            case CAPSULE_RESP -> CapsuleResp.get(frame, start);
            case H2C_DATA -> H2CData.get(frame, start, ch);
            case C2H_DATA -> C2HData.get(frame, start, ch);
            case R2T -> R2T.get(frame, start);
        };
        frame.readerIndex(start + (int) ch.plen());
        return pdu;
    }
}
