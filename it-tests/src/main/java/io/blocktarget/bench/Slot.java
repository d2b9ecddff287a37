package io.blocktarget.bench;

import io.netty.buffer.ByteBuf;

/**
 * One of a connection's QD command slots, reused for every I/O it carries: its index is the ITT (iSCSI) or CID
 * (NVMe) on the wire, so a completion finds its slot with one array access. Mutable, confined to the
 * connection's event loop.
 */
final class Slot {
    final int index;
    /** Write payload (pooled, one I/O long), allocated once per slot for write-capable workloads; else null. */
    final ByteBuf data;
    long lba;
    boolean write;
    long submitted;
    /** Read data seen so far; a read is complete only when all of it arrived. */
    int received;
    /** Data-Out / H2CData sequence number for the current I/O. */
    int dataSN;
    /** --verify, a read: its unit had a write acknowledged in this run when it was sent (zeros are then an error). */
    boolean ackedBefore;
    /** --verify, a read: already counted as unwritten (once per read, however many PDUs read zeros). */
    boolean countedUnwritten;
    /**
     * NVMe/TCP: this slot's Read and Write CapsuleCmd headers (CH + SQE, encoded once by the protocol codecs with
     * the slot's CID); each I/O copies one into the send batch and patches SLBA — no objects per I/O.
     */
    byte[] readCapsule;
    byte[] writeCapsule;

    Slot(int index, ByteBuf data) {
        this.index = index;
        this.data = data;
    }
}
