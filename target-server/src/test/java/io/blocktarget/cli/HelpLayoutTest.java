package io.blocktarget.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Help texts wrap at spaces only and within 80 columns: picocli alone broke "luns.d" after the dot and
 * "identity.serial" likewise.
 */
class HelpLayoutTest {
    /** Every command below {@code cl}, with its name path. */
    private static void commands(CommandLine cl, List<CommandLine> all) {
        all.add(cl);
        cl.getSubcommands().forEach((name, sub) -> {
            if (name.equals(sub.getCommandName())) {
                commands(sub, all);
            }
        });
    }

    private static String help(CommandLine cl) {
        StringWriter text = new StringWriter();
        cl.usage(new PrintWriter(text, true));
        return text.toString();
    }

    /** Whitespace runs as one space: a word broken across lines shows up as "luns. d". */
    private static String flat(String text) {
        return text.replaceAll("\\s+", " ").strip();
    }

    @Test
    void everyCommandsHelpFitsIn80ColumnsAndKeepsEveryDescriptionWhole() {
        List<CommandLine> all = new ArrayList<>();
        commands(Main.commandLine(), all);
        assertThat(all).hasSizeGreaterThan(15);
        for (CommandLine cl : all) {
            String help = help(cl);
            String name = cl.getCommandSpec().qualifiedName();
            assertThat(help.lines()).as(name).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(80));
            String flatHelp = flat(help);
            for (String description : cl.getCommandSpec().usageMessage().description()) {
                assertThat(flatHelp).as(name).contains(flat(description.replace("%n", " ")));
            }
            for (OptionSpec o : cl.getCommandSpec().options()) {
                for (String line : o.description()) {
                    if (!line.contains("${")) {
                        assertThat(flatHelp).as(name + " " + o.longestName()).contains(flat(line));
                    }
                }
            }
            for (PositionalParamSpec p : cl.getCommandSpec().positionalParameters()) {
                for (String line : p.description()) {
                    if (!line.contains("${")) {
                        assertThat(flatHelp).as(name + " " + p.paramLabel()).contains(flat(line));
                    }
                }
            }
        }
    }

    @Test
    void theWordsPicocliBrokeStayWhole() {
        CommandLine root = Main.commandLine();
        assertThat(help(root.getSubcommands().get("serve"))).contains("luns.d/*.yaml");
        assertThat(help(root.getSubcommands().get("check"))).contains("luns.d/*.yaml");
        assertThat(help(root.getSubcommands().get("lun").getSubcommands().get("set"))).contains("identity.serial=SN1");
    }

    @Test
    void reflowKeepsColumnsAndNeverSplitsAWord() {
        String option = "      --config=DIR         " + "word ".repeat(20).strip();
        String wrapped = HelpLayout.reflow(option, -1, 0);
        assertThat(wrapped.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(80));
        assertThat(wrapped.lines().skip(1)).allSatisfy(l -> assertThat(l).startsWith(" ".repeat(29) + "word"));
        assertThat(flat(wrapped)).isEqualTo(flat(option));
        // a word longer than the room overflows rather than breaks
        String longWord = "x".repeat(120);
        assertThat(HelpLayout.reflow("Text " + longWord + " end", -1, 0)).isEqualTo("Text\n" + longWord + "\nend");
        // short lines and their trailing spaces are left alone (the synopsis heading "Usage: " keeps its space)
        assertThat(HelpLayout.reflow("Usage: ", -1, 0)).isEqualTo("Usage: ");
        assertThat(HelpLayout.descriptionColumn("  serve       Serve the LUNs")).isEqualTo(14);
        assertThat(HelpLayout.descriptionColumn("Add a LUN. Every key")).isZero();
        assertThat(HelpLayout.descriptionColumn("                 continued")).isEqualTo(17);
    }
}
