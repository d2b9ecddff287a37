package io.blocktarget.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.channel.uring.IoUringDomainSocketChannel;
import io.netty.channel.uring.IoUringServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.impl.transports.IoUringTransport;
import io.vertx.core.impl.transports.TransportInternal;
import io.vertx.core.net.ClientOptionsBase;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.spi.transport.Transport;

import java.util.concurrent.ThreadFactory;

/**
 * Vert.x's io_uring transport (event loops on Netty's IoUringIoHandler, so O_DIRECT file LUNs can submit on the
 * loop's own ring: block.file.UringFileBlockDevice) plus Unix domain sockets, which Vert.x 5.0's io_uring transport
 * refuses although Netty 4.2 has them: the control API listens on one. TCP is Vert.x's own, unchanged.
 */
final class UringTransport implements Transport {
    private final IoUringTransport tcp = new IoUringTransport();

    static io.vertx.core.transport.Transport create() {
        UringTransport transport = new UringTransport();
        return new TransportInternal("io_uring", transport.isAvailable(), transport.unavailabilityCause(), transport);
    }

    @Override
    public boolean supportsDomainSockets() {
        return true;
    }

    @Override
    public boolean supportFileRegion() {
        return tcp.supportFileRegion();
    }

    @Override
    public boolean isAvailable() {
        return tcp.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
        return tcp.unavailabilityCause();
    }

    @Override
    public java.net.SocketAddress convert(SocketAddress address) {
        return address.isDomainSocket() ? new DomainSocketAddress(address.path()) : tcp.convert(address);
    }

    @Override
    public SocketAddress convert(java.net.SocketAddress address) {
        return address instanceof DomainSocketAddress domain
                ? SocketAddress.domainSocketAddress(domain.path()) : tcp.convert(address);
    }

    @Override
    public IoHandlerFactory ioHandlerFactory() {
        return tcp.ioHandlerFactory();
    }

    @Override
    public EventLoopGroup eventLoopGroup(int type, int nThreads, ThreadFactory threadFactory, int ioRatio) {
        return tcp.eventLoopGroup(type, nThreads, threadFactory, ioRatio);
    }

    @Override
    public DatagramChannel datagramChannel() {
        return tcp.datagramChannel();
    }

    @Override
    public DatagramChannel datagramChannel(InternetProtocolFamily family) {
        return tcp.datagramChannel(family);
    }

    @Override
    public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
        return domainSocket ? IoUringDomainSocketChannel::new : tcp.channelFactory(false);
    }

    @Override
    public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
        return domainSocket ? IoUringServerDomainSocketChannel::new : tcp.serverChannelFactory(false);
    }

    @Override
    public void configure(DatagramChannel channel, DatagramSocketOptions options) {
        tcp.configure(channel, options);
    }

    @Override
    public void configure(ClientOptionsBase options, int connectTimeout, boolean domainSocket, Bootstrap bootstrap) {
        if (domainSocket) {
            Transport.super.configure(options, connectTimeout, true, bootstrap);   // no TCP options on a Unix socket
        } else {
            tcp.configure(options, connectTimeout, false, bootstrap);
        }
    }

    @Override
    public void configure(NetServerOptions options, boolean domainSocket, ServerBootstrap bootstrap) {
        if (domainSocket) {
            Transport.super.configure(options, true, bootstrap);
        } else {
            tcp.configure(options, false, bootstrap);
        }
    }
}
