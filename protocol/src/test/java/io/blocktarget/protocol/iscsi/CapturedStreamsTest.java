package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whole TCP streams of a real Linux initiator (kernel 7.3.4 iscsi_tcp, open-iscsi 2.1.8) talking to tgt,
 * captured in the initiator VM (provenance in the resource headers): every PDU must frame, decode, and
 * re-encode to exactly the captured bytes — digests included, which pins down their byte order.
 */
class CapturedStreamsTest {
    private static byte[] load(String name) throws IOException {
        try (InputStream in = Objects.requireNonNull(CapturedStreamsTest.class.getResourceAsStream("/iscsi/" + name),
                name)) {
            StringBuilder hex = new StringBuilder();
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                if (!line.startsWith("#")) {
                    hex.append(line.strip());
                }
            }
            return HexFormat.of().parseHex(hex);
        }
    }

    /** A decoded PDU with the exact wire bytes it came from and the digest in force for it. */
    private record Framed(IscsiPdu pdu, byte[] wire, Digest digest) {
    }

    /**
     * Frames a captured stream the way a transport would: no digests during login (§13.1), the given digest
     * from the first PDU after the final Login Request / Response (T=1, NSG=FullFeaturePhase).
     */
    private static List<Framed> frame(byte[] stream, PduSource sender, Digest digest) {
        List<Framed> out = new ArrayList<>();
        FrameLimits limits = new FrameLimits(sender, Bhs.MAX_DATA_SEGMENT_LENGTH, Bhs.MAX_AHS_LENGTH, Digest.NONE,
                Digest.NONE);
        ByteBuf in = Unpooled.wrappedBuffer(stream);
        while (in.isReadable()) {
            FrameLayout layout = IscsiFraming.layout(in, limits);
            ByteBuf wire = in.readRetainedSlice(layout.totalLength());
            try {
                IscsiPdu pdu = IscsiFraming.decode(wire, limits);
                out.add(new Framed(pdu, ByteBufUtil.getBytes(wire), limits.headerDigest()));
                LoginFlags login = pdu instanceof LoginRequest r ? r.flags()
                        : pdu instanceof LoginResponse r ? r.flags() : null;
                if (login != null && login.transit() && login.nsg() == LoginStage.FULL_FEATURE_PHASE) {
                    limits = limits.withDigests(digest, digest);
                }
            } finally {
                wire.release();
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "openiscsi-nodigest-initiator.hex, INITIATOR, NONE",
            "openiscsi-nodigest-target.hex, TARGET, NONE",
            "openiscsi-crc32c-initiator.hex, INITIATOR, CRC32C",
            "openiscsi-crc32c-target.hex, TARGET, CRC32C"})
    void everyCapturedPduDecodesAndReencodesByteExact(String resource, PduSource sender, Digest digest)
            throws IOException {
        byte[] stream = load(resource);
        List<Framed> pdus = frame(stream, sender, digest);
        assertThat(pdus.stream().mapToInt(f -> f.wire().length).sum()).isEqualTo(stream.length);
        assertThat(pdus.getLast().digest()).isEqualTo(digest);
        for (Framed f : pdus) {
            ByteBuf out = Unpooled.buffer();
            try {
                IscsiFraming.encode(f.pdu(), out, f.digest(), f.digest());
                assertThat(Bytes.toHex(ByteBufUtil.getBytes(out))).as("%s", f.pdu()).isEqualTo(Bytes.toHex(f.wire()));
            } finally {
                out.release();
            }
            f.pdu().release();
        }
        assertThat(pdus.getFirst().pdu().opcode())
                .isIn(IscsiOpcode.LOGIN_REQUEST, IscsiOpcode.LOGIN_RESPONSE);
        assertThat(pdus.getLast().pdu().opcode()).isIn(IscsiOpcode.LOGOUT_REQUEST, IscsiOpcode.LOGOUT_RESPONSE);
    }

    @Test
    void openIscsiLoginRequestAndItsKeys() throws IOException {
        List<Framed> pdus = frame(load("openiscsi-nodigest-initiator.hex"), PduSource.INITIATOR, Digest.NONE);
        try {
            LoginRequest login = (LoginRequest) pdus.getFirst().pdu();
            // open-iscsi without CHAP skips the security stage: one PDU, operational -> full feature.
            assertThat(login.flags()).isEqualTo(new LoginFlags(true, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                    LoginStage.FULL_FEATURE_PHASE));
            assertThat(login.tsih()).isZero();
            assertThat(login.versionMax()).isZero();
            TextParameters keys = TextParameters.decode(login.data());
            assertThat(keys.get("InitiatorName")).contains("iqn.2024-01.test.initiator-vm:guest");
            assertThat(keys.get("SessionType")).contains("Normal");
            assertThat(keys.get("HeaderDigest")).contains("None");
            assertThat(keys.get("MaxRecvDataSegmentLength")).contains("262144");

            TargetPolicy policy = new TargetPolicy(java.util.Map.of(IscsiKey.MAX_BURST_LENGTH, "1048576"),
                    SessionType.NORMAL, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, TargetPolicy.Connection.LEADING);
            for (TextParameter p : keys.entries()) {
                KeyAnswer answer = KeyNegotiation.negotiate(p.key(), p.value(), policy);
                assertThat(answer).as(p.toString()).isNotInstanceOf(KeyAnswer.Reject.class)
                        .isNotInstanceOf(KeyAnswer.NotUnderstood.class);
            }
            assertThat(KeyNegotiation.negotiate("MaxBurstLength", keys.get("MaxBurstLength").orElseThrow(), policy)
                    .responseValue()).contains("1048576");
        } finally {
            pdus.forEach(f -> f.pdu().release());
        }
    }

    @Test
    void openIscsiReadAndWriteCommands() throws IOException {
        List<Framed> pdus = frame(load("openiscsi-crc32c-initiator.hex"), PduSource.INITIATOR, Digest.CRC32C);
        try {
            List<ScsiCommand> commands = pdus.stream().map(Framed::pdu)
                    .filter(ScsiCommand.class::isInstance).map(ScsiCommand.class::cast).toList();
            // dd bs=4096 skip=8 on a 512-byte-block LUN: READ(10) of LBA 64, 8 blocks.
            ScsiCommand read = commands.stream().filter(c -> c.cdbByte(0) == 0x28 && c.cdbByte(5) == 64)
                    .findFirst().orElseThrow();
            assertThat(read.read()).isTrue();
            assertThat(read.write()).isFalse();
            assertThat(read.finalBit()).isTrue();
            assertThat(read.expectedDataTransferLength()).isEqualTo(4096);
            assertThat(read.cdbByte(8)).isEqualTo(8);
            // dd bs=4096 seek=16: WRITE(10) of LBA 128 with all 4 KiB as immediate data (ImmediateData=Yes).
            ScsiCommand write = commands.stream().filter(c -> c.cdbByte(0) == 0x2a).findFirst().orElseThrow();
            assertThat(write.write()).isTrue();
            assertThat(write.cdbByte(5)).isEqualTo(128);
            assertThat(write.expectedDataTransferLength()).isEqualTo(4096);
            assertThat(write.data().readableBytes()).isEqualTo(4096);
            assertThat(write.attribute()).isEqualTo(TaskAttribute.SIMPLE);
            for (int i = 1; i < commands.size(); i++) {
                assertThat(SerialNumbers.greaterOrEqual(commands.get(i).cmdSN(), commands.get(i - 1).cmdSN())).isTrue();
            }
        } finally {
            pdus.forEach(f -> f.pdu().release());
        }
    }

    @Test
    void aCorruptedCapturedDigestIsDetected() throws IOException {
        byte[] stream = load("openiscsi-crc32c-initiator.hex");
        List<Framed> pdus = frame(stream, PduSource.INITIATOR, Digest.CRC32C);
        Framed write = pdus.stream().filter(f -> f.pdu() instanceof ScsiCommand c && c.cdbByte(0) == 0x2a)
                .findFirst().orElseThrow();
        pdus.forEach(f -> f.pdu().release());
        FrameLimits limits = new FrameLimits(PduSource.INITIATOR, 8192, 0, Digest.CRC32C, Digest.CRC32C);
        byte[] dataFlipped = write.wire().clone();
        dataFlipped[48 + 4 + 100] ^= 1;
        byte[] headerFlipped = write.wire().clone();
        headerFlipped[20] ^= 1;
        for (var c : List.of(new Object[] {dataFlipped, IscsiProtocolException.Reason.DATA_DIGEST_ERROR},
                new Object[] {headerFlipped, IscsiProtocolException.Reason.HEADER_DIGEST_ERROR})) {
            ByteBuf wire = Bytes.buf((byte[]) c[0]);
            try {
                Errors.expect((IscsiProtocolException.Reason) c[1], () -> IscsiFraming.decode(wire, limits));
            } finally {
                wire.release();
            }
        }
    }
}
