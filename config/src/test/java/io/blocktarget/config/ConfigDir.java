package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/** A configuration directory built file by file in a test's temporary directory. */
final class ConfigDir {
    final Path dir;

    ConfigDir(Path dir) {
        this.dir = dir;
    }

    /** Writes {@code content} to {@code dir/relative}, creating parent directories. */
    ConfigDir file(String relative, String content) {
        return bytes(relative, content.getBytes(StandardCharsets.UTF_8));
    }

    ConfigDir bytes(String relative, byte[] content) {
        try {
            Path path = dir.resolve(relative);
            Files.createDirectories(path.getParent());
            Files.write(path, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** A secret file readable by its owner only (mode 0600), as the README asks. */
    ConfigDir secret(String relative, String content) {
        return secret(relative, content.getBytes(StandardCharsets.UTF_8), "rw-------");
    }

    /** A file with {@code content} and the POSIX permissions {@code mode}, e.g. {@code rw-r--r--}. */
    ConfigDir secret(String relative, byte[] content, String mode) {
        bytes(relative, content);
        try {
            Files.setPosixFilePermissions(dir.resolve(relative), PosixFilePermissions.fromString(mode));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** A LUN file {@code luns.d/NAME.yaml}. */
    ConfigDir lun(String name, String content) {
        return file("luns.d/" + name + ".yaml", content);
    }

    BlocktargetConfig load() throws ConfigException {
        return ConfigLoader.load(dir);
    }

    LunConfig loadLun(String name) throws ConfigException {
        return load().luns().stream().filter(l -> l.name().equals(name)).findFirst().orElseThrow();
    }

    /**
     * Loads, expects a {@link ConfigException}, returns its problems with the leading directory prefix removed
     * (paths inside the message stay as they are).
     */
    List<String> problems() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.load(dir));
        assertThat(e).as("loading %s should fail", dir).isNotNull();
        String prefix = dir + dir.getFileSystem().getSeparator();
        assertThat(e.getMessage().lines().toList())
                .isEqualTo(e.problems().stream().map(ConfigProblem::toString).toList());
        return e.problems().stream().map(ConfigProblem::toString)
                .map(p -> p.startsWith(prefix) ? p.substring(prefix.length()) : p).toList();
    }
}
