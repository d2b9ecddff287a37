package io.blocktarget.transport.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The socket settings of {@link StreamTuning} reach a real kernel socket. */
class StreamTuningTest {
    /**
     * Linux caps SO_RCVBUF at net.core.rmem_max and doubles it (socket(7)); the JDK reports half of what the kernel
     * holds, so the value set. Set small first, then to iSCSI's size: each call must reach the kernel.
     */
    @Test
    void iscsiReceiveBufferIsFixedAtItsSizeAsTheKernelGrantsIt() throws Exception {
        long rmemMax = Long.parseLong(Files.readAllLines(Path.of("/proc/sys/net/core/rmem_max")).get(0).trim());
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInboundHandlerAdapter()).bind("127.0.0.1", 0).sync().channel();
            Channel client = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect((InetSocketAddress) server.localAddress()).sync().channel();
            StreamTuning.fixReceiveBuffer(client, 64 * 1024);
            assertThat(client.config().getOption(ChannelOption.SO_RCVBUF)).isEqualTo(64 * 1024);
            StreamTuning.fixReceiveBuffer(client, StreamTuning.ISCSI_RECEIVE_BUFFER);
            assertThat(StreamTuning.ISCSI_RECEIVE_BUFFER).isEqualTo(2 * 1024 * 1024);
            assertThat((long) client.config().getOption(ChannelOption.SO_RCVBUF))
                    .isEqualTo(Math.min(rmemMax, StreamTuning.ISCSI_RECEIVE_BUFFER));
            client.close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }
}
