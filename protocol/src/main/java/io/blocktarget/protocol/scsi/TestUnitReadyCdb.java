package io.blocktarget.protocol.scsi;

/** TEST UNIT READY (SPC-4 §6.47). */
public record TestUnitReadyCdb() implements Cdb {
}
