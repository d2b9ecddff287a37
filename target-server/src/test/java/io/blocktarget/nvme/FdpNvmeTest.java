package io.blocktarget.nvme;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.placement.Placement;
import io.blocktarget.block.placement.PlacementSpec;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.FeatureCommand;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flexible Data Placement over NVMe (TP4146, issue 32) as Linux reads it: CTRATT and ENDGID, Get / Set Features 1Dh,
 * the FDP log pages 20h..23h byte for byte, I/O Management Receive (RUH Status) and Send (RUH Update), writes and Write
 * Zeroes placed by DTYPE 2 / DSPEC (an invalid identifier falls back to handle 0), and a subsystem without placement
 * unchanged: no FDP field, FDP features, logs and I/O Management refused as before.
 */
class FdpNvmeTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:fdp";
    private final ManualClock clock = new ManualClock();
    private final MemoryBudget budget = new MemoryBudget(1L << 30);

    /** A namespace of 1024 blocks of {@code lbs}, with a placement of {@code handles} handles when handles > 0. */
    private NamespaceSpec spec(long nsid, int lbs, int handles) {
        String name = "ns" + nsid;
        RamBlockDevice device = new RamBlockDevice(name, new BlockGeometry(lbs, lbs, 1024), false, budget);
        LunState state = new LunState(name, null, java.util.Optional.empty(), clock);
        if (handles > 0) {
            state.placement(Placement.create(new PlacementSpec(64L * lbs, handles, 6, 700), lbs, 1024,
                    () -> clock.nanoTime() / 1_000_000));
        }
        return new NamespaceSpec(NQN, nsid, name, device, state);
    }

    private TestHost host(NamespaceSpec... specs) {
        return TestHost.enabled(NvmeTargets.create(List.of(specs), List.of(), NvmeLimits.DEFAULT, clock), NQN);
    }

    private static TestSupport.Reply logPage(TestHost host, int lid, int lsp, int lsi, int length) {
        return host.admin(new GetLogPageCommand(host.nextCid(), 0, lid, lsp, false, length / 4 - 1, lsi, 0, false, 0,
                SglDescriptor.transportDataBlock(length)).toSqe());
    }

    private static TestSupport.Reply feature(TestHost host, AdminOpcode op, int nsid, FeatureId fid, int sel,
                                             int cdw11) {
        return host.admin(new FeatureCommand(op, host.nextCid(), nsid, fid, false, sel, cdw11,
                SglDescriptor.transportDataBlock(64)).toSqe());
    }

    /** {@code sqe} with DTYPE (CDW12 23:20) and DSPEC (CDW13 31:16). */
    private static Sqe directive(Sqe s, int dtype, int dspec) {
        return new Sqe(s.opcode(), s.fuse(), s.psdt(), s.cid(), s.nsid(), s.cdw2(), s.cdw3(), s.mptr(), s.dptr(),
                s.cdw10(), s.cdw11(), s.cdw12() & ~(0xF << 20) | dtype << 20, s.cdw13() & 0xFFFF | dspec << 16,
                s.cdw14(), s.cdw15());
    }

    private static Sqe ruhStatus(TestHost host, int nsid, int mo, int bytes) {
        return Sqe.of(NvmOpcode.IO_MANAGEMENT_RECEIVE.code(), host.nextCid(), nsid,
                SglDescriptor.transportDataBlock(bytes), mo, bytes / 4 - 1);
    }

    private static Sqe ruhUpdate(TestHost host, int nsid, int mo, int count) {
        return Sqe.of(NvmOpcode.IO_MANAGEMENT_SEND.code(), host.nextCid(), nsid,
                SglDescriptor.transportDataBlock(2 * count), mo | count - 1 << 16);
    }

    private static ByteBuf pids(int... pids) {
        ByteBuf b = Unpooled.buffer();
        for (int p : pids) {
            b.writeShortLE(p);
        }
        return b;
    }

    @Test
    void aSubsystemWithoutPlacementShowsNothingOfFdp() {
        TestHost host = host(spec(1, 4096, 0));
        ByteBuf id = host.identifyData(0x01, 0);
        assertThat(id.getIntLE(96) & (1 << 19 | 1 << 4)).isZero();        // CTRATT: no FDPS, no endurance groups
        assertThat(id.getUnsignedShortLE(340)).isZero();                    // ENDGIDMAX
        id.release();
        ByteBuf ns = host.identifyData(0x00, 1);
        assertThat(ns.getUnsignedShortLE(102)).isZero();                    // ENDGID
        ns.release();
        assertThat(host.getFeature(FeatureId.FDP, 0, 1).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(feature(host, AdminOpcode.GET_FEATURES, 1, FeatureId.FDP_EVENTS, 0, 1 << 16).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);
        for (int lid = 0x20; lid <= 0x23; lid++) {
            assertThat(logPage(host, lid, 0, 1, 512).status()).as("log %x", lid)
                    .isEqualTo(NvmeStatus.INVALID_LOG_PAGE);
        }
        NvmeQueue io = host.connectIo(1);
        assertThat(host.io(io, ruhStatus(host, 1, 1, 512), null).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        assertThat(host.io(io, ruhUpdate(host, 1, 1, 1), pids(0)).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        // Commands Supported and Effects: neither I/O Management command
        TestSupport.Reply effects = host.getLogPage(0x05, 0, 0, 4096, false);
        assertThat(effects.data().getIntLE(1024 + 4 * 0x12)).isZero();
        assertThat(effects.data().getIntLE(1024 + 4 * 0x1D)).isZero();
        effects.release();
    }

    @Test
    void identifyAdvertisesFdpAndOneEnduranceGroupPerNamespace() {
        TestHost host = host(spec(1, 4096, 8), spec(7, 4096, 0));
        ByteBuf id = host.identifyData(0x01, 0);
        assertThat(id.getIntLE(96) & (1 << 19 | 1 << 4)).isEqualTo(1 << 19 | 1 << 4);
        assertThat(id.getIntLE(96) & 1).isEqualTo(1);                        // CTRATT host id 128 kept
        assertThat(id.getUnsignedShortLE(340)).isEqualTo(7);                 // ENDGIDMAX: the highest group
        id.release();
        for (int nsid : new int[] {1, 7}) {
            ByteBuf ns = host.identifyData(0x00, nsid);
            assertThat(ns.getUnsignedShortLE(102)).as("ENDGID of %d", nsid).isEqualTo(nsid);
            ns.release();
            TestSupport.Reply indep = host.identify(0x08, nsid, 0);
            assertThat(indep.data().getUnsignedShortLE(12)).isEqualTo(nsid);
            indep.release();
        }
        TestSupport.Reply effects = host.getLogPage(0x05, 0, 0, 4096, false);
        assertThat(effects.data().getIntLE(1024 + 4 * 0x12)).isEqualTo(1);  // CSUPP, no LBCC
        assertThat(effects.data().getIntLE(1024 + 4 * 0x1D)).isEqualTo(1);
        effects.release();
    }

    @Test
    void fdpFeatureIsEnabledWithConfigurationZeroAndCannotBeSet() {
        TestHost host = host(spec(1, 4096, 8), spec(2, 4096, 0));
        TestSupport.Reply on = host.getFeature(FeatureId.FDP, FeatureCommand.SEL_CURRENT, 1);
        assertThat(on.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(on.dw0()).isEqualTo(1);                                   // FDPE, FDPCIDX 0
        assertThat(host.getFeature(FeatureId.FDP, FeatureCommand.SEL_DEFAULT, 1).dw0()).isEqualTo(1);
        assertThat(host.getFeature(FeatureId.FDP, FeatureCommand.SEL_CURRENT, 2).dw0()).isZero(); // FDP disabled
        assertThat(host.getFeature(FeatureId.FDP, FeatureCommand.SEL_CURRENT, 3).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);                        // no such group
        assertThat(host.getFeature(FeatureId.FDP, FeatureCommand.SEL_CURRENT, 0).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(host.setFeature(FeatureId.FDP, 1).status()).isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR);
        assertThat(host.setFeature(FeatureId.FDP, 9).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
    }

    @Test
    void fdpEventsFeatureListsTheSupportedEventTypes() {
        TestHost host = host(spec(1, 4096, 8), spec(2, 4096, 0));
        TestSupport.Reply r = feature(host, AdminOpcode.GET_FEATURES, 1, FeatureId.FDP_EVENTS, 0, 7 | 255 << 16);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(r.dw0()).isEqualTo(3);
        assertThat(r.bytes()).containsExactly(0x00, 1, 0x03, 1, 0x80, 1);
        r = feature(host, AdminOpcode.GET_FEATURES, 1, FeatureId.FDP_EVENTS, 0, 1 << 16);
        assertThat(r.dw0()).isEqualTo(1);
        assertThat(r.bytes()).containsExactly(0x00, 1);
        // PHNDL at the limit and one past it
        assertThat(feature(host, AdminOpcode.GET_FEATURES, 1, FeatureId.FDP_EVENTS, 0, 8 | 1 << 16).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(feature(host, AdminOpcode.GET_FEATURES, 2, FeatureId.FDP_EVENTS, 0, 1 << 16).status())
                .isEqualTo(NvmeStatus.FDP_DISABLED);
        assertThat(feature(host, AdminOpcode.GET_FEATURES, 5, FeatureId.FDP_EVENTS, 0, 1 << 16).status())
                .isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
    }

    /** Set Features 1Eh: CDW10 FID, CDW11 PHNDL / NOET, CDW12 FDPEE; the event types as data. */
    private static TestSupport.Reply setEvents(TestHost host, int nsid, int handle, boolean enable, int noet,
                                               int... types) {
        ByteBuf data = Unpooled.buffer();
        for (int t : types) {
            data.writeByte(t);
        }
        return host.admin(Sqe.of(AdminOpcode.SET_FEATURES.code(), host.nextCid(), nsid,
                SglDescriptor.inCapsule(0, types.length), FeatureId.FDP_EVENTS.code(), handle | noet << 16,
                enable ? 1 : 0), data);
    }

    private static List<Integer> eventBytes(TestHost host, int handle) {
        TestSupport.Reply r = feature(host, AdminOpcode.GET_FEATURES, 1, FeatureId.FDP_EVENTS, 0, handle | 255 << 16);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        List<Integer> out = new ArrayList<>();
        for (byte b : r.bytes()) {
            out.add(b & 0xFF);
        }
        return out;
    }

    /**
     * Set Features 1Eh enables / disables event types per handle (FDPEE), all or nothing: an unsupported type, data
     * shorter than NOET bytes, or a PHNDL past the last handle is Invalid Field and changes nothing. A disabled type is
     * not reported in log 23h.
     */
    @Test
    void setFdpEventsEnablesAndDisablesPerHandle() {
        TestHost host = host(spec(1, 512, 4));
        assertThat(eventBytes(host, 1)).containsExactly(0x00, 1, 0x03, 1, 0x80, 1);
        assertThat(setEvents(host, 1, 1, false, 2, 0x00, 0x80).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(eventBytes(host, 1)).containsExactly(0x00, 0, 0x03, 1, 0x80, 0);
        assertThat(eventBytes(host, 0)).containsExactly(0x00, 1, 0x03, 1, 0x80, 1);     // other handles keep theirs
        assertThat(setEvents(host, 1, 1, false, 2, 0x03, 0x01).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);                                     // 01h is not supported
        assertThat(setEvents(host, 1, 1, false, 3, 0x03, 0x00).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);                                     // NOET 3, two bytes
        assertThat(setEvents(host, 1, 4, false, 1, 0x03).status()).isEqualTo(NvmeStatus.INVALID_FIELD);  // PHNDL
        assertThat(setEvents(host, 1, 3, false, 1, 0x03).status()).isEqualTo(NvmeStatus.SUCCESS);        // last
        assertThat(eventBytes(host, 1)).containsExactly(0x00, 0, 0x03, 1, 0x80, 0);
        assertThat(setEvents(host, 1, 1, true, 1, 0x80).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(eventBytes(host, 1)).containsExactly(0x00, 0, 0x03, 1, 0x80, 1);
        assertThat(setEvents(host, 1, 1, true, 0).status()).isEqualTo(NvmeStatus.SUCCESS);   // NOET 0: nothing
        assertThat(eventBytes(host, 1)).containsExactly(0x00, 0, 0x03, 1, 0x80, 1);

        // an invalid placement identifier is reported while 03h is enabled for handle 0, not after it is disabled
        NvmeQueue io = host.connectIo(1);
        assertThat(host.io(io, directive(TestHost.rw(NvmOpcode.WRITE, host.nextCid(), 1, 0, 1, 512, false), 2, 9),
                Unpooled.wrappedBuffer(new byte[512])).status()).isEqualTo(NvmeStatus.SUCCESS);
        TestSupport.Reply events = logPage(host, 0x23, 1, 1, 4096);
        assertThat(events.data().getIntLE(0)).isEqualTo(1);
        events.release();
        assertThat(setEvents(host, 1, 0, false, 1, 0x03).status()).isEqualTo(NvmeStatus.SUCCESS);
        events = logPage(host, 0x23, 1, 1, 4096);
        assertThat(events.data().getIntLE(0)).isZero();
        events.release();
        // a namespace without placement: FDP Disabled, as Get
        TestHost two = host(spec(1, 512, 4), spec(2, 512, 0));
        assertThat(setEvents(two, 2, 0, false, 1, 0x03).status()).isEqualTo(NvmeStatus.FDP_DISABLED);
    }

    private static void rule(NamespaceSpec spec, String json) throws Exception {
        var faults = spec.state().faults();
        faults.add(io.blocktarget.server.FaultRules.of(io.blocktarget.config.ConfigLoader.readFaultRule(json,
                faults.nextId())));
    }

    /**
     * Fault rules with {@code queries:} (issue 32 item 6) fail or delay each FDP query Linux sends — Get Features 1Dh
     * and log 20h on the admin queue (their endurance group's LUN's rules), RUH Status on an I/O queue — and nothing
     * else; a rule without queries never takes an admin command.
     */
    @Test
    void faultRulesFailOrDelayEachFdpQuery() throws Exception {
        NamespaceSpec spec = spec(1, 4096, 4);
        TestHost host = host(spec);
        NvmeQueue io = host.connectIo(1);
        rule(spec, "{\"id\": \"cfg\", \"queries\": [\"fdp-configurations\"], \"action\": \"status\","
                + " \"nvme-status\": \"0/06\"}");
        assertThat(logPage(host, 0x20, 0, 1, 512).status()).isEqualTo(NvmeStatus.INTERNAL_ERROR);   // 0/06
        TestSupport.Reply stats = logPage(host, 0x22, 0, 1, 64);
        assertThat(stats.status()).isEqualTo(NvmeStatus.SUCCESS);                   // another FDP log: untouched
        stats.release();
        assertThat(host.getFeature(FeatureId.FDP, FeatureCommand.SEL_CURRENT, 1).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        spec.state().faults().remove("cfg");
        rule(spec, "{\"id\": \"mode\", \"queries\": [\"fdp-feature\"], \"action\": \"status\","
                + " \"nvme-status\": \"0/06\"}");
        assertThat(host.getFeature(FeatureId.FDP, FeatureCommand.SEL_CURRENT, 1).status())
                .isEqualTo(NvmeStatus.INTERNAL_ERROR);
        assertThat(host.getFeature(FeatureId.FDP_EVENTS, 0, 1 << 16).status())
                .isNotEqualTo(NvmeStatus.INTERNAL_ERROR);                             // 1Eh is not the FDP query
        TestSupport.Reply configs = logPage(host, 0x20, 0, 1, 512);
        assertThat(configs.status()).isEqualTo(NvmeStatus.SUCCESS);
        configs.release();
        spec.state().faults().remove("mode");
        rule(spec, "{\"id\": \"ruhs\", \"queries\": \"ruh-status\", \"action\": \"status\","
                + " \"nvme-status\": \"0/06\"}");
        assertThat(host.io(io, ruhStatus(host, 1, 1, 64), null).status()).isEqualTo(NvmeStatus.INTERNAL_ERROR);
        assertThat(host.write(io, 1, 0, new byte[4096], 4096, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        spec.state().faults().remove("ruhs");
        // a rule for every command takes the namespace's I/O, not the admin queries
        rule(spec, "{\"id\": \"all\", \"action\": \"status\", \"nvme-status\": \"0/06\"}");
        assertThat(host.getFeature(FeatureId.FDP, FeatureCommand.SEL_CURRENT, 1).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.write(io, 1, 0, new byte[4096], 4096, false).status()).isEqualTo(NvmeStatus.INTERNAL_ERROR);
        assertThat(host.io(io, ruhStatus(host, 1, 1, 64), null).status()).isEqualTo(NvmeStatus.INTERNAL_ERROR);
        spec.state().faults().remove("all");
        // delay: log 20h completes once the server's clock has run the delay
        rule(spec, "{\"id\": \"slow\", \"queries\": [\"fdp-configurations\"], \"action\": \"delay\","
                + " \"delay\": \"2s\"}");
        java.util.concurrent.CompletableFuture<NvmeStatus> delayed = new java.util.concurrent.CompletableFuture<>();
        host.admin.submit(new GetLogPageCommand(host.nextCid(), 0, 0x20, 0, false, 512 / 4 - 1, 1, 0, false, 0,
                SglDescriptor.transportDataBlock(512)).toSqe(), null, (status, dw0, dw1, data) -> {
                    if (data != null) {
                        data.release();
                    }
                    delayed.complete(status);
                });
        assertThat(delayed).isNotDone();
        clock.advanceMillis(1999);
        assertThat(delayed).isNotDone();
        clock.advanceMillis(1);
        assertThat(delayed.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(NvmeStatus.SUCCESS);
    }

    /** Log 20h byte for byte: header, one descriptor (NRG 1, MAXPIDS, RUNS), one RUH descriptor per handle. */
    @ParameterizedTest
    @ValueSource(ints = {1, 8, 126})
    void configurationsLog(int handles) {
        TestHost host = host(spec(1, 4096, handles));
        int size = 16 + 64 + 4 * handles;
        TestSupport.Reply r = logPage(host, 0x20, 0, 1, 1024);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        ByteBuf b = r.data();
        assertThat(b.getUnsignedShortLE(0)).isZero();                        // NUMFDPC: one configuration
        assertThat(b.getUnsignedByte(2)).isZero();                           // VER
        assertThat(b.getIntLE(4)).isEqualTo(size);                           // SZE
        assertThat(b.getUnsignedShortLE(16)).isEqualTo(64 + 4 * handles);    // DSZE
        assertThat(b.getUnsignedByte(18)).isEqualTo((short) 0x80);           // FDPA: valid, RGIF 0, no VWC (ram)
        assertThat(b.getIntLE(20)).isEqualTo(1);                             // NRG
        assertThat(b.getUnsignedShortLE(24)).isEqualTo(handles);             // NRUH
        assertThat(b.getUnsignedShortLE(26)).isEqualTo(handles - 1);         // MAXPIDS, 0's based
        assertThat(b.getIntLE(28)).isEqualTo(1);                             // NNSS
        assertThat(b.getLongLE(32)).isEqualTo(64L * 4096);                   // RUNS
        assertThat(b.getIntLE(40)).isZero();                                 // ERUTL
        for (int h = 0; h < handles; h++) {
            assertThat(b.getIntLE(80 + 4 * h)).as("RUHT %d", h).isEqualTo(2); // persistently isolated
        }
        for (int i = size; i < 1024; i++) {
            assertThat(b.getByte(i)).isZero();
        }
        r.release();
        assertThat(logPage(host, 0x20, 0, 2, 512).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
    }

    @Test
    void usageAndStatisticsLogsFollowTheWrites() {
        TestHost host = host(spec(1, 4096, 4));
        TestSupport.Reply usage = logPage(host, 0x21, 0, 1, 64);
        assertThat(usage.bytes()).containsExactly(ByteBufUtil.getBytes(expectedUsage(4, 64)));
        NvmeQueue io = host.connectIo(1);
        byte[] data = new byte[8 * 4096];
        assertThat(host.io(io, directive(TestHost.rw(NvmOpcode.WRITE, host.nextCid(), 1, 0, 8, 4096, false), 2, 3),
                Unpooled.wrappedBuffer(data)).status()).isEqualTo(NvmeStatus.SUCCESS);
        TestSupport.Reply stats = logPage(host, 0x22, 0, 1, 64);
        ByteBuf b = stats.data();
        assertThat(b.getLongLE(0)).isEqualTo(8 * 4096);                      // HBMW
        assertThat(b.getLongLE(8)).isZero();                                 // upper half
        assertThat(b.getLongLE(16)).isEqualTo(8 * 4096);                     // MBMW: nothing moved
        assertThat(b.getLongLE(32)).isZero();                                // MBE
        stats.release();
    }

    private static ByteBuf expectedUsage(int handles, int length) {
        ByteBuf b = Unpooled.buffer(length);
        b.writeShortLE(handles).writeZero(6);
        for (int h = 0; h < handles; h++) {
            b.writeByte(1).writeZero(7);                                     // RUHA host specified
        }
        b.writeZero(length - b.readableBytes());
        return b;
    }

    /** RUH Status as Linux reads it (16 + 126 × 32 bytes): NRUHSD, PID = RUHID = handle, RUAMW per handle. */
    @Test
    void ruhStatusReportsEveryHandleWithItsAvailableBlocks() {
        TestHost host = host(spec(1, 4096, 8));
        NvmeQueue io = host.connectIo(1);
        assertThat(host.io(io, directive(TestHost.rw(NvmOpcode.WRITE, host.nextCid(), 1, 0, 5, 4096, false), 2, 2),
                Unpooled.wrappedBuffer(new byte[5 * 4096])).status()).isEqualTo(NvmeStatus.SUCCESS);
        int length = 16 + 126 * 32;
        TestSupport.Reply r = host.io(io, ruhStatus(host, 1, 1, length), null);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        ByteBuf b = r.data();
        assertThat(b.readableBytes()).isEqualTo(length);
        assertThat(b.getUnsignedShortLE(14)).isEqualTo(8);                   // NRUHSD
        for (int h = 0; h < 8; h++) {
            int d = 16 + 32 * h;
            assertThat(b.getUnsignedShortLE(d)).isEqualTo(h);                // PID
            assertThat(b.getUnsignedShortLE(d + 2)).isEqualTo(h);            // RUHID
            assertThat(b.getIntLE(d + 4)).isZero();                          // EARUTR
            assertThat(b.getLongLE(d + 8)).as("RUAMW %d", h).isEqualTo(h == 2 ? 64 - 5 : 64);
        }
        for (int i = 16 + 8 * 32; i < length; i++) {
            assertThat(b.getByte(i)).isZero();
        }
        r.release();
        // a window shorter than the structure is cut; MO other than 01h is Invalid Field
        TestSupport.Reply cut = host.io(io, ruhStatus(host, 1, 1, 16), null);
        assertThat(cut.data().readableBytes()).isEqualTo(16);
        assertThat(cut.data().getUnsignedShortLE(14)).isEqualTo(8);
        cut.release();
        assertThat(host.io(io, ruhStatus(host, 1, 0, 64), null).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(host.io(io, ruhStatus(host, 1, 2, 64), null).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(host.io(io, ruhStatus(host, 9, 1, 64), null).status())
                .isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
    }

    @Test
    void ruhUpdateGivesTheHandlesFreshUnitsAndRefusesUnknownIdentifiers() {
        TestHost host = host(spec(1, 4096, 8), spec(2, 4096, 0));
        NvmeQueue io = host.connectIo(1);
        for (int h : new int[] {1, 7}) {
            assertThat(host.io(io, directive(TestHost.rw(NvmOpcode.WRITE, host.nextCid(), 1, 100L * h, 3, 4096,
                    false), 2, h), Unpooled.wrappedBuffer(new byte[3 * 4096])).status()).isEqualTo(NvmeStatus.SUCCESS);
        }
        // an identifier one past the last handle fails the whole command: no handle updated
        assertThat(host.io(io, ruhUpdate(host, 1, 1, 2), pids(1, 8)).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(available(host, io, 1)).isEqualTo(61);
        assertThat(host.io(io, ruhUpdate(host, 1, 1, 2), pids(1, 7)).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(available(host, io, 1)).isEqualTo(64);
        assertThat(available(host, io, 7)).isEqualTo(64);
        assertThat(host.io(io, ruhUpdate(host, 1, 2, 1), pids(0)).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(host.io(io, ruhUpdate(host, 1, 1, 2), pids(0)).status()).isEqualTo(NvmeStatus.DATA_TRANSFER_ERROR);
        assertThat(host.io(io, ruhUpdate(host, 2, 1, 1), pids(0)).status()).isEqualTo(NvmeStatus.FDP_DISABLED);
        assertThat(host.io(io, ruhStatus(host, 2, 1, 64), null).status()).isEqualTo(NvmeStatus.FDP_DISABLED);
        // the closed units were not full: host events 00h in log 23h (LSP 1), none among controller events
        TestSupport.Reply events = logPage(host, 0x23, 1, 1, 4096);
        ByteBuf b = events.data();
        assertThat(b.getIntLE(0)).isEqualTo(2);                              // NEVENTS
        List<Integer> handles = new ArrayList<>();
        for (int e = 0; e < 2; e++) {
            int at = 64 + 64 * e;
            assertThat(b.getUnsignedByte(at)).isZero();                      // FDPET 00h
            assertThat(b.getUnsignedByte(at + 1)).isEqualTo((short) 0x7);    // PIV, NSIDV, LV
            handles.add(b.getUnsignedShortLE(at + 2));                       // PID
            assertThat(b.getIntLE(at + 12)).isEqualTo(1);                    // NSID
            assertThat(b.getUnsignedByte(at + 34)).isEqualTo((short) (int) handles.get(e)); // RUHID
        }
        assertThat(handles).containsExactly(1, 7);
        events.release();
        TestSupport.Reply controller = logPage(host, 0x23, 0, 1, 64);
        assertThat(controller.data().getIntLE(0)).isZero();
        controller.release();
        // the group of a namespace without placement has FDP disabled
        assertThat(logPage(host, 0x22, 0, 2, 64).status()).isEqualTo(NvmeStatus.FDP_DISABLED);
    }

    private long available(TestHost host, NvmeQueue io, int handle) {
        TestSupport.Reply r = host.io(io, ruhStatus(host, 1, 1, 16 + 8 * 32), null);
        try {
            return r.data().getLongLE(16 + 32 * handle + 8);
        } finally {
            r.release();
        }
    }

    /** The Invalid Placement Identifier ring keeps the newest 63 (the FDP Events log's limit): 63 fit, a 64th drops one. */
    @Test
    void invalidIdentifierEventsAreBounded() {
        Fdp.InvalidIdentifiers ring = new Fdp.InvalidIdentifiers();
        for (int i = 0; i < 63; i++) {
            ring.add(100 + i, i);
        }
        assertThat(ring.list()).hasSize(63);
        assertThat(ring.list().getFirst()).containsExactly(100, 0);
        ring.add(999, 63);
        assertThat(ring.list()).hasSize(63);
        assertThat(ring.list().getFirst()).containsExactly(101, 1);
        assertThat(ring.list().getLast()).containsExactly(999, 63);
    }

    /** Copy (TP4146): the destination is placed by DTYPE 2 / DSPEC like a Write; an unknown identifier: handle 0. */
    @Test
    void copyDestinationIsPlacedByDspec() {
        NamespaceSpec spec = spec(1, 4096, 4);
        Placement placement = spec.state().placement();
        TestHost host = host(spec);
        NvmeQueue io = host.connectIo(1);
        assertThat(host.write(io, 1, 0, new byte[4 * 4096], 4096, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        for (int[] c : new int[][] {{100, 3}, {200, 4}}) {
            ByteBuf ranges = Unpooled.buffer();
            new io.blocktarget.protocol.nvme.CopyCommand.SourceRange(0, 1).encode(ranges);   // 2 blocks from LBA 0
            Sqe copy = new io.blocktarget.protocol.nvme.CopyCommand(host.nextCid(), 1, c[0], 0, 0, false, false,
                    SglDescriptor.inCapsule(0, ranges.readableBytes())).toSqe();
            assertThat(host.io(io, directive(copy, 2, c[1]), ranges).status()).isEqualTo(NvmeStatus.SUCCESS);
        }
        List<Long> bytes = new ArrayList<>();
        placement.stats().handles().forEach(s -> bytes.add(s.hostBytes()));
        assertThat(bytes).containsExactly((4L + 2) * 4096, 0L, 0L, 2L * 4096);
    }

    /**
     * Writes land on the handle DSPEC names with DTYPE 2; without the directive, with another directive type or with
     * an identifier past the last handle they land on handle 0; Write Zeroes likewise; DEAC deallocates.
     */
    @Test
    void writesArePlacedByDtypeAndDspec() {
        NamespaceSpec spec = spec(1, 512, 4);
        Placement placement = spec.state().placement();
        TestHost host = host(spec);
        NvmeQueue io = host.connectIo(1);
        byte[] two = new byte[2 * 512];
        Sqe plain = TestHost.rw(NvmOpcode.WRITE, host.nextCid(), 1, 0, 2, 512, false);
        assertThat(host.io(io, plain, Unpooled.wrappedBuffer(two)).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(io, directive(TestHost.rw(NvmOpcode.WRITE, host.nextCid(), 1, 2, 2, 512, false), 2, 3),
                Unpooled.wrappedBuffer(two)).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(io, directive(TestHost.rw(NvmOpcode.WRITE, host.nextCid(), 1, 4, 2, 512, false), 2, 4),
                Unpooled.wrappedBuffer(two)).status()).isEqualTo(NvmeStatus.SUCCESS);          // one past: handle 0
        assertThat(host.io(io, directive(TestHost.rw(NvmOpcode.WRITE, host.nextCid(), 1, 6, 2, 512, false), 1, 3),
                Unpooled.wrappedBuffer(two)).status()).isEqualTo(NvmeStatus.SUCCESS);          // streams: handle 0
        Sqe zeroes = Sqe.of(NvmOpcode.WRITE_ZEROES.code(), host.nextCid(), 1, SglDescriptor.transportDataBlock(0),
                8, 0, 3 | 2 << 20, 1 << 16);                                                   // 4 blocks, handle 1
        assertThat(host.io(io, zeroes, null).status()).isEqualTo(NvmeStatus.SUCCESS);
        List<Long> host0 = new ArrayList<>();
        placement.stats().handles().forEach(s -> host0.add(s.hostBytes()));
        assertThat(host0).containsExactly(6L * 512, 4L * 512, 0L, 2L * 512);
        // DEAC: deallocated, not written
        Sqe deac = Sqe.of(NvmOpcode.WRITE_ZEROES.code(), host.nextCid(), 1, SglDescriptor.transportDataBlock(0),
                0, 0, 1 | 1 << 25);
        assertThat(host.io(io, deac, null).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(placement.stats().total().hostBytes()).isEqualTo(12L * 512);
        // the identifier one past the last handle is host event 03h (PIV, NSIDV; no reclaim unit handle: LV clear)
        TestSupport.Reply events = logPage(host, 0x23, 1, 1, 4096);
        ByteBuf b = events.data();
        assertThat(b.getIntLE(0)).isEqualTo(1);
        assertThat(b.getUnsignedByte(64)).isEqualTo((short) 0x03);
        assertThat(b.getUnsignedByte(65)).isEqualTo((short) 0x03);
        assertThat(b.getUnsignedShortLE(66)).isEqualTo(4);
        assertThat(b.getIntLE(76)).isEqualTo(1);
        for (int i = 80; i < 128; i++) {
            assertThat(b.getByte(i)).as("byte %d", i).isZero();
        }
        events.release();
    }
}
