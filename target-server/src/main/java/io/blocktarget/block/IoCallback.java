package io.blocktarget.block;

/**
 * Completion of one asynchronous block operation: exactly one call, with either a result
 * ({@code failure == null}) or a failure ({@code result == null}).
 *
 * <p>Threading: a RAM or null device calls back inline, before the operation method returns; a
 * file device calls back inline when its fast path finished the call, else on one of its worker
 * threads, and the caller hops back to its own event loop. A per-command object can implement this interface, so no allocation per I/O is needed.
 */
@FunctionalInterface
public interface IoCallback<T> {
    void complete(T result, BlockIoException failure);
}
