package io.blocktarget.block;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Both command sets' codes (SPC-5 PR TYPE, NVMe RTYPE) map back to the one type, by table; others are empty. */
class ReservationTypeTest {
    @Test
    void everyCodeMapsBackAndNothingElseDoes() {
        for (ReservationType t : ReservationType.values()) {
            assertThat(ReservationType.ofScsi(t.scsiCode())).contains(t);
            assertThat(ReservationType.ofNvme(t.nvmeCode())).contains(t);
        }
        int scsi = 0;
        int nvme = 0;
        for (int code = -1; code <= 256; code++) {
            scsi += ReservationType.ofScsi(code).isPresent() ? 1 : 0;
            nvme += ReservationType.ofNvme(code).isPresent() ? 1 : 0;
        }
        assertThat(scsi).isEqualTo(6);
        assertThat(nvme).isEqualTo(6);
        assertThat(ReservationType.ofScsi(0x2)).isEmpty();   // obsolete in SPC-5
        assertThat(ReservationType.ofNvme(0)).isEmpty();
        assertThat(ReservationType.ofNvme(7)).isEmpty();
    }
}
