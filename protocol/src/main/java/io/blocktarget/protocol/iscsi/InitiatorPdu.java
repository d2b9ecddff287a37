package io.blocktarget.protocol.iscsi;

/** PDUs an initiator sends (opcodes 0x00-0x1f, RFC 7143 §11.2.1.2). */
public sealed interface InitiatorPdu extends IscsiPdu
        permits NopOut, ScsiCommand, TaskManagementRequest, LoginRequest, TextRequest, DataOut, LogoutRequest,
        SnackRequest {
}
