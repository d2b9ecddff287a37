package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * Reclaim Unit Handle Usage log page (Log Page Identifier 21h, LSI = ENDGID; NVMe Base 2.1 "Reclaim Unit Handle
 * Usage", TP4146): bytes 1:0 NRUH, 7:2 reserved, then one 8-byte descriptor per reclaim unit handle whose byte 0 RUHA
 * says who uses it — nobody, a namespace's placement handle (host specified), or the controller.
 */
public record RuhUsageLog(List<Attribute> handles) {
    public static final int LOG_PAGE_ID = 0x21;
    public static final int HEADER_SIZE = 8;
    public static final int DESCRIPTOR_SIZE = 8;

    /** RUHA. */
    public enum Attribute {
        UNUSED(0), HOST_SPECIFIED(1), CONTROLLER_SPECIFIED(2);

        private final int code;

        Attribute(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    public RuhUsageLog {
        handles = List.copyOf(handles);
        if (handles.size() > 0xFFFF) {
            throw new IllegalArgumentException("NRUH " + handles.size());
        }
    }

    public int size() {
        return HEADER_SIZE + DESCRIPTOR_SIZE * handles.size();
    }

    public void encode(ByteBuf out) {
        out.writeShortLE(handles.size()).writeZero(6);
        for (Attribute a : handles) {
            out.writeByte(a.code()).writeZero(DESCRIPTOR_SIZE - 1);
        }
    }
}
