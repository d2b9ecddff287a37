package io.blocktarget.cli;

import io.blocktarget.control.BuildInfo;
import picocli.CommandLine.IVersionProvider;

/** {@code --version}: the version from the jar manifest ("dev" when run from classes), the commit, the Java runtime. */
final class VersionProvider implements IVersionProvider {
    static String version() {
        return BuildInfo.version();
    }

    @Override
    public String[] getVersion() {
        return new String[] {
            "blocktarget " + version(),
            "commit " + BuildInfo.commit(),
            "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")"
        };
    }
}
