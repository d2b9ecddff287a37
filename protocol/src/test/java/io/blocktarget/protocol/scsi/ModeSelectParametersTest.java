package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Optional;

import static io.blocktarget.protocol.scsi.Bytes.decode;
import static io.blocktarget.protocol.scsi.Bytes.hex;
import static org.assertj.core.api.Assertions.assertThat;

/** MODE SELECT parameter lists (SPC-4 §6.9): only changeable bits may differ from the current values. */
class ModeSelectParametersTest {

    static final List<ModePage> CURRENT = List.of(ModePagesTest.CACHING, ModePagesTest.CONTROL, ModePagesTest.IEC);
    static final List<ModePage> CHANGEABLE = List.of(CachingModePage.CHANGEABLE, ControlModePage.CHANGEABLE,
            InformationalExceptionsModePage.CHANGEABLE);
    static final BlockDescriptor GEOMETRY = new BlockDescriptor(0x40000, 4096);

    static final String CACHING_WCE_OFF = "08 12 00" + "00".repeat(17);
    static final String CONTROL_D_SENSE_ON = "0a 0a 04 10 00 40 0000 0000 0000";

    private static Parsed<ModeSelectParameters> parse(String hex, boolean tenByte) {
        return decode(hex(hex), buf -> ModeSelectParameters.parse(buf, tenByte, CURRENT, CHANGEABLE, GEOMETRY));
    }

    @Test
    void linuxSdTurnsWriteCacheOff() {
        // Linux sd cache_type_store: MODE SELECT(6) of the caching page with WCE cleared, no block descriptor
        assertThat(parse("00 00 00 00 " + CACHING_WCE_OFF, false)).isEqualTo(Parsed.ok(
                new ModeSelectParameters(Optional.empty(), List.of(new CachingModePage(false, false)))));
    }

    @Test
    void dSenseOnWithTenByteHeaderAndTwoPages() {
        assertThat(parse("0000 00 00 00 00 0000 " + CONTROL_D_SENSE_ON + CACHING_WCE_OFF, true)).isEqualTo(Parsed.ok(
                new ModeSelectParameters(Optional.empty(), List.of(
                        new ControlModePage(0, false, true, false, 1, 0, false, true, 0, 0),
                        new CachingModePage(false, false)))));
    }

    @Test
    void emptyListIsNoChange() {
        assertThat(parse("", false)).isEqualTo(Parsed.ok(new ModeSelectParameters(Optional.empty(), List.of())));
    }

    @Test
    void matchingBlockDescriptorsAreAccepted() {
        assertThat(parse("00 00 00 08 00040000 00 001000", false)).isEqualTo(Parsed.ok(
                new ModeSelectParameters(Optional.of(GEOMETRY), List.of())));
        assertThat(parse("00 00 00 08 00000000 00 001000", false)).isEqualTo(Parsed.ok(
                new ModeSelectParameters(Optional.of(new BlockDescriptor(0, 4096)), List.of())));
        assertThat(parse("0000 00 00 01 00 0010 0000000000040000 00000000 00001000", true)).isEqualTo(Parsed.ok(
                new ModeSelectParameters(Optional.of(GEOMETRY), List.of())));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', textBlock = """
            # header shorter than 4 / 8 bytes
            00 00 00;                                     false; PARAMETER_LIST_LENGTH_ERROR; -1; -1
            0000 00 00 00 00 00;                          true;  PARAMETER_LIST_LENGTH_ERROR; -1; -1
            # MEDIUM TYPE not 00h
            00 01 00 00;                                  false; INVALID_FIELD_IN_PARAMETER_LIST; 1; 7
            0000 02 00 00 00 0000;                        true;  INVALID_FIELD_IN_PARAMETER_LIST; 2; 7
            # BLOCK DESCRIPTOR LENGTH neither 0 nor 8 (16 with LONGLBA)
            00 00 00 04 00000000;                         false; INVALID_FIELD_IN_PARAMETER_LIST; 3; 7
            0000 00 00 00 00 0010 00000000000000000000000000000000; true; INVALID_FIELD_IN_PARAMETER_LIST; 6; 7
            # block descriptor promised, not sent
            00 00 00 08 0004;                             false; PARAMETER_LIST_LENGTH_ERROR; -1; -1
            # block descriptor asks for another capacity / block length
            00 00 00 08 00040001 00 001000;               false; INVALID_FIELD_IN_PARAMETER_LIST; 4; 7
            00 00 00 08 00040000 00 000200;               false; INVALID_FIELD_IN_PARAMETER_LIST; 9; 7
            0000 00 00 01 00 0010 0000000000040000 00000000 00000200; true; INVALID_FIELD_IN_PARAMETER_LIST; 20; 7
            # PS set, SPF set, unknown page, wrong PAGE LENGTH
            00 00 00 00 88 12 00 00000000000000000000000000000000 00; false; INVALID_FIELD_IN_PARAMETER_LIST; 4; 7
            00 00 00 00 48 12 00 00000000000000000000000000000000 00; false; INVALID_FIELD_IN_PARAMETER_LIST; 4; 6
            00 00 00 00 19 02 00 00;                      false; INVALID_FIELD_IN_PARAMETER_LIST; 4; 5
            00 00 00 00 0a 08 00 00 00 00 00 00 00 00;    false; INVALID_FIELD_IN_PARAMETER_LIST; 5; 7
            # page truncated; lone byte after the header
            00 00 00 00 0a 0a 04 10 00 40;                false; PARAMETER_LIST_LENGTH_ERROR; -1; -1
            00 00 00 00 0a;                               false; PARAMETER_LIST_LENGTH_ERROR; -1; -1
            # non-changeable bits: RCD in caching, TAS cleared / QERR set in control, IEC DEXCPT cleared
            00 00 00 00 08 12 05 00000000000000000000000000000000 00; false; INVALID_FIELD_IN_PARAMETER_LIST; 6; 0
            00 00 00 00 0a 0a 00 10 00 00 0000 0000 0000; false; INVALID_FIELD_IN_PARAMETER_LIST; 9; 6
            00 00 00 00 0a 0a 00 12 00 40 0000 0000 0000; false; INVALID_FIELD_IN_PARAMETER_LIST; 7; 1
            00 00 00 00 1c 0a 00 00 00000000 00000000;    false; INVALID_FIELD_IN_PARAMETER_LIST; 6; 3
            # second page bad: pointer is relative to the whole list
            00 00 00 00 0a 0a 04 10 00 40 0000 0000 0000 08 12 02 00000000000000000000000000000000 00; false; INVALID_FIELD_IN_PARAMETER_LIST; 18; 1
            """)
    void rejected(String hex, boolean tenByte, SenseReason reason, int field, int bit) {
        Parsed<ModeSelectParameters> expected = field < 0 ? Parsed.invalid(reason)
                : Parsed.invalid(reason, FieldPointer.parameter(field, bit));
        assertThat(parse(hex, tenByte)).isEqualTo(expected);
    }
}
