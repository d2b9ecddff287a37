package io.blocktarget.transport.nvmetcp;

import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The outstanding commands of a connection: by CID and by TTAG, the limit, DRAINING slots, TTAG reuse order. */
class CommandTableTest {
    private static Sqe read(int cid) {
        return Sqe.of(NvmOpcode.READ.code(), cid, 1, SglDescriptor.transportDataBlock(4096), 0, 0, 0);
    }

    private static CommandTable table(int capacity) {
        return new CommandTable(capacity, CommandState.MACHINE.newLoopCounters());
    }

    @Test
    void findsCommandsByCidAndTtagUntilRemoved() {
        CommandTable t = table(4);
        Command a = t.add(read(0xFFFF));
        Command b = t.add(read(7));
        assertThat(t.byCid(0xFFFF)).isSameAs(a);
        assertThat(t.byCid(7)).isSameAs(b);
        assertThat(t.byTtag(a.slot())).isSameAs(a);
        assertThat(t.cidInUse(7)).isTrue();
        assertThat(t.size()).isEqualTo(2);
        t.remove(b);
        assertThat(t.byCid(7)).isNull();
        assertThat(t.byTtag(b.slot())).isNull();
        assertThat(t.cidInUse(7)).isFalse();
        assertThat(t.size()).isEqualTo(1);
        t.remove(b);   // twice: no effect
        assertThat(t.size()).isEqualTo(1);
        assertThat(t.byTtag(Integer.MAX_VALUE)).isNull();
    }

    @Test
    void fullAtCapacityCommandsNotBefore() {
        CommandTable t = table(3);
        for (int cid = 0; cid < 2; cid++) {
            t.add(read(cid));
        }
        assertThat(t.isFull()).isFalse();   // capacity - 1
        t.add(read(2));
        assertThat(t.isFull()).isTrue();    // capacity
    }

    @Test
    void drainingCommandKeepsItsTtagButFreesItsCid() {
        CommandTable t = table(2);
        Command a = t.add(read(1));
        t.releaseCid(a);
        assertThat(t.cidInUse(1)).isFalse();
        assertThat(t.byTtag(a.slot())).isSameAs(a);
        assertThat(t.isEmpty()).isFalse();
        Command again = t.add(read(1));      // the host reuses the CID at once
        assertThat(again.slot()).isNotEqualTo(a.slot());
        t.releaseCid(a);                     // a's late release leaves the new owner of CID 1 alone
        assertThat(t.byCid(1)).isSameAs(again);
        t.remove(a);
        assertThat(t.byCid(1)).isSameAs(again);
        t.remove(again);
        assertThat(t.isEmpty()).isTrue();
    }

    @Test
    void slotsAreFullWithTwiceCapacityDrainingAndReusedOldestFirst() {
        CommandTable t = table(2);
        List<Command> draining = new ArrayList<>();
        for (int cid = 0; cid < 4; cid++) {
            Command c = t.add(read(cid));
            t.releaseCid(c);
            draining.add(c);
        }
        assertThat(t.size()).isZero();
        assertThat(t.isFull()).as("all 2 x capacity slots held by DRAINING commands").isTrue();
        Set<Integer> slots = new HashSet<>();
        draining.forEach(c -> slots.add(c.slot()));
        assertThat(slots).containsExactlyInAnyOrder(0, 1, 2, 3);
        t.remove(draining.get(2));
        t.remove(draining.get(0));
        // first freed, first reused: a late H2CData naming slot 0 does not meet the next command
        assertThat(t.add(read(9)).slot()).isEqualTo(2);
        assertThat(t.add(read(10)).slot()).isEqualTo(0);
    }
}
