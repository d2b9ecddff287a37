package io.blocktarget.config;

import static io.blocktarget.config.ChangeRule.IN_PLACE;
import static io.blocktarget.config.ChangeRule.RESTART;
import static io.blocktarget.config.Key.keys;

import java.net.Inet6Address;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Every key of {@code blocktarget.yaml}, declared once ({@link Key}). Listeners, threading and the control API's
 * endpoints take effect at the next start ({@link ChangeRule#RESTART}); the memory budget, the name prefixes (their
 * effect shows as the LUNs' derived exports) and discovery CHAP apply to the running server.
 */
public final class ServerKeys {
    private ServerKeys() {
    }

    static final String PORT_ALLOWED = "0..65535 (0 disables the listener)";
    static final ValueType<Long> PORT_TYPE = ValueType.integer(0, 65535, PORT_ALLOWED);
    /** Longer windows buy nothing: a host that waits more than 10 ms between commands is idle, not latency-bound. */
    static final long MAX_POLL_WINDOW_NANOS = 10_000_000;
    static final String POLL_WINDOW_ALLOWED = "auto, or a duration from 0 to 10ms with ns, us, ms or s, e.g. 100us"
            + " (0: sleep at once); not with poll: true";
    static final String POLL_WINDOW_AUTO = "auto";
    static final ValueType<Long> POLL_WINDOW_TYPE = ValueType.text("a duration", POLL_WINDOW_ALLOWED, text -> {
        if (POLL_WINDOW_AUTO.equals(text.strip())) {
            return ServerConfig.POLL_WINDOW_AUTO;
        }
        if ("0".equals(text.strip())) {   // no window: a bare 0 needs no unit
            return 0L;
        }
        long nanos;
        try {
            nanos = FaultReader.parseDuration(text);
        } catch (InvalidValue e) {
            throw new InvalidValue(e.what(), POLL_WINDOW_ALLOWED);
        }
        if (nanos > MAX_POLL_WINDOW_NANOS) {
            throw new InvalidValue(text + " is longer than 10ms", POLL_WINDOW_ALLOWED);
        }
        return nanos;
    }).withSchema(ValueType.schema("type", "string", "pattern",
            "^ *(auto|0) *$|" + FaultKeys.DURATION_TEXT));
    private static final Pattern IPV4 = Pattern.compile(
            "(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");
    static final String BIND_ALLOWED = "an IPv4 or IPv6 address literal, e.g. 0.0.0.0, 127.0.0.1, :: or ::1"
            + " (no host names)";
    static final ValueType<String> BIND_TYPE = ValueType.text("an IP address", BIND_ALLOWED, ServerKeys::ipLiteral)
            .withSchema(ValueType.schema("type", "string",
                    "pattern", "^(" + IPV4.pattern() + "|[^\\[\\]]*:[^\\[\\]]*)$"));
    static final String BUDGET_ALLOWED = "a size greater than 0; " + Sizes.ALLOWED;
    static final ValueType<Long> BUDGET_TYPE = ValueType.text("a size", BUDGET_ALLOWED, text -> {
        long bytes = Sizes.parse(text);
        if (bytes <= 0) {
            throw new InvalidValue(text + " is not greater than 0", BUDGET_ALLOWED);
        }
        return bytes;
    }).withSchema(ValueType.schema("type", List.of("integer", "string"), "minimum", 1, "pattern", Sizes.SIZE_TEXT));
    static final String IQN_PREFIX_ALLOWED = "a prefix ending in ':' or '.' that makes an iSCSI name"
            + " when the LUN name is appended, e.g. " + ServerConfig.DEFAULT_IQN_PREFIX;
    static final String NQN_PREFIX_ALLOWED = "a prefix ending in ':' or '.' that makes an NQN"
            + " when the LUN name is appended, e.g. " + ServerConfig.DEFAULT_NQN_PREFIX;
    static final ValueType<String> IQN_PREFIX_TYPE = prefix(IQN_PREFIX_ALLOWED, Names::iqn);
    static final ValueType<String> NQN_PREFIX_TYPE = prefix(NQN_PREFIX_ALLOWED, Names::nqn);
    static final String SOCKET_ALLOWED = "off, or the path of the control API's Unix domain socket"
            + " (absolute, or relative to the config directory)";
    static final String LISTEN_ALLOWED = "ADDRESS:PORT with an IP address literal and a port 1..65535, e.g."
            + " 127.0.0.1:9740 or [::1]:9740; needs control-token-file";
    static final ValueType<ControlConfig.Listen> LISTEN_TYPE = ValueType.text("an address and port", LISTEN_ALLOWED,
            ServerKeys::listen).withSchema(ValueType.schema("type", "string", "pattern", "^.+:[0-9]{1,5}$"));
    static final String TOKEN_ALLOWED = "a regular file holding the bearer token: 16 to 4096 characters of A-Z a-z 0-9"
            + " - . _ ~ + / with optional trailing = (RFC 6750 §2.1), one trailing newline ignored, e.g. made by"
            + " head -c 32 /dev/urandom | base64 > FILE";

    // ---- the keys

    public static final Key<String> BIND = Key.value("bind", BIND_TYPE)
            .defaults(ServerConfig.DEFAULT_BIND_ADDRESS, ServerConfig.DEFAULT_BIND_ADDRESS).rule(RESTART)
            .doc("the IP address every listener binds to (with portals: the discovery-port's only)")
            .example("127.0.0.1");
    public static final Key<Long> ISCSI_PORT = Key.value("iscsi-port", PORT_TYPE)
            .defaults((long) ServerConfig.DEFAULT_ISCSI_PORT, "" + ServerConfig.DEFAULT_ISCSI_PORT).rule(RESTART)
            .doc("the iSCSI portal's port; 0 = no iSCSI listener").example(3260);
    public static final Key<Long> NVME_PORT = Key.value("nvme-port", PORT_TYPE)
            .defaults((long) ServerConfig.DEFAULT_NVME_PORT, "" + ServerConfig.DEFAULT_NVME_PORT).rule(RESTART)
            .doc("the NVMe/TCP I/O port (it also answers discovery, NVMe/TCP §3.1); 0 = off").example(4420);
    public static final Key<Long> DISCOVERY_PORT = Key.value("discovery-port", PORT_TYPE)
            .defaults((long) ServerConfig.DEFAULT_DISCOVERY_PORT, "" + ServerConfig.DEFAULT_DISCOVERY_PORT)
            .rule(RESTART)
            .doc("the NVMe/TCP discovery-only port; 0 = off; two listeners may not share a port").example(8009);
    public static final Key<Long> MEMORY_BUDGET = Key.value("memory-budget", BUDGET_TYPE)
            .defaultText("half of physical memory (of the container's limit, where the JVM sees one)").rule(IN_PLACE)
            .doc("bytes all RAM disks together may allocate (they are thin: writes beyond it fail with out-of-space)")
            .example("8GiB");
    public static final Key<String> IQN_PREFIX = Key.value("iqn-prefix", IQN_PREFIX_TYPE)
            .defaults(ServerConfig.DEFAULT_IQN_PREFIX, ServerConfig.DEFAULT_IQN_PREFIX).rule(IN_PLACE)
            .doc("a LUN's default target IQN is this prefix + its name (a change re-exports such LUNs)")
            .example(ServerConfig.DEFAULT_IQN_PREFIX);
    public static final Key<String> NQN_PREFIX = Key.value("nqn-prefix", NQN_PREFIX_TYPE)
            .defaults(ServerConfig.DEFAULT_NQN_PREFIX, ServerConfig.DEFAULT_NQN_PREFIX).rule(IN_PLACE)
            .doc("a LUN's default subsystem NQN is this prefix + its name (a change re-exports such LUNs)")
            .example(ServerConfig.DEFAULT_NQN_PREFIX);
    public static final Key<Long> EVENT_LOOPS = Key.value("event-loops", ValueType.integer(0, 1024,
                    "0..1024 (0: one per CPU the process may use)"))
            .defaults(0L, "0 (one per CPU the process may use)").rule(RESTART)
            .doc("threads serving connections (each connection stays on one)").example(2);
    public static final Key<Boolean> POLL = Key.value("poll", ValueType.BOOLEAN).defaults(false, "false").rule(RESTART)
            .doc("the event loops spin on epoll_wait instead of sleeping, like SPDK's reactors: lowest latency, one"
                    + " fully busy core per event loop at any load (pin the server and set event-loops to its cores)")
            .example(true);
    public static final Key<Long> POLL_WINDOW = Key.value("poll-window", POLL_WINDOW_TYPE)
            .defaults(ServerConfig.POLL_WINDOW_AUTO, "auto (adaptive)").rule(RESTART)
            .doc("hybrid polling: after its last work an event loop keeps polling epoll for up to this long before it"
                    + " sleeps; auto: only while commands arrive less than 200 us apart, for twice the usual gap"
                    + " (20-200 us), so a QD1 stream skips the wake-up and an idle server sleeps (docs/performance.md);"
                    + " not with poll: true; event loops on io_uring (O_DIRECT file LUNs) sleep at once")
            .example("100us");
    public static final Key<String> CONTROL_SOCKET = Key.value("control-socket", ValueType.path(SOCKET_ALLOWED))
            .defaultText("/run/blocktarget/control.sock as root, else $XDG_RUNTIME_DIR/blocktarget.sock").rule(RESTART)
            .doc("the control API's Unix domain socket (mode 0660; a stale socket file is removed at start, a live one"
                    + " refused), relative to the config directory; off = none")
            .example("/run/blocktarget/control.sock");
    public static final Key<ControlConfig.Listen> CONTROL_LISTEN = Key.value("control-listen", LISTEN_TYPE)
            .defaultText("none").rule(RESTART)
            .doc("ADDRESS:PORT (IP literal, IPv6 in brackets) of an optional TCP listener of the control API; needs"
                    + " control-token-file")
            .example("127.0.0.1:9740");
    public static final Key<String> CONTROL_TOKEN_FILE = Key.value("control-token-file", ValueType.path(TOKEN_ALLOWED))
            .defaultText("none").rule(RESTART)
            .doc("file holding the bearer token the TCP listener requires (16 to 4096 characters of A-Za-z0-9-._~+/,"
                    + " trailing = allowed; one trailing newline ignored), relative to the config directory; only with"
                    + " control-listen")
            .example("control.token");
    public static final Key<Void> DISCOVERY_CHAP = Key.section("discovery-chap", "a CHAP map", LunKeys.CHAP_KEYS)
            .defaultText("none (discovery is open)").rule(IN_PLACE)
            .doc("CHAP (and mutual CHAP) every iSCSI discovery session must pass (RFC 7143 §12.1.3); the same keys and"
                    + " rules as access.chap of a LUN file");

    public static final Key<String> PORTAL_NAME = Key.value("name", Names.PORTAL_NAME_TYPE).required()
            .doc("the portal's name, as paths: of a LUN file, a fault rule's portal: and blocktarget path name it")
            .example("a");
    public static final Key<String> PORTAL_ADDRESS = Key.value("address", BIND_TYPE).required()
            .doc("the IP address the portal listens on (0.0.0.0 or :: for every address)").example("192.168.10.1");
    public static final Key<Long> PORTAL_ISCSI_PORT = Key.value("iscsi-port", PORT_TYPE)
            .defaults((long) ServerConfig.DEFAULT_ISCSI_PORT, "" + ServerConfig.DEFAULT_ISCSI_PORT)
            .doc("the portal's iSCSI port; 0 = no iSCSI on this portal").example(3261);
    public static final Key<Long> PORTAL_NVME_PORT = Key.value("nvme-port", PORT_TYPE)
            .defaults((long) ServerConfig.DEFAULT_NVME_PORT, "" + ServerConfig.DEFAULT_NVME_PORT)
            .doc("the portal's NVMe/TCP port (it answers discovery too); 0 = no NVMe/TCP on this portal").example(4421);
    public static final Key<Void> PORTALS = Key.listOfSections("portals", "a portal",
                    keys(PORTAL_NAME, PORTAL_ADDRESS, PORTAL_ISCSI_PORT, PORTAL_NVME_PORT))
            .rule(RESTART)
            .defaultText("one portal named default: bind with iscsi-port and nvme-port")
            .doc("the server's portals, each one iSCSI target portal group (TPGT 1, 2, ... in list order), one ALUA"
                    + " target port group and one NVMe port (PORTID) with its own ANA view; replaces iscsi-port and"
                    + " nvme-port (bind stays the discovery-port's address); a LUN's paths: gives its state on each");

    /** The whole file. */
    public static final Key<Void> SERVER = Key.section("", "a map of server settings", keys(BIND, ISCSI_PORT,
            NVME_PORT, DISCOVERY_PORT, MEMORY_BUDGET, IQN_PREFIX, NQN_PREFIX, EVENT_LOOPS, POLL, POLL_WINDOW,
            CONTROL_SOCKET, CONTROL_LISTEN.needs(CONTROL_TOKEN_FILE), CONTROL_TOKEN_FILE.needs(CONTROL_LISTEN),
            DISCOVERY_CHAP, PORTALS));

    private static final List<KeyPaths.Declared> DECLARED = KeyPaths.walk(SERVER, RESTART);

    /** Every key with its dotted path and change rule. */
    public static List<KeyPaths.Declared> declared() {
        return DECLARED;
    }

    private static ValueType<String> prefix(String allowed, ValueType.TextParser<String> nameCheck) {
        return ValueType.text("a name prefix", allowed, text -> {
            if (!(text.endsWith(":") || text.endsWith("."))) {
                throw new InvalidValue(text + " does not end in ':' or '.'", allowed);
            }
            try {
                nameCheck.parse(text + "x");
            } catch (InvalidValue e) {
                throw new InvalidValue(text + " + LUN name is not a valid name: " + e.what(), allowed);
            }
            return text;
        }).withSchema(ValueType.schema("type", "string", "pattern", "[:.]$"));
    }

    /**
     * Only literals: a host name would need DNS at start-up and could resolve differently later.
     * Dotted-quad only for IPv4 ({@code InetAddress} would also take "127.1").
     */
    static String ipLiteral(String text) throws InvalidValue {
        if (IPV4.matcher(text).matches()) {
            return text;
        }
        if (text.indexOf(':') >= 0 && text.indexOf('[') < 0) {
            try {
                Inet6Address.ofLiteral(text);
                return text;
            } catch (IllegalArgumentException e) {
                throw new InvalidValue(text + " is not an IPv6 address", BIND_ALLOWED);
            }
        }
        throw new InvalidValue(text + " is not an IP address literal", BIND_ALLOWED);
    }

    private static ControlConfig.Listen listen(String text) throws InvalidValue {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new InvalidValue(text + " is not ADDRESS:PORT", LISTEN_ALLOWED);
        }
        String host = text.substring(0, colon);
        String port = text.substring(colon + 1);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
            if (host.indexOf(':') < 0) {
                throw new InvalidValue(text + ": " + host + " is not an IPv6 address", LISTEN_ALLOWED);
            }
        } else if (host.indexOf(':') >= 0) {
            throw new InvalidValue(text + ": an IPv6 address needs brackets", LISTEN_ALLOWED);
        }
        try {
            ipLiteral(host);
        } catch (InvalidValue e) {
            throw new InvalidValue(text + ": " + e.what(), LISTEN_ALLOWED);
        }
        if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
            throw new InvalidValue(text + ": " + port + " is not a port", LISTEN_ALLOWED);
        }
        return new ControlConfig.Listen(host, Integer.parseInt(port));
    }
}
