package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** REPORT SUPPORTED OPERATION CODES parameter data (SPC-4 §6.35.2-6.35.4). */
public final class SupportedOperationCodes {
    /** Command timeouts descriptor length: DESCRIPTOR LENGTH field value 0Ah + 2 (SPC-4 Table 238). */
    static final int TIMEOUTS_DESCRIPTOR_LENGTH = 12;

    private SupportedOperationCodes() {
    }

    /**
     * All-commands format (SPC-4 §6.35.2, Tables 233-234): COMMAND DATA LENGTH, then per command
     * OPERATION CODE, SERVICE ACTION, CTDP/SERVACTV, CDB LENGTH, and with RCTD a timeouts descriptor.
     */
    public record AllCommands(List<ScsiOpcode> commands, boolean rctd) {
        public AllCommands {
            commands = List.copyOf(commands);
        }

        public void encode(ByteBuf out) {
            int each = 8 + (rctd ? TIMEOUTS_DESCRIPTOR_LENGTH : 0);
            out.writeInt(each * commands.size());                 // 0-3: COMMAND DATA LENGTH
            for (ScsiOpcode op : commands) {
                out.writeByte(op.code());                         // 0: OPERATION CODE
                out.writeByte(0);                                 // 1: reserved
                out.writeShort(Math.max(op.serviceAction(), 0));  // 2-3: SERVICE ACTION
                out.writeByte(0);                                 // 4: reserved
                out.writeByte((rctd ? 0x02 : 0) | (op.hasServiceAction() ? 0x01 : 0)); // 5: CTDP, SERVACTV
                out.writeShort(op.cdbLength());                   // 6-7: CDB LENGTH
                if (rctd) {
                    writeTimeouts(out);
                }
            }
        }
    }

    /**
     * One-command format (SPC-4 §6.35.3, Table 236): SUPPORT 011b with CDB SIZE and the CDB USAGE
     * DATA when supported, else 001b and no usage data. Linux sd asks this way for WRITE SAME(16),
     * WRITE SAME(10) and others before using them.
     */
    public record OneCommand(Optional<ScsiOpcode> command, boolean rctd) {
        static final int SUPPORT_NOT_SUPPORTED = 0b001;
        static final int SUPPORT_STANDARD = 0b011;

        /** The answer to {@code cdb} given the commands this logical unit supports. */
        public static OneCommand forRequest(Collection<ScsiOpcode> supported, ReportSupportedOperationCodesCdb cdb) {
            Optional<ScsiOpcode> found = supported.stream()
                    .filter(op -> op.code() == cdb.requestedOperationCode())
                    .filter(op -> !op.hasServiceAction() || op.serviceAction() == cdb.requestedServiceAction())
                    .findFirst();
            return new OneCommand(found, cdb.rctd());
        }

        public void encode(ByteBuf out) {
            out.writeByte(0);                                                             // 0: reserved
            out.writeByte((rctd ? 0x80 : 0) | (command.isPresent() ? SUPPORT_STANDARD : SUPPORT_NOT_SUPPORTED)); // 1
            out.writeShort(command.map(ScsiOpcode::cdbLength).orElse(0));               // 2-3: CDB SIZE
            command.ifPresent(op -> out.writeBytes(op.cdbUsageData()));                  // 4..: CDB USAGE DATA
            if (rctd) {
                writeTimeouts(out);
            }
        }
    }

    /** Command timeouts descriptor (SPC-4 §6.35.4): timeouts 0 = not specified. */
    private static void writeTimeouts(ByteBuf out) {
        out.writeShort(TIMEOUTS_DESCRIPTOR_LENGTH - 2); // DESCRIPTOR LENGTH
        out.writeByte(0);                               // reserved
        out.writeByte(0);                               // COMMAND SPECIFIC
        out.writeInt(0);                                // NOMINAL COMMAND PROCESSING TIMEOUT
        out.writeInt(0);                                // RECOMMENDED COMMAND TIMEOUT
    }
}
