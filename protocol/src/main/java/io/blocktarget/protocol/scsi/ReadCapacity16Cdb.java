package io.blocktarget.protocol.scsi;

/** READ CAPACITY(16) (SBC-4 §5.20); the obsolete LBA/PMI fields are ignored. */
public record ReadCapacity16Cdb(long allocationLength) implements Cdb {
}
