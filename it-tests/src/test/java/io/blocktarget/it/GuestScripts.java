package io.blocktarget.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The guest scripts of vm/ as the initiator VM runs them: with their shared files inlined. */
final class GuestScripts {
    private GuestScripts() {
    }

    /**
     * A guest script's line that stands for a file of shared shell code beside it ({@code #@include guest-lib.sh}:
     * the common functions; {@code #@include zoned-fs-lib.sh}: the zoned file-system steps), inlined by {@link #ship}.
     */
    static final Pattern INCLUDE = Pattern.compile("(?m)^#@include ([\\w.-]+\\.sh)\\n");

    /**
     * The file run.sh copies into the guest: {@code guestScript} itself, or, when it has {@link #INCLUDE} lines, a copy
     * with each named file in its line's place (run.sh ships exactly one file; the copy lives until the JVM exits, as
     * a guest booted again after a boot failure needs it once more).
     */
    static Path ship(Path guestScript) throws IOException {
        String text = Files.readString(guestScript);
        Matcher m = INCLUDE.matcher(text);
        StringBuilder inlined = new StringBuilder();
        boolean any = false;
        while (m.find()) {
            any = true;
            Path lib = guestScript.toAbsolutePath().resolveSibling(m.group(1));
            m.appendReplacement(inlined, Matcher.quoteReplacement(Files.readString(lib)));
        }
        if (!any) {
            return guestScript.toAbsolutePath();
        }
        m.appendTail(inlined);
        Path shipped = Files.createTempFile("guest-" + guestScript.getFileName().toString().replace(".sh", "-"), ".sh");
        shipped.toFile().deleteOnExit();
        Files.writeString(shipped, inlined);
        return shipped;
    }
}
