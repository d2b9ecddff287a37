package io.blocktarget.protocol.iscsi;

/** HeaderDigest / DataDigest values (RFC 7143 §13.1) and the number of bytes each adds on the wire. */
public enum Digest {
    NONE("None", 0),
    CRC32C("CRC32C", 4);

    private final String keyValue;
    private final int length;

    Digest(String keyValue, int length) {
        this.keyValue = keyValue;
        this.length = length;
    }

    /** The spelling used in the HeaderDigest / DataDigest keys. */
    public String keyValue() {
        return keyValue;
    }

    public int length() {
        return length;
    }
}
