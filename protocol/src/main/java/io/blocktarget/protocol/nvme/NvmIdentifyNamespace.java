package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

/**
 * I/O Command Set specific Identify Namespace for the NVM Command Set, CNS 05h with CSI 00h, 4096 bytes (NVM
 * Command Set §4.1.5.2): LBSTM (0..7), PIC (8), ELBAF0..63 (12..267), and the NVMe 2.1 large granularity fields
 * NPDGL (268), NPRG (272), NPRA (276), NORS (280), NPDAL (284). Linux 7.x asks for it on every scan; with
 * NSFEAT OPTPERF = 01b (bit 4 only, {@link NamespaceGeometry}) it uses the 16-bit fields of CNS 00h and ignores
 * the large ones, so zeros (no protection information, no storage tag) are the right answer.
 */
public record NvmIdentifyNamespace(long lbstm, int pic, long npdgl, long nprg, long npra, long nors, long npdal) {
    public static final int SIZE = 4096;

    public static final NvmIdentifyNamespace PLAIN = new NvmIdentifyNamespace(0, 0, 0, 0, 0, 0, 0);

    public void encode(ByteBuf out) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        out.setLongLE(i, lbstm);
        out.setByte(i + 8, pic);
        out.setIntLE(i + 268, (int) npdgl);
        out.setIntLE(i + 272, (int) nprg);
        out.setIntLE(i + 276, (int) npra);
        out.setIntLE(i + 280, (int) nors);
        out.setIntLE(i + 284, (int) npdal);
    }
}
