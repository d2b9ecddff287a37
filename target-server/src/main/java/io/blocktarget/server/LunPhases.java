package io.blocktarget.server;

import io.blocktarget.config.LunConfig;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link LunPhase} of every LUN by name, with the last error of a change that failed; read by any thread (the
 * control API lists it while an apply runs), written by the apply in progress. LUNs absent here are {@link
 * LunPhase#ACTIVE} without an error. A LUN that is not (or no longer) in the registry's snapshot — being opened, or
 * draining after its removal — is kept here with its configuration and device, so {@code lun list} shows it.
 */
final class LunPhases {
    private static final Logger LOG = System.getLogger("blocktarget.server");

    /**
     * @param outside the LUN's configuration while it is not in the snapshot (opening, draining, removing)
     * @param device  its device then, when it has one (for allocated bytes and commands in flight)
     */
    record Entry(LunPhase phase, Optional<String> lastError, Optional<LunConfig> outside, Optional<Lun> device) {
    }

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();

    LunPhase phase(String name) {
        Entry e = entries.get(name);
        return e == null ? LunPhase.ACTIVE : e.phase();
    }

    Optional<String> lastError(String name) {
        Entry e = entries.get(name);
        return e == null ? Optional.empty() : e.lastError();
    }

    /** LUNs known here but not in the snapshot (opening, draining, removing), by name. */
    Map<String, Entry> outside() {
        Map<String, Entry> out = new java.util.LinkedHashMap<>();
        entries.forEach((name, e) -> {
            if (e.outside().isPresent()) {
                out.put(name, e);
            }
        });
        return out;
    }

    /** A new LUN enters as {@link LunPhase#OPENING}. */
    void opening(LunConfig lun) {
        if (entries.putIfAbsent(lun.name(), new Entry(LunPhase.OPENING, Optional.empty(), Optional.of(lun),
                Optional.empty())) != null) {
            throw new IllegalStateException("LUN " + lun.name() + ": opened while it exists");
        }
        LOG.log(Level.DEBUG, "LUN " + lun.name() + ": opening");
    }

    /** Checked transition, keeping the last error; {@code outside} set while the LUN is out of the snapshot. */
    void to(String name, LunPhase next, Optional<Lun> outside) {
        entries.compute(name, (n, e) -> {
            LunPhase now = e == null ? LunPhase.ACTIVE : e.phase();
            if (now != next && !now.canGo(next)) {
                throw new IllegalStateException("LUN " + name + ": illegal transition " + now.label() + " -> "
                        + next.label());
            }
            LOG.log(Level.DEBUG, "LUN " + name + ": " + now.label() + " -> " + next.label());
            Optional<String> error = e == null ? Optional.empty() : e.lastError();
            Entry entry = new Entry(next, error, outside.map(Lun::config), outside);
            return next == LunPhase.ACTIVE && error.isEmpty() && outside.isEmpty() ? null : entry;
        });
    }

    void to(String name, LunPhase next) {
        to(name, next, Optional.empty());
    }

    /** The change of LUN {@code name} failed: {@code why} is its last error until a change of it succeeds. */
    void failed(String name, String why) {
        entries.computeIfPresent(name, (n, e) -> new Entry(e.phase(), Optional.of(why), e.outside(), e.device()));
        entries.putIfAbsent(name, new Entry(LunPhase.ACTIVE, Optional.of(why), Optional.empty(), Optional.empty()));
    }

    /** A change of LUN {@code name} succeeded: its last error is history. */
    void succeeded(String name) {
        entries.computeIfPresent(name, (n, e) -> e.phase() == LunPhase.ACTIVE && e.outside().isEmpty() ? null
                : new Entry(e.phase(), Optional.empty(), e.outside(), e.device()));
    }

    /** The LUN left the server (removed, or a new one that never opened). */
    void gone(String name) {
        Entry e = entries.remove(name);
        if (e != null && !e.phase().canEnd()) {
            throw new IllegalStateException("LUN " + name + ": gone while " + e.phase().label());
        }
        LOG.log(Level.DEBUG, "LUN " + name + ": gone");
    }
}
