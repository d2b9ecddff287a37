package io.blocktarget.it;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guest scripts' {@code #@include NAME.sh} lines: what the guest runs is the script with each named file in its
 * line's place; every include names a file that exists.
 */
class GuestScriptIncludeTest {
    private static final Path VM = Path.of("src/test/resources/vm");

    @Test
    void shippedScriptsHaveTheirIncludesInlined() throws Exception {
        List<Path> scripts;
        try (Stream<Path> files = Files.list(VM)) {
            scripts = files.filter(f -> f.toString().endsWith(".sh")).sorted().toList();
        }
        int including = 0;
        for (Path script : scripts) {
            String text = Files.readString(script);
            String shipped = Files.readString(GuestScripts.ship(script));
            assertThat(shipped).as("%s shipped", script).doesNotContainPattern("(?m)^#@include ");
            var m = GuestScripts.INCLUDE.matcher(text);
            while (m.find()) {
                including++;
                assertThat(VM.resolve(m.group(1))).as("%s includes", script).exists();
                assertThat(shipped).contains(Files.readString(VM.resolve(m.group(1))));
            }
        }
        assertThat(including).as("scripts with includes (guest-lib.sh, zoned-fs-lib.sh)").isGreaterThanOrEqualTo(4);
    }

    @Test
    void theZonedScriptsShareTheirFileSystemPart() throws Exception {
        String lib = Files.readString(VM.resolve("zoned-fs-lib.sh"));
        assertThat(Files.readString(GuestScripts.ship(VM.resolve("zoned-check.sh"))))
                .contains("done\n" + lib + "sd_of_name() {");
        assertThat(Files.readString(GuestScripts.ship(VM.resolve("zoned-nvme-check.sh"))))
                .contains("done\n" + lib + "dev_of_name() {");
    }
}
