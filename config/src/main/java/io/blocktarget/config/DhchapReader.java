package io.blocktarget.config;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code access.dhchap}: {@code host-secret-file} (required) and {@code ctrl-secret-file} (bidirectional). Each file
 * holds either one key for every host — the text {@code nvme gen-dhchap-key} prints, exactly as before per-host keys
 * — or lines {@code HOSTNQN DHHC-1:xx:...:}, a key per host as Linux nvmet keeps one per {@code hosts/HOSTNQN}, with
 * {@code *} for every host not listed, {@code #} comment lines and blank lines. Problems inside such a file point at
 * its line; no problem or warning ever quotes a key.
 */
final class DhchapReader {
    /** The host name of the line whose key serves every host not listed. */
    static final String OTHERS = "*";
    static final String LINE_ALLOWED = "lines HOSTNQN DHHC-1:xx:BASE64: (a host NQN, or * for every host not"
            + " listed, then its key as nvme gen-dhchap-key --nqn HOSTNQN prints it), # comment lines and blank lines";
    static final String ALLOWED = "a file holding one DH-HMAC-CHAP secret as nvme gen-dhchap-key prints it ("
            + DhchapSecret.FORMAT + ") for every host, or " + LINE_ALLOWED;
    private static final String DIRECTIONS = "a different key for each direction (NVMe Base 2.x §8.3.4.5.1: the"
            + " controller proves a key of its own)";

    /**
     * One file's keys and where each came from.
     *
     * @param lines  line of each host NQN ({@code *} included); empty for a single-key file
     * @param single  the file is one key for every host (the format before per-host keys)
     * @param file    the file, absolute
     * @param shown   the file as written in the LUN file
     * @param keyPath e.g. {@code access.dhchap.host-secret-file}
     */
    private record Parsed(DhchapSecrets secrets, Map<String, Integer> lines, boolean single, Path file, String shown,
                          String keyPath) {
        /** Line of the entry that gives {@code hostNqn} its key: its own, else the {@code *} line; 0 for one key. */
        int line(String hostNqn) {
            return lines.getOrDefault(hostNqn, lines.getOrDefault(OTHERS, 0));
        }

        String where(String hostNqn) {
            int line = line(hostNqn);
            return line > 0 ? shown + ":" + line : shown;
        }
    }

    /** {@code access.hosts}, as the problems name it. */
    private static final String HOSTS = LunKeys.ACCESS.name() + "." + LunKeys.HOSTS.name();

    private DhchapReader() {
    }

    /**
     * @param access the {@code access:} map holding {@code dhchap}
     * @param hosts  {@code access.hosts} as read (empty: any host, or hosts had a problem of its own)
     */
    static Optional<DhchapConfig> read(YamlMap access, Path configDir, List<String> hosts, Problems problems,
                                       List<String> warnings) {
        Optional<YamlMap> parsed = YamlMap.section(access, LunKeys.DHCHAP, problems);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        YamlMap map = parsed.get();
        Optional<Parsed> host = file(map, LunKeys.DHCHAP_HOST_SECRET_FILE, true, configDir, problems, warnings);
        Optional<Parsed> ctrl = file(map, LunKeys.DHCHAP_CTRL_SECRET_FILE, false, configDir, problems, warnings);
        if (host.isEmpty() || map.has(LunKeys.DHCHAP_CTRL_SECRET_FILE) && ctrl.isEmpty()) {
            return Optional.empty();
        }
        int before = problems.count();
        ctrl.ifPresent(c -> directions(map, host.get(), c, problems));
        if (!hosts.isEmpty()) {
            admitted(map, host.get(), hosts, problems);
            ctrl.ifPresent(c -> admitted(map, c, hosts, problems));
        }
        if (problems.count() > before) {
            return Optional.empty();
        }
        return Optional.of(new DhchapConfig(host.get().secrets(), ctrl.map(Parsed::secrets),
                Optional.of(host.get().file()), ctrl.map(Parsed::file)));
    }

    /**
     * A controller key for a host without a host key is never used (bidirectional authentication follows the host's
     * Reply, Base §8.3.4.5.4), and a controller key equal to the host key of the same host proves nothing.
     */
    private static void directions(YamlMap map, Parsed host, Parsed ctrl, Problems problems) {
        String key = map.keyPath(LunKeys.DHCHAP_CTRL_SECRET_FILE);
        if (host.single() && ctrl.single()) {
            // Both files one key: the message as before per-host keys.
            if (ctrl.secrets().others().equals(host.secrets().others())) {
                map.problem(LunKeys.DHCHAP_CTRL_SECRET_FILE, map.text(LunKeys.DHCHAP_CTRL_SECRET_FILE)
                        + " holds the same key as " + map.text(LunKeys.DHCHAP_HOST_SECRET_FILE) + "; allowed: "
                        + DIRECTIONS);
            }
            return;
        }
        for (Map.Entry<String, DhchapSecret> e : ctrl.secrets().hosts().entrySet()) {
            if (host.secrets().forHost(e.getKey()).isEmpty()) {
                problems.add(ctrl.file(), ctrl.line(e.getKey()), key, e.getKey() + " has a controller key but no host"
                        + " key in " + host.shown() + "; allowed: controller keys for hosts with a host key (the"
                        + " controller answers the challenge of a host that authenticated, NVMe Base 2.x"
                        + " §8.3.4.5.4)");
            }
        }
        Set<String> each = new java.util.LinkedHashSet<>(host.secrets().hosts().keySet());
        each.addAll(ctrl.secrets().hosts().keySet());
        each.add(OTHERS);
        Set<Integer> reported = new HashSet<>();
        for (String nqn : each) {
            Optional<DhchapSecret> hostKey = nqn.equals(OTHERS) ? host.secrets().others() : host.secrets().forHost(nqn);
            Optional<DhchapSecret> ctrlKey = nqn.equals(OTHERS) ? ctrl.secrets().others() : ctrl.secrets().forHost(nqn);
            if (hostKey.isPresent() && hostKey.equals(ctrlKey) && reported.add(ctrl.line(nqn))) {
                String who = nqn.equals(OTHERS) ? "every host not listed" : nqn;
                problems.add(ctrl.file(), ctrl.line(nqn), key, "the controller key of " + who + " is its host key"
                        + " from " + host.where(nqn) + "; allowed: " + DIRECTIONS);
            }
        }
    }

    /**
     * With {@code access.hosts} only those hosts connect (Connect Invalid Host otherwise): a key for another host is
     * a typo or a leftover, and an admitted host without a key could never authenticate.
     */
    private static void admitted(YamlMap map, Parsed keys, List<String> hosts, Problems problems) {
        for (String nqn : keys.secrets().hosts().keySet()) {
            if (!hosts.contains(nqn)) {
                problems.add(keys.file(), keys.line(nqn), keys.keyPath(), nqn + " is not in " + HOSTS + "; allowed:"
                        + " keys for the hosts " + HOSTS + " admits (" + String.join(", ", hosts) + ")");
            }
        }
        if (keys.keyPath().equals(map.keyPath(LunKeys.DHCHAP_HOST_SECRET_FILE))) {
            for (String nqn : hosts) {
                if (keys.secrets().forHost(nqn).isEmpty()) {
                    map.problem(LunKeys.DHCHAP_HOST_SECRET_FILE, keys.shown() + " has no key for " + nqn + ", which "
                            + HOSTS + " admits; allowed: a line for each host of " + HOSTS + ", or a * line for every"
                            + " host not listed");
                }
            }
        }
    }

    /** Reads and parses the file named by {@code key}; empty after a problem (or when absent and not required). */
    private static Optional<Parsed> file(YamlMap map, Key<String> key, boolean required, Path configDir,
                                         Problems problems, List<String> warnings) {
        Optional<String> text = AccessReader.secret(map, key, configDir, problems, warnings, required);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        String shown = map.text(key);
        Path file = AccessReader.resolve(configDir, shown);
        AccessReader.worldReadable(file).ifPresent(mode -> warnings.add(problems.file() + ":" + map.line(key) + ": "
                + map.keyPath(key) + ": " + file + " is readable by every user (mode " + mode
                + "); chmod 600 it so that only the server's user can read the keys"));
        return parse(map, key, shown, file, text.get(), problems);
    }

    private static Optional<Parsed> parse(YamlMap map, Key<String> key, String shown, Path file, String text,
                                          Problems problems) {
        String keyPath = map.keyPath(key);
        if (text.chars().noneMatch(Character::isWhitespace)) {
            // One key for every host: the file as nvme gen-dhchap-key writes it, read as before per-host keys.
            try {
                return Optional.of(new Parsed(DhchapSecrets.every(DhchapSecret.parse(text)), Map.of(), true, file,
                        shown, keyPath));
            } catch (IllegalArgumentException e) {
                map.problem(key, shown + " " + e.getMessage() + "; allowed: " + DhchapSecret.ALLOWED);
                return Optional.empty();
            }
        }
        int before = problems.count();
        Map<String, DhchapSecret> hosts = new LinkedHashMap<>();
        Optional<DhchapSecret> others = Optional.empty();
        Map<String, Integer> lines = new HashMap<>();
        String[] all = text.split("\n", -1);
        for (int i = 0; i < all.length; i++) {
            int line = i + 1;
            String entry = all[i].strip();
            if (entry.isEmpty() || entry.startsWith("#")) {
                continue;
            }
            String[] fields = entry.split("[ \t]+");
            if (fields.length != 2 || fields[0].startsWith("DHHC-")) {
                String what = fields[0].startsWith("DHHC-") ? "holds a key without a host NQN before it"
                        : fields.length == 1 ? fields[0] + " has no key after it"
                        : "holds " + fields.length + " fields";
                problems.add(file, line, keyPath, what + "; allowed: " + LINE_ALLOWED);
                continue;
            }
            String nqn = fields[0];
            if (!nqn.equals(OTHERS)) {
                try {
                    Names.nqn(nqn);
                } catch (InvalidValue e) {
                    problems.add(file, line, keyPath, e.what() + "; allowed: a host NQN, " + e.allowed() + ", or *"
                            + " for every host not listed");
                    continue;
                }
            }
            Integer earlier = lines.putIfAbsent(nqn, line);
            if (earlier != null) {
                problems.add(file, line, keyPath, nqn + " is listed twice (first on line " + earlier + "); allowed:"
                        + " one key for each host, and one * line");
                continue;
            }
            DhchapSecret secret;
            try {
                secret = DhchapSecret.parse(fields[1]);
            } catch (IllegalArgumentException e) {
                problems.add(file, line, keyPath, "the key of " + nqn + " " + e.getMessage() + "; allowed: "
                        + DhchapSecret.FORMAT);
                continue;
            }
            if (nqn.equals(OTHERS)) {
                others = Optional.of(secret);
            } else {
                hosts.put(nqn, secret);
            }
        }
        if (problems.count() > before) {
            return Optional.empty();
        }
        if (hosts.isEmpty() && others.isEmpty()) {
            map.problem(key, shown + " holds no key, only comments and blank lines; allowed: " + ALLOWED);
            return Optional.empty();
        }
        return Optional.of(new Parsed(new DhchapSecrets(hosts, others), Map.copyOf(lines), false, file, shown,
                keyPath));
    }
}
