package io.blocktarget.protocol.nvme;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** Admin command opcodes (Base §5, Figure "Opcodes for Admin Commands"). */
public enum AdminOpcode implements WireCode {
    DELETE_IO_SQ(0x00), CREATE_IO_SQ(0x01), GET_LOG_PAGE(0x02), DELETE_IO_CQ(0x04), CREATE_IO_CQ(0x05),
    IDENTIFY(0x06), ABORT(0x08), SET_FEATURES(0x09), GET_FEATURES(0x0A), ASYNC_EVENT_REQUEST(0x0C),
    NAMESPACE_MANAGEMENT(0x0D), FIRMWARE_COMMIT(0x10), FIRMWARE_IMAGE_DOWNLOAD(0x11), DEVICE_SELF_TEST(0x14),
    NAMESPACE_ATTACHMENT(0x15), KEEP_ALIVE(0x18), DIRECTIVE_SEND(0x19), DIRECTIVE_RECEIVE(0x1A),
    /** Fabrics commands; the Fabrics Command Type is in SQE byte 4 (Base §6). */
    FABRICS(0x7F), FORMAT_NVM(0x80), SECURITY_SEND(0x81), SECURITY_RECEIVE(0x82), SANITIZE(0x84),
    GET_LBA_STATUS(0x86);

    /** Looked up once or twice per command: built once (WireCode.Table). */
    private static final WireCode.Table<AdminOpcode> TABLE = WireCode.Table.of(AdminOpcode.class);

    private final int code;

    AdminOpcode(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<AdminOpcode> of(int code) {
        return TABLE.get(code);
    }
}
