package io.blocktarget.cli;

import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlClient.Response;
import io.blocktarget.control.ControlClient.UnreachableException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * A command that talks to a running server's control API. Exit codes: 0 done; 1 the server cannot be reached, or
 * tried and failed (a backend that cannot be opened, a file that cannot be written); 2 usage (picocli), or the server
 * refused the request as it stands (invalid, unknown LUN, a change that needs --force) — as {@code check} exits 2 for
 * an invalid configuration. The server's problem detail and warnings go to stderr. Every one takes {@code --json}:
 * the result is then the API's JSON on stdout and a failure one problem object on stderr.
 */
abstract class ClientCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ControlTarget target;

    @Option(names = "--json", description = "Print the result as JSON on stdout (the control API's answer) and a"
            + " failure as one JSON problem object (RFC 9457: type, title, detail, invalid-params) on stderr.")
    boolean json;

    @Override
    public final Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            String usage = checkUsage();
            if (usage != null) {
                return fail(err, Main.EXIT_USAGE, "usage", "Usage error", usage);
            }
            ControlTarget.Choice choice = target.choose();
            ControlClient client;
            try {
                client = ControlClient.connect(choice.target(), target.token());
            } catch (IOException e) {
                return fail(err, Main.EXIT_USAGE, "usage", "Usage error",
                        "--token-file " + target.tokenFile + ": cannot be read: " + e.getMessage());
            }
            try (client) {
                // --json: the command's text goes nowhere and the API's answer is the result, unless it prints its own
                boolean answerIsResult = json && !printsOwnJson();
                int exit = run(client, answerIsResult ? new PrintWriter(Writer.nullWriter()) : out, err);
                if (answerIsResult && exit == Main.EXIT_OK) {
                    out.println(answerJson(client.last()));
                }
                return exit;
            } catch (UnreachableException e) {
                return fail(err, Main.EXIT_RUNTIME_FAILURE, "unreachable", "Server unreachable",
                        e.getMessage() + (choice.tried().isEmpty() ? "" : "; " + choice.triedText()));
            }
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** True for a command that prints JSON itself with {@code --json} (a stream, say) rather than the API's answer. */
    boolean printsOwnJson() {
        return false;
    }

    /** The body of the last answer as pretty JSON; {@code {}} for an answer without one (204). */
    private static String answerJson(Optional<Response> answer) {
        String body = answer.map(Response::body).orElse("").strip();
        if (body.isEmpty()) {
            return "{}";
        }
        try {
            return Json.decodeValue(body) instanceof JsonObject object ? object.encodePrettily()
                    : new JsonObject().put("answer", Json.decodeValue(body)).encodePrettily();
        } catch (DecodeException e) {
            return new JsonObject().put("answer", body).encodePrettily();
        }
    }

    /**
     * A failure found on this side: {@code prefix: detail} on stderr, or with {@code --json} one problem object of the
     * server's shape ({@code urn:blocktarget:problem:KIND}).
     */
    int fail(PrintWriter err, int exit, String kind, String title, String detail) {
        if (json) {
            err.println(new JsonObject().put("type", "urn:blocktarget:problem:" + kind).put("title", title)
                    .put("detail", detail).encode());
        } else {
            err.println(prefix() + detail);
        }
        return exit;
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
     * Prints the server's refusal (its problem detail and every invalid parameter; with {@code --json} the problem
     * object itself) and returns the exit code: 2 when the request was refused as it stands (400, 404, 409: change
     * the request), 1 when the server failed (5xx).
     */
    int refused(Response response, PrintWriter err) {
        int exit = response.status() >= 400 && response.status() < 500 ? Main.EXIT_USAGE : Main.EXIT_RUNTIME_FAILURE;
        if (!response.isProblem()) {
            return fail(err, exit, "http-" + response.status(), "Unexpected answer",
                    "the server answered " + response.status() + ": " + response.body().strip());
        }
        JsonObject problem;
        try {
            problem = response.json();
        } catch (DecodeException e) {
            return fail(err, exit, "http-" + response.status(), "Unexpected answer",
                    "the server answered " + response.status() + ": " + response.body().strip());
        }
        if (json) {
            err.println(problem.encode());
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
