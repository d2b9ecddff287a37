package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * SCSI Command, RFC 7143 §11.3. The CDB is at least 16 bytes (shorter CDBs are zero-padded into the
 * 16-byte field); bytes beyond 16 travel in an Extended CDB AHS (§11.2.2.3), a bidirectional command's
 * read length in a Bidirectional Read Expected Data Transfer Length AHS (§11.2.2.4). {@code data} is
 * immediate (unsolicited) write data.
 */
public record ScsiCommand(boolean immediate, boolean finalBit, boolean read, boolean write, TaskAttribute attribute,
                          long lun, int itt, long expectedDataTransferLength, int cmdSN, int expStatSN, byte[] cdb,
                          OptionalLong bidirectionalReadLength, ByteBuf data) implements InitiatorPdu {
    /** The largest CDB SPC defines (variable-length CDBs). */
    public static final int MAX_CDB_LENGTH = 260;
    static final int BASIC_CDB_LENGTH = 16;
    static final int AHS_TYPE_EXTENDED_CDB = 1;
    static final int AHS_TYPE_BIDIRECTIONAL_READ_LENGTH = 2;
    private static final int READ_BIT = 0x40;
    private static final int WRITE_BIT = 0x20;
    private static final int ATTR_MASK = 0x07;

    public ScsiCommand {
        Objects.requireNonNull(attribute, "attribute");
        Bhs.checkUnsigned(expectedDataTransferLength, 32, "ExpectedDataTransferLength");
        if (cdb.length == 0 || cdb.length > MAX_CDB_LENGTH) {
            throw new IllegalArgumentException("CDB length " + cdb.length);
        }
        cdb = Arrays.copyOf(cdb, Math.max(BASIC_CDB_LENGTH, cdb.length));
        Objects.requireNonNull(bidirectionalReadLength, "bidirectionalReadLength");
        bidirectionalReadLength.ifPresent(v -> Bhs.checkUnsigned(v, 32, "BidirectionalReadLength"));
        Objects.requireNonNull(data, "data");
    }

    /** A copy of the CDB (16 bytes or more). */
    @Override
    public byte[] cdb() {
        return cdb.clone();
    }

    /**
     * The CDB as a buffer over this record's own array, without the copy {@link #cdb()} makes: for readers only (a
     * target hands it to its device server, which parses it). Writing through it would change this record.
     */
    public ByteBuf cdbBuffer() {
        return Unpooled.wrappedBuffer(cdb);
    }

    public int cdbLength() {
        return cdb.length;
    }

    /** CDB byte {@code i}, unsigned, without copying the array. */
    public int cdbByte(int i) {
        return cdb[i] & 0xff;
    }

    @Override
    public IscsiOpcode opcode() {
        return IscsiOpcode.SCSI_COMMAND;
    }

    private int extendedCdbAhsLength() {
        int extra = cdb.length - BASIC_CDB_LENGTH;
        return extra == 0 ? 0 : 4 + extra + Bhs.padding(extra);
    }

    @Override
    public void encodeHeader(ByteBuf out) {
        int extLength = extendedCdbAhsLength();
        int ahsLength = extLength + (bidirectionalReadLength.isPresent() ? 8 : 0);
        int byte1 = Bhs.flag(finalBit, Bhs.FINAL_BIT) | Bhs.flag(read, READ_BIT) | Bhs.flag(write, WRITE_BIT)
                | attribute.code();
        int b = Bhs.begin(out, IscsiOpcode.SCSI_COMMAND, immediate, byte1, ahsLength, data.readableBytes());
        out.setLong(b + 8, lun);
        out.setInt(b + 16, itt);
        Bhs.setU32BE(out, b + 20, expectedDataTransferLength);
        out.setInt(b + 24, cmdSN);
        out.setInt(b + 28, expStatSN);
        out.setBytes(b + 32, cdb, 0, BASIC_CDB_LENGTH);
        if (extLength > 0) {
            int extra = cdb.length - BASIC_CDB_LENGTH;
            out.writeShort(extra + 1); // AHSLength = CDB length - 15: the reserved byte plus the extra CDB bytes
            out.writeByte(AHS_TYPE_EXTENDED_CDB);
            out.writeByte(0);
            out.writeBytes(cdb, BASIC_CDB_LENGTH, extra);
            out.writeZero(Bhs.padding(extra));
        }
        bidirectionalReadLength.ifPresent(length -> {
            out.writeShort(5);
            out.writeByte(AHS_TYPE_BIDIRECTIONAL_READ_LENGTH);
            out.writeByte(0);
            out.writeInt((int) length);
        });
    }

    public static ScsiCommand decode(ByteBuf frame) {
        Bhs.Parts p = Bhs.open(frame, IscsiOpcode.SCSI_COMMAND);
        int b = p.base();
        int byte1 = Bhs.u8(frame, b + 1);
        TaskAttribute attribute = Bhs.require(TaskAttribute.fromCode(byte1 & ATTR_MASK), frame, b,
                "reserved ATTR " + (byte1 & ATTR_MASK));
        byte[] cdb = new byte[BASIC_CDB_LENGTH];
        frame.getBytes(b + 32, cdb);
        OptionalLong bidiReadLength = OptionalLong.empty();
        int at = p.ahsIndex();
        int end = p.dataIndex();
        while (at < end) {
            // §11.2.2: AHSLength (2 bytes) counts the AHS-specific bytes after the type byte, padding excluded.
            int ahsLength = Bhs.u16BE(frame, at);
            int type = Bhs.u8(frame, at + 2);
            int size = 3 + ahsLength + Bhs.padding(3 + ahsLength);
            if (ahsLength == 0 || at + size > end) {
                throw Bhs.error(IscsiProtocolException.Reason.BAD_AHS, frame, b,
                        "AHS of length " + ahsLength + " overruns TotalAHSLength");
            }
            if (type == AHS_TYPE_EXTENDED_CDB && cdb.length == BASIC_CDB_LENGTH && ahsLength >= 2
                    && ahsLength <= MAX_CDB_LENGTH - 15) {
                byte[] longCdb = Arrays.copyOf(cdb, BASIC_CDB_LENGTH + ahsLength - 1);
                frame.getBytes(at + 4, longCdb, BASIC_CDB_LENGTH, ahsLength - 1);
                cdb = longCdb;
            } else if (type == AHS_TYPE_BIDIRECTIONAL_READ_LENGTH && bidiReadLength.isEmpty() && ahsLength == 5) {
                bidiReadLength = OptionalLong.of(Bhs.u32BE(frame, at + 4));
            } else {
                throw Bhs.error(IscsiProtocolException.Reason.BAD_AHS, frame, b,
                        "unexpected, repeated or malformed AHS type " + type + " length " + ahsLength);
            }
            at += size;
        }
        return new ScsiCommand(Bhs.immediate(frame, b), Bhs.bit(byte1, Bhs.FINAL_BIT), Bhs.bit(byte1, READ_BIT),
                Bhs.bit(byte1, WRITE_BIT), attribute, Bhs.lun(frame, b), Bhs.itt(frame, b), Bhs.u32BE(frame, b + 20),
                frame.getInt(b + 24), frame.getInt(b + 28), cdb, bidiReadLength, Bhs.retainedData(frame, p));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScsiCommand c && immediate == c.immediate && finalBit == c.finalBit && read == c.read
                && write == c.write && attribute == c.attribute && lun == c.lun && itt == c.itt
                && expectedDataTransferLength == c.expectedDataTransferLength && cmdSN == c.cmdSN
                && expStatSN == c.expStatSN && Arrays.equals(cdb, c.cdb)
                && bidirectionalReadLength.equals(c.bidirectionalReadLength) && data.equals(c.data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(immediate, finalBit, read, write, attribute, lun, itt, expectedDataTransferLength, cmdSN,
                expStatSN, Arrays.hashCode(cdb), bidirectionalReadLength, data);
    }

    @Override
    public String toString() {
        return "ScsiCommand[itt=0x" + Integer.toHexString(itt) + ", cmdSN=" + Integer.toUnsignedString(cmdSN)
                + ", lun=0x" + Long.toHexString(lun) + ", R=" + read + ", W=" + write + ", F=" + finalBit
                + ", edtl=" + expectedDataTransferLength + ", cdb=" + HexFormat.of().formatHex(cdb)
                + ", bidiRead=" + bidirectionalReadLength + ", data=" + data.readableBytes() + " bytes]";
    }
}
