package io.blocktarget.protocol.nvme;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** Fabrics Command Type, SQE byte 4 of opcode 7Fh (Base §6.1, Figure "Fabrics Command Types"). */
public enum FabricsCommandType implements WireCode {
    PROPERTY_SET(0x00), CONNECT(0x01), PROPERTY_GET(0x04), AUTHENTICATION_SEND(0x05),
    AUTHENTICATION_RECEIVE(0x06), DISCONNECT(0x08);

    private final int code;

    FabricsCommandType(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<FabricsCommandType> of(int code) {
        return WireCode.lookup(FabricsCommandType.class, code);
    }
}
