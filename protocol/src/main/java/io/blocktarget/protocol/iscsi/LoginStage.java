package io.blocktarget.protocol.iscsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** CSG / NSG of Login Request and Response (RFC 7143 §11.12.3); 2 is reserved. */
public enum LoginStage implements WireCode {
    SECURITY_NEGOTIATION(0),
    LOGIN_OPERATIONAL_NEGOTIATION(1),
    FULL_FEATURE_PHASE(3);

    private final int code;

    LoginStage(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<LoginStage> fromCode(int code) {
        return WireCode.lookup(LoginStage.class, code);
    }
}
