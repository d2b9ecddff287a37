package io.blocktarget.it;

import io.blocktarget.testing.TestTiers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tier rule (issue 26) over this module's tests: every end-to-end test is tagged loopback, vm or stress (failsafe
 * runs it only in those tiers), and by what it starts — the server as a process, the Linux VM, a load run.
 */
class TestTiersTest {
    @Test
    void everyTestCarriesTheTagOfWhatItStarts() {
        assertThat(TestTiers.violations(TestTiers.testClassesOf(TestTiersTest.class))).isEmpty();
    }
}
