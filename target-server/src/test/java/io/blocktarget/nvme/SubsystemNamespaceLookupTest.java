package io.blocktarget.nvme;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Subsystem#namespace}: the array of NSIDs below {@link Subsystem#DENSE_NSIDS} and the map above it answer
 * alike, and both follow attach, replace and detach.
 */
class SubsystemNamespaceLookupTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:lookup";

    private static Namespace ns(long nsid) {
        return new Namespace(new NamespaceSpec(NQN, nsid, "ns" + nsid, TestSupport.ram("ns" + nsid, 4096, 4096, 8)));
    }

    @Test
    void findsNamespacesOnBothSidesOfTheDenseLimit() {
        Namespace one = ns(1);
        Namespace last = ns(Subsystem.DENSE_NSIDS - 1);
        Namespace first = ns(Subsystem.DENSE_NSIDS);
        Namespace top = ns(0xFFFF_FFFEL);
        Subsystem s = new Subsystem(NQN, Subsystem.Kind.NVM, List.of(one, last, first, top), host -> true);
        assertThat(s.namespace(1)).isSameAs(one);
        assertThat(s.namespace(Subsystem.DENSE_NSIDS - 1)).isSameAs(last);
        assertThat(s.namespace(Subsystem.DENSE_NSIDS)).isSameAs(first);
        assertThat(s.namespace(0xFFFF_FFFEL)).isSameAs(top);
        assertThat(s.namespace(0)).isNull();
        assertThat(s.namespace(2)).isNull();
        assertThat(s.namespace(Subsystem.DENSE_NSIDS + 1)).isNull();
        assertThat(s.namespace(0xFFFF_FFFFL)).as("the broadcast NSID is no namespace").isNull();
    }

    @Test
    void followsAttachReplaceAndDetach() {
        Subsystem s = new Subsystem(NQN, Subsystem.Kind.NVM, List.of(), host -> true);
        assertThat(s.namespace(1)).isNull();
        Namespace five = ns(5);
        assertThat(s.attach(five)).isTrue();
        assertThat(s.namespace(5)).isSameAs(five);
        Namespace again = ns(5);
        assertThat(s.replace(again)).isTrue();
        assertThat(s.namespace(5)).isSameAs(again);
        Namespace high = ns(5000);
        assertThat(s.attach(high)).isTrue();
        assertThat(s.detach(5)).isSameAs(again);
        assertThat(s.namespace(5)).isNull();
        assertThat(s.namespace(5000)).isSameAs(high);
        assertThat(s.detach(5000)).isSameAs(high);
        assertThat(s.namespace(5000)).isNull();
    }
}
