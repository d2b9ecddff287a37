package io.blocktarget.transport.nvmetcp;

import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.state.StateCounters;
import io.netty.util.collection.IntObjectHashMap;

import java.util.function.Consumer;

/**
 * The outstanding commands of one connection, at most {@code capacity} (the queue's entries: Base §4.1 "the host
 * shall not submit more commands than the queue holds"), indexed by slot (= TTAG) and by CID. There are twice as
 * many slots as commands: an aborted command whose R2T data is still draining holds its slot (TTAG) but not its
 * CID, and must not cost the host queue depth. Nothing here boxes or allocates per command but the command itself
 * (a HashMap of Integer keys cost a node per command, an ArrayDeque of Integer slots a box per slot above 127).
 */
final class CommandTable {
    private final int capacity;
    private final Command[] slots;
    /**
     * Free slots, first freed first reused (a ring of {@code freeCount} from {@code freeHead}): a TTAG is not handed
     * out again until every other free one was, so a late H2CData of a finished command rarely meets a new one.
     */
    private final int[] free;
    private int freeHead;
    private int freeCount;
    private final IntObjectHashMap<Command> byCid;

    private final StateCounters<CommandState> counters;
    /** Slots taken: commands in the table, DRAINING ones included. */
    private int taken;

    CommandTable(int capacity, StateCounters<CommandState> counters) {
        this.capacity = capacity;
        this.counters = counters;
        slots = new Command[2 * capacity];
        free = new int[slots.length];
        for (int i = 0; i < slots.length; i++) {
            free[i] = i;
        }
        freeCount = slots.length;
        byCid = new IntObjectHashMap<>(2 * capacity);
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
        return byCid.size() >= capacity || freeCount == 0;
    }

    boolean cidInUse(int cid) {
        return byCid.containsKey(cid);
    }

    /** A new command in a free slot; the caller checked {@link #isFull()} and {@link #cidInUse}. */
    Command add(Sqe sqe) {
        int slot = free[freeHead];
        freeHead = (freeHead + 1) % free.length;
        freeCount--;
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
            releaseCid(c);
            free[(freeHead + freeCount++) % free.length] = c.slot();
            taken--;
        }
    }

    /** Frees {@code c}'s CID for the host's next command while its slot (TTAG) stays taken (DRAINING). */
    void releaseCid(Command c) {
        if (byCid.get(c.cid()) == c) {
            byCid.remove(c.cid());
        }
    }

    void forEach(Consumer<Command> action) {
        for (Command c : slots) {
            if (c != null) {
                action.accept(c);
            }
        }
    }
}
