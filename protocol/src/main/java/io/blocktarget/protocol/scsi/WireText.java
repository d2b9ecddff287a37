package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/** ASCII / UTF-8 field helpers shared by the SCSI encoders. */
final class WireText {
    private WireText() {
    }

    /**
     * A fixed-width ASCII field, left-aligned and padded with spaces (SPC-4 §4.4.1: ASCII data fields
     * are padded with 20h). Only printable ASCII 20h-7Eh is allowed; longer text is a caller error.
     */
    static void writeAsciiPadded(ByteBuf out, String text, int width) {
        byte[] bytes = ascii(text);
        if (bytes.length > width) {
            throw new IllegalArgumentException("'" + text + "' is longer than " + width + " bytes");
        }
        out.writeBytes(bytes);
        for (int i = bytes.length; i < width; i++) {
            out.writeByte(' ');
        }
    }

    static byte[] ascii(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                throw new IllegalArgumentException("not printable ASCII: '" + text + "'");
            }
        }
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A null-terminated UTF-8 string padded with zeros to a multiple of four bytes, as SCSI name
     * strings (SPC-4 §7.8.6.11) and iSCSI TransportIDs (§7.6.4.6) need; returns the bytes written.
     */
    static int writeNullTerminatedPadded4(ByteBuf out, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        int length = paddedLength4(bytes.length + 1);
        out.writeBytes(bytes);
        out.writeZero(length - bytes.length);
        return length;
    }

    static int nullTerminatedPadded4Length(String text) {
        return paddedLength4(text.getBytes(StandardCharsets.UTF_8).length + 1);
    }

    private static int paddedLength4(int n) {
        return (n + 3) & ~3;
    }
}
