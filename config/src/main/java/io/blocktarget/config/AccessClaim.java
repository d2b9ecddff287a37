package io.blocktarget.config;

import java.nio.file.Path;

/**
 * What one LUN file says about the access to a target or subsystem it shares with other files: all files exporting
 * one iSCSI target must agree on {@code access.chap}, all files exporting one NVMe subsystem on {@code access.hosts},
 * because CHAP and host lists are properties of the target / subsystem, not of a LUN.
 *
 * @param address e.g. {@code iSCSI target iqn.2026-11.io.blocktarget:a}; equal text = same target or subsystem
 * @param key     {@code access.chap} or {@code access.hosts}
 * @param file    the LUN file
 * @param line    line of the key, else of {@code access}, 0 when the file has neither
 * @param value   compared with {@code equals} (holds secrets: never printed)
 * @param shown   how the value is named in a problem, e.g. {@code CHAP user alice}; never a secret
 */
record AccessClaim(String address, String key, Path file, int line, Object value, String shown) {
    String where() {
        return line > 0 ? file + ":" + line : file.toString();
    }
}
