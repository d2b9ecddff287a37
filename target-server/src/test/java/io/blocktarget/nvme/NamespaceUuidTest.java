package io.blocktarget.nvme;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * export.nvme.uuid: the Namespace Identification Descriptor of type 3h (Base §5.17.2.3, Figure "NIDT": 3h = UUID,
 * NIDL = 10h) carries the configured UUID in RFC 9562 byte order; without one it stays derived from the name.
 */
class NamespaceUuidTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:uuid";
    private static final UUID GIVEN = UUID.fromString("91fdba0d-f87b-4c25-b80f-db7be1418b9e");

    private static NamespaceSpec spec(long nsid, String name, Optional<UUID> uuid) {
        return new NamespaceSpec(NQN, nsid, name, new NullBlockDevice(name, new BlockGeometry(512, 512, 64), false),
                new LunState(name), uuid);
    }

    /** The NIDT 3h descriptor's 16 bytes from the CNS 03h list (walked by header, not by a fixed offset). */
    private static byte[] uuidDescriptor(TestHost host, int nsid) {
        Reply r = host.identify(0x03, nsid, 0);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] list = r.bytes();
        int at = 0;
        while (at + 4 <= list.length && list[at] != 0) {
            int type = list[at] & 0xFF;
            int length = list[at + 1] & 0xFF;
            if (type == 3) {
                assertThat(length).isEqualTo(16);
                return Arrays.copyOfRange(list, at + 4, at + 4 + 16);
            }
            at += 4 + length;
        }
        throw new AssertionError("no UUID descriptor");
    }

    @Test
    void configuredUuidIsTheDescriptor() {
        TestHost host = TestHost.enabled(NvmeTargets.create(List.of(spec(1, "given", Optional.of(GIVEN)),
                spec(2, "derived", Optional.empty())), List.of(), NvmeLimits.DEFAULT, new ManualClock()), NQN);
        assertThat(HexFormat.of().formatHex(uuidDescriptor(host, 1))).isEqualTo("91fdba0df87b4c25b80fdb7be1418b9e");
        byte[] derived = uuidDescriptor(host, 2);
        assertThat(derived[6] & 0xF0).isEqualTo(0x50); // still the name-based version 5 UUID
        assertThat(derived).isNotEqualTo(uuidDescriptor(host, 1));
        host.admin.close();
    }
}
