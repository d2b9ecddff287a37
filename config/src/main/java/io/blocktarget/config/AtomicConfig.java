package io.blocktarget.config;

/**
 * {@code atomic: {max-bytes, boundary-bytes, granularity-bytes, alignment-bytes}} of a LUN file: writes the device
 * promises to apply all or nothing (SBC-4 WRITE ATOMIC(16), NVMe NAWUN / NAWUPF / NABSN / NABSPF).
 *
 * @param maxBytes         largest atomic write
 * @param boundaryBytes    atomic boundary (0 = none): an atomic write may not cross a multiple of it
 * @param granularityBytes atomic writes are a multiple of it
 * @param alignmentBytes   atomic writes start at a multiple of it
 */
public record AtomicConfig(long maxBytes, long boundaryBytes, long granularityBytes, long alignmentBytes) {
}
