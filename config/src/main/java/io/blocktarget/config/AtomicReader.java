package io.blocktarget.config;

import java.util.Optional;

/**
 * Reads {@code atomic: {max-bytes, boundary-bytes, granularity-bytes, alignment-bytes}} of a LUN file. Every value is
 * checked against what both protocols can say and what the backend can keep:
 * <ul>
 * <li>powers of two and multiples of the logical block size (boundary 0 = none);</li>
 * <li>max-bytes ≤ the smaller maximum transfer (NVMe MDTS 1 MiB; SCSI 8 MiB), so one command carries it; NVMe
 *     NAWUN / NAWUPF and NABSN / NABSPF are 0's-based 16-bit block counts (NVM Command Set Identify Namespace),
 *     the SCSI Block Limits fields 32-bit block counts (SBC-4 §6.6.4);</li>
 * <li>granularity and alignment ≤ max-bytes; a boundary ≥ max-bytes (NVMe: NABSN ≥ NAWUN, or no atomic write of
 *     the maximum size would fit between two boundaries);</li>
 * <li>the backend: ram swaps whole chunks copy-on-write, null stores nothing; file is refused — it would need
 *     RWF_ATOMIC with O_DIRECT on a file system whose statx reports STATX_WRITE_ATOMIC, or a journal, and has
 *     neither yet.</li>
 * </ul>
 * Absent: no atomicity beyond one logical block (empty).
 */
final class AtomicReader {
    /** NVMe MDTS (DESIGN §9: 1 MiB), the smaller of the two protocols' maximum transfers (SCSI: 8 MiB). */
    static final long MAX_TRANSFER_BYTES = 1L << 20;
    /** NAWUN / NAWUPF / NABSN / NABSPF are 16-bit 0's-based counts of logical blocks. */
    static final long NVME_MAX_BLOCKS = 1L << 16;

    private AtomicReader() {
    }

    /**
     * @param lun     the LUN file's mapping
     * @param backend empty when {@code backend:} itself is wrong (then only the values are checked)
     * @param logical empty when {@code logical-block-size:} is wrong
     */
    static Optional<AtomicConfig> read(YamlMap lun, Optional<BackendKind> backend, Optional<Long> logical,
                                       Problems problems) {
        if (!lun.has(LunKeys.ATOMIC)) {
            return Optional.empty();
        }
        Optional<YamlMap> parsed = YamlMap.section(lun, LunKeys.ATOMIC, problems);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        YamlMap map = parsed.get();
        int before = problems.count();
        if (backend.isPresent() && backend.get() == BackendKind.FILE) {
            lun.problem(LunKeys.ATOMIC, LunKeys.BACKEND.name()
                    + ": file cannot apply a write all or nothing (it would need RWF_ATOMIC with"
                    + " O_DIRECT where statx reports STATX_WRITE_ATOMIC, or a journal; neither is implemented);"
                    + " allowed: " + LunKeys.ATOMIC.name() + ": with " + LunKeys.BACKEND.name() + ": ram or null");
        }
        long lbs = logical.orElse(512L);
        String lbsText = Sizes.format(lbs);
        Key<Long> maxKey = LunKeys.ATOMIC_MAX_BYTES;
        Key<Long> boundaryKey = LunKeys.ATOMIC_BOUNDARY_BYTES;
        Key<Long> granularityKey = LunKeys.ATOMIC_GRANULARITY_BYTES;
        Key<Long> alignmentKey = LunKeys.ATOMIC_ALIGNMENT_BYTES;
        Optional<Long> max = map.required(maxKey, size(lbsText, false, lbs));
        Optional<Long> boundary = map.value(boundaryKey, size(lbsText, true, lbs), boundaryKey.defaultValue().orElseThrow());
        Optional<Long> granularity = map.value(granularityKey, size(lbsText, false, lbs), lbs);
        Optional<Long> alignment = map.value(alignmentKey, size(lbsText, false, lbs), lbs);
        if (max.isPresent()) {
            long m = max.get();
            String maxAllowed = "a power of two from the logical block size (" + lbsText + ") to "
                    + Sizes.format(MAX_TRANSFER_BYTES) + " (NVMe MDTS; one command must carry an atomic write)";
            if (m > MAX_TRANSFER_BYTES) {
                map.problem(maxKey, map.text(maxKey) + " exceeds the maximum transfer; allowed: " + maxAllowed);
            } else if (m / lbs > NVME_MAX_BLOCKS) {
                map.problem(maxKey, map.text(maxKey) + " is more than 65536 logical blocks (NVMe NAWUN is a"
                        + " 16-bit count); allowed: " + maxAllowed);
            }
            if (granularity.isPresent() && granularity.get() > m) {
                map.problem(granularityKey, map.text(granularityKey) + " is larger than " + maxKey.name() + " ("
                        + Sizes.format(m) + "); allowed: a power of two from the logical block size to "
                        + maxKey.name());
            }
            if (alignment.isPresent() && alignment.get() > m) {
                map.problem(alignmentKey, map.text(alignmentKey) + " is larger than " + maxKey.name() + " ("
                        + Sizes.format(m) + "); allowed: a power of two from the logical block size to "
                        + maxKey.name());
            }
            if (boundary.isPresent() && boundary.get() != 0) {
                long b = boundary.get();
                String boundaryAllowed = "0 (no boundary) or a power of two from " + maxKey.name() + " ("
                        + Sizes.format(m)
                        + ") to 65536 logical blocks (" + Sizes.format(NVME_MAX_BLOCKS * lbs) + ", NVMe NABSN)";
                if (b < m) {
                    map.problem(boundaryKey, map.text(boundaryKey) + " is smaller than " + maxKey.name() + " (an atomic"
                            + " write of " + maxKey.name() + " would not fit between two boundaries); allowed: "
                            + boundaryAllowed);
                } else if (b / lbs > NVME_MAX_BLOCKS) {
                    map.problem(boundaryKey, map.text(boundaryKey) + " is more than 65536 logical blocks"
                            + " (NVMe NABSN is a 16-bit count); allowed: " + boundaryAllowed);
                }
            }
        }
        if (problems.count() > before || max.isEmpty() || boundary.isEmpty() || granularity.isEmpty()
                || alignment.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new AtomicConfig(max.get(), boundary.get(), granularity.get(), alignment.get()));
    }

    /** A power of two that is a multiple of the logical block size ({@code zeroAllowed}: or 0 = none). */
    private static ValueType<Long> size(String lbsText, boolean zeroAllowed, long lbs) {
        String allowed = (zeroAllowed ? "0 (none) or " : "") + "a power of two, a multiple of the logical block size ("
                + lbsText + ")";
        return ValueType.text("a size", allowed, text -> {
            long bytes = Sizes.parse(text);
            if (bytes == 0 && zeroAllowed) {
                return 0L;
            }
            if (!Sizes.isPowerOfTwo(bytes)) {
                throw new InvalidValue(text + " is not a power of two", allowed);
            }
            if (bytes < lbs) {
                throw new InvalidValue(text + " is smaller than the logical block size", allowed);
            }
            return bytes;
        });
    }
}
