package io.blocktarget.protocol.scsi;

/** READ CAPACITY(10) (SBC-4 §5.19); the obsolete LBA/PMI fields are ignored. */
public record ReadCapacity10Cdb() implements Cdb {
}
