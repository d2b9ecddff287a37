package io.blocktarget.protocol.scsi;

/** MODE SELECT(6)/(10) (SPC-4 §6.9, §6.10); PF = 1 and SP = 0 are enforced by the parser. */
public record ModeSelectCdb(ScsiOpcode opcode, int parameterListLength) implements Cdb {
    public boolean tenByte() {
        return opcode == ScsiOpcode.MODE_SELECT_10;
    }
}
