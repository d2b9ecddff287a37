package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.List;

/** Device Identification, 83h (SPC-4 §7.8.6): a list of designation descriptors. */
public record DeviceIdentificationVpd(List<Designator> designators) implements VpdPage {
    public DeviceIdentificationVpd {
        designators = List.copyOf(designators);
    }

    @Override
    public int pageCode() {
        return 0x83;
    }

    @Override
    public void encodePayload(ByteBuf out) {
        designators.forEach(d -> d.encode(out));
    }
}
