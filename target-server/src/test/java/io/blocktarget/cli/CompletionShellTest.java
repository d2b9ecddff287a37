package io.blocktarget.cli;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The completion scripts in the real shells: each is sourced with {@code blocktarget} replaced by a shell function
 * that answers {@code completion names lun|session} as a server would (and records its arguments), then asked for the
 * candidates of a command line. bash: {@code _blocktarget} with COMP_LINE / COMP_POINT; zsh: {@code _blocktarget}
 * with {@code words} / CURRENT and recording stand-ins for compadd / _describe / _files (outside an interactive
 * shell zsh's completion system cannot run); fish: its own {@code complete -C}. A shell that is not installed is
 * skipped with a message.
 */
@Tag("loopback")
class CompletionShellTest {
    @TempDir
    Path tmp;

    /** Command line → the candidates every shell must offer (those starting with what is typed). */
    private static final Map<String, List<String>> CASES = new LinkedHashMap<>();

    static {
        CASES.put("blocktarget lu", List.of("lun"));
        CASES.put("blocktarget lun ", List.of("add", "resize", "set", "rm", "list", "show", "reset-stats"));
        CASES.put("blocktarget lun rm ", List.of("ram-4k", "ram-16k"));
        CASES.put("blocktarget lun rm --control /x.sock ram-1", List.of("ram-16k"));
        CASES.put("blocktarget fault add ram-4k --action t", List.of("task-set-full", "throttle", "torn-write"));
        CASES.put("blocktarget fault add ram-4k --trigger o", List.of("once-per-lba"));
        CASES.put("blocktarget trace --l", List.of("--last"));
        CASES.put("blocktarget sessions drop ", List.of("iscsi:1", "nvme:5@nqn.2026-11.io.blocktarget:ram-4k"));
        CASES.put("blocktarget sessions ", List.of("drop"));
        CASES.put("blocktarget completion ", List.of("bash", "zsh", "fish"));
        CASES.put("blocktarget lun add x --backend f", List.of("file"));
    }

    private static final String STUB_NAMES = """
            case "$3" in
              lun) printf '%s\\n' ram-4k ram-16k ;;
              session) printf '%s\\n' iscsi:1 'nvme:5@nqn.2026-11.io.blocktarget:ram-4k' ;;
            esac""";

    private String script(String shell) {
        StringWriter text = new StringWriter();
        picocli.CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(text, true));
        assertThat(cl.execute("completion", shell)).isZero();
        return text.toString();
    }

    private static boolean installed(String shell) {
        return Files.isExecutable(Path.of("/usr/bin", shell)) || Files.isExecutable(Path.of("/bin", shell));
    }

    private List<String> run(String shell, String driver) throws IOException, InterruptedException {
        Path file = tmp.resolve("driver." + shell);
        Files.writeString(file, driver);
        ProcessBuilder pb = new ProcessBuilder(switch (shell) {
            case "zsh" -> List.of("zsh", "-f", file.toString());
            case "fish" -> List.of("fish", "--no-config", file.toString());
            default -> List.of("bash", "--norc", "--noprofile", file.toString());
        }).redirectErrorStream(true);
        pb.environment().put("HOME", tmp.toString());
        pb.environment().put("XDG_CONFIG_HOME", tmp.toString());
        pb.environment().put("XDG_DATA_HOME", tmp.toString());
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
        return output.lines().toList();
    }

    /** "[line] -> a b c" per case, in order; the candidates in any order. */
    private static void check(List<String> output, String shell) {
        Map<String, List<String>> got = new LinkedHashMap<>();
        for (String line : output) {
            int arrow = line.indexOf("] -> ");
            assertThat(line).as(shell).startsWith("[");
            assertThat(arrow).as(shell + ": " + line).isPositive();
            String candidates = line.substring(arrow + 5).strip();
            got.put(line.substring(1, arrow), candidates.isEmpty() ? List.of()
                    : java.util.Arrays.stream(candidates.split(" ")).sorted().toList());
        }
        Map<String, List<String>> expected = new LinkedHashMap<>();
        CASES.forEach((line, candidates) -> expected.put(line, candidates.stream().sorted().toList()));
        assertThat(got).as(shell).containsExactlyEntriesOf(expected);
    }

    private String lines(String format) {
        StringBuilder sb = new StringBuilder();
        for (String line : CASES.keySet()) {
            sb.append(format.formatted(line)).append('\n');
        }
        return sb.toString();
    }

    @Test
    void bash() throws Exception {
        Assumptions.assumeTrue(installed("bash"), "bash is not installed");
        Path args = tmp.resolve("args");
        String driver = script("bash") + """
                blocktarget() { echo "$*" >> %s
                %s
                }
                t() { COMP_LINE=$1; COMP_POINT=${#1}; COMPREPLY=(); _blocktarget
                  echo "[$1] -> $(printf '%%s\\n' "${COMPREPLY[@]}" | sort | paste -sd' ')"
                  # bash shows a candidate after the last ':' of the word; put the part before it back
                }
                """.formatted(args, STUB_NAMES) + lines("t '%s'");
        List<String> out = run("bash", driver).stream()
                .map(l -> l.replace("-> 5@nqn", "-> nvme:5@nqn").replace(" 5@nqn", " nvme:5@nqn")).toList();
        check(out, "bash");
        assertThat(Files.readAllLines(args)).contains("completion names lun --control /x.sock");
    }

    @Test
    void zsh() throws Exception {
        Assumptions.assumeTrue(installed("zsh"), "zsh is not installed");
        Path args = tmp.resolve("args");
        String driver = """
                compdef() { : }
                """ + script("zsh") + """
                blocktarget() { echo "$*" >> %s
                %s
                }
                typeset -ga got
                compadd() { while [[ $1 == -* && $1 != -- ]]; do shift; done; [[ $1 == -- ]] && shift
                  local c; for c in "$@"; do [[ $c == "$cur"* ]] && got+=("$c"); done }
                _describe() { local -a arr; arr=("${(@P)4}"); compadd -- "${arr[@]%%%%:*}" }
                compset() { [[ $1 == -P ]] && cur=${cur#*=} }
                _files() { got+=("<files $*>") }
                t() { words=("${(@s: :)1}"); CURRENT=${#words}; got=(); _blocktarget
                  print -r -- "[$1] -> ${(j: :)${(o)got}}" }
                """.formatted(args, STUB_NAMES) + lines("t '%s'");
        check(run("zsh", driver), "zsh");
        assertThat(Files.readAllLines(args)).contains("completion names lun --control /x.sock");
    }

    @Test
    void fish() throws Exception {
        Assumptions.assumeTrue(installed("fish"), "fish is not installed");
        Path args = tmp.resolve("args");
        String driver = script("fish") + """
                function blocktarget
                    echo "$argv" >> %s
                    switch "$argv[3]"
                        case lun
                            printf '%%s\\n' ram-4k ram-16k
                        case session
                            printf '%%s\\n' iscsi:1 'nvme:5@nqn.2026-11.io.blocktarget:ram-4k'
                    end
                end
                function t
                    echo "[$argv[1]] -> "(complete -C "$argv[1]" | string replace -r '\\t.*' '' | sort | string join ' ')
                end
                """.formatted(args) + lines("t '%s'");
        check(run("fish", driver), "fish");
        assertThat(Files.readAllLines(args)).contains("completion names lun --control /x.sock");
    }
}
