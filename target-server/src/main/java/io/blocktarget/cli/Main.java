package io.blocktarget.cli;

import io.vertx.core.json.JsonObject;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code blocktarget} — the command line. Exit codes: 0 success, 1 runtime failure (a port in use,
 * a backend that cannot be opened; for the control clients {@code lun}, {@code sessions}, {@code reload}: the server
 * refused or cannot be reached), 2 usage or configuration error (picocli's convention).
 */
@Command(name = "blocktarget",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "iSCSI and NVMe/TCP block-storage target with configurable logical and physical block sizes.",
        subcommands = {ServeCommand.class, CheckCommand.class, LunCommand.class, PathCommand.class, FaultCommand.class,
            SessionsCommand.class,
            ReloadCommand.class, TraceCommand.class, TopCommand.class, SchemaCommand.class, CompletionCommand.class,
            ManCommand.class,
            CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    static final int EXIT_OK = 0;
    static final int EXIT_RUNTIME_FAILURE = 1;
    static final int EXIT_USAGE = 2;

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        List<String> names = spec.subcommands().entrySet().stream()
                .filter(e -> !e.getValue().getCommandSpec().usageMessage().hidden() && !e.getKey().equals("help"))
                .map(Map.Entry::getKey).toList();
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand ("
                + String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.getLast() + ")");
    }

    /**
     * Netty's pooled allocator caches per thread only buffers up to 32 KiB by default; a socket read of up to 256 KiB
     * ({@code StreamTuning.RECEIVE_BUFFER}) then went to the shared arena every time, under its lock, splitting and
     * merging a run of pages: 7 % of an iSCSI event loop's JFR samples at 4 KiB randwrite QD32 (PoolChunk). Cached up
     * to that size, a read's buffer is reused by the next read on the same loop. Set before Netty's allocator class
     * is loaded; an operator's own {@code -Dio.netty.allocator.maxCachedBufferCapacity} wins.
     */
    static final String MAX_CACHED_BUFFER = "io.netty.allocator.maxCachedBufferCapacity";

    public static void main(String[] args) {
        if (System.getProperty(MAX_CACHED_BUFFER) == null) {
            System.setProperty(MAX_CACHED_BUFFER, Integer.toString(256 * 1024));
        }
        LogSetup.install();
        System.exit(commandLine().execute(args));
    }

    /** The configured picocli command line; tests drive it directly. */
    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            // Last resort: a bug, not an expected failure. One line, no stack trace for the operator.
            commandLine.getErr().println("blocktarget: internal error: " + e);
            return EXIT_RUNTIME_FAILURE;
        });
        CommandLine.IParameterExceptionHandler usage = cl.getParameterExceptionHandler();
        cl.setParameterExceptionHandler((e, args) -> {
            if (!Arrays.asList(args).contains("--json")) {
                return usage.handleParseException(e, args);
            }
            // --json: even a command line picocli cannot parse fails with one problem object
            e.getCommandLine().getErr().println(new JsonObject().put("type", "urn:blocktarget:problem:usage")
                    .put("title", "Usage error").put("detail", e.getMessage()).encode());
            e.getCommandLine().getErr().flush();
            return EXIT_USAGE;
        });
        HelpLayout.install(cl);
        return cl;
    }
}
