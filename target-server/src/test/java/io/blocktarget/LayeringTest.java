package io.blocktarget;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noFields;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * DESIGN.md §2: arrows point down only, and no package cycle (a package and its subpackage count as two).
 * cli → server → transport.{iscsi,nvmetcp} → {scsi, nvme} → block.lun → {block.fault, block.trace} → block, and the
 * backends (block.ram, file, nil, zoned) build on block too but know no protocol, fault or trace; transport.tcp knows
 * no protocol; protocol and config are pure; the clock ({@code time}) and the state machines ({@code state}) sit
 * below them all. Rules on packages that do not exist yet pass vacuously (allowEmptyShould) so that they are in force
 * the moment the package appears.
 */
class LayeringTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        // the rules judge dependencies by the names of their targets: importing the libraries those name as well
        // (ArchUnit's default) took most of this test's time
        ArchConfiguration config = ArchConfiguration.get();
        boolean resolve = config.resolveMissingDependenciesFromClassPath();
        config.setResolveMissingDependenciesFromClassPath(false);
        try {
            classes = new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    // protocol's test-jar (the shared leak extension) is on the test class path as a jar under
                    // `mvn verify`, as test-classes under `mvn test`: tests are not layers either way
                    .withImportOption(location -> !location.contains("-tests.jar"))
                    .importPackages("io.blocktarget");
        } finally {
            config.setResolveMissingDependenciesFromClassPath(resolve);
        }
    }

    /** The import is tens of MB: kept, every later test's leak check (a full collection) would walk it. */
    @AfterAll
    static void forgetClasses() {
        classes = null;
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

    /** Issue 27: the state machine sits below every layer that has states (server, transports, nvme): JDK only. */
    @Test
    void stateMachinesKnowOnlyTheJdk() {
        check(classes().that().resideInAPackage("io.blocktarget.state..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.blocktarget.state..", "java.."));
    }

    /**
     * Issue 26: every executor is created, named and shut down by the server (or the object of it) that owns it —
     * none is process-wide, so two servers in one JVM share no thread.
     */
    @Test
    void noStaticThreadPools() {
        check(noFields().that().areStatic().should().haveRawType(DescribedPredicate.describe(
                "an executor, an event executor group or a timer", type -> isThreadPool(type.getName()))));
    }

    /** By reflection: the classes were imported without their libraries' type hierarchy. */
    private static boolean isThreadPool(String className) {
        try {
            Class<?> type = Class.forName(className, false, LayeringTest.class.getClassLoader());
            return java.util.concurrent.Executor.class.isAssignableFrom(type)
                    || io.netty.util.concurrent.EventExecutorGroup.class.isAssignableFrom(type)
                    || java.util.Timer.class.isAssignableFrom(type);
        } catch (ClassNotFoundException | LinkageError e) {
            return false; // not on the test class path: not a pool anything of ours could run
        }
    }

    @Test
    void onlyTheCliSitsOnTop() {
        check(noClasses().that().resideOutsideOfPackage("io.blocktarget.cli..")
                .should().dependOnClassesThat().resideInAPackage("io.blocktarget.cli.."));
        check(noClasses().that().resideInAnyPackage("io.blocktarget.transport..", "io.blocktarget.scsi..",
                        "io.blocktarget.nvme..", "io.blocktarget.block..")
                .should().dependOnClassesThat().resideInAPackage("io.blocktarget.server.."));
    }

    @Test
    void noPackageCycles() {
        // every package is a slice of its own (block and block.fault are two), so a cycle through a parent and
        // its subpackage counts too
        check(slices().matching("io.blocktarget.(**)").should().beFreeOfCycles());
    }

    @Test
    void blockNeverImportsItsSubpackages() {
        // block is the SPI: the backends and decorators build on it, it names none of them; block.lun (the per-device
        // state) sits on top of block.fault and block.trace
        check(noClasses().that().resideInAPackage("io.blocktarget.block")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.blocktarget.block.ram..", "io.blocktarget.block.file..", "io.blocktarget.block.nil..",
                        "io.blocktarget.block.zoned..", "io.blocktarget.block.fault..",
                        "io.blocktarget.block.trace..", "io.blocktarget.block.lun.."));
    }

    @Test
    void backendsKnowNoFaultTraceProtocolOrServer() {
        check(noClasses().that().resideInAnyPackage("io.blocktarget.block.ram..", "io.blocktarget.block.file..",
                        "io.blocktarget.block.nil..", "io.blocktarget.block.zoned..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.blocktarget.block.fault..", "io.blocktarget.block.trace..", "io.blocktarget.block.lun..",
                        "io.blocktarget.protocol..",
                        "io.blocktarget.scsi..", "io.blocktarget.nvme..", "io.blocktarget.transport..",
                        "io.blocktarget.server..", "io.blocktarget.control..", "io.blocktarget.cli..",
                        "io.blocktarget.config..", "io.vertx.."));
    }

    @Test
    void tcpPlumbingKnowsNoProtocol() {
        // Netty plumbing shared by both transports; the fault vocabulary (block.fault's stall-connection) is below it
        check(noClasses().that().resideInAPackage("io.blocktarget.transport.tcp..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.blocktarget.protocol..", "io.blocktarget.transport.iscsi..",
                        "io.blocktarget.transport.nvmetcp..", "io.blocktarget.scsi..", "io.blocktarget.nvme..",
                        "io.blocktarget.server..", "io.blocktarget.control..", "io.blocktarget.cli.."));
    }
}
