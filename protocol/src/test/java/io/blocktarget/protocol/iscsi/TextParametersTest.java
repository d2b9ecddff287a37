package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static io.blocktarget.protocol.iscsi.Bytes.ascii;
import static io.blocktarget.protocol.iscsi.Bytes.concat;
import static io.blocktarget.protocol.iscsi.Bytes.hex;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.TEXT_BAD_KEY;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.TEXT_DUPLICATE_KEY;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.TEXT_MISSING_EQUALS;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.TEXT_NOT_TERMINATED;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.TEXT_NOT_UTF8;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.TEXT_TOO_LONG;
import static io.blocktarget.protocol.iscsi.IscsiProtocolException.Reason.TEXT_VALUE_TOO_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The key=value text format of RFC 7143 §6.1. */
class TextParametersTest {
    private static TextParameters decode(byte[] bytes) {
        return TextParameters.decode(Unpooled.wrappedBuffer(bytes));
    }

    private static void refused(IscsiProtocolException.Reason reason, byte[] bytes) {
        Errors.expect(reason, () -> decode(bytes));
    }

    @Test
    void decodesInOrderAndEncodesByteExact() {
        byte[] wire = concat(ascii("InitiatorName=iqn.2005-03.org.open-iscsi:abc"), hex("00"),
                ascii("SessionType=Normal"), hex("00"), ascii("AuthMethod=CHAP,None"), hex("00"));
        TextParameters p = decode(wire);
        assertThat(p.entries()).extracting(TextParameter::key)
                .containsExactly("InitiatorName", "SessionType", "AuthMethod");
        assertThat(p.get("AuthMethod")).contains("CHAP,None");
        assertThat(p.get("TargetName")).isEmpty();
        TextParameters built = TextParameters.of("InitiatorName", "iqn.2005-03.org.open-iscsi:abc",
                "SessionType", "Normal").with("AuthMethod", "CHAP,None");
        assertThat(built).isEqualTo(p);
        ByteBuf out = Unpooled.buffer();
        try {
            built.encode(out);
            assertThat(ByteBufUtil.getBytes(out)).isEqualTo(wire);
            assertThat(built.encodedLength()).isEqualTo(wire.length);
        } finally {
            out.release();
        }
    }

    @Test
    void valuesMayContainEqualsAndBeEmptyAndUtf8() {
        TextParameters p = decode(concat(ascii("X-a=b=c\0InitiatorAlias=\0TargetAlias=Zürich\0")));
        assertThat(p.get("X-a")).contains("b=c");
        assertThat(p.get("InitiatorAlias")).contains("");
        assertThat(p.get("TargetAlias")).contains("Zürich");
        assertThat(p.encodedLength()).isEqualTo(ascii("X-a=b=c\0InitiatorAlias=\0TargetAlias=Zürich\0").length);
    }

    @Test
    void emptySegmentAndEmptyStringsCarryNoKeys() {
        assertThat(decode(new byte[0])).isEqualTo(TextParameters.EMPTY);
        assertThat(decode(ascii("\0\0A=1\0\0\0")).entries()).containsExactly(new TextParameter("A", "1"));
        assertThat(TextParameters.EMPTY.isEmpty()).isTrue();
    }

    @Test
    void malformedText() {
        refused(TEXT_MISSING_EQUALS, ascii("HeaderDigest\0"));
        refused(TEXT_BAD_KEY, ascii("=None\0"));
        refused(TEXT_BAD_KEY, ascii("Header Digest=None\0"));
        refused(TEXT_BAD_KEY, concat(ascii("K"), hex("c3a9"), ascii("=1\0"))); // non-ASCII key name
        refused(TEXT_NOT_TERMINATED, ascii("HeaderDigest=None"));
        refused(TEXT_NOT_TERMINATED, ascii("A=1\0B=2"));
        refused(TEXT_DUPLICATE_KEY, ascii("A=1\0B=2\0A=1\0"));
        refused(TEXT_NOT_UTF8, concat(ascii("TargetAlias="), hex("c328"), ascii("\0"))); // invalid 2-byte sequence
        refused(TEXT_NOT_UTF8, concat(ascii("TargetAlias="), hex("ff"), ascii("\0")));
    }

    @Test
    void keyAndValueLengthLimits() {
        String key63 = "K".repeat(63);
        assertThat(decode(ascii(key63 + "=1\0")).get(key63)).contains("1");
        refused(TEXT_BAD_KEY, ascii("K".repeat(64) + "=1\0"));
        String v255 = "v".repeat(255);
        assertThat(decode(ascii("TargetAlias=" + v255 + "\0")).get("TargetAlias")).contains(v255);
        refused(TEXT_VALUE_TOO_LONG, ascii("TargetAlias=" + "v".repeat(256) + "\0"));
        // CHAP challenge/response are large binary values (§6.1, §12.1.3).
        String chap = "0x" + "ab".repeat(1000);
        assertThat(decode(ascii("CHAP_C=" + chap + "\0")).get("CHAP_C")).contains(chap);
        refused(TEXT_VALUE_TOO_LONG, ascii("CHAP_R=" + "a".repeat(8193) + "\0"));
    }

    @Test
    void continuationJoinsPiecesSplitAnywhere() {
        byte[] whole = ascii("InitiatorName=iqn.1994-05.com.redhat:x\0SessionType=Normal\0");
        TextParameters expected = decode(whole);
        for (int cut = 0; cut <= whole.length; cut++) {
            TextAccumulator acc = TextAccumulator.empty(8192)
                    .append(Unpooled.wrappedBuffer(whole, 0, cut))
                    .append(Unpooled.wrappedBuffer(whole, cut, whole.length - cut));
            assertThat(acc.length()).isEqualTo(whole.length);
            assertThat(acc.complete()).isEqualTo(expected);
        }
        TextAccumulator first = TextAccumulator.empty(8192).append(Unpooled.wrappedBuffer(ascii("Init")));
        Errors.expect(TEXT_NOT_TERMINATED, first::complete);
        assertThat(first.bytes()).isEqualTo(ascii("Init"));
    }

    @Test
    void longTextIsCutIntoSegmentsThatJoinBack() {
        TextParameters many = TextParameters.EMPTY;
        for (int i = 0; i < 40; i++) {
            many = many.with("X-target" + i, "iqn.2026-11.io.blocktarget:lun-" + i);
        }
        var segments = many.encodeSegments(100);
        assertThat(segments).allSatisfy(s -> assertThat(s.length).isLessThanOrEqualTo(100));
        assertThat(segments.stream().mapToInt(s -> s.length).sum()).isEqualTo(many.encodedLength());
        TextAccumulator acc = TextAccumulator.empty(65536);
        for (byte[] s : segments) {
            acc = acc.append(Unpooled.wrappedBuffer(s));
        }
        assertThat(acc.complete()).isEqualTo(many);
        assertThat(TextParameters.EMPTY.encodeSegments(8192)).isEmpty();
        assertThatThrownBy(() -> TextParameters.EMPTY.encodeSegments(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void continuationIsCapped() {
        TextAccumulator acc = TextAccumulator.empty(10).append(Unpooled.wrappedBuffer(ascii("A=12345\0")));
        Errors.expect(TEXT_TOO_LONG, () -> acc.append(Unpooled.wrappedBuffer(ascii("B=1\0"))));
        assertThat(acc).isEqualTo(TextAccumulator.empty(10).append(Unpooled.wrappedBuffer(ascii("A=12345\0"))));
    }

    @Test
    void builtParametersRefuseDuplicates() {
        assertThatThrownBy(() -> TextParameters.of("A", "1").with("A", "2")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TextParameters.of("A")).isInstanceOf(IllegalArgumentException.class);
    }
}
