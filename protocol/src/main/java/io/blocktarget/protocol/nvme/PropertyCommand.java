package io.blocktarget.protocol.nvme;

/**
 * Fabrics Property Get (FCTYPE 04h) and Property Set (00h) (Base §6.5 / §6.6): ATTRIB at SQE byte 40 (bits 2:0,
 * 0 = 4-byte property, 1 = 8-byte), OFST at 44..47, VALUE at 48..55 (Set only). The reply to Get carries the
 * value in CQE DW0 (and DW1 for 8 bytes).
 */
public record PropertyCommand(int cid, FabricsCommandType type, ControllerRegister register, long value) {
    /**
     * Parses either property command. An unknown offset or a size that does not match the property is
     * INVALID_FIELD (Base §6.5: "the controller shall abort the command with Invalid Field in Command").
     */
    public static Parsed<PropertyCommand> parse(Sqe sqe) {
        FabricsCommandType type = sqe.isFabrics() ? FabricsCommandType.of(sqe.fctype()).orElse(null) : null;
        if (type != FabricsCommandType.PROPERTY_GET && type != FabricsCommandType.PROPERTY_SET) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int attrib = sqe.cdw10() & 0x7;
        if (attrib > 1) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        int size = attrib == 0 ? 4 : 8;
        ControllerRegister reg = ControllerRegister.at(Integer.toUnsignedLong(sqe.cdw11())).orElse(null);
        if (reg == null || reg.size() != size) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        long value = type == FabricsCommandType.PROPERTY_SET
                ? Integer.toUnsignedLong(sqe.cdw12()) | (long) sqe.cdw13() << 32 : 0;
        if (size == 4 && type == FabricsCommandType.PROPERTY_SET) {
            value &= 0xFFFF_FFFFL;
        }
        return Parsed.ok(new PropertyCommand(sqe.cid(), type, reg, value));
    }

    /** The SQE a host sends (for test initiators). */
    public Sqe toSqe() {
        return new Sqe(Sqe.OPCODE_FABRICS, 0, Sqe.PSDT_SGL_MPTR_ADDRESS, cid, type.code(), 0, 0, 0,
                SglDescriptor.transportDataBlock(0), register.size() == 8 ? 1 : 0, register.offset(), (int) value,
                (int) (value >>> 32), 0, 0);
    }
}
