package io.blocktarget.config;

import io.blocktarget.config.DeviceKnobs.Command;
import io.blocktarget.config.DeviceKnobs.Identity;
import io.blocktarget.config.DeviceKnobs.Limit;
import io.blocktarget.config.DeviceKnobs.Session;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToIntFunction;

/**
 * Reads the knobs of a LUN file ({@link DeviceKnobs}): {@code commands:}, {@code limits:}, {@code rotational:} and
 * {@code identity:}, each value checked alone and then against the geometry and the other knobs, and writes them back
 * for {@link LunWriter}. Knobs that are fields of an NVMe controller rather than of a namespace (Identify Controller
 * SN / MN / FR, ONCS, VWC: Base §5.17.2.1) are claimed per subsystem so that the LUN files sharing a subsystem must
 * agree ({@link CrossChecks#accessConflicts}).
 */
final class KnobsReader {
    /** Today's WRITE SAME rule (Linux 7.3 sd BUG above 4 KiB, DESIGN §9): the default of commands.write-same. */
    static final int WRITE_SAME_DEFAULT_UP_TO = 4096;
    /** The largest MAXIMUM TRANSFER LENGTH the SCSI layer supports (its default); a knob may only lower it. */
    static final long MAX_TRANSFER_CEILING = 8L << 20;
    /** NPWG / NPDG / NOWS are 16-bit 0's based counts of blocks (NVM Command Set Identify Namespace). */
    static final long NVME_16_BIT_BLOCKS = 1L << 16;
    static final long MAX_UNMAP_DESCRIPTORS = 4095; // (65535 - 8) / 16: the 16-bit PARAMETER LIST LENGTH of UNMAP
    /** CAP.MPSMIN = 0: MDTS counts 4 KiB pages as a power of two (Base §5.17.2.1). */
    static final long NVME_PAGE = 4096;
    /**
     * The largest MDTS: what one command may buffer in the target. nvmet sets none on TCP, and blktests nvme/029
     * moves 1025 blocks in one command (16.4 MiB at 16 KiB blocks, 65.6 MiB at 64 KiB): 128 MiB holds that at every
     * logical block size (contrib/blktests/nvme_target_control asks for it).
     */
    static final long MAX_MDTS = 128L << 20;
    /** I/O queues and entries the NVMe controller has room for (its ceilings: today's defaults). */
    static final long MAX_IO_QUEUES = 128;
    static final long MAX_QUEUE_SIZE = 1024;
    /** iSCSI lengths are 512 .. 2^24 − 1 (RFC 7143 §13.12 - §13.14). */
    static final long ISCSI_MIN_LENGTH = 512;
    static final long ISCSI_MAX_LENGTH = 0xFF_FFFF;
    static final long MAX_QUEUE_DEPTH = 65535;

    /** Knob keys whose value the LUN files of one NVMe subsystem must share: Identify Controller fields. */
    static final List<Command> SUBSYSTEM_COMMANDS = List.of(Command.COMPARE, Command.WRITE_ZEROES, Command.UNMAP,
            Command.VERIFY, Command.COPY, Command.WRITE_CACHE);
    static final List<Identity> SUBSYSTEM_IDENTITY = List.of(Identity.PRODUCT, Identity.REVISION, Identity.SERIAL);

    private KnobsReader() {
    }

    /**
     * The knobs of one LUN file; {@link DeviceKnobs#DEFAULTS} when it has none or when something is wrong (then the
     * problem has been added and the LUN is not built).
     */
    static DeviceKnobs read(YamlMap lun, Optional<Long> logical, Optional<Long> physical, Problems problems) {
        int before = problems.count();
        Map<Command, Boolean> commands = commands(lun, problems);
        Optional<Boolean> rotational = lun.has(LunKeys.ROTATIONAL) ? lun.value(LunKeys.ROTATIONAL) : Optional.empty();
        Optional<Boolean> removable = lun.has(LunKeys.REMOVABLE) ? lun.value(LunKeys.REMOVABLE) : Optional.empty();
        Optional<Long> sanitizeDuration = lun.has(LunKeys.SANITIZE_DURATION) ? lun.value(LunKeys.SANITIZE_DURATION)
                : Optional.empty();
        Map<Identity, String> identity = identity(lun, problems);
        Map<Limit, Long> limits = Map.of();
        Map<Session, Long> session = Map.of();
        if (logical.isPresent() && physical.isPresent()) {
            limits = limits(lun, logical.get(), physical.get(), commands, problems);
            session = session(lun, logical.get(), problems);
        }
        if (problems.count() > before) {
            return DeviceKnobs.DEFAULTS;
        }
        return new DeviceKnobs(commands, limits, rotational, identity, session, removable, sanitizeDuration);
    }

    /**
     * {@code session:}: each value alone, then MDTS against the block size (one block must fit, Base §5.17.2.1),
     * in-capsule data against MDTS and FirstBurstLength against MaxBurstLength (RFC 7143 §13.14).
     */
    private static Map<Session, Long> session(YamlMap lun, long lbs, Problems problems) {
        Map<Session, Long> session = new EnumMap<>(Session.class);
        Optional<YamlMap> parsed = YamlMap.section(lun, LunKeys.SESSION, problems);
        if (parsed.isEmpty()) {
            return session;
        }
        YamlMap m = parsed.get();
        for (Session k : Session.values()) {
            if (m.has(k.key())) {
                m.value(k.key(), sessionType(k)).ifPresent(v -> session.put(k, v));
            }
        }
        Long mdts = session.get(Session.MDTS);
        if (mdts != null && mdts < lbs) {
            m.problem(Session.MDTS.key(), m.text(Session.MDTS.key()) + " is smaller than the logical block size ("
                    + Sizes.format(lbs) + "); allowed: a power of two from the logical block size to "
                    + Sizes.format(MAX_MDTS));
            session.remove(Session.MDTS);
            return session;
        }
        long effectiveMdts = session.getOrDefault(Session.MDTS, Session.MDTS.defaultValue());
        Long capsule = session.get(Session.IN_CAPSULE_DATA);
        if (capsule != null && capsule > effectiveMdts) {
            m.problem(Session.IN_CAPSULE_DATA.key(), m.text(Session.IN_CAPSULE_DATA.key()) + " is more than "
                    + Session.MDTS.key() + " ("
                    + Sizes.format(effectiveMdts) + "); allowed: a multiple of 16 bytes up to " + Session.MDTS.key());
        }
        long maxBurst = session.getOrDefault(Session.MAX_BURST_LENGTH, Session.MAX_BURST_LENGTH.defaultValue());
        Long firstBurst = session.get(Session.FIRST_BURST_LENGTH);
        if (firstBurst != null && firstBurst > maxBurst) {
            m.problem(Session.FIRST_BURST_LENGTH.key(), m.text(Session.FIRST_BURST_LENGTH.key())
                    + " is more than " + Session.MAX_BURST_LENGTH.key() + " (" + maxBurst + "); allowed: at most "
                    + Session.MAX_BURST_LENGTH.key()
                    + " (RFC 7143 §13.14)");
        } else if (firstBurst == null && session.containsKey(Session.MAX_BURST_LENGTH)
                && Session.FIRST_BURST_LENGTH.defaultValue() > maxBurst) {
            m.problem(Session.MAX_BURST_LENGTH.key(), m.text(Session.MAX_BURST_LENGTH.key())
                    + " is less than the default " + Session.FIRST_BURST_LENGTH.key() + " ("
                    + Session.FIRST_BURST_LENGTH.defaultValue()
                    + "); allowed: at least " + Session.FIRST_BURST_LENGTH.key() + ", or give "
                    + Session.FIRST_BURST_LENGTH.key() + " too (RFC 7143 §13.14)");
        }
        return session;
    }

    /** What each {@code session:} value may be on its own. */
    static ValueType<Long> sessionType(Session key) {
        return switch (key) {
            case MDTS -> sized("a power of two from 4KiB to 128MiB (MDTS counts 4 KiB pages)",
                    b -> Sizes.isPowerOfTwo(b) && b >= NVME_PAGE && b <= MAX_MDTS);
            case IN_CAPSULE_DATA -> sized("a multiple of 16 bytes from 0 to " + Session.MDTS.key()
                    + " (IOCCSZ counts 16 bytes)",
                    b -> b % 16 == 0 && b >= 0 && b <= MAX_MDTS);
            case IO_QUEUES -> ValueType.integer(1, MAX_IO_QUEUES, "1.." + MAX_IO_QUEUES);
            case QUEUE_SIZE -> ValueType.integer(2, MAX_QUEUE_SIZE, "2.." + MAX_QUEUE_SIZE
                    + " entries (CAP.MQES + 1; the smallest queue has 2)");
            case MAX_RECV_DATA_SEGMENT_LENGTH, FIRST_BURST_LENGTH, MAX_BURST_LENGTH -> sized(
                    ISCSI_MIN_LENGTH + " to " + ISCSI_MAX_LENGTH + " bytes (2^24 - 1, RFC 7143 §13)",
                    b -> b >= ISCSI_MIN_LENGTH && b <= ISCSI_MAX_LENGTH);
            case QUEUE_DEPTH -> ValueType.integer(1, MAX_QUEUE_DEPTH, "1.." + MAX_QUEUE_DEPTH
                    + " commands (MaxCmdSN - ExpCmdSN + 1)");
        };
    }

    private static ValueType<Long> sized(String allowed, java.util.function.LongPredicate ok) {
        return ValueType.text("a size", allowed, text -> {
            long bytes = Sizes.parse(text);
            if (!ok.test(bytes)) {
                throw new InvalidValue(text + " is out of range", allowed);
            }
            return bytes;
        });
    }

    private static Map<Command, Boolean> commands(YamlMap lun, Problems problems) {
        Map<Command, Boolean> commands = new EnumMap<>(Command.class);
        Optional<YamlMap> map = YamlMap.section(lun, LunKeys.COMMANDS, problems);
        map.ifPresent(m -> {
            for (Command c : Command.values()) {
                if (m.has(c.key())) {
                    m.value(c.key(), ValueType.BOOLEAN).ifPresent(v -> commands.put(c, v));
                }
            }
        });
        return commands;
    }

    private static Map<Identity, String> identity(YamlMap lun, Problems problems) {
        Map<Identity, String> identity = new EnumMap<>(Identity.class);
        Optional<YamlMap> map = YamlMap.section(lun, LunKeys.IDENTITY, problems);
        map.ifPresent(m -> {
            for (Identity k : Identity.values()) {
                if (m.has(k.key())) {
                    m.value(k.key(), identityType(k)).ifPresent(v -> identity.put(k, v));
                }
            }
        });
        return identity;
    }

    /** What each identity string may be: what fits the narrowest field that carries it. */
    static ValueType<String> identityType(Identity key) {
        return switch (key) {
            case VENDOR -> ascii(8, "the SCSI T10 vendor identification");
            case PRODUCT -> ascii(16, "the SCSI product identification (also the NVMe model number)");
            case REVISION -> ascii(4, "the SCSI product revision level (also the NVMe firmware revision)");
            case SERIAL -> ascii(20, "the NVMe serial number field (also the SCSI unit serial number)");
            case NAA -> hex(16, "32 hex digits starting with 6 (an NAA 6h registered extended designator)", true);
            case NGUID -> hex(16, "32 hex digits, not all zero", false);
            case EUI64 -> hex(8, "16 hex digits, not all zero", false);
        };
    }

    private static ValueType<String> ascii(int max, String field) {
        String allowed = "1 to " + max + " printable ASCII characters, no leading or trailing space (" + field + ")";
        return ValueType.text("a name", allowed, text -> {
            if (text.isEmpty() || text.length() > max) {
                throw new InvalidValue(text + " has " + text.length() + " characters", allowed);
            }
            if (!text.strip().equals(text)) {
                throw new InvalidValue("'" + text + "' has a leading or trailing space", allowed);
            }
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c < 0x20 || c > 0x7E) {
                    throw new InvalidValue(text + " has a character that is not printable ASCII", allowed);
                }
            }
            return text;
        });
    }

    private static ValueType<String> hex(int bytes, String allowed, boolean naa) {
        return ValueType.text("hex digits", allowed, text -> {
            String digits = text.strip().toLowerCase(java.util.Locale.ROOT);
            if (digits.length() != 2 * bytes || !digits.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                throw new InvalidValue(text + " is not " + 2 * bytes + " hex digits", allowed);
            }
            if (naa && digits.charAt(0) != '6') {
                throw new InvalidValue(text + " does not start with 6 (NAA 6h)", allowed);
            }
            if (digits.chars().allMatch(c -> c == '0')) {
                throw new InvalidValue(text + " is all zero (means: no identifier)", allowed);
            }
            return digits;
        });
    }

    private static Map<Limit, Long> limits(YamlMap lun, long lbs, long pbs, Map<Command, Boolean> commands,
                                           Problems problems) {
        Map<Limit, Long> limits = new EnumMap<>(Limit.class);
        Optional<YamlMap> parsed = YamlMap.section(lun, LunKeys.LIMITS, problems);
        if (parsed.isEmpty()) {
            return limits;
        }
        YamlMap m = parsed.get();
        long maxTransferBlocks = Math.max(1, MAX_TRANSFER_CEILING / lbs);
        for (Limit l : Limit.values()) {
            if (m.has(l.key())) {
                m.value(l.key(), type(l, lbs)).ifPresent(v -> limits.put(l, v));
            }
        }
        int before = problems.count();
        // single-value ranges that depend on the block size
        check(m, limits, Limit.MAX_TRANSFER, lbs, maxTransferBlocks,
                "a multiple of the logical block size up to " + Sizes.format(maxTransferBlocks * lbs));
        check(m, limits, Limit.OPTIMAL_TRANSFER, lbs, Math.min(maxTransferBlocks, NVME_16_BIT_BLOCKS),
                "a multiple of the logical block size up to " + Limit.MAX_TRANSFER.key());
        check(m, limits, Limit.OPTIMAL_TRANSFER_GRANULARITY, lbs, NVME_16_BIT_BLOCKS - 1,
                "a multiple of the logical block size up to 65535 blocks");
        check(m, limits, Limit.MAX_UNMAP, lbs, 0xFFFF_FFFEL,
                "a multiple of the logical block size up to 4294967294 blocks (absent: no limit)");
        check(m, limits, Limit.UNMAP_GRANULARITY, lbs, NVME_16_BIT_BLOCKS,
                "a multiple of the logical block size up to 65536 blocks");
        check(m, limits, Limit.UNMAP_ALIGNMENT, lbs, NVME_16_BIT_BLOCKS,
                "a multiple of the logical block size, smaller than " + Limit.UNMAP_GRANULARITY.key());
        check(m, limits, Limit.MAX_WRITE_SAME, lbs, 0xFFFF_FFFFL,
                "a multiple of the logical block size up to 4294967295 blocks");
        for (Limit l : List.of(Limit.NPWG, Limit.NPWA, Limit.NPDG, Limit.NPDA, Limit.NOWS)) {
            check(m, limits, l, lbs, NVME_16_BIT_BLOCKS, "a multiple of the logical block size up to 65536 blocks"
                    + " (a 16-bit 0's based count of blocks)");
        }
        if (problems.count() > before) {
            return limits;
        }
        // combinations
        long maxTransfer = limits.getOrDefault(Limit.MAX_TRANSFER, maxTransferBlocks * lbs);
        Long optimal = limits.get(Limit.OPTIMAL_TRANSFER);
        if (optimal != null && optimal > maxTransfer) {
            m.problem(Limit.OPTIMAL_TRANSFER.key(), m.text(Limit.OPTIMAL_TRANSFER.key()) + " is more than "
                    + Limit.MAX_TRANSFER.key() + " ("
                    + Sizes.format(maxTransfer) + "); allowed: at most " + Limit.MAX_TRANSFER.key());
        }
        Long granularity = limits.get(Limit.OPTIMAL_TRANSFER_GRANULARITY);
        if (optimal != null && granularity != null && optimal % granularity != 0) {
            m.problem(Limit.OPTIMAL_TRANSFER.key(), m.text(Limit.OPTIMAL_TRANSFER.key())
                    + " is not a multiple of " + Limit.OPTIMAL_TRANSFER_GRANULARITY.key() + " ("
                    + Sizes.format(granularity)
                    + "); allowed: a multiple of it");
        }
        // NVM Command Set Identify Namespace: NOWS should be a multiple of NPWG. Checked once either is given
        // explicitly; when both are derived, optimal-transfer and its granularity are checked above.
        if (limits.containsKey(Limit.NPWG) || limits.containsKey(Limit.NOWS)) {
            long npwg = limits.getOrDefault(Limit.NPWG, limits.getOrDefault(Limit.OPTIMAL_TRANSFER_GRANULARITY,
                    Math.min(pbs, NVME_16_BIT_BLOCKS * lbs)));
            long nows = limits.getOrDefault(Limit.NOWS, limits.getOrDefault(Limit.OPTIMAL_TRANSFER,
                    Math.min(pbs, NVME_16_BIT_BLOCKS * lbs)));
            if (nows % npwg != 0) {
                String key = limits.containsKey(Limit.NOWS) ? Limit.NOWS.key() : Limit.NPWG.key();
                m.problem(key, Limit.NOWS.key() + " (" + Sizes.format(nows) + ") is not a multiple of "
                        + Limit.NPWG.key() + " (" + Sizes.format(npwg)
                        + "); allowed: " + Limit.NOWS.key() + " a multiple of " + Limit.NPWG.key()
                        + " (NVM Command Set, Identify Namespace)");
            }
        }
        long unmapGranularity = limits.getOrDefault(Limit.UNMAP_GRANULARITY, Math.min(pbs, (1L << 15) * lbs));
        Long alignment = limits.get(Limit.UNMAP_ALIGNMENT);
        if (alignment != null && alignment >= unmapGranularity) {
            m.problem(Limit.UNMAP_ALIGNMENT.key(), m.text(Limit.UNMAP_ALIGNMENT.key())
                    + " is not smaller than " + Limit.UNMAP_GRANULARITY.key() + " (" + Sizes.format(unmapGranularity)
                    + "); allowed: a multiple of the logical block size smaller than " + Limit.UNMAP_GRANULARITY.key());
        }
        if (!commands.getOrDefault(Command.UNMAP, true)) {
            for (Limit l : List.of(Limit.MAX_UNMAP, Limit.MAX_UNMAP_DESCRIPTORS, Limit.UNMAP_GRANULARITY,
                    Limit.UNMAP_ALIGNMENT)) {
                if (limits.containsKey(l)) {
                    m.problem(l.key(), "given with " + LunKeys.COMMANDS.name() + "." + Command.UNMAP.key()
                            + ": false; allowed: only while UNMAP is on");
                }
            }
        }
        boolean writeSame = commands.getOrDefault(Command.WRITE_SAME, lbs <= WRITE_SAME_DEFAULT_UP_TO);
        if (!writeSame && limits.containsKey(Limit.MAX_WRITE_SAME)) {
            String why = commands.containsKey(Command.WRITE_SAME) ? LunKeys.COMMANDS.name() + "."
                    + Command.WRITE_SAME.key() + ": false"
                    : "WRITE SAME off (the default above 4 KiB logical blocks)";
            m.problem(Limit.MAX_WRITE_SAME.key(), "given with " + why
                    + "; allowed: only while WRITE SAME is on (" + LunKeys.COMMANDS.name() + ": {"
                    + Command.WRITE_SAME.key() + ": true})");
        }
        return limits;
    }

    private static ValueType<Long> type(Limit l, long lbs) {
        if (!l.isSize()) {
            return ValueType.integer(1, MAX_UNMAP_DESCRIPTORS, "1.." + MAX_UNMAP_DESCRIPTORS);
        }
        return Sizes.SIZE_TYPE;
    }

    /** A size that must be a positive multiple of the logical block size and at most {@code maxBlocks} of them. */
    private static void check(YamlMap m, Map<Limit, Long> limits, Limit l, long lbs, long maxBlocks, String allowed) {
        Long bytes = limits.get(l);
        if (bytes == null) {
            return;
        }
        String text = m.text(l.key());
        boolean zeroAllowed = l == Limit.UNMAP_ALIGNMENT;
        if (bytes % lbs != 0 || (bytes == 0 && !zeroAllowed)) {
            m.problem(l.key(), text + " is not " + (bytes == 0 ? "positive" : "a multiple of the logical block size ("
                    + Sizes.format(lbs) + ")") + "; allowed: " + allowed);
            limits.remove(l);
        } else if (bytes / lbs > maxBlocks) {
            m.problem(l.key(), text + " is out of range; allowed: " + allowed);
            limits.remove(l);
        }
    }

    /**
     * The per-subsystem claims of a LUN exported over NVMe (the controller fields), compared across LUN files.
     *
     * @param line the line of a dotted key in the file, 0 when unknown
     */
    static List<AccessClaim> claims(LunConfig lun, Path file, ToIntFunction<String> line) {
        List<AccessClaim> claims = new ArrayList<>();
        DeviceKnobs knobs = lun.features().knobs();
        // session: values are negotiated per iSCSI session / NVMe controller: every LUN of one target / subsystem
        // must give the same (or none)
        for (Session k : Session.values()) {
            Optional<String> export = k.isNvme() ? lun.nvme().map(e -> "NVMe subsystem " + e.subsystem())
                    : lun.iscsi().map(e -> "iSCSI target " + e.target());
            if (export.isPresent()) {
                String key = LunKeys.SESSION.name() + "." + k.key();
                Optional<Long> v = knobs.session(k);
                claims.add(new AccessClaim(export.get(), key, file, line.applyAsInt(key), v,
                        v.map(n -> key + ": " + n).orElse("no " + key)));
            }
        }
        if (lun.nvme().isEmpty()) {
            return claims;
        }
        String address = "NVMe subsystem " + lun.nvme().get().subsystem();
        for (Command c : SUBSYSTEM_COMMANDS) {
            String key = LunKeys.COMMANDS.name() + "." + c.key();
            Optional<Boolean> v = knobs.command(c);
            claims.add(new AccessClaim(address, key, file, line.applyAsInt(key), v,
                    v.map(b -> key + ": " + b).orElse("no " + key)));
        }
        for (Identity k : SUBSYSTEM_IDENTITY) {
            String key = LunKeys.IDENTITY.name() + "." + k.key();
            Optional<String> v = knobs.identity(k);
            claims.add(new AccessClaim(address, key, file, line.applyAsInt(key), v,
                    v.map(s -> key + ": " + s).orElse("no " + key)));
        }
        return claims;
    }

    /** The claims of a validated LUN, as if read from its file again (lines unknown). */
    static List<AccessClaim> claims(LunConfig lun) {
        return claims(lun, ExportReader.source(lun), key -> 0);
    }

    /** The line of a dotted knob key ({@code commands.compare}) in a LUN file's map: the inner key, else the section. */
    static int line(YamlMap lun, String dotted, Problems problems) {
        int dot = dotted.indexOf('.');
        String section = dotted.substring(0, dot);
        Optional<org.snakeyaml.engine.v2.nodes.Node> node = lun.node(section);
        if (node.isPresent() && node.get() instanceof org.snakeyaml.engine.v2.nodes.MappingNode mapping) {
            for (var tuple : mapping.getValue()) {
                if (tuple.getKeyNode() instanceof org.snakeyaml.engine.v2.nodes.ScalarNode s
                        && s.getValue().equals(dotted.substring(dot + 1))) {
                    return YamlSource.line(s);
                }
            }
        }
        // absent: the line of what makes the claim, the NVMe export
        return lun.line(section) > 0 ? lun.line(section) : lun.line(LunKeys.EXPORT);
    }

    /** The knob sections of a LUN file document, only what was given (the inverse of {@link #read}). */
    static void write(DeviceKnobs knobs, Map<String, Object> doc) {
        if (!knobs.commands().isEmpty()) {
            Map<String, Object> commands = new LinkedHashMap<>();
            knobs.commands().forEach((c, v) -> commands.put(c.key(), v));
            doc.put(LunKeys.COMMANDS.name(), commands);
        }
        if (!knobs.limits().isEmpty()) {
            Map<String, Object> limits = new LinkedHashMap<>();
            knobs.limits().forEach((l, v) -> limits.put(l.key(), l.isSize() ? sizeValue(v) : v));
            doc.put(LunKeys.LIMITS.name(), limits);
        }
        knobs.rotational().ifPresent(r -> doc.put(LunKeys.ROTATIONAL.name(), r));
        knobs.removable().ifPresent(r -> doc.put(LunKeys.REMOVABLE.name(), r));
        knobs.sanitizeDurationNanos().ifPresent(d -> doc.put(LunKeys.SANITIZE_DURATION.name(),
                FaultReader.formatDuration(d)));
        if (!knobs.identity().isEmpty()) {
            Map<String, Object> identity = new LinkedHashMap<>();
            knobs.identity().forEach((k, v) -> identity.put(k.key(), v));
            doc.put(LunKeys.IDENTITY.name(), identity);
        }
        if (!knobs.session().isEmpty()) {
            Map<String, Object> session = new LinkedHashMap<>();
            knobs.session().forEach((k, v) -> session.put(k.key(), k.isSize() ? sizeValue(v) : v));
            doc.put(LunKeys.SESSION.name(), session);
        }
    }

    private static Object sizeValue(long bytes) {
        String exact = Sizes.exact(bytes);
        return exact.equals(Long.toString(bytes)) ? (Object) bytes : exact;
    }

    static byte[] hexBytes(String digits) {
        return HexFormat.of().parseHex(digits);
    }
}
