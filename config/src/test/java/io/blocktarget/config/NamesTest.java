package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Name syntax: RFC 3720 §3.2.6 iSCSI names, NVMe Base §4.5 NQNs, LUN names. */
class NamesTest {
    private static final String IQN_ALLOWED = "; " + ConfigDirTest.IQN_ALLOWED;
    private static final String NQN_ALLOWED = "; " + ConfigDirTest.NQN_ALLOWED;

    @ParameterizedTest
    @ValueSource(strings = {
            // RFC 3720 §3.2.6.3.1 examples (lowercased, as RFC 3722 stringprep leaves them)
            "iqn.2001-04.com.example",
            "iqn.2001-04.com.example:storage:diskarrays-sn-a8675309",
            "iqn.2001-04.com.example:storage.tape1.sys1.xyz",
            "iqn.1992-01.com.example:storage.disk2.sys1.xyz",
            "iqn.2026-11.io.blocktarget:ram-512",
            "eui.02004567a425678d",
            "naa.52004567ba64678d",
            "naa.62004567ba64678d0123456789abcdef",
    })
    void validIscsiNames(String name) throws InvalidValue {
        assertThat(Names.iqn(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "iqn.2001-04.com.Example:x      | iqn.2001-04.com.Example:x contains 'E'",
            "iqn.2001-04.com.example:a b    | iqn.2001-04.com.example:a b contains ' '",
            "iqn.2001-04.com.example:a_b    | iqn.2001-04.com.example:a_b contains '_'",
            "iqn.2001-13.com.example        | iqn.2001-13.com.example is not iqn.YYYY-MM.reversed.domain[:anything]",
            "iqn.01-04.com.example          | iqn.01-04.com.example is not iqn.YYYY-MM.reversed.domain[:anything]",
            "iqn.2001-04:storage            | iqn.2001-04:storage is not iqn.YYYY-MM.reversed.domain[:anything]",
            "iqn.2001-04.com..example       | iqn.2001-04.com..example is not iqn.YYYY-MM.reversed.domain[:anything]",
            "iqn.2001-04.-com.example       | iqn.2001-04.-com.example is not iqn.YYYY-MM.reversed.domain[:anything]",
            "eui.02004567a425678            | eui.02004567a425678 does not have exactly 16 hex digits after eui.",
            "eui.02004567a425678g           | eui.02004567a425678g does not have exactly 16 hex digits after eui.",
            "naa.52004567ba64678d00         | naa.52004567ba64678d00 does not have 16 or 32 hex digits after naa.",
            "target1                        | target1 does not start with iqn., eui. or naa.",
    })
    void invalidIscsiNames(String name, String what) {
        assertThatThrownBy(() -> Names.iqn(name)).isInstanceOf(InvalidValue.class).hasMessage(what + IQN_ALLOWED);
    }

    @ParameterizedTest
    @ValueSource(ints = {223, 224})
    void iscsiNamesAreAtMost223Bytes(int length) {
        String name = "iqn.2001-04.com.example:" + "x".repeat(length - 24);
        assertThat(name).hasSize(length);
        if (length <= 223) {
            assertThat(catchThrowable(() -> Names.iqn(name))).isNull();
        } else {
            assertThatThrownBy(() -> Names.iqn(name)).hasMessage(name + " is 224 bytes long" + IQN_ALLOWED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
            "nqn.2026-11.io.blocktarget:ram-512",
            "nqn.2014-08.com.example:nvme:nvm-subsystem-sn-d78432",
            "nqn.2026-11.io.blocktarget:Pool_A.disk-1",
    })
    void validNqns(String name) throws InvalidValue {
        assertThat(Names.nqn(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "nqn.2014-08.org.nvmexpress.discovery       | nqn.2014-08.org.nvmexpress.discovery is the discovery subsystem's NQN",
            "nqn.2014-08.org.nvmexpress:uuid:f81d4fae   | nqn.2014-08.org.nvmexpress:uuid:f81d4fae does not end in a UUID (8-4-4-4-12 lowercase hex digits)",
            "nqn.2026-11.io.blocktarget                 | nqn.2026-11.io.blocktarget is not nqn.YYYY-MM.reverse.domain:string",
            "nqn.2026-11.io.blocktarget:                | nqn.2026-11.io.blocktarget: is not nqn.YYYY-MM.reverse.domain:string",
            "nqn.2026-11.io.blocktarget:a b             | nqn.2026-11.io.blocktarget:a b is not nqn.YYYY-MM.reverse.domain:string",
            "nqn.2026-00.io.blocktarget:x               | nqn.2026-00.io.blocktarget:x is not nqn.YYYY-MM.reverse.domain:string",
            "iqn.2026-11.io.blocktarget:x               | iqn.2026-11.io.blocktarget:x is not nqn.YYYY-MM.reverse.domain:string",
    })
    void invalidNqns(String name, String what) {
        assertThatThrownBy(() -> Names.nqn(name)).isInstanceOf(InvalidValue.class).hasMessage(what + NQN_ALLOWED);
    }

    @ParameterizedTest
    @ValueSource(ints = {223, 224})
    void nqnsAreAtMost223Bytes(int length) {
        String name = "nqn.2026-11.io.blocktarget:" + "x".repeat(length - 27);
        assertThat(name).hasSize(length);
        if (length <= 223) {
            assertThat(catchThrowable(() -> Names.nqn(name))).isNull();
        } else {
            assertThatThrownBy(() -> Names.nqn(name)).hasMessage(name + " is 224 bytes long" + NQN_ALLOWED);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "0", "ram-512", "xfs.16k", "a-"})
    void validLunNames(String name) throws InvalidValue {
        assertThat(Names.lunName(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-a", ".a", "Ram", "ram_512", "ram 512", "ram:512", "é"})
    void invalidLunNames(String name) {
        assertThatThrownBy(() -> Names.lunName(name)).isInstanceOf(InvalidValue.class)
                .hasMessage(name + " is not a valid LUN name; allowed: 1 to 63 lowercase letters, digits, '-' and"
                        + " '.', starting with a letter or digit (the name becomes part of the derived IQN and NQN)");
    }
}
