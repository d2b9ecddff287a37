package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The key=value list of a Login or Text data segment (RFC 7143 §6.1), in order of appearance.
 * On the wire each pair is UTF-8 {@code key=value} terminated by a NUL byte. Decoding rejects what §6.1
 * forbids: a pair without '=', a key that is empty, longer than 63 bytes or outside the key-name
 * characters, a value longer than 255 bytes (8192 for the CHAP binary values), invalid UTF-8, a key
 * sent twice, and a last pair without its NUL (a sender must then set the C bit; join the pieces with
 * {@link TextAccumulator} first). Empty strings between NULs are skipped: some senders pad inside the
 * data segment, and an empty string carries no key.
 */
public record TextParameters(List<TextParameter> entries) {
    public static final int MAX_KEY_LENGTH = 63;
    public static final int MAX_VALUE_LENGTH = 255;
    /** §6.1 / §12.1: large binary values (CHAP challenge and response) may be longer. */
    public static final int MAX_LARGE_VALUE_LENGTH = 8192;
    private static final Set<String> LARGE_VALUE_KEYS = Set.of("CHAP_C", "CHAP_R");

    public static final TextParameters EMPTY = new TextParameters(List.of());

    public TextParameters {
        entries = List.copyOf(entries);
        Set<String> seen = new HashSet<>();
        for (TextParameter e : entries) {
            if (!seen.add(e.key())) {
                throw new IllegalArgumentException("duplicate key " + e.key());
            }
        }
    }

    /** {@code of("HeaderDigest", "None", "DataDigest", "None")}. */
    public static TextParameters of(String... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values must pair up");
        }
        List<TextParameter> list = new ArrayList<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            list.add(new TextParameter(keysAndValues[i], keysAndValues[i + 1]));
        }
        return new TextParameters(list);
    }

    /** A copy with {@code key=value} appended; the key must not be present yet. */
    public TextParameters with(String key, String value) {
        List<TextParameter> list = new ArrayList<>(entries);
        list.add(new TextParameter(key, value));
        return new TextParameters(list);
    }

    public Optional<String> get(String key) {
        for (TextParameter e : entries) {
            if (e.key().equals(key)) {
                return Optional.of(e.value());
            }
        }
        return Optional.empty();
    }

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** Decodes the readable bytes of {@code segment} (indices unchanged). */
    public static TextParameters decode(ByteBuf segment) {
        List<TextParameter> list = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        int end = segment.writerIndex();
        int at = segment.readerIndex();
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        while (at < end) {
            int nul = segment.indexOf(at, end, (byte) 0);
            if (nul < 0) {
                throw new IscsiProtocolException(IscsiProtocolException.Reason.TEXT_NOT_TERMINATED,
                        "the last " + (end - at) + " bytes have no NUL terminator");
            }
            if (nul > at) {
                TextParameter p = parse(segment, at, nul, utf8);
                if (!seen.add(p.key())) {
                    throw new IscsiProtocolException(IscsiProtocolException.Reason.TEXT_DUPLICATE_KEY,
                            "key " + p.key() + " appears twice");
                }
                list.add(p);
            }
            at = nul + 1;
        }
        return new TextParameters(list);
    }

    private static TextParameter parse(ByteBuf buf, int from, int to, CharsetDecoder utf8) {
        int eq = buf.indexOf(from, to, (byte) '=');
        if (eq < 0) {
            throw new IscsiProtocolException(IscsiProtocolException.Reason.TEXT_MISSING_EQUALS,
                    "no '=' in a " + (to - from) + "-byte string");
        }
        int keyLength = eq - from;
        if (keyLength == 0 || keyLength > MAX_KEY_LENGTH) {
            throw new IscsiProtocolException(IscsiProtocolException.Reason.TEXT_BAD_KEY,
                    "key of " + keyLength + " bytes (1.." + MAX_KEY_LENGTH + ")");
        }
        for (int i = from; i < eq; i++) {
            if (!isKeyChar(buf.getByte(i))) {
                throw new IscsiProtocolException(IscsiProtocolException.Reason.TEXT_BAD_KEY,
                        "byte 0x" + Integer.toHexString(buf.getByte(i) & 0xff) + " in a key name");
            }
        }
        String key = buf.toString(from, keyLength, StandardCharsets.US_ASCII);
        int valueLength = to - eq - 1;
        int max = LARGE_VALUE_KEYS.contains(key) ? MAX_LARGE_VALUE_LENGTH : MAX_VALUE_LENGTH;
        if (valueLength > max) {
            throw new IscsiProtocolException(IscsiProtocolException.Reason.TEXT_VALUE_TOO_LONG,
                    key + " value of " + valueLength + " bytes exceeds " + max);
        }
        try {
            ByteBuffer bytes = buf.nioBufferCount() == 1 ? buf.nioBuffer(eq + 1, valueLength)
                    : ByteBuffer.wrap(ByteBufUtil.getBytes(buf, eq + 1, valueLength));
            return new TextParameter(key, utf8.reset().decode(bytes).toString());
        } catch (CharacterCodingException e) {
            throw new IscsiProtocolException(IscsiProtocolException.Reason.TEXT_NOT_UTF8, "value of " + key);
        }
    }

    /**
     * §6.1 key-name characters: letters, digits, '.', '-', '+', '@', '_' — plus '#' for the IANA-registered
     * "X#" extension keys (§13.5.4).
     */
    private static boolean isKeyChar(byte b) {
        return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
                || b == '.' || b == '-' || b == '+' || b == '@' || b == '_' || b == '#';
    }

    /** Writes every pair as UTF-8 {@code key=value\0}. */
    public void encode(ByteBuf out) {
        for (TextParameter e : entries) {
            out.writeCharSequence(e.key(), StandardCharsets.UTF_8);
            out.writeByte('=');
            out.writeCharSequence(e.value(), StandardCharsets.UTF_8);
            out.writeByte(0);
        }
    }

    /**
     * The encoded text cut into data segments of at most {@code maxSegmentLength} bytes (the peer's
     * MaxRecvDataSegmentLength): all but the last go into PDUs with the C bit set (§11.10.2, §11.13.2),
     * e.g. a SendTargets answer listing many targets. An empty list for no parameters.
     */
    public List<byte[]> encodeSegments(int maxSegmentLength) {
        if (maxSegmentLength <= 0) {
            throw new IllegalArgumentException("maxSegmentLength " + maxSegmentLength);
        }
        ByteBuf all = Unpooled.buffer(encodedLength());
        encode(all);
        List<byte[]> segments = new ArrayList<>();
        while (all.isReadable()) {
            byte[] segment = new byte[Math.min(maxSegmentLength, all.readableBytes())];
            all.readBytes(segment);
            segments.add(segment);
        }
        return segments;
    }

    /** The number of bytes {@link #encode} writes. */
    public int encodedLength() {
        int n = 0;
        for (TextParameter e : entries) {
            n += e.key().getBytes(StandardCharsets.UTF_8).length + e.value().getBytes(StandardCharsets.UTF_8).length + 2;
        }
        return n;
    }

    @Override
    public String toString() {
        return entries.toString();
    }
}
