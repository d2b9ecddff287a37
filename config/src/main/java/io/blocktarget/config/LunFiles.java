package io.blocktarget.config;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Writes and deletes {@code luns.d/NAME.yaml} for changes made through the control API, so the config directory
 * stays the source of truth. A write is atomic: the text goes to a hidden temporary file in {@code luns.d}
 * (the loader and the watcher skip dot files), is synced, and is renamed over the LUN file — a reader sees the old
 * file or the new one, never half of one.
 */
public final class LunFiles {
    private LunFiles() {
    }

    /** A LUN file written to its temporary name, waiting for {@link #commit} (or {@link #abort}). */
    public static final class Pending {
        private final Path temp;
        private final Path target;

        private Pending(Path temp, Path target) {
            this.temp = temp;
            this.target = target;
        }

        public Path target() {
            return target;
        }

        /** Renames the temporary file over the LUN file (atomically where the file system can). */
        public void commit() throws IOException {
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }

        /** Drops the temporary file: the change was not applied. */
        public void abort() {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException e) {
                // A leftover dot file is ignored by the loader; nothing else to do.
            }
        }
    }

    /** {@code configDir/luns.d/NAME.yaml}. */
    public static Path file(Path configDir, String name) {
        return configDir.resolve(ConfigLoader.LUNS_DIR).resolve(name + ConfigLoader.SUFFIX);
    }

    /** Writes the LUN's file to a temporary name next to it and syncs it; nothing visible changes yet. */
    public static Pending prepare(Path configDir, LunConfig lun, ServerConfig server) throws IOException {
        Path target = file(configDir, lun.name());
        Path temp = target.resolveSibling("." + lun.name() + ConfigLoader.SUFFIX + ".tmp");
        byte[] text = LunWriter.yaml(lun, server).getBytes(StandardCharsets.UTF_8);
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            channel.write(java.nio.ByteBuffer.wrap(text));
            channel.force(true);
        }
        return new Pending(temp, target);
    }

    /** Removes the LUN's file; true when there was one. */
    public static boolean delete(Path configDir, String name) throws IOException {
        return Files.deleteIfExists(file(configDir, name));
    }
}
