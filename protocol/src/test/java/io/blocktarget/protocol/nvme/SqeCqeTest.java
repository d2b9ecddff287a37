package io.blocktarget.protocol.nvme;

import static io.blocktarget.protocol.nvme.TestBytes.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class SqeCqeTest {
    static final byte[] CONNECT_SQE = NvmeVectors.CONNECT_SQE;
    static final byte[] READ_SQE = NvmeVectors.READ_SQE;

    @Test
    void sqeDecodesConnectAndReencodesByteExact() {
        ByteBuf buf = Unpooled.wrappedBuffer(CONNECT_SQE);
        Sqe sqe = Sqe.decode(buf);
        assertThat(buf.readableBytes()).isZero();
        assertThat(sqe.opcode()).isEqualTo(0x7F);
        assertThat(sqe.isFabrics()).isTrue();
        assertThat(sqe.fctype()).isEqualTo(FabricsCommandType.CONNECT.code());
        assertThat(sqe.psdt()).isEqualTo(Sqe.PSDT_SGL_MPTR_ADDRESS);
        assertThat(sqe.cid()).isEqualTo(1);
        assertThat(sqe.dptr().kind()).isEqualTo(SglDescriptor.Kind.IN_CAPSULE);
        assertThat(sqe.dptr().length()).isEqualTo(1024);
        assertThat(TestBytes.encode(sqe::encode)).isEqualTo(CONNECT_SQE).hasSize(Sqe.SIZE);
        buf.release();
    }

    @Test
    void sqeDecodesReadFields() {
        Sqe sqe = Sqe.get(Unpooled.wrappedBuffer(READ_SQE), 0);
        assertThat(sqe.cid()).isEqualTo(0x1234);
        assertThat(sqe.nsid()).isEqualTo(1);
        assertThat(sqe.dptr()).isEqualTo(SglDescriptor.transportDataBlock(8192));
        assertThat(sqe.dptr().kind()).isEqualTo(SglDescriptor.Kind.TRANSPORT_DATA_BLOCK);
        ReadWriteCommand rw = ReadWriteCommand.parse(sqe).orNull();
        assertThat(rw).isNotNull();
        assertThat(rw.slba()).isEqualTo(0x1_89AB_CDEFL);
        assertThat(rw.blocks()).isEqualTo(2);
        assertThat(rw.fua()).isTrue();
        assertThat(rw.lr()).isFalse();
        assertThat(TestBytes.encode(rw.toSqe()::encode)).isEqualTo(READ_SQE);
    }

    @Test
    void fuseAndPsdtBits() {
        byte[] b = READ_SQE.clone();
        b[1] = (byte) 0x81; // PSDT 10b, FUSE 01b
        Sqe sqe = Sqe.get(Unpooled.wrappedBuffer(b), 0);
        assertThat(sqe.fuse()).isEqualTo(1);
        assertThat(sqe.psdt()).isEqualTo(2);
    }

    @Test
    void cqeByteExact() {
        // Base §4.2.1: DW0, DW1, SQHD, SQID, CID, status (bit 0 phase, 8:1 SC, 11:9 SCT, 13:12 CRD, 14 M, 15 DNR)
        byte[] expected = hex("""
                01 00 00 00   # 0 DW0 = 1
                00 00 00 00   # 4 DW1
                02 00 00 00   # 8 SQHD 2; 10 SQID 0
                01 00 04 80   # 12 CID 1; 14 status: SC 02h (bits 8:1 -> 0004h), DNR bit 15
                """);
        Cqe cqe = Cqe.of(1, 0, 2, NvmeStatus.INVALID_FIELD, 1);
        assertThat(TestBytes.encode(cqe::encode)).isEqualTo(expected).hasSize(Cqe.SIZE);
        assertThat(Cqe.decode(Unpooled.wrappedBuffer(expected))).isEqualTo(cqe);
    }

    @Test
    void cqeStatusBitsForCommandSpecificAndPhase() {
        // SCT 1 (bits 11:9 -> 0200h), SC 82h (-> 0104h), DNR (8000h), phase 1 => 8305h
        byte[] expected = hex("78 56 34 12  00 00 00 00  00 00 01 00  ff ff 05 83");
        Cqe cqe = new Cqe(0x12345678, 0, 0, 1, 0xFFFF, 1, NvmeStatus.CONNECT_INVALID_PARAMETERS.toCqeStatus());
        assertThat(TestBytes.encode(cqe::encode)).isEqualTo(expected);
        Cqe back = Cqe.decode(Unpooled.wrappedBuffer(expected));
        assertThat(back.phase()).isEqualTo(1);
        assertThat(back.status().sct()).isEqualTo(1);
        assertThat(back.status().sc()).isEqualTo(0x82);
        assertThat(back.status().dnr()).isTrue();
        assertThat(NvmeStatus.of(back.status().sct(), back.status().sc())).isNotNull();
    }

    @Test
    void crdAndMoreBits() {
        CqeStatus s = CqeStatus.decode(0x3000 | 0x4000);
        assertThat(s.crd()).isEqualTo(3);
        assertThat(s.more()).isTrue();
        assertThat(s.encode(0)).isEqualTo(0x7000);
        assertThatThrownBy(() -> new CqeStatus(256, 0, 0, false, false)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sglValidation() {
        assertThat(SglDescriptor.transportDataBlock(4096).validate(4096, 0)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(SglDescriptor.transportDataBlock(4096).validate(8192, 0))
                .isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        assertThat(SglDescriptor.inCapsule(0, 1024).validate(1024, 1024)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(SglDescriptor.inCapsule(0, 1024).validate(1024, 512)).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        assertThat(SglDescriptor.inCapsule(2048, 16).validate(16, 1024)).isEqualTo(NvmeStatus.SGL_OFFSET_INVALID);
        // keyed data block (type 4) is RDMA's: not over TCP
        assertThat(new SglDescriptor(0, 16, 0, SglDescriptor.TYPE_KEYED_DATA_BLOCK, 0).validate(16, 0))
                .isEqualTo(NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID);
        assertThat(new SglDescriptor(0, 16, 0, SglDescriptor.TYPE_TRANSPORT_DATA_BLOCK, 0).kind())
                .isEqualTo(SglDescriptor.Kind.UNSUPPORTED);
    }

    @Test
    void statusTableMatchesSpecCodes() {
        // spot checks against Base / NVM Command Set status figures
        assertThat(NvmeStatus.INVALID_OPCODE.sc()).isEqualTo(0x01);
        assertThat(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT.sc()).isEqualTo(0x0B);
        assertThat(NvmeStatus.SGL_DATA_BLOCK_GRANULARITY_INVALID.sc()).isEqualTo(0x1E);
        assertThat(NvmeStatus.NAMESPACE_IS_WRITE_PROTECTED.sc()).isEqualTo(0x20);
        assertThat(NvmeStatus.LBA_OUT_OF_RANGE.sc()).isEqualTo(0x80);
        assertThat(NvmeStatus.CAPACITY_EXCEEDED.sc()).isEqualTo(0x81);
        assertThat(NvmeStatus.INVALID_LOG_PAGE.sct()).isEqualTo(NvmeStatus.StatusCodeType.COMMAND_SPECIFIC);
        assertThat(NvmeStatus.INVALID_LOG_PAGE.sc()).isEqualTo(0x09);
        assertThat(NvmeStatus.CONNECT_INVALID_HOST.sc()).isEqualTo(0x84);
        assertThat(NvmeStatus.COMPARE_FAILURE.sct()).isEqualTo(NvmeStatus.StatusCodeType.MEDIA_ERROR);
        assertThat(NvmeStatus.COMPARE_FAILURE.sc()).isEqualTo(0x85);
        assertThat(NvmeStatus.UNRECOVERED_READ_ERROR.sc()).isEqualTo(0x81);
        assertThat(NvmeStatus.TRANSIENT_TRANSPORT_ERROR.dnr()).isFalse();
        assertThat(NvmeStatus.SUCCESS.toCqeStatus()).isEqualTo(CqeStatus.SUCCESS);
        // Generic codes are unique within their SCT (command specific ones legitimately overlap)
        assertThat(java.util.Arrays.stream(NvmeStatus.values())
                .filter(s -> s.sct() == NvmeStatus.StatusCodeType.GENERIC).map(NvmeStatus::sc).distinct().count())
                .isEqualTo(java.util.Arrays.stream(NvmeStatus.values())
                        .filter(s -> s.sct() == NvmeStatus.StatusCodeType.GENERIC).count());
    }
}
