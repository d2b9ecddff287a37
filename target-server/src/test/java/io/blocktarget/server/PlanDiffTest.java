package io.blocktarget.server;

import io.blocktarget.config.BackendKind;
import io.blocktarget.config.ChangeRule;
import io.blocktarget.config.ChapConfig;
import io.blocktarget.config.ConfigDiff;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.ControlConfig;
import io.blocktarget.config.DhchapSecret;
import io.blocktarget.config.KeyChange;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.LunWriter;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.config.TlsPsk;
import io.blocktarget.server.Step.Via;
import io.blocktarget.server.Step.Why;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PlanDiff} without a server: every key × every change kind. Each LUN key is changed on a LUN that has every
 * section (knobs, faults, access), the rule {@link ConfigDiff} gives it is read (not assumed: the key table decides),
 * and the steps must be the ones that rule means; the same for every server key. Then the change kinds across LUNs,
 * targets and subsystems (add, remove, a target or subsystem coming and going, LUN numbers swapped, secrets rotated in
 * the same file) and the order of the steps.
 *
 * <p>The key lists below are representative, a few per rule; when the config module's key table exposes every key,
 * {@link #lunKeyCases} and {@link #serverKeyCases} should be derived from it (a case per key and a value of its type).
 */
class PlanDiffTest {
    private static final String IQN = ServerConfig.DEFAULT_IQN_PREFIX;
    private static final String NQN = ServerConfig.DEFAULT_NQN_PREFIX;

    @TempDir
    Path dir;
    private ServerConfig server;

    @BeforeEach
    void files() throws Exception {
        Files.writeString(dir.resolve("chap-a"), "initiator-secret-1\n");
        Files.writeString(dir.resolve("chap-b"), "initiator-secret-2\n");
        Files.writeString(dir.resolve("dhchap-a"), DhchapSecret.of(0, bytes(32, 1)).representation() + "\n");
        Files.writeString(dir.resolve("dhchap-b"), DhchapSecret.of(1, bytes(32, 2)).representation() + "\n");
        Files.writeString(dir.resolve("psk-a"), TlsPsk.of(1, bytes(32, 3)).interchange() + "\n");
        Files.writeString(dir.resolve("psk-b"), TlsPsk.of(1, bytes(32, 4)).interchange() + "\n");
        server = ConfigLoader.embeddedDefault().server();
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    /** A RAM LUN with every section: knobs, faults, access on both protocols. */
    private static final String RAM = """
            {"backend": "ram", "size": "1MiB", "logical-block-size": 512,
             "access": {"initiators": ["iqn.2026-11.test:init-1"], "hosts": ["nqn.2026-11.test:host-1"],
                        "chap": {"user": "alice", "secret-file": "chap-a"},
                        "dhchap": {"host-secret-file": "dhchap-a"}},
             "limits": {"max-transfer": "512KiB"}, "identity": {"serial": "SN-1"},
             "session": {"queue-depth": 64},
             "faults": [{"lba": 7, "action": "busy"}]}""";

    /** A file LUN (4 KiB blocks: O_DIRECT stays possible). */
    private static final String FILE = """
            {"backend": "file", "path": "t.img", "create": true, "size": "1MiB", "logical-block-size": 4096}""";

    private LunConfig lun(String name, String json) throws Exception {
        return ConfigLoader.readLun(name, json, Optional.of(dir), server, List.of());
    }

    /** {@code a} with an RFC 7386 merge patch applied to its document, read back as the config module reads it. */
    private LunConfig patched(LunConfig a, String patch) throws Exception {
        JsonObject doc = new JsonObject(LunWriter.document(a, server));
        return lun(a.name(), merge(doc, new JsonObject(patch)).encode());
    }

    private static JsonObject merge(JsonObject target, JsonObject patch) {
        JsonObject result = target.copy();
        for (String key : patch.fieldNames()) {
            Object value = patch.getValue(key);
            if (value == null) {
                result.remove(key);
            } else if (value instanceof JsonObject o && result.getValue(key) instanceof JsonObject e) {
                result.put(key, merge(e, o));
            } else {
                result.put(key, value);
            }
        }
        return result;
    }

    private ExportPlan plan(LunConfig... luns) throws Exception {
        return ExportPlan.of(server, List.of(luns));
    }

    /**
     * One LUN key changed: {@code key} names it as the key table does, {@code base} is {@link #RAM} or {@link #FILE},
     * {@code patch} the merge patch that changes it.
     */
    record Case(String key, String base, String patch) {
    }

    /** Representative LUN keys, a few for each rule the interim key table gives (and every section). */
    static List<Case> lunKeyCases() {
        return List.of(
                new Case("size", RAM, "{\"size\": \"2MiB\"}"),
                new Case("size", RAM, "{\"size\": \"512KiB\"}"),
                new Case("size", FILE, "{\"size\": \"4MiB\"}"),
                new Case("logical-block-size", RAM, "{\"logical-block-size\": \"4KiB\"}"),
                new Case("physical-block-size", RAM, "{\"physical-block-size\": \"8KiB\"}"),
                new Case("backend", RAM, "{\"backend\": \"null\"}"),
                new Case("read-only", RAM, "{\"read-only\": true}"),
                new Case("read-only", FILE, "{\"read-only\": true}"),
                new Case("path", FILE, "{\"path\": \"u.img\"}"),
                new Case("direct-io", FILE, "{\"direct-io\": true}"),
                new Case("atomic", RAM, "{\"atomic\": {\"max-bytes\": \"4KiB\"}}"),
                new Case("zoned", RAM, "{\"zoned\": {\"zone-size\": \"256KiB\"}}"),
                new Case("export.iscsi", RAM, "{\"export\": {\"iscsi\": {\"target\": \"" + IQN + "other\", \"lun\": 3}}}"),
                new Case("export.iscsi", RAM, "{\"export\": {\"iscsi\": false},"
                        + " \"access\": {\"chap\": null, \"initiators\": null}}"),
                new Case("export.nvme", RAM, "{\"export\": {\"nvme\": {\"subsystem\": \"" + NQN + "t\", \"nsid\": 5}}}"),
                new Case("export.nvme", RAM, "{\"export\": {\"nvme\": {\"uuid\": "
                        + "\"91fdba0d-f87b-4c25-b80f-db7be1418b9e\"}}}"),
                new Case("access.initiators", RAM, "{\"access\": {\"initiators\": [\"iqn.2026-11.test:init-2\"]}}"),
                new Case("access.chap", RAM, "{\"access\": {\"chap\": {\"user\": \"bob\", \"secret-file\": \"chap-b\"}}}"),
                new Case("access.hosts", RAM, "{\"access\": {\"hosts\": null}}"),
                new Case("access.dhchap", RAM, "{\"access\": {\"dhchap\": {\"host-secret-file\": \"dhchap-b\"}}}"),
                new Case("access.tls", RAM, "{\"access\": {\"tls\": \"allowed\", \"tls-psk-file\": \"psk-a\"}}"),
                new Case("commands.write-same", RAM, "{\"commands\": {\"write-same\": true}}"),
                new Case("limits.max-transfer", RAM, "{\"limits\": {\"max-transfer\": \"1MiB\"}}"),
                new Case("rotational", RAM, "{\"rotational\": true}"),
                new Case("identity.serial", RAM, "{\"identity\": {\"serial\": \"SN-2\"}}"),
                new Case("session.queue-depth", RAM, "{\"session\": {\"queue-depth\": 8}}"),
                new Case("session.mdts", RAM, "{\"session\": {\"mdts\": \"64KiB\"}}"),
                new Case("faults", RAM, "{\"faults\": [{\"lba\": 9, \"action\": \"not-ready\"}]}"),
                new Case("faults", RAM, "{\"faults\": null}"));
    }

    /** Every LUN key case: the steps are those of the rule the key table gives, both ways, and nothing else. */
    @Test
    void everyLunKeyChangesAsItsRuleSays() throws Exception {
        Set<ChangeRule> seen = EnumSet.noneOf(ChangeRule.class);
        for (Case c : lunKeyCases()) {
            LunConfig a = lun("t", c.base());
            LunConfig b = patched(a, c.patch());
            List<KeyChange> keys = ConfigDiff.lun(a, server, b, server);
            assertThat(keys).as(c + ": the patch changes the key it names").extracting(KeyChange::key)
                    .anyMatch(k -> k.equals(c.key()) || k.startsWith(c.key() + "."));
            ChangeRule rule = ConfigDiff.strongest(keys).orElseThrow();
            seen.add(rule);
            checkRule(c + " (" + rule + ")", a, b, rule);
            checkRule(c + " reversed", b, a, ConfigDiff.strongest(ConfigDiff.lun(b, server, a, server)).orElseThrow());
            assertThat(PlanDiff.diff(plan(b), plan(b))).as(c + ": no change, no step").isEmpty();
        }
        assertThat(seen).as("the cases cover every rule a LUN key can have").contains(ChangeRule.IN_PLACE,
                ChangeRule.RESIZE, ChangeRule.REEXPORT, ChangeRule.REOPEN, ChangeRule.REPLACE);
    }

    /** The steps of one LUN changed from {@code a} to {@code b} whose strongest key rule is {@code rule}. */
    private void checkRule(String what, LunConfig a, LunConfig b, ChangeRule rule) throws Exception {
        PlanDiff.Result r = PlanDiff.of(plan(a), plan(b));
        List<Step> steps = r.steps();
        assertThat(r.notes()).as(what + ": the key table and the in-place steps agree").isEmpty();
        assertThat(steps).as(what).isNotEmpty();
        assertOrdered(what, steps);
        PlanDiff.LunChange change = r.luns().getFirst();
        assertThat(r.luns()).as(what).hasSize(1);
        assertThat(change.rule()).contains(rule);
        switch (rule) {
            case REPLACE, REOPEN -> {
                Why why = rule == ChangeRule.REPLACE ? Why.REPLACE : Why.REOPEN;
                assertThat(steps).as(what).containsExactly(new Step.OpenBackend(b, why), new Step.Unexport(a, why),
                        new Step.Export(b, why));
                assertThat(change.action()).isEqualTo(why == Why.REPLACE ? PlanDiff.Action.REPLACED
                        : PlanDiff.Action.REOPENED);
                assertThat(r.dataLoss()).as(what).hasSize(why == Why.REPLACE && a.backend() != BackendKind.FILE ? 1 : 0);
            }
            case RESIZE -> {
                assertThat(steps).as(what).first().isEqualTo(new Step.Resize(a, b));
                assertThat(steps).as(what).noneMatch(s -> s instanceof Step.OpenBackend || s instanceof Step.Unexport
                        || s instanceof Step.Export);
                assertThat(change.action()).isEqualTo(PlanDiff.Action.RESIZED);
                assertThat(r.dataLoss()).as(what).hasSize(b.size() < a.size() ? 1 : 0);
            }
            case REEXPORT -> {
                assertThat(steps).as(what).noneMatch(s -> s instanceof Step.OpenBackend || s instanceof Step.Resize);
                Set<Via> moved = EnumSet.noneOf(Via.class);
                if (!a.iscsi().equals(b.iscsi())) {
                    moved.add(Via.ISCSI);
                }
                if (!a.nvme().equals(b.nvme())) {
                    moved.add(Via.NVME);
                }
                Set<Via> out = EnumSet.copyOf(moved);
                out.retainAll(Via.of(a));
                Set<Via> in = EnumSet.copyOf(moved);
                in.retainAll(Via.of(b));
                List<Step> expected = new ArrayList<>();
                if (!out.isEmpty()) {
                    expected.add(new Step.Unexport(a, Why.REEXPORT, out));
                }
                if (!in.isEmpty()) {
                    expected.add(new Step.Export(b, Why.REEXPORT, in));
                }
                assertThat(steps).as(what).filteredOn(s -> s instanceof Step.Unexport || s instanceof Step.Export)
                        .containsExactlyElementsOf(expected);
                assertThat(change.action()).isEqualTo(PlanDiff.Action.REEXPORTED);
                assertThat(r.dataLoss()).as(what).isEmpty();
            }
            case IN_PLACE -> {
                assertThat(steps).as(what).allMatch(s -> s instanceof Step.Retune || s instanceof Step.SetTargetAccess
                        || s instanceof Step.SetSubsystemAccess);
                boolean knobs = !a.features().knobs().equals(b.features().knobs());
                boolean faults = !a.features().faults().equals(b.features().faults());
                if (knobs || faults) {
                    assertThat(steps).as(what).contains(new Step.Retune(a, b, knobs ? Via.of(a) : Set.of(), faults));
                }
                ExportPlan pa = plan(a);
                ExportPlan pb = plan(b);
                boolean target = !pa.targets().get(IQN + "t").access().equals(pb.targets().get(IQN + "t").access());
                boolean subsystem = !pa.subsystems().get(NQN + "t").access()
                        .equals(pb.subsystems().get(NQN + "t").access());
                assertThat(steps).as(what).filteredOn(s -> s instanceof Step.SetTargetAccess).hasSize(target ? 1 : 0);
                assertThat(steps).as(what).filteredOn(s -> s instanceof Step.SetSubsystemAccess)
                        .hasSize(subsystem ? 1 : 0);
                assertThat(change.action()).isEqualTo(PlanDiff.Action.RETUNED);
                assertThat(r.dataLoss()).as(what).isEmpty();
            }
            case RESTART -> throw new AssertionError(what + ": a LUN key that needs a restart");
        }
    }

    /** The order PlanDiff promises: what can fail first, then what initiators see, in the documented groups. */
    private static void assertOrdered(String what, List<Step> steps) {
        int last = -1;
        for (Step s : steps) {
            int group = switch (s) {
                case Step.OpenBackend o -> 0;
                case Step.Resize r -> r.shrink() ? 2 : 1;
                case Step.SetDiscoveryChap d -> 3;
                case Step.SetMemoryBudget m -> 3;
                case Step.Unexport u -> 4;
                case Step.SetTargetAccess t -> 5;
                case Step.SetSubsystemAccess t -> 5;
                case Step.Retune t -> 6;
                case Step.SetPaths p -> 6;
                case Step.Export x -> 7;
                case Step.RemoveTarget t -> 8;
                case Step.RemoveSubsystem t -> 8;
            };
            assertThat(group).as(what + ": " + s.describe() + " after a step of a later group").isGreaterThanOrEqualTo(last);
            last = group;
        }
    }

    /** The in-place steps' reach: exports, size, knobs, faults and access; anything else needs the device anew. */
    @Test
    void inPlaceCoversExactlyWhatTheInPlaceStepsChange() throws Exception {
        LunConfig a = lun("t", RAM);
        for (String patch : List.of("{\"size\": \"2MiB\"}", "{\"export\": {\"nvme\": false}, \"access\":"
                + " {\"hosts\": null, \"dhchap\": null}}",
                "{\"limits\": {\"max-transfer\": \"1MiB\"}}", "{\"faults\": null}", "{\"access\": {\"hosts\": null}}")) {
            assertThat(PlanDiff.inPlaceCovers(a, patched(a, patch))).as(patch).isTrue();
        }
        for (String patch : List.of("{\"read-only\": true}", "{\"logical-block-size\": 4096}", "{\"backend\": \"null\"}",
                "{\"atomic\": {\"max-bytes\": \"4KiB\"}}")) {
            assertThat(PlanDiff.inPlaceCovers(a, patched(a, patch))).as(patch).isFalse();
        }
    }

    /** A server key changed. */
    record ServerCase(String key, UnaryOperator<ServerConfig> change) {
    }

    private static ServerConfig budget(ServerConfig s, long bytes) {
        return new ServerConfig(s.source(), s.bindAddress(), s.iscsiPort(), s.nvmePort(), s.discoveryPort(), bytes,
                s.iqnPrefix(), s.nqnPrefix(), s.eventLoops(), s.poll(), s.control(), s.discoveryChap(),
                s.pollWindowNanos());
    }

    static List<ServerCase> serverKeyCases() {
        ChapConfig chap = new ChapConfig("disco", "discovery-secret", Optional.empty(), Optional.empty());
        return List.of(
                new ServerCase("bind", s -> s.withBindAddress("127.0.0.2")),
                new ServerCase("iscsi-port", s -> s.withIscsiPort(13260)),
                new ServerCase("nvme-port", s -> s.withNvmePort(14420)),
                new ServerCase("discovery-port", s -> s.withDiscoveryPort(0)),
                new ServerCase("event-loops", s -> s.withEventLoops(3)),
                new ServerCase("poll", s -> s.withPoll(true)),
                new ServerCase("poll-window", s -> s.withPollWindow(100_000)),
                new ServerCase("control-socket", s -> s.withControl(new ControlConfig(Optional.of(Path.of("/tmp/x.sock")),
                        Optional.empty(), Optional.empty()))),
                new ServerCase("memory-budget", s -> budget(s, 1L << 30)),
                new ServerCase("discovery-chap", s -> s.withDiscoveryChap(Optional.of(chap))));
    }

    /** Every server key: a restart rule is a warning and no step; discovery CHAP and the budget are steps. */
    @Test
    void everyServerKeyIsAStepOrARestartWarning() throws Exception {
        LunConfig lun = lun("t", RAM);
        for (ServerCase c : serverKeyCases()) {
            ServerConfig changed = c.change().apply(server);
            List<KeyChange> keys = ConfigDiff.server(server, changed);
            assertThat(keys).as(c.key()).isNotEmpty()   // a section's change is its keys' changes
                    .allSatisfy(k -> assertThat(k.key()).as(c.key()).matches(java.util.regex.Pattern.quote(c.key())
                            + "(\\..+)?"));
            ChangeRule rule = keys.getFirst().rule();
            PlanDiff.Result r = PlanDiff.of(ExportPlan.of(server, List.of(lun)), ExportPlan.of(changed, List.of(lun)));
            if (rule == ChangeRule.RESTART) {
                assertThat(r.steps()).as(c.key()).isEmpty();
                assertThat(r.restart()).as(c.key()).containsExactlyElementsOf(keys);
                assertThat(r.warnings()).as(c.key()).singleElement().asString().startsWith(c.key() + ": ")
                        .contains("takes effect when the server starts again");
                continue;
            }
            assertThat(r.restart()).as(c.key()).isEmpty();
            switch (c.key()) {
                case "memory-budget" -> assertThat(r.steps()).containsExactly(
                        new Step.SetMemoryBudget(server.memoryBudget(), 1L << 30));
                case "discovery-chap" -> assertThat(r.steps()).containsExactly(new Step.SetDiscoveryChap(
                        Optional.empty(), Optional.of(io.blocktarget.transport.iscsi.Chap.oneWay("disco",
                                "discovery-secret"))));
                default -> throw new AssertionError(c.key() + " applies at runtime (" + rule + ") but has no step");
            }
        }
    }

    /** A prefix is applied through the LUNs' derived exports: their export keys say re-export. */
    @Test
    void aPrefixChangeReexportsTheLunsThatDeriveTheirNames() throws Exception {
        LunConfig derived = lun("t", RAM);
        LunConfig named = lun("n", "{\"backend\": \"ram\", \"size\": \"1MiB\", \"export\": {\"iscsi\": {\"target\": \""
                + IQN + "fixed\", \"lun\": 0}, \"nvme\": {\"subsystem\": \"" + NQN + "fixed\", \"nsid\": 1}}}");
        ExportPlan before = plan(derived, named);
        ServerConfig other = new ServerConfig(null, server.bindAddress(), server.iscsiPort(), server.nvmePort(),
                server.discoveryPort(), server.memoryBudget(), "iqn.2027-01.test:", server.nqnPrefix(), 0, false,
                server.control(), Optional.empty());
        ServerConfig saved = server;
        server = other;
        LunConfig derivedAfter = lun("t", RAM);
        LunConfig namedAfter = patched(named, "{}");
        server = saved;
        PlanDiff.Result r = PlanDiff.of(before, ExportPlan.of(other, List.of(derivedAfter, namedAfter)));
        assertThat(r.luns()).extracting(c -> c.lun() + " " + c.action()).containsExactly("t REEXPORTED");
        assertThat(r.steps()).containsExactly(new Step.Unexport(derived, Why.REEXPORT, Set.of(Via.ISCSI)),
                new Step.Export(derivedAfter, Why.REEXPORT, Set.of(Via.ISCSI)),
                new Step.RemoveTarget(IQN + "t", before.targets().get(IQN + "t").access()));
    }

    /** Added and removed LUNs, targets and subsystems coming and going with them. */
    @Test
    void addAndRemoveBringTargetsAndSubsystemsWithThem() throws Exception {
        LunConfig a = lun("a", "{\"backend\": \"ram\", \"size\": \"1MiB\", \"export\": {\"iscsi\": {\"target\": \""
                + IQN + "shared\", \"lun\": 0}, \"nvme\": {\"subsystem\": \"" + NQN + "shared\", \"nsid\": 1}}}");
        LunConfig b = lun("b", "{\"backend\": \"ram\", \"size\": \"1MiB\", \"export\": {\"iscsi\": {\"target\": \""
                + IQN + "shared\", \"lun\": 1}, \"nvme\": {\"subsystem\": \"" + NQN + "shared\", \"nsid\": 2}}}");
        LunConfig own = lun("own", "{\"backend\": \"null\", \"size\": \"1MiB\"}");
        ExportPlan empty = ExportPlan.empty(server);

        assertThat(PlanDiff.diff(empty, plan(a, b))).containsExactly(new Step.OpenBackend(a, Why.ADD),
                new Step.OpenBackend(b, Why.ADD), new Step.Export(a, Why.ADD), new Step.Export(b, Why.ADD));
        assertThat(PlanDiff.diff(plan(a, b), plan(a))).as("the target keeps a LUN: it stays")
                .containsExactly(new Step.Unexport(b, Why.REMOVE));
        ExportPlan ab = plan(a, b);
        assertThat(PlanDiff.diff(ab, plan(own))).containsExactly(new Step.OpenBackend(own, Why.ADD),
                new Step.Unexport(a, Why.REMOVE), new Step.Unexport(b, Why.REMOVE), new Step.Export(own, Why.ADD),
                new Step.RemoveTarget(IQN + "shared", ab.targets().get(IQN + "shared").access()),
                new Step.RemoveSubsystem(NQN + "shared", ab.subsystems().get(NQN + "shared").access()));
        PlanDiff.Result removal = PlanDiff.of(plan(own), empty);
        assertThat(removal.luns()).extracting(c -> c.lun() + " " + c.action()).containsExactly("own REMOVED");
        assertThat(removal.dataLoss()).as("a removal is asked for by name: no --force").isEmpty();
    }

    /** Two LUNs trading their LUN numbers and NSIDs: every LUN leaves before any arrives, so neither collides. */
    @Test
    void lunsSwappingNumbersLeaveBeforeTheyArrive() throws Exception {
        String shared = "\"export\": {\"iscsi\": {\"target\": \"" + IQN + "s\", \"lun\": %d}, \"nvme\": {\"subsystem\": \""
                + NQN + "s\", \"nsid\": %d}}";
        LunConfig x = lun("x", "{\"backend\": \"ram\", \"size\": \"1MiB\", " + shared.formatted(0, 1) + "}");
        LunConfig y = lun("y", "{\"backend\": \"ram\", \"size\": \"1MiB\", " + shared.formatted(1, 2) + "}");
        LunConfig x2 = lun("x", "{\"backend\": \"ram\", \"size\": \"1MiB\", " + shared.formatted(1, 2) + "}");
        LunConfig y2 = lun("y", "{\"backend\": \"ram\", \"size\": \"1MiB\", " + shared.formatted(0, 1) + "}");
        assertThat(PlanDiff.diff(plan(x, y), plan(x2, y2))).containsExactly(
                new Step.Unexport(x, Why.REEXPORT, Set.of(Via.ISCSI, Via.NVME)),
                new Step.Unexport(y, Why.REEXPORT, Set.of(Via.ISCSI, Via.NVME)),
                new Step.Export(x2, Why.REEXPORT, Set.of(Via.ISCSI, Via.NVME)),
                new Step.Export(y2, Why.REEXPORT, Set.of(Via.ISCSI, Via.NVME)));
    }

    /**
     * A secret rotated in the file the LUN names: the key's file is the same, its content not — ConfigDiff says so
     * ("(new content)", in place) and the target / subsystem get new credentials; nothing else happens to the LUN.
     */
    @Test
    void aSecretRotatedInItsFileChangesOnlyTheAccess() throws Exception {
        LunConfig before = lun("t", RAM);
        Files.writeString(dir.resolve("chap-a"), "initiator-secret-9\n");
        Files.writeString(dir.resolve("dhchap-a"), DhchapSecret.of(0, bytes(32, 9)).representation() + "\n");
        LunConfig after = lun("t", RAM);
        assertThat(ConfigDiff.lun(before, server, after, server))
                .allSatisfy(k -> {
                    assertThat(k.rule()).isEqualTo(ChangeRule.IN_PLACE);
                    assertThat(k.after()).isEqualTo(k.before() + " (new content)");
                })
                .extracting(KeyChange::key).containsExactly("access.chap.secret-file", "access.dhchap.host-secret-file");
        PlanDiff.Result r = PlanDiff.of(plan(before), plan(after));
        assertThat(r.luns()).extracting(PlanDiff.LunChange::action).containsExactly(PlanDiff.Action.RETUNED);
        assertThat(r.steps()).extracting(st -> st.getClass().getSimpleName()).containsExactly("SetTargetAccess",
                "SetSubsystemAccess");
        assertThat(r.steps()).extracting(Step::describe).containsExactly(
                "iSCSI target " + IQN + "t: CHAP user alice -> user alice (new logins; sessions keep theirs)",
                "NVMe subsystem " + NQN + "t: DH-HMAC-CHAP keys -> new keys (new Connects; connected controllers stay)");
    }

    /** Many LUNs changing at once: one step list in the promised order, each LUN once in the changes. */
    @Test
    void aMixedChangeKeepsTheOrder() throws Exception {
        LunConfig grow = lun("grow", RAM);
        LunConfig shrink = lun("shrink", "{\"backend\": \"ram\", \"size\": \"2MiB\"}");
        LunConfig replace = lun("replace", RAM);
        LunConfig retune = lun("retune", RAM);
        LunConfig gone = lun("gone", "{\"backend\": \"null\", \"size\": \"1MiB\"}");
        LunConfig added = lun("added", "{\"backend\": \"null\", \"size\": \"1MiB\"}");
        ExportPlan before = ExportPlan.of(server, List.of(grow, shrink, replace, retune, gone));
        ServerConfig after = server.withDiscoveryChap(Optional.of(new ChapConfig("d", "discovery-secret",
                Optional.empty(), Optional.empty())));
        ExportPlan next = ExportPlan.of(after, List.of(patched(grow, "{\"size\": \"2MiB\"}"),
                patched(shrink, "{\"size\": \"1MiB\"}"), patched(replace, "{\"logical-block-size\": 4096}"),
                patched(retune, "{\"rotational\": true}"), added));
        PlanDiff.Result r = PlanDiff.of(before, next);
        assertOrdered("mixed", r.steps());
        assertThat(r.steps()).extracting(Step::subject).containsExactly("replace", "added", "grow", "shrink", "",
                "replace", "gone", "retune", "replace", "added", IQN + "gone", NQN + "gone");
        assertThat(r.luns()).extracting(c -> c.lun() + " " + c.action()).containsExactly("grow RESIZED",
                "shrink RESIZED", "replace REPLACED", "retune RETUNED", "added ADDED", "gone REMOVED");
        assertThat(r.dataLoss()).extracting(Step::subject).containsExactly("shrink", "replace");
        assertThat(PlanDiff.refusal(r.dataLoss(), name -> new PlanDiff.Facts(name.equals("replace") ? 128 << 10 : 0,
                name.equals("replace") ? 2 : 0))).isEqualTo("shrinks LUN shrink from 2 MiB to 1 MiB: the data beyond"
                + " 1 MiB is lost (0 B allocated on the LUN now); replaces LUN replace: its 1 MiB RAM data (128 KiB"
                + " allocated) is lost and its 2 sessions see a new disk; give --force");
        assertThat(r.key(r.dataLoss().get(0))).isEqualTo("size");
        assertThat(r.key(r.dataLoss().get(1))).isEqualTo("logical-block-size");
    }

    /** The plan's warnings the old one did not have come with the diff (a request that overcommits RAM is told). */
    @Test
    void newPlanWarningsComeWithTheDiff() throws Exception {
        ServerConfig small = budget(server, 1L << 20);
        LunConfig a = lun("a", RAM);
        LunConfig big = lun("big", "{\"backend\": \"ram\", \"size\": \"4MiB\", \"faults\": [{\"lba\": 9000,"
                + " \"action\": \"busy\"}]}");
        PlanDiff.Result r = PlanDiff.of(ExportPlan.of(small, List.of(a)), ExportPlan.of(small, List.of(a, big)));
        assertThat(r.warnings()).containsExactly(
                "RAM disks declare 5 MiB in total, more than the memory budget of 1 MiB; writes beyond the budget"
                        + " fail with out-of-space",
                "LUN big: fault rule f1 covers LBAs 9000..9000 but the LUN ends at LBA 8191; commands beyond it fail as"
                        + " out of range before the rule sees them");
        assertThat(PlanDiff.of(ExportPlan.of(small, List.of(a, big)), ExportPlan.of(small, List.of(a, big)))
                .warnings()).as("known already: not repeated").isEmpty();
    }

    @Test
    void mapsAreUnmodifiable() throws Exception {
        ExportPlan p = plan(lun("t", RAM));
        assertThat(p.targets()).isUnmodifiable();
        assertThat(p.subsystems()).isUnmodifiable();
        assertThat(p.targets().get(IQN + "t").luns()).isEqualTo(Map.of(0L, "t"));
    }
}
