package io.blocktarget.config;

import io.blocktarget.testing.TestTiers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The tier rule (issue 26) over this module's tests: unit tests all, until one starts something a tier names. */
class TestTiersTest {
    @Test
    void everyTestCarriesTheTagOfWhatItStarts() {
        assertThat(TestTiers.violations(TestTiers.testClassesOf(TestTiersTest.class))).isEmpty();
    }
}
