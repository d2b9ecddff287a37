/**
 * Netty plumbing shared by the TCP transports (allocator, cumulation, the per-peer log limiter); knows no protocol.
 */
package io.blocktarget.transport.tcp;
