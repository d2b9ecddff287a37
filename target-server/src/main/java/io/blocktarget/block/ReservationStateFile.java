package io.blocktarget.block;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The APTPL / PTPL state file of one device (SPC-5 §5.14.5 "Persistent reservations and power loss"; NVMe Base
 * §8.1.22.4): a small text file beside the LUN's configuration, written atomically (temp file, fsync, rename,
 * fsync of the directory) by one writer thread shared by every LUN, so no event loop waits on a disk. Writes
 * are serial and each writes the state as it is when it runs, so the file never goes back in time.
 * <pre>
 * blocktarget-reservations 1
 * generation 7
 * registration 00000000000000aa scsi 1 iqn...,t,0x0001 iqn...,i,0x23d000000001
 * holder WRITE_EXCLUSIVE nvme a0000000-0000-0000-0000-000000000001
 * </pre>
 * Only a state with APTPL set is written; clearing APTPL removes the file.
 */
final class ReservationStateFile {
    private static final String MAGIC = "blocktarget-reservations 1";
    private static final System.Logger LOG = System.getLogger("blocktarget.block");
    private final Path path;
    /**
     * This file's writer: one thread, so writes stay in order; started by the first write, ended after a minute
     * without one (PR changes are rare), so the LUN owns no idle thread.
     */
    private final ThreadPoolExecutor writer;

    ReservationStateFile(Path path) {
        this.path = path.toAbsolutePath();
        this.writer = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "reservation-state " + this.path.getFileName());
            t.setDaemon(true);
            return t;
        });
        writer.allowCoreThreadTimeOut(true);
    }

    Path path() {
        return path;
    }

    /** The persisted state, or empty when there is no file. */
    Optional<Reservations.Snapshot> load() {
        if (!Files.exists(path)) {
            return Optional.empty();
        }
        try {
            return Optional.of(parse(Files.readAllLines(path, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException(path + ": cannot read the reservation state: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new UncheckedIOException(path + ": not a reservation state file (" + e.getMessage()
                    + "); move it away to start without the persisted reservations", new IOException(e));
        }
    }

    static Reservations.Snapshot parse(List<String> lines) {
        if (lines.isEmpty() || !lines.getFirst().equals(MAGIC)) {
            throw new IllegalArgumentException("first line is not '" + MAGIC + "'");
        }
        int generation = 0;
        List<String[]> registrations = new ArrayList<>();
        String[] holder = null;
        for (String line : lines.subList(1, lines.size())) {
            String[] p = line.split(" ", 3);
            switch (p[0]) {
                case "generation" -> generation = Integer.parseInt(p[1]);
                case "registration" -> registrations.add(p);
                case "holder" -> holder = p;
                case "" -> { }
                default -> throw new IllegalArgumentException("unknown line '" + line + "'");
            }
        }
        Optional<Reservations.Holder> held = Optional.empty();
        if (holder != null) {
            held = Optional.of(new Reservations.Holder(Registrant.parse(holder[2]), ReservationType.valueOf(holder[1])));
        }
        List<Reservations.Registration> list = new ArrayList<>();
        for (String[] r : registrations) {
            Registrant who = Registrant.parse(r[2]);
            list.add(new Reservations.Registration(who, HexFormat.fromHexDigitsToLong(r[1]), false));
        }
        return new Reservations.Snapshot(generation, list, held, true);
    }

    static String format(Reservations.Snapshot s) {
        StringBuilder b = new StringBuilder(MAGIC).append('\n');
        b.append("generation ").append(s.generation()).append('\n');
        for (Reservations.Registration r : s.registrations()) {
            b.append("registration ").append(HexFormat.of().toHexDigits(r.key())).append(' ')
                    .append(r.registrant().persistentForm()).append('\n');
        }
        s.holder().ifPresent(h -> b.append("holder ").append(h.type().name()).append(' ')
                .append(h.registrant().persistentForm()).append('\n'));
        return b.toString();
    }

    /** Writes (or, APTPL clear, removes) the state {@code current} gives when the writer gets to it. */
    CompletableFuture<Void> write(Supplier<Reservations.Snapshot> current) {
        return CompletableFuture.runAsync(() -> {
            try {
                Reservations.Snapshot s = current.get();
                if (s.persistThroughPowerLoss()) {
                    writeAtomically(format(s));
                } else if (Files.deleteIfExists(path)) {
                    syncDirectory();
                }
            } catch (IOException e) {
                LOG.log(System.Logger.Level.ERROR, path + ": reservation state not saved: " + e.getMessage());
                throw new UncheckedIOException(e);
            }
        }, writer);
    }

    private void writeAtomically(String text) throws IOException {
        Path temp = path.resolveSibling("." + path.getFileName() + ".tmp"); // hidden: ConfigLoader skips it
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
            ch.force(true);
        }
        try {
            Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING);
        }
        syncDirectory();
    }

    /** The rename is durable only once the directory is (POSIX); best effort where a directory cannot be opened. */
    private void syncDirectory() {
        Path dir = path.getParent();
        if (dir == null) {
            return;
        }
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // some file systems refuse to open a directory; the rename itself is atomic regardless
        }
    }
}
