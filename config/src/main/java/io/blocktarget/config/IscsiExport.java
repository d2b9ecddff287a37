package io.blocktarget.config;

import java.util.Objects;

/**
 * How a LUN is exported over iSCSI.
 *
 * @param target the target's IQN (RFC 3720 §3.2.6.3.1)
 * @param lun    the LUN number within that target, 0..16383
 */
public record IscsiExport(String target, int lun) {
    public IscsiExport {
        Objects.requireNonNull(target, "target");
    }
}
