package io.blocktarget.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Structure-aware mutations of a stream of valid PDUs (the seeded fuzzer of the normal test run; Jazzer does
 * coverage-guided mutation in scripts/fuzz). A seed is a list of complete frames; one mutation applies 1..4
 * operations, chosen from: flip a bit or set an interesting byte in a frame's header, set a known header field
 * (offset, width, the protocol's byte order) to a boundary value — 0, 1, all ones, the sign bit, the frame's own
 * length ± 1 —, truncate, duplicate, drop or swap frames, splice a frame of another seed, insert random bytes. The
 * frames are then concatenated. Deterministic for a given {@link Random}.
 */
public final class PduMutator {
    /** A header field: byte offset within its frame and width in bytes (1, 2, 3 or 4). */
    public record Field(int offset, int width) {
    }

    private static final int[] INTERESTING_BYTES = {0x00, 0x01, 0x7F, 0x80, 0xFF, 0x40, 0x3F, 0xC0};

    private final List<List<byte[]>> seeds;
    private final int headerLength;
    private final List<Field> fields;
    private final ByteOrder order;

    /**
     * @param headerLength bytes at a frame's start that are header (48 for the iSCSI BHS, 8..72 for NVMe/TCP)
     * @param fields       the header fields worth boundary values (lengths, offsets, tags, opcodes)
     */
    public PduMutator(List<List<byte[]>> seeds, int headerLength, List<Field> fields, ByteOrder order) {
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no seeds");
        }
        this.seeds = seeds;
        this.headerLength = headerLength;
        this.fields = fields;
        this.order = order;
    }

    public static byte[] concat(List<byte[]> frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        frames.forEach(out::writeBytes);
        return out.toByteArray();
    }

    /** A mutated stream from the seeds. */
    public byte[] next(Random random) {
        List<byte[]> frames = new ArrayList<>();
        for (byte[] f : seeds.get(random.nextInt(seeds.size()))) {
            frames.add(f.clone());
        }
        int operations = 1 + random.nextInt(4);
        for (int i = 0; i < operations && !frames.isEmpty(); i++) {
            mutate(frames, random);
        }
        return concat(frames);
    }

    private void mutate(List<byte[]> frames, Random random) {
        int which = random.nextInt(frames.size());
        byte[] f = frames.get(which);
        int header = Math.min(headerLength, f.length);
        switch (random.nextInt(10)) {
            case 0, 1 -> {
                if (header > 0) {
                    int at = random.nextInt(header);
                    f[at] ^= (byte) (1 << random.nextInt(8));
                }
            }
            case 2 -> {
                if (header > 0) {
                    f[random.nextInt(header)] = (byte) INTERESTING_BYTES[random.nextInt(INTERESTING_BYTES.length)];
                }
            }
            case 3, 4 -> {
                Field field = fields.get(random.nextInt(fields.size()));
                if (field.offset() + field.width() <= f.length) {
                    long max = (1L << (8 * field.width())) - 1;
                    long[] values = {0, 1, max, max >> 1, (max >> 1) + 1, f.length - 1, f.length, f.length + 1,
                            f.length - header, random.nextLong() & max};
                    put(f, field, values[random.nextInt(values.length)] & max);
                }
            }
            case 5 -> frames.set(which, java.util.Arrays.copyOf(f, random.nextInt(f.length + 1)));
            case 6 -> frames.add(which, f.clone());
            case 7 -> {
                if (frames.size() > 1) {
                    frames.remove(which);
                } else {
                    int at = random.nextInt(frames.size());
                    frames.set(at, frames.get(at).clone());
                }
            }
            case 8 -> {
                if (frames.size() > 1) {
                    int other = random.nextInt(frames.size());
                    frames.set(which, frames.get(other));
                    frames.set(other, f);
                } else {
                    List<byte[]> donor = seeds.get(random.nextInt(seeds.size()));
                    frames.add(donor.get(random.nextInt(donor.size())).clone());
                }
            }
            default -> {
                byte[] noise = new byte[1 + random.nextInt(64)];
                random.nextBytes(noise);
                frames.add(random.nextInt(frames.size() + 1), noise);
            }
        }
    }

    private void put(byte[] f, Field field, long value) {
        for (int i = 0; i < field.width(); i++) {
            int shift = order == ByteOrder.BIG_ENDIAN ? 8 * (field.width() - 1 - i) : 8 * i;
            f[field.offset() + i] = (byte) (value >>> shift);
        }
    }
}
