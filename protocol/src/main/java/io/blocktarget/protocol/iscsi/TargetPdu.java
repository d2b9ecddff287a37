package io.blocktarget.protocol.iscsi;

/** PDUs a target sends (opcodes 0x20-0x3f, RFC 7143 §11.2.1.2). */
public sealed interface TargetPdu extends IscsiPdu
        permits NopIn, ScsiResponse, TaskManagementResponse, LoginResponse, TextResponse, DataIn, LogoutResponse,
        R2t, AsyncMessage, Reject {
}
