package io.blocktarget.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code docs/configuration.md}: every key of both files — path, what may be written, default, how a change applies,
 * what it does — generated from the key tables. A unit test keeps the committed file equal to {@link #markdown()};
 * {@code blocktarget schema --markdown > docs/configuration.md} (or the main method) regenerates it.
 */
public final class KeyReference {
    private KeyReference() {
    }

    /** Prints {@link #markdown()}: {@code java -cp config/target/classes io.blocktarget.config.KeyReference}. */
    public static void main(String[] args) {
        System.out.print(markdown());
    }

    /** The whole reference. */
    public static String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("# Configuration keys\n\n");
        sb.append("Generated from the key declarations (`config/src/main/java/io/blocktarget/config/`: `LunKeys`,"
                + " `FaultKeys`, `ServerKeys` and the knob enums of `DeviceKnobs`) by `blocktarget schema --markdown`;"
                + " do not edit by hand. The same declarations give the readers, the writers, the JSON Schemas"
                + " (`blocktarget schema lun`, `blocktarget schema server`; `share/schema/` in the release, e.g. for"
                + " yaml-language-server: `# yaml-language-server: $schema=/opt/blocktarget/share/schema/"
                + "lun.schema.json`), the control API's LUN definition and the CLI's `--set` key paths.\n\n");
        sb.append("Sizes are a number of bytes or a number with a unit `B`, `KiB`, `MiB`, `GiB`, `TiB` (`8GiB`,"
                + " `16 KiB`). Booleans are `true` / `false` (YAML 1.2: `yes` / `no` are strings and are refused)."
                + " An unknown key is an error that lists the allowed keys (and names the close one).\n\n");
        sb.append("**change** says what a running server does when the key changes (`lun set`, the API, a `luns.d`"
                + " edit and `reload`):\n\n");
        for (ChangeRule rule : ChangeRule.values()) {
            sb.append("- *").append(rule.label()).append("*: ").append(rule.doc()).append('\n');
        }
        sb.append('\n');
        sb.append(section("`luns.d/NAME.yaml`", "One file per LUN; NAME (the file name minus `.yaml`) is the LUN's"
                + " name: " + Names.LUN_NAME_ALLOWED + ".", LunKeys.declared()));
        sb.append(section("`blocktarget.yaml`", "Server-wide settings, all optional; relative paths are relative to"
                + " the config directory.", ServerKeys.declared()));
        return sb.toString();
    }

    /** One file's table. */
    public static String section(String title, String intro, List<KeyPaths.Declared> keys) {
        StringBuilder sb = new StringBuilder();
        sb.append("## ").append(title).append("\n\n").append(intro).append("\n\n");
        sb.append("| key | type / allowed | default | change | meaning |\n");
        sb.append("|---|---|---|---|---|\n");
        for (KeyPaths.Declared d : keys) {
            Key<?> key = d.key();
            sb.append("| `").append(d.path()).append("` | ").append(cell(allowed(key))).append(" | ")
                    .append(cell(key.defaultText().isEmpty() ? "-" : key.defaultText())).append(" | ")
                    .append(d.rule().label()).append(" | ").append(cell(key.doc()))
                    .append(key.example().map(e -> " (e.g. `" + example(e) + "`)").orElse("")).append(" |\n");
        }
        return sb.append('\n').toString();
    }

    /** What may be written for {@code key}, as the reference says it (and {@code blocktarget.yaml(5)}). */
    public static String allowed(Key<?> key) {
        return switch (key.shape()) {
            case VALUE -> key.allowed();
            case LIST -> "a list: " + key.allowed() + (key.isSingleAllowed() ? " (one value may stand alone)" : "");
            case SECTION -> "a map of the keys below";
            case SECTION_OR_BOOLEAN -> "false, true or a map of the keys below";
            case LIST_OF_SECTIONS -> "a list of maps of the keys below";
            case MAP -> "a map of NAME: " + key.allowed();
        };
    }

    /** A key's declared example as text: a list in brackets. */
    public static String example(Object value) {
        if (value instanceof List<?> list) {
            return list.stream().map(String::valueOf).collect(Collectors.joining(", ", "[", "]"));
        }
        return String.valueOf(value);
    }

    /** Table cells: one line, no column breaks. */
    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
