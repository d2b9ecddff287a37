package io.blocktarget.scsi;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The task set of one logical unit (SAM-5 §4.6.2, §8): the tasks the device server is executing, from every I_T
 * nexus (TST = 000b). Task management aborts tasks here and learns when they have stopped: a task that has reached
 * the backend cannot be called back, so an abort waits for its I/O to end and only then reports it gone — a write
 * must not land after FUNCTION COMPLETE. Shared by sessions on different event loops; one concurrent map entry per
 * command in flight.
 */
final class TaskSet {
    /** Runs when a task leaves the set; NONE until an abort waits for it. */
    private record Exits(List<Runnable> hooks) {
        static final Exits NONE = new Exits(List.of());

        Exits with(Runnable hook) {
            List<Runnable> more = new ArrayList<>(hooks);
            more.add(hook);
            return new Exits(more);
        }
    }

    private final ConcurrentHashMap<Task, Exits> running = new ConcurrentHashMap<>();

    void enter(Task task) {
        running.put(task, Exits.NONE);
    }

    /** The task has completed (its response handed to the transport): it is gone. */
    void exit(Task task) {
        Exits exits = running.remove(task);
        if (exits != null && exits != Exits.NONE) {   // NONE, nearly always: no iterator over its empty list
            exits.hooks().forEach(Runnable::run);
        }
    }

    int size() {
        return running.size();
    }

    /**
     * Aborts the tasks {@code which} selects: {@code stopped} runs once each of them has left the set (at once when
     * none is there), and receives the nexuses they came from. Tasks entering meanwhile arrived after the function and
     * are not affected.
     */
    void abort(Predicate<Task> which, java.util.function.Consumer<Set<ItNexus>> stopped) {
        List<Task> victims = new ArrayList<>();
        for (Task t : running.keySet()) {
            if (which.test(t)) {
                victims.add(t);
            }
        }
        Set<ItNexus> nexuses = ConcurrentHashMap.newKeySet();
        victims.forEach(t -> nexuses.add(t.nexus()));
        Countdown countdown = new Countdown(victims.size() + 1, () -> stopped.accept(nexuses));
        for (Task t : victims) {
            if (running.computeIfPresent(t, (k, e) -> e.with(countdown::arrive)) == null) {
                countdown.arrive(); // completed between the scan and now
            }
        }
        countdown.arrive();
    }
}
