package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.Arrays;

/**
 * The 1024-byte Connect command data (Base §6.3, Figure "Connect Command - Data"): HOSTID (0..15), CNTLID
 * (16..17, FFFFh = dynamic controller model, any), SUBNQN (256..511), HOSTNQN (512..767), NUL-padded.
 */
public record ConnectData(byte[] hostId, int cntlid, String subnqn, String hostnqn) {
    public static final int SIZE = 1024;
    public static final int OFFSET_HOSTID = 0;
    public static final int OFFSET_CNTLID = 16;
    public static final int OFFSET_SUBNQN = 256;
    public static final int OFFSET_HOSTNQN = 512;
    /** Dynamic controller model: the host accepts any controller ID (Base §3.1.2.1). */
    public static final int CNTLID_DYNAMIC = 0xFFFF;

    public ConnectData {
        if (hostId.length != 16) {
            throw new IllegalArgumentException("HOSTID is 16 bytes");
        }
        hostId = hostId.clone();
    }

    @Override
    public byte[] hostId() {
        return hostId.clone();
    }

    /**
     * Decodes the 1024 bytes at the reader index (not consumed). NQNs without a NUL within their 256 bytes or over
     * 223 bytes, an empty SUBNQN and a zero HOSTID are CONNECT_INVALID_PARAMETERS with IATTR=1 and IPO at the field.
     * An empty HOSTNQN parses: SPDK's host sends one unless told otherwise, and whether it may connect is the
     * subsystem's access decision (Connect Invalid Host, Base §6.3), not a syntax error.
     */
    public static Parsed<ConnectData> parse(ByteBuf buf) {
        if (buf.readableBytes() < SIZE) {
            return Parsed.invalid(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        }
        int i = buf.readerIndex();
        byte[] hostId = new byte[16];
        buf.getBytes(i + OFFSET_HOSTID, hostId);
        if (Arrays.equals(hostId, new byte[16])) {
            return invalidAt(OFFSET_HOSTID);
        }
        String subnqn = WireText.getNulTerminated(buf, i + OFFSET_SUBNQN, WireText.NQN_FIELD);
        if (!validNqn(subnqn)) {
            return invalidAt(OFFSET_SUBNQN);
        }
        String hostnqn = WireText.getNulTerminated(buf, i + OFFSET_HOSTNQN, WireText.NQN_FIELD);
        if (hostnqn == null || !hostnqn.isEmpty() && !validNqn(hostnqn)) {
            return invalidAt(OFFSET_HOSTNQN);
        }
        return Parsed.ok(new ConnectData(hostId, buf.getUnsignedShortLE(i + OFFSET_CNTLID), subnqn, hostnqn));
    }

    private static boolean validNqn(String nqn) {
        return nqn != null && !nqn.isEmpty() && nqn.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
                <= WireText.NQN_MAX;
    }

    private static Parsed<ConnectData> invalidAt(int offset) {
        return Parsed.invalid(NvmeStatus.CONNECT_INVALID_PARAMETERS, ConnectResponse.invalidParameter(true, offset));
    }

    /** Writes the 1024 bytes (for test initiators). */
    public void encode(ByteBuf out) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        out.setBytes(i + OFFSET_HOSTID, hostId);
        out.setShortLE(i + OFFSET_CNTLID, cntlid);
        WireText.setNulPadded(out, i + OFFSET_SUBNQN, subnqn, WireText.NQN_FIELD);
        WireText.setNulPadded(out, i + OFFSET_HOSTNQN, hostnqn, WireText.NQN_FIELD);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectData(byte[] h, int c, String s, String n) && Arrays.equals(hostId, h)
                && cntlid == c && subnqn.equals(s) && hostnqn.equals(n);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(hostId) * 31 + subnqn.hashCode();
    }

    @Override
    public String toString() {
        return "ConnectData[cntlid=" + cntlid + ", subnqn=" + subnqn + ", hostnqn=" + hostnqn + "]";
    }
}
