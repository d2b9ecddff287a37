package io.blocktarget.protocol.scsi;

import java.util.Optional;

/** PERSISTENT RESERVE OUT (SPC-4 §6.16). {@code type} is present exactly for RESERVE, RELEASE, PREEMPT, PREEMPT AND ABORT and REGISTER AND MOVE, whose SCOPE the parser has checked to be LU_SCOPE. */
public record PersistentReserveOutCdb(PrOutServiceAction serviceAction, Optional<PrType> type, long parameterListLength) implements Cdb {
}
