package io.blocktarget.transport.nvmetcp;

import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.protocol.Crc32c;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvmetcp.C2HData;
import io.blocktarget.protocol.nvmetcp.CapsuleResp;
import io.blocktarget.protocol.nvmetcp.NvmeTcpHeader;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.PduOptions;
import io.blocktarget.protocol.nvmetcp.R2T;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;

/**
 * Writes the controller's PDUs with the options the host asked for in its ICReq (digests, HPDA), and decides when
 * they are flushed.
 * <p>
 * Layout: every header — CapsuleResp, R2T, C2HData's CH+PSH, digests — is encoded into one pooled header buffer
 * shared by consecutive PDUs; only where C2HData's data must follow is the part written so far handed to the
 * channel (a retained slice), then the data itself as retained slices of the NVMe layer's buffer (backend memory,
 * no copy). A burst of 32 write completions thus leaves as one 768-byte buffer instead of 32, and a read as two
 * buffers (its CapsuleResp shares the next read's header buffer) instead of three.
 * <p>
 * Flushing ({@link Flushing}): while the connection handles a socket read, completions wait for the end of the read
 * burst (one {@code writev}) — but at most {@link #FLUSH_AFTER_COMPLETIONS} data-less completions or
 * {@link #FLUSH_AFTER_BYTES} bytes, so the host gets the first completions of a long burst while the rest are still
 * being executed (a host that refills its queue as completions arrive overlaps its work with ours instead of
 * waiting for the whole burst). Outside a read (completions hopping back from a file backend) one flush is
 * scheduled on the event loop, so the completions of one loop turn share it. This is NVMe/TCP's whole flush policy:
 * its pipeline has no FlushConsolidationHandler.
 */
final class PduSender {
    private static final System.Logger LOG = System.getLogger("blocktarget.nvmetcp");
    /** Data per C2HData PDU: big enough to amortize the header, small enough to interleave queues fairly. */
    static final int C2H_CHUNK = 128 * 1024;
    /** The shared header buffer; a full one is handed on and a fresh one taken. */
    static final int HEADER_BUFFER = 16 * 1024;
    /** Room for any fixed-size controller PDU header: ICResp 128, CapsuleResp/R2T/C2HData 24 + HDGST + PAD. */
    private static final int MAX_HEADER = 256;
    /**
     * Data-less completions (a write's or flush's CapsuleResp, an R2T) held at most during a read burst before a
     * flush. Reads are not counted here but by their bytes: the issue-17 profile had the read rows CPU-bound (97 %
     * busy, where another writev per burst is pure cost) and the write row idle 28 % (waiting for the host, which
     * waited for the burst's completions).
     */
    static final int FLUSH_AFTER_COMPLETIONS = 16;
    /** Bytes (headers and data) held at most during a read burst before a flush: 8 × 128 KiB, as before. */
    static final int FLUSH_AFTER_BYTES = 1 << 20;

    /** When queued PDUs reach the socket. */
    enum Flushing {
        /** No read burst in progress and no flush scheduled: the next completion schedules one. */
        IDLE,
        /** Inside a read burst: flushed at its end ({@link #readComplete}) or at the thresholds. */
        READING,
        /** Outside a read, a flush task is queued on the event loop. */
        SCHEDULED
    }

    private final ChannelHandlerContext ctx;
    private final PduOptions options;
    private final Runnable scheduledFlush = this::scheduledFlush;
    private Flushing flushing = Flushing.IDLE;
    /** Header bytes not yet handed to the channel live in {@code headers} from {@code headersStart}. */
    private ByteBuf headers;
    private int headersStart;
    private int heldCompletions;
    private long heldBytes;
    /** C2HData PDUs sent since the last CapsuleResp: a CapsuleResp after data completes a read. */
    private int c2hSinceResponse;
    /** A fault rule's corrupt-digest: the digest of the next PDU sent that has one; null nearly always. */
    private FaultAction.DigestKind corruptNext;

    PduSender(ChannelHandlerContext ctx, PduOptions options) {
        this.ctx = ctx;
        this.options = options;
    }

    /** A sender with other options (after ICReq) that carries on this one's flushing state; this one is spent. */
    PduSender withOptions(PduOptions next) {
        flushNow();
        releaseHeaders();
        PduSender s = new PduSender(ctx, next);
        s.flushing = flushing == Flushing.READING ? Flushing.READING : Flushing.IDLE;
        return s;
    }

    Flushing flushing() {
        return flushing;
    }

    // ---------------------------------------------------------------- read bursts

    /** The connection is handling PDUs of a socket read: hold completions until {@link #readComplete}. */
    void readStarted() {
        flushing = Flushing.READING;
    }

    /** The socket read burst ended (channelReadComplete): everything queued goes out in one flush. */
    void readComplete() {
        flushing = Flushing.IDLE;
        flushNow();
    }

    // ---------------------------------------------------------------- PDUs

    /** A PDU outside the I/O path (ICResp): written and flushed at once. */
    void send(NvmeTcpPdu pdu) {
        ByteBuf room = headerRoom();
        int at = room.writerIndex();
        pdu.encode(room, options);
        headerDigestFault(room, at);
        flushNow();
    }

    void sendResponse(Cqe cqe) {
        ByteBuf room = headerRoom();
        int at = room.writerIndex();
        new CapsuleResp(cqe).encode(room, options);
        headerDigestFault(room, at);
        boolean afterData = c2hSinceResponse > 0;
        c2hSinceResponse = 0;
        completed(afterData);
    }

    /** The host waits for an R2T as for a completion: flushed by the same rules. */
    void sendR2T(int cccid, int ttag, long r2to, long r2tl) {
        ByteBuf room = headerRoom();
        int at = room.writerIndex();
        new R2T(cccid, ttag, r2to, r2tl).encode(room, options);
        headerDigestFault(room, at);
        completed(false);
    }

    /**
     * Sends {@code data} as C2HData PDUs of at most {@link #C2H_CHUNK} bytes; the last carries LAST_PDU and, when
     * {@code success}, the SUCCESS flag (§3.6.2.8) — then it is the command's completion; otherwise the CapsuleResp
     * that follows is. The caller keeps its reference (and releases it) but must not read {@code data} afterwards:
     * data that fits one PDU is handed to the channel itself, retained, which consumes its readable bytes (a slice
     * per read would cost a derived buffer and two more reference-count updates).
     */
    void sendC2HData(int cccid, ByteBuf data, boolean success) {
        int length = data.readableBytes();
        int start = data.readerIndex();
        for (int offset = 0; offset < length; offset += C2H_CHUNK) {
            int n = Math.min(C2H_CHUNK, length - offset);
            boolean last = offset + n == length;
            ByteBuf room = headerRoom();
            int at = room.writerIndex();
            C2HData.encodeHeader(room, options, cccid, offset, n, last, last && success);
            headerDigestFault(room, at);
            // the digest before the data changes hands: once written, the channel owns (and may free) it
            int ddgst = options.dataDigest() ? Crc32c.compute(data, start + offset, n) : 0;
            if (options.dataDigest() && corruptNext == FaultAction.DigestKind.DATA) {
                ddgst ^= 0x01;     // the DDGST's first byte on the wire (little endian), one bit
                corruptNext = null;
                LOG.log(System.Logger.Level.INFO, "fault rule: C2HData for CID {0} sent with a wrong DDGST", cccid);
            }
            writeHeaders();
            ctx.write(n == length ? data.retain() : data.retainedSlice(start + offset, n), ctx.voidPromise());
            heldBytes += n;
            if (options.dataDigest()) {
                headerRoom().writeIntLE(ddgst);
            }
        }
        if (success) {
            completed(true);
        } else {
            c2hSinceResponse++;
        }
    }

    /** Sends a PDU (a C2HTermReq) after everything queued and closes the connection once it is written. */
    void sendAndClose(NvmeTcpPdu pdu) {
        writeHeaders();
        releaseHeaders();
        ByteBuf out = ctx.alloc().buffer(MAX_HEADER);
        pdu.encode(out, options);
        ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
    }

    /**
     * A fault rule's corrupt-digest: the next PDU with that digest goes out with it wrong by one bit (HDGST of any
     * PDU, DDGST of the next C2HData). Any thread; false when the host did not ask for that digest in its ICReq.
     */
    boolean corruptNext(FaultAction.DigestKind digest) {
        boolean negotiated = digest == FaultAction.DigestKind.HEADER ? options.headerDigest() : options.dataDigest();
        if (!negotiated) {
            return false;
        }
        if (ctx.executor().inEventLoop()) {
            corruptNext = digest;
        } else {
            ctx.executor().execute(() -> corruptNext = digest);
        }
        return true;
    }

    /** With a pending HDGST fault, flips one bit of the HDGST of the header just encoded at {@code at}. */
    private void headerDigestFault(ByteBuf room, int at) {
        if (corruptNext != FaultAction.DigestKind.HEADER || !options.headerDigest()) {
            return;
        }
        // HDGST follows the PDU header of HLEN bytes (NVMe/TCP §3.6.1: CH byte 2 is HLEN)
        int digest = at + room.getUnsignedByte(at + NvmeTcpHeader.OFFSET_HLEN);
        room.setByte(digest, room.getByte(digest) ^ 0x01);
        corruptNext = null;
        LOG.log(System.Logger.Level.INFO, "fault rule: PDU type {0} sent with a wrong HDGST", room.getUnsignedByte(at));
    }

    /**
     * The connection is about to close: what is queued (a refused Connect's CapsuleResp, completions ended by the
     * teardown) goes out first instead of waiting for the end of a read burst that the close cuts short.
     */
    void flushBeforeClose() {
        flushNow();
    }

    /** The connection is gone: frees the header buffer (nothing queued in it is sent any more). */
    void release() {
        releaseHeaders();
    }

    // ---------------------------------------------------------------- buffers and flushing

    /** The header buffer with room for one more header. */
    private ByteBuf headerRoom() {
        if (headers != null && headers.writableBytes() >= MAX_HEADER) {
            return headers;
        }
        writeHeaders();
        releaseHeaders();
        headers = ctx.alloc().directBuffer(HEADER_BUFFER, HEADER_BUFFER);
        headersStart = 0;
        return headers;
    }

    /** Hands the header bytes queued since the last hand-over to the channel, unflushed. */
    private void writeHeaders() {
        if (headers == null || headers.writerIndex() == headersStart) {
            return;
        }
        int n = headers.writerIndex() - headersStart;
        ctx.write(headers.retainedSlice(headersStart, n), ctx.voidPromise());
        headersStart = headers.writerIndex();
        heldBytes += n;
    }

    private void releaseHeaders() {
        if (headers != null) {
            headers.release();
            headers = null;
        }
    }

    /** One completion queued: flush now, later in this read burst, or on the next loop turn. */
    private void completed(boolean carriedData) {
        if (!carriedData) {
            heldCompletions++;
        }
        switch (flushing) {
            case READING -> {
                if (heldCompletions >= FLUSH_AFTER_COMPLETIONS || heldBytes >= FLUSH_AFTER_BYTES) {
                    flushNow();
                }
            }
            case IDLE -> {
                flushing = Flushing.SCHEDULED;
                ctx.executor().execute(scheduledFlush);
            }
            case SCHEDULED -> {
                // the queued task takes this one too
            }
        }
    }

    private void scheduledFlush() {
        if (flushing == Flushing.SCHEDULED) {
            flushing = Flushing.IDLE;
            flushNow();
        }
        // READING: a read burst began meanwhile; its end flushes
    }

    private void flushNow() {
        writeHeaders();
        heldCompletions = 0;
        heldBytes = 0;
        ctx.flush();
    }
}
