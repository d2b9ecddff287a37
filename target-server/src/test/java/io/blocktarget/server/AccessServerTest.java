package io.blocktarget.server;

import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.FrameLimits;
import io.blocktarget.protocol.iscsi.IscsiFraming;
import io.blocktarget.protocol.iscsi.LoginFlags;
import io.blocktarget.protocol.iscsi.LoginRequest;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginStage;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.PduSource;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.CqeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvmetcp.CapsuleCmd;
import io.blocktarget.protocol.nvmetcp.CapsuleResp;
import io.blocktarget.protocol.nvmetcp.ICReq;
import io.blocktarget.protocol.nvmetcp.ICResp;
import io.blocktarget.protocol.nvmetcp.NvmeTcpFraming;
import io.blocktarget.protocol.nvmetcp.NvmeTcpHeader;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.NvmeTcpProtocolException;
import io.blocktarget.protocol.nvmetcp.PduOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code access:} from a config directory to the wire: the server started from files refuses an iSCSI login
 * without CHAP, accepts one with the right (mutual) CHAP response, and refuses NVMe Connects from hosts not listed.
 */
@Tag("loopback")
class AccessServerTest {
    private static final String TARGET = "iqn.2026-11.io.blocktarget:secure";
    private static final String SUBSYSTEM = "nqn.2026-11.io.blocktarget:secure";
    private static final String ALLOWED_HOST = "nqn.2026-11.com.example:allowed";
    private static final String OTHER_HOST = "nqn.2026-11.com.example:other";
    private static final String INITIATOR = "iqn.2026-11.com.example:initiator";
    private static final String SECRET = "alice-secret-1";
    private static final String MUTUAL_SECRET = "target1-secret-2";
    /** A non-zero HOSTID (a zero one is Connect Invalid Parameters). */
    private static final byte[] HOST_ID = HexFormat.of().parseHex("6e1c2f3a3b1d4c8e9a551a2b3c4d5e6f");
    /** ISID type 10b (random, RFC 7143 §11.12.5). */
    private static final long ISID = 0x80_0000_0001L;

    @TempDir
    Path dir;
    private TargetServer server;
    private int iscsiPort;
    private int nvmePort;

    @BeforeEach
    void start() throws Exception {
        iscsiPort = freePort();
        nvmePort = freePort();
        Files.writeString(dir.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: " + iscsiPort
                + "\nnvme-port: " + nvmePort + "\ndiscovery-port: 0\nmemory-budget: 64MiB\n");
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("luns.d/secure.yaml"), """
                backend: ram
                size: 1MiB
                access:
                  chap: { user: alice, secret-file: alice.secret, mutual-user: target1, mutual-secret-file: target1.secret }
                  hosts: [%s]
                """.formatted(ALLOWED_HOST));
        secret("alice.secret", SECRET + "\n");
        secret("target1.secret", MUTUAL_SECRET + "\n");
        BlocktargetConfig config = ConfigLoader.load(dir);
        assertThat(config.warnings()).isEmpty();
        server = new TargetServer(config);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    private void secret(String name, String content) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    // ---- iSCSI ----------------------------------------------------------------------------------------------

    @Test
    void iscsiLoginWithoutChapIsRefusedWithAuthenticationFailure() throws Exception {
        try (IscsiLogin login = new IscsiLogin(iscsiPort)) {
            LoginResponse r = login.step(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                    "InitiatorName", INITIATOR, "TargetName", TARGET, "SessionType", "Normal", "AuthMethod", "None");
            assertThat(r.status().statusClass()).isEqualTo(2); // initiator error (RFC 7143 §11.13.5)
            assertThat(r.status()).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE); // 0201
            r.release();
        }
    }

    @Test
    void iscsiLoginWithTheRightMutualChapSucceeds() throws Exception {
        try (IscsiLogin login = new IscsiLogin(iscsiPort)) {
            LoginResponse r1 = login.step(false, LoginStage.SECURITY_NEGOTIATION,
                    "InitiatorName", INITIATOR, "TargetName", TARGET, "SessionType", "Normal", "AuthMethod", "CHAP,None");
            assertThat(r1.status()).isEqualTo(LoginStatus.SUCCESS);
            assertThat(keys(r1).get("AuthMethod")).contains("CHAP");
            r1.release();

            LoginResponse r2 = login.step(false, LoginStage.SECURITY_NEGOTIATION, "CHAP_A", "5");
            TextParameters challenge = keys(r2);
            r2.release();
            assertThat(challenge.get("CHAP_A")).contains("5");
            int id = Integer.parseInt(challenge.get("CHAP_I").orElseThrow());
            byte[] c = HexFormat.of().parseHex(challenge.get("CHAP_C").orElseThrow().substring(2));

            byte[] ours = HexFormat.of().parseHex("00112233445566778899aabbccddeeff");
            LoginResponse r3 = login.step(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                    "CHAP_N", "alice", "CHAP_R", "0x" + HexFormat.of().formatHex(md5(id, SECRET, c)),
                    "CHAP_I", "77", "CHAP_C", "0x" + HexFormat.of().formatHex(ours));
            assertThat(r3.status()).isEqualTo(LoginStatus.SUCCESS);
            assertThat(r3.flags().transit()).isTrue();
            TextParameters answer = keys(r3);
            r3.release();
            // mutual CHAP: the target proves it knows target1's secret (RFC 1994 §4.1 response to our challenge)
            assertThat(answer.get("CHAP_N")).contains("target1");
            assertThat(answer.get("CHAP_R")).contains("0x" + HexFormat.of().formatHex(md5(77, MUTUAL_SECRET, ours)));

            LoginResponse r4 = login.step(true, LoginStage.FULL_FEATURE_PHASE, "HeaderDigest", "None",
                    "DataDigest", "None");
            assertThat(r4.status()).isEqualTo(LoginStatus.SUCCESS);
            assertThat(r4.flags().nsg()).isEqualTo(LoginStage.FULL_FEATURE_PHASE);
            assertThat(r4.tsih()).isNotZero();
            r4.release();
        }
    }

    @Test
    void iscsiLoginWithAWrongSecretIsRefused() throws Exception {
        try (IscsiLogin login = new IscsiLogin(iscsiPort)) {
            login.step(false, LoginStage.SECURITY_NEGOTIATION, "InitiatorName", INITIATOR, "TargetName", TARGET,
                    "AuthMethod", "CHAP").release();
            LoginResponse r2 = login.step(false, LoginStage.SECURITY_NEGOTIATION, "CHAP_A", "5");
            TextParameters challenge = keys(r2);
            r2.release();
            byte[] c = HexFormat.of().parseHex(challenge.get("CHAP_C").orElseThrow().substring(2));
            int id = Integer.parseInt(challenge.get("CHAP_I").orElseThrow());
            LoginResponse r3 = login.step(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                    "CHAP_N", "alice", "CHAP_R", "0x" + HexFormat.of().formatHex(md5(id, MUTUAL_SECRET, c)));
            assertThat(r3.status()).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE);
            r3.release();
        }
    }

    /** RFC 1994 §4.1 with MD5: MD5(identifier || secret || challenge), computed here independently of the target. */
    private static byte[] md5(int identifier, String secret, byte[] challenge) throws Exception {
        MessageDigest md = MessageDigest.getInstance("MD5");
        md.update((byte) identifier);
        md.update(secret.getBytes(StandardCharsets.UTF_8));
        md.update(challenge);
        return md.digest();
    }

    private static TextParameters keys(LoginResponse r) {
        return TextParameters.decode(r.data());
    }

    /** A blocking, digest-free login conversation on one connection (RFC 7143 §6.3, §11.12). */
    private static final class IscsiLogin implements AutoCloseable {
        private final Socket socket;
        private final DataInputStream in;
        private int cmdSN = 1;
        private int expStatSN;
        private LoginStage stage = LoginStage.SECURITY_NEGOTIATION;

        IscsiLogin(int port) throws IOException {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setSoTimeout(15_000);
            in = new DataInputStream(socket.getInputStream());
        }

        /** One Login Request in the current stage; the next one starts in the stage the response moved to. */
        LoginResponse step(boolean transit, LoginStage nsg, String... keys) throws IOException {
            ByteBuf data = Unpooled.buffer();
            TextParameters.of(keys).encode(data);
            LoginRequest request = new LoginRequest(new LoginFlags(transit, false, stage, transit ? nsg : stage), 0, 0,
                    ISID, 0, 1, 0, cmdSN, expStatSN, data);
            ByteBuf wire = Unpooled.buffer();
            try {
                IscsiFraming.encode(request, wire, Digest.NONE, Digest.NONE);
                socket.getOutputStream().write(ByteBufs.bytes(wire));
            } finally {
                request.release();
                wire.release();
            }
            byte[] bhs = in.readNBytes(Bhs.LENGTH);
            assertThat(bhs).as("a Login Response before the close").hasSize(Bhs.LENGTH);
            FrameLimits limits = FrameLimits.loginFrom(PduSource.TARGET);
            ByteBuf header = Unpooled.wrappedBuffer(bhs);
            byte[] frame = new byte[IscsiFraming.layout(header, limits).totalLength()];
            header.release();
            System.arraycopy(bhs, 0, frame, 0, bhs.length);
            in.readFully(frame, bhs.length, frame.length - bhs.length);
            ByteBuf received = Unpooled.wrappedBuffer(frame);
            LoginResponse response;
            try {
                response = (LoginResponse) IscsiFraming.decode(received, limits);
            } finally {
                received.release();
            }
            expStatSN = response.statSN() + 1;
            if (response.flags().transit()) {
                stage = response.flags().nsg();
            }
            return response;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    // ---- NVMe/TCP -------------------------------------------------------------------------------------------

    @Test
    void nvmeConnectFromAHostNotListedIsRefused() throws Exception {
        CqeStatus refused = adminConnect(OTHER_HOST);
        // Connect Invalid Host: SCT 1 (command specific), SC 84h, DNR (NVMe over Fabrics §3.3.1, Figure 21)
        assertThat(refused.sct()).isEqualTo(1);
        assertThat(refused.sc()).isEqualTo(0x84);
        assertThat(refused.dnr()).isTrue();
        assertThat(adminConnect(ALLOWED_HOST).isSuccess()).isTrue();
    }

    /** ICReq/ICResp, then a Connect for the admin queue of {@link #SUBSYSTEM} from {@code hostNqn}. */
    private CqeStatus adminConnect(String hostNqn) throws IOException, NvmeTcpProtocolException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), nvmePort)) {
            socket.setSoTimeout(15_000);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            write(socket, new ICReq(ICReq.PFV_1_0, 0, false, false, 0), PduOptions.NONE);
            NvmeTcpFraming framing = NvmeTcpFraming.host(1 << 20);
            ICResp icResp = (ICResp) read(in, framing);
            PduOptions options = icResp.hostSendOptions();

            ByteBuf data = Unpooled.buffer(ConnectData.SIZE);
            new ConnectData(HOST_ID, ConnectData.CNTLID_DYNAMIC, SUBSYSTEM, hostNqn).encode(data);
            ConnectCommand connect = new ConnectCommand(1, 0, 0, 31, 0, 120_000,
                    SglDescriptor.inCapsule(0, ConnectData.SIZE));
            write(socket, new CapsuleCmd(connect.toSqe(), data), options);
            data.release();
            CapsuleResp resp = (CapsuleResp) read(in, framing.established(new PduOptions(false, false, 0)));
            assertThat(resp.cqe().cid()).isEqualTo(1);
            return resp.cqe().status();
        }
    }

    private static void write(Socket socket, NvmeTcpPdu pdu, PduOptions options) throws IOException {
        ByteBuf wire = Unpooled.buffer();
        try {
            pdu.encode(wire, options);
            socket.getOutputStream().write(ByteBufs.bytes(wire));
        } finally {
            wire.release();
        }
    }

    private static NvmeTcpPdu read(DataInputStream in, NvmeTcpFraming framing)
            throws IOException, NvmeTcpProtocolException {
        byte[] header = new byte[NvmeTcpHeader.SIZE];
        in.readFully(header);
        byte[] frame = new byte[framing.frameLength(Unpooled.wrappedBuffer(header))];
        System.arraycopy(header, 0, frame, 0, header.length);
        in.readFully(frame, header.length, frame.length - header.length);
        return NvmeTcpPdu.decode(Unpooled.wrappedBuffer(frame));
    }

    private static final class ByteBufs {
        static byte[] bytes(ByteBuf buf) {
            byte[] bytes = new byte[buf.readableBytes()];
            buf.getBytes(buf.readerIndex(), bytes);
            return bytes;
        }
    }
}
