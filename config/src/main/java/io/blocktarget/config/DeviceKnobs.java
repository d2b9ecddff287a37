package io.blocktarget.config;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Advertised per-LUN knobs of a LUN file (issue 11 item 1, DESIGN §10): {@code commands:} switches optional commands
 * on or off, {@code limits:} overrides advertised-and-enforced limits, {@code rotational:} the medium, {@code
 * removable:} a removable medium (SCSI), {@code sanitize-duration:} how long a SANITIZE takes at least (SCSI),
 * {@code identity:} the names the initiator sees, and {@code session:} what an iSCSI session or an NVMe controller
 * negotiates (these are properties of a target / subsystem: its LUN files must agree, {@link KnobsReader#claims}). Only what the file gives is held: a key that is absent means
 * "what the command sets did before knobs existed" (e.g. WRITE SAME off above 4 KiB blocks, the backend decides the
 * write cache), so {@link #DEFAULTS} is empty and a file without knobs behaves exactly as before.
 *
 * @param commands   explicit {@code commands:} switches
 * @param limits     explicit {@code limits:} values: bytes, or a count for {@link Limit#MAX_UNMAP_DESCRIPTORS}
 * @param rotational {@code rotational:}; empty = non-rotating (today's Block Device Characteristics VPD)
 * @param identity   explicit {@code identity:} strings (hex digits, lower case, for naa / nguid / eui64)
 * @param session    explicit {@code session:} values: bytes, or a count for the keys {@link Session#isSize} denies
 * @param removable  {@code removable:}; empty = not removable (SCSI RMB = 0)
 * @param sanitizeDurationNanos {@code sanitize-duration:}; empty = a SANITIZE takes as long as the backend does
 */
public record DeviceKnobs(Map<Command, Boolean> commands, Map<Limit, Long> limits, Optional<Boolean> rotational,
                          Map<Identity, String> identity, Map<Session, Long> session, Optional<Boolean> removable,
                          Optional<Long> sanitizeDurationNanos) {
    public static final DeviceKnobs DEFAULTS = new DeviceKnobs(Map.of(), Map.of(), Optional.empty(), Map.of(),
            Map.of());

    public DeviceKnobs {
        commands = copy(commands, Command.class);
        limits = copy(limits, Limit.class);
        Objects.requireNonNull(rotational, "rotational");
        identity = copy(identity, Identity.class);
        session = copy(session, Session.class);
        Objects.requireNonNull(removable, "removable");
        Objects.requireNonNull(sanitizeDurationNanos, "sanitizeDurationNanos");
    }

    /** Knobs without {@code removable:} and {@code sanitize-duration:}. */
    public DeviceKnobs(Map<Command, Boolean> commands, Map<Limit, Long> limits, Optional<Boolean> rotational,
                       Map<Identity, String> identity, Map<Session, Long> session) {
        this(commands, limits, rotational, identity, session, Optional.empty(), Optional.empty());
    }

    /** Knobs without a {@code session:} section. */
    public DeviceKnobs(Map<Command, Boolean> commands, Map<Limit, Long> limits, Optional<Boolean> rotational,
                       Map<Identity, String> identity) {
        this(commands, limits, rotational, identity, Map.of());
    }

    /** The keys of {@code commands:}, exactly as scripts write them. */
    public enum Command {
        WRITE_SAME("write-same"), UNMAP("unmap"), WRITE_ZEROES("write-zeroes"),
        COMPARE_AND_WRITE("compare-and-write"), COMPARE("compare"), VERIFY("verify"),
        GET_LBA_STATUS("get-lba-status"), COPY("copy"), FUA("fua"), WRITE_CACHE("write-cache");

        private final String key;

        Command(String key) {
            this.key = key;
        }

        public String key() {
            return key;
        }
    }

    /** The keys of {@code limits:}; every one but {@link #MAX_UNMAP_DESCRIPTORS} is a size in bytes. */
    public enum Limit {
        /** SCSI MAXIMUM TRANSFER LENGTH (Block Limits VPD); enforced on every read / write / verify. */
        MAX_TRANSFER("max-transfer"),
        /** SCSI OPTIMAL TRANSFER LENGTH; NVMe NOWS (optimal write size). */
        OPTIMAL_TRANSFER("optimal-transfer"),
        /** SCSI OPTIMAL TRANSFER LENGTH GRANULARITY; NVMe NPWG and NPWA. */
        OPTIMAL_TRANSFER_GRANULARITY("optimal-transfer-granularity"),
        /** SCSI MAXIMUM UNMAP LBA COUNT (bytes here); enforced by UNMAP. */
        MAX_UNMAP("max-unmap"),
        /** SCSI MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT; enforced by UNMAP. */
        MAX_UNMAP_DESCRIPTORS("max-unmap-descriptors"),
        /** SCSI OPTIMAL UNMAP GRANULARITY; NVMe NPDG. */
        UNMAP_GRANULARITY("unmap-granularity"),
        /** SCSI UNMAP GRANULARITY ALIGNMENT (UGAVALID = 1); NVMe NPDA. */
        UNMAP_ALIGNMENT("unmap-alignment"),
        /** SCSI MAXIMUM WRITE SAME LENGTH; enforced by WRITE SAME. */
        MAX_WRITE_SAME("max-write-same"),
        /** NVMe NPWG (preferred write granularity); default: optimal-transfer-granularity, else PBS. */
        NPWG("npwg"),
        /** NVMe NPWA (preferred write alignment); default: NPWG. */
        NPWA("npwa"),
        /** NVMe NPDG (preferred deallocate granularity); default: unmap-granularity, else PBS. */
        NPDG("npdg"),
        /** NVMe NPDA (preferred deallocate alignment); default: NPDG. */
        NPDA("npda"),
        /** NVMe NOWS (optimal write size); default: optimal-transfer, else PBS. */
        NOWS("nows");

        private final String key;

        Limit(String key) {
            this.key = key;
        }

        public String key() {
            return key;
        }

        public boolean isSize() {
            return this != MAX_UNMAP_DESCRIPTORS;
        }
    }

    /** The keys of {@code identity:}. */
    public enum Identity {
        /** SCSI T10 VENDOR IDENTIFICATION (8 ASCII characters). */
        VENDOR("vendor"),
        /** SCSI PRODUCT IDENTIFICATION (16); NVMe model number (MN, per subsystem). */
        PRODUCT("product"),
        /** SCSI PRODUCT REVISION LEVEL (4); NVMe firmware revision (FR, per subsystem). */
        REVISION("revision"),
        /** SCSI Unit Serial Number VPD (80h); NVMe serial number (SN, per subsystem). */
        SERIAL("serial"),
        /** SCSI NAA 6h designator of the Device Identification VPD (83h): 32 hex digits. */
        NAA("naa"),
        /** NVMe NGUID (Identify Namespace, descriptor type 2h): 32 hex digits. */
        NGUID("nguid"),
        /** NVMe EUI-64 (Identify Namespace, descriptor type 1h): 16 hex digits. */
        EUI64("eui64");

        private final String key;

        Identity(String key) {
            this.key = key;
        }

        public String key() {
            return key;
        }
    }

    /**
     * The keys of {@code session:}: what an NVMe controller or an iSCSI session is given when it is set up (Connect /
     * login). A change applies to controllers and sessions set up after it; existing ones keep what they negotiated.
     */
    public enum Session {
        /** NVMe MDTS (Identify Controller), a power of two of 4 KiB pages (CAP.MPSMIN 0); enforced. */
        MDTS("mdts", true, true, 1L << 20),
        /** NVMe in-capsule data of I/O queues (IOCCSZ = 4 + this / 16); enforced. */
        IN_CAPSULE_DATA("in-capsule-data", true, true, 256L << 10),
        /** NVMe I/O queues Set Features Number of Queues grants at most (NSQA / NCQA + 1). */
        IO_QUEUES("io-queues", false, true, 128),
        /** NVMe I/O queue entries: CAP.MQES + 1 and MAXCMD; a Connect with a larger SQSIZE is refused. */
        QUEUE_SIZE("queue-size", false, true, 1024),
        /** iSCSI MaxRecvDataSegmentLength the target declares (RFC 7143 §13.12); enforced. */
        MAX_RECV_DATA_SEGMENT_LENGTH("max-recv-data-segment-length", true, false, 256L << 10),
        /** iSCSI FirstBurstLength the target offers / accepts at most (§13.14); enforced. */
        FIRST_BURST_LENGTH("first-burst-length", true, false, 256L << 10),
        /** iSCSI MaxBurstLength the target offers / accepts at most (§13.13); enforced. */
        MAX_BURST_LENGTH("max-burst-length", true, false, 1L << 20),
        /** iSCSI CmdSN window: MaxCmdSN − ExpCmdSN + 1 (§4.2.2.1); commands outside it are dropped. */
        QUEUE_DEPTH("queue-depth", false, false, 128);

        private final String key;
        private final boolean size;
        private final boolean nvme;
        private final long defaultValue;

        Session(String key, boolean size, boolean nvme, long defaultValue) {
            this.key = key;
            this.size = size;
            this.nvme = nvme;
            this.defaultValue = defaultValue;
        }

        /** Today's value, used when no LUN file of the target / subsystem gives the key. */
        public long defaultValue() {
            return defaultValue;
        }

        public String key() {
            return key;
        }

        /** A size in bytes (else a count). */
        public boolean isSize() {
            return size;
        }

        /** A property of an NVMe controller (else of an iSCSI session). */
        public boolean isNvme() {
            return nvme;
        }
    }

    /** The switch as given; empty = the command set's default. */
    public Optional<Boolean> command(Command command) {
        return Optional.ofNullable(commands.get(command));
    }

    /** The switch as given, else {@code fallback} (the default the caller knows). */
    public boolean command(Command command, boolean fallback) {
        return commands.getOrDefault(command, fallback);
    }

    public Optional<Long> limit(Limit limit) {
        return Optional.ofNullable(limits.get(limit));
    }

    public Optional<String> identity(Identity key) {
        return Optional.ofNullable(identity.get(key));
    }

    public Optional<Long> session(Session key) {
        return Optional.ofNullable(session.get(key));
    }

    /** The value given, else {@link Session#defaultValue()}. */
    public long sessionValue(Session key) {
        return session.getOrDefault(key, key.defaultValue());
    }

    /** True when nothing is given: the LUN behaves as before knobs existed. */
    public boolean isDefault() {
        return commands.isEmpty() && limits.isEmpty() && rotational.isEmpty() && identity.isEmpty()
                && session.isEmpty() && removable.isEmpty() && sanitizeDurationNanos.isEmpty();
    }

    public DeviceKnobs withCommands(Map<Command, Boolean> value) {
        return new DeviceKnobs(value, limits, rotational, identity, session, removable, sanitizeDurationNanos);
    }

    public DeviceKnobs withLimits(Map<Limit, Long> value) {
        return new DeviceKnobs(commands, value, rotational, identity, session, removable, sanitizeDurationNanos);
    }

    public DeviceKnobs withRotational(Optional<Boolean> value) {
        return new DeviceKnobs(commands, limits, value, identity, session, removable, sanitizeDurationNanos);
    }

    public DeviceKnobs withIdentity(Map<Identity, String> value) {
        return new DeviceKnobs(commands, limits, rotational, value, session, removable, sanitizeDurationNanos);
    }

    public DeviceKnobs withSession(Map<Session, Long> value) {
        return new DeviceKnobs(commands, limits, rotational, identity, value, removable, sanitizeDurationNanos);
    }

    public DeviceKnobs withRemovable(Optional<Boolean> value) {
        return new DeviceKnobs(commands, limits, rotational, identity, session, value, sanitizeDurationNanos);
    }

    public DeviceKnobs withSanitizeDurationNanos(Optional<Long> value) {
        return new DeviceKnobs(commands, limits, rotational, identity, session, removable, value);
    }

    private static <K extends Enum<K>, V> Map<K, V> copy(Map<K, V> map, Class<K> type) {
        Objects.requireNonNull(map);
        EnumMap<K, V> copy = new EnumMap<>(type);
        map.forEach((k, v) -> copy.put(Objects.requireNonNull(k), Objects.requireNonNull(v)));
        return Collections.unmodifiableMap(copy);
    }
}
