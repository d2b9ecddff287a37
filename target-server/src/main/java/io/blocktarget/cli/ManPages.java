package io.blocktarget.cli;

import io.blocktarget.config.ChangeRule;
import io.blocktarget.config.Key;
import io.blocktarget.config.KeyPaths;
import io.blocktarget.config.KeyReference;
import io.blocktarget.config.LunKeys;
import io.blocktarget.config.ServerKeys;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The man pages, written as roff (man(7) macros) straight from the models the program runs on, so they cannot drift:
 * {@code blocktarget(8)} from picocli's command model (every command and option that is not hidden, with the texts
 * {@code --help} shows), {@code blocktarget.yaml(5)} from the key tables ({@link LunKeys}, {@link ServerKeys}: the ones
 * {@code docs/configuration.md} and the JSON Schemas come from). roff directly rather than picocli-codegen's
 * AsciiDoc: turning AsciiDoc into roff would need asciidoctor at build time.
 */
final class ManPages {
    private ManPages() {
    }

    /** {@code blocktarget(8)}: every command below {@code root}, depth first, with its synopsis and options. */
    static String command(CommandSpec root, String version) {
        StringBuilder sb = new StringBuilder();
        header(sb, "BLOCKTARGET", 8, version, "System Administration");
        sb.append(".SH NAME\n").append(text(root.name() + " - " + String.join(" ", root.usageMessage().description())))
                .append('\n');
        sb.append(".SH SYNOPSIS\n.B ").append(text(root.name())).append("\n.I COMMAND\n[\\fIOPTIONS\\fR]\n");
        sb.append(".SH DESCRIPTION\n");
        paragraph(sb, "blocktarget serves LUNs (RAM disks, files, null devices) with logical blocks of 512 B to 64 KiB"
                + " and physical blocks up to 32 MiB to Linux initiators over iSCSI (RFC 7143) and NVMe over TCP."
                + " serve runs the server; check validates a configuration directory (blocktarget.yaml(5));"
                + " lun, fault, sessions, reload and trace control a running server through its control API.");
        paragraph(sb, "Sizes are a number of bytes or a number with a unit B, KiB, MiB, GiB or TiB (16KiB, 8 GiB)."
                + " Every command takes --help. The control commands print text, or with --json the API's JSON on"
                + " stdout and a failure as one RFC 9457 problem object on stderr.");
        sb.append(".SH COMMANDS\n");
        for (CommandSpec spec : commands(root)) {
            if (spec == root) {
                continue;
            }
            sb.append(".SS ").append(quoted(spec.qualifiedName())).append('\n');
            synopsis(sb, spec);
            for (String line : spec.usageMessage().description()) {
                paragraph(sb, line);
            }
            List<PositionalParamSpec> params = spec.positionalParameters().stream().filter(p -> !p.hidden()).toList();
            for (PositionalParamSpec p : params) {
                sb.append(".TP\n.I ").append(text(p.paramLabel())).append('\n')
                        .append(lines(p.description())).append('\n');
            }
            for (OptionSpec o : options(spec)) {
                sb.append(".TP\n").append(optionTerm(o)).append('\n').append(lines(o.description())).append('\n');
            }
            List<CommandSpec> subs = subcommands(spec);
            if (!subs.isEmpty()) {
                paragraph(sb, "Commands: " + subs.stream().map(CommandSpec::name).collect(Collectors.joining(", "))
                        + " (below).");
            }
        }
        sb.append(".SH OPTIONS\n");
        for (OptionSpec o : options(root)) {
            sb.append(".TP\n").append(optionTerm(o)).append('\n').append(lines(o.description())).append('\n');
        }
        sb.append(".SH EXIT STATUS\n");
        term(sb, "0", "Success.");
        term(sb, "1", "Runtime failure: a port in use, a backend that cannot be opened; for the control commands,"
                + " the server cannot be reached or failed.");
        term(sb, "2", "Usage error, an invalid configuration (check, serve), or a request the server refused as it"
                + " stands (invalid, no such LUN, needs --force).");
        sb.append(".SH ENVIRONMENT\n");
        term(sb, "BLOCKTARGET_CONTROL", "The control socket path or http://HOST:PORT the control commands use when"
                + " --control is not given.");
        term(sb, "BLOCKTARGET_LOG", "The log level: INFO by default, FINE for more.");
        term(sb, "BLOCKTARGET_JAVA_OPTS", "Extra JVM options for the launcher, e.g. -XX:MaxDirectMemorySize=4g;"
                + " naming a collector replaces the default ZGC flags.");
        term(sb, "XDG_RUNTIME_DIR", "Where a non-root server puts its control socket (blocktarget.sock) and where"
                + " a non-root client looks first.");
        sb.append(".SH FILES\n");
        term(sb, "/etc/blocktarget/blocktarget.yaml", "Server-wide settings (optional); see blocktarget.yaml(5).");
        term(sb, "/etc/blocktarget/luns.d/NAME.yaml", "One file per LUN; runtime changes are written back here.");
        term(sb, "/run/blocktarget/control.sock", "The control API socket of the system service (and of a server"
                + " run as root); mode 0660, for root and the members of group blocktarget.");
        term(sb, "/var/lib/blocktarget", "The service's state directory: file LUNs belong here.");
        sb.append(".SH EXAMPLES\n");
        example(sb, "blocktarget serve --config /etc/blocktarget --bind 127.0.0.1");
        example(sb, "blocktarget lun add t16 --backend ram --size 1GiB --logical-block-size 16KiB");
        example(sb, "blocktarget fault add t16 --ops read --lba 1000-1099 --action medium-error");
        example(sb, "blocktarget sessions drop nvme:5@nqn.2026-11.io.blocktarget:t16");
        sb.append(".SH SEE ALSO\n").append(text("blocktarget.yaml(5), iscsiadm(8), nvme(1), systemctl(1);"
                + " the README and docs/ of the release (doc/).")).append('\n');
        return sb.toString();
    }

    /** {@code blocktarget.yaml(5)}: both files' keys, each with what may be written, default, change rule, meaning. */
    static String configuration(String version) {
        StringBuilder sb = new StringBuilder();
        header(sb, "BLOCKTARGET.YAML", 5, version, "File Formats");
        sb.append(".SH NAME\n").append(text("blocktarget.yaml, luns.d - configuration of the blocktarget server"))
                .append('\n');
        sb.append(".SH SYNOPSIS\n").append(text("DIR/blocktarget.yaml")).append("\n.br\n")
                .append(text("DIR/luns.d/NAME.yaml")).append('\n');
        sb.append(".SH DESCRIPTION\n");
        paragraph(sb, "blocktarget serve --config DIR reads DIR/blocktarget.yaml (server-wide, optional) and"
                + " DIR/luns.d/*.yaml, one YAML 1.2 file per LUN; the file name minus .yaml is the LUN's name"
                + " (lowercase letters, digits, '-' and '.'). Files starting with '.' are skipped. The service uses"
                + " /etc/blocktarget. blocktarget check --config DIR validates a directory: every problem is"
                + " reported as FILE:LINE: KEY: what is wrong; allowed: what is allowed.");
        paragraph(sb, "Sizes are a number of bytes or a number with a unit B, KiB, MiB, GiB or TiB (8GiB, 16 KiB)."
                + " Booleans are true and false (yes and no are strings and are refused). An unknown key is an error"
                + " that lists the allowed keys. Nested keys are written here with dots (export.nvme.nsid is nsid in"
                + " the map nvme in the map export); [] marks a list of maps (faults[].action). The same dotted paths"
                + " are what blocktarget lun set and lun add --set take.");
        paragraph(sb, "Change says what a running server does when the key changes (lun set, the control API, an"
                + " edit under luns.d, reload or SIGHUP):");
        for (ChangeRule rule : ChangeRule.values()) {
            term(sb, rule.label(), rule.doc());
        }
        sb.append(".SH \"LUN FILES\"\n");
        paragraph(sb, "DIR/luns.d/NAME.yaml: one LUN.");
        keys(sb, LunKeys.declared());
        sb.append(".SH \"SERVER FILE\"\n");
        paragraph(sb, "DIR/blocktarget.yaml: server-wide settings, all optional; relative paths are relative to DIR."
                + " Options of blocktarget serve override them.");
        keys(sb, ServerKeys.declared());
        sb.append(".SH EXAMPLES\n");
        paragraph(sb, "luns.d/ram-16k.yaml, a sparse RAM disk with 16 KiB logical blocks on 64 KiB physical ones:");
        sb.append(".PP\n.nf\n.RS\n").append(text("""
                backend: ram
                size: 4GiB
                logical-block-size: 16KiB
                physical-block-size: 64KiB""")).append("\n.RE\n.fi\n");
        paragraph(sb, "luns.d/file-4k.yaml, a file created on first start, exported under chosen names:");
        sb.append(".PP\n.nf\n.RS\n").append(text("""
                backend: file
                path: /var/lib/blocktarget/disks/file-4k.img
                create: true
                size: 2GiB
                logical-block-size: 4KiB
                export:
                  iscsi: { target: "iqn.2026-11.io.blocktarget:files", lun: 1 }
                  nvme: { subsystem: "nqn.2026-11.io.blocktarget:files", nsid: 1 }""")).append("\n.RE\n.fi\n");
        sb.append(".SH SEE ALSO\n").append(text("blocktarget(8); blocktarget schema lun and blocktarget schema server"
                + " print the JSON Schemas of both files.")).append('\n');
        return sb.toString();
    }

    private static void keys(StringBuilder sb, List<KeyPaths.Declared> declared) {
        for (KeyPaths.Declared d : declared) {
            Key<?> key = d.key();
            sb.append(".TP\n.B ").append(text(d.path())).append('\n');
            String example = key.example().map(e -> " (e.g. " + KeyReference.example(e) + ")").orElse("");
            sb.append(text(key.doc() + example)).append('\n');
            sb.append(".br\nAllowed: ").append(text(KeyReference.allowed(key))).append('\n');
            String dflt = key.isRequired() ? "required" : key.defaultText().isEmpty() ? "none" : key.defaultText();
            sb.append(".br\nDefault: ").append(text(dflt)).append("; change: ").append(text(d.rule().label()))
                    .append('\n');
        }
    }

    /** Every command that is not hidden, {@code root} first, each before its subcommands (aliases once). */
    static List<CommandSpec> commands(CommandSpec root) {
        List<CommandSpec> all = new ArrayList<>();
        collect(root, all);
        return all;
    }

    private static void collect(CommandSpec spec, List<CommandSpec> all) {
        all.add(spec);
        subcommands(spec).forEach(sub -> collect(sub, all));
    }

    /** The visible subcommands of {@code spec}, each once (the map also holds aliases). */
    static List<CommandSpec> subcommands(CommandSpec spec) {
        Map<CommandSpec, Boolean> seen = new IdentityHashMap<>();
        List<CommandSpec> subs = new ArrayList<>();
        for (CommandLine sub : spec.subcommands().values()) {
            CommandSpec s = sub.getCommandSpec();
            if (!s.usageMessage().hidden() && seen.put(s, Boolean.TRUE) == null) {
                subs.add(s);
            }
        }
        return subs;
    }

    /** The options of {@code spec} that {@code --help} shows, in its order (by long name). */
    static List<OptionSpec> options(CommandSpec spec) {
        return spec.options().stream().filter(o -> !o.hidden())
                .sorted(java.util.Comparator.comparing(o -> o.longestName().replaceFirst("^-+", ""))).toList();
    }

    /** {@code .B --name , -n =LABEL}: bold names, the value's label in italics. */
    private static String optionTerm(OptionSpec o) {
        String names = java.util.Arrays.stream(o.names()).map(n -> "\\fB" + text(n) + "\\fR")
                .collect(Collectors.joining(", "));
        return names + (o.arity().max() > 0 ? "=\\fI" + text(o.paramLabel()) + "\\fR" : "");
    }

    /** The synopsis as {@code --help} shows it, the command's name in bold, filled (wrapped at spaces only). */
    private static void synopsis(StringBuilder sb, CommandSpec spec) {
        CommandLine.Help help = new CommandLine.Help(spec,
                CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
        String synopsis = help.synopsis(0).strip().replaceAll("\\s*\\n\\s*", " ");
        String name = spec.qualifiedName();
        sb.append(".PP\n.B ").append(text(name)).append('\n')
                .append(text(synopsis.startsWith(name) ? synopsis.substring(name.length()).strip() : synopsis))
                .append('\n');
    }

    private static void header(StringBuilder sb, String title, int section, String version, String manual) {
        sb.append(".\\\" Generated by blocktarget man ").append(section).append(" from the program's own model;")
                .append(" do not edit.\n");
        sb.append(".TH ").append(quoted(title)).append(' ').append(section).append(" \"\" ")
                .append(quoted("blocktarget " + version)).append(' ').append(quoted(manual)).append('\n');
        // no hyphenation, ragged right: option names and paths must stay whole to be copied
        sb.append(".nh\n.ad l\n");
    }

    private static void paragraph(StringBuilder sb, String text) {
        sb.append(".PP\n").append(text(text)).append('\n');
    }

    private static void term(StringBuilder sb, String term, String text) {
        sb.append(".TP\n.B ").append(text(term)).append('\n').append(text(text)).append('\n');
    }

    private static void example(StringBuilder sb, String command) {
        sb.append(".PP\n.nf\n.RS\n").append(text(command)).append("\n.RE\n.fi\n");
    }

    /** The lines of a picocli description, each filled as running text. */
    private static String lines(String[] description) {
        return description.length == 0 ? "\\&" : java.util.Arrays.stream(description).map(ManPages::text)
                .collect(Collectors.joining("\n"));
    }

    private static String quoted(String text) {
        return "\"" + text(text).replace("\"", "\\(dq") + "\"";
    }

    /**
     * Text for a roff input line: a backslash is {@code \e}, a dash {@code \-} (an ASCII hyphen-minus, so options
     * copied from the page work), and a line that would start with a control character ({@code .} or {@code '})
     * starts with the zero-width {@code \&}.
     */
    static String text(String s) {
        String escaped = s.replace("\\", "\\e").replace("-", "\\-");
        StringBuilder out = new StringBuilder(escaped.length() + 8);
        for (String line : escaped.split("\n", -1)) {
            if (!out.isEmpty()) {
                out.append('\n');
            }
            if (line.startsWith(".") || line.startsWith("'")) {
                out.append("\\&");
            }
            out.append(line);
        }
        return out.toString();
    }
}
