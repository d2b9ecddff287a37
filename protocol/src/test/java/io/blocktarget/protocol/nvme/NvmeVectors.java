package io.blocktarget.protocol.nvme;

import static io.blocktarget.protocol.nvme.TestBytes.hex;

/** Hand-written SQE vectors shared by the nvme and nvmetcp tests. */
public final class NvmeVectors {
    private NvmeVectors() {
    }

    /** Connect on the admin queue as the Linux TCP host sends it (Base §6.3 SQE figure, offsets in comments). */
    public static final byte[] CONNECT_SQE = hex("""
            7f 40 01 00   # 0 opcode 7Fh; 1 PSDT=01b (bits 7:6); 2..3 CID 1
            01 00 00 00   # 4 FCTYPE 01h Connect; 5..7 reserved
            00000000 00000000 00000000 00000000  # 8..23 reserved
            00000000 00000000   # 24..31 SGL address: offset 0 into the capsule data
            00 04 00 00   # 32..35 SGL length 1024
            00 00 00 01   # 36..38 reserved; 39 SGL identifier: type 0 (data block), subtype 1 (offset)
            00 00 00 00   # 40..41 RECFMT 0; 42..43 QID 0
            1f 00 04 00   # 44..45 SQSIZE 31 (32 entries); 46 CATTR bit 2 disable SQ flow control; 47 reserved
            88 13 00 00   # 48..51 KATO 5000 ms
            00000000 00000000 00000000  # 52..63 reserved
            """);

    /** Read of 2 blocks at SLBA 1_89ABCDEFh with FUA, data by C2HData (NVM Command Set §3.2.6). */
    public static final byte[] READ_SQE = hex("""
            02 40 34 12   # opcode 02h Read; PSDT 01b; CID 1234h
            01 00 00 00   # 4..7 NSID 1
            00000000 00000000   # 8..15 CDW2, CDW3
            00000000 00000000   # 16..23 MPTR
            00000000 00000000   # 24..31 SGL address 0
            00 20 00 00   # 32..35 SGL length 8192
            00 00 00 5a   # 39 SGL identifier: type 5 transport data block, subtype Ah
            ef cd ab 89   # 40 CDW10 SLBA bits 31:0
            01 00 00 00   # 44 CDW11 SLBA bits 63:32
            01 00 00 40   # 48 CDW12 NLB 1 (0's based: 2 blocks), bit 30 FUA
            00000000 00000000 00000000  # 52..63 CDW13..15
            """);
}
