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
 * A command that talks to a running server's control API. Exit codes: 0 done, 1 the server refused (its problem
 * detail is printed) or cannot be reached, 2 usage (picocli).
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

    /** Prints the server's refusal (its problem detail and every invalid parameter) and returns exit code 1. */
    int refused(Response response, PrintWriter err) {
        if (!response.isProblem()) {
            err.println(prefix() + "the server answered " + response.status() + ": " + response.body().strip());
            return Main.EXIT_RUNTIME_FAILURE;
        }
        JsonObject problem;
        try {
            problem = response.json();
        } catch (DecodeException e) {
            err.println(prefix() + "the server answered " + response.status() + ": " + response.body().strip());
            return Main.EXIT_RUNTIME_FAILURE;
        }
        err.println(prefix() + problem.getString("detail", problem.getString("title", "refused")));
        JsonArray params = problem.getJsonArray("invalid-params", new JsonArray());
        if (params.size() > 1) {
            for (int i = 0; i < params.size(); i++) {
                err.println("  " + params.getJsonObject(i).getString("reason"));
            }
        }
        return Main.EXIT_RUNTIME_FAILURE;
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
