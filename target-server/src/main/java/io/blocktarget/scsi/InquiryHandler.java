package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.BlockDeviceCharacteristicsVpd;
import io.blocktarget.protocol.scsi.BlockLimitsVpd;
import io.blocktarget.protocol.scsi.Designator;
import io.blocktarget.protocol.scsi.DeviceIdentificationVpd;
import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.InquiryCdb;
import io.blocktarget.protocol.scsi.LogicalBlockProvisioningVpd;
import io.blocktarget.protocol.scsi.Peripheral;
import io.blocktarget.protocol.scsi.ScsiOpcode;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.StandardInquiryData;
import io.blocktarget.protocol.scsi.SupportedVpdPages;
import io.blocktarget.protocol.scsi.UnitSerialNumberVpd;
import io.blocktarget.protocol.scsi.VersionDescriptor;
import io.blocktarget.protocol.scsi.VpdPage;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * INQUIRY (SPC-4 §6.6): standard data and the VPD pages Linux sd reads — 00h, 80h, 83h (SPC-4 §7.8)
 * and B0h, B1h, B2h (SBC-4 §6.6). Identifiers derive from the LUN's configured name only, so they
 * are stable across restarts and independent of the LUN number or the backend.
 */
final class InquiryHandler {
    static final String VENDOR_ID = "BLKTARGT";
    static final String PRODUCT_ID = "blocktarget";
    static final String PRODUCT_REVISION = "0.1";
    /**
     * COMPANY_ID of the NAA 6h designator. blocktarget has no IEEE assignment of its own, so it uses a
     * value with the locally administered (U/L) bit of the first octet set, 02h: IEEE never assigns
     * such a value as an OUI, so the designators cannot collide with a vendor's; the other 100 bits
     * hash the LUN name.
     */
    static final int NAA_COMPANY_ID = 0x020000;
    /**
     * TPGS = 11b: implicit and explicit asymmetric access — REPORT TARGET PORT GROUPS and SET TARGET PORT GROUPS
     * (SPC-5 §5.16.2.2, §6.41); each portal is a target port group ({@link Alua}). Only with
     * {@code commands.set-target-port-groups: true}: an initiator may then change the states.
     */
    static final int TPGS_IMPLICIT_AND_EXPLICIT = 0b11;
    /** TPGS = 01b, the default: implicit only — the states are the operator's ({@code paths:}, {@code path set}). */
    static final int TPGS_IMPLICIT = 0b01;
    static final List<Integer> VPD_PAGES = List.of(0x00, 0x80, 0x83, 0xB0, 0xB1, 0xB2);

    /** A zoned unit's pages: no B2h (no provisioning, ZBC-2 §4.1), B6h added. */
    static final List<Integer> ZONED_VPD_PAGES = List.of(0x00, 0x80, 0x83, 0xB0, 0xB1, 0xB6);

    /** A unit with data placement (ScsiStreams): Extended INQUIRY 86h (GROUP_SUP) and Block Limits Extension B7h. */
    static final List<Integer> STREAMS_VPD_PAGES = List.of(0x00, 0x80, 0x83, 0x86, 0xB0, 0xB1, 0xB2, 0xB7);

    private final String targetName;
    private final String lunName;
    private final byte[] nameHash;
    private final UnitLimits limits;
    private final Optional<io.blocktarget.protocol.scsi.BlockLimitsAtomicFields> atomicFields;
    private final Optional<ZbcCommands> zbc;
    private final Peripheral peripheral;
    private final io.blocktarget.config.DeviceKnobs knobs;
    private final ScsiStreams streams;

    InquiryHandler(String targetName, String lunName, UnitLimits limits) {
        this(targetName, lunName, limits, io.blocktarget.config.DeviceKnobs.DEFAULTS);
    }

    /** With the LUN's {@code identity:} knobs (vendor, product, revision, serial, naa) over the derived names. */
    InquiryHandler(String targetName, String lunName, UnitLimits limits, io.blocktarget.config.DeviceKnobs knobs) {
        this(targetName, lunName, limits, knobs, Optional.empty(), Optional.empty(), null);
    }

    /**
     * @param knobs        the LUN's {@code identity:} knobs (vendor, product, revision, serial, naa) over the derived
     *                     names
     * @param atomicFields the Block Limits atomic fields (bytes 44-63) of a logical unit with atomic writes
     *                     (SbcWriteAtomic)
     * @param zbc          peripheral device type 14h (host managed zoned, ZBC-2 §6.4.2) and the B6h page
     * @param streams      the 86h and B7h pages of a unit with data placement; null: neither
     */
    InquiryHandler(String targetName, String lunName, UnitLimits limits, io.blocktarget.config.DeviceKnobs knobs,
                   Optional<io.blocktarget.protocol.scsi.BlockLimitsAtomicFields> atomicFields,
                   Optional<ZbcCommands> zbc, ScsiStreams streams) {
        this.targetName = targetName;
        this.lunName = lunName;
        this.nameHash = sha256(lunName);
        this.limits = limits;
        this.atomicFields = atomicFields;
        this.zbc = zbc;
        this.peripheral = zbc.isPresent() ? Peripheral.HOST_MANAGED_ZONED_BLOCK_DEVICE
                : Peripheral.DIRECT_ACCESS_BLOCK_DEVICE;
        this.knobs = knobs;
        this.streams = streams;
    }

    private String identity(io.blocktarget.config.DeviceKnobs.Identity key, String fallback) {
        return knobs.identity(key).orElse(fallback);
    }

    void execute(Task task, InquiryCdb cdb) {
        if (!cdb.evpd()) {
            task.parameterData(standardData(), cdb.allocationLength());
            return;
        }
        Optional<VpdPage> page = vpdPage(cdb.pageCode(), task.nexus());
        if (page.isEmpty()) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, FieldPointer.cdb(2, 7)); // SPC-4 §6.6.1: PAGE CODE
            return;
        }
        ByteBuf out = Task.allocate(256);
        int start = out.writerIndex();
        page.get().encode(out, peripheral);
        if (cdb.pageCode() == 0xB0) {
            atomicFields.ifPresent(f -> f.encodeInto(out, start));
        }
        task.parameterData(out, cdb.allocationLength());
    }

    /**
     * Standard INQUIRY data: SPC-4 version (so Linux uses READ CAPACITY(16) and the VPD pages),
     * HISUP (hierarchical LUNs), CMDQUE (command queuing), TPGS as given (0 where no logical unit
     * answers REPORT TARGET PORT GROUPS), no protection information.
     */
    static ByteBuf standard(Peripheral peripheral) {
        return standard(peripheral, 0, false);
    }

    /** With {@code thirdPartyCopy}, 3PC = 1: the logical unit is a copy manager (EXTENDED COPY, SPC-4 §6.6.2). */
    static ByteBuf standard(Peripheral peripheral, int tpgs, boolean thirdPartyCopy) {
        return standard(peripheral, tpgs, thirdPartyCopy, VENDOR_ID, PRODUCT_ID, PRODUCT_REVISION);
    }

    /**
     * This logical unit's standard data: 3PC as {@code commands.copy} says, T10 VENDOR IDENTIFICATION, PRODUCT
     * IDENTIFICATION and PRODUCT REVISION LEVEL from {@code identity:} (Linux: /sys/block/X/device/vendor, model, rev).
     */
    ByteBuf standardData() {
        return standard(peripheral, knobs.removable().orElse(false),
                limits.supports(ScsiOpcode.SET_TARGET_PORT_GROUPS) ? TPGS_IMPLICIT_AND_EXPLICIT : TPGS_IMPLICIT,
                limits.thirdPartyCopy(),
                identity(io.blocktarget.config.DeviceKnobs.Identity.VENDOR, VENDOR_ID),
                identity(io.blocktarget.config.DeviceKnobs.Identity.PRODUCT, PRODUCT_ID),
                identity(io.blocktarget.config.DeviceKnobs.Identity.REVISION, PRODUCT_REVISION));
    }

    private static ByteBuf standard(Peripheral peripheral, int tpgs, boolean thirdPartyCopy, String vendor,
                                    String product, String revision) {
        return standard(peripheral, false, tpgs, thirdPartyCopy, vendor, product, revision);
    }

    /** With {@code removable}: RMB = 1, the medium is removable ({@code removable: true}, RemovableMedium). */
    private static ByteBuf standard(Peripheral peripheral, boolean removable, int tpgs, boolean thirdPartyCopy,
                                    String vendor, String product, String revision) {
        StandardInquiryData data = new StandardInquiryData(peripheral, removable, StandardInquiryData.VERSION_SPC_4,
                false, true, tpgs, thirdPartyCopy, false, true, vendor, product, revision,
                List.of(VersionDescriptor.SAM_5, VersionDescriptor.ISCSI, VersionDescriptor.SPC_4,
                        VersionDescriptor.SBC_3));
        ByteBuf out = Task.allocate(StandardInquiryData.LENGTH);
        data.encode(out);
        return out;
    }

    private Optional<VpdPage> vpdPage(int pageCode, ItNexus nexus) {
        return Optional.ofNullable(switch (pageCode) {
            case 0x00 -> new SupportedVpdPages(zbc.isPresent() ? ZONED_VPD_PAGES
                    : streams != null ? STREAMS_VPD_PAGES : VPD_PAGES);
            case 0x80 -> new UnitSerialNumberVpd(serialNumber());
            case 0x83 -> deviceIdentification(nexus);
            case 0xB0 -> blockLimits();
            // ZONED = 00b for host managed too: the device type says it (ZBC-2 §6.5.1)
            case 0xB1 -> blockDeviceCharacteristics();
            case 0xB2 -> zbc.isPresent() ? null : provisioning();
            case 0xB6 -> zbc.map(ZbcCommands::characteristics).orElse(null);
            case 0x86 -> streams == null ? null : streams.extendedInquiry();
            case 0xB7 -> streams == null ? null : streams.blockLimitsExtension();
            default -> null;
        });
    }

    /**
     * Block Device Characteristics (SBC-4 §6.6.2): MEDIUM ROTATION RATE from {@code rotational:} (1 = non-rotating);
     * WABEREQ / WACEREQ 01b where SANITIZE BLOCK ERASE / CRYPTOGRAPHIC ERASE are supported — both unmap the whole
     * medium (SbcSanitize), and a read of an unmapped block completes with GOOD status and zeros (LBPRZ = 1) — 00b (not
     * specified) where they are not; the rest as {@link BlockDeviceCharacteristicsVpd#nonRotating()}.
     */
    BlockDeviceCharacteristicsVpd blockDeviceCharacteristics() {
        BlockDeviceCharacteristicsVpd plain = BlockDeviceCharacteristicsVpd.nonRotating();
        int good = BlockDeviceCharacteristicsVpd.ERASED_READS_GOOD;
        return new BlockDeviceCharacteristicsVpd(limits.mediumRotationRate(), plain.productType(),
                limits.supports(io.blocktarget.protocol.scsi.ScsiOpcode.SANITIZE_BLOCK_ERASE) ? good : 0,
                limits.supports(io.blocktarget.protocol.scsi.ScsiOpcode.SANITIZE_CRYPTOGRAPHIC_ERASE) ? good : 0,
                plain.nominalFormFactor(), plain.fuab(), plain.vbuls());
    }

    /**
     * The logical unit's NAA 6h designator (VPD 83h), which EXTENDED COPY CSCDs name it by: {@code identity.naa}
     * (32 hex digits, the first 6: NAA, then 24 bits IEEE COMPANY_ID, 36 bits VENDOR SPECIFIC IDENTIFIER, 64 bits
     * extension; SPC-5 §7.7.6.6.6), else derived from the name.
     */
    Designator.NaaRegisteredExtended naa() {
        java.util.Optional<String> given = knobs.identity(io.blocktarget.config.DeviceKnobs.Identity.NAA);
        if (given.isPresent()) {
            String hex = given.get();
            return new Designator.NaaRegisteredExtended(Integer.parseInt(hex.substring(1, 7), 16),
                    Long.parseLong(hex.substring(7, 16), 16), Long.parseUnsignedLong(hex.substring(16), 16));
        }
        return new Designator.NaaRegisteredExtended(NAA_COMPANY_ID, (bits(0, 8) >>> 28) & 0xF_FFFF_FFFFL, bits(8, 8));
    }

    /** The 16 designator bytes of {@link #naa()}. */
    byte[] naaBytes() {
        ByteBuf buf = io.netty.buffer.Unpooled.buffer(16);
        try {
            naa().encodeDesignator(buf);
            return io.netty.buffer.ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    /** {@code identity.serial}, else 32 hex digits of the name's SHA-256: printable, unique per name, stable. */
    String serialNumber() {
        return identity(io.blocktarget.config.DeviceKnobs.Identity.SERIAL, HexFormat.of().formatHex(nameHash, 0, 16));
    }

    /**
     * Device Identification (SPC-4 §7.8.6): for the logical unit an NAA 6h designator (Linux's
     * wwn- link) and a T10 vendor ID designator carrying the LUN name; for the target port the
     * relative target port, the target port group and the SCSI name string of the port; for the
     * target device its iSCSI name.
     */
    private DeviceIdentificationVpd deviceIdentification(ItNexus nexus) {
        List<Designator> designators = new ArrayList<>();
        designators.add(naa());
        designators.add(new Designator.T10VendorId(identity(io.blocktarget.config.DeviceKnobs.Identity.VENDOR,
                VENDOR_ID), printable(lunName, 200)));
        OptionalInt iscsi = OptionalInt.of(Designator.PROTOCOL_ISCSI);
        if (nexus.relativeTargetPort() >= 1 && nexus.relativeTargetPort() <= 0xFFFF) {
            designators.add(new Designator.RelativeTargetPort(nexus.relativeTargetPort(), iscsi));
            // the port's group is its portal, whose id is the relative target port (Alua)
            designators.add(new Designator.TargetPortGroup(nexus.relativeTargetPort(), iscsi));
        }
        addName(designators, Designator.Association.TARGET_PORT, nexus.targetPortName());
        addName(designators, Designator.Association.TARGET_DEVICE, targetName);
        return new DeviceIdentificationVpd(designators);
    }

    private static void addName(List<Designator> designators, Designator.Association association, String name) {
        try {
            designators.add(new Designator.ScsiNameString(association, OptionalInt.of(Designator.PROTOCOL_ISCSI), name));
        } catch (IllegalArgumentException tooLong) {
            // a name over 251 UTF-8 bytes cannot be a SCSI name string; the other designators still identify
        }
    }

    /** Block Limits (SBC-4 §6.6.3); see {@link UnitLimits} for the values and the WRITE SAME rule. */
    BlockLimitsVpd blockLimits() {
        return new BlockLimitsVpd(true, limits.maximumCompareAndWrite(), limits.transferGranularity(),
                limits.maximumTransferLength(), limits.optimalTransferLength(), limits.maximumPrefetchLength(),
                limits.maximumUnmapLbaCount(), limits.maximumUnmapDescriptors(), limits.optimalUnmapGranularity(),
                OptionalLong.of(limits.unmapGranularityAlignment()), limits.maximumWriteSameLength());
    }

    /**
     * Logical Block Provisioning (SBC-4 §6.6.4): thin, UNMAP supported (LBPU), unmapped blocks read
     * zeros (LBPRZ = 001b); WRITE SAME with UNMAP (LBPWS, LBPWS10) as {@link UnitLimits} says.
     */
    LogicalBlockProvisioningVpd provisioning() {
        return new LogicalBlockProvisioningVpd(0, limits.lbpu(), limits.lbpws(), limits.lbpws10(), 1, false, 0,
                LogicalBlockProvisioningVpd.ProvisioningType.THIN_PROVISIONED, 0, Optional.empty());
    }

    private long bits(int from, int bytes) {
        long v = 0;
        for (int i = 0; i < bytes; i++) {
            v = v << 8 | (nameHash[from + i] & 0xFF);
        }
        return v;
    }

    /** The name as printable ASCII (others replaced by '_'), at most {@code max} characters. */
    static String printable(String text, int max) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < text.length() && sb.length() < max; i++) {
            char c = text.charAt(i);
            sb.append(c >= 0x20 && c <= 0x7E ? c : '_');
        }
        return sb.toString();
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
