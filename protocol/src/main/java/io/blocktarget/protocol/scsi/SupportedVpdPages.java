package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.List;

/** Supported VPD Pages, 00h (SPC-4 §7.8.16): the page codes in ascending order, 00h included. */
public record SupportedVpdPages(List<Integer> pageCodes) implements VpdPage {
    public SupportedVpdPages {
        pageCodes = List.copyOf(pageCodes);
        for (int i = 0; i < pageCodes.size(); i++) {
            int code = pageCodes.get(i);
            if (code < 0 || code > 0xFF || i > 0 && code <= pageCodes.get(i - 1)) {
                throw new IllegalArgumentException("page codes must be bytes in ascending order: " + pageCodes);
            }
        }
    }

    @Override
    public int pageCode() {
        return 0x00;
    }

    @Override
    public void encodePayload(ByteBuf out) {
        pageCodes.forEach(out::writeByte);
    }
}
