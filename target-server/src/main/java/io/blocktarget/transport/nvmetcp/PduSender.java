package io.blocktarget.transport.nvmetcp;

import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvmetcp.C2HData;
import io.blocktarget.protocol.nvmetcp.CapsuleResp;
import io.blocktarget.protocol.nvmetcp.NvmeTcpDigests;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.PduOptions;
import io.blocktarget.protocol.nvmetcp.R2T;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;

/**
 * Writes the controller's PDUs with the options the host asked for in its ICReq (digests, HPDA). C2HData goes out
 * zero-copy: a small header buffer, then retained slices of the NVMe layer's buffer (backend memory), then the
 * data digest.
 */
final class PduSender {
    /** Data per C2HData PDU: big enough to amortize the header, small enough to interleave queues fairly. */
    static final int C2H_CHUNK = 128 * 1024;
    /** Room for any fixed-size controller PDU header: ICResp 128, CapsuleResp/R2T/C2HData 24 + HDGST + PAD. */
    private static final int HEADER_BUFFER = 256;

    private static final System.Logger LOG = System.getLogger("blocktarget.nvmetcp");

    private final ChannelHandlerContext ctx;
    private final PduOptions options;
    /** A fault rule's corrupt-digest: the digest of the next PDU sent that has one; null nearly always. */
    private FaultAction.DigestKind corruptNext;

    PduSender(ChannelHandlerContext ctx, PduOptions options) {
        this.ctx = ctx;
        this.options = options;
    }

    void send(NvmeTcpPdu pdu) {
        ByteBuf out = ctx.alloc().buffer(HEADER_BUFFER);
        pdu.encode(out, options);
        if (corruptNext == FaultAction.DigestKind.HEADER) {
            corruptHeaderDigest(out);
        }
        ctx.writeAndFlush(out, ctx.voidPromise());
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

    /** HDGST follows the PDU header of HLEN bytes (NVMe/TCP §3.6.1: CH byte 2 is HLEN). */
    private void corruptHeaderDigest(ByteBuf header) {
        int at = header.readerIndex() + header.getUnsignedByte(header.readerIndex() + 2);
        header.setByte(at, header.getByte(at) ^ 0x01);
        corruptNext = null;
        LOG.log(System.Logger.Level.INFO, "fault rule: PDU type {0} sent with a wrong HDGST",
                header.getUnsignedByte(header.readerIndex()));
    }

    void sendResponse(Cqe cqe) {
        send(new CapsuleResp(cqe));
    }

    void sendR2T(int cccid, int ttag, long r2to, long r2tl) {
        send(new R2T(cccid, ttag, r2to, r2tl));
    }

    /**
     * Sends {@code data} (not consumed, not released) as C2HData PDUs of at most {@link #C2H_CHUNK} bytes; the
     * last carries LAST_PDU and, when {@code success}, the SUCCESS flag (§3.6.2.8). Flushes only at the end.
     */
    void sendC2HData(int cccid, ByteBuf data, boolean success) {
        int length = data.readableBytes();
        int start = data.readerIndex();
        for (int offset = 0; offset < length; offset += C2H_CHUNK) {
            int n = Math.min(C2H_CHUNK, length - offset);
            boolean last = offset + n == length;
            ByteBuf header = ctx.alloc().buffer(HEADER_BUFFER);
            C2HData.encodeHeader(header, options, cccid, offset, n, last, last && success);
            if (corruptNext == FaultAction.DigestKind.HEADER) {
                corruptHeaderDigest(header);
            }
            ByteBuf slice = data.retainedSlice(start + offset, n);
            ctx.write(header, ctx.voidPromise());
            if (options.dataDigest()) {
                ByteBuf digest = ctx.alloc().buffer(PduOptions.DIGEST_LENGTH);
                NvmeTcpDigests.writeDataDigest(digest, slice);
                if (corruptNext == FaultAction.DigestKind.DATA) {
                    digest.setByte(digest.readerIndex(), digest.getByte(digest.readerIndex()) ^ 0x01);
                    corruptNext = null;
                    LOG.log(System.Logger.Level.INFO, "fault rule: C2HData for CID {0} sent with a wrong DDGST", cccid);
                }
                ctx.write(slice, ctx.voidPromise());
                ctx.write(digest, ctx.voidPromise());
            } else {
                ctx.write(slice, ctx.voidPromise());
            }
        }
        ctx.flush();
    }

    /** Sends a PDU (a C2HTermReq) and closes the connection once it is written. */
    void sendAndClose(NvmeTcpPdu pdu) {
        ByteBuf out = ctx.alloc().buffer(HEADER_BUFFER);
        pdu.encode(out, options);
        ctx.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE);
    }
}
