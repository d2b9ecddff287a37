package io.blocktarget.protocol.iscsi;

/** Which end of a connection sends a PDU (RFC 7143 §11.2.1.2: opcodes 0x00-0x1f initiator, 0x20-0x3f target). */
public enum PduSource {
    INITIATOR,
    TARGET
}
