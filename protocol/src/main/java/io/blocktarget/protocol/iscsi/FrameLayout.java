package io.blocktarget.protocol.iscsi;

/**
 * The sizes of one PDU on the wire (RFC 7143 §11.1): BHS, AHS, header digest, data segment, its
 * padding to 4 bytes, and the data digest (present only when there is a data segment).
 */
public record FrameLayout(int ahsLength, int headerDigestLength, int dataSegmentLength, int dataDigestLength) {
    /** BHS + AHS: the bytes the header digest covers. */
    public int headerLength() {
        return Bhs.LENGTH + ahsLength;
    }

    public int paddedDataLength() {
        return dataSegmentLength + Bhs.padding(dataSegmentLength);
    }

    /** Offset of the data segment from the start of the frame. */
    public int dataOffset() {
        return headerLength() + headerDigestLength;
    }

    /** The whole PDU, digests included; at most 48 + 1020 + 4 + 2^24 + 4 bytes, so it fits an int. */
    public int totalLength() {
        return dataOffset() + paddedDataLength() + dataDigestLength;
    }
}
