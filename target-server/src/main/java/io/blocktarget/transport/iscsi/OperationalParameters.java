package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.IscsiKey;
import io.blocktarget.protocol.iscsi.KeyNegotiation;

import java.util.Map;

/**
 * The operational values in force after login (RFC 7143 §13), defaults where a key was not negotiated.
 *
 * @param initiatorMaxRecvDataSegmentLength what the initiator declared: the cap on every data segment we send
 */
record OperationalParameters(Digest headerDigest, Digest dataDigest, int initiatorMaxRecvDataSegmentLength,
                             int maxBurstLength, int firstBurstLength, boolean initialR2T, boolean immediateData,
                             int maxOutstandingR2T) {

    static OperationalParameters from(Map<IscsiKey, String> negotiated, String initiatorMaxRecvDataSegmentLength) {
        return new OperationalParameters(
                digest(value(negotiated, IscsiKey.HEADER_DIGEST)),
                digest(value(negotiated, IscsiKey.DATA_DIGEST)),
                number(initiatorMaxRecvDataSegmentLength),
                number(value(negotiated, IscsiKey.MAX_BURST_LENGTH)),
                number(value(negotiated, IscsiKey.FIRST_BURST_LENGTH)),
                "Yes".equals(value(negotiated, IscsiKey.INITIAL_R2T)),
                "Yes".equals(value(negotiated, IscsiKey.IMMEDIATE_DATA)),
                number(value(negotiated, IscsiKey.MAX_OUTSTANDING_R2T)));
    }

    private static String value(Map<IscsiKey, String> negotiated, IscsiKey key) {
        String v = negotiated.get(key);
        return v != null ? v : key.defaultValue().orElseThrow();
    }

    private static Digest digest(String value) {
        return Digest.CRC32C.keyValue().equals(value) ? Digest.CRC32C : Digest.NONE;
    }

    private static int number(String value) {
        return KeyNegotiation.parseNumber(value).orElseThrow().intValue();
    }
}
