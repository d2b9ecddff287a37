package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataIn;
import io.blocktarget.protocol.iscsi.ResidualFlag;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * Cuts read data into Data-In PDUs (RFC 7143 §11.7): each data segment at most the initiator's
 * MaxRecvDataSegmentLength, the F bit at the end of every MaxBurstLength sequence and on the last PDU,
 * DataSN counting from 0, and — when {@code status} ≥ 0 — the status and residual in the last PDU (S bit,
 * phase collapse §11.7.4). Takes ownership of {@code data}: each PDU holds a retained slice of it, or — when one PDU
 * carries all of it, as for nearly every read — {@code data} itself, handed over without a retain and a release of
 * its own (for a RAM LUN both were atomic operations on the chunk's reference count, per read).
 */
final class DataInSegmenter {
    /** The status of nearly every Data-In that carries one (GOOD): one instance rather than one per read. */
    private static final OptionalInt GOOD = OptionalInt.of(0);

    private DataInSegmenter() {
    }

    /** The PDUs as a list (tests); {@link #send} is what the connection uses. */
    static List<DataIn> segments(ScsiTask task, ByteBuf data, long length, OperationalParameters params, int status,
                                 ResidualFlag residual, long residualCount, ConnectionIo io) {
        List<DataIn> pdus = new ArrayList<>();
        send(task, data, length, params, status, residual, residualCount, io, pdus::add);
        return pdus;
    }

    /**
     * Hands each PDU to {@code sink} as it is cut (no list per command) and returns how many there were; takes
     * ownership of {@code data}. A PDU that carries all of {@code data} holds {@code data} itself rather than a slice.
     */
    static int send(ScsiTask task, ByteBuf data, long length, OperationalParameters params, int status,
                    ResidualFlag residual, long residualCount, ConnectionIo io, Consumer<DataIn> sink) {
        long segmentMax = Math.min(params.initiatorMaxRecvDataSegmentLength(), params.maxBurstLength());
        long burstEnd = Math.min(length, params.maxBurstLength());
        long offset = 0;
        int dataSN = 0;
        boolean handedOver = false;
        try {
            while (offset < length) {
                int n = (int) Math.min(segmentMax, burstEnd - offset);
                boolean last = offset + n == length;
                boolean endOfBurst = offset + n == burstEnd;
                boolean whole = offset == 0 && n == data.readableBytes();
                ByteBuf segment = whole ? data : data.retainedSlice(data.readerIndex() + (int) offset, n);
                boolean withStatus = last && status >= 0;
                OptionalInt carried = !withStatus ? OptionalInt.empty() : status == 0 ? GOOD : OptionalInt.of(status);
                DataIn pdu = new DataIn(endOfBurst, false, carried,
                        withStatus ? residual : ResidualFlag.NONE, task.lunField, task.itt, Bhs.RESERVED_TAG,
                        withStatus ? io.nextStatSN() : 0, io.expCmdSN(), io.maxCmdSN(), dataSN++, offset,
                        withStatus ? residualCount : 0, segment);
                handedOver = whole;   // the sink owns the PDU, and with it its data, from here
                sink.accept(pdu);
                offset += n;
                if (endOfBurst) {
                    burstEnd = Math.min(length, burstEnd + params.maxBurstLength());
                }
            }
        } finally {
            if (!handedOver) {
                data.release();
            }
        }
        return dataSN;
    }
}
