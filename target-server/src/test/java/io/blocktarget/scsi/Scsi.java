package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Test driver for the device server: CDB builders, a synchronous {@link #run}, and a decoded
 * {@link Reply}. Every buffer it hands in or gets back is released here.
 */
final class Scsi {
    static final String TARGET = "iqn.2026-11.io.blocktarget:test";
    static final ItNexus A = new ItNexus("iqn.2026-11.test:host-a,i,0x23d000000001", TARGET + ",t,0x0001", 1);
    static final ItNexus B = new ItNexus("iqn.2026-11.test:host-b,i,0x23d000000002", TARGET + ",t,0x0001", 1);
    static final long GIB = 1L << 30;

    private Scsi() {
    }

    /** What a command returned, copied out of its buffers (which are released). */
    record Reply(ScsiStatus status, byte[] data, byte[] sense, long transferLength) {
        int senseKey() {
            return (sense[0] & 0x7F) == 0x72 ? sense[1] & 0x0F : sense[2] & 0x0F;
        }

        int asc() {
            return (sense[0] & 0x7F) == 0x72 ? sense[2] & 0xFF : sense[12] & 0xFF;
        }

        int ascq() {
            return (sense[0] & 0x7F) == 0x72 ? sense[3] & 0xFF : sense[13] & 0xFF;
        }

        /** Fixed-format SENSE KEY SPECIFIC bytes 15-17 as one int (SKSV, C/D, BPV, bit, field). */
        int senseKeySpecific() {
            return (sense[15] & 0xFF) << 16 | (sense[16] & 0xFF) << 8 | sense[17] & 0xFF;
        }

        /** Fixed-format INFORMATION (bytes 3-6), VALID bit required. */
        long information() {
            assertThat(sense[0] & 0x80).as("VALID").isNotZero();
            return (sense[3] & 0xFFL) << 24 | (sense[4] & 0xFF) << 16 | (sense[5] & 0xFF) << 8 | sense[6] & 0xFF;
        }

        Reply assertGood() {
            assertThat(status).as("status, sense %s", sense == null ? "-" : ByteBufUtil.hexDump(sense))
                    .isEqualTo(ScsiStatus.GOOD);
            return this;
        }

        Reply assertCheck(int key, int asc, int ascq) {
            assertThat(status).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(new int[] {senseKey(), asc(), ascq()}).as("key/asc/ascq of %s", ByteBufUtil.hexDump(sense))
                    .containsExactly(key, asc, ascq);
            return this;
        }

        /** Field pointer in the CDB (C/D = 1), with BPV and bit. */
        Reply assertCdbField(int field, int bit) {
            assertThat(senseKeySpecific()).isEqualTo((0xC8 | bit) << 16 | field);
            return this;
        }

        /** Field pointer in the parameter list (C/D = 0). */
        Reply assertParameterField(int field, int bit) {
            assertThat(senseKeySpecific()).isEqualTo((0x88 | bit) << 16 | field);
            return this;
        }
    }

    static Reply run(ScsiTargetDevice target, ItNexus nexus, long lun, byte[] cdb, byte[] dataOut) {
        return run(target, nexus, lun, cdb, dataOut, dataOut == null ? 1 << 20 : dataOut.length);
    }

    static Reply run(ScsiTargetDevice target, ItNexus nexus, long lun, byte[] cdb, byte[] dataOut, long edtl) {
        return run(target, nexus, lun, cdb, dataOut, edtl, TaskAttribute.SIMPLE);
    }

    static Reply run(ScsiTargetDevice target, ItNexus nexus, long lun, byte[] cdb, byte[] dataOut, long edtl,
                     TaskAttribute attribute) {
        byte[] padded = new byte[Math.max(16, cdb.length)];
        System.arraycopy(cdb, 0, padded, 0, cdb.length);
        ByteBuf cdbBuf = Unpooled.wrappedBuffer(padded);
        ByteBuf out = dataOut == null ? null : Unpooled.directBuffer(dataOut.length).writeBytes(dataOut);
        CompletableFuture<ScsiResponse> done = new CompletableFuture<>();
        try {
            target.execute(ScsiCommand.of(nexus, lun, cdbBuf, attribute, 1, edtl, out), r -> {
                if (!done.complete(r)) {
                    throw new AssertionError("completed twice");
                }
            });
            ScsiResponse r = done.get(30, TimeUnit.SECONDS);
            return new Reply(r.status(), take(r.dataIn()), take(r.senseData()), r.transferLength());
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            cdbBuf.release();
            if (out != null) {
                assertThat(out.refCnt()).as("data-out still owned by the transport").isEqualTo(1);
                out.release();
            }
        }
    }

    /**
     * Starts a command on this thread and returns as soon as it completed or must wait — for a range lock, for I/O
     * held back — so a test can see it waiting without sleeping; the reply comes on whichever thread completes it.
     */
    static CompletableFuture<Reply> start(ScsiTargetDevice target, ItNexus nexus, long lun, byte[] cdb,
                                          byte[] dataOut) {
        byte[] padded = new byte[Math.max(16, cdb.length)];
        System.arraycopy(cdb, 0, padded, 0, cdb.length);
        ByteBuf cdbBuf = Unpooled.wrappedBuffer(padded);
        ByteBuf out = dataOut == null ? null : Unpooled.directBuffer(dataOut.length).writeBytes(dataOut);
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        target.execute(ScsiCommand.of(nexus, lun, cdbBuf, TaskAttribute.SIMPLE, 1,
                dataOut == null ? 1 << 20 : dataOut.length, out), r -> {
            try {
                Reply done = new Reply(r.status(), take(r.dataIn()), take(r.senseData()), r.transferLength());
                cdbBuf.release();
                if (out != null) {
                    assertThat(out.refCnt()).as("data-out still owned by the transport").isEqualTo(1);
                    out.release();
                }
                if (!reply.complete(done)) {
                    throw new AssertionError("completed twice");
                }
            } catch (RuntimeException | AssertionError e) {
                reply.completeExceptionally(e);
            }
        });
        return reply;
    }

    private static byte[] take(ByteBuf buf) {
        if (buf == null) {
            return null;
        }
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    // ---- fixtures ----

    /** One device as LUN 0 of a fresh target, nexus A already past its POWER ON unit attention. */
    record Unit(BlockDevice device, ScsiTarget target) implements AutoCloseable {
        static Unit ram(String name, int lbs, int pbs, long bytes) {
            return of(Scsi.ram(name, lbs, pbs, bytes));
        }

        static Unit of(BlockDevice device) {
            ScsiTarget target = Scsi.target(device);
            ready(target, A, 0);
            return new Unit(device, target);
        }

        RamBlockDevice ram() {
            return (RamBlockDevice) device;
        }

        /** A command from nexus A to LUN 0. */
        Reply run(byte[] cdb, byte[] dataOut) {
            return Scsi.run(target, A, 0, cdb, dataOut);
        }

        @Override
        public void close() {
            device.close();
        }
    }

    static RamBlockDevice ram(String name, int lbs, int pbs, long bytes) {
        return new RamBlockDevice(name, new BlockGeometry(lbs, pbs, bytes / lbs), false, new MemoryBudget(GIB));
    }

    static ScsiTarget target(BlockDevice... devices) {
        List<LogicalUnitSpec> specs = new java.util.ArrayList<>();
        for (int i = 0; i < devices.length; i++) {
            specs.add(new LogicalUnitSpec(TARGET, i, devices[i].name(), devices[i]));
        }
        return ScsiTargetDevices.createTargets(specs).get(TARGET);
    }

    /** Consumes the POWER ON / RESET unit attention a new nexus meets, so tests start clean. */
    static void ready(ScsiTargetDevice target, ItNexus nexus, long lun) {
        run(target, nexus, lun, testUnitReady(), null).assertCheck(0x6, 0x29, 0x00);
        run(target, nexus, lun, testUnitReady(), null).assertGood();
    }

    // ---- CDB builders (SPC-4 / SBC-4 layouts) ----

    static byte[] cdb(int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return b;
    }

    static byte[] testUnitReady() {
        return cdb(0x00, 0, 0, 0, 0, 0);
    }

    static byte[] inquiry(boolean evpd, int page, int allocation) {
        return cdb(0x12, evpd ? 1 : 0, page, allocation >> 8, allocation, 0);
    }

    static byte[] requestSense(boolean desc, int allocation) {
        return cdb(0x03, desc ? 1 : 0, 0, 0, allocation, 0);
    }

    static byte[] reportLuns(int allocation) {
        return cdb(0xA0, 0, 0, 0, 0, 0, allocation >> 24, allocation >> 16, allocation >> 8, allocation, 0, 0);
    }

    static byte[] readCapacity10() {
        return cdb(0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    static byte[] readCapacity16(int allocation) {
        return cdb(0x9E, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, allocation >> 24, allocation >> 16, allocation >> 8, allocation, 0, 0);
    }

    /** 10-byte READ/WRITE/VERIFY/WRITE AND VERIFY/SYNCHRONIZE CACHE/WRITE SAME shape: op, flags, LBA(4), group, length(2), control. */
    static byte[] ten(int op, int flags, long lba, int length) {
        return cdb(op, flags, (int) (lba >> 24), (int) (lba >> 16), (int) (lba >> 8), (int) lba, 0, length >> 8, length, 0);
    }

    static byte[] twelve(int op, int flags, long lba, long length) {
        return cdb(op, flags, (int) (lba >> 24), (int) (lba >> 16), (int) (lba >> 8), (int) lba,
                (int) (length >> 24), (int) (length >> 16), (int) (length >> 8), (int) length, 0, 0);
    }

    /** 16-byte shape: op, flags, LBA(8), length(4), group, control. */
    static byte[] sixteen(int op, int flags, long lba, long length) {
        byte[] b = new byte[16];
        b[0] = (byte) op;
        b[1] = (byte) flags;
        for (int i = 0; i < 8; i++) {
            b[2 + i] = (byte) (lba >>> (56 - 8 * i));
        }
        for (int i = 0; i < 4; i++) {
            b[10 + i] = (byte) (length >>> (24 - 8 * i));
        }
        return b;
    }

    static byte[] six(int op, long lba, int length) {
        return cdb(op, (int) (lba >> 16) & 0x1F, (int) (lba >> 8), (int) lba, length, 0);
    }

    static byte[] modeSense6(int dbdFlags, int pcPage, int subpage, int allocation) {
        return cdb(0x1A, dbdFlags, pcPage, subpage, allocation, 0);
    }

    static byte[] modeSense10(int flags, int pcPage, int subpage, int allocation) {
        return cdb(0x5A, flags, pcPage, subpage, 0, 0, 0, allocation >> 8, allocation, 0);
    }

    static byte[] modeSelect6(int length) {
        return cdb(0x15, 0x10, 0, 0, length, 0);
    }

    static byte[] modeSelect10(int length) {
        return cdb(0x55, 0x10, 0, 0, 0, 0, 0, length >> 8, length, 0);
    }

    static byte[] pattern(long seed, int length) {
        return io.blocktarget.block.Io.pattern(seed, length);
    }

    static int u16(byte[] b, int i) {
        return (b[i] & 0xFF) << 8 | b[i + 1] & 0xFF;
    }

    static long u32(byte[] b, int i) {
        return (long) u16(b, i) << 16 | u16(b, i + 2);
    }

    static long u64(byte[] b, int i) {
        return u32(b, i) << 32 | u32(b, i + 4);
    }
}
