package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.NvmeStatus;

import java.util.Objects;

/**
 * Outcome of a Connect: the queue the connection now serves (status SUCCESS, DW0 = CNTLID as the
 * Connect response carries it), or a refusal (status + DW0, e.g. IATTR/IPO for CONNECT_INVALID_PARAMETERS).
 *
 * @param queue  the new queue, {@code null} when refused
 * @param status SUCCESS or the refusal
 * @param dw0    Connect response DW0 (Base §6.3)
 */
public record ConnectResult(NvmeQueue queue, NvmeStatus status, int dw0) {
    public ConnectResult {
        Objects.requireNonNull(status, "status");
        if ((queue == null) == status.isSuccess()) {
            throw new IllegalArgumentException("a queue exactly when the status is SUCCESS");
        }
    }

    public static ConnectResult accepted(NvmeQueue queue, int dw0) {
        return new ConnectResult(queue, NvmeStatus.SUCCESS, dw0);
    }

    public static ConnectResult refused(NvmeStatus status, int dw0) {
        return new ConnectResult(null, status, dw0);
    }
}
