package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Asserts that a decoder refuses a frame with the expected reason and keeps no reference to it. */
final class Errors {
    private Errors() {
    }

    static IscsiProtocolException expect(IscsiProtocolException.Reason reason, ThrowingCallable call) {
        IscsiProtocolException e = catchThrowableOfType(IscsiProtocolException.class, call);
        assertThat(e).as("expected %s", reason).isNotNull();
        assertThat(e.reason()).isEqualTo(reason);
        return e;
    }

    static IscsiProtocolException expect(IscsiProtocolException.Reason reason, byte[] wire,
                                         Function<ByteBuf, ? extends IscsiPdu> decoder) {
        ByteBuf frame = Bytes.buf(wire);
        try {
            IscsiProtocolException e = expect(reason, () -> decoder.apply(frame).release());
            assertThat(frame.refCnt()).isEqualTo(1);
            return e;
        } finally {
            frame.release();
        }
    }

    /** A copy of {@code wire} with byte {@code offset} replaced. */
    static byte[] with(byte[] wire, int offset, int value) {
        byte[] copy = wire.clone();
        copy[offset] = (byte) value;
        return copy;
    }
}
