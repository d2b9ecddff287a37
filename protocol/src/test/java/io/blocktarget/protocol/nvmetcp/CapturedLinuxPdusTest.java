package io.blocktarget.protocol.nvmetcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.FeatureCommand;
import io.blocktarget.protocol.nvme.FeatureValue;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.protocol.nvme.PropertyCommand;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.TestBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** PDUs captured from real Linux hosts (provenance in the resource file) decode to what the spec tables say. */
class CapturedLinuxPdusTest {
    static final String SUBNQN = "nqn.2026-11.io.blocktarget:capture";
    static final String HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:6e1c2f3a-3b1d-4c8e-9a55-1a2b3c4d5e6f";
    static final String[] HOSTS = {"linux-7.3", "linux-6.1"};

    static Map<String, byte[]> load() throws IOException {
        Map<String, byte[]> pdus = new LinkedHashMap<>();
        try (InputStream in = CapturedLinuxPdusTest.class.getResourceAsStream("/nvme/linux-host-pdus.txt")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    String[] f = line.split(" ");
                    pdus.put(f[0], TestBytes.hex(f[1]));
                }
            }
        }
        return pdus;
    }

    /** Frames (as a controller after ICReq with {@code options}) and decodes one captured PDU. */
    static NvmeTcpPdu decode(byte[] b, NvmeTcpFraming framing) throws NvmeTcpProtocolException {
        ByteBuf buf = Unpooled.wrappedBuffer(b);
        assertThat(framing.frameLength(buf)).isEqualTo(b.length);
        NvmeTcpPdu pdu = NvmeTcpPdu.decode(buf);
        assertThat(buf.readableBytes()).isZero();
        buf.release();
        return pdu;
    }

    static CapsuleCmd capsule(Map<String, byte[]> pdus, String name) throws NvmeTcpProtocolException {
        return (CapsuleCmd) decode(pdus.get(name), NvmeTcpFraming.controller(8192, 1 << 22).established(PduOptions.NONE));
    }

    @Test
    void icReqAndAdminConnect() throws Exception {
        Map<String, byte[]> pdus = load();
        for (String host : HOSTS) {
            ICReq req = (ICReq) decode(pdus.get(host + "/icreq"), NvmeTcpFraming.controller(8192, 1 << 22));
            assertThat(req).isEqualTo(new ICReq(0, 0, false, false, 0));
            CapsuleCmd cmd = capsule(pdus, host + "/connect-admin");
            ConnectCommand c = ConnectCommand.parse(cmd.sqe()).orNull();
            assertThat(c).isEqualTo(new ConnectCommand(0, 0, 0, 31, 0, 5000, SglDescriptor.inCapsule(0, 1024)));
            ConnectData d = ConnectData.parse(cmd.data()).orNull();
            assertThat(d.cntlid()).isEqualTo(ConnectData.CNTLID_DYNAMIC);
            assertThat(d.subnqn()).isEqualTo(SUBNQN);
            assertThat(d.hostnqn()).isEqualTo(HOSTNQN);
            assertThat(d.hostId()).isEqualTo(TestBytes.hex("6e1c2f3a3b1d4c8e9a551a2b3c4d5e6f"));
            assertThat(c.dptr().validate(ConnectData.SIZE, cmd.data().readableBytes()))
                    .isEqualTo(io.blocktarget.protocol.nvme.NvmeStatus.SUCCESS);
            cmd.release();
            CapsuleCmd io = capsule(pdus, host + "/connect-io");
            ConnectCommand ioc = ConnectCommand.parse(io.sqe()).orNull();
            assertThat(ioc.qid()).isEqualTo(1);
            assertThat(ioc.queueEntries()).isEqualTo(128);
            assertThat(ioc.kato()).isZero();
            io.release();
        }
    }

    @Test
    void withDigests() throws Exception {
        Map<String, byte[]> pdus = load();
        ICReq req = (ICReq) decode(pdus.get("linux-6.1-digests/icreq"), NvmeTcpFraming.controller(8192, 1 << 22));
        assertThat(req).isEqualTo(new ICReq(0, 0, true, true, 0));
        NvmeTcpFraming f = NvmeTcpFraming.controller(8192, 1 << 22).established(new PduOptions(true, true, 0));
        CapsuleCmd cmd = (CapsuleCmd) decode(pdus.get("linux-6.1-digests/connect-admin"), f);
        assertThat(cmd.data().readableBytes()).isEqualTo(1024);
        assertThat(ConnectData.parse(cmd.data()).orNull().subnqn()).isEqualTo(SUBNQN);
        cmd.release();
        byte[] corrupt = pdus.get("linux-6.1-digests/connect-admin").clone();
        corrupt[500] ^= 1; // inside the Connect data: data digest must catch it
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> NvmeTcpPdu.decode(Unpooled.wrappedBuffer(corrupt)))
                .isInstanceOfSatisfying(NvmeTcpProtocolException.class,
                        e -> assertThat(e.reason()).isEqualTo(NvmeTcpFatalError.DATA_DIGEST_ERROR));
    }

    @Test
    void propertiesAndAdminCommands() throws Exception {
        Map<String, byte[]> pdus = load();
        for (String host : HOSTS) {
            PropertyCommand cap = PropertyCommand.parse(capsule(pdus, host + "/property-get-cap").sqe()).orNull();
            assertThat(cap.register()).isEqualTo(ControllerRegister.CAP);
            PropertyCommand en = PropertyCommand.parse(capsule(pdus, host + "/property-set-cc-enable").sqe()).orNull();
            assertThat(ControllerRegister.Cc.decode((int) en.value()))
                    .isEqualTo(new ControllerRegister.Cc(true, 0, 0, 0, 0, 6, 4));
            PropertyCommand shn = PropertyCommand.parse(capsule(pdus, host + "/property-set-cc-shutdown").sqe()).orNull();
            assertThat(ControllerRegister.Cc.decode((int) shn.value()).shn()).isEqualTo(ControllerRegister.Cc.SHN_NORMAL);
            for (int cns : new int[] {0, 1, 2, 3, 6}) {
                IdentifyCommand id = IdentifyCommand.parse(capsule(pdus, host + "/identify-cns-" + cns).sqe()).orNull();
                assertThat(id.cns()).isEqualTo(cns);
                assertThat(id.csi()).isEqualTo(IdentifyCommand.CSI_NVM);
                assertThat(id.dptr()).isEqualTo(SglDescriptor.transportDataBlock(4096));
            }
            GetLogPageCommand effects = GetLogPageCommand.parse(capsule(pdus, host + "/get-log-page-effects").sqe()).orNull();
            assertThat(effects.lid()).isEqualTo(GetLogPageCommand.LID_COMMANDS_SUPPORTED_AND_EFFECTS);
            assertThat(effects.lengthBytes()).isEqualTo(4096);
            GetLogPageCommand smart = GetLogPageCommand.parse(capsule(pdus, host + "/get-log-page-smart").sqe()).orNull();
            assertThat(smart.lid()).isEqualTo(GetLogPageCommand.LID_SMART_HEALTH);
            assertThat(smart.nsid()).isEqualTo(0xFFFF_FFFF);
            assertThat(smart.lengthBytes()).isEqualTo(512);
            FeatureCommand nq = FeatureCommand.parse(capsule(pdus, host + "/set-features-number-of-queues").sqe()).orNull();
            assertThat(nq.value().orNull()).isEqualTo(new FeatureValue.NumberOfQueues(0, 0));
            assertThat(capsule(pdus, host + "/keep-alive").sqe().opcode()).isEqualTo(0x18);
        }
        // 7.3 also asks for the I/O Command Set independent (08h) and NVM specific (05h) namespace structures
        assertThat(IdentifyCommand.parse(capsule(pdus, "linux-7.3/identify-cns-8").sqe()).orNull().nsid()).isEqualTo(1);
        assertThat(IdentifyCommand.parse(capsule(pdus, "linux-7.3/identify-cns-5").sqe()).orNull().csi())
                .isEqualTo(IdentifyCommand.CSI_NVM);
    }

    @Test
    void read() throws Exception {
        Map<String, byte[]> pdus = load();
        for (String host : HOSTS) {
            ReadWriteCommand r = ReadWriteCommand.parse(capsule(pdus, host + "/read").sqe()).orNull();
            assertThat(r.nsid()).isEqualTo(1);
            assertThat(r.slba()).isEqualTo(3);
            assertThat(r.blocks()).isEqualTo(1);
            assertThat(r.validate(256, 4096, 128 * 1024, 0)).isEqualTo(io.blocktarget.protocol.nvme.NvmeStatus.SUCCESS);
        }
    }
}
