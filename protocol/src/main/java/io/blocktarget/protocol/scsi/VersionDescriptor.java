package io.blocktarget.protocol.scsi;

/** VERSION DESCRIPTOR codes of standard INQUIRY data (SPC-4 §6.6.2, Table 144), "no version claimed" forms. */
public enum VersionDescriptor {
    SAM_5(0x00A0),
    ISCSI(0x0960),
    SPC_4(0x0460),
    SPC_5(0x05C0),
    SBC_3(0x04C0),
    SBC_4(0x0600);

    private final int code;

    VersionDescriptor(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
