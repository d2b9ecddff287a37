package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ZoneCondition;
import io.blocktarget.block.ZoneListener;
import io.blocktarget.block.Zones;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.DeviceKnobs.Command;
import io.blocktarget.config.DeviceKnobs.Identity;
import io.blocktarget.config.DeviceKnobs.Limit;
import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.protocol.nvme.IdentifyNamespace;
import io.blocktarget.protocol.nvme.IdentifyNamespaceCsIndependent;
import io.blocktarget.protocol.nvme.NamespaceGeometry;
import io.blocktarget.protocol.nvme.NamespaceLists;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;

/**
 * One namespace of an NVM subsystem: its backend and its identity. Nothing about the geometry is cached: Identify
 * and every I/O command read the device's current geometry, so a resize shows at once. NGUID, EUI-64 and UUID are derived
 * from the LUN's name (SHA-256), so they are stable across restarts and distinct between LUNs — Linux
 * rejects two namespaces with the same NGUID and keys multipath on them.
 */
final class Namespace {
    private static final System.Logger LOG = System.getLogger("blocktarget.nvme");
    /** NMIC bit 0: the namespace may be attached to several controllers (the dynamic model gives one per host). */
    static final int NMIC_SHARED = 1;
    /** RESCAP in Identify Namespace (CNS 00h), NVM Command Set Figure "Identify Namespace data structure". */
    static final int RESCAP_OFFSET = 31;

    private final NamespaceSpec spec;
    private final byte[] nguid;
    private final byte[] eui64;
    private final byte[] uuid;
    private final Zones zones;
    private volatile ZoneListener zoneListener;
    /** FDP host events 03h (Invalid Placement Identifier) of this namespace's writes (Fdp), oldest first. */
    private final Fdp.InvalidIdentifiers invalidIdentifiers = new Fdp.InvalidIdentifiers();
    private final Fdp.EventSettings eventSettings = new Fdp.EventSettings();
    /** The optional NVM commands the knobs switch off; empty for nearly every namespace. */
    private final java.util.Set<NvmOpcode> refused;

    Namespace(NamespaceSpec spec) {
        if (spec.nsid() < 1 || spec.nsid() > 0xFFFF_FFFEL) {
            throw new IllegalArgumentException("NSID " + spec.nsid() + " of " + spec.name() + " outside 1..FFFFFFFEh");
        }
        this.spec = spec;
        this.zones = spec.device().zones().orElse(null);
        if (zones != null && zones.layout().conventionalZones() > 0) {
            throw new IllegalArgumentException("zoned LUN " + spec.name() + " has conventional zones, which the NVMe Zoned"
                    + " Namespace Command Set does not have: export it over iSCSI only");
        }
        byte[] hash = sha256("blocktarget namespace " + spec.name());
        DeviceKnobs knobs = spec.features().knobs();
        this.nguid = knobs.identity(Identity.NGUID).map(java.util.HexFormat.of()::parseHex)
                .orElseGet(() -> Arrays.copyOfRange(hash, 0, 16));
        this.eui64 = knobs.identity(Identity.EUI64).map(java.util.HexFormat.of()::parseHex)
                .orElseGet(() -> Arrays.copyOfRange(hash, 16, 24));
        java.util.EnumSet<NvmOpcode> off = java.util.EnumSet.noneOf(NvmOpcode.class);
        for (NvmOpcode op : NvmOpcode.values()) {
            if (!supports(knobs, op)) {
                off.add(op);
            }
        }
        this.refused = off;
        this.uuid = spec.uuid().map(Namespace::bytes).orElseGet(() -> derivedUuid(spec.name()));
        NvmeAtomics.powerFailShortfall(spec.device(), spec.state().atomicWrites()).ifPresent(note -> {
            if (!note.equals(spec.state().caveats().get(CAVEAT_TOPIC))) {
                LOG.log(System.Logger.Level.WARNING, "LUN {0}: {1}", spec.name(), note);
            }
            spec.state().caveat(CAVEAT_TOPIC, note);
        });
    }

    /** The topic of this command set's note in {@link LunState#caveats()}. */
    static final String CAVEAT_TOPIC = "nvme";

    long nsid() {
        return spec.nsid();
    }

    String name() {
        return spec.name();
    }

    BlockDevice device() {
        return spec.device();
    }

    /** The device state shared with the SCSI logical unit of the same LUN: range locks, reservations, in-flight count. */
    LunState state() {
        return spec.state();
    }

    /** The Invalid Placement Identifier events of this namespace's writes (FDP, TP4146). */
    Fdp.InvalidIdentifiers invalidIdentifiers() {
        return invalidIdentifiers;
    }

    /** The FDP event types enabled per placement handle (Set Features 1Eh). */
    Fdp.EventSettings eventSettings() {
        return eventSettings;
    }

    BlockGeometry geometry() {
        return spec.device().geometry();
    }

    /**
     * The zone state when the LUN is zoned (a Zoned Namespace, CSI 02h), else null. ZNS knows only sequential-write-
     * required zones, so a zoned LUN with conventional zones cannot be a namespace: refused at construction.
     */
    Zones zones() {
        return zones;
    }

    /**
     * Feeds the Changed Zone List of {@code subsystem}'s controllers from the zone state (ZNS §5.3.1): a zone the
     * device made Read Only or Offline (a fault rule, the control plane) — changes the host made itself are not
     * listed. Called when the namespace joins the subsystem; {@link #unwatchZones} when it leaves.
     */
    void watchZones(Subsystem subsystem) {
        if (zones != null) {
            ZoneListener listener = (zone, from, cause) -> {
                ZoneCondition to = zone.condition();
                if (cause == ZoneListener.Cause.DEVICE && (to == ZoneCondition.READ_ONLY || to == ZoneCondition.OFFLINE)) {
                    subsystem.controllers().forEach(c -> c.changedZones().zoneChanged(nsid(), zone.start()));
                }
            };
            zoneListener = listener;
            zones.addListener(listener);
        }
    }

    void unwatchZones() {
        ZoneListener listener = zoneListener;
        if (listener != null) {
            zones.removeListener(listener);
            zoneListener = null;
        }
    }

    byte[] nguid() {
        return nguid.clone();
    }

    /** The LUN's knobs ({@code commands:}, {@code limits:}, {@code rotational:}, {@code identity:}). */
    DeviceKnobs knobs() {
        return spec.features().knobs();
    }

    NamespaceSpec spec() {
        return spec;
    }

    /**
     * Whether this namespace executes {@code opcode}: the optional NVM commands {@code commands:} may switch off
     * (Compare, Write Zeroes, Dataset Management = {@code unmap}, Verify, Copy) — the same switches ONCS advertises
     * ({@link IdentifyCommands#oncs}); a switched-off one is Invalid Command Opcode (Base §4.2.3 / NVM Command Set
     * §3). FUA has no switch in NVMe (every Write may set it), so {@code commands.fua} does not apply here.
     */
    boolean supports(NvmOpcode opcode) {
        return supports(knobs(), opcode);
    }

    /** {@link #supports(NvmOpcode)} by operation code, free when no command is switched off (the hot path). */
    boolean supports(int opcode) {
        if (refused.isEmpty()) {
            return true;
        }
        return NvmOpcode.of(opcode).map(op -> !refused.contains(op)).orElse(true);
    }

    static boolean supports(DeviceKnobs knobs, NvmOpcode opcode) {
        Command command = switch (opcode) {
            case COMPARE -> Command.COMPARE;
            case WRITE_ZEROES -> Command.WRITE_ZEROES;
            case DATASET_MANAGEMENT -> Command.UNMAP;
            case VERIFY -> Command.VERIFY;
            case COPY -> Command.COPY;
            default -> null;
        };
        return command == null || knobs.command(command, true);
    }

    /**
     * The 0's based NPWG / NPWA, NPDG / NPDA and NOWS (NVM Command Set Identify Namespace, NSFEAT bit 4 OPTPERF):
     * {@code limits.optimal-transfer-granularity} (also the write alignment), {@code limits.unmap-granularity}
     * (also the deallocate alignment: NPDA counts blocks, unlike SCSI's alignment offset, which has no NVMe twin)
     * and {@code limits.optimal-transfer}; PBS / LBS − 1 each when not given. The NVMe-only keys {@code limits.npwg},
     * {@code npwa}, {@code npdg}, {@code npda}, {@code nows} override each field alone (the alignments follow their
     * granularity unless given).
     */
    int[] preferredGranularities(NamespaceGeometry g) {
        int lbs = g.lbs();
        DeviceKnobs k = knobs();
        int npwg = blocks(k, Limit.NPWG, lbs).orElse(blocks(k, Limit.OPTIMAL_TRANSFER_GRANULARITY, lbs)
                .orElse(g.npwg()));
        int npdg = blocks(k, Limit.NPDG, lbs).orElse(blocks(k, Limit.UNMAP_GRANULARITY, lbs).orElse(g.npdg()));
        int nows = blocks(k, Limit.NOWS, lbs).orElse(blocks(k, Limit.OPTIMAL_TRANSFER, lbs).orElse(g.nows()));
        int npwa = blocks(k, Limit.NPWA, lbs).orElse(npwg);
        int npda = blocks(k, Limit.NPDA, lbs).orElse(npdg);
        return new int[] {npwg, npwa, npdg, npda, nows};
    }

    /** A size knob as the 0's based count of blocks the Identify Namespace fields hold. */
    private static java.util.Optional<Integer> blocks(DeviceKnobs k, Limit limit, int lbs) {
        return k.limit(limit).map(b -> (int) (b / lbs) - 1);
    }

    /** Identify Namespace (CNS 00h): size, LBA format, PBS hints (NPWG/NAWUPF), shared (NMIC), identifiers. */
    void encodeIdentify(ByteBuf out) {
        int start = out.writerIndex();
        BlockGeometry g = geometry();
        NamespaceGeometry geometry = NamespaceGeometry.of(g.logicalBlockSize(), g.physicalBlockSize());
        IdentifyNamespace plain = IdentifyNamespace.of(g.blockCount(), geometry, nguid, eui64, device().readOnly());
        int[] p = preferredGranularities(geometry);
        new IdentifyNamespace(plain.nsze(), plain.ncap(), plain.nuse(), NvmeAtomics.nsfeat(this, plain.nsfeat()),
                plain.flbas(), NMIC_SHARED, plain.dlfeat(), NvmeAtomics.nawun(this), NvmeAtomics.nawupf(this),
                NvmeAtomics.nacwu(this), NvmeAtomics.nabspf(this), plain.noiob(),
                p[0], p[1], p[2], p[3], p[4], plain.anagrpid(),
                plain.nsattr(), nguid, eui64, plain.lbaFormats()).encode(out);
        out.setByte(start + RESCAP_OFFSET, ReservationCommands.rescap(this)); // Identify Namespace byte 31
        out.setShortLE(start + NvmeAtomics.NABSN_OFFSET, NvmeAtomics.nabsn(this)); // NABSN; NABO = 0
    }

    /** I/O Command Set Independent Identify Namespace (CNS 08h): ready, shared, VWC presence per namespace. */
    void encodeIdentifyCsIndependent(ByteBuf out) {
        IdentifyNamespaceCsIndependent ready = IdentifyNamespaceCsIndependent.ready(device().readOnly());
        // bit 5 per namespace like VWC in Identify Controller (commands.write-cache first); bit 4 = rotational:
        boolean cache = knobs().command(Command.WRITE_CACHE, device().volatileWriteCache());
        int nsfeat = (cache ? 0 : IdentifyNamespaceCsIndependent.NSFEAT_VWC_NOT_PRESENT)
                | (knobs().rotational().orElse(false) ? IdentifyNamespaceCsIndependent.NSFEAT_ROTATIONAL : 0);
        new IdentifyNamespaceCsIndependent(nsfeat, NMIC_SHARED, ReservationCommands.rescap(this), 0, 0, ready.nsattr(), 0, 0, ready.nstat())
                .encode(out);
    }

    /** Namespace Identification Descriptors (CNS 03h): EUI-64, NGUID, UUID and CSI (NVM, or Zoned Namespace). */
    void encodeDescriptors(ByteBuf out) {
        NamespaceLists.encodeDescriptors(out, List.of(NamespaceLists.Descriptor.eui64(eui64),
                NamespaceLists.Descriptor.nguid(nguid), NamespaceLists.Descriptor.uuid(uuid),
                NamespaceLists.Descriptor.csi(zones == null ? IdentifyCommand.CSI_NVM : IdentifyCommand.CSI_ZNS)));
    }

    /** Without export.nvme.uuid: name based, so stable across restarts. */
    private static byte[] derivedUuid(String name) {
        byte[] u = Arrays.copyOfRange(sha256("blocktarget uuid " + name), 0, 16);
        u[6] = (byte) (u[6] & 0x0F | 0x50); // RFC 9562 version 5 (name based, SHA) layout
        u[8] = (byte) (u[8] & 0x3F | 0x80); // variant 10b
        return u;
    }

    /** The 16 bytes of the UUID in RFC 9562 §4 network order, as the NIDT 3h descriptor carries them. */
    private static byte[] bytes(java.util.UUID uuid) {
        return java.nio.ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits()).array();
    }

    static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
