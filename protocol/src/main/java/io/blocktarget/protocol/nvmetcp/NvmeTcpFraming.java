package io.blocktarget.protocol.nvmetcp;

import io.netty.buffer.ByteBuf;

/**
 * Pure PDU framing for one receiving end of a connection: from the 8-byte common header alone, checks the type
 * against the sender and the connection phase, HLEN against the type, the digest flags against what was
 * negotiated, PDO against HLEN/digest/alignment and PLEN against the header and the data limits — all before a
 * byte of the PDU is buffered — and returns the PDU's total length (NVMe/TCP §3.6.1, §3.6.2).
 *
 * @param peer             who sends the PDUs we frame (HOST for a controller)
 * @param phase            before or after the ICReq/ICResp exchange
 * @param options          digests and the data alignment our side asked the peer for (CPDA on a controller)
 * @param maxInCapsuleData largest in-capsule data of a CapsuleCmd (IOCCSZ×16 − 64 on I/O queues)
 * @param maxData          largest H2CData (MAXH2CDATA) or C2HData data length accepted
 */
public record NvmeTcpFraming(NvmeTcpPduType.Sender peer, Phase phase, PduOptions options, int maxInCapsuleData,
                             int maxData) {
    /** Largest C2HTermReq/H2CTermReq accepted: 24-byte header plus up to 128 bytes of copied header (Linux's 152). */
    public static final int MAX_TERM_REQ_PLEN = 152;

    /** Connection phase as far as framing cares. */
    public enum Phase {
        /** Only ICReq (or ICResp on a host) and TermReq are legal (§3.3: the first PDU is ICReq). */
        AWAITING_INITIALIZATION,
        /** ICReq/ICResp done; another one is a PDU Sequence Error. */
        ESTABLISHED
    }

    /** Framing of a controller-side connection before ICReq. */
    public static NvmeTcpFraming controller(int maxInCapsuleData, int maxH2CData) {
        return new NvmeTcpFraming(NvmeTcpPduType.Sender.HOST, Phase.AWAITING_INITIALIZATION, PduOptions.NONE,
                maxInCapsuleData, maxH2CData);
    }

    /** Framing of a host-side connection (test initiators) before ICResp. */
    public static NvmeTcpFraming host(int maxC2HData) {
        return new NvmeTcpFraming(NvmeTcpPduType.Sender.CONTROLLER, Phase.AWAITING_INITIALIZATION, PduOptions.NONE,
                0, maxC2HData);
    }

    /** The framing after initialization with the negotiated options. */
    public NvmeTcpFraming established(PduOptions negotiated) {
        return new NvmeTcpFraming(peer, Phase.ESTABLISHED, negotiated, maxInCapsuleData, maxData);
    }

    /** Same limits with another in-capsule data size (admin vs I/O queue, known after Connect). */
    public NvmeTcpFraming withMaxInCapsuleData(int bytes) {
        return new NvmeTcpFraming(peer, phase, options, bytes, maxData);
    }

    /**
     * Total length of the PDU whose common header is at the reader index, or -1 when fewer than 8 bytes are
     * readable. Nothing is consumed.
     *
     * @throws NvmeTcpProtocolException with the FES reason and FEI offset the TermReq must carry
     */
    public int frameLength(ByteBuf buf) throws NvmeTcpProtocolException {
        if (buf.readableBytes() < NvmeTcpHeader.SIZE) {
            return -1;
        }
        // the fields, not an NvmeTcpHeader: the record escaped into the checks below and cost an allocation per PDU
        int i = buf.readerIndex();
        int typeCode = buf.getUnsignedByte(i + NvmeTcpHeader.OFFSET_TYPE);
        int flags = buf.getUnsignedByte(i + NvmeTcpHeader.OFFSET_FLAGS);
        int hlen = buf.getUnsignedByte(i + NvmeTcpHeader.OFFSET_HLEN);
        int pdo = buf.getUnsignedByte(i + NvmeTcpHeader.OFFSET_PDO);
        long plen = buf.getUnsignedIntLE(i + NvmeTcpHeader.OFFSET_PLEN);
        // not orElseThrow: its lambda, capturing typeCode, would be allocated for every PDU
        NvmeTcpPduType type = NvmeTcpPduType.of(typeCode).orElse(null);
        if (type == null) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_TYPE, "unknown PDU type " + typeCode);
        }
        if (type.sender() != peer) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_TYPE, type + " is not sent by a " + peer);
        }
        checkSequence(type);
        if (hlen != type.hlen()) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_HLEN,
                    "HLEN " + hlen + " for " + type + ", expected " + type.hlen());
        }
        checkFlags(type, flags);
        long length = type.isTermReq() ? termReqLength(hlen, plen) : dataPduLength(type, flags, pdo, plen);
        return (int) length;
    }

    private void checkSequence(NvmeTcpPduType type) throws NvmeTcpProtocolException {
        boolean init = type == NvmeTcpPduType.IC_REQ || type == NvmeTcpPduType.IC_RESP;
        if (type.isTermReq()) {
            return;
        }
        if (phase == Phase.AWAITING_INITIALIZATION && !init) {
            throw NvmeTcpProtocolException.of(NvmeTcpFatalError.PDU_SEQUENCE_ERROR, type + " before ICReq/ICResp");
        }
        if (phase == Phase.ESTABLISHED && init) {
            throw NvmeTcpProtocolException.of(NvmeTcpFatalError.PDU_SEQUENCE_ERROR, "second " + type);
        }
    }

    private void checkFlags(NvmeTcpPduType type, int flags) throws NvmeTcpProtocolException {
        boolean hdgstf = NvmeTcpHeader.has(flags, NvmeTcpHeader.FLAG_HDGSTF);
        if (!type.digestible()) {
            if (hdgstf || NvmeTcpHeader.has(flags, NvmeTcpHeader.FLAG_DDGSTF)) {
                throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_FLAGS, "digest flag on " + type);
            }
        } else if (hdgstf != options.headerDigest()) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_FLAGS,
                    "HDGSTF " + hdgstf + " but header digest negotiated " + options.headerDigest());
        }
        if (type == NvmeTcpPduType.C2H_DATA && NvmeTcpHeader.has(flags, NvmeTcpHeader.FLAG_SUCCESS)
                && !NvmeTcpHeader.has(flags, NvmeTcpHeader.FLAG_LAST_PDU)) {
            // §3.6.2.8: SUCCESS is only allowed on the last C2HData of a command
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_FLAGS, "SUCCESS without LAST_PDU");
        }
    }

    private static long termReqLength(int hlen, long plen) throws NvmeTcpProtocolException {
        if (plen < hlen || plen > MAX_TERM_REQ_PLEN) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_PLEN, "TermReq PLEN " + plen);
        }
        return plen;
    }

    private long dataPduLength(NvmeTcpPduType type, int flags, int pdo, long plen) throws NvmeTcpProtocolException {
        int headerEnd = type.hlen() + (type.digestible() ? options.headerDigestLength() : 0);
        boolean ddgstf = NvmeTcpHeader.has(flags, NvmeTcpHeader.FLAG_DDGSTF);
        boolean dataRequired = type == NvmeTcpPduType.H2C_DATA || type == NvmeTcpPduType.C2H_DATA;
        if (!type.carriesData() || pdo == 0 && !dataRequired) {
            if (pdo != 0) {
                throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_PDO, "PDO " + pdo + " on " + type);
            }
            if (ddgstf) {
                throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_FLAGS, "DDGSTF without data");
            }
            if (plen != headerEnd) {
                throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_PLEN,
                        "PLEN " + plen + " for " + type + " without data, expected " + headerEnd);
            }
            return plen;
        }
        if (pdo < headerEnd || pdo % options.alignment() != 0) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_PDO,
                    "PDO " + pdo + " with header end " + headerEnd + " and alignment " + options.alignment());
        }
        if (ddgstf != options.dataDigest()) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_FLAGS,
                    "DDGSTF " + ddgstf + " but data digest negotiated " + options.dataDigest());
        }
        long dataLength = plen - pdo - options.dataDigestLength();
        if (dataLength <= 0) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_PLEN,
                    "PLEN " + plen + " leaves no data after PDO " + pdo);
        }
        if (type == NvmeTcpPduType.CAPSULE_CMD && dataLength > maxInCapsuleData) {
            throw NvmeTcpProtocolException.headerField(NvmeTcpHeader.OFFSET_PLEN,
                    "in-capsule data " + dataLength + " > " + maxInCapsuleData);
        }
        if (dataRequired && dataLength > maxData) {
            throw NvmeTcpProtocolException.of(NvmeTcpFatalError.DATA_TRANSFER_LIMIT_EXCEEDED,
                    type + " data " + dataLength + " > " + maxData);
        }
        return plen;
    }
}
