package io.blocktarget.protocol.scsi;

/**
 * GET STREAM STATUS (SBC-5 §5.9: SERVICE ACTION IN(16) 9Eh, service action 16h): the stream status descriptors from
 * STARTING STREAM IDENTIFIER (bytes 4-5) on, cut to ALLOCATION LENGTH (bytes 10-13); bytes 2-3, 6-9 and 14 reserved.
 *
 * @param startingStreamIdentifier STARTING STREAM IDENTIFIER
 * @param allocationLength         ALLOCATION LENGTH
 */
public record GetStreamStatusCdb(int startingStreamIdentifier, long allocationLength) implements Cdb {
}
