package io.blocktarget.control;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * What this build is: the version of the jar's manifest ({@code Implementation-Version}; "dev" when run from
 * classes) and the commit it was built from ({@code build-commit.properties}, written at build time by git, see
 * target-server/pom.xml; "unknown" without it). {@code blocktarget --version} and {@code blocktarget_build_info}
 * show both.
 */
public final class BuildInfo {
    private static final String VERSION = read(BuildInfo.class.getPackage().getImplementationVersion(), "dev");
    private static final String COMMIT = readCommit();

    private BuildInfo() {
    }

    public static String version() {
        return VERSION;
    }

    /** Twelve hex digits, with "-dirty" when the build's tracked files differed from that commit; or "unknown". */
    public static String commit() {
        return COMMIT;
    }

    private static String readCommit() {
        try (InputStream in = BuildInfo.class.getResourceAsStream("build-commit.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return read(p.getProperty("commit"), "unknown");
        } catch (IOException | IllegalArgumentException e) {
            return "unknown";
        }
    }

    private static String read(String value, String fallback) {
        return value == null || value.isBlank() ? fallback : value.strip();
    }
}
