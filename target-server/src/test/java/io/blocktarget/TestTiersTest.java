package io.blocktarget;

import io.blocktarget.testing.TestTiers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tier rule (issue 26) over this module's tests: a test that starts a {@code TargetServer} or a child process
 * is tagged loopback (or later), a seeded fuzz run or a class named ...Stress... stress; a quick test starts neither.
 */
class TestTiersTest {
    @Test
    void everyTestCarriesTheTagOfWhatItStarts() {
        assertThat(TestTiers.violations(TestTiers.testClassesOf(TestTiersTest.class))).isEmpty();
    }
}
