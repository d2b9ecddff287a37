package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

/**
 * I/O Command Set specific Identify Controller for the NVM Command Set, CNS 06h with CSI 00h, 4096 bytes
 * (NVM Command Set §4.1.5.3): VSL (0), WZSL (1), WUSL (2), DMRL (3), DMRSL (4..7), DMSL (8..15). Linux asks for
 * it during controller setup whenever VS ≥ 1.1 and reads DMRL/DMRSL (discard limits) and WZSL (write zeroes
 * limit, a power of two in units of CAP.MPSMIN; 0 = MDTS applies); an error here fails the controller, so it
 * must be answered. Zeros mean "no limit beyond MDTS".
 */
public record NvmIdentifyController(int vsl, int wzsl, int wusl, int dmrl, long dmrsl, long dmsl) {
    public static final int SIZE = 4096;

    public void encode(ByteBuf out) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        out.setByte(i, vsl);
        out.setByte(i + 1, wzsl);
        out.setByte(i + 2, wusl);
        out.setByte(i + 3, dmrl);
        out.setIntLE(i + 4, (int) dmrsl);
        out.setLongLE(i + 8, dmsl);
    }

    public static NvmIdentifyController get(ByteBuf b) {
        int i = b.readerIndex();
        return new NvmIdentifyController(b.getUnsignedByte(i), b.getUnsignedByte(i + 1), b.getUnsignedByte(i + 2),
                b.getUnsignedByte(i + 3), b.getUnsignedIntLE(i + 4), b.getLongLE(i + 8));
    }
}
