package io.blocktarget.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The command line of the load generator, parsed and checked once:
 * <pre>
 * --proto iscsi|nvme --target HOST:PORT --name IQN|NQN [--lun N | --nsid N]
 * --rw randread|randwrite|read|write|randrw [--mix 70] --bs 4k --qd N --jobs N
 * --time 10s [--ramp 2s] [--size 1GiB] [--digests] [--verify] [--json FILE]
 * [--threads N] [--cpus 1,3-4] [--disable-sqflow]
 * [--hostnqn NQN] [--tls-psk-file FILE [--tls-identity-version 0|1]]
 * </pre>
 *
 * @param lun       iSCSI LUN (default 0)
 * @param nsid      NVMe namespace ID (default 1)
 * @param readMix   percentage of reads in randrw (fio's rwmixread)
 * @param sizeBytes range of the device used from LBA 0; 0 = the whole device
 * @param verify    writes carry a pattern derived from the byte offset; reads check it, except that zeros where no
 *                  write of this run was acknowledged before the read are counted as unwritten, not as errors
 * @param threads   event-loop threads the connections are spread over (each connection stays on one); 0 = one per
 *                  job up to the number of CPUs
 * @param cpus      CPUs the event-loop threads are pinned to, thread i on {@code cpus[i % size]} (with the
 *                  external {@code taskset}); empty = not pinned
 * @param disableSqFlow NVMe: Connect with CATTR "SQ flow control disable" (Base §6.3), as {@code nvme connect
 *                  --disable-sqflow}: the controller may then end reads with C2HData SUCCESS and no CapsuleResp
 * @param hostNqn   NVMe: the host NQN of Connect (and of the TLS PSK identity)
 * @param tls       NVMe: TLS 1.3 with a retained PSK on every queue (NVMe/TCP §3.6), as {@code nvme connect --tls}
 */
public record LoadGenOptions(Protocol protocol, String host, int port, String name, int lun, int nsid, Workload workload,
                             int readMix, int blockSize, int queueDepth, int jobs, Duration time, Duration ramp,
                             long sizeBytes, boolean digests, boolean verify, Optional<Path> json, int threads,
                             java.util.List<Integer> cpus, boolean disableSqFlow, String hostNqn,
                             Optional<Tls> tls) {
    static final int MAX_QUEUE_DEPTH = 1024;
    static final int MAX_JOBS = 256;
    static final int MAX_BLOCK_SIZE = 16 << 20;
    static final Duration MAX_TIME = Duration.ofHours(24);

    /**
     * NVMe/TCP TLS: the configured PSK in the interchange format ({@code nvme gen-tls-key}'s
     * {@code NVMeTLSkey-1:hh:...:}, hash 01 → TLS_AES_128_GCM_SHA256, 02 → TLS_AES_256_GCM_SHA384) and the PSK
     * identity version the host sends (§3.6.1.3: 0 = {@code NVMe0Rhh HOSTNQN SUBNQN}, 1 = with the PSK digest).
     */
    public record Tls(Path pskFile, int identityVersion) {
        public Tls {
            check(identityVersion == 0 || identityVersion == 1, "--tls-identity-version " + identityVersion
                    + " is not 0 or 1");
        }
    }

    public static final String USAGE = """
            usage: loadgen --proto iscsi|nvme --target HOST:PORT --name IQN|NQN [--lun N | --nsid N]
                           --rw randread|randwrite|read|write|randrw [--mix READ%] --bs SIZE --qd N --jobs N
                           --time DURATION [--ramp DURATION] [--size SIZE] [--digests] [--verify] [--json FILE]
                           [--threads N] [--cpus LIST] [--disable-sqflow]
                           [--hostnqn NQN] [--tls-psk-file FILE [--tls-identity-version 0|1]]
              --verify: reads check the pattern; blocks not written in this run may be zeros: unwritten=, not errors
              --threads: event loops (default one per job up to the CPUs); --cpus 1,3-4: pin loop i to the i-th CPU
              --disable-sqflow: NVMe Connect with SQ flow control disabled (reads may end with C2HData SUCCESS)
              --tls-psk-file: NVMe/TCP over TLS 1.3 with the PSK in FILE (NVMeTLSkey-1:01|02:...:, as nvme gen-tls-key
                prints it); --tls-identity-version: the PSK identity sent (default 1; 0 = without digest)
              --hostnqn: NVMe host NQN in Connect and the TLS identity (default the generator's own)
              SIZE: 4096, 4k, 128KiB, 1g, 1GiB   DURATION: 10s, 500ms, 2m   --mix: reads in randrw (default 70)""";

    /** Wire protocol spoken to the target. */
    public enum Protocol {
        ISCSI("iscsi"), NVME("nvme");

        final String cliName;

        Protocol(String cliName) {
            this.cliName = cliName;
        }
    }

    /** What the command line got wrong; the message names the option. */
    public static final class UsageException extends IllegalArgumentException {
        UsageException(String message) {
            super(message);
        }
    }

    public LoadGenOptions {
        check(port >= 1 && port <= 65535, "--target: port " + port + " is not 1..65535");
        check(lun >= 0 && lun <= 16383, "--lun " + lun + " is not 0..16383");
        check(nsid >= 1, "--nsid " + nsid + " must be >= 1");
        check(readMix >= 0 && readMix <= 100, "--mix " + readMix + " is not 0..100");
        check(blockSize >= 512 && blockSize <= MAX_BLOCK_SIZE && blockSize % 512 == 0,
                "--bs " + blockSize + " must be a multiple of 512 in 512..16MiB");
        check(queueDepth >= 1 && queueDepth <= MAX_QUEUE_DEPTH, "--qd " + queueDepth + " is not 1.." + MAX_QUEUE_DEPTH);
        check(jobs >= 1 && jobs <= MAX_JOBS, "--jobs " + jobs + " is not 1.." + MAX_JOBS);
        check(!time.isNegative() && !time.isZero() && time.compareTo(MAX_TIME) <= 0, "--time must be > 0 and <= 24h");
        check(!ramp.isNegative() && ramp.compareTo(MAX_TIME) <= 0, "--ramp must be >= 0 and <= 24h");
        check(sizeBytes == 0 || sizeBytes >= blockSize, "--size must be at least --bs");
        if (verify && sizeBytes > 0) {
            checkVerifiable(sizeBytes / blockSize, "--size " + sizeBytes);
        }
        check(threads >= 0 && threads <= MAX_JOBS, "--threads " + threads + " is not 1.." + MAX_JOBS);
        cpus = java.util.List.copyOf(cpus);
        check(protocol == Protocol.NVME || !disableSqFlow, "--disable-sqflow is for nvme");
        check(protocol == Protocol.NVME || tls.isEmpty(), "--tls-psk-file is for nvme");
        check(!hostNqn.isEmpty() && hostNqn.length() <= 223 && hostNqn.chars().allMatch(c -> c > ' ' && c < 0x7F),
                "--hostnqn must be 1..223 printable ASCII characters without spaces");
    }

    /**
     * --verify keeps one bit per I/O unit of the range ({@link AckedWrites}); {@code range} names the range (the
     * whole device is known only after connecting).
     */
    static void checkVerifiable(long units, String range) {
        check(units <= AckedWrites.MAX_UNITS, "--verify tracks at most " + AckedWrites.MAX_UNITS + " I/Os of --bs"
                + " (one bit each); " + range + " holds " + units + ": give a smaller --size or a larger --bs");
    }

    /** Event loops to run: {@code --threads}, else one per job up to {@code cores}; never more than the jobs. */
    int eventLoops(int cores) {
        return Math.min(jobs, threads > 0 ? threads : Math.max(1, cores));
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new UsageException(message);
        }
    }

    /** Parses the arguments; {@link UsageException} names the first problem. */
    public static LoadGenOptions parse(String... args) {
        Map<String, String> values = new java.util.HashMap<>();
        boolean digests = false;
        boolean verify = false;
        boolean disableSqFlow = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--digests" -> digests = true;
                case "--verify" -> verify = true;
                case "--disable-sqflow" -> disableSqFlow = true;
                case "--proto", "--target", "--name", "--lun", "--nsid", "--rw", "--mix", "--bs", "--qd", "--jobs",
                     "--time", "--ramp", "--size", "--json", "--threads", "--cpus", "--hostnqn", "--tls-psk-file",
                     "--tls-identity-version" -> {
                    check(i + 1 < args.length, a + " needs a value");
                    check(values.put(a, args[++i]) == null, a + " given twice");
                }
                default -> throw new UsageException("unknown option " + a);
            }
        }
        Protocol protocol = switch (required(values, "--proto")) {
            case "iscsi" -> Protocol.ISCSI;
            case "nvme" -> Protocol.NVME;
            default -> throw new UsageException("--proto must be iscsi or nvme, not " + values.get("--proto"));
        };
        String target = required(values, "--target");
        int colon = target.lastIndexOf(':');
        check(colon > 0, "--target must be HOST:PORT, not " + target);
        String host = target.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = integer("--target port", target.substring(colon + 1));
        check(protocol == Protocol.ISCSI || !values.containsKey("--lun"), "--lun is for iscsi; use --nsid");
        check(protocol == Protocol.NVME || !values.containsKey("--nsid"), "--nsid is for nvme; use --lun");
        check(protocol == Protocol.NVME || !values.containsKey("--hostnqn"), "--hostnqn is for nvme");
        check(values.containsKey("--tls-psk-file") || !values.containsKey("--tls-identity-version"),
                "--tls-identity-version needs --tls-psk-file");
        Optional<Tls> tls = Optional.ofNullable(values.get("--tls-psk-file")).map(f -> new Tls(Path.of(f),
                integer("--tls-identity-version", values.getOrDefault("--tls-identity-version", "1"))));
        Workload workload = Workload.fromCliName(required(values, "--rw"))
                .orElseThrow(() -> new UsageException("--rw must be one of randread, randwrite, read, write, randrw"));
        check(workload == Workload.RANDRW || !values.containsKey("--mix"), "--mix is only for --rw randrw");
        long bs = size("--bs", required(values, "--bs"));
        check(bs <= MAX_BLOCK_SIZE, "--bs " + bs + " exceeds 16MiB");
        return new LoadGenOptions(protocol, host, port, required(values, "--name"),
                integer("--lun", values.getOrDefault("--lun", "0")), integer("--nsid", values.getOrDefault("--nsid", "1")),
                workload, integer("--mix", values.getOrDefault("--mix", "70")), (int) bs,
                integer("--qd", required(values, "--qd")), integer("--jobs", required(values, "--jobs")),
                duration("--time", required(values, "--time")), duration("--ramp", values.getOrDefault("--ramp", "0s")),
                values.containsKey("--size") ? size("--size", values.get("--size")) : 0, digests, verify,
                Optional.ofNullable(values.get("--json")).map(Path::of),
                values.containsKey("--threads") ? positive("--threads", values.get("--threads")) : 0,
                values.containsKey("--cpus") ? cpuList(values.get("--cpus")) : java.util.List.of(), disableSqFlow,
                values.getOrDefault("--hostnqn", NvmeConnection.HOSTNQN), tls);
    }

    private static int positive(String option, String value) {
        int n = integer(option, value);
        check(n >= 1, option + " must be >= 1");
        return n;
    }

    /** {@code 0,2-3} → [0, 2, 3], as taskset's list format; each CPU 0..4095. */
    static java.util.List<Integer> cpuList(String value) {
        java.util.List<Integer> cpus = new java.util.ArrayList<>();
        for (String part : value.split(",", -1)) {
            String[] range = part.split("-", -1);
            check(range.length <= 2 && !part.isEmpty(), "--cpus: not a CPU list: " + value);
            int from = integer("--cpus", range[0].trim());
            int to = range.length == 2 ? integer("--cpus", range[1].trim()) : from;
            check(from >= 0 && to >= from && to < 4096, "--cpus: not a CPU list: " + value);
            for (int c = from; c <= to; c++) {
                cpus.add(c);
            }
        }
        return cpus;
    }

    private static String required(Map<String, String> values, String option) {
        String v = values.get(option);
        check(v != null, option + " is required");
        return v;
    }

    private static int integer(String option, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new UsageException(option + ": not a number: " + value);
        }
    }

    private static final Map<String, Long> SIZE_UNITS = Map.ofEntries(Map.entry("", 1L), Map.entry("b", 1L),
            Map.entry("k", 1L << 10), Map.entry("kb", 1L << 10), Map.entry("kib", 1L << 10),
            Map.entry("m", 1L << 20), Map.entry("mb", 1L << 20), Map.entry("mib", 1L << 20),
            Map.entry("g", 1L << 30), Map.entry("gb", 1L << 30), Map.entry("gib", 1L << 30),
            Map.entry("t", 1L << 40), Map.entry("tb", 1L << 40), Map.entry("tib", 1L << 40));

    /** A size with an optional binary unit (k = KiB, like fio's bs=4k): 4096, 4k, 128KiB, 1g. */
    static long size(String option, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        int digits = 0;
        while (digits < v.length() && Character.isDigit(v.charAt(digits))) {
            digits++;
        }
        Long unit = SIZE_UNITS.get(v.substring(digits));
        check(digits > 0 && digits <= 15 && unit != null, option + ": not a size: " + value);
        long n = Long.parseLong(v.substring(0, digits));
        check(n <= Long.MAX_VALUE / unit, option + ": too large: " + value);
        return n * unit;
    }

    /** A duration: 10s, 500ms, 2m, 1h, or plain seconds. */
    static Duration duration(String option, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        int digits = 0;
        while (digits < v.length() && Character.isDigit(v.charAt(digits))) {
            digits++;
        }
        check(digits > 0 && digits <= 9, option + ": not a duration: " + value);
        long n = Long.parseLong(v.substring(0, digits));
        return switch (v.substring(digits)) {
            case "", "s" -> Duration.ofSeconds(n);
            case "ms" -> Duration.ofMillis(n);
            case "m", "min" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> throw new UsageException(option + ": not a duration: " + value);
        };
    }

    /** Blocks of {@code lbs} bytes per I/O; fails when the block size is not a multiple of the device's. */
    int blocksPerIo(int lbs) {
        if (blockSize % lbs != 0) {
            throw new UsageException("--bs " + blockSize + " is not a multiple of the device's block size " + lbs);
        }
        return blockSize / lbs;
    }
}
