package io.blocktarget.cli;

import io.blocktarget.cli.CompletionScripts.Dynamic;
import io.blocktarget.cli.CompletionScripts.Node;
import io.blocktarget.cli.CompletionScripts.Opt;
import io.blocktarget.cli.CompletionScripts.Positional;
import io.blocktarget.config.FaultRuleConfig;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The model the completion scripts are made from: which names are static, which come from the server. */
class CompletionScriptsTest {
    private final List<Node> nodes = CompletionScripts.model(Main.commandLine());

    private Node node(String path) {
        return nodes.stream().filter(n -> n.path().equals(path)).findFirst().orElseThrow(() -> new AssertionError(path));
    }

    private Opt option(String path, String name) {
        return node(path).options().stream().filter(o -> o.names().contains(name)).findFirst().orElseThrow();
    }

    private Optional<Dynamic> positional(String path, int index) {
        return node(path).positionals().stream().filter(p -> p.index() == index).findFirst()
                .flatMap(p -> p.values().dynamic());
    }

    @Test
    void everyCommandIsThereAndHiddenOnesAreNot() {
        assertThat(nodes).extracting(Node::path).contains("", "serve", "check", "lun add", "lun set", "fault add",
                "fault rm", "sessions", "sessions drop", "trace", "reload", "completion");
        assertThat(nodes).extracting(Node::path).doesNotContain("completion names");
        assertThat(node("").subcommands()).doesNotContainKey("names");
    }

    @Test
    void faultAddCompletesEveryActionTriggerAndOperation() {
        assertThat(option("fault add", "--action").values().words()).containsExactlyElementsOf(
                Arrays.stream(FaultRuleConfig.Action.values()).map(FaultRuleConfig.Action::configName).toList());
        assertThat(option("fault add", "--trigger").values().words()).contains("once-per-lba");
        assertThat(option("fault add", "--ops").values().words()).isEqualTo(FaultRuleConfig.OPERATION_KINDS);
        assertThat(option("lun add", "--backend").values().words()).containsExactly("ram", "file", "null");
        assertThat(option("check", "--config").values().files()).isEqualTo("dir");
        assertThat(option("trace", "--token-file").values().files()).isEqualTo("file");
        assertThat(option("trace", "--on").takesValue()).isFalse();
    }

    @Test
    void lunAndSessionNamesComeFromTheServer() {
        for (String path : List.of("lun rm", "lun set", "lun resize", "lun show", "fault add", "fault list",
                "fault rm", "trace")) {
            assertThat(positional(path, 0)).as(path).contains(Dynamic.LUN);
        }
        assertThat(positional("lun add", 0)).as("a new LUN's name").isEmpty();
        assertThat(positional("sessions drop", 0)).contains(Dynamic.SESSION);
        assertThat(node("completion").positionals()).extracting(Positional::index).containsExactly(0);
        assertThat(node("completion").positionals().getFirst().values().words()).containsExactly("bash", "zsh",
                "fish");
    }

    @Test
    void summariesAreOneShortLine() {
        assertThat(CompletionScripts.summary(new String[] {"Serve things. More."})).isEqualTo("Serve things");
        assertThat(CompletionScripts.summary(new String[] {"%nWhen no COMMAND"})).isEqualTo("When no COMMAND");
        assertThat(CompletionScripts.summary(new String[] {"x".repeat(100)})).hasSize(72).endsWith("...");
        assertThat(CompletionScripts.shQuote("it's")).isEqualTo("'it'\\''s'");
        assertThat(CompletionScripts.fishQuote("a\\b'c")).isEqualTo("'a\\\\b\\'c'");
    }
}
