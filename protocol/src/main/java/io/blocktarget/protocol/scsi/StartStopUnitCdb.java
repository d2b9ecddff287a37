package io.blocktarget.protocol.scsi;

/** START STOP UNIT (SBC-4 §5.25). */
public record StartStopUnitCdb(boolean immed, int powerConditionModifier, int powerCondition, boolean noFlush, boolean loej, boolean start) implements Cdb {
}
