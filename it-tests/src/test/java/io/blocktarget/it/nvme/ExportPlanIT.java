package io.blocktarget.it.nvme;

import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.DhchapSecret;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.it.iscsi.IscsiTestInitiator;
import io.blocktarget.nvme.DhchapCrypto;
import io.blocktarget.nvme.DhchapKeys;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.Dhchap;
import io.blocktarget.protocol.nvme.DiscoveryLog;
import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.PropertyCommand;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.server.ControlPlane;
import io.blocktarget.server.ExportPlan;
import io.blocktarget.server.TargetServer;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 25 end to end with the Java initiators over loopback. Start-up is "apply the plan to an empty server": a
 * server started with a config directory and a server started with another configuration, then reloaded to that
 * directory (every kind of change on the way: replace, grow, re-export, add, remove, retune, access, discovery CHAP)
 * have equal plans and look the same to initiators — SendTargets, REPORT LUNS, INQUIRY (standard and VPD pages), READ
 * CAPACITY, the discovery log, Identify Controller / Namespace / active namespaces / descriptors. Discovery CHAP and
 * DH-HMAC-CHAP keys change at runtime through a reload, and only the subsystem whose keys changed is touched.
 */
@Tag("loopback")
class ExportPlanIT {
    private static final String IQN = ServerConfig.DEFAULT_IQN_PREFIX;
    private static final String NQN = ServerConfig.DEFAULT_NQN_PREFIX;
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:25252525-1111-4222-8333-444455556666";
    private static final String INITIATOR = "iqn.2026-11.org.example:java-initiator";

    @TempDir
    Path tmp;
    private long isid = 0x400000250001L;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    /** The command line's ports, as serve applies them to blocktarget.yaml (start and every reload). */
    private static UnaryOperator<ServerConfig> ports(int iscsi, int nvme) {
        return s -> s.withBindAddress("127.0.0.1").withIscsiPort(iscsi).withNvmePort(nvme).withDiscoveryPort(0);
    }

    private static final String SHARED = "export: {iscsi: {target: " + IQN + "shared, lun: %d}, nvme: {subsystem: "
            + NQN + "shared, nsid: %d}}\n";

    /** The configuration both servers end up serving. */
    private void target(Path dir) throws IOException {
        write(dir.resolve("disco.secret"), "discovery-secret-1\n");
        write(dir.resolve("blocktarget.yaml"), "memory-budget: 256MiB\n"
                + "discovery-chap: {user: disco, secret-file: disco.secret}\n");
        Path luns = dir.resolve("luns.d");
        write(luns.resolve("alpha.yaml"), "backend: ram\nsize: 16MiB\n" + SHARED.formatted(0, 1));
        write(luns.resolve("beta.yaml"), "backend: ram\nsize: 16MiB\nlogical-block-size: 4KiB\n"
                + SHARED.formatted(1, 2));
        write(luns.resolve("gamma.yaml"), "backend: ram\nsize: 32MiB\nlogical-block-size: 16KiB\n");
        write(luns.resolve("delta.yaml"), "backend: null\nsize: 8MiB\nexport: {iscsi: {target: " + IQN + "moved, lun: 2},"
                + " nvme: false}\n");
        write(luns.resolve("eps.yaml"), "backend: ram\nsize: 8MiB\nexport: {iscsi: false}\n"
                + "access: {hosts: [\"" + HOST + "\"]}\n");
        write(luns.resolve("secure.yaml"), "backend: ram\nsize: 8MiB\naccess: {initiators: [\"" + INITIATOR
                + "\"], hosts: [\"" + HOST + "\"]}\nidentity: {serial: SECURE-25}\n");
    }

    /** Where the second server starts from: every LUN of {@link #target} differs in one way, one LUN more. */
    private void start(Path dir) throws IOException {
        write(dir.resolve("blocktarget.yaml"), "memory-budget: 128MiB\n");
        Path luns = dir.resolve("luns.d");
        write(luns.resolve("alpha.yaml"), "backend: ram\nsize: 16MiB\n" + SHARED.formatted(0, 1));
        write(luns.resolve("beta.yaml"), "backend: ram\nsize: 16MiB\n" + SHARED.formatted(1, 2));
        write(luns.resolve("gamma.yaml"), "backend: ram\nsize: 16MiB\nlogical-block-size: 16KiB\n");
        write(luns.resolve("delta.yaml"), "backend: null\nsize: 8MiB\nexport: {nvme: false}\n");
        write(luns.resolve("old.yaml"), "backend: ram\nsize: 8MiB\n");
        write(luns.resolve("secure.yaml"), "backend: ram\nsize: 8MiB\naccess: {initiators: [\"iqn.2026-11.org.example:"
                + "other\"], hosts: [\"nqn.2026-11.org.example:other\"]}\n");
    }

    @Test
    void startUpAndRuntimeApplyOfOneConfigurationExportTheSame() throws Exception {
        Path dir = tmp.resolve("config");
        Path other = tmp.resolve("other");
        target(dir);
        start(other);
        int iscsiA = freePort();
        int nvmeA = freePort();
        int iscsiB = freePort();
        int nvmeB = freePort();
        BlocktargetConfig loaded = ConfigLoader.load(dir);
        TargetServer a = new TargetServer(loaded.withServer(ports(iscsiA, nvmeA).apply(loaded.server())),
                Optional.of(dir), ports(iscsiA, nvmeA));
        BlocktargetConfig first = ConfigLoader.load(other);
        // B serves the other configuration, but its config directory (what reload reads) is A's
        TargetServer b = new TargetServer(first.withServer(ports(iscsiB, nvmeB).apply(first.server())),
                Optional.of(dir), ports(iscsiB, nvmeB));
        a.start();
        try {
            b.start();
            try {
                ControlPlane.ApplyResult changed = b.controlPlane().reload(ControlPlane.ApplyOptions.FORCE);
                assertThat(changed.added()).containsExactly("eps");
                assertThat(changed.removed()).containsExactly("old");
                assertThat(changed.replaced()).containsExactly("beta");
                assertThat(changed.resized()).containsExactly("gamma");
                assertThat(changed.reexported()).containsExactly("delta");
                assertThat(changed.retuned()).containsExactly("secure");
                assertThat(changed.changes()).extracting(c -> c.lun()).doesNotContain("alpha");
                assertThat(changed.steps()).contains("memory budget: 128 MiB -> 256 MiB",
                        "iSCSI discovery CHAP: none -> user disco (new discovery sessions)");

                ExportPlan plan = a.plan();
                assertThat(b.plan().exports()).isEqualTo(plan.exports());
                assertThat(sendTargets(iscsiB)).isEqualTo(sendTargets(iscsiA))
                        .anyMatch(t -> t.startsWith("TargetName=" + IQN + "moved\n"))
                        .hasSize(plan.targets().size());
                for (var target : plan.targets().values()) {
                    Map<String, String> view = scsiView(iscsiA, target.name());
                    assertThat(view).as(target.name()).doesNotContainValue("-")
                            .hasSize(1 + 6 * target.luns().size());
                    assertThat(scsiView(iscsiB, target.name())).as(target.name()).isEqualTo(view);
                }
                List<DiscoveryLog.Entry> log = discoveryLog(nvmeA);
                assertThat(discoveryLog(nvmeB)).isEqualTo(log);
                assertThat(log).extracting(DiscoveryLog.Entry::subnqn).containsAll(plan.subsystems().keySet());
                for (var subsystem : plan.subsystems().values()) {
                    Map<String, String> view = nvmeView(nvmeA, subsystem.nqn());
                    assertThat(view).as(subsystem.nqn()).hasSize(2 + 2 * subsystem.namespaces().size());
                    assertThat(nvmeView(nvmeB, subsystem.nqn())).as(subsystem.nqn()).isEqualTo(view);
                }
            } finally {
                b.stop();
            }
        } finally {
            a.stop();
        }
    }

    private synchronized IscsiTestInitiator iscsi(int port) throws IOException {
        return IscsiTestInitiator.connect(new InetSocketAddress("127.0.0.1", port), isid++);
    }

    private static final IscsiTestInitiator.ChapSecrets DISCO = new IscsiTestInitiator.ChapSecrets("disco",
            "discovery-secret-1", null, null);

    /**
     * SendTargets=All after a discovery login with the discovery CHAP: each target with its addresses, the port made
     * neutral, by target name (the order is the order targets were added, which differs between the two servers).
     */
    private List<String> sendTargets(int port) throws IOException {
        String text;
        try (IscsiTestInitiator i = iscsi(port)) {
            i.login(null, DISCO);
            text = i.sendTargets("All").replace(":" + port + ",", ":PORT,");
            i.logout();
        }
        List<String> targets = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("TargetName=") || targets.isEmpty()) {
                targets.add(line);
            } else {
                targets.set(targets.size() - 1, targets.getLast() + "\n" + line);
            }
        }
        targets.sort(null);
        return targets;
    }

    /** What one target shows: REPORT LUNS, then per LUN INQUIRY (standard, VPD 00/80/83/B0) and READ CAPACITY(16). */
    private Map<String, String> scsiView(int port, String target) throws IOException {
        Map<String, String> view = new LinkedHashMap<>();
        try (IscsiTestInitiator i = iscsi(port)) {
            i.login(target, null);
            byte[] reportLuns = new byte[12];
            reportLuns[0] = (byte) 0xA0;
            reportLuns[9] = (byte) 0xFF;
            IscsiTestInitiator.Result luns = i.command(0, reportLuns, 255, null);
            view.put("REPORT LUNS", hex(luns.data()));
            ByteBuffer list = ByteBuffer.wrap(luns.data());
            int count = list.getInt(0) / 8;
            for (int n = 0; n < count; n++) {
                long lun = list.getLong(8 + 8 * n);
                for (int attempt = 0; attempt < 4 && i.command(lun, new byte[6], 0, null).status() != 0; attempt++) {
                    // unit attentions of a new nexus (POWER ON): cleared by TEST UNIT READY
                }
                view.put(lun + " INQUIRY", hex(i.command(lun, inquiry(false, 0), 255, null).data()));
                for (int page : new int[] {0x00, 0x80, 0x83, 0xB0}) {
                    view.put(lun + " VPD " + page, hex(i.command(lun, inquiry(true, page), 255, null).data()));
                }
                byte[] rc16 = new byte[16];
                rc16[0] = (byte) 0x9E;
                rc16[1] = 0x10;
                rc16[13] = 32;
                view.put(lun + " READ CAPACITY(16)", hex(i.command(lun, rc16, 32, null).data()));
            }
            i.logout();
        }
        return view;
    }

    private static byte[] inquiry(boolean evpd, int page) {
        return new byte[] {0x12, (byte) (evpd ? 1 : 0), (byte) page, 0, (byte) 255, 0};
    }

    private static String hex(byte[] data) {
        return data == null ? "-" : java.util.HexFormat.of().formatHex(data);
    }

    /** The discovery log's entries (not its GENCTR: the two servers made different numbers of changes), port neutral. */
    private static List<DiscoveryLog.Entry> discoveryLog(int port) throws IOException {
        try (NvmeTcpTestHost d = NvmeTcpTestHost.open(port, false, false)) {
            d.hostnqn = HOST;
            NvmeTcpTestHost.require(d.connect(DiscoveryLog.DISCOVERY_NQN, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0),
                    "discovery Connect");
            d.enable();
            NvmeTcpTestHost.Reply log = d.getLogPage(0x70, 0, 16 * 1024);
            NvmeTcpTestHost.require(log, "discovery log");
            var buf = Unpooled.wrappedBuffer(log.data());
            long records = buf.getLongLE(8);
            List<DiscoveryLog.Entry> entries = new ArrayList<>();
            for (int n = 0; n < records; n++) {
                DiscoveryLog.Entry e = DiscoveryLog.Entry.get(buf, DiscoveryLog.HEADER_SIZE + n * DiscoveryLog.ENTRY_SIZE);
                assertThat(e.trsvcid()).isEqualTo(Integer.toString(port));
                entries.add(new DiscoveryLog.Entry(e.trtype(), e.adrfam(), e.subtype(), e.treq(), e.portid(), e.cntlid(),
                        e.asqsz(), e.eflags(), "PORT", e.subnqn(), e.traddr(), e.sectype()));
            }
            entries.sort(java.util.Comparator.comparing(DiscoveryLog.Entry::subnqn));
            return entries;
        }
    }

    /** Identify Controller, the active namespace list, and per namespace Identify Namespace and its descriptors. */
    private static Map<String, String> nvmeView(int port, String nqn) throws IOException {
        Map<String, String> view = new TreeMap<>();
        try (NvmeTcpTestHost h = NvmeTcpTestHost.open(port, false, false)) {
            h.hostnqn = HOST;
            NvmeTcpTestHost.require(h.connect(nqn, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0), "admin Connect");
            h.enable();
            view.put("controller", hex(identify(h, IdentifyCommand.CNS_CONTROLLER, 0)));
            byte[] active = identify(h, IdentifyCommand.CNS_ACTIVE_NAMESPACES, 0);
            view.put("active", hex(active));
            ByteBuffer list = ByteBuffer.wrap(active).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            for (int n = 0; n < 1024 && list.getInt(4 * n) != 0; n++) {
                int nsid = list.getInt(4 * n);
                view.put(nsid + " namespace", hex(identify(h, IdentifyCommand.CNS_NAMESPACE, nsid)));
                view.put(nsid + " descriptors", hex(identify(h, IdentifyCommand.CNS_NAMESPACE_DESCRIPTORS, nsid)));
            }
        }
        return view;
    }

    private static byte[] identify(NvmeTcpTestHost h, int cns, int nsid) throws IOException {
        NvmeTcpTestHost.Reply r = h.execute(new IdentifyCommand(0, nsid, cns, 0, 0, 0, 0, null).toSqe(), null,
                IdentifyCommand.DATA_SIZE);
        NvmeTcpTestHost.require(r, "Identify CNS " + cns);
        return r.data();
    }

    // ---- keys changed at runtime ----------------------------------------------------------------------------

    /**
     * Discovery CHAP comes, changes its secret and goes through reloads of blocktarget.yaml; a rotated DH-HMAC-CHAP key
     * file applies to the next authentication of its subsystem only — the other subsystem and the controllers already
     * connected are not touched.
     */
    @Test
    void discoveryChapAndDhchapKeysChangeAtRuntime() throws Exception {
        Path dir = tmp.resolve("keys");
        int iscsi = freePort();
        int nvme = freePort();
        DhchapSecret key1 = DhchapSecret.of(1, DhchapCrypto.random(32));
        DhchapSecret key2 = DhchapSecret.of(1, DhchapCrypto.random(32));
        write(dir.resolve("blocktarget.yaml"), "memory-budget: 64MiB\n");
        write(dir.resolve("host.key"), key1.representation() + "\n");
        write(dir.resolve("luns.d/auth.yaml"), "backend: ram\nsize: 8MiB\nexport: {iscsi: false}\n"
                + "access: {dhchap: {host-secret-file: host.key}}\n");
        write(dir.resolve("luns.d/free.yaml"), "backend: ram\nsize: 8MiB\n");
        BlocktargetConfig loaded = ConfigLoader.load(dir);
        TargetServer server = new TargetServer(loaded.withServer(ports(iscsi, nvme).apply(loaded.server())),
                Optional.of(dir), ports(iscsi, nvme));
        server.start();
        try (NvmeTcpTestHost free = NvmeTcpTestHost.open(nvme, false, false);
             NvmeTcpTestHost authed = NvmeTcpTestHost.open(nvme, false, false)) {
            // discovery open: no CHAP needed
            discover(iscsi, null);

            write(dir.resolve("disco.secret"), "discovery-secret-1\n");
            write(dir.resolve("blocktarget.yaml"), "memory-budget: 64MiB\n"
                    + "discovery-chap: {user: disco, secret-file: disco.secret}\n");
            assertThat(server.controlPlane().reload().steps())
                    .containsExactly("iSCSI discovery CHAP: none -> user disco (new discovery sessions)");
            assertRefused(iscsi, null);
            discover(iscsi, DISCO);

            write(dir.resolve("disco.secret"), "discovery-secret-2\n");
            server.controlPlane().reload();
            assertRefused(iscsi, DISCO);
            discover(iscsi, new IscsiTestInitiator.ChapSecrets("disco", "discovery-secret-2", null, null));

            write(dir.resolve("blocktarget.yaml"), "memory-budget: 64MiB\n");
            server.controlPlane().reload();
            discover(iscsi, null);

            // a controller of each subsystem, connected (and authenticated) before the key changes
            free.hostnqn = HOST;
            NvmeTcpTestHost.require(free.connect(NQN + "free", 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0), "Connect");
            free.enable();
            authed.hostnqn = HOST;
            NvmeTcpTestHost.require(authed.connect(NQN + "auth", 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0), "Connect");
            assertThat(authenticate(authed, NQN + "auth", key1)).isTrue();
            authed.enable();

            write(dir.resolve("host.key"), key2.representation() + "\n");
            ControlPlane.ApplyResult rotated = server.controlPlane().reload();
            // the path is unchanged, its content is not: one in-place key change, which never shows the secret
            assertThat(rotated.changes()).singleElement().satisfies(c -> {
                assertThat(c.lun()).isEqualTo("auth");
                assertThat(c.keys()).singleElement().satisfies(k -> {
                    assertThat(k.key()).isEqualTo("access.dhchap.host-secret-file");
                    assertThat(k.rule()).isEqualTo(io.blocktarget.config.ChangeRule.IN_PLACE);
                    assertThat(k.after()).endsWith("host.key (new content)")
                            .doesNotContain(key1.representation()).doesNotContain(key2.representation());
                });
            });
            assertThat(rotated.steps()).containsExactly("NVMe subsystem " + NQN
                    + "auth: DH-HMAC-CHAP keys -> new keys (new Connects; connected controllers stay)");
            try (NvmeTcpTestHost h = admin(nvme, NQN + "auth")) {
                assertThat(authenticate(h, NQN + "auth", key1)).as("the old key").isFalse();
            }
            try (NvmeTcpTestHost h = admin(nvme, NQN + "auth")) {
                assertThat(authenticate(h, NQN + "auth", key2)).as("the new key").isTrue();
            }
            assertThat(free.keepAlive().ok()).as("the other subsystem's controller").isTrue();
            assertThat(authed.keepAlive().ok()).as("a controller authenticated before").isTrue();
        } finally {
            server.stop();
        }
    }

    private void discover(int port, IscsiTestInitiator.ChapSecrets chap) throws IOException {
        try (IscsiTestInitiator i = iscsi(port)) {
            i.login(null, chap);
            assertThat(i.sendTargets("All")).contains("TargetName=" + IQN + "free");
            i.logout();
        }
    }

    private void assertRefused(int port, IscsiTestInitiator.ChapSecrets chap) throws IOException {
        try (IscsiTestInitiator i = iscsi(port)) {
            assertThatThrownBy(() -> i.login(null, chap)).isInstanceOf(IOException.class)
                    .hasMessage("login refused: " + LoginStatus.AUTHENTICATION_FAILURE);
        }
    }

    private static NvmeTcpTestHost admin(int port, String nqn) throws IOException {
        NvmeTcpTestHost h = NvmeTcpTestHost.open(port, false, false);
        h.hostnqn = HOST;
        NvmeTcpTestHost.Reply connect = h.connect(nqn, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0);
        NvmeTcpTestHost.require(connect, "admin Connect");
        assertThat(connect.cqe().dw0() & Dhchap.CONNECT_ATR).as("authentication required").isEqualTo(Dhchap.CONNECT_ATR);
        return h;
    }

    private static Sqe auth(FabricsCommandType type, int length) {
        return new Sqe(Sqe.OPCODE_FABRICS, 0, Sqe.PSDT_SGL_MPTR_ADDRESS, 0, type.code(), 0, 0, 0, null,
                Dhchap.cdw10(), length, 0, 0, 0, 0);
    }

    /** One unidirectional DH-HMAC-CHAP transaction (SHA-256, ffdhe2048) proving {@code key}; true on Success1. */
    private static boolean authenticate(NvmeTcpTestHost h, String nqn, DhchapSecret key) throws Exception {
        byte[] negotiate = new Dhchap.Negotiate(5, 0, List.of(1), List.of(0, 1)).encode();
        NvmeTcpTestHost.require(h.execute(auth(FabricsCommandType.AUTHENTICATION_SEND, negotiate.length), negotiate, 0),
                "negotiate");
        NvmeTcpTestHost.Reply challenge = h.execute(auth(FabricsCommandType.AUTHENTICATION_RECEIVE, 4096), null, 4096);
        NvmeTcpTestHost.require(challenge, "challenge");
        Dhchap.Challenge c = Dhchap.Challenge.parse(challenge.data());
        DhchapCrypto.DhGroup g = DhchapCrypto.group(c.dhGroupId()).orElseThrow();
        KeyPair pair = g.generate();
        byte[] session = g.sessionKey(pair, c.dhValue()).orElseThrow();
        byte[] r1 = DhchapCrypto.hostResponse(1, DhchapCrypto.transformKey(new DhchapKeys.Key(key.transform(),
                key.key()), h.hostnqn), DhchapCrypto.augmentedChallenge(1, session, c.c1()), c.seqnum(), 5, h.hostnqn,
                nqn);
        byte[] reply = new Dhchap.Reply(5, false, 0, r1, DhchapCrypto.random(32), g.publicValue(pair)).encode();
        NvmeTcpTestHost.require(h.execute(auth(FabricsCommandType.AUTHENTICATION_SEND, reply.length), reply, 0),
                "reply");
        NvmeTcpTestHost.Reply outcome = h.execute(auth(FabricsCommandType.AUTHENTICATION_RECEIVE, 4096), null, 4096);
        NvmeTcpTestHost.require(outcome, "outcome");
        boolean success = Dhchap.id(outcome.data()) == Dhchap.ID_SUCCESS1;
        if (!success) {
            assertThat(h.execute(new PropertyCommand(0, FabricsCommandType.PROPERTY_GET, ControllerRegister.CAP, 0)
                    .toSqe(), null, 0).is(NvmeStatus.AUTHENTICATION_REQUIRED)).as("locked after a failure").isTrue();
        }
        return success;
    }
}
