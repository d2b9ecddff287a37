package io.blocktarget.scsi;

import java.util.function.IntConsumer;

/**
 * The transport side of one I_T nexus, as task management needs it (SAM-5 §7): the transport holds the tasks it has
 * not handed to the device server yet (a write waiting for its data-out) and decides which responses go out. The
 * transport registers one per nexus with {@link ScsiTargetDevice#attach}.
 */
@FunctionalInterface
public interface NexusTasks {
    /**
     * Aborts this nexus's tasks within {@code scope}: those still waiting for data-out are dropped (their buffers
     * freed, no further data solicited), those in the device server end without a response (SAM-5 §5.6 with the
     * Control mode page's TAS = 0). May be called on any thread; {@code stopped} receives how many tasks were
     * aborted once the transport has done so, on any thread.
     */
    void abort(TaskScope scope, IntConsumer stopped);
}
