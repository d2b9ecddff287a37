package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.List;

/** RECEIVE COPY RESULTS parameter data (SPC-4 §6.18). */
public final class CopyResults {
    private CopyResults() {
    }

    /** COPY MANAGER STATUS (SPC-4 Table 140). */
    public enum Status {
        IN_PROGRESS(0x00), COMPLETED_WITHOUT_ERRORS(0x01), COMPLETED_WITH_ERRORS(0x02);

        private final int code;

        Status(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    /**
     * COPY STATUS (SPC-4 §6.18.2, Table 139): AVAILABLE DATA 8, HDD 0, status, SEGMENTS PROCESSED,
     * TRANSFER COUNT UNITS 00h (bytes), TRANSFER COUNT (32 bits; larger counts saturate).
     */
    public record CopyStatus(Status status, int segmentsProcessed, long bytesTransferred) {
        public static final int LENGTH = 12;

        public void encode(ByteBuf out) {
            out.writeInt(LENGTH - 4);                                   // 0-3: AVAILABLE DATA
            out.writeByte(status.code());                               // 4: HDD 0, COPY MANAGER STATUS
            out.writeShort(segmentsProcessed);                          // 5-6: SEGMENTS PROCESSED
            out.writeByte(0);                                           // 7: TRANSFER COUNT UNITS: bytes
            out.writeInt((int) Math.min(bytesTransferred, 0xFFFF_FFFFL)); // 8-11: TRANSFER COUNT
        }
    }

    /**
     * OPERATING PARAMETERS (SPC-4 §6.18.4, Table 142): SNLID 1 (the copy manager accepts LIST ID USAGE
     * 11b, a list without identifier, as ExtendedCopyParameters does), the limits, no inline or held
     * data, and the implemented descriptor type codes.
     */
    public record OperatingParameters(ExtendedCopyParameters.Limits limits, int totalConcurrentCopies,
                                      int maximumConcurrentCopies, List<Integer> implementedDescriptorTypes) {
        public OperatingParameters {
            implementedDescriptorTypes = List.copyOf(implementedDescriptorTypes);
        }

        public void encode(ByteBuf out) {
            int start = out.writerIndex();
            out.writeInt(0);                                            // 0-3: AVAILABLE DATA, below
            out.writeByte(0x01);                                        // 4: SNLID
            out.writeMedium(0);                                         // 5-7: reserved
            out.writeShort(limits.maximumCscds());                      // 8-9: MAXIMUM CSCD DESCRIPTOR COUNT
            out.writeShort(limits.maximumSegments());                   // 10-11: MAXIMUM SEGMENT DESCRIPTOR COUNT
            out.writeInt(limits.maximumDescriptorListLength());         // 12-15: MAXIMUM DESCRIPTOR LIST LENGTH
            out.writeInt((int) limits.maximumSegmentLength());          // 16-19: MAXIMUM SEGMENT LENGTH
            out.writeInt(0);                                            // 20-23: MAXIMUM INLINE DATA LENGTH
            out.writeInt(0);                                            // 24-27: HELD DATA LIMIT
            out.writeInt(0);                                            // 28-31: MAXIMUM STREAM DEVICE TRANSFER SIZE
            out.writeShort(0);                                          // 32-33: reserved
            out.writeShort(totalConcurrentCopies);                      // 34-35: TOTAL CONCURRENT COPIES
            out.writeByte(maximumConcurrentCopies);                     // 36: MAXIMUM CONCURRENT COPIES
            out.writeByte(0);                                           // 37: DATA SEGMENT GRANULARITY (2^0)
            out.writeByte(0);                                           // 38: INLINE DATA GRANULARITY
            out.writeByte(0);                                           // 39: HELD DATA GRANULARITY
            out.writeMedium(0);                                         // 40-42: reserved
            out.writeByte(implementedDescriptorTypes.size());           // 43: IMPLEMENTED DESCRIPTOR LIST LENGTH
            implementedDescriptorTypes.forEach(out::writeByte);         // 44..
            out.setInt(start, out.writerIndex() - start - 4);
        }
    }
}
