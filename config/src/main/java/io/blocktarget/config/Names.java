package io.blocktarget.config;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Syntax of the names a LUN ends up in: its own name (part of derived IQNs/NQNs), iSCSI names
 * (RFC 3720 §3.2.6) and NVMe Qualified Names (NVMe Base 2.0 §4.5).
 */
final class Names {
    static final String LUN_NAME_ALLOWED = "1 to 63 lowercase letters, digits, '-' and '.', starting with a letter or digit"
            + " (the name becomes part of the derived IQN and NQN)";

    /** RFC 3720 §3.2.6.1: at most 223 bytes, UTF-8. NVMe Base §4.5: NQNs too. */
    static final int MAX_NAME_BYTES = 223;

    static final String IQN_ALLOWED = "iqn.YYYY-MM.reversed.domain[:anything], eui. + 16 hex digits or naa. + 16 or 32 hex"
            + " digits; lowercase ASCII letters, digits, '-', '.' and ':'; at most 223 bytes (RFC 3720 §3.2.6)";
    static final String NQN_ALLOWED = "nqn.YYYY-MM.reverse.domain:string with letters, digits, '-', '.', '_' and ':'"
            + " in the string, or nqn.2014-08.org.nvmexpress:uuid:UUID; at most 223 bytes (NVMe Base §4.5)";

    /** The well-known discovery subsystem (NVMe Base §4.5): only the discovery controller answers to it. */
    static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";
    private static final String UUID_NQN_PREFIX = "nqn.2014-08.org.nvmexpress:uuid:";

    /** The LUN name's syntax, also the JSON Schema pattern of the API's {@code name}. */
    static final String LUN_NAME_TEXT = "[a-z0-9][a-z0-9.-]{0,62}";
    private static final Pattern LUN_NAME = Pattern.compile(LUN_NAME_TEXT);
    private static final String LABEL = "[a-z0-9](?:[a-z0-9-]*[a-z0-9])?";
    private static final String DOMAIN = LABEL + "(?:\\." + LABEL + ")*";
    private static final String DATE = "[0-9]{4}-(?:0[1-9]|1[0-2])";
    /** RFC 3720 §3.2.6.3.1: type "iqn." — date the naming authority owned the domain, reversed domain, optional ':'... */
    private static final Pattern IQN = Pattern.compile("iqn\\." + DATE + "\\." + DOMAIN + "(?::[a-z0-9.:-]*)?");
    /** RFC 3720 §3.2.6.3.2: type "eui." — an EUI-64 in hex. */
    private static final Pattern EUI = Pattern.compile("eui\\.[0-9a-f]{16}");
    /** RFC 3980: type "naa." — a 64- or 128-bit NAA identifier in hex. */
    private static final Pattern NAA = Pattern.compile("naa\\.(?:[0-9a-f]{16}|[0-9a-f]{32})");
    private static final Pattern NQN = Pattern.compile("nqn\\." + DATE + "\\." + DOMAIN + ":[A-Za-z0-9._:-]+");
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    /** The same rules as a JSON Schema (ECMA-262) pattern; the length is the schema's maxLength. */
    static final String IQN_SCHEMA_PATTERN = "^(" + IQN.pattern() + "|" + EUI.pattern() + "|" + NAA.pattern() + ")$";
    static final String NQN_SCHEMA_PATTERN = "^(" + NQN.pattern() + "|"
            + UUID_NQN_PREFIX.replace(".", "\\.") + UUID.pattern() + ")$";

    static final ValueType<String> IQN_TYPE = ValueType.text("an iSCSI name", IQN_ALLOWED, Names::iqn)
            .withSchema(ValueType.schema("type", "string", "minLength", 1, "maxLength", MAX_NAME_BYTES,
                    "pattern", IQN_SCHEMA_PATTERN));
    static final ValueType<String> NQN_TYPE = ValueType.text("an NQN", NQN_ALLOWED, Names::nqn)
            .withSchema(ValueType.schema("type", "string", "minLength", 1, "maxLength", MAX_NAME_BYTES,
                    "pattern", NQN_SCHEMA_PATTERN));

    private Names() {
    }

    static String lunName(String name) throws InvalidValue {
        if (!LUN_NAME.matcher(name).matches()) {
            throw new InvalidValue(name + " is not a valid LUN name", LUN_NAME_ALLOWED);
        }
        return name;
    }

    static String iqn(String name) throws InvalidValue {
        checkLength(name, IQN_ALLOWED);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == ':')) {
                throw new InvalidValue(name + " contains '" + c + "'", IQN_ALLOWED);
            }
        }
        if (name.startsWith("iqn.")) {
            if (!IQN.matcher(name).matches()) {
                throw new InvalidValue(name + " is not iqn.YYYY-MM.reversed.domain[:anything]", IQN_ALLOWED);
            }
        } else if (name.startsWith("eui.")) {
            if (!EUI.matcher(name).matches()) {
                throw new InvalidValue(name + " does not have exactly 16 hex digits after eui.", IQN_ALLOWED);
            }
        } else if (name.startsWith("naa.")) {
            if (!NAA.matcher(name).matches()) {
                throw new InvalidValue(name + " does not have 16 or 32 hex digits after naa.", IQN_ALLOWED);
            }
        } else {
            throw new InvalidValue(name + " does not start with iqn., eui. or naa.", IQN_ALLOWED);
        }
        return name;
    }

    static String nqn(String name) throws InvalidValue {
        checkLength(name, NQN_ALLOWED);
        if (name.equals(DISCOVERY_NQN)) {
            throw new InvalidValue(name + " is the discovery subsystem's NQN", NQN_ALLOWED);
        }
        if (name.startsWith(UUID_NQN_PREFIX)) {
            if (!UUID.matcher(name.substring(UUID_NQN_PREFIX.length())).matches()) {
                throw new InvalidValue(name + " does not end in a UUID (8-4-4-4-12 lowercase hex digits)", NQN_ALLOWED);
            }
            return name;
        }
        if (!NQN.matcher(name).matches()) {
            throw new InvalidValue(name + " is not nqn.YYYY-MM.reverse.domain:string", NQN_ALLOWED);
        }
        return name;
    }

    private static void checkLength(String name, String allowed) throws InvalidValue {
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_NAME_BYTES) {
            throw new InvalidValue(name + " is " + bytes + " bytes long", allowed);
        }
        if (bytes == 0) {
            throw new InvalidValue("an empty name", allowed);
        }
    }
}
