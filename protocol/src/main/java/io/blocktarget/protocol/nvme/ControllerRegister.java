package io.blocktarget.protocol.nvme;

import java.util.Optional;

/**
 * Controller properties reachable with Property Get/Set over fabrics (Base §3.1.4, Figure "Controller
 * Properties"): offset and size in bytes. The PCIe-only registers (INTMS, AQA, ASQ, doorbells …) are absent.
 */
public enum ControllerRegister {
    CAP(0x00, 8), VS(0x08, 4), CC(0x14, 4), CSTS(0x1C, 4), NSSR(0x20, 4);

    private final int offset;
    private final int size;

    ControllerRegister(int offset, int size) {
        this.offset = offset;
        this.size = size;
    }

    public int offset() {
        return offset;
    }

    public int size() {
        return size;
    }

    public static Optional<ControllerRegister> at(long offset) {
        for (ControllerRegister r : values()) {
            if (r.offset == offset) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    /** Controller Capabilities (Base §3.1.4.1). MQES is 0's based; TO is in 500 ms units. */
    public record Cap(int mqes, boolean cqr, int ams, int to, int dstrd, boolean nssrs, int css, int mpsmin,
                      int mpsmax) {
        /** CSS bit 0 (CAP bit 37): NVM Command Set. */
        public static final int CSS_NVM = 1;
        /** CSS bit 6 (CAP bit 43): I/O Command Sets via CC.CSS = 110b. */
        public static final int CSS_IO_COMMAND_SETS = 1 << 6;
        /** CSS bit 7 (CAP bit 44): admin only, no I/O command set (discovery controllers). */
        public static final int CSS_NO_IO = 1 << 7;

        public long encode() {
            return (mqes & 0xFFFFL) | (cqr ? 1L << 16 : 0) | (ams & 0x3L) << 17 | (to & 0xFFL) << 24
                    | (dstrd & 0xFL) << 32 | (nssrs ? 1L << 36 : 0) | (css & 0xFFL) << 37 | (mpsmin & 0xFL) << 48
                    | (mpsmax & 0xFL) << 52;
        }

        public static Cap decode(long v) {
            return new Cap((int) (v & 0xFFFF), (v & 1L << 16) != 0, (int) (v >>> 17 & 0x3), (int) (v >>> 24 & 0xFF),
                    (int) (v >>> 32 & 0xF), (v & 1L << 36) != 0, (int) (v >>> 37 & 0xFF), (int) (v >>> 48 & 0xF),
                    (int) (v >>> 52 & 0xF));
        }
    }

    /** Version (Base §3.1.4.2): MJR 31:16, MNR 15:8, TER 7:0. */
    public record Vs(int major, int minor, int tertiary) {
        public static final Vs V2_0 = new Vs(2, 0, 0);
        public static final Vs V1_3 = new Vs(1, 3, 0);

        public int encode() {
            return major << 16 | (minor & 0xFF) << 8 | tertiary & 0xFF;
        }

        public static Vs decode(int v) {
            return new Vs(v >>> 16, v >>> 8 & 0xFF, v & 0xFF);
        }
    }

    /** Controller Configuration (Base §3.1.4.5). SHN: 0 none, 1 normal, 2 abrupt. IOSQES/IOCQES are log2. */
    public record Cc(boolean en, int css, int mps, int ams, int shn, int iosqes, int iocqes) {
        public static final int SHN_NONE = 0;
        public static final int SHN_NORMAL = 1;
        public static final int SHN_ABRUPT = 2;

        public int encode() {
            return (en ? 1 : 0) | (css & 0x7) << 4 | (mps & 0xF) << 7 | (ams & 0x7) << 11 | (shn & 0x3) << 14
                    | (iosqes & 0xF) << 16 | (iocqes & 0xF) << 20;
        }

        public static Cc decode(int v) {
            return new Cc((v & 1) != 0, v >>> 4 & 0x7, v >>> 7 & 0xF, v >>> 11 & 0x7, v >>> 14 & 0x3,
                    v >>> 16 & 0xF, v >>> 20 & 0xF);
        }
    }

    /** Controller Status (Base §3.1.4.6). SHST: 0 normal operation, 1 occurring, 2 complete. */
    public record Csts(boolean rdy, boolean cfs, int shst) {
        public static final int SHST_NORMAL = 0;
        public static final int SHST_OCCURRING = 1;
        public static final int SHST_COMPLETE = 2;

        public int encode() {
            return (rdy ? 1 : 0) | (cfs ? 2 : 0) | (shst & 0x3) << 2;
        }

        public static Csts decode(int v) {
            return new Csts((v & 1) != 0, (v & 2) != 0, v >>> 2 & 0x3);
        }
    }
}
