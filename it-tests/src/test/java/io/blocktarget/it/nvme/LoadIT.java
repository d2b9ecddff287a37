package io.blocktarget.it.nvme;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Load (issue 16 item 4): 256 concurrent iSCSI sessions and 256 NVMe/TCP controllers with 4 I/O queues each (1,536
 * connections) on one server process, every session and queue writing its own 64 KiB twice with a new pattern,
 * reading it back and comparing. A barrier holds the I/O until all are connected. The server must answer every
 * command, log no leak or internal error, and stop cleanly. Runs in about half a minute on 2 cores.
 */
@Tag("stress")
class LoadIT {
    static final int SESSIONS = 256;
    static final int CONTROLLERS = 256;

    @TempDir
    Path tmp;

    @Test
    void twoHundredFiftySixSessionsAndControllersWithFourQueuesEachVerifyTheirIo() throws Exception {
        try (ServedLoad server = new ServedLoad(tmp)) {
            long start = System.nanoTime();
            LoadDriver.Totals totals = server.driver().round(SESSIONS, CONTROLLERS, 2, 1, null);
            long ms = (System.nanoTime() - start) / 1_000_000;
            ServedLoad.Stats after = server.stats();
            System.out.printf("load: %d iSCSI sessions + %d NVMe controllers x %d queues, %d MiB verified in %d ms;"
                            + " server after: %s%n", SESSIONS, CONTROLLERS, LoadDriver.QUEUES,
                    totals.verifiedBytes() >> 20, ms, after);
            assertThat(totals.mismatches()).isZero();
            long perPass = (long) LoadDriver.BLOCKS * LoadDriver.LBS;
            assertThat(totals.verifiedBytes()).isEqualTo(2 * perPass * (SESSIONS + (long) CONTROLLERS * LoadDriver.QUEUES));
            assertThat(server.process.isAlive()).isTrue();
        }
    }
}
