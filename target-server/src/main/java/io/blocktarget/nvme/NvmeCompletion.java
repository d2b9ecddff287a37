package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.CqeStatus;
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

    /**
     * Completes with an arbitrary Status Field (Base §4.2.3, Figure "Completion Queue Entry: Status Field"): any SCT
     * and SC with the DNR, CRD and M a fault rule chose, also where no {@link NvmeStatus} row names the pair. Only
     * the fault path comes here; ordinary completions pay nothing for it.
     *
     * @param status the exact Status Field the host sees (never success)
     * @param reason the nearest row, for a completion that knows only rows: the default hands it on, so every
     *               completion between a fault rule and the transport overrides this to hand {@code status} on
     */
    default void completeRaw(CqeStatus status, NvmeStatus reason, int dw0, int dw1, ByteBuf dataIn) {
        complete(reason, dw0, dw1, dataIn);
    }
}
