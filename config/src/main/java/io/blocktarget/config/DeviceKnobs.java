package io.blocktarget.config;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Advertised per-LUN knobs of a LUN file (issue 11 item 1, DESIGN §10): {@code commands:} switches optional commands
 * on or off, {@code limits:} overrides advertised-and-enforced limits, {@code rotational:} the medium, and
 * {@code identity:} the names the initiator sees. Only what the file gives is held: a key that is absent means
 * "what the command sets did before knobs existed" (e.g. WRITE SAME off above 4 KiB blocks, the backend decides the
 * write cache), so {@link #DEFAULTS} is empty and a file without knobs behaves exactly as before.
 *
 * @param commands   explicit {@code commands:} switches
 * @param limits     explicit {@code limits:} values: bytes, or a count for {@link Limit#MAX_UNMAP_DESCRIPTORS}
 * @param rotational {@code rotational:}; empty = non-rotating (today's Block Device Characteristics VPD)
 * @param identity   explicit {@code identity:} strings (hex digits, lower case, for naa / nguid / eui64)
 */
public record DeviceKnobs(Map<Command, Boolean> commands, Map<Limit, Long> limits, Optional<Boolean> rotational,
                          Map<Identity, String> identity) {
    public static final DeviceKnobs DEFAULTS = new DeviceKnobs(Map.of(), Map.of(), Optional.empty(), Map.of());

    public DeviceKnobs {
        commands = copy(commands, Command.class);
        limits = copy(limits, Limit.class);
        Objects.requireNonNull(rotational, "rotational");
        identity = copy(identity, Identity.class);
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
        MAX_WRITE_SAME("max-write-same");

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

    /** True when nothing is given: the LUN behaves as before knobs existed. */
    public boolean isDefault() {
        return commands.isEmpty() && limits.isEmpty() && rotational.isEmpty() && identity.isEmpty();
    }

    public DeviceKnobs withCommands(Map<Command, Boolean> value) {
        return new DeviceKnobs(value, limits, rotational, identity);
    }

    public DeviceKnobs withLimits(Map<Limit, Long> value) {
        return new DeviceKnobs(commands, value, rotational, identity);
    }

    public DeviceKnobs withRotational(Optional<Boolean> value) {
        return new DeviceKnobs(commands, limits, value, identity);
    }

    public DeviceKnobs withIdentity(Map<Identity, String> value) {
        return new DeviceKnobs(commands, limits, rotational, value);
    }

    private static <K extends Enum<K>, V> Map<K, V> copy(Map<K, V> map, Class<K> type) {
        Objects.requireNonNull(map);
        EnumMap<K, V> copy = new EnumMap<>(type);
        map.forEach((k, v) -> copy.put(Objects.requireNonNull(k), Objects.requireNonNull(v)));
        return Collections.unmodifiableMap(copy);
    }
}
