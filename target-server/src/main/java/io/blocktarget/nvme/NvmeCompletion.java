package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.NvmeStatus;
import io.netty.buffer.ByteBuf;

/** Completion of one command, from the NVMe layer to the transport. */
@FunctionalInterface
public interface NvmeCompletion {
    /**
     * @param status the command's status (the transport encodes SCT/SC/DNR into the CQE)
     * @param dw0    CQE DW0 (command specific, e.g. Get Features value, Property Get low dword)
     * @param dw1    CQE DW1 (Property Get of an 8-byte property: high dword)
     * @param dataIn controller-to-host data, owned by the receiver (it releases it), {@code null} when none
     */
    void complete(NvmeStatus status, int dw0, int dw1, ByteBuf dataIn);
}
