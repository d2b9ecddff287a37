package io.blocktarget.config;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Base of the tests that build a configuration directory in a fresh temporary directory, and the "allowed" texts
 * their expected messages share (written out here by hand, not taken from the code under test).
 */
abstract class ConfigDirTest {
    static final String SIZE_ALLOWED = "allowed: an integer number of bytes, optionally followed by a unit"
            + " B, KiB, MiB, GiB or TiB (powers of 1024), e.g. 4096, 16KiB or 8 GiB";
    static final String IQN_ALLOWED = "allowed: iqn.YYYY-MM.reversed.domain[:anything], eui. + 16 hex digits"
            + " or naa. + 16 or 32 hex digits; lowercase ASCII letters, digits, '-', '.' and ':'; at most 223 bytes"
            + " (RFC 3720 §3.2.6)";
    static final String NQN_ALLOWED = "allowed: nqn.YYYY-MM.reverse.domain:string with letters, digits, '-',"
            + " '.', '_' and ':' in the string, or nqn.2014-08.org.nvmexpress:uuid:UUID; at most 223 bytes"
            + " (NVMe Base §4.5)";
    static final String PORT_ALLOWED = "allowed: 0..65535 (0 disables the listener)";
    static final String BIND_ALLOWED = "allowed: an IPv4 or IPv6 address literal, e.g. 0.0.0.0, 127.0.0.1,"
            + " :: or ::1 (no host names)";

    @TempDir
    Path tmp;
    ConfigDir config;

    @BeforeEach
    void createConfigDir() {
        config = new ConfigDir(tmp);
    }
}
