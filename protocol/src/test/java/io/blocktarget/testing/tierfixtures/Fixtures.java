package io.blocktarget.testing.tierfixtures;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/**
 * Test classes for {@code TestTiersTest} to judge, never run (nested classes: surefire's default excludes skip them,
 * and the module's own tier check leaves this package out). Each says in its name what the rule must say about it.
 */
public final class Fixtures {
    private Fixtures() {
    }

    static void child() throws IOException {
        new ProcessBuilder("true").start();
    }

    /** A test-support class of the module: what it starts, its callers start. */
    public static final class Support {
        public static void startServer() throws IOException {
            child();
        }
    }

    @Retention(RetentionPolicy.RUNTIME)
    @Tag("loopback")
    public @interface Loopback {
    }

    public static final class UntaggedStartsAProcess {
        @Test
        void starts() throws IOException {
            new ProcessBuilder("true").start();
        }
    }

    @Tag("loopback")
    public static final class TaggedStartsAProcess {
        @Test
        void starts() throws IOException {
            new ProcessBuilder("true").start();
        }
    }

    @Loopback
    public static final class MetaTaggedStartsAProcess {
        @Test
        void starts() throws IOException {
            child();
        }
    }

    public static final class UntaggedStartsAProcessInALambdaThroughSupport {
        @Test
        void starts() throws Exception {
            java.util.concurrent.Callable<Void> c = () -> {
                Support.startServer();
                return null;
            };
            c.call();
        }

        @Test
        void startsNothing() {
        }
    }

    public static final class SetUpStartsAProcessOneTestTagged {
        @BeforeAll
        static void start() throws IOException {
            child();
        }

        @Test
        @Tag("stress")
        void tagged() {
        }

        @Test
        void untagged() {
        }
    }

    public static final class MixedClass {
        @Test
        void pure() {
        }

        @Test
        @Tag("loopback")
        void tagged() throws IOException {
            child();
        }
    }

    @Tag("loopbak")
    public static final class MisspelledTag {
        @Test
        void nothing() {
        }
    }

    public static final class UntaggedRangeStressTest {
        @Test
        void loop() {
        }
    }

    @Tag("stress")
    public static final class TaggedRangeStressTest {
        @Test
        void loop() {
        }
    }

    public static final class UntaggedLoopbackIT {
        @Test
        void nothing() {
        }
    }

    @Tag("loopback")
    public static final class TaggedLoopbackIT {
        @Test
        void nothing() {
        }
    }
}
