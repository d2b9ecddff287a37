package io.blocktarget.scsi;

import io.blocktarget.block.fault.FaultConnection;
import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * One command for the device server (SAM-5 Execute Command): everything the transport knows.
 *
 * @param nexus                       who sends it
 * @param lun                         the logical unit number (SAM LUN decoded; flat addressing ≥ 256 decoded too)
 * @param cdb                         the CDB (16 bytes from the BHS, or longer with an extended-CDB AHS); not released by the device server
 * @param attribute                   task attribute
 * @param taskTag                     initiator task tag (ITT), for logs and task management
 * @param expectedDataTransferLength  EDTL from the initiator (bytes)
 * @param dataOut                     data-out gathered by the transport ({@code null} when the command carries none),
 *                                    at most EDTL bytes; owned by the transport, alive until completion
 * @param connection                  the connection it came on, for fault rules' connection faults
 *                                    ({@link FaultConnection#NONE} when none)
 */
public record ScsiCommand(ItNexus nexus, long lun, ByteBuf cdb, TaskAttribute attribute, long taskTag,
                          long expectedDataTransferLength, ByteBuf dataOut, FaultConnection connection) {
    public ScsiCommand {
        Objects.requireNonNull(nexus, "nexus");
        Objects.requireNonNull(cdb, "cdb");
        Objects.requireNonNull(attribute, "attribute");
        Objects.requireNonNull(connection, "connection");
    }

    /** A command without a connection (tests, internal commands): connection faults do not apply to it. */
    public ScsiCommand(ItNexus nexus, long lun, ByteBuf cdb, TaskAttribute attribute, long taskTag,
                       long expectedDataTransferLength, ByteBuf dataOut) {
        this(nexus, lun, cdb, attribute, taskTag, expectedDataTransferLength, dataOut, FaultConnection.NONE);
    }
}
