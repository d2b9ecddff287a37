package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * GET STREAM STATUS parameter data (SBC-5 §5.9.2; the command is SERVICE ACTION IN(16) 9Eh, service action 16h,
 * STARTING STREAM IDENTIFIER in CDB bytes 4-5, ALLOCATION LENGTH in 10-13): bytes 0-3 PARAMETER DATA LENGTH (n - 7),
 * 4-5 reserved, 6-7 NUMBER OF OPEN STREAMS, then 8-byte stream status descriptors from the starting identifier on:
 * byte 0 bit 7 PERM (a permanent stream, SBC-5 §4.32.4), 2-3 STREAM IDENTIFIER, byte 4 bits 5:0 RELATIVE LIFETIME.
 * Linux asks for 16 bytes per stream identifier and reads the first descriptor's PERM ({@code sd_is_perm_stream}).
 * The length counts every descriptor; the command set cuts the data to the allocation length.
 */
public record GetStreamStatusData(int numberOfOpenStreams, List<StreamStatus> streams) {
    public static final int SERVICE_ACTION = 0x16;
    public static final int HEADER_SIZE = 8;
    public static final int DESCRIPTOR_SIZE = 8;

    /**
     * @param permanent        PERM
     * @param streamIdentifier STREAM IDENTIFIER
     * @param relativeLifetime RELATIVE LIFETIME, 6 bits (0 none, 1 shortest .. 3Fh longest)
     */
    public record StreamStatus(boolean permanent, int streamIdentifier, int relativeLifetime) {
        public StreamStatus {
            if ((streamIdentifier & ~0xFFFF) != 0 || (relativeLifetime & ~0x3F) != 0) {
                throw new IllegalArgumentException("stream status field out of range");
            }
        }

        public void encode(ByteBuf out) {
            out.writeByte(permanent ? 0x80 : 0).writeByte(0).writeShort(streamIdentifier).writeByte(relativeLifetime)
                    .writeZero(3);
        }
    }

    public GetStreamStatusData {
        streams = List.copyOf(streams);
        if ((numberOfOpenStreams & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("NUMBER OF OPEN STREAMS " + numberOfOpenStreams);
        }
    }

    public int size() {
        return HEADER_SIZE + DESCRIPTOR_SIZE * streams.size();
    }

    public void encode(ByteBuf out) {
        out.writeInt(size() - HEADER_SIZE).writeShort(0).writeShort(numberOfOpenStreams);
        for (StreamStatus s : streams) {
            s.encode(out);
        }
    }
}
