package io.blocktarget.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The leak extension can fail a test: an inner JUnit run of {@link Inner}, whose one test drops an unreleased
 * buffer, reports exactly that test as failed with Netty's LEAK report and its allocation record, and the
 * test next to it, which releases its buffer, as passed.
 */
class NettyLeakExtensionTest {
    /** Only the inner launcher run executes {@link Inner}'s tests (surefire does not pick nested classes). */
    static volatile boolean innerRun;

    @Test
    void aLeakedBufferFailsTheTestThatLeakedIt() {
        Map<String, TestExecutionResult> results = new ConcurrentHashMap<>();
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(Inner.class))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .build();
        innerRun = true;
        try {
            LauncherFactory.create().execute(request, new TestExecutionListener() {
                @Override
                public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                    boolean innerClass = id.getUniqueId().endsWith("[class:" + Inner.class.getName() + "]");
                    results.put(innerClass ? "class" : id.getDisplayName(), result);
                }
            });
        } finally {
            innerRun = false;
        }

        assertThat(results.get("releases()").getStatus()).isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        TestExecutionResult leaky = results.get("leaks()");
        assertThat(leaky.getStatus()).isEqualTo(TestExecutionResult.Status.FAILED);
        assertThat(leaky.getThrowable()).get().asString()
                .contains("1 Netty LEAK report(s) after leaks()")
                .contains("LEAK: ByteBuf.release() was not called")
                // the access record Netty kept at allocation names the allocating method
                .contains(Inner.class.getName() + ".allocateAndDrop(");
        assertThat(results.get("class").getStatus())
                .isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
    }

    static class Inner {
        @Test
        void releases() {
            assumeTrue(innerRun);
            ByteBuf buf = Unpooled.directBuffer(64).writeLong(1);
            buf.release();
        }

        @Test
        void leaks() {
            assumeTrue(innerRun);
            allocateAndDrop();
        }

        private static void allocateAndDrop() {
            ByteBuf buf = Unpooled.directBuffer(64);
            buf.writeLong(0x1eaced);   // unreachable when this returns, never released
        }
    }
}
