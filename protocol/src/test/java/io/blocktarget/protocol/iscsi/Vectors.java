package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;

import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks one hand-written vector in both directions and that no buffer leaks. */
final class Vectors {
    private Vectors() {
    }

    /**
     * {@code decoder(wire)} equals {@code expected} (built by hand with the constructor), the generic
     * dispatcher agrees, and {@code expected.encode()} gives back exactly {@code wire}. Releases
     * {@code expected}.
     */
    static <P extends IscsiPdu> void check(byte[] wire, P expected, Function<ByteBuf, P> decoder) {
        ByteBuf frame = Bytes.buf(wire);
        try {
            P decoded = decoder.apply(frame);
            try {
                assertThat(decoded).isEqualTo(expected);
                assertThat(decoded.opcode()).isEqualTo(expected.opcode());
            } finally {
                decoded.release();
            }
            IscsiPdu generic = expected.opcode().source() == PduSource.INITIATOR
                    ? IscsiPdus.decodeInitiatorPdu(frame) : IscsiPdus.decodeTargetPdu(frame);
            try {
                assertThat(generic).isEqualTo(expected);
            } finally {
                generic.release();
            }
            assertThat(frame.refCnt()).as("decoders must not keep a reference after release").isEqualTo(1);
            assertThat(Bytes.toHex(Bytes.encode(expected))).isEqualTo(Bytes.toHex(wire));
        } finally {
            frame.release();
            expected.release();
        }
    }
}
