package io.blocktarget.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;

/**
 * Fails the test that leaked a Netty buffer. Registered for every test of every module through
 * META-INF/services (junit.jupiter.extensions.autodetection.enabled=true in the parent pom's surefire
 * configuration; the other modules get it from protocol's test-jar).
 *
 * <p>Netty reports a leak only when the garbage collector has found an unreleased ByteBuf and a later
 * allocation polls for it, and then only as an ERROR log line that a passing test never shows. So after each
 * test that tracked a buffer this forces a collection, makes the allocations that poll, and turns every LEAK
 * report collected by {@link LeakReports}' detectors (level PARANOID: every buffer tracked, with its access
 * records) into a failure of that test. After each class always, for leaks of the class's own background
 * threads (event loops shut down in {@code @AfterAll}). Where Netty is not on the test classpath (config) it
 * does nothing.
 */
public final class NettyLeakExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
    private static final boolean NETTY = isPresent("io.netty.util.ResourceLeakDetectorFactory");
    /** BLOCKTARGET_LEAK_CHECK=class: collect only after each class (cheaper, blames the whole class). */
    private static final boolean EACH_TEST = !"class".equals(System.getenv("BLOCKTARGET_LEAK_CHECK"));

    static {
        if (NETTY) {
            // before any ByteBuf class is initialised: AbstractByteBuf takes its detector from the factory once
            LeakReports.install();
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (NETTY) {
            LeakReports.verifyInstalled();
            // leaks of whatever ran before (another class, the engine) are not this class's
            LeakReports.flush(false);
            LeakReports.drain();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (EACH_TEST) {
            check(context, false);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        check(context, true);
    }

    private static void check(ExtensionContext context, boolean always) {
        if (!NETTY) {
            return;
        }
        LeakReports.flush(always);
        List<String> leaks = LeakReports.drain();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " Netty LEAK report(s) after " + context.getDisplayName()
                    + " (" + context.getUniqueId() + "):\n" + String.join("\n\n", leaks));
        }
    }

    private static boolean isPresent(String className) {
        try {
            Class.forName(className, false, NettyLeakExtension.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
