package io.blocktarget.scsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ForwardingBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.blocktarget.scsi.Scsi.sixteen;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * GET LBA STATUS (SBC-4 §5.7, issue 28 item 2) on a unit with LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT 2 (4 KiB
 * logical, 16 KiB physical): the descriptors follow what the RAM disk really holds — its 64 KiB chunks (16 blocks),
 * mapped once written, deallocated once an UNMAP covers them whole — the first starts at the STARTING LOGICAL BLOCK
 * ADDRESS, and the ALLOCATION LENGTH bounds how many come back. Byte-exact against Tables 35-37.
 */
class GetLbaStatusTest {
    private static final int LBS = 4096, PBS = 16384, CHUNK_BLOCKS = 16;
    private static final int MAPPED = 0, DEALLOCATED = 1;

    static byte[] getLbaStatus(long lba, int allocation) {
        return sixteen(0x9E, 0x12, lba, allocation);
    }

    /** The parameter data of descriptors given as (lba, blocks, status) triples. */
    static byte[] data(int parameterDataLength, long... triples) {
        ByteBuffer b = ByteBuffer.allocate(8 + 16 * (triples.length / 3));
        b.putInt(parameterDataLength).putInt(0);
        for (int i = 0; i < triples.length; i += 3) {
            b.putLong(triples[i]).putInt((int) triples[i + 1]).put((byte) triples[i + 2]).put(new byte[3]);
        }
        return b.array();
    }

    private static Scsi.Unit unit() {
        return Scsi.Unit.ram("lbas", LBS, PBS, 4 << 20);   // 1024 blocks, 64 chunks
    }

    @Test
    void aFreshUnitIsOneDeallocatedExtentFromTheStartingLba() {
        try (Scsi.Unit u = unit()) {
            byte[] rc16 = u.run(Scsi.readCapacity16(32), null).assertGood().data();
            assertThat(rc16[13] & 0x0F).as("LBPPBE").isEqualTo(2);
            assertThat(rc16[14] & 0x80).as("LBPME").isNotZero();
            assertThat(u.run(getLbaStatus(0, 64), null).assertGood().data())
                    .isEqualTo(data(20, 0, 1024, DEALLOCATED));
            assertThat(u.run(getLbaStatus(1023, 64), null).assertGood().data())
                    .isEqualTo(data(20, 1023, 1, DEALLOCATED));
            u.run(getLbaStatus(1024, 64), null).assertCheck(0x5, 0x21, 0x00);
        }
    }

    @Test
    void writtenChunksAreMappedAndTheFirstDescriptorStartsAtTheStartingLba() {
        try (Scsi.Unit u = unit()) {
            u.run(sixteen(0x8A, 0, 20, 1), Scsi.pattern(1, LBS)).assertGood();         // maps chunk 1: LBA 16-31
            assertThat(u.run(getLbaStatus(0, 8 + 16 * 8), null).assertGood().data()).isEqualTo(data(52,
                    0, 16, DEALLOCATED, 16, 16, MAPPED, 32, 1024 - 32, DEALLOCATED));
            // inside the physical block 20-23 and the chunk: the first descriptor starts at LBA 21 itself
            assertThat(u.run(getLbaStatus(21, 8 + 16 * 8), null).assertGood().data()).isEqualTo(data(36,
                    21, 11, MAPPED, 32, 1024 - 32, DEALLOCATED));
            // the ALLOCATION LENGTH: one descriptor room, one descriptor; less than one, the header and a cut one
            assertThat(u.run(getLbaStatus(0, 24), null).assertGood().data()).isEqualTo(data(20, 0, 16, DEALLOCATED));
            assertThat(u.run(getLbaStatus(0, 8), null).assertGood().data()).isEqualTo(new byte[] {0, 0, 0, 20, 0, 0, 0, 0});
        }
    }

    /**
     * A single LBA unmapped inside a physical block reads zeros at once (LBPRZ = 1) but its chunk keeps the other
     * blocks' data, so it is still mapped; an UNMAP covering the chunk whole deallocates it.
     */
    @Test
    void unmappingOneLbaLeavesItMappedUnmappingItsChunkDeallocates() {
        try (Scsi.Unit u = unit()) {
            u.run(sixteen(0x8A, 0, 16, CHUNK_BLOCKS), Scsi.pattern(2, CHUNK_BLOCKS * LBS)).assertGood();
            byte[] one = ProvisioningTest.unmapList(21, 1);
            u.run(ProvisioningTest.unmapCdb(0, one.length), one).assertGood();
            assertThat(u.run(sixteen(0x88, 0, 21, 1), null).data()).isEqualTo(new byte[LBS]);
            assertThat(u.run(getLbaStatus(21, 24), null).assertGood().data()).isEqualTo(data(20, 21, 11, MAPPED));
            byte[] physical = ProvisioningTest.unmapList(20, PBS / LBS);
            u.run(ProvisioningTest.unmapCdb(0, physical.length), physical).assertGood();
            assertThat(u.run(getLbaStatus(16, 24), null).assertGood().data()).isEqualTo(data(20, 16, 16, MAPPED));
            byte[] chunk = ProvisioningTest.unmapList(16, CHUNK_BLOCKS);
            u.run(ProvisioningTest.unmapCdb(0, chunk.length), chunk).assertGood();
            assertThat(u.run(getLbaStatus(0, 64), null).assertGood().data()).isEqualTo(data(20, 0, 1024, DEALLOCATED));
            assertThat(u.ram().allocatedBytes()).isZero();
        }
    }

    /** NUMBER OF LOGICAL BLOCKS is 32 bits: a longer extent is reported as several descriptors. */
    @Test
    void anExtentLongerThanTheFieldIsSplit() {
        RamBlockDevice huge = new RamBlockDevice("huge", new BlockGeometry(512, 4096, 1L << 33), false,
                new MemoryBudget(1 << 20));
        try (Scsi.Unit u = Scsi.Unit.of(huge)) {
            assertThat(u.run(getLbaStatus(0, 64), null).assertGood().data()).isEqualTo(data(52,
                    0, 0xFFFF_FFFFL, DEALLOCATED, 0xFFFF_FFFFL, 0xFFFF_FFFFL, DEALLOCATED,
                    0x1_FFFF_FFFEL, 2, DEALLOCATED));
        }
    }

    /** A backend that cannot tell (the default of the block SPI) is "mapped or unknown" to the end. */
    @Test
    void aBackendThatCannotTellIsMappedOrUnknown() {
        RamBlockDevice ram = Scsi.ram("plain", LBS, PBS, 4 << 20);
        try (Scsi.Unit u = Scsi.Unit.of(new ForwardingBlockDevice(ram) {
            @Override
            public io.blocktarget.block.ProvisioningRun provisioning(long lba, long maxBlocks) {
                return new io.blocktarget.block.ProvisioningRun(true, maxBlocks);
            }
        })) {
            assertThat(u.run(getLbaStatus(8, 64), null).assertGood().data()).isEqualTo(data(20, 8, 1016, MAPPED));
        }
    }
}
