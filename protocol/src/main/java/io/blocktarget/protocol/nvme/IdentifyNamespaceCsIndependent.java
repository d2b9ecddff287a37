package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

/**
 * I/O Command Set Independent Identify Namespace, CNS 08h, 4096 bytes (Base §5.17.2.9): NSFEAT (0), NMIC (1),
 * RESCAP (2), FPI (3), ANAGRPID (4..7), NSATTR (8), NVMSETID (10..11), ENDGID (12..13), NSTAT (14).
 * <p>
 * Linux 7.x asks for it during every namespace scan (captured: see linux-host-pdus.txt) and, when it succeeds,
 * takes readiness from NSTAT bit 0 — a namespace without it is skipped as not ready. Its NSFEAT is not the
 * NVM NSFEAT: bit 4 here means rotational media and bit 5 "no volatile write cache", so never copy CNS 00h's
 * NSFEAT (whose bit 4 is OPTPERF) into it.
 */
public record IdentifyNamespaceCsIndependent(int nsfeat, int nmic, int rescap, int fpi, int anagrpid, int nsattr,
                                             int nvmsetid, int endgid, int nstat) {
    public static final int SIZE = 4096;
    public static final int NSFEAT_ROTATIONAL = 1 << 4;
    public static final int NSFEAT_VWC_NOT_PRESENT = 1 << 5;
    /** NSTAT bit 0: the namespace is ready. */
    public static final int NSTAT_READY = 1;

    /** A ready, non-rotational namespace with a volatile write cache as reported by VWC. */
    public static IdentifyNamespaceCsIndependent ready(boolean readOnly) {
        return new IdentifyNamespaceCsIndependent(0, 0, 0, 0, 0,
                readOnly ? IdentifyNamespace.NSATTR_WRITE_PROTECTED : 0, 0, 0, NSTAT_READY);
    }

    public void encode(ByteBuf out) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        out.setByte(i, nsfeat);
        out.setByte(i + 1, nmic);
        out.setByte(i + 2, rescap);
        out.setByte(i + 3, fpi);
        out.setIntLE(i + 4, anagrpid);
        out.setByte(i + 8, nsattr);
        out.setShortLE(i + 10, nvmsetid);
        out.setShortLE(i + 12, endgid);
        out.setByte(i + 14, nstat);
    }
}
