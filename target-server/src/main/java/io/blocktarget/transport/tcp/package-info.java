/**
 * Netty plumbing shared by the TCP transports (allocator, cumulation); knows no protocol.
 */
package io.blocktarget.transport.tcp;
