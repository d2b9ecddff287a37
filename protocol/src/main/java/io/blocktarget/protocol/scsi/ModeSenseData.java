package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Optional;

/**
 * MODE SENSE parameter data: mode parameter header (SPC-4 §7.5.5, Tables 429-430), an optional
 * block descriptor, then the pages. In the header's DEVICE-SPECIFIC PARAMETER (SBC-4 §6.4.1,
 * Table 177) WP reports write protection and DPOFUA says DPO and FUA are honoured — Linux sd sends
 * FUA writes only when DPOFUA is set.
 *
 * @param longLba use the 16-byte block descriptor and set LONGLBA (MODE SENSE(10) with LLBAA only)
 */
public record ModeSenseData(int mediumType, boolean writeProtected, boolean dpofua,
                            Optional<BlockDescriptor> blockDescriptor, boolean longLba, List<ModePage> pages) {

    public ModeSenseData {
        pages = List.copyOf(pages);
        if ((mediumType & ~0xFF) != 0) {
            throw new IllegalArgumentException("medium type is one byte");
        }
    }

    private int deviceSpecificParameter() {
        return (writeProtected ? 0x80 : 0) | (dpofua ? 0x10 : 0);
    }

    private int pagesLength() {
        return pages.stream().mapToInt(p -> 2 + p.pageLength()).sum();
    }

    /** MODE SENSE(6) data: 4-byte header, MODE DATA LENGTH = n - 1 (at most 255). */
    public void encode6(ByteBuf out) {
        if (longLba) {
            throw new IllegalStateException("MODE SENSE(6) has no long LBA block descriptor");
        }
        int descriptorLength = blockDescriptor.isPresent() ? BlockDescriptor.SHORT_LENGTH : 0;
        int dataLength = 3 + descriptorLength + pagesLength();
        if (dataLength > 0xFF) {
            throw new IllegalStateException("mode data too long for MODE SENSE(6): " + dataLength);
        }
        out.writeByte(dataLength);                 // 0: MODE DATA LENGTH
        out.writeByte(mediumType);                 // 1
        out.writeByte(deviceSpecificParameter());  // 2
        out.writeByte(descriptorLength);           // 3: BLOCK DESCRIPTOR LENGTH
        blockDescriptor.ifPresent(d -> d.encodeShort(out));
        pages.forEach(p -> p.encode(out));
    }

    /** MODE SENSE(10) data: 8-byte header, MODE DATA LENGTH = n - 2. */
    public void encode10(ByteBuf out) {
        int descriptorLength = blockDescriptor.isEmpty() ? 0
                : longLba ? BlockDescriptor.LONG_LENGTH : BlockDescriptor.SHORT_LENGTH;
        out.writeShort(6 + descriptorLength + pagesLength()); // 0-1: MODE DATA LENGTH
        out.writeByte(mediumType);                            // 2
        out.writeByte(deviceSpecificParameter());             // 3
        out.writeByte(longLba ? 1 : 0);                       // 4: LONGLBA
        out.writeByte(0);                                     // 5: reserved
        out.writeShort(descriptorLength);                     // 6-7: BLOCK DESCRIPTOR LENGTH
        blockDescriptor.ifPresent(d -> {
            if (longLba) {
                d.encodeLong(out);
            } else {
                d.encodeShort(out);
            }
        });
        pages.forEach(p -> p.encode(out));
    }

    /**
     * The pages a MODE SENSE CDB asks for (SPC-4 §6.11.1, Table 161): 3Fh/00h all pages, 3Fh/FFh all
     * pages and subpages, a page code with subpage 00h or FFh that page. Anything else — an unknown
     * page, or a subpage we do not have — is INVALID FIELD IN CDB pointing at the culprit.
     */
    public static Parsed<List<ModePage>> selectPages(List<ModePage> available, int pageCode, int subpageCode) {
        if (subpageCode != 0x00 && subpageCode != 0xFF) {
            return Parsed.invalid(SenseReason.INVALID_FIELD_IN_CDB, ModeSenseCdb.SUBPAGE_CODE_FIELD);
        }
        if (pageCode == 0x3F) {
            return Parsed.ok(List.copyOf(available));
        }
        List<ModePage> selected = available.stream().filter(p -> p.pageCode() == pageCode).toList();
        return selected.isEmpty()
                ? Parsed.invalid(SenseReason.INVALID_FIELD_IN_CDB, ModeSenseCdb.PAGE_CODE_FIELD)
                : Parsed.ok(selected);
    }
}
