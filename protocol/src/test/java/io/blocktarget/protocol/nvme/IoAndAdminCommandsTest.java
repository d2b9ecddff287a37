package io.blocktarget.protocol.nvme;

import static io.blocktarget.protocol.nvme.TestBytes.hex;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;

class IoAndAdminCommandsTest {
    static Sqe sqe(byte[] b) {
        return Sqe.get(Unpooled.wrappedBuffer(b), 0);
    }

    /** 64-byte SQE: opcode, CID 7, NSID, SGL, CDW10..15 as given (Base §4.1 common command format). */
    static byte[] sqeBytes(String opcode, String nsid, String sgl, String cdw10to15) {
        return hex(opcode + " 40 07 00 " + nsid + TestBytes.zeros(16) + sgl + cdw10to15); // 8..23 CDW2, CDW3, MPTR
    }

    static final String SGL_4K = "0000000000000000 00100000 000000 5a"; // transport data block, 4096 bytes
    static final String SGL_NONE = "0000000000000000 00000000 000000 5a";

    @Test
    void readWriteValidation() {
        // Write NSID 1, SLBA 10, NLB 0 (1 block), LR + FUA
        byte[] b = sqeBytes("01", "01000000", SGL_4K, "0a000000 00000000 000000c0" + TestBytes.zeros(12));
        ReadWriteCommand w = ReadWriteCommand.parse(sqe(b)).orNull();
        assertThat(w.opcode()).isEqualTo(NvmOpcode.WRITE);
        assertThat(w.lr()).isTrue();
        assertThat(w.fua()).isTrue();
        assertThat(w.validate(100, 4096, 1 << 20, 0)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(w.validate(10, 4096, 1 << 20, 0)).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(w.validate(11, 4096, 1 << 20, 0)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(w.validate(100, 512, 1 << 20, 0)).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        assertThat(w.validate(100, 4096, 2048, 0)).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(TestBytes.encode(w.toSqe()::encode)).isEqualTo(b);

        byte[] pi = sqeBytes("02", "01000000", SGL_4K, "00000000 00000000 00000004" + TestBytes.zeros(12));
        assertThat(ReadWriteCommand.parse(sqe(pi)).status()).isEqualTo(NvmeStatus.INVALID_FIELD); // PRINFO bit 26
        byte[] compare = sqeBytes("05", "01000000", SGL_4K, TestBytes.zeros(24));
        assertThat(ReadWriteCommand.parse(sqe(compare)).orNull().opcode()).isEqualTo(NvmOpcode.COMPARE);
        byte[] flush = sqeBytes("00", "01000000", SGL_NONE, TestBytes.zeros(24));
        assertThat(ReadWriteCommand.parse(sqe(flush)).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
    }

    @Test
    void lbaRangeIsOverflowSafe() {
        assertThat(ReadWriteCommand.checkRange(-1L, 1, Long.MAX_VALUE)).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(ReadWriteCommand.checkRange(Long.MAX_VALUE - 1, 65536, Long.MAX_VALUE))
                .isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(ReadWriteCommand.checkRange(0, 65536, 65536)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(ReadWriteCommand.checkRange(65536, 1, 65536)).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        // SLBA FFFFFFFF_FFFFFFFF on the wire is negative as a long: out of range, not a wrap-around
        byte[] b = sqeBytes("02", "01000000", SGL_4K, "ffffffff ffffffff 00000000" + TestBytes.zeros(12));
        assertThat(ReadWriteCommand.parse(sqe(b)).orNull().validate(1000, 4096, 1 << 20, 0))
                .isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
    }

    @Test
    void writeZeroes() {
        // NLB 7 (8 blocks), DEAC bit 25 => CDW12 = 0200_0007h
        byte[] b = sqeBytes("08", "01000000", SGL_NONE, "00010000 00000000 07000002" + TestBytes.zeros(12));
        WriteZeroesCommand wz = WriteZeroesCommand.parse(sqe(b)).orNull();
        assertThat(wz.slba()).isEqualTo(256);
        assertThat(wz.blocks()).isEqualTo(8);
        assertThat(wz.deac()).isTrue();
        assertThat(wz.fua()).isFalse();
        assertThat(wz.validate(264)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(wz.validate(263)).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(TestBytes.encode(wz.toSqe()::encode)).isEqualTo(b);
        assertThat(WriteZeroesCommand.parse(sqe(SqeCqeTest.READ_SQE)).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
    }

    @Test
    void datasetManagementRanges() {
        // NR 1 (2 ranges), AD (CDW11 bit 2); data in capsule, 32 bytes
        byte[] b = sqeBytes("09", "01000000", "0000000000000000 20000000 000000 01", "01000000 04000000" + TestBytes.zeros(16));
        DatasetManagementCommand dsm = DatasetManagementCommand.parse(sqe(b)).orNull();
        assertThat(dsm.ranges()).isEqualTo(2);
        assertThat(dsm.ad()).isTrue();
        assertThat(dsm.idr()).isFalse();
        byte[] ranges = hex("""
                00000000 08000000 0000000000000000   # context attributes 0, length 8, SLBA 0
                00000000 10000000 6400000000000000   # length 16, SLBA 100
                """);
        ByteBuf data = Unpooled.wrappedBuffer(ranges);
        List<DatasetManagementCommand.DsmRange> list = dsm.parseRanges(data, 116).orNull();
        assertThat(list).containsExactly(new DatasetManagementCommand.DsmRange(0, 8, 0),
                new DatasetManagementCommand.DsmRange(0, 16, 100));
        assertThat(dsm.parseRanges(data, 115).status()).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(dsm.parseRanges(data.slice(0, 16), 116).status()).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        assertThat(TestBytes.encode(list.get(1)::encode)).isEqualTo(java.util.Arrays.copyOfRange(ranges, 16, 32));
        byte[] shortSgl = sqeBytes("09", "01000000", "0000000000000000 10000000 000000 01", "01000000 04000000" + TestBytes.zeros(16));
        assertThat(DatasetManagementCommand.parse(sqe(shortSgl)).status()).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
    }

    @Test
    void identify() {
        // CNS 06h, CNTID 0, CSI 0 (NVM) in CDW11 bits 31:24 — what Linux sends in nvme_init_non_mdts_limits
        byte[] b = sqeBytes("06", "00000000", SGL_4K, "06000000 00000000" + TestBytes.zeros(16));
        IdentifyCommand id = IdentifyCommand.parse(sqe(b)).orNull();
        assertThat(id.cns()).isEqualTo(IdentifyCommand.CNS_CS_CONTROLLER);
        assertThat(id.csi()).isEqualTo(IdentifyCommand.CSI_NVM);
        assertThat(TestBytes.encode(id.toSqe()::encode)).isEqualTo(b);
        byte[] ns = sqeBytes("06", "01000000", SGL_4K, "00001200 000000ab" + TestBytes.zeros(16));
        IdentifyCommand n = IdentifyCommand.parse(sqe(ns)).orNull();
        assertThat(n.cns()).isZero();
        assertThat(n.cntid()).isEqualTo(0x12);
        assertThat(n.csi()).isEqualTo(0xAB);
        byte[] small = sqeBytes("06", "00000000", SGL_NONE, "01000000" + TestBytes.zeros(20));
        assertThat(IdentifyCommand.parse(sqe(small)).status()).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
    }

    @Test
    void getLogPage() {
        // LID 70h, RAE, NUMDL 0FFh (1024 bytes), LPO 1024: the second chunk of a discovery log read
        byte[] b = sqeBytes("02", "00000000", SGL_4K, "70 80 ff 00  00000000  00040000 00000000" + TestBytes.zeros(8));
        GetLogPageCommand g = GetLogPageCommand.parse(sqe(b)).orNull();
        assertThat(g.lid()).isEqualTo(GetLogPageCommand.LID_DISCOVERY);
        assertThat(g.rae()).isTrue();
        assertThat(g.lengthBytes()).isEqualTo(1024);
        assertThat(g.lpo()).isEqualTo(1024);
        assertThat(TestBytes.encode(g.toSqe()::encode)).isEqualTo(b);
        // NUMDU: 0001_0000h+1 dwords
        byte[] big = sqeBytes("02", "00000000", "0000000000000000 04000400 000000 5a", "02 00 00 00  01000000" + TestBytes.zeros(16));
        assertThat(GetLogPageCommand.parse(sqe(big)).orNull().lengthBytes()).isEqualTo(0x10001L * 4);
        byte[] unaligned = sqeBytes("02", "00000000", SGL_4K, "02 00 7f 00  00000000  02000000" + TestBytes.zeros(12));
        assertThat(GetLogPageCommand.parse(sqe(unaligned)).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        byte[] tooLong = sqeBytes("02", "00000000", SGL_4K, "02 00 00 04" + TestBytes.zeros(20)); // NUMDL 400h: 1025 dwords > 4 KiB SGL
        assertThat(GetLogPageCommand.parse(sqe(tooLong)).status()).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
    }

    @Test
    void features() {
        // Set Features Number of Queues: NSQR 3, NCQR 3 (0's based: 4 each)
        byte[] b = sqeBytes("09", "00000000", SGL_NONE, "07000000 03000300" + TestBytes.zeros(16));
        FeatureCommand f = FeatureCommand.parse(sqe(b)).orNull();
        assertThat(f.fid()).isEqualTo(FeatureId.NUMBER_OF_QUEUES);
        FeatureValue.NumberOfQueues q = (FeatureValue.NumberOfQueues) f.value().orNull();
        assertThat(q).isEqualTo(new FeatureValue.NumberOfQueues(3, 3));
        assertThat(q.allocate(2).encode()).isEqualTo(0x0001_0001);
        assertThat(TestBytes.encode(f.toSqe()::encode)).isEqualTo(b);

        byte[] ffff = sqeBytes("09", "00000000", SGL_NONE, "07000000 ffff0000" + TestBytes.zeros(16));
        assertThat(FeatureCommand.parse(sqe(ffff)).orNull().value().status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        byte[] save = sqeBytes("09", "00000000", SGL_NONE, "06000080 01000000" + TestBytes.zeros(16));
        assertThat(FeatureCommand.parse(sqe(save)).status()).isEqualTo(NvmeStatus.FEATURE_NOT_SAVEABLE);
        byte[] unknown = sqeBytes("0a", "00000000", SGL_NONE, "7e000000" + TestBytes.zeros(20));
        assertThat(FeatureCommand.parse(sqe(unknown)).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        byte[] selBad = sqeBytes("0a", "00000000", SGL_NONE, "0f040000" + TestBytes.zeros(20)); // SEL 4
        assertThat(FeatureCommand.parse(sqe(selBad)).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        byte[] getKato = sqeBytes("0a", "00000000", SGL_NONE, "0f010000" + TestBytes.zeros(20)); // SEL 1 default
        FeatureCommand g = FeatureCommand.parse(sqe(getKato)).orNull();
        assertThat(g.sel()).isEqualTo(FeatureCommand.SEL_DEFAULT);
        assertThat(g.fid()).isEqualTo(FeatureId.KEEP_ALIVE_TIMER);
    }

    @Test
    void featureValuesMatchSpecBitLayout() {
        assertThat(FeatureValue.decode(FeatureId.KEEP_ALIVE_TIMER, 120000).orNull())
                .isEqualTo(new FeatureValue.KeepAliveTimer(120000));
        assertThat(FeatureValue.decode(FeatureId.VOLATILE_WRITE_CACHE, 1).orNull().encode()).isEqualTo(1);
        assertThat(FeatureValue.decode(FeatureId.ASYNC_EVENT_CONFIGURATION, 0x100).orNull())
                .isEqualTo(new FeatureValue.AsyncEventConfiguration(
                        FeatureValue.AsyncEventConfiguration.NAMESPACE_ATTRIBUTE_NOTICES));
        FeatureValue arb = FeatureValue.decode(FeatureId.ARBITRATION, 0x04030201 | 0x3).orNull();
        assertThat(arb).isEqualTo(new FeatureValue.Arbitration(3, 2, 3, 4));
        assertThat(arb.encode()).isEqualTo(0x04030203);
        assertThat(FeatureValue.decode(FeatureId.POWER_MANAGEMENT, 0x41).orNull())
                .isEqualTo(new FeatureValue.PowerManagement(1, 2));
        FeatureValue t = FeatureValue.decode(FeatureId.TEMPERATURE_THRESHOLD, 0x0010_0157).orNull();
        assertThat(t).isEqualTo(new FeatureValue.TemperatureThreshold(0x157, 0, 1));
        assertThat(t.encode()).isEqualTo(0x0010_0157);
        assertThat(FeatureValue.decode(FeatureId.TEMPERATURE_THRESHOLD, 0x0020_0000).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(FeatureValue.decode(FeatureId.INTERRUPT_COALESCING, 0x0a05).orNull())
                .isEqualTo(new FeatureValue.InterruptCoalescing(5, 10));
        assertThat(FeatureValue.decode(FeatureId.LBA_RANGE_TYPE, 0).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
    }

    @Test
    void abort() {
        byte[] b = sqeBytes("08", "00000000", SGL_NONE, "02003412" + TestBytes.zeros(20));
        AbortCommand a = AbortCommand.parse(sqe(b)).orNull();
        assertThat(a.sqid()).isEqualTo(2);
        assertThat(a.abortCid()).isEqualTo(0x1234);
        assertThat(TestBytes.encode(a.toSqe()::encode)).isEqualTo(b);
        assertThat(AbortCommand.resultNotAborted()).isEqualTo(1);
    }

    @Test
    void opcodeEnums() {
        assertThat(AdminOpcode.of(0x18)).contains(AdminOpcode.KEEP_ALIVE);
        assertThat(AdminOpcode.of(0x0C)).contains(AdminOpcode.ASYNC_EVENT_REQUEST);
        assertThat(AdminOpcode.of(0x7F)).contains(AdminOpcode.FABRICS);
        assertThat(AdminOpcode.of(0x03)).isEmpty();
        assertThat(NvmOpcode.of(0x09)).contains(NvmOpcode.DATASET_MANAGEMENT);
        assertThat(NvmOpcode.of(0x08)).contains(NvmOpcode.WRITE_ZEROES);
        assertThat(FabricsCommandType.of(0x08)).contains(FabricsCommandType.DISCONNECT);
        assertThat(FabricsCommandType.of(0x05)).contains(FabricsCommandType.AUTHENTICATION_SEND);
        assertThat(FabricsCommandType.of(0x02)).isEmpty();
    }
}
