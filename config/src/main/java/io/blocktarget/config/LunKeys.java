package io.blocktarget.config;

import static io.blocktarget.config.ChangeRule.IN_PLACE;
import static io.blocktarget.config.ChangeRule.REEXPORT;
import static io.blocktarget.config.ChangeRule.REOPEN;
import static io.blocktarget.config.ChangeRule.REPLACE;
import static io.blocktarget.config.ChangeRule.RESIZE;
import static io.blocktarget.config.Key.keys;

import io.blocktarget.config.DeviceKnobs.Command;
import io.blocktarget.config.DeviceKnobs.Identity;
import io.blocktarget.config.DeviceKnobs.Limit;
import io.blocktarget.config.DeviceKnobs.Session;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Every key of a LUN file {@code luns.d/NAME.yaml}, declared once ({@link Key}); the keys of one {@code faults:}
 * entry are {@link FaultKeys}, those of {@code commands:}, {@code limits:}, {@code identity:} and {@code session:}
 * the constants of {@link DeviceKnobs.Command}, {@link DeviceKnobs.Limit}, {@link DeviceKnobs.Identity} and
 * {@link DeviceKnobs.Session}. The order is the order of the reference and of "allowed keys" in problems.
 *
 * <p>Change rules (what the server does today): the knobs, fault rules, access settings and session values are
 * applied to the open device in place; {@code size} resizes; the exports move (re-export); the file backend's
 * {@code create} and {@code direct-io} reopen the file; everything else — backend, geometry, another file,
 * {@code read-only}, atomic, zoned and placement layouts — replaces the device.
 */
public final class LunKeys {
    private LunKeys() {
    }

    // ---- value types of this file (the readers take them from here)

    static final String BACKEND_ALLOWED = "ram, file or null";
    static final ValueType<BackendKind> BACKEND_TYPE = ValueType.oneOf("a backend", List.of(BackendKind.values()),
            BackendKind::configName, BACKEND_ALLOWED).withSchema(ValueType.schema(
            // YAML reads an unquoted null as null: the reader takes its text, so the schema takes both
            "enum", Arrays.asList("ram", "file", "null", null)));

    static final int MIN_LOGICAL_BLOCK_SIZE = 512;
    static final int MAX_LOGICAL_BLOCK_SIZE = 64 * 1024;
    static final int MAX_PHYSICAL_BLOCK_SIZE = 32 * 1024 * 1024;
    /** The physical block size of a 512-byte-sector LUN unless given: 512e, like nearly all disks sold today. */
    static final int DEFAULT_PHYSICAL_BLOCK_SIZE_FOR_512 = 4096;
    static final String LBS_ALLOWED = "a power of two from 512 B to 64 KiB";
    static final String PBS_ALLOWED = "a power of two from the logical block size to 32 MiB";
    static final ValueType<Long> LBS_TYPE = blockSize(LBS_ALLOWED, MIN_LOGICAL_BLOCK_SIZE, MAX_LOGICAL_BLOCK_SIZE);
    static final ValueType<Long> PBS_TYPE = blockSize(PBS_ALLOWED, MIN_LOGICAL_BLOCK_SIZE, MAX_PHYSICAL_BLOCK_SIZE);
    static final String PATH_ALLOWED = "a path to a regular file or block device, relative to the config directory"
            + " or absolute";

    /** SAM-5 §4.7.7 flat space addressing, as Linux uses it: 14-bit LUNs. */
    static final int MAX_ISCSI_LUN = 16383;
    /** NVMe Base §3.2.1: 0 and FFFFFFFFh are never the NSID of a namespace. */
    static final long MAX_NSID = 0xFFFF_FFFEL;
    static final String UUID_ALLOWED = "a UUID in RFC 4122 text form, 8-4-4-4-12 hex digits, e.g."
            + " 91fdba0d-f87b-4c25-b80f-db7be1418b9e, not the nil UUID";
    private static final String UUID_TEXT = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
            + "-[0-9a-fA-F]{12}";
    /**
     * RFC 4122 §3 text form only: {@code UUID.fromString} also takes short groups ("1-2-3-4-5"). The nil UUID is
     * refused: NVMe Base §5.1.13.2.3 reads an all-zero UUID field as "no UUID".
     */
    static final ValueType<UUID> UUID_TYPE = ValueType.text("a UUID", UUID_ALLOWED, text -> {
        if (!Pattern.matches(UUID_TEXT, text)) {
            throw new InvalidValue(text + " is not a UUID", UUID_ALLOWED);
        }
        UUID uuid = UUID.fromString(text);
        if (uuid.getMostSignificantBits() == 0 && uuid.getLeastSignificantBits() == 0) {
            throw new InvalidValue(text + " is the nil UUID", UUID_ALLOWED);
        }
        return uuid;
    }).withSchema(ValueType.schema("type", "string", "pattern", "^" + UUID_TEXT + "$"));

    /** RFC 7143 §6.1: text values are at most 255 bytes; open-iscsi keeps CHAP names and secrets in 256-byte buffers.
     */
    static final int MAX_CHAP_BYTES = 255;
    static final String USER_ALLOWED = "1 to 255 bytes of printable ASCII without spaces (sent as CHAP_N, RFC 7143"
            + " §12.1.3; open-iscsi's node.session.auth.username holds at most 255)";
    static final ValueType<String> USER_TYPE = ValueType.text("a CHAP user name", USER_ALLOWED, text -> {
        if (text.isEmpty()) {
            throw new InvalidValue("an empty name", USER_ALLOWED);
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c <= ' ' || c >= 0x7F) {
                throw new InvalidValue(text + " contains " + (c == ' ' ? "a space" : String.format("U+%04X", (int) c)),
                        USER_ALLOWED);
            }
        }
        if (text.length() > MAX_CHAP_BYTES) {
            throw new InvalidValue(text + " is " + text.length() + " bytes long", USER_ALLOWED);
        }
        return text;
    }).withSchema(ValueType.schema("type", "string", "pattern", "^[!-~]{1,255}$"));
    static final String SECRET_ALLOWED = "a regular file holding the secret: 12 to 255 bytes of UTF-8 text without"
            + " control characters, one trailing newline ignored (RFC 7143 §9.2.1: a CHAP secret of fewer than 96"
            + " random bits needs IPsec; open-iscsi's node.session.auth.password holds at most 255 bytes)";
    static final String HOSTS_ALLOWED = "a list of host NQNs, e.g. [nqn.2014-08.org.nvmexpress:uuid:UUID] as in"
            + " /etc/nvme/hostnqn; leave hosts out to admit any host";
    static final String INITIATORS_ALLOWED = "a list of iSCSI initiator names, e.g. [iqn.2004-10.com.ubuntu:01:abc] as"
            + " in /etc/iscsi/initiatorname.iscsi; leave initiators out to admit any initiator";
    static final ValueType<TlsMode> TLS_MODE_TYPE = ValueType.oneOf("a TLS mode", List.of(TlsMode.values()),
            TlsMode::word, TlsMode.ALLOWED_TEXT);

    static final ValueType<ZonedConfig.Model> ZONE_MODEL_TYPE = ValueType.oneOf("a zone model",
            List.of(ZonedConfig.Model.values()), ZonedConfig.Model::configName);

    // ---- the keys

    public static final Key<BackendKind> BACKEND = Key.value("backend", BACKEND_TYPE).required().rule(REPLACE)
            .doc("where the blocks live: ram (a sparse RAM disk counted against memory-budget), file (a regular file"
                    + " or block device, the \"loop device\") or null (reads zeros, discards writes)")
            .example("ram");
    public static final Key<Long> SIZE = Key.value("size", Sizes.SIZE_TYPE).requiredWhen(BACKEND, "ram", "null")
            .defaultText("required for ram and null; file: the size of the existing file (and required with create:"
                    + " true while the file is missing)")
            .rule(RESIZE)
            .doc("the capacity: a positive multiple of the physical block size; a file LUN's given size must equal"
                    + " its file's")
            .example("1GiB");
    public static final Key<Long> LOGICAL_BLOCK_SIZE = Key.value("logical-block-size", LBS_TYPE)
            .defaults((long) MIN_LOGICAL_BLOCK_SIZE, "512").rule(REPLACE)
            .doc("the block the initiator addresses (SCSI logical block, NVMe LBA data size)")
            .example("4KiB");
    public static final Key<Long> PHYSICAL_BLOCK_SIZE = Key.value("physical-block-size", PBS_TYPE)
            .defaultText("4096 when the logical block size is 512 (512e, like most disks), else the logical block size")
            .rule(REPLACE)
            .doc("the block the medium writes at once, at least the logical block size (SCSI LOGICAL BLOCKS PER"
                    + " PHYSICAL BLOCK EXPONENT; NVMe NPWG / NAWUPF: Linux physical_block_size, minimum_io_size); on"
                    + " ram also the unit memory is allocated in (at least 64 KiB); a 2 MiB region written whole"
                    + " (in the first 32 GiB of the server's RAM LUNs), or a unit of 2 MiB or more, is on transparent"
                    + " huge pages")
            .example("16KiB");
    public static final Key<Boolean> READ_ONLY = Key.value("read-only", ValueType.BOOLEAN).defaults(false, "false")
            .rule(REPLACE)
            .doc("writes fail: SCSI DATA PROTECT for every command that writes the medium (also those not implemented;"
                    + " an initiator can also set SWP in the Control mode page), NVMe Namespace Is Write Protected")
            .example(true);

    public static final Key<String> ISCSI_TARGET = Key.value("target", Names.IQN_TYPE)
            .defaultText("iqn-prefix + the LUN name")
            .doc("the iSCSI target's IQN (RFC 3720 §3.2.6.3.1); several LUN files may share a target with different"
                    + " lun numbers")
            .example("iqn.2026-11.io.blocktarget:shared");
    public static final Key<Long> ISCSI_LUN = Key.value("lun",
                    ValueType.integer(0, MAX_ISCSI_LUN, "0.." + MAX_ISCSI_LUN))
            .defaults(0L, "0").doc("the LUN number within the target").example(1);
    public static final Key<Void> ISCSI = Key.sectionOrBoolean("iscsi", "an export", keys(ISCSI_TARGET, ISCSI_LUN))
            .defaultText("true: target iqn-prefix + name, LUN 0")
            .doc("the iSCSI export: false (not exported over iSCSI), true or a map of target and lun");
    public static final Key<String> NVME_SUBSYSTEM = Key.value("subsystem", Names.NQN_TYPE)
            .defaultText("nqn-prefix + the LUN name")
            .doc("the NVM subsystem's NQN (NVMe Base §4.5); several LUN files may share a subsystem with different"
                    + " nsid")
            .example("nqn.2026-11.io.blocktarget:shared");
    public static final Key<Long> NVME_NSID = Key.value("nsid", ValueType.integer(1, MAX_NSID,
                    "1..4294967294 (0xFFFFFFFE)"))
            .defaults(1L, "1").doc("the namespace ID within the subsystem").example(2);
    public static final Key<UUID> NVME_UUID = Key.value("uuid", UUID_TYPE).defaultText("derived from the LUN name")
            .doc("the namespace UUID (Identify descriptor NIDT 3h); unique across LUNs (Linux merges namespaces of one"
                    + " UUID into one multipath head)")
            .example("91fdba0d-f87b-4c25-b80f-db7be1418b9e");
    public static final Key<Void> NVME = Key.sectionOrBoolean("nvme", "an export",
                    keys(NVME_SUBSYSTEM, NVME_NSID, NVME_UUID))
            .defaultText("true: subsystem nqn-prefix + name, NSID 1")
            .doc("the NVMe/TCP export: false (not exported over NVMe/TCP), true or a map of subsystem, nsid and uuid");
    public static final Key<Void> EXPORT = Key.section("export", "an export map", keys(ISCSI, NVME)).rule(REEXPORT)
            .doc("how the LUN is exported; no two LUN files may export one target and LUN, one subsystem and NSID, or"
                    + " one namespace UUID");

    public static final Key<String> CHAP_USER = Key.value("user", USER_TYPE).required()
            .doc("the CHAP name (CHAP_N) the initiator must send").example("initiator1");
    public static final Key<String> CHAP_SECRET_FILE = Key.value("secret-file", ValueType.path(SECRET_ALLOWED))
            .required()
            .doc("file holding the initiator's CHAP secret (12 to 255 bytes of UTF-8 text, one trailing newline"
                    + " ignored), relative to the config directory; never printed")
            .example("secrets/initiator1.secret");
    public static final Key<String> CHAP_MUTUAL_USER = Key.value("mutual-user", USER_TYPE)
            .defaultText("none (one-way CHAP)")
            .doc("mutual CHAP: the name the target answers with")
            .example("target1");
    public static final Key<String> CHAP_MUTUAL_SECRET_FILE = Key.value("mutual-secret-file",
                    ValueType.path(SECRET_ALLOWED))
            .doc("mutual CHAP: file holding the target's secret, different from the initiator's")
            .example("secrets/target1.secret");
    /** The keys of a CHAP map: {@code access.chap} here, {@code discovery-chap} in blocktarget.yaml. */
    static final List<Key<?>> CHAP_KEYS = keys(CHAP_USER, CHAP_SECRET_FILE,
            CHAP_MUTUAL_USER.needs(CHAP_MUTUAL_SECRET_FILE), CHAP_MUTUAL_SECRET_FILE.needs(CHAP_MUTUAL_USER));
    public static final Key<Void> CHAP = Key.section("chap", "a CHAP map", CHAP_KEYS)
            .defaultText("none (AuthMethod=None)")
            .doc("iSCSI CHAP (RFC 7143 §12.1.3, CHAP_A=5 MD5) for the LUN's target; LUN files sharing a target must"
                    + " agree; needs an iSCSI export");
    public static final Key<String> HOSTS = Key.list("hosts", Names.NQN_TYPE).defaultText("any host")
            .doc("the NVMe host NQNs (/etc/nvme/hostnqn) allowed to connect to the LUN's subsystem; others get Connect"
                    + " Invalid Host; LUN files sharing a subsystem must agree; needs an NVMe export")
            .example(List.of("nqn.2014-08.org.nvmexpress:uuid:6e1c2f3a-3b1d-4c8e-9a55-1a2b3c4d5e6f"));
    public static final Key<String> INITIATORS = Key.list("initiators", Names.IQN_TYPE).defaultText("any initiator")
            .doc("the iSCSI initiator names (/etc/iscsi/initiatorname.iscsi) allowed to log in to the LUN's target;"
                    + " others get login status 0202 and do not see the target in SendTargets")
            .example(List.of("iqn.2004-10.com.ubuntu:01:abc"));
    public static final Key<String> DHCHAP_HOST_SECRET_FILE = Key.value("host-secret-file",
                    ValueType.path(DhchapReader.ALLOWED)).required()
            .doc("file holding the keys hosts must prove (nvme connect --dhchap-secret): one key as nvme"
                    + " gen-dhchap-key prints it (DHHC-1:xx:...:) for every host, or lines HOSTNQN DHHC-1:xx:...: (*"
                    + " for every host not listed, # comments), relative to the config directory")
            .example("host.key");
    public static final Key<String> DHCHAP_CTRL_SECRET_FILE = Key.value("ctrl-secret-file",
                    ValueType.path(DhchapReader.ALLOWED))
            .defaultText("none (unidirectional)")
            .doc("bidirectional DH-HMAC-CHAP: the controller's keys (--dhchap-ctrl-secret), same format; a host's"
                    + " controller key must differ from its host key")
            .example("ctrl.key");
    public static final Key<Void> DHCHAP = Key.section("dhchap", "a DH-HMAC-CHAP map",
                    keys(DHCHAP_HOST_SECRET_FILE, DHCHAP_CTRL_SECRET_FILE))
            .defaultText("none (no in-band authentication)")
            .doc("NVMe in-band authentication (DH-HMAC-CHAP, NVMe Base 2.x §8.3.4) of the LUN's subsystem; needs an"
                    + " NVMe export");
    public static final Key<TlsMode> TLS = Key.value("tls", TLS_MODE_TYPE).defaults(TlsMode.OFF, "off")
            .doc("NVMe/TCP TLS 1.3 with a configured PSK for the LUN's subsystem: required, allowed (TLS or plain) or"
                    + " off; the discovery log says it in TREQ and TSAS; needs an NVMe export")
            .example("required");
    public static final Key<String> TLS_PSK_FILE = Key.value("tls-psk-file", ValueType.path(TlsPsk.ALLOWED))
            .requiredWhen(TLS, "required", "allowed").onlyWhen(TLS, "required", "allowed")
            .defaultText("required with tls: required or allowed")
            .doc("file holding the configured PSK as nvme gen-tls-key prints it (NVMeTLSkey-1:01:...: SHA-256 / 32"
                    + " bytes, 02 SHA-384 / 48 bytes), relative to the config directory")
            .example("tls.psk");
    public static final Key<Void> ACCESS = Key.section("access", "an access map", keys(CHAP, HOSTS, INITIATORS, DHCHAP,
                    TLS, TLS_PSK_FILE))
            .rule(IN_PLACE)
            .doc("who may reach the LUN; secrets come from files and are never printed");

    public static final Key<String> PATH = Key.value("path", ValueType.path(PATH_ALLOWED)).rule(REPLACE)
            .requiredWhen(BACKEND, "file").onlyWhen(BACKEND, "file")
            .defaultText("required with backend: file")
            .doc("file backend: the regular file or block device (another file is another disk: the LUN is replaced)")
            .example("disks/file-4k.img");
    public static final Key<Boolean> CREATE = Key.value("create", ValueType.BOOLEAN).defaults(false, "false")
            .onlyWhen(BACKEND, "file")
            .rule(REOPEN)
            .doc("file backend: create a sparse file of size (and its directories) when path is missing")
            .example(true);
    public static final Key<Boolean> DIRECT_IO = Key.value("direct-io", ValueType.BOOLEAN).defaults(false, "false")
            .onlyWhen(BACKEND, "file")
            .rule(REOPEN)
            .doc("file backend: open with O_DIRECT, bypassing the page cache (not on tmpfs)")
            .example(true);

    static final ValueType<Long> POWER_OF_TWO_SIZE = Sizes.SIZE_TYPE;
    public static final Key<Long> ATOMIC_MAX_BYTES = Key.value("max-bytes", POWER_OF_TWO_SIZE).required()
            .doc("the largest write applied all or nothing: a power of two from the logical block size to 1 MiB (SCSI"
                    + " MAXIMUM ATOMIC TRANSFER LENGTH; NVMe NAWUN / NAWUPF)")
            .example("64KiB");
    public static final Key<Long> ATOMIC_BOUNDARY_BYTES = Key.value("boundary-bytes", POWER_OF_TWO_SIZE)
            .defaults(0L, "0 (none)")
            .doc("atomic writes may not cross a multiple of it: 0 or a power of two from max-bytes (NVMe NABSN /"
                    + " NABSPF)")
            .example("128KiB");
    public static final Key<Long> ATOMIC_GRANULARITY_BYTES = Key.value("granularity-bytes", POWER_OF_TWO_SIZE)
            .defaultText("the logical block size")
            .doc("SCSI WRITE ATOMIC lengths are a multiple of it (ATOMIC TRANSFER LENGTH GRANULARITY), at most"
                    + " max-bytes")
            .example("4KiB");
    public static final Key<Long> ATOMIC_ALIGNMENT_BYTES = Key.value("alignment-bytes", POWER_OF_TWO_SIZE)
            .defaultText("the logical block size")
            .doc("SCSI WRITE ATOMIC starts at a multiple of it (ATOMIC ALIGNMENT), at most max-bytes")
            .example("4KiB");
    public static final Key<Void> ATOMIC = Key.section("atomic", "an atomic write section", keys(ATOMIC_MAX_BYTES,
                    ATOMIC_BOUNDARY_BYTES, ATOMIC_GRANULARITY_BYTES, ATOMIC_ALIGNMENT_BYTES))
            .rule(REPLACE).defaultText("none: nothing beyond one logical block is atomic")
            .onlyWhen(BACKEND, "ram", "null")
            .doc("writes the device applies all or nothing (SBC-4 WRITE ATOMIC(16), NVMe atomic write unit); ram and"
                    + " null only");

    public static final Key<ZonedConfig.Model> ZONE_MODEL = Key.value("model", ZONE_MODEL_TYPE)
            .defaults(ZonedConfig.Model.HOST_MANAGED, "host-managed")
            .doc("the zone model: host-managed (SCSI ZBC-2, NVMe ZNS) only").example("host-managed");
    public static final Key<Long> ZONE_SIZE = Key.value("zone-size", Sizes.SIZE_TYPE).required()
            .doc("a power of two, at least the physical block size; the LUN's size a whole number of zones, at most"
                    + " 2^20 zones")
            .example("64MiB");
    public static final Key<Long> ZONE_CAPACITY = Key.value("zone-capacity", Sizes.SIZE_TYPE).defaultText("zone-size")
            .doc("the writable part of each sequential zone: a multiple of the physical block size, at most zone-size")
            .example("48MiB");
    public static final Key<Long> CONVENTIONAL_ZONES = Key.value("conventional-zones",
                    ValueType.integer(0, ZonedReader.MAX_ZONES - 1, "0 .. the number of zones - 1"))
            .defaults(0L, "0").doc("conventional zones at the start of the LBA space; at least one zone stays"
                    + " sequential")
            .example(1);
    public static final Key<Long> ZONE_MAX_OPEN = Key.value("max-open",
                    ValueType.integer(0, ZonedReader.MAX_ZONES, ZonedReader.LIMIT_ALLOWED))
            .defaults(0L, "0 (no limit)").doc("most zones open at once (SCSI MAXIMUM NUMBER OF OPEN SEQUENTIAL WRITE"
                    + " REQUIRED ZONES; NVMe MOR + 1); with max-active, 1 .. max-active")
            .example(8);
    public static final Key<Long> ZONE_MAX_ACTIVE = Key.value("max-active",
                    ValueType.integer(0, ZonedReader.MAX_ZONES, ZonedReader.LIMIT_ALLOWED))
            .defaults(0L, "0 (no limit)").doc("most zones open or closed at once (NVMe MAR + 1)")
            .example(12);
    public static final Key<Long> ZONE_APPEND_MAX_BYTES = Key.value("zone-append-max-bytes", Sizes.SIZE_TYPE)
            .defaults(0L, "0 (as large as one transfer: MDTS)")
            .doc("the largest Zone Append (NVMe ZASL): 0, or a power of two of at least 4 KiB and the logical block"
                    + " size")
            .example("1MiB");
    public static final Key<Void> ZONED = Key.section("zoned", "a zoned map", keys(ZONE_MODEL, ZONE_SIZE, ZONE_CAPACITY,
                    CONVENTIONAL_ZONES, ZONE_MAX_OPEN, ZONE_MAX_ACTIVE, ZONE_APPEND_MAX_BYTES))
            .rule(REPLACE).defaultText("none (not zoned)").onlyWhen(BACKEND, "ram")
            .doc("a host-managed zoned LUN (SCSI ZBC-2, NVMe ZNS; ram only; no conventional zones over NVMe); its size"
                    + " cannot change");

    public static final Key<Long> PLACEMENT_RECLAIM_UNIT_SIZE = Key.value("reclaim-unit-size", Sizes.SIZE_TYPE)
            .defaults(64L << 20, "64MiB")
            .doc("the reclaim unit: a multiple of the logical block size, at most 2^30 blocks, the LUN at most 2^19"
                    + " of them (NVMe RUNS in the FDP configuration: Linux write_stream_granularity)")
            .example("64MiB");
    public static final Key<Long> PLACEMENT_HANDLES = Key.value("handles",
                    ValueType.integer(1, 126, "1..126 (Linux reads at most 126 placement identifiers)"))
            .defaults(8L, "8")
            .doc("NVMe placement handles (FDP reclaim unit handles; Linux max_write_streams)")
            .example(8);
    public static final Key<Long> PLACEMENT_STREAMS = Key.value("streams",
                    ValueType.integer(1, 63, "1..63 (GROUP NUMBER is six bits, 0 meaning no stream)"))
            .defaults(6L, "6")
            .doc("SCSI permanent streams, GROUP NUMBER 1..streams (sd maps the lifetime hints NONE..EXTREME onto 1..5"
                    + " when at least six are permanent)")
            .example(6);
    public static final Key<Long> PLACEMENT_OVER_PROVISIONING = Key.value("over-provisioning",
                    PlacementReader.PERCENT_TYPE)
            .defaults(700L, "7%")
            .doc("spare media of the model beyond the capacity: less spare, more valid data moved by reclaim")
            .example("7%");
    public static final Key<Void> PLACEMENT = Key.section("placement", "a placement map",
                    keys(PLACEMENT_RECLAIM_UNIT_SIZE, PLACEMENT_HANDLES, PLACEMENT_STREAMS,
                            PLACEMENT_OVER_PROVISIONING))
            .rule(REPLACE).defaultText("none: no placement advertised (no FDP, no streams)")
            .doc("data placement: NVMe Flexible Data Placement and SCSI permanent streams, with a media model that"
                    + " counts host and media writes (write amplification) per handle and stream; {} takes every"
                    + " default; fixed for the namespace's life");

    public static final Key<Void> COMMANDS = Key.section("commands", "a map of command: true or false",
                    Arrays.stream(Command.values()).<Key<?>>map(c -> Key.value(c.key(), ValueType.BOOLEAN)
                            .defaultText(c.defaultText()).doc(c.doc()).example(true)).toList())
            .rule(IN_PLACE)
            .doc("switch optional commands on or off; iSCSI initiators get a unit attention, NVMe hosts a namespace"
                    + " change notice (controller fields ONCS / VWC: reconnect)");
    public static final Key<Void> LIMITS = Key.section("limits", "a limits map",
                    Arrays.stream(Limit.values()).<Key<?>>map(l -> Key.value(l.key(), l.isSize() ? Sizes.SIZE_TYPE
                                    : ValueType.integer(1, KnobsReader.MAX_UNMAP_DESCRIPTORS,
                                    "1.." + KnobsReader.MAX_UNMAP_DESCRIPTORS))
                            .defaultText(l.defaultText()).doc(l.doc()).example(l.example())).toList())
            .rule(IN_PLACE)
            .doc("advertised (and where said, enforced) limits; sizes in bytes, multiples of the logical block size");
    public static final Key<Boolean> ROTATIONAL = Key.value("rotational", ValueType.BOOLEAN)
            .defaultText("false (non-rotating)").rule(IN_PLACE)
            .doc("the medium rotates: SCSI MEDIUM ROTATION RATE 7200 / 1 (queue/rotational); NVMe CNS 08h NSFEAT bit 4"
                    + " (queue/rotational, Linux 7.x)")
            .example(true);
    public static final Key<Boolean> REMOVABLE = Key.value("removable", ValueType.BOOLEAN)
            .defaultText("false (a fixed disk)").rule(IN_PLACE)
            .doc("a removable medium (SCSI): RMB in INQUIRY, PREVENT ALLOW MEDIUM REMOVAL, START STOP UNIT eject / load"
                    + " (NOT READY / MEDIUM NOT PRESENT while ejected)")
            .example(true);
    public static final Key<Long> SANITIZE_DURATION = Key.value("sanitize-duration", FaultKeys.DURATION_TYPE)
            .defaultText("none (as fast as the backend)").rule(IN_PLACE)
            .doc("the least time a SCSI SANITIZE takes, so that NOT READY / SANITIZE IN PROGRESS with its progress"
                    + " indication can be observed (SBC-4 §4.11)")
            .example("2s");
    public static final Key<Void> IDENTITY = Key.section("identity", "an identity map",
                    Arrays.stream(Identity.values()).<Key<?>>map(k -> Key.value(k.key(), KnobsReader.identityType(k))
                            .defaultText(k.defaultText()).doc(k.doc()).example(k.example())).toList())
            .rule(IN_PLACE)
            .doc("the names the initiator sees");
    public static final Key<Void> FAULTS = Key.listOfSections("faults", "a fault rule", FaultKeys.RULE)
            .rule(IN_PLACE).defaultText("none")
            .doc("fault rules: which commands (match), when (trigger) and what they get (action); see docs/faults.md");
    public static final Key<Void> SESSION = Key.section("session", "a session map",
                    Arrays.stream(Session.values()).<Key<?>>map(k -> Key.value(k.key(), KnobsReader.sessionType(k))
                            .defaults(k.defaultValue(), k.isSize() ? Sizes.format(k.defaultValue())
                                    : Long.toString(k.defaultValue()))
                            .doc(k.doc()).example(k.example())).toList())
            .rule(IN_PLACE)
            .doc("what an iSCSI session or NVMe controller negotiates: reaches new sessions and controllers only;"
                    + " LUN files of one target / subsystem must agree");

    static final ValueType<PathState> PATH_STATE_TYPE = ValueType.oneOf("a path state",
            List.of(PathState.values()), PathState::word, PathState.ALLOWED);
    public static final Key<PathState> PATHS = Key.map("paths", PATH_STATE_TYPE, "a map of portal: state")
            .rule(IN_PLACE).defaultText("optimized on every portal")
            .doc("the LUN's state on each portal of blocktarget.yaml (a portal left out: optimized), as SCSI ALUA and"
                    + " NVMe ANA report it (docs/multipath.md); blocktarget path set and a reload change it in place,"
                    + " initiators are told")
            .example(java.util.Map.of(PortalConfig.DEFAULT_NAME, "non-optimized"));

    /** The whole LUN file. */
    public static final Key<Void> LUN = Key.section("", "a LUN definition", keys(BACKEND, SIZE, LOGICAL_BLOCK_SIZE,
            PHYSICAL_BLOCK_SIZE, READ_ONLY, EXPORT, ACCESS, PATH, CREATE, DIRECT_IO, ATOMIC, ZONED, PLACEMENT, COMMANDS,
            LIMITS, ROTATIONAL, REMOVABLE, SANITIZE_DURATION, IDENTITY, FAULTS, SESSION, PATHS));

    private static final List<KeyPaths.Declared> DECLARED = KeyPaths.walk(LUN, REPLACE);

    /** Every key with its dotted path ({@code export.nvme.nsid}, {@code faults[].action}) and change rule. */
    public static List<KeyPaths.Declared> declared() {
        return DECLARED;
    }

    /**
     * Checks a dotted key path as {@code lun add --set} and {@code lun set} take it ({@code export.nvme.nsid}, a
     * section such as {@code access}, or a list such as {@code faults}).
     *
     * @return empty when it is a key of a LUN file, else what is wrong and what is allowed (with a close key)
     */
    public static Optional<String> checkPath(String dotted) {
        return KeyPaths.check(LUN, dotted);
    }

    private static ValueType<Long> blockSize(String allowed, long min, long max) {
        List<Long> powers = new ArrayList<>();
        for (long p = min; p <= max; p <<= 1) {
            powers.add(p);
        }
        return ValueType.text("a block size", allowed, text -> {
            long bytes = Sizes.parse(text);
            if (!Sizes.isPowerOfTwo(bytes)) {
                throw new InvalidValue(text + " is not a power of two", allowed);
            }
            if (bytes < min || bytes > max) {
                throw new InvalidValue(text + " is out of range", allowed);
            }
            return bytes;
        }).withSchema(ValueType.schema("anyOf", List.of(
                ValueType.schema("type", "integer", "enum", powers),
                ValueType.schema("type", "string", "pattern", Sizes.SIZE_TEXT))));
    }
}
