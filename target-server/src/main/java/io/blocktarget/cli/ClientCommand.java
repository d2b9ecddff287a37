package io.blocktarget.cli;

import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlClient.Response;
import io.blocktarget.control.ControlClient.UnreachableException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * A command that talks to a running server's control API. Exit codes: 0 done; 1 the server cannot be reached, or
 * tried and failed (a backend that cannot be opened, a file that cannot be written); 2 usage (picocli), or the server
 * refused the request as it stands (invalid, unknown LUN, a change that needs --force) — as {@code check} exits 2 for
 * an invalid configuration. The server's problem detail and warnings go to stderr.
 */
abstract class ClientCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ControlTarget target;

    @Override
    public final Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String usage = checkUsage();
        if (usage != null) {
            err.println(prefix() + usage);
            err.flush();
            return Main.EXIT_USAGE;
        }
        ControlClient client;
        try {
            client = ControlClient.connect(target.target(), target.token());
        } catch (IOException e) {
            err.println(prefix() + "--token-file " + target.tokenFile + ": cannot be read: " + e.getMessage());
            err.flush();
            return Main.EXIT_USAGE;
        }
        try (client) {
            return run(client, out, err);
        } catch (UnreachableException e) {
            err.println(prefix() + e.getMessage());
            return Main.EXIT_RUNTIME_FAILURE;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** A usage problem picocli cannot see (null: none). */
    String checkUsage() {
        return null;
    }

    abstract int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException;

    /** "blocktarget lun add: ". */
    String prefix() {
        return spec.qualifiedName() + ": ";
    }

    /**
     * Prints the server's refusal (its problem detail and every invalid parameter) and returns the exit code: 2 when
     * the request was refused as it stands (400, 404, 409: change the request), 1 when the server failed (5xx).
     */
    int refused(Response response, PrintWriter err) {
        int exit = response.status() >= 400 && response.status() < 500 ? Main.EXIT_USAGE : Main.EXIT_RUNTIME_FAILURE;
        if (!response.isProblem()) {
            err.println(prefix() + "the server answered " + response.status() + ": " + response.body().strip());
            return exit;
        }
        JsonObject problem;
        try {
            problem = response.json();
        } catch (DecodeException e) {
            err.println(prefix() + "the server answered " + response.status() + ": " + response.body().strip());
            return exit;
        }
        err.println(prefix() + problem.getString("detail", problem.getString("title", "refused")));
        JsonArray params = problem.getJsonArray("invalid-params", new JsonArray());
        if (params.size() > 1) {
            for (int i = 0; i < params.size(); i++) {
                err.println("  " + params.getJsonObject(i).getString("reason"));
            }
        }
        return exit;
    }

    /**
     * What a change did, from its {@code applied} member: one line per changed key with its rule on {@code out}
     * ({@code t16: logical-block-size 16KiB -> 4KiB (replace)}), a dry run's steps, and every warning on
     * {@code err} ({@code blocktarget lun set: warning: ...}).
     */
    void applied(JsonObject applied, PrintWriter out, PrintWriter err) {
        if (applied == null) {
            return;
        }
        JsonArray changes = applied.getJsonArray("changes", new JsonArray());
        for (int i = 0; i < changes.size(); i++) {
            JsonObject change = changes.getJsonObject(i);
            JsonArray keys = change.getJsonArray("keys", new JsonArray());
            if (keys.isEmpty() && applied.getBoolean("dry-run", false)) {
                out.println(change.getString("lun") + ": " + change.getString("action"));
            }
            for (int k = 0; k < keys.size(); k++) {
                JsonObject key = keys.getJsonObject(k);
                out.println(change.getString("lun") + ": " + key.getString("key") + " " + shown(key.getString("before"))
                        + " -> " + shown(key.getString("after")) + " (" + key.getString("rule") + ")");
            }
        }
        if (applied.getBoolean("dry-run", false)) {
            JsonArray steps = applied.getJsonArray("steps", new JsonArray());
            for (int i = 0; i < steps.size(); i++) {
                out.println("would " + steps.getString(i));
            }
            out.println(steps.isEmpty() ? "dry run: nothing to do" : "dry run: nothing changed");
        }
        JsonArray warnings = applied.getJsonArray("warnings", new JsonArray());
        for (int i = 0; i < warnings.size(); i++) {
            err.println(prefix() + "warning: " + warnings.getString(i));
        }
    }

    private static String shown(String value) {
        return value == null || value.isEmpty() ? "(none)" : value;
    }

    /** Rows with columns aligned by two spaces, like the serve banner's LUN table. */
    static void table(List<String[]> rows, PrintWriter out) {
        int columns = rows.getFirst().length;
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                sb.append(row[i]);
                if (i < columns - 1) {
                    sb.append(" ".repeat(widths[i] - row[i].length() + 2));
                }
            }
            out.println(sb.toString().stripTrailing());
        }
    }
}
