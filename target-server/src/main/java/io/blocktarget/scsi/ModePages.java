package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.IoAdviceHintsGroupingModePage;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.protocol.scsi.BlockDescriptor;
import io.blocktarget.protocol.scsi.CachingModePage;
import io.blocktarget.protocol.scsi.ControlModePage;
import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.InformationalExceptionsModePage;
import io.blocktarget.protocol.scsi.ModePage;
import io.blocktarget.protocol.scsi.ModeSelectCdb;
import io.blocktarget.protocol.scsi.ModeSelectParameters;
import io.blocktarget.protocol.scsi.ModeSenseCdb;
import io.blocktarget.protocol.scsi.ModeSenseData;
import io.blocktarget.protocol.scsi.Parsed;
import io.blocktarget.protocol.scsi.ScsiOpcode;
import io.blocktarget.protocol.scsi.SenseReason;
import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Optional;

/**
 * The mode pages of one logical unit (SPC-4 §7.5, SBC-4 §6.5): Caching 08h, Control 0Ah and
 * Informational Exceptions 1Ch, with MODE SENSE (6)/(10) and MODE SELECT (6)/(10). One task set is
 * shared by all I_T nexuses (TST = 000b), so the current values are per logical unit, changed
 * atomically.
 *
 * <p>Changeable: D_SENSE and SWP (software write protect: the unit refuses writes while it is set, LogicalUnit)
 * always; WCE only when the backend has a volatile cache
 * ({@link BlockDevice#volatileWriteCache()}), honoured by turning every write into a FUA write
 * while WCE = 0. RAM and null devices have no cache: WCE = 0, not changeable.
 */
final class ModePages {
    private static final ControlModePage CONTROL_DEFAULT =
            new ControlModePage(0, false, false, true, 1, 0, false, false, 0, 0);
    private static final InformationalExceptionsModePage IEC_DEFAULT =
            new InformationalExceptionsModePage(false, false, false, true, false, false, 0, 0, 0);

    private final BlockDevice device;
    private final UnitAttentions unitAttentions;
    // From the knobs (UnitLimits): replaced by retune(), under the monitor.
    private volatile CachingModePage cachingDefault;
    private volatile CachingModePage cachingChangeable;
    private volatile boolean dpoFua = true;
    /** Permanent streams (issue 32): null for a unit without data placement. */
    private ScsiStreams streams;
    /** Replaced whole under the monitor, read without it (volatile publication). */
    private volatile Current current;

    /** The current values of the changeable pages. */
    private record Current(CachingModePage caching, ControlModePage control) {
    }

    ModePages(BlockDevice device, UnitAttentions unitAttentions) {
        this.device = device;
        this.unitAttentions = unitAttentions;
        boolean cache = device.volatileWriteCache();
        this.cachingDefault = new CachingModePage(cache, false);
        this.cachingChangeable = new CachingModePage(cache, false);
        reset();
    }

    /**
     * With the knobs of {@code limits}: {@code commands.write-cache} sets the default WCE (true on a device without a
     * cache advertises one whose SYNCHRONIZE CACHE has nothing to do; false makes every write FUA until an initiator
     * sets WCE), {@code commands.fua} the DPOFUA bit.
     */
    ModePages(BlockDevice device, UnitAttentions unitAttentions, UnitLimits limits) {
        this(device, unitAttentions, limits, null);
    }

    /** With the IO Advice Hints Grouping subpage 0Ah / 05h of a unit with data placement ({@code streams}). */
    ModePages(BlockDevice device, UnitAttentions unitAttentions, UnitLimits limits, ScsiStreams streams) {
        this(device, unitAttentions);
        this.streams = streams;
        retune(limits);
    }

    /**
     * New knobs: the caching page's default and changeable values and DPOFUA; the current caching page returns to the
     * new default. True when what MODE SENSE returns changed (the caller raises MODE PARAMETERS CHANGED).
     */
    synchronized boolean retune(UnitLimits limits) {
        boolean cache = device.volatileWriteCache();
        CachingModePage nextDefault = new CachingModePage(limits.writeCache().orElse(cache), false);
        boolean changed = !nextDefault.equals(current.caching()) || dpoFua != limits.dpoFua();
        cachingDefault = nextDefault;
        cachingChangeable = new CachingModePage(cache, false);
        dpoFua = limits.dpoFua();
        current = new Current(nextDefault, current.control());
        return changed;
    }

    /** D_SENSE: sense data in descriptor format (SPC-4 §4.5.1). */
    boolean descriptorSense() {
        return current.control().dSense();
    }

    /** SWP of the current Control mode page: the initiator asked the medium to refuse writes (SPC-4 §7.5.8). */
    boolean softwareWriteProtect() {
        return current.control().swp();
    }

    /** WCE: completed writes may sit in the backend's volatile cache. */
    boolean writeCacheEnabled() {
        return current.caching().wce();
    }

    /** Back to the defaults (logical unit reset, SAM-5 §7.7; nothing is saveable). */
    synchronized void reset() {
        current = new Current(cachingDefault, CONTROL_DEFAULT);
    }

    private List<ModePage> pages(Current values) {
        return List.of(values.caching(), values.control(), IEC_DEFAULT);
    }

    private List<ModePage> changeable() {
        return List.of(cachingChangeable, ControlModePage.CHANGEABLE, InformationalExceptionsModePage.CHANGEABLE);
    }

    /**
     * MODE SENSE (SPC-4 §6.11-6.12): header with WP (read-only LU or SWP) and DPOFUA (FUA is honoured, so
     * Linux sends FUA writes), the block descriptor unless DBD (long form with LLBAA in the 10-byte
     * CDB), then the pages asked for in current, changeable or default values.
     */
    void modeSense(Task task, ModeSenseCdb cdb) {
        if (streams != null && cdb.pageCode() == IoAdviceHintsGroupingModePage.PAGE_CODE
                && cdb.subpageCode() == IoAdviceHintsGroupingModePage.SUBPAGE_CODE) {
            withSubpage(task, cdb, List.of(), List.of());
            return;
        }
        List<ModePage> available = switch (cdb.pageControl()) {
            case CHANGEABLE -> changeable();
            case DEFAULT -> pages(new Current(cachingDefault, CONTROL_DEFAULT));
            default -> pages(current);
        };
        Parsed<List<ModePage>> selected = ModeSenseData.selectPages(available, cdb.pageCode(), cdb.subpageCode());
        if (selected instanceof Parsed.Invalid<List<ModePage>> invalid) {
            task.fail(invalid);
            return;
        }
        List<ModePage> pages = ((Parsed.Ok<List<ModePage>>) selected).value();
        if (streams != null && cdb.subpageCode() == 0xFF) {
            // 3Fh / FFh (all pages and subpages) and 0Ah / FFh (page 0Ah and its subpages) take the IO Advice Hints
            // Grouping subpage too, after its page 0Ah: ascending page code, then subpage code (SPC-5 §6.14)
            withSubpage(task, cdb, pages.stream().filter(p -> p.pageCode() <= IoAdviceHintsGroupingModePage.PAGE_CODE)
                    .toList(), pages.stream().filter(p -> p.pageCode() > IoAdviceHintsGroupingModePage.PAGE_CODE)
                    .toList());
            return;
        }
        ModeSenseData data = new ModeSenseData(0, device.readOnly() || softwareWriteProtect(), dpoFua,
                cdb.dbd() ? Optional.empty() : Optional.of(blockDescriptor()), cdb.llbaa(), pages);
        ByteBuf out = Task.allocate(128);
        if (cdb.tenByte()) {
            data.encode10(out);
        } else {
            data.encode6(out);
        }
        task.parameterData(out, cdb.allocationLength());
    }

    /**
     * MODE SENSE with the IO Advice Hints Grouping mode page (SBC-5 §6.5.7, sub_page format, which {@link ModeSenseData}
     * does not encode): the header and block descriptor as for any page, the page_0 pages {@code before}, the subpage,
     * the pages {@code after}; MODE DATA LENGTH counting them all (one byte in MODE SENSE(6): at most FFh, the data
     * itself is cut by the allocation length). Nothing is changeable: PC 01b returns the descriptors with every bit
     * zero.
     */
    private void withSubpage(Task task, ModeSenseCdb cdb, List<ModePage> before, List<ModePage> after) {
        IoAdviceHintsGroupingModePage page = cdb.pageControl() == io.blocktarget.protocol.scsi.PageControl.CHANGEABLE
                ? streams.modePage().changeable() : streams.modePage();
        ModeSenseData header = new ModeSenseData(0, device.readOnly() || softwareWriteProtect(), dpoFua,
                cdb.dbd() ? Optional.empty() : Optional.of(blockDescriptor()), cdb.llbaa(), before);
        ByteBuf out = Task.allocate(192 + page.pageLength());
        int start = out.writerIndex();
        if (cdb.tenByte()) {
            header.encode10(out);
        } else {
            header.encode6(out);
        }
        page.encode(out);
        for (ModePage p : after) {
            p.encode(out);
        }
        int total = out.writerIndex() - start;
        if (cdb.tenByte()) {
            out.setShort(start, total - 2);
        } else {
            out.setByte(start, Math.min(total - 1, 0xFF));
        }
        task.parameterData(out, cdb.allocationLength());
    }

    /**
     * MODE SELECT (SPC-4 §6.9-6.10): the parameter list is checked against the current values and the
     * changeable mask, then applied; if a value changed, every other nexus gets MODE PARAMETERS
     * CHANGED (SPC-4 §6.9.1).
     */
    void modeSelect(Task task, ModeSelectCdb cdb) {
        boolean tenByte = cdb.opcode() == ScsiOpcode.MODE_SELECT_10;
        ByteBuf list = task.parameterList(cdb.parameterListLength(), FieldPointer.cdb(tenByte ? 7 : 4, 7));
        if (list == null) {
            return;
        }
        boolean changed;
        synchronized (this) {
            Parsed<ModeSelectParameters> parsed = ModeSelectParameters.parse(list, tenByte, pages(current),
                    changeable(), blockDescriptor());
            if (parsed instanceof Parsed.Invalid<ModeSelectParameters> invalid) {
                task.fail(invalid);
                return;
            }
            Current next = current;
            for (ModePage page : ((Parsed.Ok<ModeSelectParameters>) parsed).value().pages()) {
                next = switch (page) {
                    case CachingModePage caching -> new Current(caching, next.control());
                    case ControlModePage control -> new Current(next.caching(), control);
                    case InformationalExceptionsModePage iec -> next; // nothing changeable
                };
            }
            changed = !next.equals(current);
            current = next;
        }
        if (changed) {
            unitAttentions.raiseForOthers(task.nexus(), SenseReason.MODE_PARAMETERS_CHANGED);
        }
        task.good(cdb.parameterListLength());
    }

    /** The mode parameter block descriptor (SPC-4 §7.5.5): NUMBER OF BLOCKS follows a resize. */
    private BlockDescriptor blockDescriptor() {
        return new BlockDescriptor(device.geometry().blockCount(), device.geometry().logicalBlockSize());
    }
}
