package io.blocktarget.cli;

import io.blocktarget.config.FaultRuleConfig;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * The shell completion scripts of {@code blocktarget completion bash|zsh|fish}, generated from the picocli model, so
 * that a new command or option completes without touching this class. The three scripts share one design: small
 * lookup functions (subcommands, options, which options take a value and what values, what each positional is) per
 * command path, and one function that walks the words typed so far to the command path and the positional index.
 *
 * <p>Values that only the running server knows are {@link Dynamic}: the script runs {@code blocktarget completion
 * names KIND} (passing on a {@code --control} / {@code --token-file} typed on the line), which asks the control API
 * and prints one name per line, or nothing when no server answers. A new kind of name (portals, once they exist) is
 * one more constant of {@link Dynamic} and a marker class on the parameter.
 */
final class CompletionScripts {
    private CompletionScripts() {
    }

    /** Names the completion asks the running server for: where they are listed and under which member. */
    enum Dynamic {
        LUN("/v1/luns", "luns", "name"),
        SESSION("/v1/sessions", "sessions", "id");

        final String path;
        final String array;
        final String member;

        Dynamic(String path, String array, String member) {
            this.path = path;
            this.array = array;
            this.member = member;
        }

        /** {@code lun}, {@code session}: the KIND of {@code completion names KIND}. */
        String kind() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Marker for a parameter that names a LUN of the running server (the completion asks it). */
    static final class LunNames implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Collections.emptyIterator();
        }
    }

    /** Marker for a parameter that names a session of the running server. */
    static final class SessionIds implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Collections.emptyIterator();
        }
    }

    /** Fault actions ({@code action:} of a faults entry), in the order of {@link FaultRuleConfig.Action}. */
    static final class FaultActions implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(FaultRuleConfig.Action.values()).map(FaultRuleConfig.Action::configName).iterator();
        }
    }

    /** Path states ({@code paths:} words, {@code path set}), in the order of {@link io.blocktarget.config.PathState}. */
    static final class PathStates implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(io.blocktarget.config.PathState.values()).map(io.blocktarget.config.PathState::word)
                    .iterator();
        }
    }

    /** Fault triggers. */
    static final class FaultTriggers implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(FaultRuleConfig.Trigger.values()).map(FaultRuleConfig.Trigger::configName)
                    .iterator();
        }
    }

    /** Operation kinds of a fault rule's {@code ops}. */
    static final class FaultOps implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return FaultRuleConfig.OPERATION_KINDS.iterator();
        }
    }

    /** The shells there is a script for. */
    static final class Shells implements Iterable<String> {
        static final List<String> NAMES = List.of("bash", "zsh", "fish");

        @Override
        public Iterator<String> iterator() {
            return NAMES.iterator();
        }
    }

    /**
     * How a value completes: from fixed {@code words}, from the server ({@code dynamic}), as a file or a directory
     * name, or not at all.
     */
    record Values(List<String> words, Optional<Dynamic> dynamic, String files) {
        static final Values NONE = new Values(List.of(), Optional.empty(), "");

        boolean isNone() {
            return words.isEmpty() && dynamic.isEmpty() && files.isEmpty();
        }

        /** The script-side form: {@code words:a b c}, {@code dynamic:lun}, {@code file}, {@code dir}. */
        String code() {
            if (dynamic.isPresent()) {
                return "dynamic:" + dynamic.get().kind();
            }
            if (!words.isEmpty()) {
                return "words:" + String.join(" ", words);
            }
            return files;
        }
    }

    record Opt(List<String> names, boolean takesValue, Values values, String description) {
    }

    record Positional(int index, Values values) {
    }

    /** One command: its path of names below {@code blocktarget} ("" for the top), subcommands, options, positionals. */
    record Node(String path, Map<String, String> subcommands, List<Opt> options, List<Positional> positionals) {
    }

    /** A label like {@code ram|file|null}: its words are the values. */
    private static final Pattern WORD_CHOICES = Pattern.compile("[a-z0-9-]+(\\|[a-z0-9-]+)+");
    /** Commands whose {@code NAME} names a LUN yet to be made: nothing to complete. */
    private static final Set<String> NEW_NAMES = Set.of("lun add");

    /** Every visible command of {@code root}, depth first. */
    static List<Node> model(CommandLine root) {
        List<Node> nodes = new ArrayList<>();
        walk(root, "", nodes);
        return nodes;
    }

    private static void walk(CommandLine cl, String path, List<Node> nodes) {
        CommandSpec spec = cl.getCommandSpec();
        Map<String, String> subcommands = new java.util.LinkedHashMap<>();
        cl.getSubcommands().forEach((name, sub) -> {
            if (!sub.getCommandSpec().usageMessage().hidden() && name.equals(sub.getCommandName())) {
                subcommands.put(name, summary(sub.getCommandSpec().usageMessage().description()));
            }
        });
        List<Opt> options = new ArrayList<>();
        for (OptionSpec o : spec.options()) {
            if (o.hidden()) {
                continue;
            }
            boolean takesValue = o.arity().max() > 0;
            options.add(new Opt(List.of(o.names()), takesValue, takesValue ? values(o, path) : Values.NONE,
                    summary(o.description())));
        }
        List<Positional> positionals = new ArrayList<>();
        for (PositionalParamSpec p : spec.positionalParameters()) {
            if (!p.hidden()) {
                positionals.add(new Positional(p.index().min(), positionalValues(p, path, cl)));
            }
        }
        nodes.add(new Node(path, subcommands, options, positionals));
        cl.getSubcommands().forEach((name, sub) -> {
            if (subcommands.containsKey(name)) {
                walk(sub, path.isEmpty() ? name : path + " " + name, nodes);
            }
        });
    }

    private static Values values(ArgSpec arg, String path) {
        Iterable<String> candidates = arg.completionCandidates();
        if (candidates instanceof LunNames) {
            return new Values(List.of(), Optional.of(Dynamic.LUN), "");
        }
        if (candidates instanceof SessionIds) {
            return new Values(List.of(), Optional.of(Dynamic.SESSION), "");
        }
        if (candidates != null) {
            List<String> words = new ArrayList<>();
            candidates.forEach(words::add);
            if (!words.isEmpty()) {
                return new Values(List.copyOf(words), Optional.empty(), "");
            }
        }
        String label = arg.paramLabel();
        if (WORD_CHOICES.matcher(label).matches()) {
            return new Values(List.of(label.split("\\|")), Optional.empty(), "");
        }
        Class<?> type = arg.type();
        if (type == Path.class || type == File.class) {
            return new Values(List.of(), Optional.empty(), label.equals("DIR") ? "dir" : "file");
        }
        return Values.NONE;
    }

    private static Values positionalValues(PositionalParamSpec p, String path, CommandLine cl) {
        Values v = values(p, path);
        // NAME of a control command is a LUN (lun rm NAME, fault add NAME, ...), unless it names a new one
        if (v.isNone() && p.paramLabel().equals("NAME") && cl.getCommand() instanceof ClientCommand
                && !NEW_NAMES.contains(path)) {
            return new Values(List.of(), Optional.of(Dynamic.LUN), "");
        }
        return v;
    }

    /** The first sentence of a description, as one line for a completion menu. */
    static String summary(String[] description) {
        if (description == null || description.length == 0) {
            return "";
        }
        String text = String.join(" ", description).replace("%n", " ").strip();
        int end = text.indexOf(". ");
        String first = end > 0 ? text.substring(0, end) : text;
        if (first.endsWith(".")) {
            first = first.substring(0, first.length() - 1);
        }
        first = first.replaceAll("\\s+", " ");
        return first.length() > 72 ? first.substring(0, 69).stripTrailing() + "..." : first;
    }

    // ---- bash ----------------------------------------------------------------------------------------------------

    static String bash(CommandLine root) {
        List<Node> nodes = model(root);
        StringBuilder sb = new StringBuilder();
        sb.append("# bash completion for blocktarget, made by `blocktarget completion bash`:\n")
                .append("#   source <(blocktarget completion bash)   (or save it in ")
                .append("~/.local/share/bash-completion/completions/blocktarget)\n")
                .append("# LUN and session names come from the running server: `blocktarget completion names KIND`.\n");
        lookups(nodes, sb, Shell.BASH);
        sb.append("""
                _blocktarget() {
                  local line=${COMP_LINE:0:COMP_POINT} cur cmdpath="" npos=0 pending="" i w
                  local -a words control=()
                  read -ra words <<< "$line"
                  if [[ -z $line || $line == *[[:space:]] ]]; then cur=""; else cur=${words[-1]}; unset 'words[-1]'; fi
                  for ((i = 1; i < ${#words[@]}; i++)); do
                    w=${words[i]}
                    if [[ -n $pending ]]; then
                      [[ $pending == --control || $pending == --token-file ]] && control+=("$pending" "$w")
                      pending=""; continue
                    fi
                    if [[ $w == -* ]]; then
                      [[ $w == --control=* || $w == --token-file=* ]] && control+=("$w")
                      [[ $w != *=* ]] && _blocktarget_takes_value "$cmdpath" "$w" && pending=$w
                      continue
                    fi
                    if ((npos == 0)) && [[ " $(_blocktarget_subcommands "$cmdpath") " == *" $w "* ]]; then
                      cmdpath=${cmdpath:+$cmdpath }$w
                    else
                      npos=$((npos + 1))
                    fi
                  done
                  local what=""
                  if [[ -n $pending ]]; then
                    what=$(_blocktarget_option_values "$cmdpath" "$pending")
                  elif [[ $cur == --*=* ]]; then
                    what=$(_blocktarget_option_values "$cmdpath" "${cur%%=*}"); cur=${cur#*=}
                  elif [[ $cur == -* ]]; then
                    what="words:$(_blocktarget_options "$cmdpath")"
                  else
                    what=$(_blocktarget_positional "$cmdpath" "$npos")
                    if ((npos == 0)); then
                      local subs=$(_blocktarget_subcommands "$cmdpath")
                      [[ -n $subs ]] && case $what in "" | words:*) what="words:$subs ${what#words:}" ;; esac
                    fi
                  fi
                  case $what in
                    words:*) COMPREPLY=($(compgen -W "${what#words:}" -- "$cur")) ;;
                    dynamic:*) COMPREPLY=($(compgen -W "$("${words[0]}" completion names "${what#dynamic:}" "${control[@]}" 2>/dev/null)" -- "$cur")) ;;
                    file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
                    dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
                    *) COMPREPLY=() ;;
                  esac
                  # bash splits words at ':' (COMP_WORDBREAKS): a candidate replaces only what follows the last one
                  if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
                    local prefix=${cur%"${cur##*:}"} k
                    for k in "${!COMPREPLY[@]}"; do COMPREPLY[k]=${COMPREPLY[k]#"$prefix"}; done
                  fi
                }
                complete -F _blocktarget blocktarget
                """);
        return sb.toString();
    }

    // ---- zsh -----------------------------------------------------------------------------------------------------

    static String zsh(CommandLine root) {
        List<Node> nodes = model(root);
        StringBuilder sb = new StringBuilder();
        sb.append("#compdef blocktarget\n")
                .append("# zsh completion for blocktarget, made by `blocktarget completion zsh`:\n")
                .append("#   source <(blocktarget completion zsh)   (after compinit; or save it as _blocktarget in a")
                .append(" directory of $fpath)\n")
                .append("# LUN and session names come from the running server: `blocktarget completion names KIND`.\n");
        lookups(nodes, sb, Shell.ZSH);
        sb.append("""
                _blocktarget() {
                  local cur=${words[CURRENT]} cmdpath="" npos=0 pending="" i w what
                  local -a control subs opts
                  for ((i = 2; i < CURRENT; i++)); do
                    w=${words[i]}
                    if [[ -n $pending ]]; then
                      [[ $pending == --control || $pending == --token-file ]] && control+=("$pending" "$w")
                      pending=""; continue
                    fi
                    if [[ $w == -* ]]; then
                      [[ $w == --control=* || $w == --token-file=* ]] && control+=("$w")
                      [[ $w != *=* ]] && _blocktarget_takes_value "$cmdpath" "$w" && pending=$w
                      continue
                    fi
                    subs=("${(@f)$(_blocktarget_subcommands "$cmdpath")}")
                    subs=("${(@)subs%%:*}")
                    if ((npos == 0)) && (( ${subs[(Ie)$w]} )); then
                      cmdpath=${cmdpath:+$cmdpath }$w
                    else
                      npos=$((npos + 1))
                    fi
                  done
                  if [[ -n $pending ]]; then
                    what=$(_blocktarget_option_values "$cmdpath" "$pending")
                  elif [[ $cur == --*=* ]]; then
                    what=$(_blocktarget_option_values "$cmdpath" "${cur%%=*}")
                    compset -P '*='
                  elif [[ $cur == -* ]]; then
                    opts=("${(@f)$(_blocktarget_options "$cmdpath")}")
                    _describe -t options option opts
                    return
                  else
                    what=$(_blocktarget_positional "$cmdpath" "$npos")
                    if ((npos == 0)); then
                      subs=("${(@f)$(_blocktarget_subcommands "$cmdpath")}")
                      (( ${#subs} )) && [[ -n ${subs[1]} ]] && _describe -t commands command subs
                    fi
                  fi
                  case $what in
                    words:*) compadd -- ${=${what#words:}} ;;
                    dynamic:*) compadd -- ${(f)"$(${words[1]} completion names ${what#dynamic:} $control 2>/dev/null)"} ;;
                    file) _files ;;
                    dir) _files -/ ;;
                  esac
                }
                if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
                  _blocktarget "$@"
                else
                  compdef _blocktarget blocktarget
                fi
                """);
        return sb.toString();
    }

    // ---- fish ----------------------------------------------------------------------------------------------------

    static String fish(CommandLine root) {
        List<Node> nodes = model(root);
        StringBuilder sb = new StringBuilder();
        sb.append("# fish completion for blocktarget, made by `blocktarget completion fish`:\n")
                .append("#   blocktarget completion fish | source   (or save it as")
                .append(" ~/.config/fish/completions/blocktarget.fish)\n")
                .append("# LUN and session names come from the running server: `blocktarget completion names KIND`.\n");
        lookups(nodes, sb, Shell.FISH);
        sb.append("""
                function __blocktarget_complete
                    set -l tokens (commandline -opc)
                    set -l cur (commandline -ct)
                    set -l cmdpath ''
                    set -l npos 0
                    set -l pending ''
                    set -l control
                    for w in $tokens[2..-1]
                        if test -n "$pending"
                            if contains -- $pending --control --token-file
                                set control $control $pending $w
                            end
                            set pending ''
                            continue
                        end
                        if string match -q -- '-*' $w
                            if string match -q -r -- '^--(control|token-file)=' $w
                                set control $control $w
                            end
                            if not string match -q -- '*=*' $w; and __blocktarget_takes_value "$cmdpath" $w
                                set pending $w
                            end
                            continue
                        end
                        if test $npos -eq 0; and contains -- $w (__blocktarget_subcommands "$cmdpath" | string replace -r '\\t.*' '')
                            set cmdpath (string trim -- "$cmdpath $w")
                        else
                            set npos (math $npos + 1)
                        end
                    end
                    set -l what ''
                    set -l prefix ''
                    if test -n "$pending"
                        set what (__blocktarget_option_values "$cmdpath" $pending)
                    else if string match -q -- '--*=*' $cur
                        set what (__blocktarget_option_values "$cmdpath" (string replace -r '=.*' '' -- $cur))
                        set prefix (string replace -r '=.*' '=' -- $cur)
                        set cur (string replace -r '^[^=]*=' '' -- $cur)
                    else if string match -q -- '-*' $cur
                        __blocktarget_options "$cmdpath"
                        return
                    else
                        set what (__blocktarget_positional "$cmdpath" $npos)
                        if test $npos -eq 0
                            __blocktarget_subcommands "$cmdpath"
                        end
                    end
                    switch "$what"
                        case 'words:*'
                            for v in (string split ' ' -- (string replace 'words:' '' -- $what))
                                echo $prefix$v
                            end
                        case 'dynamic:*'
                            for v in ($tokens[1] completion names (string replace 'dynamic:' '' -- $what) $control 2>/dev/null)
                                echo $prefix$v
                            end
                        case file
                            __fish_complete_path $cur
                        case dir
                            __fish_complete_directories $cur
                    end
                end
                complete -c blocktarget -f -a '(__blocktarget_complete)'
                """);
        return sb.toString();
    }

    // ---- the lookup functions, per shell ---------------------------------------------------------------------------

    private enum Shell { BASH, ZSH, FISH }

    /**
     * {@code _blocktarget_subcommands PATH}, {@code _blocktarget_options PATH}, {@code _blocktarget_takes_value PATH
     * OPTION}, {@code _blocktarget_option_values PATH OPTION} and {@code _blocktarget_positional PATH INDEX}.
     */
    private static void lookups(List<Node> nodes, StringBuilder sb, Shell shell) {
        String fn = shell == Shell.FISH ? "__blocktarget_" : "_blocktarget_";
        // subcommands: bash: names on one line; zsh: "name:description" lines; fish: "name\tdescription" lines
        List<String[]> cases = new ArrayList<>();
        for (Node n : nodes) {
            if (n.subcommands().isEmpty()) {
                continue;
            }
            StringJoiner lines = new StringJoiner(shell == Shell.BASH ? " " : "\n");
            n.subcommands().forEach((name, description) -> lines.add(switch (shell) {
                case BASH -> name;
                case ZSH -> name + ":" + description;
                case FISH -> name + "\t" + description;
            }));
            cases.add(new String[] {n.path(), lines.toString()});
        }
        function(sb, shell, fn + "subcommands", "PATH: the commands below it", cases, false);
        cases = new ArrayList<>();
        for (Node n : nodes) {
            StringJoiner lines = new StringJoiner(shell == Shell.BASH ? " " : "\n");
            for (Opt o : n.options()) {
                for (String name : o.names()) {
                    lines.add(switch (shell) {
                        case BASH -> name;
                        case ZSH -> name.replace(":", "\\:") + ":" + o.description();
                        case FISH -> name + "\t" + o.description();
                    });
                }
            }
            cases.add(new String[] {n.path(), lines.toString()});
        }
        function(sb, shell, fn + "options", "PATH: its options", cases, false);
        List<String> takesValue = new ArrayList<>();
        cases = new ArrayList<>();
        for (Node n : nodes) {
            for (Opt o : n.options()) {
                if (!o.takesValue()) {
                    continue;
                }
                for (String name : o.names()) {
                    String key = n.path() + " " + name;   // as the script builds it: "$1 $2"
                    takesValue.add(key);
                    if (!o.values().isNone()) {
                        cases.add(new String[] {key, o.values().code()});
                    }
                }
            }
        }
        predicate(sb, shell, fn + "takes_value", takesValue);
        function(sb, shell, fn + "option_values", "PATH OPTION: words:..., dynamic:KIND, file or dir", cases, true);
        cases = new ArrayList<>();
        for (Node n : nodes) {
            for (Positional p : n.positionals()) {
                if (!p.values().isNone()) {
                    cases.add(new String[] {n.path() + " " + p.index(), p.values().code()});
                }
            }
        }
        function(sb, shell, fn + "positional", "PATH INDEX: what the INDEXth positional is", cases, true);
    }

    /** A function printing the text of the case that matches its arguments (joined by a space). */
    private static void function(StringBuilder sb, Shell shell, String name, String doc, List<String[]> cases,
                                 boolean twoArgs) {
        String subject = twoArgs ? "\"$1 $2\"" : "\"$1\"";
        switch (shell) {
            case BASH, ZSH -> {
                sb.append(name).append("() {  # ").append(doc).append('\n');
                sb.append("  case ").append(subject).append(" in\n");
                for (String[] c : cases) {
                    sb.append("    ").append(shQuote(c[0])).append(") printf '%s\\n' ")
                            .append(shQuote(c[1])).append(" ;;\n");
                }
                sb.append("  esac\n}\n");
            }
            case FISH -> {
                sb.append("function ").append(name).append("  # ").append(doc).append('\n');
                sb.append("    switch ").append(twoArgs ? "\"$argv[1] $argv[2]\"" : "\"$argv[1]\"").append('\n');
                for (String[] c : cases) {
                    sb.append("        case ").append(fishQuote(c[0])).append('\n');
                    sb.append("            printf '%s\\n' ").append(fishQuote(c[1])).append('\n');
                }
                sb.append("    end\nend\n");
            }
        }
    }

    /** A function that succeeds when "$1 $2" is one of {@code keys}. */
    private static void predicate(StringBuilder sb, Shell shell, String name, List<String> keys) {
        switch (shell) {
            case BASH, ZSH -> {
                sb.append(name).append("() {  # PATH OPTION: succeeds when OPTION takes a value\n");
                sb.append("  case \"$1 $2\" in\n");
                if (!keys.isEmpty()) {
                    sb.append("    ").append(String.join("|", keys.stream().map(CompletionScripts::shQuote).toList()))
                            .append(") return 0 ;;\n");
                }
                sb.append("  esac\n  return 1\n}\n");
            }
            case FISH -> {
                sb.append("function ").append(name).append("  # PATH OPTION: succeeds when OPTION takes a value\n");
                sb.append("    switch \"$argv[1] $argv[2]\"\n");
                if (!keys.isEmpty()) {
                    sb.append("        case ").append(String.join(" ", keys.stream().map(CompletionScripts::fishQuote)
                            .toList())).append("\n            return 0\n");
                }
                sb.append("    end\n    return 1\nend\n");
            }
        }
    }

    /** Single-quoted for sh (zsh and bash alike). */
    static String shQuote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /** Single-quoted for fish: only {@code \} and {@code '} are special inside. */
    static String fishQuote(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
