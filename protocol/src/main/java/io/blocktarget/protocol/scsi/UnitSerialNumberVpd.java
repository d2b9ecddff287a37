package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/** Unit Serial Number, 80h (SPC-4 §7.8.18): PRODUCT SERIAL NUMBER in ASCII. */
public record UnitSerialNumberVpd(String serialNumber) implements VpdPage {
    public UnitSerialNumberVpd {
        WireText.ascii(serialNumber);
    }

    @Override
    public int pageCode() {
        return 0x80;
    }

    @Override
    public void encodePayload(ByteBuf out) {
        out.writeBytes(WireText.ascii(serialNumber));
    }
}
