package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataIn;
import io.blocktarget.protocol.iscsi.ResidualFlag;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Cuts read data into Data-In PDUs (RFC 7143 §11.7): each data segment at most the initiator's
 * MaxRecvDataSegmentLength, the F bit at the end of every MaxBurstLength sequence and on the last PDU,
 * DataSN counting from 0, and — when {@code status} ≥ 0 — the status and residual in the last PDU (S bit,
 * phase collapse §11.7.4). Each PDU holds a retained slice of {@code data}; the caller still releases it.
 */
final class DataInSegmenter {
    private DataInSegmenter() {
    }

    static List<DataIn> segments(ScsiTask task, ByteBuf data, long length, OperationalParameters params, int status,
                                 ResidualFlag residual, long residualCount, ConnectionIo io) {
        List<DataIn> pdus = new ArrayList<>();
        long segmentMax = Math.min(params.initiatorMaxRecvDataSegmentLength(), params.maxBurstLength());
        long burstEnd = Math.min(length, params.maxBurstLength());
        long offset = 0;
        int dataSN = 0;
        while (offset < length) {
            int n = (int) Math.min(segmentMax, burstEnd - offset);
            boolean last = offset + n == length;
            boolean endOfBurst = offset + n == burstEnd;
            ByteBuf slice = data.retainedSlice(data.readerIndex() + (int) offset, n);
            boolean withStatus = last && status >= 0;
            pdus.add(new DataIn(endOfBurst, false, withStatus ? OptionalInt.of(status) : OptionalInt.empty(),
                    withStatus ? residual : ResidualFlag.NONE, task.lunField, task.itt, Bhs.RESERVED_TAG,
                    withStatus ? io.nextStatSN() : 0, io.expCmdSN(), io.maxCmdSN(), dataSN++, offset,
                    withStatus ? residualCount : 0, slice));
            offset += n;
            if (endOfBurst) {
                burstEnd = Math.min(length, burstEnd + params.maxBurstLength());
            }
        }
        return pdus;
    }
}
