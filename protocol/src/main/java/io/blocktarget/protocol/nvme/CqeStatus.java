package io.blocktarget.protocol.nvme;

/**
 * The Status Field of a completion queue entry without the phase tag (Base §4.2.3, Figure "Completion Queue
 * Entry: Status Field"): bits 8:1 SC, 11:9 SCT, 13:12 CRD, 14 M, 15 DNR of CQE bytes 14..15.
 */
public record CqeStatus(int sc, int sct, int crd, boolean more, boolean dnr) {
    public static final CqeStatus SUCCESS = new CqeStatus(0, 0, 0, false, false);

    public CqeStatus {
        if ((sc & ~0xFF) != 0 || (sct & ~0x7) != 0 || (crd & ~0x3) != 0) {
            throw new IllegalArgumentException("status field out of range: sc=" + sc + " sct=" + sct + " crd=" + crd);
        }
    }

    /** The 16-bit field as it sits in CQE bytes 14..15, with the given phase tag in bit 0. */
    public int encode(int phase) {
        return (phase & 1) | sc << 1 | sct << 9 | crd << 12 | (more ? 1 << 14 : 0) | (dnr ? 1 << 15 : 0);
    }

    public static CqeStatus decode(int field) {
        return new CqeStatus(field >>> 1 & 0xFF, field >>> 9 & 0x7, field >>> 12 & 0x3, (field & 1 << 14) != 0,
                (field & 1 << 15) != 0);
    }

    public boolean isSuccess() {
        return sc == 0 && sct == 0;
    }
}
