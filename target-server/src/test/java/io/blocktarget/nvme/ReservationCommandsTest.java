package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.CopyCommand;
import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.FeatureCommand;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.PropertyCommand;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * NVMe reservations (NVMe Base 2.x §8.1.22, §7 Reservation Register / Report / Acquire / Release; features
 * 81h-83h; log page 80h) with several hosts, each identified by the HOSTID of its Connect.
 */
class ReservationCommandsTest {
    static final String NQN = "nqn.2026-11.io.blocktarget:pr";
    static final int LBS = 512;
    static final int REGISTER = 0, UNREGISTER = 1, REPLACE = 2;
    static final int ACQUIRE = 0, PREEMPT = 1, PREEMPT_AND_ABORT = 2;
    static final int RELEASE = 0, CLEAR = 1;
    static final int WE = 1, EA = 2, WERO = 3, EARO = 4, WEAR = 5, EAAR = 6;

    private final ManualClock clock = new ManualClock();
    private final BlockDevice device = TestSupport.ram("pr", LBS, 4096, 1024);
    private final LunState state = new LunState("pr");
    private final NvmeTarget target = NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "pr", device, state)),
            List.of(), NvmeLimits.DEFAULT, clock);

    @AfterEach
    void close() {
        device.close();
    }

    /** One host: admin queue, controller enabled, I/O queue 1. */
    static final class Host {
        final byte[] hostId;
        final NvmeQueue admin;
        final NvmeQueue io;
        private int cid;

        Host(NvmeTarget target, int id) {
            hostId = new byte[16];
            hostId[15] = (byte) id;
            hostId[0] = (byte) 0xA0;
            String hostNqn = "nqn.2014-08.org.nvmexpress:uuid:host-" + id;
            admin = connect(target, 0, 0xFFFF, hostNqn).queue();
            Reply enable = TestSupport.submit(admin, new PropertyCommand(next(), FabricsCommandType.PROPERTY_SET,
                    ControllerRegister.CC, TestHost.CC_ENABLE).toSqe(), null);
            assertThat(enable.status()).isEqualTo(NvmeStatus.SUCCESS);
            io = connect(target, 1, admin.cntlid(), hostNqn).queue();
        }

        private ConnectResult connect(NvmeTarget target, int qid, int cntlid, String hostNqn) {
            CompletableFuture<ConnectResult> result = new CompletableFuture<>();
            target.connect(new ConnectCommand(7, 0, qid, 31, 0, 0, SglDescriptor.inCapsule(0, ConnectData.SIZE)),
                    new ConnectData(hostId, cntlid, NQN, hostNqn), new TestConnection(), result::complete);
            ConnectResult r = result.getNow(null);
            assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
            return r;
        }

        int next() {
            return ++cid & 0xFFFF;
        }

        static ByteBuf keys(long... keys) {
            ByteBuffer b = ByteBuffer.allocate(8 * keys.length).order(ByteOrder.LITTLE_ENDIAN);
            for (long k : keys) {
                b.putLong(k);
            }
            return Unpooled.wrappedBuffer(b.array());
        }

        NvmeStatus io(NvmOpcode op, int cdw10, long... keys) {
            return TestSupport.submit(io, Sqe.of(op.code(), next(), 1, SglDescriptor.inCapsule(0, 8 * keys.length),
                    cdw10), keys(keys)).status();
        }

        NvmeStatus register(int action, boolean iekey, int cptpl, long crkey, long nrkey) {
            return io(NvmOpcode.RESERVATION_REGISTER, action | (iekey ? 8 : 0) | cptpl << 30, crkey, nrkey);
        }

        NvmeStatus register(long key) {
            return register(REGISTER, false, 0, 0, key);
        }

        NvmeStatus acquire(int action, int rtype, long crkey, long prkey) {
            return io(NvmOpcode.RESERVATION_ACQUIRE, action | rtype << 8, crkey, prkey);
        }

        NvmeStatus release(int action, int rtype, long crkey) {
            return io(NvmOpcode.RESERVATION_RELEASE, action | rtype << 8, crkey);
        }

        Reply report(int bytes, boolean eds) {
            return TestSupport.submit(io, Sqe.of(NvmOpcode.RESERVATION_REPORT.code(), next(), 1,
                    SglDescriptor.transportDataBlock(bytes), bytes / 4 - 1, eds ? 1 : 0), null);
        }

        NvmeStatus write(long lba) {
            return TestSupport.submit(io, TestHost.rw(NvmOpcode.WRITE, next(), 1, lba, 1, LBS, false),
                    Unpooled.wrappedBuffer(new byte[LBS])).status();
        }

        NvmeStatus read(long lba) {
            Reply r = TestSupport.submit(io, TestHost.rw(NvmOpcode.READ, next(), 1, lba, 1, LBS, false), null);
            r.release();
            return r.status();
        }

        NvmeStatus writeZeroes(long lba) {
            return TestSupport.submit(io, Sqe.of(NvmOpcode.WRITE_ZEROES.code(), next(), 1,
                    SglDescriptor.transportDataBlock(0), (int) lba, 0, 0), null).status();
        }

        NvmeStatus verify(long lba) {
            return TestSupport.submit(io, Sqe.of(NvmOpcode.VERIFY.code(), next(), 1,
                    SglDescriptor.transportDataBlock(0), (int) lba, 0, 0), null).status();
        }

        /** Copy (format 0h) of one block from {@code source} to {@code destination}. */
        NvmeStatus copy(long source, long destination) {
            ByteBuf range = Unpooled.buffer(CopyCommand.RANGE_SIZE).writeZero(CopyCommand.RANGE_SIZE);
            range.setLongLE(8, source); // SLBA; NLB (bytes 16..17, 0's based) = 0: one block
            return TestSupport.submit(io, new CopyCommand(next(), 1, destination, 0, CopyCommand.DESCRIPTOR_FORMAT_0,
                    false, false, SglDescriptor.inCapsule(0, CopyCommand.RANGE_SIZE)).toSqe(), range).status();
        }

        NvmeStatus flush() {
            return TestSupport.submit(io, Sqe.of(NvmOpcode.FLUSH.code(), next(), 1,
                    SglDescriptor.transportDataBlock(0)), null).status();
        }

        Reply admin(Sqe sqe) {
            return TestSupport.submit(admin, sqe, null);
        }

        Reply feature(AdminOpcode op, int nsid, FeatureId fid, int sel, int cdw11, int length) {
            return admin(new FeatureCommand(op, next(), nsid, fid, false, sel, cdw11,
                    SglDescriptor.transportDataBlock(length)).toSqe());
        }

        Reply log(boolean rae) {
            return admin(new GetLogPageCommand(next(), 0, 0x80, 0, rae, 64 / 4 - 1, 0, 0, false, 0,
                    SglDescriptor.transportDataBlock(64)).toSqe());
        }
    }

    private Host host(int id) {
        return new Host(target, id);
    }

    static long le64(byte[] b, int at) {
        return ByteBuffer.wrap(b, at, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    static int le16(byte[] b, int at) {
        return b[at] & 0xFF | (b[at + 1] & 0xFF) << 8;
    }

    @Test
    void registerAcquireAndReportTheExtendedStatus() {
        Host h1 = host(1);
        Host h2 = host(2);
        assertThat(h1.register(0x1111)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h2.register(0x2222)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h1.acquire(ACQUIRE, WE, 0x1111, 0)).isEqualTo(NvmeStatus.SUCCESS);
        Reply r = h2.report(64 + 2 * 64, true);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] d = r.bytes();
        assertThat(d).hasSize(192);
        assertThat(ByteBuffer.wrap(d, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt()).isEqualTo(2);   // GEN
        assertThat(d[4]).isEqualTo((byte) WE);                                                      // RTYPE
        assertThat(le16(d, 5)).isEqualTo(2);                                                         // REGCTL
        assertThat(d[9]).isZero();                                                                   // PTPLS
        assertThat(le16(d, 64)).isEqualTo(0xFFFF);                                                   // CNTLID: dynamic model
        assertThat(d[66]).isEqualTo((byte) 1);                                                       // RCSTS: holder
        assertThat(le64(d, 72)).isEqualTo(0x1111);                                                   // RKEY
        assertThat(java.util.Arrays.copyOfRange(d, 80, 96)).isEqualTo(h1.hostId);                    // HOSTID
        assertThat(d[128 + 2]).isZero();
        assertThat(le64(d, 128 + 8)).isEqualTo(0x2222);
        assertThat(java.util.Arrays.copyOfRange(d, 128 + 16, 128 + 32)).isEqualTo(h2.hostId);
        // NUMD smaller than the structure: cut; larger: zero filled
        assertThat(h2.report(8, true).bytes()).hasSize(8);
        byte[] big = h2.report(512, true).bytes();
        assertThat(java.util.Arrays.copyOfRange(big, 192, 512)).containsOnly(0);
        // fabrics hosts have 128-bit identifiers: the 64-bit structure cannot describe them
        assertThat(h2.report(64, false).status()).isEqualTo(NvmeStatus.HOST_IDENTIFIER_INCONSISTENT_FORMAT);
        // the SGL must carry exactly NUMD + 1 dwords
        assertThat(TestSupport.submit(h2.io, Sqe.of(NvmOpcode.RESERVATION_REPORT.code(), h2.next(), 1,
                SglDescriptor.transportDataBlock(60), 64 / 4 - 1, 1), null).status())
                .isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
    }

    /** {read, write} allowed for {holder, registrant, non-registrant}, NVMe Base §8.1.22 figure. */
    static boolean[][] table(int rtype) {
        return switch (rtype) {
            case WE -> new boolean[][] {{true, true}, {true, false}, {true, false}};
            case EA -> new boolean[][] {{true, true}, {false, false}, {false, false}};
            case WERO, WEAR -> new boolean[][] {{true, true}, {true, true}, {true, false}};
            default -> new boolean[][] {{true, true}, {true, true}, {false, false}};
        };
    }

    @ParameterizedTest
    @ValueSource(ints = {WE, EA, WERO, EARO, WEAR, EAAR})
    void ioHonoursEachReservationType(int rtype) {
        Host[] h = {host(1), host(2), host(3)};
        assertThat(h[0].register(0xA)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h[1].register(0xB)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h[0].acquire(ACQUIRE, rtype, 0xA, 0)).isEqualTo(NvmeStatus.SUCCESS);
        boolean[][] allowed = table(rtype);
        for (int i = 0; i < 3; i++) {
            NvmeStatus read = allowed[i][0] ? NvmeStatus.SUCCESS : NvmeStatus.RESERVATION_CONFLICT;
            NvmeStatus write = allowed[i][1] ? NvmeStatus.SUCCESS : NvmeStatus.RESERVATION_CONFLICT;
            assertThat(h[i].read(3)).as("host %d read", i).isEqualTo(read);
            assertThat(h[i].write(3)).as("host %d write", i).isEqualTo(write);
            assertThat(h[i].writeZeroes(3)).as("host %d write zeroes", i).isEqualTo(write);
            assertThat(h[i].flush()).as("host %d flush", i).isEqualTo(write);
            assertThat(h[i].verify(3)).as("host %d verify (read group)", i).isEqualTo(read);
            assertThat(h[i].copy(5, 3)).as("host %d copy (write group)", i).isEqualTo(write);
        }
        // a second controller of the same host shares the registration
        Host again = new Host(target, 2);
        assertThat(again.write(3)).isEqualTo(allowed[1][1] ? NvmeStatus.SUCCESS : NvmeStatus.RESERVATION_CONFLICT);
        assertThat(h[0].release(RELEASE, rtype, 0xA)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h[2].write(3)).isEqualTo(NvmeStatus.SUCCESS);
    }

    @Test
    void registerActionsKeysAndFieldChecks() {
        Host h = host(1);
        assertThat(h.register(UNREGISTER, false, 0, 5, 0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
        assertThat(h.register(5)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h.register(5)).isEqualTo(NvmeStatus.SUCCESS);                              // same key: no change
        assertThat(h.register(6)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
        assertThat(h.register(REPLACE, false, 0, 4, 6)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
        assertThat(h.register(REPLACE, true, 0, 4, 6)).isEqualTo(NvmeStatus.SUCCESS);          // IEKEY
        assertThat(h.register(UNREGISTER, false, 0, 5, 0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
        assertThat(h.register(UNREGISTER, false, 0, 6, 0)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h.register(3, false, 0, 0, 1)).isEqualTo(NvmeStatus.INVALID_FIELD);         // RREGA 3 reserved
        assertThat(h.register(REGISTER, false, 1, 0, 1)).isEqualTo(NvmeStatus.INVALID_FIELD);  // CPTPL 01b reserved
        assertThat(h.register(REGISTER, false, 3, 0, 1)).isEqualTo(NvmeStatus.INVALID_FIELD);  // PTPL: no state file
        assertThat(h.register(REGISTER, false, 2, 0, 1)).isEqualTo(NvmeStatus.SUCCESS);        // clear PTPL
        // the data must be the 16 bytes of CRKEY + NRKEY
        assertThat(TestSupport.submit(h.io, Sqe.of(NvmOpcode.RESERVATION_REGISTER.code(), h.next(), 1,
                SglDescriptor.inCapsule(0, 8), 0), Host.keys(1)).status()).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        // an inactive namespace
        assertThat(TestSupport.submit(h.io, Sqe.of(NvmOpcode.RESERVATION_REGISTER.code(), h.next(), 2,
                SglDescriptor.inCapsule(0, 16), 0), Host.keys(0, 1)).status())
                .isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
    }

    @Test
    void acquireReleaseClearAndPreemptRules() {
        Host h1 = host(1);
        Host h2 = host(2);
        h1.register(0xA);
        h2.register(0xB);
        assertThat(h1.acquire(ACQUIRE, 0, 0xA, 0)).isEqualTo(NvmeStatus.INVALID_FIELD);        // RTYPE 0
        assertThat(h1.acquire(ACQUIRE, 7, 0xA, 0)).isEqualTo(NvmeStatus.INVALID_FIELD);        // RTYPE 7
        assertThat(h1.acquire(3, WE, 0xA, 0)).isEqualTo(NvmeStatus.INVALID_FIELD);             // RACQA 3
        assertThat(h1.io(NvmOpcode.RESERVATION_ACQUIRE, ACQUIRE | 8 | WE << 8, 0xA, 0))
                .isEqualTo(NvmeStatus.INVALID_FIELD);                                            // IEKEY obsolete
        assertThat(h1.acquire(ACQUIRE, WE, 0xB, 0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT); // not its key
        assertThat(h1.acquire(ACQUIRE, WE, 0xA, 0)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h1.acquire(ACQUIRE, WE, 0xA, 0)).isEqualTo(NvmeStatus.SUCCESS);              // again: no change
        assertThat(h1.acquire(ACQUIRE, EA, 0xA, 0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT); // another type
        assertThat(h2.acquire(ACQUIRE, WE, 0xB, 0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
        assertThat(h1.release(RELEASE, EA, 0xA)).isEqualTo(NvmeStatus.INVALID_FIELD);          // type mismatch
        assertThat(h1.release(RELEASE, 0, 0xA)).isEqualTo(NvmeStatus.INVALID_FIELD);           // RTYPE 0
        assertThat(h1.release(2, WE, 0xA)).isEqualTo(NvmeStatus.INVALID_FIELD);                // RRELA 2
        assertThat(h2.release(RELEASE, WE, 0xB)).isEqualTo(NvmeStatus.SUCCESS);                // not holder: no-op
        assertThat(h2.write(0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
        assertThat(h2.acquire(PREEMPT, EA, 0xB, 0)).isEqualTo(NvmeStatus.INVALID_FIELD);       // PRKEY 0 under WE
        assertThat(h2.acquire(PREEMPT, EA, 0xB, 0x99)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT); // nobody has it
        assertThat(h2.acquire(PREEMPT_AND_ABORT, EA, 0xB, 0xA)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h1.read(0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);                     // EA, h1 unregistered
        assertThat(h1.register(UNREGISTER, true, 0, 0, 0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
        assertThat(h1.register(0xA)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h1.release(CLEAR, 0, 0xA)).isEqualTo(NvmeStatus.SUCCESS);                   // any registrant clears
        assertThat(h2.report(64, true).bytes()[4]).isZero();
        assertThat(h1.write(0)).isEqualTo(NvmeStatus.SUCCESS);
    }

    private static byte[] logBytes(Host h, boolean rae) {
        Reply r = h.log(rae);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        return r.bytes();
    }

    @Test
    void notificationsAreLoggedAnnouncedOnceAndMaskable() {
        Host h1 = host(1);
        Host h2 = host(2);
        List<Integer> events = new CopyOnWriteArrayList<>();
        h1.admin.submit(Sqe.of(AdminOpcode.ASYNC_EVENT_REQUEST.code(), h1.next(), 0,
                SglDescriptor.transportDataBlock(0)), null, (status, dw0, dw1, data) -> events.add(dw0));
        h1.register(0xA);
        h2.register(0xB);
        h1.acquire(ACQUIRE, WERO, 0xA, 0);
        assertThat(h2.acquire(PREEMPT, WE, 0xB, 0xA)).isEqualTo(NvmeStatus.SUCCESS);            // h1 preempted
        // AET 6h (I/O command specific), AEI 0 (Reservation Log Page Available), LID 80h
        assertThat(events).containsExactly(6 | 0x80 << 16);
        byte[] page = logBytes(h1, true);
        assertThat(le64(page, 0)).isEqualTo(1);                                                   // Log Page Count
        assertThat(page[8]).isEqualTo((byte) 1);                                                  // Registration Preempted
        assertThat(page[9]).isZero();                                                             // none left
        assertThat(ByteBuffer.wrap(page, 12, 4).order(ByteOrder.LITTLE_ENDIAN).getInt()).isEqualTo(1); // NSID
        assertThat(logBytes(h1, false)[8]).isZero();                                              // now empty
        // mask Registration Preempted on h1, then get preempted again: nothing logged
        assertThat(h1.feature(AdminOpcode.SET_FEATURES, 1, FeatureId.RESERVATION_NOTIFICATION_MASK, 0, 0b10, 0)
                .status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h1.feature(AdminOpcode.GET_FEATURES, 1, FeatureId.RESERVATION_NOTIFICATION_MASK, 0, 0, 0)
                .dw0()).isEqualTo(0b10);
        h1.register(0xA);
        assertThat(h2.acquire(PREEMPT, WE, 0xB, 0xA)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(logBytes(h1, false)[8]).isZero();
        // unmasked Reservation Released: h2 releases a registrants-only reservation h1 is registered under
        h1.feature(AdminOpcode.SET_FEATURES, 0xFFFFFFFF, FeatureId.RESERVATION_NOTIFICATION_MASK, 0, 0, 0);
        h1.register(0xA);
        h2.release(RELEASE, WE, 0xB);
        h2.acquire(ACQUIRE, WERO, 0xB, 0);
        h2.release(RELEASE, WERO, 0xB);
        page = logBytes(h1, false);
        assertThat(page[8]).isEqualTo((byte) 2);                                                  // Reservation Released
        assertThat(le64(page, 0)).isEqualTo(2);
        assertThat(h1.feature(AdminOpcode.GET_FEATURES, 5, FeatureId.RESERVATION_NOTIFICATION_MASK, 0, 0, 0)
                .status()).isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
    }

    @Test
    void hostIdentifierAndPersistenceFeatures() {
        Host h = host(7);
        Reply id = h.feature(AdminOpcode.GET_FEATURES, 0, FeatureId.HOST_IDENTIFIER, 0, 1, 16);  // EXHID = 1
        assertThat(id.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(id.bytes()).isEqualTo(h.hostId);
        assertThat(h.feature(AdminOpcode.GET_FEATURES, 0, FeatureId.HOST_IDENTIFIER, 0, 0, 8).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);                                              // 64-bit: none
        assertThat(h.feature(AdminOpcode.SET_FEATURES, 0, FeatureId.HOST_IDENTIFIER, 0, 1, 16).status())
                .isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR);                                     // fabrics: Connect's
        assertThat(h.feature(AdminOpcode.GET_FEATURES, 1, FeatureId.RESERVATION_PERSISTENCE, 0, 0, 0).dw0()).isZero();
        assertThat(h.feature(AdminOpcode.SET_FEATURES, 1, FeatureId.RESERVATION_PERSISTENCE, 0, 1, 0).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);                                              // RESCAP PTPL = 0
        assertThat(h.feature(AdminOpcode.SET_FEATURES, 1, FeatureId.RESERVATION_PERSISTENCE, 0, 0, 0).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h.feature(AdminOpcode.GET_FEATURES, 1, FeatureId.RESERVATION_PERSISTENCE,
                FeatureCommand.SEL_SUPPORTED_CAPABILITIES, 0, 0).dw0()).isEqualTo(0b10);           // NS specific
    }

    @Test
    void identifyAdvertisesReservations() {
        Host h = host(1);
        Reply ctrl = h.admin(new IdentifyCommand(h.next(), 0, 1, 0, 0, 0, 0,
                SglDescriptor.transportDataBlock(4096)).toSqe());
        byte[] c = ctrl.bytes();
        assertThat(le16(c, 520) & 1 << 5).isNotZero();                                           // ONCS bit 5
        Reply ns = h.admin(new IdentifyCommand(h.next(), 1, 0, 0, 0, 0, 0,
                SglDescriptor.transportDataBlock(4096)).toSqe());
        assertThat(ns.bytes()[31]).isEqualTo((byte) 0xFE);                                        // RESCAP: 6 types, IEKEY 1.3
        Reply independent = h.admin(new IdentifyCommand(h.next(), 1, 8, 0, 0, 0, 0,
                SglDescriptor.transportDataBlock(4096)).toSqe());
        assertThat(independent.bytes()[2]).isEqualTo((byte) 0xFE);
    }

    @Test
    void persistThroughPowerLossWithAStateFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        java.nio.file.Path file = dir.resolve("pr.pr");
        NvmeTarget persistent = NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "pr", device,
                new LunState("pr", file))), List.of(), NvmeLimits.DEFAULT, clock);
        Host h = new Host(persistent, 1);
        Reply ns = h.admin(new IdentifyCommand(h.next(), 1, 0, 0, 0, 0, 0,
                SglDescriptor.transportDataBlock(4096)).toSqe());
        assertThat(ns.bytes()[31]).isEqualTo((byte) 0xFF);                                        // RESCAP PTPLS
        assertThat(h.register(REGISTER, false, 3, 0, 0x55)).isEqualTo(NvmeStatus.SUCCESS);        // CPTPL 11b
        assertThat(h.acquire(ACQUIRE, EA, 0x55, 0)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(h.feature(AdminOpcode.GET_FEATURES, 1, FeatureId.RESERVATION_PERSISTENCE, 0, 0, 0).dw0())
                .isEqualTo(1);
        assertThat(h.report(64, true).bytes()[9]).isEqualTo((byte) 1);                            // PTPLS
        assertThat(file).exists();
        // restart: a new namespace over a new state reading the same file
        NvmeTarget restarted = NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "pr", device,
                new LunState("pr", file))), List.of(), NvmeLimits.DEFAULT, clock);
        Host other = new Host(restarted, 2);
        assertThat(other.read(0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
        Host same = new Host(restarted, 1);
        assertThat(same.write(0)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(same.feature(AdminOpcode.SET_FEATURES, 1, FeatureId.RESERVATION_PERSISTENCE, 0, 0, 0).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        assertThat(file).doesNotExist();
    }
}
