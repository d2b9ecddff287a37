package io.blocktarget.it.iscsi;

import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.transport.iscsi.Chap;
import io.blocktarget.transport.iscsi.IscsiSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.blocktarget.it.iscsi.LoopbackTarget.targetName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 14 over loopback with the Java initiator: discovery sessions need the server-wide discovery CHAP (mutual
 * too), a target with an initiator list refuses others with 0202 (RFC 7143 §11.13.5) and hides itself from their
 * SendTargets; a refused login leaves the running session's I/O alone.
 */
@Tag("loopback")
class IscsiAccessIT {
    private static final String LISTED = targetName(4096);
    private static final String STRANGER = "iqn.2026-11.org.example:stranger";
    private static final IscsiTestInitiator.ChapSecrets DISCOVERY = new IscsiTestInitiator.ChapSecrets("disc-user",
            "discovery-secret-1", "portal-user", "portal-secret-22");
    private static LoopbackTarget server;
    private static long nextIsid = 0x400000100001L;

    @BeforeAll
    static void start() throws Exception {
        server = new LoopbackTarget(IscsiSettings.defaults()
                .withInitiators(Map.of(LISTED, Set.of(IscsiTestInitiator.INITIATOR_NAME)))
                .withDiscoveryChap(Optional.of(Chap.mutual("disc-user", "discovery-secret-1", "portal-user",
                        "portal-secret-22"))));
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static synchronized IscsiTestInitiator connect() throws Exception {
        return IscsiTestInitiator.connect(server.address(), nextIsid++);
    }

    @Test
    void discoveryWithTheRightSecretsListsTheTargetsAndTheTargetProvesItself() throws Exception {
        try (IscsiTestInitiator i = connect()) {
            i.login(null, DISCOVERY); // throws unless the target's mutual CHAP_R verifies
            assertThat(i.sendTargets("All")).contains("TargetName=" + LISTED + "\n", "TargetName=" + targetName(512)
                    + "\n");
            i.logout();
        }
    }

    @Test
    void discoveryWithAWrongSecretOrNoneIsRefusedWith0201() throws Exception {
        try (IscsiTestInitiator i = connect()) {
            assertThatThrownBy(() -> i.login(null, new IscsiTestInitiator.ChapSecrets("disc-user", "wrong-secret-1",
                    null, null))).isInstanceOfSatisfying(IscsiTestInitiator.LoginRefused.class,
                    e -> assertThat(e.status).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE));
            assertThat(i.closedByTarget()).isTrue();
        }
        try (IscsiTestInitiator i = connect()) {
            assertThatThrownBy(() -> i.login(null, null)).isInstanceOfSatisfying(
                    IscsiTestInitiator.LoginRefused.class,
                    e -> assertThat(e.status).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE));
        }
    }

    @Test
    void aStrangerDoesNotSeeTheListedTargetAndIsRefusedWith0202WhileTheListedSessionRuns() throws Exception {
        try (IscsiTestInitiator good = connect()) {
            good.login(LISTED, null);
            good.clearUnitAttention();
            try (IscsiTestInitiator look = connect().as(STRANGER)) {
                look.login(null, DISCOVERY);
                String seen = look.sendTargets("All");
                assertThat(seen).doesNotContain("TargetName=" + LISTED + "\n")
                        .contains("TargetName=" + targetName(512) + "\n");
                look.logout();
            }
            try (IscsiTestInitiator bad = connect().as(STRANGER)) {
                assertThatThrownBy(() -> bad.login(LISTED, null)).isInstanceOfSatisfying(
                        IscsiTestInitiator.LoginRefused.class,
                        e -> assertThat(e.status).isEqualTo(LoginStatus.AUTHORIZATION_FAILURE));
                assertThat(bad.closedByTarget()).isTrue();
            }
            byte[] data = IscsiLoopbackIT.pattern(16 * 4096, 14);
            assertThat(good.command(0, IscsiLoopbackIT.rw16(true, 8, 16), 0, data).status()).isZero();
            IscsiTestInitiator.Result r = good.command(0, IscsiLoopbackIT.rw16(false, 8, 16), data.length, null);
            assertThat(r.status()).isZero();
            assertThat(r.data()).isEqualTo(data);
            good.logout();
        }
    }

    @Test
    void aStrangerMayLogInToATargetWithoutAList() throws Exception {
        try (IscsiTestInitiator i = connect().as(STRANGER)) {
            i.login(targetName(512), null);
            i.logout();
        }
    }
}
