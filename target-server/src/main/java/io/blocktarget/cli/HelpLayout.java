package io.blocktarget.cli;

import picocli.CommandLine;
import picocli.CommandLine.IHelpSectionRenderer;
import picocli.CommandLine.Model.UsageMessageSpec;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Help texts wrapped at spaces only. Picocli wraps with {@link java.text.BreakIterator}'s line instance, which also
 * breaks after a dot or a comma inside a word ({@code luns.} / {@code d/*.yaml}, {@code identity.} / {@code serial}).
 * So every command lays its sections out unwrapped (at a width nothing reaches) and {@link #reflow} wraps each long
 * line at {@value #WIDTH} columns, at spaces, keeping picocli's columns: a continuation of an option's or a command's
 * description is indented two more than the description, one of the synopsis to just after the command's name.
 */
final class HelpLayout {
    static final int WIDTH = 80;
    /** Wider than any line of any section: picocli wraps nothing. */
    private static final int UNWRAPPED = 100_000;

    private HelpLayout() {
    }

    /** Installs the layout on {@code cl} and every subcommand below it. */
    static void install(CommandLine cl) {
        cl.getCommandSpec().usageMessage().width(UNWRAPPED);
        Map<String, IHelpSectionRenderer> sections = new LinkedHashMap<>();
        cl.getHelpSectionMap().forEach((key, renderer) -> sections.put(key, help -> {
            String text = renderer.render(help);
            if (!key.equals(UsageMessageSpec.SECTION_KEY_SYNOPSIS)) {
                return reflow(text, -1, 0);
            }
            // the synopsis follows its heading ("Usage: ") on the same line; wrapped lines start after the name
            int heading = help.synopsisHeadingLength();
            return reflow(text, heading + help.commandSpec().qualifiedName().length() + 1, heading);
        }));
        cl.setHelpSectionMap(sections);
        cl.getSubcommands().values().forEach(HelpLayout::install);
    }

    /**
     * Wraps every line longer than {@link #WIDTH} at spaces. {@code synopsisIndent}: the indent of a wrapped synopsis
     * line, or -1 for the other sections (then found from the line: a description column after two spaces, else the
     * line's own indent); {@code offset}: columns taken before the text's first line (the synopsis heading).
     */
    static String reflow(String text, int synopsisIndent, int offset) {
        StringBuilder out = new StringBuilder(text.length() + 64);
        int start = 0;
        while (start < text.length()) {
            int end = text.indexOf('\n', start);
            String line = end < 0 ? text.substring(start) : text.substring(start, end);
            wrap(line, synopsisIndent, start == 0 ? offset : 0, out);
            if (end < 0) {
                break;
            }
            out.append('\n');
            start = end + 1;
        }
        return out.toString();
    }

    private static void wrap(String line, int synopsisIndent, int offset, StringBuilder out) {
        if (offset + line.length() <= WIDTH) {
            out.append(line);
            return;
        }
        line = line.stripTrailing();
        int column = synopsisIndent >= 0 ? synopsisIndent : descriptionColumn(line);
        int indent = synopsisIndent >= 0 ? synopsisIndent : column == 0 ? 0 : column + 2;
        if (indent > WIDTH / 2) {
            indent = 8;   // a description column this far right leaves no room: wrap under the names instead
        }
        // first line: break at the last space before WIDTH that lies past the column (the names never break)
        int cut = lastSpace(line, synopsisIndent >= 0 ? 1 : Math.max(column, 1), WIDTH - offset);
        if (cut < 0) {
            out.append(line);
            return;
        }
        out.append(line, 0, cut).append('\n');
        String rest = line.substring(cut).strip();
        String pad = " ".repeat(indent);
        int room = WIDTH - indent;
        while (!rest.isEmpty()) {
            if (rest.length() <= room) {
                out.append(pad).append(rest);
                break;
            }
            int at = lastSpace(rest, 1, room);
            if (at < 0) {
                at = rest.indexOf(' ');   // a word longer than the room stays whole
                if (at < 0) {
                    out.append(pad).append(rest);
                    break;
                }
            }
            out.append(pad).append(rest, 0, at).append('\n');
            rest = rest.substring(at).strip();
        }
    }

    /**
     * Where a line's description starts: after the first run of two or more spaces that follows text (the option
     * or command names), else after the line's own indent.
     */
    static int descriptionColumn(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) == ' ') {
            i++;
        }
        int indent = i;
        while (i < line.length() - 2) {
            if (line.charAt(i) != ' ' && line.charAt(i + 1) == ' ' && line.charAt(i + 2) == ' ') {
                int j = i + 1;
                while (j < line.length() && line.charAt(j) == ' ') {
                    j++;
                }
                return j < line.length() ? j : indent;
            }
            i++;
        }
        return indent;
    }

    /** The index of the last space in {@code s} at or after {@code from} and at most {@code max}; -1: none. */
    private static int lastSpace(String s, int from, int max) {
        for (int i = Math.min(max, s.length() - 1); i >= from; i--) {
            if (s.charAt(i) == ' ') {
                return i;
            }
        }
        return -1;
    }
}
