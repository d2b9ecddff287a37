package io.blocktarget.protocol.scsi;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.EnumSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CDB USAGE DATA we report (REPORT SUPPORTED OPERATION CODES) must tell the truth about the
 * parser: flipping a bit marked used changes the outcome; flipping a bit marked unused either
 * changes nothing or is rejected as INVALID FIELD IN CDB pointing at exactly that bit (a checked
 * reserved bit).
 */
class CdbUsageDataTest {

    /** Persistent reserve OUT service actions whose TYPE the parser requires. */
    private static final Set<ScsiOpcode> PR_OUT_WITH_TYPE = EnumSet.of(ScsiOpcode.PERSISTENT_RESERVE_OUT_RESERVE,
            ScsiOpcode.PERSISTENT_RESERVE_OUT_RELEASE, ScsiOpcode.PERSISTENT_RESERVE_OUT_PREEMPT,
            ScsiOpcode.PERSISTENT_RESERVE_OUT_PREEMPT_AND_ABORT, ScsiOpcode.PERSISTENT_RESERVE_OUT_REGISTER_AND_MOVE);

    private static byte[] baseCdb(ScsiOpcode op) {
        byte[] cdb = new byte[op.cdbLength()];
        cdb[0] = (byte) op.code();
        if (op.hasServiceAction()) {
            cdb[1] = (byte) op.serviceAction();
        }
        if (op == ScsiOpcode.MODE_SELECT_6 || op == ScsiOpcode.MODE_SELECT_10) {
            cdb[1] = 0x10; // PF
        }
        if (PR_OUT_WITH_TYPE.contains(op)) {
            cdb[2] = (byte) PrType.WRITE_EXCLUSIVE.code();
        }
        return cdb;
    }

    private static Cdb parse(byte[] cdb) {
        return Bytes.decode(cdb, Cdb::parse);
    }

    @ParameterizedTest
    @EnumSource(ScsiOpcode.class)
    void usageDataMatchesParser(ScsiOpcode op) {
        byte[] base = baseCdb(op);
        Cdb baseResult = parse(base);
        assertThat(baseResult).isNotInstanceOf(CdbError.class);
        byte[] usage = op.cdbUsageData();
        for (int i = 1; i < base.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                if (i == 1 && op.hasServiceAction() && bit <= 4) {
                    continue; // the service action itself, not a usage bitmap
                }
                byte[] flipped = base.clone();
                flipped[i] ^= (byte) (1 << bit);
                Cdb result = parse(flipped);
                String where = op + " byte " + i + " bit " + bit;
                if ((usage[i] & (1 << bit)) != 0) {
                    assertThat(result).as(where).isNotEqualTo(baseResult);
                } else {
                    assertThat(result).as(where).isIn(baseResult, CdbError.invalidField(i, bit));
                }
            }
        }
    }
}
