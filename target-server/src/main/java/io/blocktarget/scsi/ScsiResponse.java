package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.ScsiStatus;
import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * What a command produced.
 *
 * @param status         SCSI status
 * @param dataIn         data-in, owned by the receiver ({@code null} when none); may be longer than EDTL
 *                       (the transport sends EDTL bytes and reports overflow)
 * @param senseData      sense data, owned by the receiver ({@code null} when none; present with CHECK CONDITION)
 * @param transferLength bytes the CDB asked to transfer in its data direction (transfer length × block
 *                       size, or the allocation / parameter list length): the transport computes the
 *                       iSCSI residual from this and EDTL (RFC 7143 §11.4.5)
 */
public record ScsiResponse(ScsiStatus status, ByteBuf dataIn, ByteBuf senseData, long transferLength) {
    public ScsiResponse {
        Objects.requireNonNull(status, "status");
    }
}
