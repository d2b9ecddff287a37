package io.blocktarget.protocol.scsi;

/** RELEASE(6) (SPC-2 §7.16). */
public record Release6Cdb() implements Cdb {
}
