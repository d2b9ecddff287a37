package io.blocktarget.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class IgnoredSignalsTest {
    @Test
    void aBackgroundJobOfAShellWithoutJobControlIgnoresSighupSigintAndSigquit() {
        // /proc/self/status of `(nohup bash -c 'cat /proc/self/status' &)`: SIGHUP, SIGINT, SIGQUIT ignored
        String status = "Name:\tcat\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000007\nSigCgt:\t0000000000000000\n";
        assertThat(IgnoredSignals.parse(status)).containsExactly("SIGHUP", "SIGINT");
    }

    @Test
    void sigtermIsBit14AndNothingIgnoredIsEmpty() {
        assertThat(IgnoredSignals.parse("SigIgn:\t0000000000004000\n")).containsExactly("SIGTERM");
        assertThat(IgnoredSignals.parse("SigIgn:\t0000000000002000\n")).as("SIGPIPE (13) is not ours").isEmpty();
        assertThat(IgnoredSignals.parse("SigIgn:\t0000000000000000\n")).isEmpty();
        assertThat(IgnoredSignals.parse("Name:\tjava\n")).as("no SigIgn line").isEmpty();
    }
}
