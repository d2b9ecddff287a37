package io.blocktarget.protocol.scsi;

/** SYNCHRONIZE CACHE(10/16) (SBC-4 §5.26, §5.27); number of blocks 0 means to the end of the medium. */
public record SynchronizeCacheCdb(ScsiOpcode opcode, long lba, long numberOfBlocks, boolean immed) implements Cdb {
}
