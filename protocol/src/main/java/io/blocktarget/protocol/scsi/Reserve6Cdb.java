package io.blocktarget.protocol.scsi;

/** RESERVE(6) (SPC-2 §7.21, obsolete in SPC-4 but still sent by some initiators). */
public record Reserve6Cdb() implements Cdb {
}
