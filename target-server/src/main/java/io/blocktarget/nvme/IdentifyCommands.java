package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.FdpIdentify;

import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.protocol.nvme.IdentifyController;
import io.blocktarget.protocol.nvme.NamespaceLists;
import io.blocktarget.protocol.nvme.NvmIdentifyController;
import io.blocktarget.protocol.nvme.NvmIdentifyNamespace;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.BiConsumer;

/**
 * Identify (Base §5.17): CNS 00h, 01h, 02h, 03h, 05h, 06h, 08h, 1Ch on NVM controllers (CSI 02h: {@link
 * ZonedIdentify}), CNS 01h on the discovery
 * controller; any other CNS is Invalid Field in Command. Namespace structures for a valid but inactive NSID
 * (≤ NN, not attached) are zero filled; NSID 0, FFFFFFFFh or above NN is Invalid Namespace or Format.
 */
final class IdentifyCommands {
    private static final long NSID_BROADCAST = 0xFFFF_FFFFL;
    /** CMIC bit 0: more than one port; bit 1: more than one controller (one per host in the dynamic model). */
    private static final int CMIC_MULTI_PORT = 1;
    private static final int CMIC_MULTI_CONTROLLER = 1 << 1;
    /** FRMW: slot 1 read-only (bit 0), one slot (bits 3:1). */
    private static final int FRMW_ONE_READ_ONLY_SLOT = 1 | 1 << 1;
    /** OFCS bit 0: the Disconnect command is supported (Base §5.17.2.1, fabrics fields). */
    private static final int OFCS_DISCONNECT = 1;

    private IdentifyCommands() {
    }

    static void execute(Controller controller, Sqe sqe, NvmeCompletion done) {
        Parsed<IdentifyCommand> parsed = IdentifyCommand.parse(sqe);
        if (!(parsed instanceof Parsed.Ok<IdentifyCommand>(IdentifyCommand command))) {
            Replies.invalid(done, parsed);
            return;
        }
        if (controller.isDiscovery() && command.cns() != IdentifyCommand.CNS_CONTROLLER) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        Subsystem subsystem = controller.subsystem();
        long nsid = Integer.toUnsignedLong(command.nsid());
        switch (command.cns()) {
            case IdentifyCommand.CNS_CONTROLLER -> reply(done, out -> encodeController(controller, out));
            case IdentifyCommand.CNS_NAMESPACE -> namespace(subsystem, nsid, done, (ns, out) -> {
                int start = out.writerIndex();
                ns.encodeIdentify(out);
                out.setShortLE(start + FdpIdentify.ID_NS_ENDGID_OFFSET, Fdp.endgid(subsystem, ns));
                // MSSRL / MCL / MSRC: the numbers NvmCopy enforces (NVM Command Set §4.1.5.1)
                NvmCopy.limits(controller.limits(), ns.geometry().logicalBlockSize()).setInto(out, start);
                out.setIntLE(start + OFFSET_ANAGRPID, subsystem.anaGroup(ns.nsid())); // bytes 95:92 (Ana)
            });
            case IdentifyCommand.CNS_CS_INDEPENDENT_NAMESPACE -> namespace(subsystem, nsid, done, (ns, out) -> {
                int start = out.writerIndex();
                ns.encodeIdentifyCsIndependent(out);
                out.setIntLE(start + OFFSET_CS_INDEPENDENT_ANAGRPID, subsystem.anaGroup(ns.nsid())); // bytes 7:4
                out.setShortLE(start + FdpIdentify.ID_NS_CS_INDEPENDENT_ENDGID_OFFSET, Fdp.endgid(subsystem, ns));
            });
            case IdentifyCommand.CNS_CS_NAMESPACE -> {
                if (command.csi() == IdentifyCommand.CSI_ZNS) {
                    ZonedIdentify.namespace(subsystem, nsid, done);
                } else if (command.csi() != IdentifyCommand.CSI_NVM) {
                    Replies.status(done, NvmeStatus.INVALID_FIELD);
                } else {
                    namespace(subsystem, nsid, done, (ns, out) -> NvmIdentifyNamespace.PLAIN.encode(out));
                }
            }
            case IdentifyCommand.CNS_CS_CONTROLLER -> {
                if (command.csi() == IdentifyCommand.CSI_ZNS) {
                    ZonedIdentify.controller(controller, done);
                } else if (command.csi() != IdentifyCommand.CSI_NVM) {
                    Replies.status(done, NvmeStatus.INVALID_FIELD);
                } else {
                    // VSL = MDTS (NvmMediaCommands enforces it: Verify buffers its read); no Write Zeroes /
                    // Write Uncorrectable / DSM limits beyond MDTS and the 16-bit NLB (NVM Command Set §4.1.5.3)
                    int vsl = IdentifyController.mdtsFor(NvmMediaCommands.verifySizeLimitBytes(
                            controller.limits()), ControllerConstants.MPSMIN_BYTES);
                    reply(done, out -> new NvmIdentifyController(vsl, 0, 0, 0, 0, 0).encode(out));
                }
            }
            case IdentifyCommand.CNS_ACTIVE_NAMESPACES -> {
                if (nsid >= 0xFFFF_FFFEL) {
                    Replies.status(done, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
                } else {
                    List<Integer> ids = new ArrayList<>();
                    subsystem.namespaces().keySet().forEach(id -> ids.add((int) (long) id));
                    reply(done, out -> NamespaceLists.encodeActiveNamespaces(out, ids, command.nsid()));
                }
            }
            case IdentifyCommand.CNS_NAMESPACE_DESCRIPTORS -> {
                Namespace ns = subsystem.namespace(nsid);
                if (ns == null) {
                    Replies.status(done, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
                } else {
                    reply(done, ns::encodeDescriptors);
                }
            }
            case IdentifyCommand.CNS_IO_COMMAND_SET -> ZonedIdentify.commandSets(done);
            default -> Replies.status(done, NvmeStatus.INVALID_FIELD);
        }
    }

    static void namespace(Subsystem subsystem, long nsid, NvmeCompletion done,
                                  BiConsumer<Namespace, ByteBuf> encoder) {
        Namespace ns = subsystem.namespace(nsid);
        if (ns != null) {
            reply(done, out -> encoder.accept(ns, out));
        } else if (nsid == 0 || nsid == NSID_BROADCAST || nsid > subsystem.nn()) {
            Replies.status(done, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        } else {
            reply(done, out -> out.writeZero(IdentifyCommand.DATA_SIZE));
        }
    }

    static void reply(NvmeCompletion done, Consumer<ByteBuf> encoder) {
        Replies.data(done, IdentifyCommand.DATA_SIZE, encoder);
    }

    /** ANAGRPID in Identify Namespace (CNS 00h, bytes 95:92) and in the I/O command set independent one (CNS 08h). */
    static final int OFFSET_ANAGRPID = 92;
    static final int OFFSET_CS_INDEPENDENT_ANAGRPID = 4;

    /**
     * Identify Controller, and for NVM controllers OCFS (Copy source range format 0h), ACWU and the ANA fields
     * (Base 2.x §5.17.2.1, {@link Ana}): ANATT, ANACAP, ANAGRPMAX = NANAGRPID = MNAN = the groups there can be.
     */
    private static void encodeController(Controller controller, ByteBuf out) {
        int start = out.writerIndex();
        identifyController(controller).encode(out);
        if (!controller.isDiscovery()) {
            out.setShortLE(start + IdentifyController.OFFSET_OCFS, IdentifyController.OCFS_FORMAT_0);
            out.setShortLE(start + IdentifyController.OFFSET_ACWU, NvmeAtomics.acwu(controller.subsystem()));
            out.setByte(start + IdentifyController.OFFSET_ANATT, Ana.ANATT);
            out.setByte(start + IdentifyController.OFFSET_ANACAP, Ana.ANACAP);
            out.setIntLE(start + IdentifyController.OFFSET_ANAGRPMAX, Ana.MAX_GROUPS);
            out.setIntLE(start + IdentifyController.OFFSET_NANAGRPID, Ana.MAX_GROUPS);
            out.setIntLE(start + IdentifyController.OFFSET_MNAN, Ana.MAX_GROUPS);
            out.setShortLE(start + FdpIdentify.ID_CTRL_ENDGIDMAX_OFFSET, Fdp.endgidMax(controller.subsystem()));
        }
    }

    /**
     * FUSES: Compare and Write (NvmIo.executeFused) exactly where Compare is executed — the fused operation is a
     * Compare — so {@code commands.compare: false} turns both off.
     */
    static int fuses(Subsystem subsystem) {
        return Namespace.supports(subsystem.knobs(), io.blocktarget.protocol.nvme.NvmOpcode.COMPARE)
                ? IdentifyController.FUSES_COMPARE_AND_WRITE : 0;
    }

    /** ONCS of an NVM controller: every NVM command it executes (NvmIo), Write Uncorrectable where devices allow. */
    static int oncs(Subsystem subsystem) {
        io.blocktarget.config.DeviceKnobs knobs = subsystem.knobs();
        return bit(knobs, io.blocktarget.protocol.nvme.NvmOpcode.COMPARE, IdentifyController.ONCS_COMPARE)
                | bit(knobs, io.blocktarget.protocol.nvme.NvmOpcode.DATASET_MANAGEMENT, IdentifyController.ONCS_DSM)
                | bit(knobs, io.blocktarget.protocol.nvme.NvmOpcode.WRITE_ZEROES, IdentifyController.ONCS_WRITE_ZEROES)
                | bit(knobs, io.blocktarget.protocol.nvme.NvmOpcode.VERIFY, IdentifyController.ONCS_VERIFY)
                | bit(knobs, io.blocktarget.protocol.nvme.NvmOpcode.COPY, IdentifyController.ONCS_COPY)
                | IdentifyController.ONCS_RESERVATIONS
                | (NvmMediaCommands.writeUncorrectableSupported(subsystem) ? IdentifyController.ONCS_WRITE_UNCORRECTABLE : 0);
    }

    /** An ONCS bit as {@code commands:} says: advertised exactly where {@link Namespace#supports} executes it. */
    private static int bit(io.blocktarget.config.DeviceKnobs knobs, io.blocktarget.protocol.nvme.NvmOpcode opcode,
                           int bit) {
        return Namespace.supports(knobs, opcode) ? bit : 0;
    }

    /** Identify Controller (Base §5.17.2.1) with the fabrics fields of NVMe-oF / NVMe/TCP. */
    static IdentifyController identifyController(Controller controller) {
        Subsystem subsystem = controller.subsystem();
        NvmeLimits limits = controller.limits();
        boolean discovery = controller.isDiscovery();
        boolean vwc = subsystem.volatileWriteCache();
        io.blocktarget.config.DeviceKnobs knobs = subsystem.knobs();
        return new IdentifyController(0, 0, subsystem.serialNumber(),
                knobs.identity(io.blocktarget.config.DeviceKnobs.Identity.PRODUCT).orElse(ControllerConstants.MODEL),
                knobs.identity(io.blocktarget.config.DeviceKnobs.Identity.REVISION).orElse(ControllerConstants.FIRMWARE),
                6, 0,
                discovery ? 0 : CMIC_MULTI_PORT | CMIC_MULTI_CONTROLLER | IdentifyController.CMIC_ANA,
                IdentifyController.mdtsFor(limits.maxDataTransferBytes(), ControllerConstants.MPSMIN_BYTES),
                controller.cntlid(), ControllerConstants.VERSION.encode(), controller.oaes(),
                discovery ? IdentifyController.CTRATT_HOST_ID_128
                        : Fdp.ctratt(subsystem, IdentifyController.CTRATT_HOST_ID_128),
                discovery ? IdentifyController.CNTRLTYPE_DISCOVERY : IdentifyController.CNTRLTYPE_IO,
                0, ControllerConstants.ACL, ControllerConstants.AERL, FRMW_ONE_READ_ONLY_SLOT,
                discovery ? IdentifyController.LPA_EXTENDED_DATA
                        : IdentifyController.LPA_COMMANDS_EFFECTS | IdentifyController.LPA_EXTENDED_DATA,
                discovery ? 0 : ErrorLog.ENTRIES - 1, 0, ControllerConstants.KAS, IdentifyController.SQES_64, IdentifyController.CQES_16,
                limits.maxQueueEntries(), discovery ? 0 : subsystem.nn(),
                discovery ? 0 : oncs(subsystem),
                discovery ? 0 : fuses(subsystem), 0, vwc ? IdentifyController.VWC_PRESENT | IdentifyController.VWC_FLUSH_BROADCAST : 0,
                discovery ? 0 : NvmeAtomics.awun(subsystem), discovery ? 0 : NvmeAtomics.awupf(subsystem), // AWUN, AWUPF
                IdentifyController.SGLS_SUPPORTED | IdentifyController.SGLS_OFFSET, subsystem.nqn(),
                discovery ? 0 : 4 + limits.ioInCapsuleDataBytes() / 16, discovery ? 0 : 1, 0, 0, 1,
                OFCS_DISCONNECT);
    }
}
