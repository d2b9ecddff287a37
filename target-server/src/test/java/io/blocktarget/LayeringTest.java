package io.blocktarget;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noFields;

/**
 * DESIGN.md §2: arrows point down only. cli → server → transport.{iscsi,nvmetcp} → {scsi, nvme} → block;
 * backends know no protocol; protocol and config are pure; the clock ({@code time}) sits below them all. Rules on packages that do not exist yet
 * pass vacuously (allowEmptyShould) so that they are in force the moment the package appears.
 */
class LayeringTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                // protocol's test-jar (the shared leak extension) is on the test class path as a jar under
                // `mvn verify`, as test-classes under `mvn test`: tests are not layers either way
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("io.blocktarget");
    }

    private static void check(ArchRule rule) {
        rule.allowEmptyShould(true).check(classes);
    }

    @Test
    void protocolIsPureWireFormats() {
        check(classes().that().resideInAPackage("io.blocktarget.protocol..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        "io.blocktarget.protocol..", "java..", "io.netty.buffer..", "io.netty.util.."));
    }

    @Test
    void configKnowsNoNetworkingAndNoServer() {
        check(noClasses().that().resideInAPackage("io.blocktarget.config..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.vertx..", "io.netty..", "io.blocktarget.server..", "io.blocktarget.block..",
                        "io.blocktarget.transport..", "io.blocktarget.scsi..", "io.blocktarget.nvme..",
                        "io.blocktarget.cli.."));
    }

    @Test
    void blockLayerKnowsNoProtocolAndNoServer() {
        check(noClasses().that().resideInAPackage("io.blocktarget.block..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.blocktarget.protocol..", "io.blocktarget.config..", "io.blocktarget.scsi..",
                        "io.blocktarget.nvme..", "io.blocktarget.transport..", "io.blocktarget.server..",
                        "io.blocktarget.cli..", "io.vertx.."));
    }

    @Test
    void scsiLayerNeverSeesPdusOrNvme() {
        check(noClasses().that().resideInAPackage("io.blocktarget.scsi..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.blocktarget.protocol.iscsi..", "io.blocktarget.protocol.nvme..",
                        "io.blocktarget.protocol.nvmetcp..", "io.blocktarget.transport..", "io.blocktarget.nvme..",
                        "io.blocktarget.server..", "io.blocktarget.cli..", "io.vertx.."));
    }

    @Test
    void nvmeLayerNeverSeesTcpOrScsi() {
        check(noClasses().that().resideInAPackage("io.blocktarget.nvme..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.blocktarget.protocol.nvmetcp..", "io.blocktarget.protocol.iscsi..",
                        "io.blocktarget.protocol.scsi..", "io.blocktarget.transport..", "io.blocktarget.scsi..",
                        "io.blocktarget.server..", "io.blocktarget.cli..", "io.vertx.."));
    }

    @Test
    void transportsShareNothingButTheBlockLayer() {
        check(noClasses().that().resideInAPackage("io.blocktarget.transport.iscsi..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.blocktarget.transport.nvmetcp..", "io.blocktarget.nvme..",
                        "io.blocktarget.protocol.nvme..", "io.blocktarget.protocol.nvmetcp..",
                        "io.blocktarget.cli.."));
        check(noClasses().that().resideInAPackage("io.blocktarget.transport.nvmetcp..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.blocktarget.transport.iscsi..", "io.blocktarget.scsi..",
                        "io.blocktarget.protocol.iscsi..", "io.blocktarget.protocol.scsi..",
                        "io.blocktarget.cli.."));
    }

    @Test
    void controlSitsOnTheServerAndOnlyTheCliUsesIt() {
        check(noClasses().that().resideOutsideOfPackages("io.blocktarget.control..", "io.blocktarget.cli..")
                .should().dependOnClassesThat().resideInAPackage("io.blocktarget.control.."));
        check(noClasses().that().resideInAPackage("io.blocktarget.control..")
                .should().dependOnClassesThat().resideInAnyPackage("io.blocktarget.transport..",
                        "io.blocktarget.scsi..", "io.blocktarget.nvme..", "io.blocktarget.protocol..",
                        "io.blocktarget.cli.."));
    }

    @Test
    void theClockKnowsOnlyTheJdkAndNettysExecutors() {
        check(classes().that().resideInAPackage("io.blocktarget.time..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.blocktarget.time..", "java..",
                        "io.netty.util.."));
    }

    /**
     * Issue 26: every executor is created, named and shut down by the server (or the object of it) that owns it —
     * none is process-wide, so two servers in one JVM share no thread.
     */
    @Test
    void noStaticThreadPools() {
        check(noFields().that().areStatic()
                .should().haveRawType(assignableTo(java.util.concurrent.Executor.class))
                .orShould().haveRawType(assignableTo(io.netty.util.concurrent.EventExecutorGroup.class))
                .orShould().haveRawType(assignableTo(java.util.Timer.class)));
    }

    @Test
    void onlyTheCliSitsOnTop() {
        check(noClasses().that().resideOutsideOfPackage("io.blocktarget.cli..")
                .should().dependOnClassesThat().resideInAPackage("io.blocktarget.cli.."));
        check(noClasses().that().resideInAnyPackage("io.blocktarget.transport..", "io.blocktarget.scsi..",
                        "io.blocktarget.nvme..", "io.blocktarget.block..")
                .should().dependOnClassesThat().resideInAPackage("io.blocktarget.server.."));
    }
}
