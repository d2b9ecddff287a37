package io.blocktarget.block.fault;

import io.blocktarget.block.IoKind;
import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every trigger and match criterion of a fault rule, deterministic (seeded generator, the test's own clock). */
class LunFaultsTest {
    private static final FaultAction FAIL = new FaultAction.Fail(FaultStatus.of(FaultStatus.Condition.MEDIUM_ERROR));
    private final ManualClock clock = new ManualClock();
    private final LunFaults faults = new LunFaults(clock);

    private static FaultCommand read(long lba, long blocks) {
        return new FaultCommand(FaultCommand.Protocol.SCSI, IoKind.READ, 0x28, lba, blocks, "iqn.a", -1);
    }

    private static FaultRule rule(String id, FaultMatch match, FaultTrigger trigger) {
        return new FaultRule(id, match, trigger, FAIL);
    }

    /** Which of {@code n} reads of LBA 0 were hit, 1-based. */
    private List<Integer> hits(int n) {
        List<Integer> hit = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            if (faults.command(read(0, 1)) != null) {
                hit.add(i);
            }
        }
        return hit;
    }

    @Test
    void noRuleIsANullSnapshot() {
        assertThat(faults.commandRules()).isFalse();
        assertThat(faults.deviceRules()).isFalse();
        assertThat(faults.command(read(0, 1))).isNull();
        faults.add(rule("a", FaultMatch.ANY, new FaultTrigger.Always()));
        assertThat(faults.commandRules()).isTrue();
        assertThat(faults.deviceRules()).isFalse();
        assertThat(faults.remove("a")).isTrue();
        assertThat(faults.commandRules()).isFalse();
        assertThat(faults.remove("a")).isFalse();
    }

    @Test
    void lbaRangeMatchesAnOverlapAtItsLimitsAndNotOneBlockOutside() {
        faults.add(rule("r", FaultMatch.ANY.withLbas(1000, 1099), new FaultTrigger.Always()));
        assertThat(faults.command(read(990, 10))).as("ends at 999").isNull();
        assertThat(faults.command(read(991, 10)).firstLba()).as("ends at 1000").isEqualTo(1000);
        assertThat(faults.command(read(1099, 1)).firstLba()).isEqualTo(1099);
        assertThat(faults.command(read(1100, 1))).as("first past the range").isNull();
        assertThat(faults.command(read(1050, 100)).firstLba()).isEqualTo(1050);
        assertThat(faults.command(new FaultCommand(FaultCommand.Protocol.SCSI, IoKind.FLUSH, 0x35, -1, 0, "iqn.a", -1)))
                .as("a command without blocks never meets a range").isNull();
        assertThat(faults.rules().getFirst().hits()).isEqualTo(3);
    }

    @Test
    void kindsOpcodesInitiatorAndQueueSelect() {
        faults.add(rule("k", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.WRITE)), new FaultTrigger.Always()));
        assertThat(faults.command(read(0, 1))).isNull();
        assertThat(faults.command(new FaultCommand(FaultCommand.Protocol.NVME, IoKind.WRITE, 1, 0, 1, "nqn.h", 1)))
                .isNotNull();
        faults.remove("k");

        // an opcode names a command of one protocol: SCSI 0x28 is not NVMe 0x28
        faults.add(rule("o", FaultMatch.ANY.withOpcodes(Set.of(0x28), Set.of()), new FaultTrigger.Always()));
        assertThat(faults.command(read(0, 1))).isNotNull();
        assertThat(faults.command(new FaultCommand(FaultCommand.Protocol.NVME, IoKind.READ, 0x28, 0, 1, "nqn.h", 1)))
                .isNull();
        faults.remove("o");

        faults.add(rule("i", FaultMatch.ANY.withInitiator("iqn.b"), new FaultTrigger.Always()));
        assertThat(faults.command(read(0, 1))).isNull();
        assertThat(faults.command(new FaultCommand(FaultCommand.Protocol.SCSI, IoKind.READ, 0x28, 0, 1, "iqn.b", -1)))
                .isNotNull();
        faults.remove("i");

        faults.add(rule("q", FaultMatch.ANY.withQueue(2), new FaultTrigger.Always()));
        assertThat(faults.command(new FaultCommand(FaultCommand.Protocol.NVME, IoKind.READ, 2, 0, 1, "nqn.h", 1)))
                .isNull();
        assertThat(faults.command(new FaultCommand(FaultCommand.Protocol.NVME, IoKind.READ, 2, 0, 1, "nqn.h", 2)))
                .isNotNull();
        assertThat(faults.command(read(0, 1))).as("SCSI has no queue").isNull();
    }

    @Test
    void firstNHitsTheFirstNOnly() {
        faults.add(rule("f", FaultMatch.ANY, new FaultTrigger.FirstN(3)));
        assertThat(hits(10)).containsExactly(1, 2, 3);
        assertThat(faults.rules().getFirst().hits()).isEqualTo(3);
        assertThat(faults.rules().getFirst().matched()).isEqualTo(10);
    }

    @Test
    void everyNthHitsMultiplesOfN() {
        faults.add(rule("e", FaultMatch.ANY, new FaultTrigger.EveryNth(4)));
        assertThat(hits(13)).containsExactly(4, 8, 12);
    }

    @Test
    void everyFirstIsEveryCommand() {
        faults.add(rule("e", FaultMatch.ANY, new FaultTrigger.EveryNth(1)));
        assertThat(hits(3)).containsExactly(1, 2, 3);
    }

    @Test
    void probabilityIsReproducibleWithItsSeed() {
        faults.add(rule("p", FaultMatch.ANY, new FaultTrigger.Probability(0.25, 42)));
        List<Integer> first = hits(400);
        faults.replace(List.of(rule("p", FaultMatch.ANY, new FaultTrigger.Probability(0.25, 42))));
        assertThat(hits(400)).as("same seed, same sequence").isEqualTo(first);
        faults.replace(List.of(rule("p", FaultMatch.ANY, new FaultTrigger.Probability(0.25, 43))));
        assertThat(hits(400)).as("another seed, another sequence").isNotEqualTo(first);
        // 400 draws at p = 0.25: 100 expected, outside 60..140 has probability < 1e-6
        assertThat(first.size()).isBetween(60, 140);
        faults.replace(List.of(rule("one", FaultMatch.ANY, new FaultTrigger.Probability(1, 0))));
        assertThat(hits(5)).containsExactly(1, 2, 3, 4, 5);
    }

    @Test
    void afterHitsFromTheGivenTimeOnSinceTheRuleWasAdded() {
        faults.add(rule("t", FaultMatch.ANY, new FaultTrigger.After(5_000)));
        clock.advanceNanos(4_999);
        assertThat(hits(1)).isEmpty();
        clock.advanceNanos(1);
        assertThat(hits(2)).containsExactly(1, 2);
    }

    @Test
    void oncePerLbaFailsEachBlockOnceThenHeals() {
        faults.add(rule("o", FaultMatch.ANY.withLbas(1000, 1099), new FaultTrigger.OncePerLba()));
        FaultHit hit = faults.command(read(990, 20));
        assertThat(hit.firstLba()).isEqualTo(1000);
        assertThat(faults.command(read(990, 20))).as("1000..1009 healed").isNull();
        assertThat(faults.command(read(1005, 10)).firstLba()).as("1010 not yet").isEqualTo(1010);
        assertThat(faults.command(read(1000, 15))).isNull();
        assertThat(faults.command(read(1050, 1)).firstLba()).isEqualTo(1050);
        assertThat(faults.command(read(1000, 100)).firstLba()).as("first block not healed").isEqualTo(1015);
        assertThat(faults.command(read(1000, 100))).as("all healed").isNull();
        assertThat(faults.rules().getFirst().hits()).isEqualTo(4);
    }

    @Test
    void firstMatchingRuleActsAndEveryMatchingRuleBeforeItCounts() {
        faults.add(rule("a", FaultMatch.ANY, new FaultTrigger.EveryNth(2)));
        faults.add(new FaultRule("b", FaultMatch.ANY, new FaultTrigger.Always(), new FaultAction.NoResponse()));
        assertThat(faults.command(read(0, 1)).rule().rule().id()).isEqualTo("b");
        assertThat(faults.command(read(0, 1)).rule().rule().id()).isEqualTo("a");
    }

    @Test
    void idsAreUniqueAndNextIdSkipsUsedOnes() {
        assertThat(faults.nextId()).isEqualTo("f1");
        faults.add(rule("f1", FaultMatch.ANY, new FaultTrigger.Always()));
        assertThatThrownBy(() -> faults.add(rule("f1", FaultMatch.ANY, new FaultTrigger.Always())))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(faults.nextId()).isEqualTo("f2");
        assertThatThrownBy(() -> rule("Bad id", FaultMatch.ANY, new FaultTrigger.Always()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void deviceLevelRulesAreKeptApartFromTheHooks() {
        faults.add(new FaultRule("c", FaultMatch.ANY, new FaultTrigger.Always(), new FaultAction.CorruptRead()));
        assertThat(faults.commandRules()).isFalse();
        assertThat(faults.deviceRules()).isTrue();
        assertThat(faults.command(read(0, 1))).isNull();
        assertThat(faults.device(FaultCommand.device(IoKind.READ, 0, 1)).action())
                .isInstanceOf(FaultAction.CorruptRead.class);
    }

    @Test
    void throttleSpreadsCommandsOverSlotsOfItsLimits() {
        ActiveRule iops = faults.add(new FaultRule("i", FaultMatch.ANY, new FaultTrigger.Always(),
                new FaultAction.Throttle(10, 0)));
        FaultAction.Throttle t = (FaultAction.Throttle) iops.rule().action();
        assertThat(iops.reserve(t, 4096, 1_000)).as("first: at once").isZero();
        assertThat(iops.reserve(t, 4096, 1_000)).as("10 IOPS: 100 ms apart").isEqualTo(100_000_000);
        assertThat(iops.reserve(t, 4096, 1_000)).isEqualTo(200_000_000);
        assertThat(iops.reserve(t, 4096, 1_000 + 300_000_000)).as("idle time is not saved up").isZero();
        assertThat(iops.reserve(t, 4096, 1_000 + 300_000_000)).isEqualTo(100_000_000);

        ActiveRule bw = faults.add(new FaultRule("b", FaultMatch.ANY, new FaultTrigger.Always(),
                new FaultAction.Throttle(0, 1 << 20)));
        FaultAction.Throttle b = (FaultAction.Throttle) bw.rule().action();
        assertThat(bw.reserve(b, 512 << 10, 0)).isZero();
        assertThat(bw.reserve(b, 512 << 10, 0)).as("1 MiB/s: 512 KiB takes 500 ms").isEqualTo(500_000_000);
        assertThat(bw.reserve(b, 0, 0)).as("no bytes, no IOPS limit: next in line").isEqualTo(1_000_000_000);
        assertThatThrownBy(() -> new FaultAction.Throttle(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void triggersRefuseNonsense() {
        assertThatThrownBy(() -> new FaultTrigger.FirstN(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FaultTrigger.EveryNth(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FaultTrigger.Probability(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FaultTrigger.Probability(1.01, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FaultMatch.ANY.withLbas(10, 9)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rulesChangeSafelyWhileCommandsEvaluate() throws Exception {
        faults.add(rule("base", FaultMatch.ANY.withLbas(0, 0), new FaultTrigger.Always()));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong baseHits = new AtomicLong();
        CountDownLatch started = new CountDownLatch(2);
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            Thread reader = new Thread(() -> {
                started.countDown();
                try {
                    while (!stop.get()) {
                        FaultHit hit = faults.command(read(0, 1));
                        // "base" is never removed and comes first: every read of LBA 0 is its hit
                        assertThat(hit).isNotNull();
                        assertThat(hit.rule().rule().id()).isEqualTo("base");
                        baseHits.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            reader.start();
            readers.add(reader);
        }
        started.await();
        for (int i = 0; i < 2000; i++) {
            faults.add(rule("x" + i, FaultMatch.ANY, new FaultTrigger.Always()));
            faults.remove("x" + i);
        }
        stop.set(true);
        for (Thread r : readers) {
            r.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(faults.rules()).hasSize(1);
        assertThat(faults.rules().getFirst().hits()).isEqualTo(baseHits.get());
    }

    @Test
    void holdsReleaseOnceBySelection() {
        List<String> released = new ArrayList<>();
        faults.holds().hold("nexus-a", 1, () -> released.add("a1"));
        faults.holds().hold("nexus-a", 2, () -> released.add("a2"));
        faults.holds().hold("nexus-b", 1, () -> released.add("b1"));
        assertThat(faults.holds().release(h -> h.owner().equals("nexus-a") && h.key().equals(2))).isEqualTo(1);
        assertThat(faults.holds().release(h -> h.owner().equals("nexus-a") && h.key().equals(2))).isZero();
        assertThat(faults.holds().release(h -> h.owner().equals("nexus-b"))).isEqualTo(1);
        assertThat(released).containsExactly("a2", "b1");
        assertThat(faults.holds().size()).isEqualTo(1);
    }
}
