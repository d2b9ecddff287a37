package io.blocktarget.control;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.netty.util.internal.PlatformDependent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * What {@code /metrics} says about the build, the process and the JVM, next to the LUN families of
 * {@link ControlMetrics}:
 * <ul>
 *   <li>{@code blocktarget_build_info{version,commit}} (always 1);</li>
 *   <li>Micrometer's binders, which read the JDK's management beans at scrape time: memory per pool and the direct /
 *       mapped buffer pools ({@code jvm_memory_*}, {@code jvm_buffer_*} — RAM disks' FFM segments are direct memory),
 *       GC pauses and allocation ({@code jvm_gc_*}), threads ({@code jvm_threads_*}), CPU ({@code process_cpu_usage},
 *       {@code system_*}), open and maximum file descriptors ({@code process_files_*}), uptime
 *       ({@code process_uptime_seconds}, {@code process_start_time_seconds}) and {@code jvm_info};</li>
 *   <li>{@code process_resident_memory_bytes}: VmRSS of {@code /proc/self/status} (no binder has it; the name is
 *       the Prometheus client's), and {@code blocktarget_netty_direct_memory_used_bytes}: what Netty holds outside the
 *       JDK's direct buffer pool (its own counter; absent when Netty does not keep one).</li>
 * </ul>
 * Nothing here costs anything between scrapes except the GC binder's notification listener, which {@link #close}
 * removes.
 */
final class RuntimeMetrics implements AutoCloseable {
    private static final Path PROC_STATUS = Path.of("/proc/self/status");

    private final JvmGcMetrics gc = new JvmGcMetrics();

    RuntimeMetrics(MeterRegistry registry) {
        Gauge.builder("blocktarget.build.info", () -> 1)
                .description("the build: version and commit (always 1)")
                .tag("version", BuildInfo.version()).tag("commit", BuildInfo.commit()).register(registry);
        for (var binder : List.of(new JvmMemoryMetrics(), gc, new JvmThreadMetrics(), new ProcessorMetrics(),
                new FileDescriptorMetrics(), new UptimeMetrics(), new JvmInfoMetrics())) {
            binder.bindTo(registry);
        }
        if (residentBytes(PROC_STATUS).isPresent()) {
            Gauge.builder("process.resident.memory", () -> residentBytes(PROC_STATUS).orElse(0)).baseUnit("bytes")
                    .description("resident set size of the process (VmRSS)").register(registry);
        }
        if (PlatformDependent.usedDirectMemory() >= 0) {
            Gauge.builder("blocktarget.netty.direct.memory.used", PlatformDependent::usedDirectMemory)
                    .baseUnit("bytes").description("direct memory Netty allocated and holds (its own counter)")
                    .register(registry);
        }
    }

    /** VmRSS of a {@code /proc/PID/status} file in bytes; empty when there is no such line (not Linux). */
    static OptionalLong residentBytes(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmRSS:")) {
                    String[] fields = line.substring(6).trim().split("\\s+");
                    long value = Long.parseLong(fields[0]);
                    return OptionalLong.of(fields.length > 1 && fields[1].equalsIgnoreCase("kB") ? value * 1024 : value);
                }
            }
        } catch (IOException | NumberFormatException | UnsupportedOperationException e) {
            // not Linux, or a kernel without the line: no gauge
        }
        return OptionalLong.empty();
    }

    @Override
    public void close() {
        gc.close();
    }
}
