package io.blocktarget.nvme;

import io.blocktarget.block.BlockError;
import io.blocktarget.protocol.nvme.NvmeStatus;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The one table from backend failures to NVMe status (NVM Command Set §4.1.1), every row with SCT/SC/DNR. */
class BlockStatusTest {
    private record Row(int sct, int sc, boolean dnr) {
    }

    @Test
    void everyBlockErrorHasItsStatus() {
        Map<BlockError, Row> expected = new EnumMap<>(BlockError.class);
        expected.put(BlockError.LBA_OUT_OF_RANGE, new Row(0, 0x80, true));
        expected.put(BlockError.INVALID_LENGTH, new Row(0, 0x02, true));
        expected.put(BlockError.WRITE_PROTECTED, new Row(0, 0x20, true));
        expected.put(BlockError.OUT_OF_SPACE, new Row(0, 0x81, true));
        expected.put(BlockError.INSUFFICIENT_RESOURCES, new Row(0, 0x21, false));
        expected.put(BlockError.READ_ERROR, new Row(2, 0x81, false));
        expected.put(BlockError.WRITE_ERROR, new Row(2, 0x80, false));
        expected.put(BlockError.CLOSED, new Row(0, 0x82, false));
        // ZNS 1.1 §3.3.1 command specific statuses
        expected.put(BlockError.ZONE_UNALIGNED_WRITE, new Row(1, 0xBC, true));
        expected.put(BlockError.ZONE_BOUNDARY_ERROR, new Row(1, 0xB8, true));
        expected.put(BlockError.ZONE_FULL, new Row(1, 0xB9, true));
        expected.put(BlockError.ZONE_READ_ONLY, new Row(1, 0xBA, true));
        expected.put(BlockError.ZONE_OFFLINE, new Row(1, 0xBB, true));
        expected.put(BlockError.ZONE_TOO_MANY_OPEN, new Row(1, 0xBE, true));
        expected.put(BlockError.ZONE_TOO_MANY_ACTIVE, new Row(1, 0xBD, true));
        expected.put(BlockError.ZONE_INVALID_STATE_TRANSITION, new Row(1, 0xBF, true));
        expected.put(BlockError.ZONE_GAP_ACCESS, new Row(1, 0xB8, true));
        expected.put(BlockError.ZONE_INVALID_READ, new Row(1, 0xB8, true));
        expected.put(BlockError.ZONE_READ_BOUNDARY, new Row(1, 0xB8, true));
        assertThat(expected.keySet()).containsExactlyInAnyOrder(BlockError.values());
        expected.forEach((error, row) -> {
            NvmeStatus status = BlockStatus.of(error);
            assertThat(new Row(status.sct().code(), status.sc(), status.dnr())).as(error.name()).isEqualTo(row);
        });
    }
}
