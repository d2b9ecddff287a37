package io.blocktarget.cli;

import io.blocktarget.config.ConfigSchema;
import io.blocktarget.config.KeyReference;
import io.blocktarget.config.LunKeys;
import io.blocktarget.config.ServerKeys;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * {@code blocktarget schema lun|server}: the JSON Schema (draft 2020-12) of a LUN file or of blocktarget.yaml, from
 * the key declarations — the files the release ships under {@code share/schema/}; {@code --markdown}: the key
 * reference ({@code docs/configuration.md}).
 */
@Command(name = "schema", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Print the JSON Schema (draft 2020-12) of a LUN file (lun) or of blocktarget.yaml (server), e.g."
                + " for an editor: # yaml-language-server: $schema=PATH. With --markdown: the key reference"
                + " (docs/configuration.md; both files when no KIND is given)."})
final class SchemaCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "KIND", completionCandidates = Kinds.class,
            description = "lun (luns.d/NAME.yaml) or server (blocktarget.yaml)")
    String kind;

    @Option(names = "--markdown", description = "The key reference as Markdown instead of the JSON Schema.")
    boolean markdown;

    /** The KIND words, for completion. */
    static final class Kinds implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.List.of("lun", "server").iterator();
        }
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (kind != null && !kind.equals("lun") && !kind.equals("server")) {
            err.println("blocktarget schema: " + kind + " is not a kind; allowed: lun or server");
            err.flush();
            return Main.EXIT_USAGE;
        }
        if (kind == null && !markdown) {
            err.println("blocktarget schema: which schema? allowed: lun or server (or --markdown for the key"
                    + " reference)");
            err.flush();
            return Main.EXIT_USAGE;
        }
        if (markdown) {
            out.print(kind == null ? KeyReference.markdown()
                    : kind.equals("lun") ? KeyReference.section("`luns.d/NAME.yaml`", "One file per LUN.",
                    LunKeys.declared())
                    : KeyReference.section("`blocktarget.yaml`", "Server-wide settings, all optional.",
                    ServerKeys.declared()));
        } else {
            out.print(kind.equals("lun") ? ConfigSchema.lun() : ConfigSchema.server());
        }
        out.flush();
        return Main.EXIT_OK;
    }
}
