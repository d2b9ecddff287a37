package io.blocktarget.server;

import io.blocktarget.config.BackendKind;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.LunConfig;
import io.blocktarget.nvme.SubsystemAccess;
import io.blocktarget.transport.iscsi.Chap;
import io.blocktarget.transport.iscsi.TargetAccess;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One change of a running server, from {@link PlanDiff}: pure data that {@link StepRunner} applies (each with its
 * undo). {@link #describe()} is what a user reads in a dry run and in the log; it never shows a secret.
 */
public sealed interface Step {

    /** The LUN, target or subsystem the step changes ("" for server-wide steps). */
    String subject();

    /** One line for a user: what changes and what it does to initiators. */
    String describe();

    /** True when the data on the LUN does not survive the step (a shrink; a RAM / null LUN replaced): needs --force. */
    default boolean losesData() {
        return false;
    }

    /** Why a LUN is opened, unexported or exported. */
    enum Why {
        /** A new LUN. */
        ADD("add"),
        /** A LUN gone from the plan: drained, then closed. */
        REMOVE("remove"),
        /** Device, data and state kept; the export address changes. */
        REEXPORT("re-export"),
        /** The backend is opened again (a file keeps its data); sessions see the LUN go and come back. */
        REOPEN("reopen"),
        /** A new device in the old one's place: a RAM / null LUN's data is lost; sessions see a new disk. */
        REPLACE("replace");

        private final String label;

        Why(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** The protocols a LUN is exported over. */
    enum Via {
        ISCSI, NVME;

        /** Every protocol {@code lun} is exported over. */
        static Set<Via> of(LunConfig lun) {
            Set<Via> via = EnumSet.noneOf(Via.class);
            lun.iscsi().ifPresent(e -> via.add(ISCSI));
            lun.nvme().ifPresent(e -> via.add(NVME));
            return via;
        }
    }

    /** Opens the backend of {@code lun} (a new LUN, or the new device of a reopen / replace); fails: nothing changed. */
    record OpenBackend(LunConfig lun, Why why) implements Step {
        public OpenBackend {
            Objects.requireNonNull(lun, "lun");
            Objects.requireNonNull(why, "why");
        }

        @Override
        public String subject() {
            return lun.name();
        }

        @Override
        public String describe() {
            return "open the " + lun.backend().configName() + " backend of LUN " + lun.name() + " ("
                    + ConfigLoader.formatSize(lun.size()) + ", " + lun.logicalBlockSize() + "-byte blocks, physical "
                    + lun.physicalBlockSize() + ")" + (why == Why.ADD ? "" : " for its " + why.label());
        }
    }

    /** Grows or shrinks the open device of a LUN; initiators get CAPACITY DATA HAS CHANGED / a namespace change. */
    record Resize(LunConfig before, LunConfig after) implements Step {
        public Resize {
            Objects.requireNonNull(before, "before");
            Objects.requireNonNull(after, "after");
        }

        public boolean shrink() {
            return after.size() < before.size();
        }

        @Override
        public String subject() {
            return after.name();
        }

        @Override
        public boolean losesData() {
            return shrink();
        }

        @Override
        public String describe() {
            return (shrink() ? "shrink" : "grow") + " LUN " + after.name() + " from "
                    + ConfigLoader.formatSize(before.size()) + " to " + ConfigLoader.formatSize(after.size())
                    + (shrink() ? " (the data beyond " + ConfigLoader.formatSize(after.size()) + " is lost)" : "");
        }
    }

    /** {@code discovery-chap}: iSCSI discovery sessions from now on (sessions logged in stay). */
    record SetDiscoveryChap(Optional<Chap> before, Optional<Chap> after) implements Step {
        public SetDiscoveryChap {
            Objects.requireNonNull(before, "before");
            Objects.requireNonNull(after, "after");
        }

        @Override
        public String subject() {
            return "";
        }

        @Override
        public String describe() {
            return "iSCSI discovery CHAP: " + Access.chap(before) + " -> " + Access.chap(after)
                    + " (new discovery sessions)";
        }
    }

    /** {@code memory-budget}: RAM chunk allocations from now on (memory held stays held). */
    record SetMemoryBudget(long before, long after) implements Step {
        @Override
        public String subject() {
            return "";
        }

        @Override
        public String describe() {
            return "memory budget: " + ConfigLoader.formatSize(before) + " -> " + ConfigLoader.formatSize(after);
        }
    }

    /**
     * Takes a LUN out of its targets / subsystems {@code via} (new commands: LOGICAL UNIT NOT SUPPORTED / Invalid
     * Namespace). Removed, reopened and replaced LUNs' devices drain and close once every step has succeeded.
     */
    record Unexport(LunConfig lun, Why why, Set<Via> via) implements Step {
        public Unexport {
            Objects.requireNonNull(lun, "lun");
            Objects.requireNonNull(why, "why");
            via = Set.copyOf(via);
        }

        Unexport(LunConfig lun, Why why) {
            this(lun, why, Via.of(lun));
        }

        @Override
        public String subject() {
            return lun.name();
        }

        @Override
        public boolean losesData() {
            return why == Why.REPLACE && lun.backend() != BackendKind.FILE;
        }

        @Override
        public String describe() {
            String where = Access.exports(lun, via);
            String what = switch (why) {
                case REMOVE -> "commands in flight drain, then the device closes"
                        + (lun.backend() == BackendKind.RAM ? " and its memory is freed" : "");
                case REEXPORT -> "device and data kept";
                case REOPEN -> "its old device drains and closes; the file keeps the data";
                case REPLACE -> "its old device drains and closes" + (lun.backend() == BackendKind.FILE
                        ? "; the file keeps the data" : "; its data is lost");
                case ADD -> throw new IllegalStateException("a new LUN is not unexported");
            };
            return "take LUN " + lun.name() + " out of " + where + " for its " + why.label() + " (" + what + ")";
        }
    }

    /** CHAP, initiator list and session values of a target that stays; logins from now on see them. */
    record SetTargetAccess(String target, TargetAccess before, TargetAccess after) implements Step {
        public SetTargetAccess {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(before, "before");
            Objects.requireNonNull(after, "after");
        }

        @Override
        public String subject() {
            return target;
        }

        @Override
        public String describe() {
            List<String> parts = new ArrayList<>();
            if (!before.chap().equals(after.chap())) {
                parts.add("CHAP " + Access.chap(before.chap()) + " -> " + Access.chap(after.chap()));
            }
            if (!before.initiators().equals(after.initiators())) {
                parts.add("initiators " + Access.names(before.initiators()) + " -> " + Access.names(after.initiators()));
            }
            if (!before.sessionLimits().equals(after.sessionLimits())) {
                parts.add("session values " + Access.limits(before) + " -> " + Access.limits(after));
            }
            return "iSCSI target " + target + ": " + String.join(", ", parts) + " (new logins; sessions keep theirs)";
        }
    }

    /** Hosts, DH-HMAC-CHAP keys and TLS of a subsystem that stays; Connects from now on see them. */
    record SetSubsystemAccess(String subsystem, SubsystemAccess before, SubsystemAccess after) implements Step {
        public SetSubsystemAccess {
            Objects.requireNonNull(subsystem, "subsystem");
            Objects.requireNonNull(before, "before");
            Objects.requireNonNull(after, "after");
        }

        @Override
        public String subject() {
            return subsystem;
        }

        @Override
        public String describe() {
            List<String> parts = new ArrayList<>();
            if (!before.hosts().equals(after.hosts())) {
                parts.add("hosts " + Access.names(before.hosts()) + " -> " + Access.names(after.hosts()));
            }
            if (!before.dhchap().equals(after.dhchap())) {
                parts.add("DH-HMAC-CHAP " + (before.dhchap().isEmpty() ? "off" : "keys") + " -> "
                        + (after.dhchap().isEmpty() ? "off" : before.dhchap().isEmpty() ? "keys" : "new keys"));
            }
            if (before.secureChannel() != after.secureChannel()) {
                parts.add("TLS " + before.secureChannel() + " -> " + after.secureChannel());
            }
            if (!before.psk().equals(after.psk())) {
                parts.add("TLS PSK " + (after.psk().isEmpty() ? "removed" : before.psk().isEmpty() ? "set" : "changed"));
            }
            return "NVMe subsystem " + subsystem + ": " + String.join(", ", parts)
                    + " (new Connects; connected controllers stay)";
        }
    }

    /**
     * Knobs and / or fault rules of a LUN changed in place: the same device, data and sessions; the units / namespaces
     * of {@code knobs} rebuild their limits and identity (INQUIRY DATA HAS CHANGED / a namespace change); the file's
     * fault rules replace the LUN's rules.
     */
    record Retune(LunConfig before, LunConfig after, Set<Via> knobs, boolean faults) implements Step {
        public Retune {
            Objects.requireNonNull(before, "before");
            Objects.requireNonNull(after, "after");
            knobs = Set.copyOf(knobs);
        }

        @Override
        public String subject() {
            return after.name();
        }

        @Override
        public String describe() {
            List<String> what = new ArrayList<>();
            if (!knobs.isEmpty()) {
                what.add("knobs");
            }
            if (faults) {
                what.add("fault rules (" + after.features().faults().size() + ")");
            }
            return "retune LUN " + after.name() + " in place: " + String.join(", ", what) + " (data and sessions kept)";
        }
    }

    /** Puts a LUN into its targets / subsystems {@code via}; a target or subsystem new to the server comes with it. */
    record Export(LunConfig lun, Why why, Set<Via> via) implements Step {
        public Export {
            Objects.requireNonNull(lun, "lun");
            Objects.requireNonNull(why, "why");
            via = Set.copyOf(via);
        }

        Export(LunConfig lun, Why why) {
            this(lun, why, Via.of(lun));
        }

        @Override
        public String subject() {
            return lun.name();
        }

        @Override
        public String describe() {
            return "export LUN " + lun.name() + " as " + Access.exports(lun, via)
                    + (why == Why.ADD ? "" : " for its " + why.label());
        }
    }

    /** A target no LUN exports any more: logins refused; sessions asked to log out once every step succeeded. */
    record RemoveTarget(String target, TargetAccess access) implements Step {
        @Override
        public String subject() {
            return target;
        }

        @Override
        public String describe() {
            return "remove iSCSI target " + target + " (its sessions are asked to log out)";
        }
    }

    /** A subsystem no LUN exports any more: its controllers are torn down, the discovery log changes. */
    record RemoveSubsystem(String subsystem, SubsystemAccess access) implements Step {
        @Override
        public String subject() {
            return subsystem;
        }

        @Override
        public String describe() {
            return "remove NVMe subsystem " + subsystem + " (its controllers are disconnected)";
        }
    }

    /** How steps say things (never a secret). */
    final class Access {
        private Access() {
        }

        static String chap(Optional<Chap> chap) {
            return chap.map(c -> "user " + c.user() + c.mutualUser().map(m -> " (mutual " + m + ")").orElse(""))
                    .orElse("none");
        }

        static String names(Set<String> names) {
            return names.isEmpty() ? "any" : names.stream().sorted().toList().toString();
        }

        static String limits(TargetAccess access) {
            return access.sessionLimits().map(l -> "MaxRecvDataSegmentLength " + l.maxRecvDataSegmentLength()
                    + ", MaxBurstLength " + l.maxBurstLength() + ", FirstBurstLength " + l.firstBurstLength()
                    + ", queue depth " + l.queueDepth()).orElse("the server's");
        }

        static String exports(LunConfig lun, Set<Via> via) {
            List<String> where = new ArrayList<>();
            if (via.contains(Via.ISCSI)) {
                lun.iscsi().ifPresent(e -> where.add("iSCSI " + e.target() + " LUN " + e.lun()));
            }
            if (via.contains(Via.NVME)) {
                lun.nvme().ifPresent(e -> where.add("NVMe " + e.subsystem() + " NSID " + e.nsid()));
            }
            return where.isEmpty() ? "no protocol" : String.join(" and ", where);
        }
    }
}
