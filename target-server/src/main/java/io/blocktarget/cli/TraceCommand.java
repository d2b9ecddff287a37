package io.blocktarget.cli;

import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlClient.Response;
import io.blocktarget.control.ControlClient.UnreachableException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code blocktarget trace NAME [--last N] [--follow] [--json] | --on [--ring N] | --off | --stats}: a LUN's
 * device-side trace, through the control API. The text form is one blktrace-like line per command ({@link #line}).
 */
@Command(name = "trace", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Show the device-side trace of a LUN: every command it completed, both protocols.",
            "Line: TIME PROTO SESSION KIND OP LBA+BLOCKS BYTES FLAGS qd=N LATENCY STATUS",
            "(TIME: seconds since the first line's arrival; KIND: R W F D(unmap) Z(write zeroes) C(compare) V X(copy)"
                + " A(atomic) O(other))."})
final class TraceCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "NAME", completionCandidates = CompletionScripts.LunNames.class,
            description = "The LUN.")
    String name;

    @Option(names = "--on", description = "Start tracing the LUN (keeps a running trace of the same ring size).")
    boolean on;

    @Option(names = "--ring", paramLabel = "N",
            description = "With --on: records the ring keeps, a power of two from 16 to 1048576 (default 65536).")
    Integer ring;

    @Option(names = "--off", description = "Stop tracing the LUN (its records and stats stay readable).")
    boolean off;

    @Option(names = "--stats", description = "Print the trace's aggregates (sizes, alignment, queue depth, latency)"
            + " as JSON.")
    boolean stats;

    @Option(names = {"-f", "--follow"}, description = "After what the ring holds, print new commands as they"
            + " complete, until tracing stops, the LUN goes away or Ctrl-C.")
    boolean follow;

    @Option(names = {"-n", "--last"}, paramLabel = "N", description = "Only the last N commands the ring holds (with"
            + " --follow: then what comes after); without it, all of them (up to the ring's size, 65536 by default).")
    Long last;

    @Override
    String checkUsage() {
        int modes = (on ? 1 : 0) + (off ? 1 : 0) + (stats ? 1 : 0);
        if (modes > 1) {
            return "--on, --off and --stats exclude each other";
        }
        if (ring != null && !on) {
            return "--ring needs --on";
        }
        if (follow && modes > 0) {
            return "--follow only prints a trace (not with --on, --off, --stats)";
        }
        if (last != null && modes > 0) {
            return "--last only prints a trace (not with --on, --off, --stats)";
        }
        if (last != null && last < 0) {
            return "--last " + last + ": allowed: 0 or more commands";
        }
        return null;
    }

    /** With --json the trace itself is printed as NDJSON; --on, --off and --stats print the API's answer. */
    @Override
    boolean printsOwnJson() {
        return !(on || off || stats);
    }

    @Override
    int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
        String path = LunCommand.path(name) + "/trace";
        if (on || off) {
            JsonObject body = new JsonObject().put("enabled", on);
            if (ring != null) {
                body.put("ring", ring);
            }
            Response response = client.call(HttpMethod.PUT, path, body);
            if (!response.ok()) {
                return refused(response, err);
            }
            JsonObject status = response.json();
            out.println(on ? "trace of LUN " + name + " on (ring " + status.getValue("ring") + " records)"
                    : "trace of LUN " + name + " off" + (status.containsKey("recorded")
                    ? " (" + status.getValue("recorded") + " commands recorded)" : ""));
            return Main.EXIT_OK;
        }
        if (stats) {
            Response response = client.get(path + "/stats");
            if (!response.ok()) {
                return refused(response, err);
            }
            out.println(response.json().encodePrettily());
            return Main.EXIT_OK;
        }
        Printer printer = new Printer(out, json);
        List<String> query = new ArrayList<>();
        if (follow) {
            query.add("follow=true");
        }
        if (last != null) {
            query.add("last=" + last);
        }
        Response response = client.stream(path + (query.isEmpty() ? "" : "?" + String.join("&", query)),
                printer::accept);
        if (!response.ok()) {
            return refused(response, err);
        }
        return Main.EXIT_OK;
    }

    /** Turns NDJSON lines into text lines, relative to the first record's arrival. */
    static final class Printer {
        private final PrintWriter out;
        private final boolean json;
        private long firstNanos = -1;

        Printer(PrintWriter out, boolean json) {
            this.out = out;
            this.json = json;
        }

        void accept(String ndjson) {
            if (ndjson.isBlank()) {
                return;
            }
            if (json) {
                out.println(ndjson);
            } else {
                JsonObject record;
                try {
                    record = new JsonObject(ndjson);
                } catch (DecodeException e) {
                    out.println(ndjson);
                    out.flush();
                    return;
                }
                if (record.containsKey("dropped")) {
                    out.println("!!! dropped " + record.getValue("dropped") + " records (the reader fell behind the"
                            + " ring)");
                } else {
                    long time = record.getLong("time-ns", 0L);
                    if (firstNanos < 0) {
                        firstNanos = time;
                    }
                    out.println(line(record, time - firstNanos));
                }
            }
            out.flush();
        }
    }

    /**
     * {@code 0.000012345 nvme  nqn.host cntlid 1 q 2 cid 17  W  Write  2048+1  16384 fua  qd=8  41.2us  SUCCESS}:
     * arrival (s, relative), protocol, session, kind letter, op, LBA+blocks, bytes, flags, queue depth, latency,
     * status (with sense key / ASC / ASCQ, or SCT / SC).
     */
    static String line(JsonObject r, long relativeNanos) {
        String protocol = r.getString("protocol", "?");
        String session = r.getString("initiator", "?") + ("nvme".equals(protocol)
                ? " " + r.getString("connection", "") + " q " + r.getValue("queue") + " cid " + r.getValue("tag")
                : " itt 0x" + Long.toHexString(r.getLong("tag", 0L)));
        String extent = r.containsKey("lba") ? r.getValue("lba") + "+" + r.getValue("blocks") : "-";
        JsonArray flags = r.getJsonArray("flags", new JsonArray());
        StringBuilder flagText = new StringBuilder();
        for (int i = 0; i < flags.size(); i++) {
            flagText.append(i == 0 ? "" : ",").append(flags.getString(i));
        }
        if (r.containsKey("placement")) {   // the write's GROUP NUMBER / DSPEC (issue 32)
            flagText.append(flagText.isEmpty() ? "" : ",").append("pl=").append(r.getValue("placement"));
        }
        return String.format(Locale.ROOT, "%5d.%09d %-5s %s  %s  %-20s %14s %9d %-4s qd=%-3d %8s  %s",
                relativeNanos / 1_000_000_000L, relativeNanos % 1_000_000_000L, protocol, session,
                kindLetter(r.getString("kind", "other")), r.getString("op", "?"), extent, r.getLong("bytes", 0L),
                flagText.isEmpty() ? "-" : flagText, r.getInteger("qd", 0), latency(r.getLong("latency-ns", 0L)),
                status(r));
    }

    static String kindLetter(String kind) {
        return switch (kind) {
            case "read" -> "R";
            case "write" -> "W";
            case "flush" -> "F";
            case "unmap" -> "D";
            case "write-zeroes" -> "Z";
            case "compare" -> "C";
            case "verify" -> "V";
            case "copy" -> "X";
            case "atomic-write" -> "A";
            default -> "O";
        };
    }

    static String latency(long nanos) {
        if (nanos < 1_000) {
            return nanos + "ns";
        }
        if (nanos < 1_000_000) {
            return String.format(Locale.ROOT, "%.1fus", nanos / 1e3);
        }
        if (nanos < 1_000_000_000) {
            return String.format(Locale.ROOT, "%.2fms", nanos / 1e6);
        }
        return String.format(Locale.ROOT, "%.3fs", nanos / 1e9);
    }

    static String status(JsonObject r) {
        String status = r.getString("status", "?");
        JsonObject sense = r.getJsonObject("sense");
        if (sense != null) {
            return String.format(Locale.ROOT, "%s %s %02Xh/%02Xh", status, sense.getString("key-name"),
                    sense.getInteger("asc"), sense.getInteger("ascq"));
        }
        if (!r.getBoolean("ok", true) && r.containsKey("sct")) {
            return String.format(Locale.ROOT, "%s sct=%d sc=0x%02x%s", status, r.getInteger("sct"),
                    r.getInteger("sc"), r.getBoolean("dnr", false) ? " dnr" : "");
        }
        return status;
    }
}
