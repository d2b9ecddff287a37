package io.blocktarget.cli;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.LunKeys;
import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlClient.Response;
import io.blocktarget.control.ControlClient.UnreachableException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code blocktarget lun add|resize|rm|list|show|reset-stats}: LUNs of a running server, through its control API.
 */
@Command(name = "lun", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Add, resize, tune, remove and list the LUNs of a running server (its control API).",
        subcommands = {LunCommand.Add.class, LunCommand.Resize.class, LunCommand.SetKeys.class, LunCommand.Remove.class,
            LunCommand.ListLuns.class, LunCommand.Show.class, LunCommand.ResetStats.class})
final class LunCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
                "Missing required subcommand (add, resize, set, rm, list or show)");
    }

    /** Completion of {@code --set} / {@code lun set}: every key path of a LUN file (declared in LunKeys), as KEY=. */
    static final class KeyPaths implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return LunKeys.declared().stream().map(io.blocktarget.config.KeyPaths.Declared::path)
                    .filter(p -> !p.contains("[]")).map(p -> p + "=").iterator();
        }
    }

    static String path(String name) {
        return "/v1/luns/" + URLEncoder.encode(name, StandardCharsets.UTF_8);
    }

    /** {@code --force} and {@code --dry-run} of the commands that change LUNs, as the API's query parameters. */
    static final class ChangeFlags {
        @Option(names = "--force", description = "Allow a change that loses data: one that replaces a RAM or null LUN"
                + " (a new disk: its data is gone) or shrinks a LUN. Without it such a change is refused, saying what"
                + " would be lost.")
        boolean force;

        @Option(names = "--dry-run", description = "Print what would change (each key with its rule, then the steps)"
                + " and change nothing.")
        boolean dryRun;

        String query() {
            List<String> q = new ArrayList<>();
            if (force) {
                q.add("force=true");
            }
            if (dryRun) {
                q.add("dry-run=true");
            }
            return q.isEmpty() ? "" : "?" + String.join("&", q);
        }
    }

    /** The {@code applied} member of a change's answer; a dry run's answer is that object itself. */
    static JsonObject appliedOf(JsonObject answer) {
        return answer.getBoolean("dry-run", false) ? answer : answer.getJsonObject("applied");
    }

    /** "1 GiB, 16 KiB blocks (physical 16 KiB); iSCSI T LUN 0; NVMe S NSID 1". */
    static String summary(JsonObject lun) {
        JsonObject status = lun.getJsonObject("status", new JsonObject());
        StringBuilder sb = new StringBuilder(ConfigLoader.formatSize(status.getLong("size-bytes", 0L)));
        sb.append(" ").append(lun.getString("backend")).append(", ")
                .append(ConfigLoader.formatSize(ConfigLoader.parseSize(String.valueOf(lun.getValue("logical-block-size")))))
                .append(" blocks (physical ")
                .append(ConfigLoader.formatSize(ConfigLoader.parseSize(String.valueOf(lun.getValue("physical-block-size")))))
                .append(")");
        JsonObject iscsi = status.getJsonObject("iscsi");
        JsonObject nvme = status.getJsonObject("nvme");
        sb.append("; iSCSI ").append(iscsi == null ? "off" : iscsi.getString("target") + " LUN " + iscsi.getValue("lun"));
        sb.append("; NVMe ").append(nvme == null ? "off" : nvme.getString("subsystem") + " NSID " + nvme.getValue("nsid"));
        return sb.toString();
    }

    @Command(name = "add", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Add a LUN. Every key of a luns.d/NAME.yaml file can be given; --set KEY=VALUE takes any"
                    + " (dotted for nested keys: export.nvme.nsid=2, export.iscsi=false).")
    static final class Add extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", description = "The LUN name (and file name under luns.d).")
        String name;

        @Option(names = "--backend", required = true, paramLabel = "ram|file|null", description = "The backend.")
        String backend;

        @Option(names = "--size", paramLabel = "SIZE", description = "Capacity, e.g. 1GiB.")
        String size;

        @Option(names = "--logical-block-size", paramLabel = "SIZE", description = "512 B .. 64 KiB, e.g. 16KiB.")
        String logicalBlockSize;

        @Option(names = "--physical-block-size", paramLabel = "SIZE", description = "logical .. 32 MiB.")
        String physicalBlockSize;

        @Option(names = "--set", paramLabel = "KEY=VALUE", completionCandidates = KeyPaths.class,
                description = "Any other key; VALUE is JSON when it parses"
                + " as JSON (true, 7, [\"a\"]), else text.")
        List<String> settings = new ArrayList<>();

        @picocli.CommandLine.Mixin
        ChangeFlags flags;

        private JsonObject body;

        @Override
        String checkUsage() {
            body = new JsonObject().put("name", name).put("backend", backend);
            Map<String, String> given = new LinkedHashMap<>();
            given.put("size", size);
            given.put("logical-block-size", logicalBlockSize);
            given.put("physical-block-size", physicalBlockSize);
            given.forEach((k, v) -> {
                if (v != null) {
                    body.put(k, v);
                }
            });
            for (String setting : settings) {
                int eq = setting.indexOf('=');
                if (eq <= 0) {
                    return "--set " + setting + ": allowed: KEY=VALUE, e.g. export.nvme.nsid=2";
                }
                String key = setting.substring(0, eq);
                Optional<String> problem = LunKeys.checkPath(key);
                if (problem.isPresent()) {
                    return "--set " + setting + ": " + problem.get();
                }
                put(body, key.split("\\."), value(setting.substring(eq + 1)));
            }
            return null;
        }

        static Object value(String text) {
            try {
                Object value = Json.decodeValue(text);
                return value == null ? text : value;
            } catch (DecodeException e) {
                return text;
            }
        }

        static void put(JsonObject object, String[] path, Object value) {
            JsonObject at = object;
            for (int i = 0; i < path.length - 1; i++) {
                Object next = at.getValue(path[i]);
                if (!(next instanceof JsonObject)) {
                    next = new JsonObject();
                    at.put(path[i], next);
                }
                at = (JsonObject) next;
            }
            at.put(path[path.length - 1], value);
        }

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.call(HttpMethod.POST, "/v1/luns" + flags.query(), body);
            if (!response.ok()) {
                return refused(response, err);
            }
            JsonObject lun = response.json();
            applied(appliedOf(lun), out, err);
            if (flags.dryRun) {
                return Main.EXIT_OK;
            }
            out.println("added LUN " + name + ": " + summary(lun));
            if (lun.getJsonObject("status", new JsonObject()).getValue("source") == null) {
                out.println("note: the server has no config dir; the LUN lives in memory only");
            }
            return Main.EXIT_OK;
        }
    }

    @Command(name = "resize", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Change a LUN's capacity (a multiple of its physical block size).")
    static final class Resize extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--size", required = true, paramLabel = "SIZE", description = "The new capacity, e.g. 2GiB.")
        String size;

        @picocli.CommandLine.Mixin
        ChangeFlags flags;

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.call(HttpMethod.POST, path(name) + "/resize" + flags.query(),
                    new JsonObject().put("size", size));
            if (!response.ok()) {
                return refused(response, err);
            }
            applied(appliedOf(response.json()), out, err);
            if (flags.dryRun) {
                return Main.EXIT_OK;
            }
            out.println("resized LUN " + name + " to " + ConfigLoader.formatSize(
                    response.json().getJsonObject("status").getLong("size-bytes")));
            return Main.EXIT_OK;
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Change keys of a LUN (a merge patch of its luns.d file), e.g. knobs:"
                    + " commands.write-same=true limits.max-transfer=1MiB rotational=true identity.serial=SN1;"
                    + " KEY=null goes back to the default. Prints each changed key with how it applies: in place"
                    + " (sessions kept; iSCSI initiators get a unit attention, NVMe hosts a namespace change notice),"
                    + " resize, re-export, reopen or replace. A change that replaces a RAM or null LUN, or shrinks"
                    + " one, needs --force.")
    static final class SetKeys extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Parameters(index = "1..*", arity = "1..*", paramLabel = "KEY=VALUE", completionCandidates = KeyPaths.class,
                description = "Dotted for nested keys;"
                + " VALUE is JSON when it parses as JSON (true, 7), null removes the key, else text (1MiB).")
        List<String> settings = new ArrayList<>();

        @picocli.CommandLine.Mixin
        ChangeFlags flags;

        private JsonObject body;

        @Override
        String checkUsage() {
            body = new JsonObject();
            for (String setting : settings) {
                int eq = setting.indexOf('=');
                if (eq <= 0) {
                    return setting + ": allowed: KEY=VALUE, e.g. commands.write-same=true";
                }
                String key = setting.substring(0, eq);
                Optional<String> problem = LunKeys.checkPath(key);
                if (problem.isPresent()) {
                    return setting + ": " + problem.get();
                }
                String text = setting.substring(eq + 1);
                Add.put(body, key.split("\\."), text.equals("null") ? null : Add.value(text));
            }
            return null;
        }

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.call(HttpMethod.PATCH, path(name) + flags.query(), body);
            if (!response.ok()) {
                return refused(response, err);
            }
            JsonObject applied = appliedOf(response.json());
            if (!applied.getBoolean("changed", true) && !flags.dryRun) {
                out.println(name + ": no change");
                applied(applied, out, err);
                return Main.EXIT_OK;
            }
            applied(applied, out, err);
            if (flags.dryRun) {
                return Main.EXIT_OK;
            }
            out.println("changed LUN " + name + ": " + summary(response.json()));
            if (body.containsKey("session")) {
                // session: keys are negotiated at login / Connect (issue 11): say when they take effect
                out.println("session values apply to " + response.json().getJsonObject("status", new JsonObject())
                        .getJsonObject("session", new JsonObject()).getString("applies-to", "new sessions"));
            }
            return Main.EXIT_OK;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Remove a LUN: new commands are refused, in-flight ones drained; with a config dir its file"
                    + " is deleted.")
    static final class Remove extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--dry-run", description = "Print what would change and change nothing.")
        boolean dryRun;

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.call(HttpMethod.DELETE, path(name) + (dryRun ? "?dry-run=true" : ""),
                    (String) null);
            if (!response.ok()) {
                return refused(response, err);
            }
            if (dryRun) {
                applied(response.json(), out, err);
                return Main.EXIT_OK;
            }
            out.println("removed LUN " + name);
            return Main.EXIT_OK;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "List the LUNs and say where changes are kept.")
    static final class ListLuns extends ClientCommand {
        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.get("/v1/luns");
            if (!response.ok()) {
                return refused(response, err);
            }
            JsonObject list = response.json();
            if (json) {
                out.println(list.encodePrettily());
                return Main.EXIT_OK;
            }
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"LUN", "BACKEND", "SIZE", "LOGICAL", "PHYSICAL", "ISCSI TARGET", "LUN#",
                "NVME SUBSYSTEM", "NSID", "IN-FLIGHT", "STATE"});
            List<String> errors = new ArrayList<>();
            JsonArray luns = list.getJsonArray("luns");
            for (int i = 0; i < luns.size(); i++) {
                JsonObject lun = luns.getJsonObject(i);
                JsonObject status = lun.getJsonObject("status");
                JsonObject iscsi = status.getJsonObject("iscsi");
                JsonObject nvme = status.getJsonObject("nvme");
                rows.add(new String[] {
                    lun.getString("name"),
                    lun.getString("backend"),
                    ConfigLoader.formatSize(status.getLong("size-bytes")),
                    Long.toString(ConfigLoader.parseSize(String.valueOf(lun.getValue("logical-block-size")))),
                    Long.toString(ConfigLoader.parseSize(String.valueOf(lun.getValue("physical-block-size")))),
                    iscsi == null ? "-" : iscsi.getString("target"),
                    iscsi == null ? "-" : String.valueOf(iscsi.getValue("lun")),
                    nvme == null ? "-" : nvme.getString("subsystem"),
                    nvme == null ? "-" : String.valueOf(nvme.getValue("nsid")),
                    String.valueOf(status.getValue("in-flight")),
                    status.getString("state", "active")
                });
                if (status.getString("last-error") != null) {
                    errors.add(lun.getString("name") + ": last change failed: " + status.getString("last-error"));
                }
            }
            table(rows, out);
            errors.forEach(out::println);
            String dir = list.getString("config-dir");
            out.println(dir == null
                    ? "no config dir: changes live in memory only and are lost when the server stops"
                    : "config dir " + dir + ": changes are written to its luns.d");
            return Main.EXIT_OK;
        }
    }

    @Command(name = "show", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Show one LUN as the API's JSON: its luns.d keys and its status (state, last error).")
    static final class Show extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.get(path(name));
            if (!response.ok()) {
                return refused(response, err);
            }
            out.println(response.json().encodePrettily());
            return Main.EXIT_OK;
        }
    }

    @Command(name = "reset-stats", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Start a placement measurement: the LUN's data placement counters (host / media bytes,"
                    + " write amplification, reclaim) start again from zero; prints them as the API's JSON.")
    static final class ResetStats extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.call(HttpMethod.POST, path(name) + "/placement/reset-stats", (String) null);
            if (!response.ok()) {
                return refused(response, err);
            }
            out.println(response.json().encodePrettily());
            return Main.EXIT_OK;
        }
    }
}
