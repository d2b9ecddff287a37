// Memory copy bandwidth of this machine, measured with the primitive blocktarget's RAM backend uses
// (MemorySegment.copy between off-heap segments). Run by bench/run as a single-file program:
//   java bench/MemCopy.java [MiB] [seconds]
// Buffers (default 256 MiB each) are far larger than any cache, so the figure is DRAM copy bandwidth
// on one thread. Prints one line: memcopy_gbps=<GB/s copied, 1 GB = 1e9 bytes> chunk=<bytes> best_of=<n>.
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

public class MemCopy {
    private static final long CHUNK = 1L << 20; // 1 MiB per copy call, like a large Data-In burst

    public static void main(String[] args) {
        long bytes = (args.length > 0 ? Long.parseLong(args[0]) : 256) << 20;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 2.0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(bytes, 4096);
            MemorySegment dst = arena.allocate(bytes, 4096);
            src.fill((byte) 0x5a); // touch every page so no copy hits an unmapped zero page
            dst.fill((byte) 0);
            double best = 0;
            int rounds = 0;
            long deadline = System.nanoTime() + (long) (seconds * 1e9);
            while (rounds < 3 || System.nanoTime() < deadline) {
                long t0 = System.nanoTime();
                for (long off = 0; off < bytes; off += CHUNK) {
                    MemorySegment.copy(src, off, dst, off, CHUNK);
                }
                double gbps = bytes / ((System.nanoTime() - t0) / 1e9) / 1e9;
                best = Math.max(best, gbps);
                rounds++;
            }
            // Read one byte back so the copies cannot be elided.
            if (dst.get(java.lang.foreign.ValueLayout.JAVA_BYTE, bytes - 1) != 0x5a) {
                throw new IllegalStateException("copy did not happen");
            }
            System.out.printf("memcopy_gbps=%.2f chunk=%d best_of=%d%n", best, CHUNK, rounds);
        }
    }
}
