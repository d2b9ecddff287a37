package io.blocktarget.cli;

import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlClient.Response;
import io.blocktarget.control.ControlClient.UnreachableException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code blocktarget top}: a live per-LUN view of a running server, refreshed every interval like
 * {@code iostat -x 1} — IOPS and MiB/s read / write, p50 / p99 end-to-end latency, average queue depth, errors and
 * fault-rule hits of the interval, sessions that reach the LUN — from two {@code GET /v1/stats} snapshots an
 * interval apart ({@link TopView} does the arithmetic).
 */
@Command(name = "top", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Show a live per-LUN view of a running server, refreshed every interval like iostat -x 1: r/s,"
                + " w/s, rMiB/s, wMiB/s, p50 and p99 end-to-end latency (us), average queue depth (qd), and the"
                + " errors (err) and fault-rule hits (fhit) of the interval, sessions reaching the LUN (sess)."
                + " --once: one interval, one table, exit. --json: one JSON object per interval.")
final class TopCommand extends ClientCommand {
    /** The longest interval: an hour (a longer one is a mistake; a monitoring system scrapes /metrics instead). */
    static final double MAX_INTERVAL_SECONDS = 3600;
    /** The shortest: 10 ms (shorter intervals measure the HTTP round trip more than the I/O). */
    static final double MIN_INTERVAL_SECONDS = 0.01;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);

    @Parameters(arity = "0..*", paramLabel = "LUN", completionCandidates = CompletionScripts.LunNames.class,
            description = "Only these LUNs (default: every LUN).")
    List<String> luns = new ArrayList<>();

    @Option(names = "--once", description = "Take two snapshots one interval apart, print one table (or JSON"
            + " object) and exit.")
    boolean once;

    @Option(names = {"-i", "--interval"}, paramLabel = "SECONDS", defaultValue = "1",
            description = "Seconds between refreshes (default ${DEFAULT-VALUE}; 0.01 to 3600).")
    double interval;

    @Override
    String checkUsage() {
        if (!(interval >= MIN_INTERVAL_SECONDS && interval <= MAX_INTERVAL_SECONDS)) {
            return "--interval " + interval + ": allowed 0.01 to 3600 seconds";
        }
        return null;
    }

    @Override
    boolean printsOwnJson() {
        return true;
    }

    @Override
    int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
        Response first = client.get("/v1/stats");
        if (!first.ok()) {
            return refused(first, err);
        }
        JsonObject before = first.json();
        Set<String> known = new HashSet<>();
        JsonArray all = before.getJsonArray("luns");
        for (int i = 0; i < all.size(); i++) {
            known.add(all.getJsonObject(i).getString("name"));
        }
        for (String lun : luns) {
            if (!known.contains(lun)) {
                return fail(err, Main.EXIT_USAGE, "not-found", "No such LUN", "no LUN " + lun + "; the server has "
                        + (known.isEmpty() ? "none" : String.join(", ", known.stream().sorted().toList())));
            }
        }
        boolean live = !once && !json && System.console() != null && System.console().isTerminal();
        long sleepNanos = Math.round(interval * 1e9);
        while (true) {
            try {
                Thread.sleep(sleepNanos / 1_000_000, (int) (sleepNanos % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Main.EXIT_OK;
            }
            Response next = client.get("/v1/stats");
            if (!next.ok()) {
                return refused(next, err);
            }
            JsonObject after = next.json();
            List<TopView.Row> rows = TopView.rows(before, after).stream()
                    .filter(r -> luns.isEmpty() || luns.contains(r.name())).toList();
            double seconds = TopView.intervalSeconds(before, after);
            if (json) {
                JsonObject result = TopView.json(rows, seconds);
                out.println(once ? result.encodePrettily() : result.encode());
            } else {
                if (live) {
                    out.print("\033[H\033[2J");   // home and clear: a refreshing screen, as top does
                }
                out.println(header(rows.size(), seconds));
                TopView.table(rows).forEach(out::println);
                if (!once && !live) {
                    out.println();
                }
            }
            out.flush();
            if (once || out.checkError()) {
                return Main.EXIT_OK;   // a closed pipe (top | head) ends the loop
            }
            before = after;
        }
    }

    private static String header(int luns, double seconds) {
        return "blocktarget top  " + ZonedDateTime.now(ZoneOffset.UTC).format(TIME) + " UTC  interval " + String.format(Locale.ROOT, "%.2f", seconds)
                + " s  " + luns + (luns == 1 ? " LUN" : " LUNs");
    }
}
