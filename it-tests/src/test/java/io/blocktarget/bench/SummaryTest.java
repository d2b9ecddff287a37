package io.blocktarget.bench;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class SummaryTest {
    private static final long MS = 1_000_000L;

    @Test
    void lineHasTheAgreedShape() {
        Summary s = new Summary("iscsi", "randread", 4096, 32, 1, 10, 1_234_560, 123456.0, 123456.0 * 4096 / (1 << 20),
                210, 450, 900, 0, 0, false, 0, -1, new Histogram(3));
        assertThat(s.line()).isEqualTo(
                "proto=iscsi rw=randread bs=4096 qd=32 jobs=1 iops=123456 mbps=482.3 p50us=210 p99us=450 p999us=900 errors=0 clientcpuus=-1.00");
    }

    @Test
    void onlyCompletionsInsideTheWindowCountButErrorsAlwaysDo() {
        // window [1 s, 2 s): one I/O completes during the ramp (with an error), three inside, one after the end
        JobStats job = new JobStats(1000 * MS, 2000 * MS);
        job.complete(900 * MS, 950 * MS, false);
        job.complete(1000 * MS, 1000 * MS + 100_000, true);
        job.complete(1500 * MS, 1500 * MS + 200_000, true);
        job.complete(1999 * MS, 1999 * MS + 300_000, true);
        job.complete(1999 * MS, 2000 * MS, true);
        JobStats other = new JobStats(1000 * MS, 2000 * MS);
        other.complete(1200 * MS, 1200 * MS + 400_000, true);
        other.verifyFailed();
        LoadGenOptions o = LoadGenOptions.parse("--proto", "nvme", "--target", "127.0.0.1:4420", "--name", "n",
                "--rw", "randwrite", "--bs", "128k", "--qd", "8", "--jobs", "2", "--time", "1s");
        Summary s = Summary.of(o, List.of(job, other), -1);
        assertThat(s.ios()).isEqualTo(4);
        assertThat(s.iops()).isEqualTo(4.0);
        assertThat(s.mibps()).isEqualTo(0.5);            // 4 × 128 KiB in 1 s
        assertThat(s.errors()).isEqualTo(2);             // the ramp error and the verify mismatch
        assertThat(s.verifyErrors()).isEqualTo(1);
        assertThat(s.p50us()).isEqualTo(200);            // of 100, 200, 300, 400 µs
        assertThat(s.p99us()).isEqualTo(400);
        assertThat(s.line()).isEqualTo(
                "proto=nvme rw=randwrite bs=131072 qd=8 jobs=2 iops=4 mbps=0.5 p50us=200 p99us=400 p999us=400 errors=2 clientcpuus=-1.00");
    }

    @Test
    void jsonCarriesTheSummaryAndADecodableHistogram() throws Exception {
        JobStats job = new JobStats(0, 1000 * MS);
        for (int i = 1; i <= 1000; i++) {
            job.complete(0, i * 1000L, true);            // 1 .. 1000 µs
        }
        LoadGenOptions o = LoadGenOptions.parse("--proto", "iscsi", "--target", "127.0.0.1:3260", "--name", "t",
                "--rw", "read", "--bs", "4k", "--qd", "1", "--jobs", "1", "--time", "1s");
        Summary summary = Summary.of(o, List.of(job), 2_500_000);
        assertThat(summary.line()).endsWith(" errors=0 clientcpuus=2.50");
        String json = summary.json();
        assertThat(json).startsWith("{\"proto\":\"iscsi\",\"rw\":\"read\",\"bs\":4096,\"qd\":1,\"jobs\":1,")
                .contains("\"ios\":1000,\"iops\":1000.0,").contains("\"client_cpu_us_per_io\":2.500,")
                .contains("\"p50us\":500,").contains("\"errors\":0,")
                .contains("{\"p\":50.0,\"us\":500.").contains("{\"le_us\":2,\"count\":1},{\"le_us\":4,\"count\":2}")
                .contains("{\"le_us\":1024,\"count\":489}]")
                .endsWith("\"}}\n");
        Matcher m = Pattern.compile("\"hdr_base64\":\"([^\"]+)\"").matcher(json);
        assertThat(m.find()).isTrue();
        Histogram back = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(m.group(1))), 0);
        assertThat(back.getTotalCount()).isEqualTo(1000);
        assertThat(back.getMaxValue()).isBetween(999_000L, 1_001_000L);
    }

    @Test
    void emptyRunReportsZeros() {
        LoadGenOptions o = LoadGenOptions.parse("--proto", "iscsi", "--target", "127.0.0.1:3260", "--name", "t",
                "--rw", "read", "--bs", "4k", "--qd", "1", "--jobs", "1", "--time", "2s");
        Summary s = Summary.of(o, List.of(new JobStats(0, 1)), 1000);
        assertThat(s.line()).endsWith("iops=0 mbps=0.0 p50us=0 p99us=0 p999us=0 errors=0 clientcpuus=-1.00");
        assertThat(s.json()).contains("\"buckets\":[]").contains("\"client_cpu_us_per_io\":-1.000,");
    }

    /**
     * With --verify the line says how many reads found zeros where this run had acknowledged no write, apart from
     * the errors and before clientcpuus (bench/run reads errors=, scripts expect clientcpuus= last); so does the JSON.
     */
    @Test
    void verifyAddsUnwrittenReadsApartFromErrors() {
        JobStats job = new JobStats(0, 1000 * MS);
        job.complete(0, 100_000, true);
        job.verifyFailed();
        job.unwrittenRead();
        JobStats other = new JobStats(0, 1000 * MS);
        other.unwrittenRead();
        other.unwrittenRead();
        LoadGenOptions o = LoadGenOptions.parse("--proto", "iscsi", "--target", "127.0.0.1:3260", "--name", "t",
                "--rw", "randrw", "--bs", "4k", "--qd", "1", "--jobs", "2", "--time", "1s", "--verify");
        Summary s = Summary.of(o, List.of(job, other), -1);
        assertThat(s.errors()).isEqualTo(1);
        assertThat(s.unwrittenReads()).isEqualTo(3);
        assertThat(s.line()).endsWith(" p999us=100 errors=1 unwritten=3 clientcpuus=-1.00");
        assertThat(s.json()).contains("\"errors\":1,\"verify_errors\":1,\"unwritten_reads\":3,");
    }
}
