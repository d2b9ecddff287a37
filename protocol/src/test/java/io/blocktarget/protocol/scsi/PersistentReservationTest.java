package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

import static io.blocktarget.protocol.scsi.Bytes.decode;
import static io.blocktarget.protocol.scsi.Bytes.encode;
import static io.blocktarget.protocol.scsi.Bytes.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** PERSISTENT RESERVE IN data (SPC-4 §6.15) and OUT parameter lists (SPC-4 §6.16.3-6.16.4). */
class PersistentReservationTest {

    private static final String NAME_HEX = "69 71 6e 2e 61"; // "iqn.a"

    @Test
    void readKeys() {
        var data = new PersistentReserveInData.ReadKeys(5, List.of(0x1122334455667788L, 1L));
        assertThat(encode(data::encode)).isEqualTo(hex("00000005 00000010 1122334455667788 0000000000000001"));
        assertThat(encode(new PersistentReserveInData.ReadKeys(0, List.of())::encode)).isEqualTo(hex("00000000 00000000"));
    }

    @Test
    void readReservation() {
        assertThat(encode(new PersistentReserveInData.ReadReservation(1, Optional.empty())::encode))
                .isEqualTo(hex("00000001 00000000"));
        var held = new PersistentReserveInData.ReadReservation(2, Optional.of(
                new PersistentReserveInData.Reservation(0xABL, PrType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY)));
        assertThat(encode(held::encode)).isEqualTo(hex("""
                00000002 00000010       # PRGENERATION, ADDITIONAL LENGTH 16
                00000000000000ab        # RESERVATION KEY
                00000000 00             # obsolete, reserved
                06                      # SCOPE LU_SCOPE, TYPE 6h
                0000
                """.replaceAll("#[^\\n]*", "")));
    }

    @Test
    void reportCapabilities() {
        var caps = new PersistentReserveInData.ReportCapabilities(false, true, true, true, false, true, 1, false,
                EnumSet.allOf(PrType.class));
        // 2: CRH|SIP_C|ATP_C = 1c; 3: TMV|ALLOW COMMANDS 001b = 90; 4: ea; 5: EX_AC_AR
        assertThat(encode(caps::encode)).isEqualTo(hex("0008 1c 90 ea 01 0000"));
        var none = new PersistentReserveInData.ReportCapabilities(true, false, false, false, true, false, 0, true,
                EnumSet.noneOf(PrType.class));
        assertThat(encode(none::encode)).isEqualTo(hex("0008 81 01 00 00 0000"));
    }

    @Test
    void readFullStatus() {
        var d1 = new PersistentReserveInData.FullStatusDescriptor(0x10, false, Optional.of(PrType.WRITE_EXCLUSIVE), 1,
                new IscsiTransportId("iqn.a", Optional.empty()));
        var d2 = new PersistentReserveInData.FullStatusDescriptor(0x20, true, Optional.empty(), 2,
                new IscsiTransportId("iqn.a", Optional.of("400001370000")));
        var data = new PersistentReserveInData.ReadFullStatus(7, List.of(d1, d2));
        assertThat(encode(data::encode)).isEqualTo(hex(("""
                00000007 00000064                   # PRGENERATION, ADDITIONAL LENGTH 48 + 52
                0000000000000010 00000000 01 01 00000000 0001 00000018   # R_HOLDER, TYPE 1, port 1, TID 24
                05 00 0014 NAME 000000 00000000 00000000 00000000   # format 00b: 5 chars + 15 zero bytes = 20
                0000000000000020 00000000 02 00 00000000 0002 0000001c   # ALL_TG_PT, TID 28
                45 00 0018 NAME 2c 69 2c 30 78 34 30 30 30 30 31 33 37 30 30 30 30 00 00   # format 01b: 22 chars + null, padded to 24
                """).replace("NAME", NAME_HEX).replaceAll("#[^\\n]*", "")));
    }

    @Test
    void transportIdRejectsBadInput() {
        assertThatThrownBy(() -> new IscsiTransportId("iqn,x", Optional.empty())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IscsiTransportId("iqn", Optional.of("12"))).isInstanceOf(IllegalArgumentException.class);
    }

    private static Parsed<PersistentReserveOutParameters> parse(String hex, PrOutServiceAction sa) {
        return decode(hex(hex), buf -> PersistentReserveOutParameters.parse(buf, sa));
    }

    @Test
    void basicParameterList() {
        // sg_persist --out --register-ignore --param-sark=0x99 --param-aptpl shape: 24 bytes
        assertThat(parse("1122334455667788 0000000000000099 00000000 05 00 0000",
                PrOutServiceAction.REGISTER_AND_IGNORE_EXISTING_KEY)).isEqualTo(Parsed.ok(
                new PersistentReserveOutParameters(0x1122334455667788L, 0x99, false, true, true, false, 0, List.of())));
    }

    @Test
    void registerWithSpecIPt() {
        String list = "0000000000000000 0000000000000abc 00000000 08 00 0000 | 00000018 | 05 00 0014 " + NAME_HEX
                + " 000000 00000000 00000000 00000000"; // 5 chars + 15 zero bytes = 20
        assertThat(parse(list, PrOutServiceAction.REGISTER)).isEqualTo(Parsed.ok(new PersistentReserveOutParameters(
                0, 0xABC, true, false, false, false, 0, List.of(new IscsiTransportId("iqn.a", Optional.empty())))));
    }

    @Test
    void registerAndMove() {
        String list = "0000000000000001 0000000000000002 00 03 0005 0000001c | 45 00 0018 " + NAME_HEX
                + " 2c 69 2c 30 78 34 30 30 30 30 31 33 37 30 30 30 30 00 00";
        assertThat(parse(list, PrOutServiceAction.REGISTER_AND_MOVE)).isEqualTo(Parsed.ok(
                new PersistentReserveOutParameters(1, 2, false, false, true, true, 5,
                        List.of(new IscsiTransportId("iqn.a", Optional.of("400001370000"))))));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = ';', textBlock = """
            # shorter than 24, or not 24 without SPEC_I_PT
            REGISTER; 0000000000000000 0000000000000000 00000000 00 00 00; PARAMETER_LIST_LENGTH_ERROR; -1; -1
            RESERVE;  0000000000000000 0000000000000000 00000000 00 00 0000 00; PARAMETER_LIST_LENGTH_ERROR; -1; -1
            # reserved flag bits
            REGISTER; 0000000000000000 0000000000000000 00000000 02 00 0000; INVALID_FIELD_IN_PARAMETER_LIST; 20; 1
            CLEAR;    0000000000000000 0000000000000000 00000000 10 00 0000; INVALID_FIELD_IN_PARAMETER_LIST; 20; 4
            # SPEC_I_PT outside REGISTER
            RESERVE;  0000000000000000 0000000000000000 00000000 08 00 0000 00000000; INVALID_FIELD_IN_PARAMETER_LIST; 20; 3
            # SPEC_I_PT without / with too long TRANSPORTID PARAMETER DATA LENGTH
            REGISTER; 0000000000000000 0000000000000000 00000000 08 00 0000; PARAMETER_LIST_LENGTH_ERROR; -1; -1
            REGISTER; 0000000000000000 0000000000000000 00000000 08 00 0000 00000018 05000014; PARAMETER_LIST_LENGTH_ERROR; -1; -1
            # TransportIDs: not iSCSI, bad format, bad additional length, no terminating null
            REGISTER; 0000000000000000 0000000000000000 00000000 08 00 0000 00000018 06 00 0014 0000000000000000000000000000000000000000; INVALID_FIELD_IN_PARAMETER_LIST; 28; 3
            REGISTER; 0000000000000000 0000000000000000 00000000 08 00 0000 00000018 85 00 0014 6900000000000000000000000000000000000000; INVALID_FIELD_IN_PARAMETER_LIST; 28; 7
            REGISTER; 0000000000000000 0000000000000000 00000000 08 00 0000 00000018 05 00 0013 69000000000000000000000000000000000000 00; INVALID_FIELD_IN_PARAMETER_LIST; 30; 7
            REGISTER; 0000000000000000 0000000000000000 00000000 08 00 0000 00000018 05 00 0014 6969696969696969696969696969696969696969; INVALID_FIELD_IN_PARAMETER_LIST; 32; 7
            REGISTER; 0000000000000000 0000000000000000 00000000 08 00 0000 00000018 05 00 0014 0000000000000000000000000000000000000000; INVALID_FIELD_IN_PARAMETER_LIST; 32; 7
            REGISTER; 0000000000000000 0000000000000000 00000000 08 00 0000 00000018 45 00 0014 6971 6e2e 6100 0000000000000000000000000000; INVALID_FIELD_IN_PARAMETER_LIST; 32; 7
            REGISTER; 0000000000000000 0000000000000000 00000000 08 00 0000 00000018 05 00 0018 6900000000000000000000000000000000000000; PARAMETER_LIST_LENGTH_ERROR; -1; -1
            # REGISTER AND MOVE: reserved byte 16, reserved flags, TransportID beyond the list
            REGISTER_AND_MOVE; 0000000000000000 0000000000000000 01 00 0001 00000000; INVALID_FIELD_IN_PARAMETER_LIST; 16; 7
            REGISTER_AND_MOVE; 0000000000000000 0000000000000000 00 04 0001 00000000; INVALID_FIELD_IN_PARAMETER_LIST; 17; 2
            REGISTER_AND_MOVE; 0000000000000000 0000000000000000 00 00 0001 00000018; PARAMETER_LIST_LENGTH_ERROR; -1; -1
            REGISTER_AND_MOVE; 0000000000000000 0000000000000000 00 00 0001 00000000; PARAMETER_LIST_LENGTH_ERROR; -1; -1
            """)
    void rejected(PrOutServiceAction sa, String hex, SenseReason reason, int field, int bit) {
        Parsed<PersistentReserveOutParameters> expected = field < 0 ? Parsed.invalid(reason)
                : Parsed.invalid(reason, FieldPointer.parameter(field, bit));
        assertThat(parse(hex, sa)).isEqualTo(expected);
    }

    @Test
    void prTypeCodes() {
        assertThat(PrType.fromCode(0x1)).contains(PrType.WRITE_EXCLUSIVE);
        assertThat(PrType.fromCode(0x8)).contains(PrType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS);
        assertThat(PrType.fromCode(0x2)).isEmpty();
        assertThat(PrType.fromCode(0x4)).isEmpty();
    }
}
