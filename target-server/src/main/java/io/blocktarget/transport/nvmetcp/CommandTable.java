package io.blocktarget.transport.nvmetcp;

import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.state.StateCounters;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The outstanding commands of one connection, at most {@code capacity} (the queue's entries: Base §4.1 "the host
 * shall not submit more commands than the queue holds"), indexed by slot (= TTAG) and by CID. There are twice as
 * many slots as commands: an aborted command whose R2T data is still draining holds its slot (TTAG) but not its
 * CID, and must not cost the host queue depth.
 */
final class CommandTable {
    private final int capacity;
    private final Command[] slots;
    private final ArrayDeque<Integer> free;
    private final Map<Integer, Command> byCid = new HashMap<>();

    private final StateCounters<CommandState> counters;
    /** Slots taken: commands in the table, DRAINING ones included. */
    private int taken;

    CommandTable(int capacity, StateCounters<CommandState> counters) {
        this.capacity = capacity;
        this.counters = counters;
        slots = new Command[2 * capacity];
        free = new ArrayDeque<>(slots.length);
        for (int i = 0; i < slots.length; i++) {
            free.add(i);
        }
    }

    int capacity() {
        return capacity;
    }

    int size() {
        return byCid.size();
    }

    /** No command holds a slot (DRAINING ones included). */
    boolean isEmpty() {
        return taken == 0;
    }

    boolean isFull() {
        return byCid.size() >= capacity || free.isEmpty();
    }

    boolean cidInUse(int cid) {
        return byCid.containsKey(cid);
    }

    /** A new command in a free slot; the caller checked {@link #isFull()} and {@link #cidInUse}. */
    Command add(Sqe sqe) {
        int slot = free.poll();
        Command c = new Command(slot, sqe, counters);
        slots[slot] = c;
        taken++;
        byCid.put(sqe.cid(), c);
        return c;
    }

    /** The command owning TTAG {@code ttag}, or null. */
    Command byTtag(int ttag) {
        return ttag < slots.length ? slots[ttag] : null;
    }

    Command byCid(int cid) {
        return byCid.get(cid);
    }

    void remove(Command c) {
        if (slots[c.slot()] == c) {
            slots[c.slot()] = null;
            byCid.remove(c.cid(), c);
            free.add(c.slot());
            taken--;
        }
    }

    /** Frees {@code c}'s CID for the host's next command while its slot (TTAG) stays taken (DRAINING). */
    void releaseCid(Command c) {
        byCid.remove(c.cid(), c);
    }

    void forEach(Consumer<Command> action) {
        for (Command c : slots) {
            if (c != null) {
                action.accept(c);
            }
        }
    }
}
