package io.blocktarget.transport.iscsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.fuzz.Findings;
import io.blocktarget.fuzz.PduMutator;
import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataOut;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.InitiatorPdu;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginStage;
import io.blocktarget.protocol.iscsi.LogoutReason;
import io.blocktarget.protocol.iscsi.LogoutRequest;
import io.blocktarget.protocol.iscsi.NopOut;
import io.blocktarget.protocol.iscsi.ScsiCommand;
import io.blocktarget.protocol.iscsi.SnackRequest;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.blocktarget.protocol.iscsi.TaskAttribute;
import io.blocktarget.protocol.iscsi.TaskManagementRequest;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.protocol.iscsi.TextRequest;
import io.blocktarget.protocol.iscsi.TmfFunction;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The iSCSI fuzz targets: a whole connection (the real frame decoder, login, full feature phase, the real SCSI
 * target over a RAM disk) on an EmbeddedChannel, fed an initiator byte stream. The oracle: no exception leaves the
 * pipeline, no internal error is logged, every frame the target writes decodes as a target PDU, and once the
 * connection is closed every inbound buffer is released (refCnt 0: nothing retained a slice of it) — plus the
 * paranoid leak detector of the test run. Used by Jazzer ({@link IscsiFuzzTest}, scripts/fuzz) and by the seeded
 * mutational run of the normal test suite.
 */
final class IscsiFuzzTarget {
    static final String TARGET = Harness.TARGET;
    /** Header fields of the BHS worth boundary values (RFC 7143 §11.2.1): opcode, flags, TotalAHSLength,
     *  DataSegmentLength, LUN, ITT, TTT / EDTL, CmdSN, ExpStatSN, CDB bytes, DataSN, BufferOffset. */
    static final List<PduMutator.Field> FIELDS = List.of(new PduMutator.Field(0, 1), new PduMutator.Field(1, 1),
            new PduMutator.Field(4, 1), new PduMutator.Field(5, 3), new PduMutator.Field(8, 4),
            new PduMutator.Field(12, 4), new PduMutator.Field(16, 4), new PduMutator.Field(20, 4),
            new PduMutator.Field(24, 4), new PduMutator.Field(28, 4), new PduMutator.Field(32, 1),
            new PduMutator.Field(34, 4), new PduMutator.Field(38, 2), new PduMutator.Field(36, 4),
            new PduMutator.Field(40, 4));

    private IscsiFuzzTarget() {
    }

    /** The input is the byte stream after a successful login; its last byte picks how it is split. */
    static void afterLogin(byte[] input) {
        run(input, true);
    }

    /** The input is the whole byte stream from the TCP connect on (login included). */
    static void fromConnect(byte[] input) {
        run(input, false);
    }

    private static void run(byte[] input, boolean login) {
        RamBlockDevice disk = new RamBlockDevice("fuzz", new BlockGeometry(512, 4096, 2048), false,
                new MemoryBudget(16L << 20));
        List<ByteBuf> inbound = new ArrayList<>();
        try (Findings findings = new Findings()) {
            ScsiTargetDevice target = ScsiTargetDevices.createTargets(
                    List.of(new LogicalUnitSpec(TARGET, 0, "fuzz", disk))).get(TARGET);
            try (Harness h = new Harness(Harness.transport(IscsiSettings.defaults(), new ManualClock(),
                    target))) {
                if (login) {
                    LoginResponse r = h.login("ImmediateData", "Yes", "InitialR2T", "No", "MaxBurstLength", "65536",
                            "FirstBurstLength", "8192");
                    r.release();
                }
                int split = input.length == 0 ? 0 : input[input.length - 1] & 0xFF;
                int step = split < 64 ? input.length : 1 + split % 97;
                for (int at = 0; at < input.length && h.channel.isOpen(); at += step) {
                    ByteBuf chunk = Unpooled.copiedBuffer(input, at, Math.min(step, input.length - at));
                    inbound.add(chunk);
                    h.channel.writeInbound(chunk);
                    h.channel.checkException();
                    drain(h);
                }
                drain(h);
            }
            for (ByteBuf b : inbound) {
                if (b.refCnt() != 0) {
                    throw new AssertionError("an inbound buffer is still referenced after close (refCnt "
                            + b.refCnt() + ")");
                }
            }
            findings.assertNone();
        } finally {
            disk.close();
        }
    }

    /** Every frame the target wrote must decode (Harness.receive throws otherwise). */
    private static void drain(Harness h) {
        for (TargetPdu p; (p = h.receive()) != null; ) {
            p.release();
        }
    }

    // ---- seeds: valid PDU streams -----------------------------------------------------------------------

    private static byte[] frame(InitiatorPdu pdu) {
        ByteBuf b = Harness.frame(pdu, Digest.NONE, Digest.NONE);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        b.release();
        return out;
    }

    private static ScsiCommand command(int itt, int cmdSN, byte[] cdb, boolean read, boolean write, long edtl,
                                       byte[] immediate) {
        return new ScsiCommand(false, true, read, write, TaskAttribute.SIMPLE, 0, itt, edtl, cmdSN, 0, cdb,
                OptionalLong.empty(), immediate.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(immediate));
    }

    private static byte[] cdb(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return out;
    }

    /** Streams of full-feature-phase PDUs (CmdSN from 1, as the harness logs in with CmdSN 1). */
    static List<List<byte[]>> afterLoginSeeds() {
        List<List<byte[]>> seeds = new ArrayList<>();
        byte[] data = Harness.pattern(16384, 3);
        // WRITE(10) of 32 blocks: 8 KiB immediate (= FirstBurstLength), the rest after the target's R2T (TTT 0)
        seeds.add(List.of(
                frame(command(0x10, 1, Harness.write10(8, 16), false, true, 8192 * 2,
                        java.util.Arrays.copyOf(data, 8192))),
                frame(new DataOut(true, 0, 0x10, 0, 0, 0, 8192,
                        Unpooled.wrappedBuffer(java.util.Arrays.copyOfRange(data, 8192, 16384)))),
                frame(command(0x11, 2, Harness.read10(8, 16), true, false, 8192 * 2, new byte[0]))));
        seeds.add(List.of(
                frame(command(0x20, 1, cdb(0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0), true, false, 8, new byte[0])),
                frame(command(0x21, 2, cdb(0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0), true, false, 32,
                        new byte[0])),
                frame(command(0x22, 3, cdb(0x12, 1, 0x83, 0, 0xff, 0), true, false, 255, new byte[0])),
                frame(command(0x23, 4, cdb(0xa0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0), true, false, 256, new byte[0])),
                frame(command(0x24, 5, cdb(0x1a, 0, 0x3f, 0, 0xff, 0), true, false, 255, new byte[0]))));
        seeds.add(List.of(
                frame(new NopOut(false, 0, 0x30, Bhs.RESERVED_TAG, 1, 0, Unpooled.wrappedBuffer(new byte[12]))),
                frame(new TextRequest(false, true, false, 0, 0x31, Bhs.RESERVED_TAG, 2, 0,
                        Harness.text(TextParameters.of("SendTargets", "All")))),
                frame(new TaskManagementRequest(true, TmfFunction.ABORT_TASK.code(), 0, 0x32, 0x10, 3, 0, 3, 0)),
                frame(new TaskManagementRequest(true, TmfFunction.LOGICAL_UNIT_RESET.code(), 0, 0x33, Bhs.RESERVED_TAG, 3,
                        0, 3, 0)),
                frame(new LogoutRequest(false, LogoutReason.CLOSE_SESSION, 0x34, 0, 3, 0))));
        // a write waiting for its R2T'd data, and SNACK (not supported at ErrorRecoveryLevel 0)
        seeds.add(List.of(
                frame(command(0x40, 1, Harness.write10(0, 32), false, true, 16384, new byte[0])),
                frame(new SnackRequest(io.blocktarget.protocol.iscsi.SnackType.values()[0], 0, 0x40, Bhs.RESERVED_TAG, 0, 0, 0)),
                frame(new DataOut(false, 0, 0x40, Bhs.RESERVED_TAG, 0, 0, 0,
                        Unpooled.wrappedBuffer(java.util.Arrays.copyOf(data, 4096))))));
        return seeds;
    }

    /** Whole sessions from connect: a login, then the after-login seeds; and the Linux capture. */
    static List<List<byte[]>> fromConnectSeeds() {
        List<List<byte[]>> seeds = new ArrayList<>();
        TextParameters keys = TextParameters.of("InitiatorName", Harness.INITIATOR, "TargetName", TARGET,
                "SessionType", "Normal", "AuthMethod", "None");
        byte[] security = frame(new io.blocktarget.protocol.iscsi.LoginRequest(
                new io.blocktarget.protocol.iscsi.LoginFlags(true, false, LoginStage.SECURITY_NEGOTIATION,
                        LoginStage.LOGIN_OPERATIONAL_NEGOTIATION), 0, 0, Harness.ISID, 0, 1, 0, 1, 0,
                Harness.text(keys)));
        byte[] operational = frame(new io.blocktarget.protocol.iscsi.LoginRequest(
                new io.blocktarget.protocol.iscsi.LoginFlags(true, false, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                        LoginStage.FULL_FEATURE_PHASE), 0, 0, Harness.ISID, 0, 2, 0, 1, 1,
                Harness.text(TextParameters.of("ImmediateData", "Yes", "MaxRecvDataSegmentLength", "65536"))));
        for (List<byte[]> s : afterLoginSeeds()) {
            List<byte[]> all = new ArrayList<>(List.of(security, operational));
            all.addAll(s);
            seeds.add(all);
        }
        try {
            seeds.add(List.of(CapturedInitiatorReplayTest.load("openiscsi-nodigest-initiator.hex")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return seeds;
    }

    static PduMutator afterLoginMutator() {
        return new PduMutator(afterLoginSeeds(), Bhs.LENGTH, FIELDS, ByteOrder.BIG_ENDIAN);
    }

    static PduMutator fromConnectMutator() {
        return new PduMutator(fromConnectSeeds(), Bhs.LENGTH, FIELDS, ByteOrder.BIG_ENDIAN);
    }
}
