package io.blocktarget.config;

import java.util.Locale;

/**
 * {@code access.tls}: whether NVMe/TCP hosts must, may or must not reach a subsystem over TLS 1.3 (NVMe/TCP
 * Transport §3.6 "Transport Layer Security"). The discovery log entry says the same thing in TREQ and TSAS.
 */
public enum TlsMode {
    /** Plain NVMe/TCP only: TREQ "not specified", SECTYPE none. The default. */
    OFF,
    /** TLS 1.3 or plain: TREQ "secure channel not required", SECTYPE TLS 1.3. */
    ALLOWED,
    /** TLS 1.3 only: a plain connection is refused; TREQ "secure channel required", SECTYPE TLS 1.3. */
    REQUIRED;

    public static final String ALLOWED_TEXT = "required, allowed or off (default off)";

    /** The word in a LUN file. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    static TlsMode ofWord(String word) throws InvalidValue {
        for (TlsMode mode : values()) {
            if (mode.word().equals(word)) {
                return mode;
            }
        }
        throw new InvalidValue(word + " is not a TLS mode", ALLOWED_TEXT);
    }
}
