package io.blocktarget.protocol.scsi;

/** PERSISTENT RESERVE IN (SPC-4 §6.15). */
public record PersistentReserveInCdb(PrInServiceAction serviceAction, int allocationLength) implements Cdb {
}
