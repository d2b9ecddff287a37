package io.blocktarget.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Dotted paths over a key table ({@code export.nvme.nsid}, {@code faults[].action}), each key's effective change
 * rule, and the "did you mean" hint for a key that is not declared.
 */
public final class KeyPaths {
    private KeyPaths() {
    }

    /**
     * One declared key where it sits in its file.
     *
     * @param path the dotted path; entries of a list of sections are {@code NAME[]}, e.g. {@code faults[].lba}
     * @param key  the declaration
     * @param rule the key's rule, else its nearest section's
     */
    public record Declared(String path, Key<?> key, ChangeRule rule) {
        /** Nesting depth: 0 for a top-level key. */
        public int depth() {
            return (int) path.chars().filter(c -> c == '.').count();
        }
    }

    /** Every key under {@code root} (sections before their keys), in declaration order. */
    static List<Declared> walk(Key<?> root, ChangeRule rootRule) {
        List<Declared> out = new ArrayList<>();
        walk(root, "", root.rule().orElse(rootRule), out);
        return List.copyOf(out);
    }

    private static void walk(Key<?> section, String prefix, ChangeRule rule, List<Declared> out) {
        for (Key<?> key : section.children()) {
            String path = prefix + key.name();
            ChangeRule effective = key.rule().orElse(rule);
            out.add(new Declared(path, key, effective));
            switch (key.shape()) {
                case SECTION, SECTION_OR_BOOLEAN -> walk(key, path + ".", effective, out);
                case LIST_OF_SECTIONS -> walk(key, path + "[].", effective, out);
                default -> {
                }
            }
        }
    }

    /** The key at {@code path} (as {@link Declared#path()} writes it), if declared. */
    static Optional<Declared> find(List<Declared> declared, String path) {
        return declared.stream().filter(d -> d.path().equals(path)).findFirst();
    }

    /**
     * Checks a dotted path as the CLI's {@code --set KEY=VALUE} takes it: every part but the last names a section.
     *
     * @return empty when declared; else the problem ("... is not a LUN key; did you mean ...? allowed: ...")
     */
    static Optional<String> check(Key<?> root, String dotted) {
        if (dotted.isEmpty() || dotted.startsWith(".") || dotted.endsWith(".") || dotted.contains("..")) {
            return Optional.of(dotted + " is not a LUN key; allowed: a key of luns.d/NAME.yaml, dotted for nested"
                    + " keys: " + String.join(", ", root.names()));
        }
        Key<?> at = root;
        String done = "";
        for (String part : dotted.split("\\.")) {
            boolean section = at.shape() == Key.Shape.SECTION || at.shape() == Key.Shape.SECTION_OR_BOOLEAN;
            Optional<Key<?>> next = section ? at.child(part) : Optional.empty();
            if (next.isEmpty()) {
                if (!section) {
                    return Optional.of(dotted + " is not a LUN key: " + done + " has no keys of its own; allowed: "
                            + done + "=VALUE");
                }
                String parent = done;
                String where = parent.isEmpty() ? "a key of luns.d/NAME.yaml" : "a key of " + parent;
                return Optional.of(dotted + " is not a LUN key" + hint(part, at.names()).map(h -> "; did you mean `"
                        + (parent.isEmpty() ? h : parent + "." + h) + "`? allowed: ").orElse("; allowed: ") + where
                        + ": "
                        + String.join(", ", at.names()));
            }
            at = next.get();
            done = done.isEmpty() ? part : done + "." + part;
        }
        return Optional.empty();
    }

    /**
     * The allowed key {@code unknown} was most likely meant to be: the same but for case and {@code _}, a unique
     * prefix or extension of it, or the one nearest by edit distance (1 for keys up to 4 characters, 2 up to 8,
     * else 3), when only one is that near.
     */
    static Optional<String> hint(String unknown, List<String> allowed) {
        String normal = unknown.toLowerCase(Locale.ROOT).replace('_', '-').replace(' ', '-');
        List<String> same = allowed.stream().filter(a -> a.equals(normal)).toList();
        if (same.size() == 1) {
            return Optional.of(same.getFirst());
        }
        if (normal.length() >= 3) {
            List<String> prefix = allowed.stream().filter(a -> a.startsWith(normal) || normal.startsWith(a)
                    && a.length() >= 3).toList();
            if (prefix.size() == 1) {
                return Optional.of(prefix.getFirst());
            }
        }
        int limit = normal.length() <= 4 ? 1 : normal.length() <= 8 ? 2 : 3;
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        boolean tie = false;
        for (String a : allowed) {
            int d = distance(normal, a);
            if (d < bestDistance) {
                best = a;
                bestDistance = d;
                tie = false;
            } else if (d == bestDistance) {
                tie = true;
            }
        }
        return best != null && bestDistance <= limit && !tie ? Optional.of(best) : Optional.empty();
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours cost 1. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
