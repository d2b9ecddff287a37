package io.blocktarget.transport.nvmetcp;

import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.C2HData;
import io.blocktarget.protocol.nvmetcp.CapsuleCmd;
import io.blocktarget.protocol.nvmetcp.CapsuleResp;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.PduOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.LIMITS;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.bytes;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.pattern;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.read;
import static io.blocktarget.transport.nvmetcp.NvmeTcpConnectionTest.write;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the controller's PDUs reach the socket (PduSender): which buffers are written and where the flushes fall,
 * seen at the head of the pipeline — the writes and flushes the socket would get — plus the bytes, exactly.
 */
class PduSenderTest {
    /** Records, at the pipeline's head, each write's size ("w24") and each flush ("F"). */
    static final class SocketView extends ChannelOutboundHandlerAdapter {
        final List<String> events = new ArrayList<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            events.add("w" + ((ByteBuf) msg).readableBytes());
            ctx.write(msg, promise);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            events.add("F");
            ctx.flush();
        }
    }

    private static SocketView watch(HostEnd host) {
        SocketView view = new SocketView();
        host.channel.pipeline().addFirst(view);
        return view;
    }

    /** Several capsules in one socket read, as a host's one writev delivers them. */
    private static void sendTogether(HostEnd host, List<NvmeTcpPdu> capsules) {
        ByteBuf all = Unpooled.buffer();
        for (NvmeTcpPdu c : capsules) {
            ByteBuf one = host.encode(c);
            all.writeBytes(one);
            one.release();
            c.release();
        }
        host.sendBytes(all);
    }

    private static byte[] received(HostEnd host) {
        List<NvmeTcpPdu> out = host.drain();
        out.forEach(NvmeTcpPdu::release);
        return bytes(host.receivedLog);
    }

    private static byte[] resp(int sqhd, int cid) {
        ByteBuf b = Unpooled.buffer();
        new CapsuleResp(new Cqe(0, 0, sqhd, 1, cid, 0, NvmeStatus.SUCCESS.toCqeStatus())).encode(b, PduOptions.NONE);
        return bytes(b);
    }

    private static byte[] c2h(int cid, byte[] data, boolean success) {
        ByteBuf b = Unpooled.buffer();
        C2HData.encodeHeader(b, PduOptions.NONE, cid, 0, data.length, true, success);
        b.writeBytes(data);
        return bytes(b);
    }

    private static byte[] concat(byte[]... parts) {
        ByteBuf b = Unpooled.buffer();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return bytes(b);
    }

    /** Everything the controller wrote before {@code view} was installed (ICResp, Connect response). */
    private static int setupBytes(HostEnd host) {
        return host.receivedLog.readableBytes();
    }

    private static byte[] after(byte[] all, int from) {
        return java.util.Arrays.copyOfRange(all, from, all.length);
    }

    @Test
    void aBurstOfWriteCompletionsLeavesAsOneBufferAndOneFlush() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            assertThat(host.open(1, 127, 0).sqhd()).isEqualTo(1);
            int setup = setupBytes(host);
            SocketView view = watch(host);
            byte[] data = pattern(512, 1);
            List<NvmeTcpPdu> capsules = new ArrayList<>();
            for (int cid = 1; cid <= 3; cid++) {
                capsules.add(new CapsuleCmd(write(cid, cid, SglDescriptor.inCapsule(0, 512)),
                        Unpooled.wrappedBuffer(data)));
            }
            sendTogether(host, capsules);
            // before: three 24-byte buffers, each flushed (consolidated by the FlushConsolidationHandler)
            assertThat(view.events).containsExactly("w72", "F");
            assertThat(after(received(host), setup)).isEqualTo(concat(resp(2, 1), resp(3, 2), resp(4, 3)));
        }
    }

    @Test
    void aLongBurstIsFlushedEverySixteenCompletionsAndAtItsEnd() {
        int n = PduSender.FLUSH_AFTER_COMPLETIONS + 4;
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            int setup = setupBytes(host);
            SocketView view = watch(host);
            List<NvmeTcpPdu> capsules = new ArrayList<>();
            for (int cid = 0; cid < n; cid++) {
                capsules.add(new CapsuleCmd(Sqe.of(0x00, cid, 1, SglDescriptor.transportDataBlock(0))));
            }
            sendTogether(host, capsules);
            assertThat(view.events).containsExactly("w" + 24 * PduSender.FLUSH_AFTER_COMPLETIONS, "F", "w96", "F");
            byte[][] expected = new byte[n][];
            for (int cid = 0; cid < n; cid++) {
                expected[cid] = resp(2 + cid, cid);
            }
            assertThat(after(received(host), setup)).isEqualTo(concat(expected));
        }
    }

    @Test
    void readCompletionsCountByBytesNotByNumber() {
        int n = PduSender.FLUSH_AFTER_COMPLETIONS + 4;
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            SocketView view = watch(host);
            List<NvmeTcpPdu> capsules = new ArrayList<>();
            for (int cid = 0; cid < n; cid++) {
                capsules.add(new CapsuleCmd(read(cid, cid, 512)));
            }
            sendTogether(host, capsules);
            assertThat(view.events.stream().filter("F"::equals)).as("one flush at the end of the burst").hasSize(1);
            assertThat(view.events.getLast()).isEqualTo("F");
            List<NvmeTcpPdu> out = host.drain();
            assertThat(out).hasSize(2 * n);
            out.forEach(NvmeTcpPdu::release);
        }
    }

    @Test
    void readsFlushEveryMebibyteWithinABurst() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            SocketView view = watch(host);
            // FakeTarget reads slices of its 4 MiB store: 3 reads of 512 KiB, flushed once 1 MiB was held
            List<NvmeTcpPdu> capsules = new ArrayList<>();
            for (int cid = 0; cid < 3; cid++) {
                capsules.add(new CapsuleCmd(read(cid, 1024 * cid, 512 * 1024)));
            }
            sendTogether(host, capsules);
            // per 512 KiB read: 4 C2HData of 128 KiB (header, data) and the CapsuleResp sharing the next header
            assertThat(view.events.stream().filter("F"::equals)).hasSize(2);
            int firstFlush = view.events.indexOf("F");
            long before = view.events.subList(0, firstFlush).stream().mapToLong(e -> Long.parseLong(e.substring(1)))
                    .sum();
            assertThat(before).as("bytes in the first flush").isBetween((long) PduSender.FLUSH_AFTER_BYTES,
                    PduSender.FLUSH_AFTER_BYTES + PduSender.C2H_CHUNK + 1024L);
            host.drain().forEach(NvmeTcpPdu::release);
        }
    }

    @Test
    void readsShareHeaderBuffersDataStaysASliceAndOneFlushEndsTheBurst() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            byte[] d1 = pattern(512, 2);
            byte[] d2 = pattern(512, 3);
            host.capsule(write(1, 8, SglDescriptor.inCapsule(0, 512)), d1);
            host.capsule(write(2, 9, SglDescriptor.inCapsule(0, 512)), d2);
            host.drain().forEach(NvmeTcpPdu::release);
            int setup = setupBytes(host);
            SocketView view = watch(host);
            sendTogether(host, List.of(new CapsuleCmd(read(3, 8, 512)), new CapsuleCmd(read(4, 9, 512))));
            // C2HData header | data | CapsuleResp + next C2HData header | data | CapsuleResp (before: 6 buffers)
            assertThat(view.events).containsExactly("w24", "w512", "w48", "w512", "w24", "F");
            assertThat(after(received(host), setup))
                    .isEqualTo(concat(c2h(3, d1, false), resp(4, 3), c2h(4, d2, false), resp(5, 4)));
        }
    }

    @Test
    void withSqFlowControlDisabledReadsEndWithSuccessAndNoResponse() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.icReq(false, false);
            host.connect(1, 127, ConnectCommand.CATTR_DISABLE_SQ_FLOW_CONTROL, FakeTarget.SUBNQN);
            byte[] d = pattern(512, 4);
            host.capsule(write(1, 8, SglDescriptor.inCapsule(0, 512)), d);
            host.drain().forEach(NvmeTcpPdu::release);
            int setup = setupBytes(host);
            SocketView view = watch(host);
            sendTogether(host, List.of(new CapsuleCmd(read(3, 8, 512)), new CapsuleCmd(read(4, 8, 512))));
            assertThat(view.events).containsExactly("w24", "w512", "w24", "w512", "F");
            byte[] out = after(received(host), setup);
            assertThat(out).isEqualTo(concat(c2h(3, d, true), c2h(4, d, true)));
            // CH: type 07, FLAGS LAST_PDU | SUCCESS = 0C, HLEN 24, PDO 24, PLEN 536 LE (NVMe/TCP §3.6.2.8)
            assertThat(java.util.HexFormat.of().formatHex(out, 0, 24))
                    .isEqualTo("070c181818020000" + "0300" + "0000" + "00000000" + "00020000" + "00000000");
        }
    }

    @Test
    void completionsOutsideAReadShareOneFlushOnTheNextLoopTurn() {
        try (HostEnd host = HostEnd.open(LIMITS)) {
            host.open(1, 127, 0);
            host.target.holdCompletions = true;
            host.noData(0x00, 7);
            host.noData(0x00, 8);
            int setup = setupBytes(host);
            SocketView view = watch(host);
            host.target.held.forEach(Runnable::run);
            host.target.held.clear();
            assertThat(view.events).as("nothing flushed before the loop turns").isEmpty();
            host.channel.runPendingTasks();
            assertThat(view.events).containsExactly("w48", "F");
            // SQHD is the head at completion time: both capsules were fetched by then
            assertThat(after(received(host), setup)).isEqualTo(concat(resp(3, 7), resp(3, 8)));
        }
    }
}
