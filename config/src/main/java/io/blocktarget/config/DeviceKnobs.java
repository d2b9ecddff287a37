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

    /**
     * The keys of {@code commands:}, exactly as scripts write them: the declaration of the section ({@link LunKeys}
     * builds its keys from these constants), each with its default and what it switches on SCSI and on NVMe.
     */
    public enum Command {
        WRITE_SAME("write-same", "on up to 4 KiB logical blocks, off above (the Linux 7.3 sd WRITE SAME bug)",
                "WRITE SAME(10/16). SCSI: in REPORT SUPPORTED OPERATION CODES, MAXIMUM WRITE SAME LENGTH, LBPWS /"
                        + " LBPWS10 (Linux queue/write_zeroes_max_bytes); NVMe: -"),
        UNMAP("unmap", "on", "UNMAP / deallocate. SCSI: UNMAP, LBPU (queue/discard_max_hw_bytes 0 when off); NVMe:"
                + " Dataset Management, ONCS bit 2 (discard off)"),
        WRITE_ZEROES("write-zeroes", "on", "NVMe Write Zeroes, ONCS bit 3 (SCSI: -, Linux zeroes with WRITE SAME)"),
        COMPARE_AND_WRITE("compare-and-write", "on", "SCSI COMPARE AND WRITE (NVMe: - ; its twin, the fused Compare and"
                + " Write, follows commands.compare)"),
        COMPARE("compare", "on", "NVMe Compare, ONCS bit 0, and the fused Compare and Write, FUSES bit 0 (SCSI: -)"),
        VERIFY("verify", "on", "SCSI VERIFY(10/12/16); NVMe Verify, ONCS bit 7"),
        GET_LBA_STATUS("get-lba-status", "on", "SCSI GET LBA STATUS (NVMe: -)"),
        COPY("copy", "on", "SCSI EXTENDED COPY, RECEIVE COPY RESULTS, 3PC; NVMe Copy, ONCS bit 8"),
        FUA("fua", "on", "SCSI DPOFUA in the mode header (queue/fua); NVMe: - (FUA is mandatory there and always"
                + " honoured)"),
        WRITE_CACHE("write-cache", "the backend's cache (file: on, ram and null: off)", "a volatile write cache."
                + " SCSI: caching mode page WCE (queue/write_cache); NVMe: VWC (queue/write_cache)"),
        SET_TARGET_PORT_GROUPS("set-target-port-groups", "off", "SCSI SET TARGET PORT GROUPS, explicit ALUA (INQUIRY"
                + " TPGS 11b): an initiator may change the LUN's path states (Linux's scsi_dh_alua does when"
                + " dm-multipath switches path groups), written back like path set; off: TPGS 01b, implicit only, the"
                + " states stay the operator's (docs/multipath.md); NVMe: -");

        private final String key;
        private final String defaultText;
        private final String doc;

        Command(String key, String defaultText, String doc) {
            this.key = key;
            this.defaultText = defaultText;
            this.doc = doc;
        }

        public String key() {
            return key;
        }

        /** The default in words. */
        public String defaultText() {
            return defaultText;
        }

        /** One line: what it switches, on SCSI and on NVMe. */
        public String doc() {
            return doc;
        }
    }

    /**
     * The keys of {@code limits:} (the declaration of the section); every one but {@link #MAX_UNMAP_DESCRIPTORS} is
     * a size in bytes, a multiple of the logical block size.
     */
    public enum Limit {
        MAX_TRANSFER("max-transfer", "8 MiB", "1MiB", "the largest transfer. SCSI: MAXIMUM TRANSFER LENGTH (Block"
                + " Limits VPD), enforced on every read / write / verify (queue/max_sectors_kb); NVMe: - (MDTS is"
                + " per controller: session.mdts)"),
        OPTIMAL_TRANSFER("optimal-transfer", "max(1 MiB, the physical block size); NVMe: the physical block size",
                "256KiB", "SCSI OPTIMAL TRANSFER LENGTH (queue/optimal_io_size); NVMe NOWS unless limits.nows is"
                + " given; at most max-transfer, a multiple of optimal-transfer-granularity"),
        OPTIMAL_TRANSFER_GRANULARITY("optimal-transfer-granularity", "the physical block size", "64KiB",
                "SCSI OPTIMAL TRANSFER LENGTH GRANULARITY; NVMe NPWG and NPWA unless limits.npwg / npwa are given"),
        MAX_UNMAP("max-unmap", "no limit", "16MiB", "SCSI MAXIMUM UNMAP LBA COUNT (in bytes here), enforced by UNMAP"
                + " (queue/discard_max_hw_bytes); NVMe: -"),
        MAX_UNMAP_DESCRIPTORS("max-unmap-descriptors", "256", 64, "SCSI MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT (a"
                + " count, 1 .. 4095), enforced by UNMAP; NVMe: -"),
        UNMAP_GRANULARITY("unmap-granularity", "the physical block size", "64KiB", "SCSI OPTIMAL UNMAP GRANULARITY"
                + " (queue/discard_granularity); NVMe NPDG and NPDA unless limits.npdg / npda are given"),
        UNMAP_ALIGNMENT("unmap-alignment", "0", "0", "SCSI UNMAP GRANULARITY ALIGNMENT (UGAVALID = 1), smaller than"
                + " unmap-granularity; NVMe: - (NPDA counts blocks, not an offset)"),
        MAX_WRITE_SAME("max-write-same", "1 GiB", "8MiB", "SCSI MAXIMUM WRITE SAME LENGTH, enforced by WRITE SAME"
                + " (queue/write_zeroes_max_bytes); only while WRITE SAME is on; NVMe: -"),
        NPWG("npwg", "optimal-transfer-granularity, else the physical block size", "16KiB", "NVMe NPWG, preferred"
                + " write granularity (nvme id-ns npwg; Linux minimum_io_size); SCSI: -"),
        NPWA("npwa", "npwg", "16KiB", "NVMe NPWA, preferred write alignment (nvme id-ns npwa); SCSI: -"),
        NPDG("npdg", "unmap-granularity, else the physical block size", "64KiB", "NVMe NPDG, preferred deallocate"
                + " granularity (Linux discard_granularity = max(NPDG, NPDA)); SCSI: -"),
        NPDA("npda", "npdg", "64KiB", "NVMe NPDA, preferred deallocate alignment (nvme id-ns npda); SCSI: -"),
        NOWS("nows", "optimal-transfer, else the physical block size", "256KiB", "NVMe NOWS, optimal write size"
                + " (nvme id-ns nows, queue/optimal_io_size), a multiple of npwg; SCSI: -");

        private final String key;
        private final String defaultText;
        private final Object example;
        private final String doc;

        Limit(String key, String defaultText, Object example, String doc) {
            this.key = key;
            this.defaultText = defaultText;
            this.example = example;
            this.doc = doc;
        }

        public String key() {
            return key;
        }

        public String defaultText() {
            return defaultText;
        }

        /** A valid value at 4 KiB logical blocks, as a LUN file writes it. */
        public Object example() {
            return example;
        }

        public String doc() {
            return doc;
        }

        public boolean isSize() {
            return this != MAX_UNMAP_DESCRIPTORS;
        }
    }

    /** The keys of {@code identity:} (the declaration of the section): the names the initiator sees. */
    public enum Identity {
        VENDOR("vendor", "BLKTARGT", "ACME", "SCSI T10 VENDOR IDENTIFICATION of INQUIRY (device/vendor), up to 8"
                + " ASCII characters; NVMe: -"),
        PRODUCT("product", "blocktarget", "KnobDisk", "SCSI PRODUCT IDENTIFICATION (device/model), up to 16; NVMe"
                + " model number MN (per subsystem: LUN files of one subsystem must agree)"),
        REVISION("revision", "0.1", "1.0", "SCSI PRODUCT REVISION LEVEL (device/rev), up to 4; NVMe firmware revision"
                + " FR (per subsystem)"),
        SERIAL("serial", "a hash of the LUN name", "KNOB0001", "SCSI Unit Serial Number VPD 80h; NVMe serial number"
                + " SN (per subsystem), up to 20 ASCII characters"),
        NAA("naa", "a hash of the LUN name", "6001405abcdef0123456789abcdef012", "SCSI NAA 6h designator of the"
                + " Device Identification VPD 83h (/dev/disk/by-id/wwn-0x...): 32 hex digits starting with 6; NVMe: -"),
        NGUID("nguid", "a hash of the LUN name", "0123456789abcdef0123456789abcdef", "NVMe NGUID (Identify Namespace,"
                + " descriptor type 2h): 32 hex digits, not all zero; SCSI: -"),
        EUI64("eui64", "a hash of the LUN name", "0123456789abcdef", "NVMe EUI-64 (Identify Namespace, descriptor"
                + " type 1h): 16 hex digits, not all zero; SCSI: -");

        private final String key;
        private final String defaultText;
        private final String example;
        private final String doc;

        Identity(String key, String defaultText, String example, String doc) {
            this.key = key;
            this.defaultText = defaultText;
            this.example = example;
            this.doc = doc;
        }

        public String key() {
            return key;
        }

        public String defaultText() {
            return defaultText;
        }

        public String example() {
            return example;
        }

        public String doc() {
            return doc;
        }
    }

    /**
     * The keys of {@code session:}: what an NVMe controller or an iSCSI session is given when it is set up (Connect /
     * login). A change applies to controllers and sessions set up after it; existing ones keep what they negotiated.
     */
    public enum Session {
        MDTS("mdts", true, true, 1L << 20, "512KiB", "NVMe MDTS (Identify Controller), a power of two from 4 KiB to"
                + " 128 MiB, at least the logical block size; enforced: a longer Read / Write is Invalid Field in"
                + " Command (nvme id-ctrl mdts, queue/max_hw_sectors_kb)"),
        IN_CAPSULE_DATA("in-capsule-data", true, true, 256L << 10, "8KiB", "NVMe in-capsule data of I/O queues"
                + " (IOCCSZ = 4 + this / 16): a multiple of 16 bytes up to mdts; more is Data SGL Length Invalid"),
        IO_QUEUES("io-queues", false, true, 128, 2, "NVMe I/O queues Set Features Number of Queues grants, 1 .. 128; a"
                + " Connect to a QID above it is refused (/sys/class/nvme/nvmeX/queue_count - 1)"),
        QUEUE_SIZE("queue-size", false, true, 1024, 64, "NVMe I/O queue entries, CAP.MQES + 1 and MAXCMD, 2 .. 1024; a"
                + " Connect with a larger SQSIZE is refused (/sys/class/nvme/nvmeX/sqsize + 1)"),
        MAX_RECV_DATA_SEGMENT_LENGTH("max-recv-data-segment-length", true, false, 256L << 10, "64KiB", "iSCSI"
                + " MaxRecvDataSegmentLength the target declares (RFC 7143 §13.12), 512 .. 2^24 - 1; enforced: a"
                + " longer segment closes the connection"),
        FIRST_BURST_LENGTH("first-burst-length", true, false, 256L << 10, "64KiB", "iSCSI FirstBurstLength the target"
                + " offers / accepts at most (§13.14), at most max-burst-length; unsolicited data beyond it closes the"
                + " connection"),
        MAX_BURST_LENGTH("max-burst-length", true, false, 1L << 20, "128KiB", "iSCSI MaxBurstLength the target offers /"
                + " accepts at most (§13.13): R2Ts and Data-In sequences are cut at it"),
        QUEUE_DEPTH("queue-depth", false, false, 128, 32, "iSCSI CmdSN window MaxCmdSN - ExpCmdSN + 1 (§4.2.2.1), 1 .."
                + " 65535, from the first Login Response on; commands outside it are dropped");

        private final String key;
        private final boolean size;
        private final boolean nvme;
        private final long defaultValue;
        private final Object example;
        private final String doc;

        Session(String key, boolean size, boolean nvme, long defaultValue, Object example, String doc) {
            this.key = key;
            this.size = size;
            this.nvme = nvme;
            this.defaultValue = defaultValue;
            this.example = example;
            this.doc = doc;
        }

        /** Today's value, used when no LUN file of the target / subsystem gives the key. */
        public long defaultValue() {
            return defaultValue;
        }

        public String key() {
            return key;
        }

        public Object example() {
            return example;
        }

        /** One line: what it is and what the initiator sees. */
        public String doc() {
            return doc;
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
