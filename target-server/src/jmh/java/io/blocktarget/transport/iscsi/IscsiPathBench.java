package io.blocktarget.transport.iscsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.CountingBlockDevice;
import io.blocktarget.block.UncorrectableBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataIn;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.IscsiFraming;
import io.blocktarget.protocol.iscsi.ScsiCommand;
import io.blocktarget.protocol.iscsi.ScsiResponse;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What one 4 KiB iSCSI command costs the server in user space, without a socket (issue 31: the target's kernel time
 * per 4 KiB read equals SPDK iscsi_tgt's; its user time is what differs). A burst of {@value #BURST} SCSI Commands —
 * READ(10), or WRITE(10) with its block as immediate data — goes into the production decoder and connection over an
 * {@code EmbeddedChannel} (the test {@link Harness}), through the real device server to a RAM LUN of 256 MiB with the
 * server's own wrappers (counting, uncorrectable blocks) and back as Data-In / SCSI Response frames, which are
 * released unread. LBAs are random over the LUN; ITT and CmdSN advance as an initiator's would. Per command: time
 * and, with {@code -prof gc} (scripts/bench-path), bytes allocated. The channel's outbound queue stands in for the
 * epoll transport's, so compare variants of the server with each other, not with a socket's figures.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(IscsiPathBench.BURST)
// prepended, not appended: JMH's -jvmArgsAppend on the command line (scripts/bench-path -jvmArgsAppend OPTION, for a
// JVM variant) replaces the annotation's list of the same kind, and with it the server's collector (ZGC: no
// compressed references, so objects are larger than under the default G1)
@Fork(value = 1, jvmArgsPrepend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
        "-Dio.netty.leakDetection.level=disabled", "-XX:+UseZGC", "-XX:SoftMaxHeapSize=256m",
        "-Djmh.executor=CUSTOM", "-Djmh.executor.class=io.blocktarget.transport.iscsi.EventLoopLikeExecutor"})
public class IscsiPathBench {
    /** Commands per socket read: the load generator's queue depth in bench/spdk-ab's 4 KiB rows. */
    static final int BURST = 32;
    private static final int BLOCK = 4096;
    private static final int BLOCKS = 65536;

    @Param({"read", "write"})
    String rw;

    private Harness harness;
    private BlockDevice device;
    private ByteBuf burst;
    private int frameLength;
    private int itt;
    private int cmdSN;
    private long random = 0x9E3779B97F4A7C15L;

    @Setup(Level.Trial)
    public void setUp() {
        if (!(Thread.currentThread() instanceof io.netty.util.concurrent.FastThreadLocalThread)) {
            throw new IllegalStateException("not on an EventLoopLikeExecutor thread: " + Thread.currentThread());
        }
        device = CountingBlockDevice.wrap(UncorrectableBlockDevice.wrap(new RamBlockDevice("bench",
                new BlockGeometry(BLOCK, BLOCK, BLOCKS), false, new MemoryBudget(1L << 30))));
        ScsiTargetDevice target = ScsiTargetDevices.create(List.of(new LogicalUnitSpec(Harness.TARGET, 0, "bench",
                device))).get(Harness.TARGET);
        harness = new Harness(Harness.transport(IscsiSettings.defaults(), target));
        // what the load generator negotiates (bench/spdk-ab's reports list it)
        harness.login("MaxRecvDataSegmentLength", "262144", "InitialR2T", "No", "FirstBurstLength", "262144",
                "MaxBurstLength", "1048576").release();
        // every block written once (RAM never written would be read as shared zeros); the first command meets the
        // nexus's POWER ON unit attention and fails, which is all it is for
        harness.send(harness.command(Harness.read10(0, 1), true, false, BLOCK, Unpooled.EMPTY_BUFFER, true));
        drain();
        for (int lba = 0; lba < BLOCKS; lba += 16) {
            harness.send(harness.command(Harness.write10(lba, 16), false, true, 16 * BLOCK,
                    Unpooled.wrappedBuffer(new byte[16 * BLOCK]), true));
            drain();
        }
        itt = harness.itt;
        cmdSN = harness.cmdSN;   // the target's ExpCmdSN: the frames below are templates, never sent as they are
        boolean write = rw.equals("write");
        frameLength = Bhs.LENGTH + (write ? BLOCK : 0);
        burst = Unpooled.directBuffer(BURST * frameLength);
        for (int i = 0; i < BURST; i++) {
            ScsiCommand c = write
                    ? harness.command(Harness.write10(0, 1), false, true, BLOCK,
                            Unpooled.wrappedBuffer(Harness.pattern(BLOCK, i)), true)
                    : harness.command(Harness.read10(0, 1), true, false, BLOCK, Unpooled.EMPTY_BUFFER, true);
            IscsiFraming.encode(c, burst, Digest.NONE, Digest.NONE);
            c.release();
        }
        // one burst decoded: every command must end GOOD (its status in its Data-In, or a SCSI Response), or the
        // bursts measured would not be doing what they claim
        send();
        int good = 0;
        TargetPdu pdu;
        while ((pdu = harness.receive()) != null) {
            if (pdu instanceof DataIn d && d.status().isPresent() && d.status().getAsInt() == 0
                    || pdu instanceof ScsiResponse r && r.status() == 0) {
                good++;
            }
            pdu.release();
        }
        if (good != BURST) {
            throw new IllegalStateException(good + " of " + BURST + " commands ended GOOD");
        }
    }

    /** One socket read's worth of commands in, every response frame out (released). */
    @Benchmark
    public void burst() {
        send();
        drain();
    }

    /** The burst's commands with the next ITTs, CmdSNs and random LBAs, as one socket read. */
    private void send() {
        for (int i = 0; i < BURST; i++) {
            int base = i * frameLength;
            random ^= random << 13;
            random ^= random >>> 7;
            random ^= random << 17;
            burst.setInt(base + 16, itt++);        // ITT
            burst.setInt(base + 24, cmdSN++);      // CmdSN
            burst.setInt(base + 32 + 2, (int) (random & (BLOCKS - 1)));   // the CDB's LOGICAL BLOCK ADDRESS
        }
        harness.channel.writeInbound(burst.retainedDuplicate());
    }

    private void drain() {
        harness.channel.runPendingTasks();
        Object frame;
        while ((frame = harness.channel.readOutbound()) != null) {
            ReferenceCountUtil.release(frame);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        harness.channel.close();
        burst.release();
        device.close();
    }
}
