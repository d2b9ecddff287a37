package io.blocktarget.control;

import io.blocktarget.config.ConfigException;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.LunFiles;
import io.blocktarget.config.LunWriter;
import io.blocktarget.server.ControlPlane;
import io.blocktarget.server.ControlPlane.ApplyOptions;
import io.blocktarget.server.ControlPlane.ApplyResult;
import io.blocktarget.server.ControlPlane.ControlException;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The API's changes to the LUN set: each computes the desired full list from the current one, validates the changed
 * LUN with the config module's own reader (JSON is YAML), calls {@link ControlPlane#apply} once, and with a config
 * directory writes the change back to {@code luns.d/NAME.yaml}.
 *
 * <p>Calls are serialized (one at a time, in arrival order): two concurrent adds computed from the same current list
 * would otherwise each drop the other's LUN. They may block (apply drains in-flight commands; files are synced), so
 * they never run on an event loop.
 *
 * <p>Write-back order, so that server and files never disagree for long: the new file is written to a hidden
 * temporary name first (a full disk fails the call before anything changed), then applied, then renamed into place;
 * a refused apply deletes the temporary file. A removal applies first and deletes the file after. A dry run
 * ({@link ApplyOptions#dryRun()}) writes nothing and changes nothing: it answers what the change would do.
 *
 * <p>Every change answers what it did ({@link Changed}): the LUN as it is now, and the apply's changed keys with
 * their rules, steps and warnings.
 */
final class LunChanges {
    private static final Logger LOG = System.getLogger("blocktarget.control");

    private final ControlPlane plane;

    LunChanges(ControlPlane plane) {
        this.plane = plane;
    }

    /**
     * What a change did.
     *
     * @param lun    the LUN as it is now (empty after a removal, or in a dry run)
     * @param result the apply's changes, steps and warnings (a dry run's: what it would do)
     */
    record Changed(Optional<LunConfig> lun, ApplyResult result) {
    }

    ControlPlane plane() {
        return plane;
    }

    /** POST /v1/luns: {@code body} is a LUN file's keys plus {@code name}. */
    synchronized Changed create(JsonObject body, ApplyOptions options) throws Problem.Failure {
        String name = name(body);
        List<LunConfig> current = current();
        if (current.stream().anyMatch(l -> l.name().equals(name))) {
            throw Problem.of(409, "exists", "LUN exists", "a LUN named " + name + " exists; allowed: a new name"
                    + " (blocktarget lun set " + name + " KEY=VALUE changes it)", "name").failure();
        }
        JsonObject keys = body.copy();
        keys.remove("name");
        LunConfig lun = validate(name, keys, current);
        List<LunConfig> desired = new ArrayList<>(current);
        desired.add(lun);
        return applyAndWrite(desired, lun, options, "added");
    }

    /** PATCH /v1/luns/NAME: an RFC 7386 merge patch on the LUN's document (null removes a key). */
    synchronized Changed patch(String name, JsonObject patch, ApplyOptions options) throws Problem.Failure {
        List<LunConfig> current = current();
        LunConfig old = find(current, name);
        if (patch.containsKey("name") && !name.equals(patch.getValue("name"))) {
            throw Problem.of(400, "invalid", "Invalid LUN definition", "name: a LUN cannot be renamed; allowed: "
                    + name + " or no name (remove it and add it under the new name)", "name").failure();
        }
        JsonObject patchKeys = patch.copy();
        patchKeys.remove("name");
        JsonObject document = new JsonObject(LunWriter.document(old, plane.serverConfig()));
        JsonObject merged = mergePatch(document, patchKeys);
        List<LunConfig> others = without(current, name);
        LunConfig lun = validate(name, merged, others);
        if (old.features().zoned().isPresent() && lun.features().zoned().isPresent() && lun.size() != old.size()) {
            throw Problem.invalid("Invalid LUN definition",
                    List.of(ConfigLoader.zonedResize(old)), false).failure();
        }
        return applyAndWrite(replace(current, lun), lun, options, "changed");
    }

    /** POST /v1/luns/NAME/resize: {@code {"size": "2GiB"}}. */
    synchronized Changed resize(String name, JsonObject body, ApplyOptions options) throws Problem.Failure {
        List<LunConfig> current = current();
        LunConfig old = find(current, name);
        for (String key : body.fieldNames()) {
            if (!key.equals("size")) {
                throw Problem.of(400, "invalid", "Invalid resize", key + ": unknown member; allowed: size", key)
                        .failure();
            }
        }
        Object size = body.getValue("size");
        if (!(size instanceof String) && !(size instanceof Number)) {
            throw Problem.of(400, "invalid", "Invalid resize", "size: " + (size == null ? "missing" : "not a size")
                    + "; allowed: a size such as 2GiB or a number of bytes", "size").failure();
        }
        LunConfig lun;
        try {
            lun = ConfigLoader.resized(old, size.toString());
        } catch (ConfigException e) {
            throw Problem.invalid("Invalid resize", e.problems(), false).failure();
        }
        return applyAndWrite(replace(current, lun), lun, options, "resized to " + ConfigLoader.formatSize(lun.size()));
    }

    /**
     * PUT /v1/luns/NAME/paths/PORTAL (issue 29, {@code blocktarget path set}): {@code {"state": "standby",
     * "transition": "5s"}} makes {@code paths.PORTAL} of the LUN's document {@code state} — applied in place (data and
     * sessions kept, initiators told) and written back like any LUN change; with {@code transition} the path is
     * transitioning that long first, on the server's clock. An unknown portal is 404 listing the server's portals.
     */
    synchronized Changed setPath(String name, String portal, JsonObject body, ApplyOptions options)
            throws Problem.Failure {
        List<LunConfig> current = current();
        LunConfig old = find(current, name);
        if (plane.portals().stream().noneMatch(p -> p.name().equals(portal))) {
            throw Problem.of(404, "not-found", "No such portal", "no portal named " + portal + "; allowed: "
                    + PathJson.portalNames(plane), null).failure();
        }
        for (String key : body.fieldNames()) {
            if (!key.equals("state") && !key.equals("transition")) {
                throw Problem.of(400, "invalid", "Invalid path change", key + ": unknown member; allowed: state,"
                        + " transition", key).failure();
            }
        }
        Object state = body.getValue("state");
        if (!(state instanceof String word) || io.blocktarget.config.PathState.of(word).isEmpty()) {
            throw Problem.of(400, "invalid", "Invalid path change", "state: " + (state == null ? "missing"
                    : state + " is not a path state") + "; allowed: " + io.blocktarget.config.PathState.ALLOWED,
                    "state").failure();
        }
        long transition = 0;
        Object duration = body.getValue("transition");
        if (duration != null) {
            try {
                transition = ConfigLoader.parseDuration(duration.toString());
            } catch (IllegalArgumentException e) {
                throw Problem.of(400, "invalid", "Invalid path change", "transition: " + e.getMessage(), "transition")
                        .failure();
            }
        }
        JsonObject document = new JsonObject(LunWriter.document(old, plane.serverConfig()));
        LunConfig lun = validate(name, mergePatch(document, new JsonObject().put(io.blocktarget.config.LunKeys.PATHS
                .name(), new JsonObject().put(portal, word))), without(current, name));
        return applyAndWrite(replace(current, lun), lun, options.withTransition(transition), "set path " + portal
                + " to " + word + (transition > 0 ? " (transitioning for " + ConfigLoader.formatDuration(transition)
                + " first)" : "") + " of");
    }

    /**
     * An initiator changed LUN {@code name}'s path states (SCSI SET TARGET PORT GROUPS): the paths whose state it set
     * become the LUN's {@code paths:}, applied (nothing changes on the device: the states are already so, and keep
     * their explicit origin) and written back like {@code path set}, so a reload or a restart keeps them. Nothing to
     * do when the LUN is gone or a later change already agrees.
     */
    synchronized void persistExplicitPaths(String name) throws Problem.Failure {
        List<LunConfig> current = current();
        Optional<LunConfig> old = current.stream().filter(l -> l.name().equals(name)).findFirst();
        if (old.isEmpty()) {
            return;
        }
        JsonObject paths = new JsonObject();
        plane.paths().stream().filter(p -> p.lun().equals(name) && p.origin().equals("explicit")
                && !p.state().equals(p.configured())).forEach(p -> paths.put(p.portal(), p.state()));
        if (paths.isEmpty()) {
            return;
        }
        JsonObject document = new JsonObject(LunWriter.document(old.get(), plane.serverConfig()));
        LunConfig lun = validate(name, mergePatch(document, new JsonObject().put(io.blocktarget.config.LunKeys.PATHS
                .name(), paths)), without(current, name));
        applyAndWrite(replace(current, lun), lun, ApplyOptions.NONE, "wrote the path states an initiator set on");
    }

    /** DELETE /v1/luns/NAME. */
    synchronized Changed delete(String name, ApplyOptions options) throws Problem.Failure {
        List<LunConfig> current = current();
        find(current, name);
        Optional<Path> dir = plane.configDir();
        if (options.dryRun()) {
            return new Changed(Optional.empty(), apply(without(current, name), options));
        }
        if (dir.isPresent() && !Files.isWritable(LunFiles.file(dir.get(), name).getParent())) {
            throw Problem.of(500, "write-back", "Cannot write the config directory", LunFiles.file(dir.get(), name)
                    .getParent() + " is not writable; nothing changed", null).failure();
        }
        ApplyResult result = plane.exclusively(() -> {   // no reload between the apply and the file's removal
            ApplyResult applied = apply(without(current, name), options);
            if (dir.isPresent()) {
                try {
                    LunFiles.delete(dir.get(), name);
                } catch (IOException e) {
                    throw Problem.of(500, "write-back", "Removed but not written back", "LUN " + name + " is removed"
                            + " from the server, but " + LunFiles.file(dir.get(), name) + " could not be deleted (" + e
                            + "); it comes back at the next reload", null).failure();
                }
            }
            return applied;
        });
        LOG.log(Level.INFO, "control: removed LUN " + name);
        return new Changed(Optional.empty(), result);
    }

    /**
     * POST /v1/reload: the config directory (blocktarget.yaml and luns.d) becomes the server's, by the same
     * validation as at start. The directory is validated here first so that a refusal lists every problem.
     */
    synchronized ApplyResult reload(ApplyOptions options) throws Problem.Failure {
        Path dir = plane.configDir().orElseThrow(() -> Problem.of(409, "no-config-dir", "Nothing to reload",
                "the server was started without --config; its LUNs live in memory only", null).failure());
        try {
            ConfigLoader.load(dir);
        } catch (ConfigException e) {
            throw Problem.invalid("Invalid configuration directory; nothing changed", e.problems(), true).failure();
        }
        ApplyResult result;
        try {
            result = plane.reload(options);
        } catch (ControlException e) {
            throw Problem.of(e).failure();
        }
        LOG.log(Level.INFO, "control: reloaded " + dir + (options.dryRun() ? " (dry run)" : "") + ": "
                + describe(result));
        return result;
    }

    static String describe(ApplyResult r) {
        if (r.changedNothing()) {
            return "nothing changed";
        }
        List<String> parts = new ArrayList<>();
        r.changes().forEach(c -> parts.add(c.action().label() + " " + c.lun()));
        if (parts.isEmpty()) {
            parts.add(r.steps().size() + " step(s)");
        }
        return String.join("; ", parts);
    }

    /** The LUNs of the server's plan: what a change computes the desired list from. */
    private List<LunConfig> current() {
        return plane.lunConfigs();
    }

    private static LunConfig find(List<LunConfig> luns, String name) throws Problem.Failure {
        return luns.stream().filter(l -> l.name().equals(name)).findFirst()
                .orElseThrow(() -> notFound(name).failure());
    }

    static Problem notFound(String name) {
        return Problem.of(404, "not-found", "No such LUN", "no LUN named " + name, null);
    }

    private static List<LunConfig> without(List<LunConfig> luns, String name) {
        return luns.stream().filter(l -> !l.name().equals(name)).toList();
    }

    /** The list with {@code lun} in the place of the LUN of its name (config order kept). */
    private static List<LunConfig> replace(List<LunConfig> luns, LunConfig lun) {
        return luns.stream().map(l -> l.name().equals(lun.name()) ? lun : l).toList();
    }

    private static String name(JsonObject body) throws Problem.Failure {
        Object name = body.getValue("name");
        if (!(name instanceof String text) || text.isEmpty()) {
            throw Problem.of(400, "invalid", "Invalid LUN definition", "name: " + (name == null ? "missing" : "not a"
                    + " name") + "; allowed: 1 to 63 lowercase letters, digits, '-' and '.', starting with a letter or"
                    + " digit", "name").failure();
        }
        return text;
    }

    /** The LUN's keys through the config module's reader, as the file luns.d/NAME.yaml would be read. */
    private LunConfig validate(String name, JsonObject keys, List<LunConfig> others) throws Problem.Failure {
        try {
            return ConfigLoader.readLun(name, keys.encodePrettily(), plane.configDir(), plane.serverConfig(), others);
        } catch (ConfigException e) {
            throw Problem.invalid("Invalid LUN definition", e.problems(), false).failure();
        }
    }

    private ApplyResult apply(List<LunConfig> desired, ApplyOptions options) throws Problem.Failure {
        try {
            return plane.apply(desired, options);
        } catch (ControlException e) {
            throw Problem.of(e).failure();
        }
    }

    /** Applies {@code desired} (with {@code lun} new or changed) and writes {@code lun}'s file back. */
    private Changed applyAndWrite(List<LunConfig> desired, LunConfig lun, ApplyOptions options, String what)
            throws Problem.Failure {
        Optional<Path> dir = plane.configDir();
        if (options.dryRun()) {
            return new Changed(Optional.empty(), apply(desired, options));
        }
        if (dir.isEmpty()) {
            ApplyResult result = apply(desired, options);
            LOG.log(Level.INFO, "control: " + what + " LUN " + lun.name());
            return new Changed(Optional.of(lun), result);
        }
        LunFiles.Pending pending;
        try {
            pending = LunFiles.prepare(dir.get(), lun, plane.serverConfig());
        } catch (IOException | RuntimeException e) {
            throw Problem.of(500, "write-back", "Cannot write the LUN file", "cannot write "
                    + LunFiles.file(dir.get(), lun.name()) + ": " + e + "; nothing changed", null).failure();
        }
        ApplyResult result = plane.exclusively(() -> {   // no reload between the apply and the file's write
            ApplyResult applied;
            try {
                applied = apply(desired, options);
            } catch (Problem.Failure e) {
                pending.abort();
                throw e;
            }
            try {
                pending.commit();
            } catch (IOException e) {
                pending.abort();
                throw Problem.of(500, "write-back", "Applied but not written back", "LUN " + lun.name() + " is"
                        + " changed on the server, but " + pending.target() + " could not be replaced (" + e + "); the"
                        + " next reload undoes the change", null).failure();
            }
            return applied;
        });
        LOG.log(Level.INFO, "control: " + what + " LUN " + lun.name());
        return new Changed(Optional.of(lun), result);
    }

    /** RFC 7386 §2: members of the patch replace the target's, null removes, objects merge recursively. */
    static JsonObject mergePatch(JsonObject target, JsonObject patch) {
        JsonObject result = target.copy();
        for (String key : patch.fieldNames()) {
            Object value = patch.getValue(key);
            if (value == null) {
                result.remove(key);
            } else if (value instanceof JsonObject object) {
                Object existing = result.getValue(key);
                result.put(key, mergePatch(existing instanceof JsonObject e ? e : new JsonObject(), object));
            } else {
                result.put(key, value);
            }
        }
        return result;
    }
}
