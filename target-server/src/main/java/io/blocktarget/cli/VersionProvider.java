package io.blocktarget.cli;

import picocli.CommandLine.IVersionProvider;

/** Version from the jar manifest (Implementation-Version), "dev" when run from classes. */
final class VersionProvider implements IVersionProvider {
    static String version() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v != null ? v : "dev";
    }

    @Override
    public String[] getVersion() {
        return new String[] {
            "blocktarget " + version(),
            "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")"
        };
    }
}
