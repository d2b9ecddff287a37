package io.blocktarget.testing;

import io.blocktarget.testing.tierfixtures.Fixtures;
import org.junit.jupiter.api.Test;

import java.util.List;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static org.assertj.core.api.Assertions.assertThat;

/** The tier rule on fixtures that break it and keep it, then on this module's own tests. */
class TestTiersTest {

    private static List<String> violationsOf(Class<?>... classes) {
        return TestTiers.violations(TestTiers.classes(classes));
    }

    @Test
    void aTestThatStartsAProcessNeedsATierTag() {
        assertThat(violationsOf(Fixtures.UntaggedStartsAProcess.class)).singleElement().asString()
                .contains("UntaggedStartsAProcess.starts starts a child process", "@Tag(\"loopback\")");
        assertThat(violationsOf(Fixtures.TaggedStartsAProcess.class)).isEmpty();
        assertThat(violationsOf(Fixtures.MetaTaggedStartsAProcess.class, Fixtures.Loopback.class)).isEmpty();
    }

    @Test
    void whatALambdaOrATestSupportClassStartsCounts() {
        assertThat(violationsOf(Fixtures.UntaggedStartsAProcessInALambdaThroughSupport.class, Fixtures.Support.class,
                Fixtures.class)).singleElement().asString()
                .contains("UntaggedStartsAProcessInALambdaThroughSupport.starts starts a child process")
                .doesNotContain("startsNothing");
    }

    @Test
    void setUpCountsForEveryTestOfTheClassAndAMethodTagIsEnough() {
        assertThat(violationsOf(Fixtures.SetUpStartsAProcessOneTestTagged.class, Fixtures.class))
                .singleElement().asString().contains("SetUpStartsAProcessOneTestTagged.untagged starts");
        assertThat(violationsOf(Fixtures.MixedClass.class, Fixtures.class)).isEmpty();
    }

    @Test
    void stressNamesAndEndToEndTestsNeedTheirTierAndTagsAreSpelledRight() {
        assertThat(violationsOf(Fixtures.UntaggedRangeStressTest.class)).singleElement().asString()
                .contains("@Tag(\"stress\")");
        assertThat(violationsOf(Fixtures.TaggedRangeStressTest.class)).isEmpty();
        assertThat(violationsOf(Fixtures.UntaggedLoopbackIT.class)).singleElement().asString()
                .contains("an end-to-end test");
        assertThat(violationsOf(Fixtures.TaggedLoopbackIT.class)).isEmpty();
        assertThat(violationsOf(Fixtures.MisspelledTag.class)).singleElement().asString()
                .contains("unknown tag \"loopbak\"");
    }

    @Test
    void everyTestOfThisModuleCarriesTheTagOfWhatItStarts() {
        assertThat(TestTiers.violations(TestTiers.testClassesOf(TestTiersTest.class)
                .that(resideOutsideOfPackage("io.blocktarget.testing.tierfixtures..")))).isEmpty();
    }
}
