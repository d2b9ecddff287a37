package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.Objects;

/**
 * Asynchronous Message, RFC 7143 §11.9. Parameter1-3 carry e.g. the CID and Time2Wait/Time2Retain of a
 * drop event; {@code data} is SenseLength + sense data (for a SCSI async event) followed by iSCSI event data.
 */
public record AsyncMessage(long lun, int statSN, int expCmdSN, int maxCmdSN, AsyncEvent asyncEvent, int asyncVCode,
                           int parameter1, int parameter2, int parameter3, ByteBuf data) implements TargetPdu {
    public AsyncMessage {
        Objects.requireNonNull(asyncEvent, "asyncEvent");
        Bhs.checkUnsigned(asyncVCode, 8, "AsyncVCode");
        Bhs.checkUnsigned(parameter1, 16, "Parameter1");
        Bhs.checkUnsigned(parameter2, 16, "Parameter2");
        Bhs.checkUnsigned(parameter3, 16, "Parameter3");
        Objects.requireNonNull(data, "data");
    }

    /** §11.9: bytes 16-19 are always 0xffffffff. */
    @Override
    public int itt() {
        return Bhs.RESERVED_TAG;
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.ASYNC_MESSAGE;
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int b = Bhs.begin(out, IscsiOpcode.ASYNC_MESSAGE, false, Bhs.FINAL_BIT, 0, data.readableBytes());
        out.setLong(b + 8, lun);
        out.setInt(b + 16, Bhs.RESERVED_TAG);
        Bhs.setStatusSequenceNumbers(out, b, statSN, expCmdSN, maxCmdSN);
        out.setByte(b + 36, asyncEvent.code());
        out.setByte(b + 37, asyncVCode);
        out.setShort(b + 38, parameter1);
        out.setShort(b + 40, parameter2);
        out.setShort(b + 42, parameter3);
    }

    public static AsyncMessage decode(ByteBuf frame) {
        Bhs.Parts p = Bhs.open(frame, IscsiOpcode.ASYNC_MESSAGE);
        int b = p.base();
        AsyncEvent event = Bhs.require(AsyncEvent.fromCode(Bhs.u8(frame, b + 36)), frame, b,
                "reserved AsyncEvent " + Bhs.u8(frame, b + 36));
        return new AsyncMessage(Bhs.lun(frame, b), frame.getInt(b + 24), frame.getInt(b + 28), frame.getInt(b + 32),
                event, Bhs.u8(frame, b + 37), Bhs.u16BE(frame, b + 38), Bhs.u16BE(frame, b + 40),
                Bhs.u16BE(frame, b + 42), Bhs.retainedData(frame, p));
    }
}
