package io.blocktarget.scsi;

import io.blocktarget.block.fault.FaultConnection;
import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * One command for the device server (SAM-5 Execute Command): everything the transport knows. An interface so that the
 * iSCSI transport's task is the command itself (no second object per command carrying the same fields); {@link #of}
 * makes one for tests and internal commands.
 */
public interface ScsiCommand {
    /** Who sends it. */
    ItNexus nexus();

    /** The logical unit number (SAM LUN decoded; flat addressing ≥ 256 decoded too). */
    long lun();

    /**
     * The CDB (16 bytes from the BHS, or longer with an extended-CDB AHS): read it, never write it; not released by
     * the device server.
     */
    ByteBuf cdb();

    TaskAttribute attribute();

    /** Initiator task tag (ITT), for logs and task management. */
    long taskTag();

    /** EDTL from the initiator (bytes). */
    long expectedDataTransferLength();

    /**
     * Data-out gathered by the transport ({@code null} when the command carries none), at most EDTL bytes; owned by the
     * transport, alive until completion.
     */
    ByteBuf dataOut();

    /** The connection it came on, for fault rules' connection faults ({@link FaultConnection#NONE} when none). */
    FaultConnection connection();

    static ScsiCommand of(ItNexus nexus, long lun, ByteBuf cdb, TaskAttribute attribute, long taskTag,
                          long expectedDataTransferLength, ByteBuf dataOut, FaultConnection connection) {
        return new Of(nexus, lun, cdb, attribute, taskTag, expectedDataTransferLength, dataOut, connection);
    }

    /** A command without a connection (tests, internal commands): connection faults do not apply to it. */
    static ScsiCommand of(ItNexus nexus, long lun, ByteBuf cdb, TaskAttribute attribute, long taskTag,
                          long expectedDataTransferLength, ByteBuf dataOut) {
        return of(nexus, lun, cdb, attribute, taskTag, expectedDataTransferLength, dataOut, FaultConnection.NONE);
    }

    /** A command as a value. */
    record Of(ItNexus nexus, long lun, ByteBuf cdb, TaskAttribute attribute, long taskTag,
              long expectedDataTransferLength, ByteBuf dataOut, FaultConnection connection) implements ScsiCommand {
        public Of {
            Objects.requireNonNull(nexus, "nexus");
            Objects.requireNonNull(cdb, "cdb");
            Objects.requireNonNull(attribute, "attribute");
            Objects.requireNonNull(connection, "connection");
        }
    }
}
