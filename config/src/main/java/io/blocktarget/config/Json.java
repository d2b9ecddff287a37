package io.blocktarget.config;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * JSON text of the values the schemas and documents are made of (maps, lists, strings, numbers, booleans, null),
 * two-space indented, keys in insertion order: the same input always gives the same bytes, so a generated schema can
 * be compared with a shipped one. (The config module has no JSON library; this is all it needs.)
 */
final class Json {
    private Json() {
    }

    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(value, 0, sb);
        return sb.append('\n').toString();
    }

    private static void write(Object value, int indent, StringBuilder sb) {
        switch (value) {
            case null -> sb.append("null");
            case String s -> string(s, sb);
            case Boolean b -> sb.append(b);
            case Number n -> sb.append(n);
            case Map<?, ?> map -> {
                if (map.isEmpty()) {
                    sb.append("{}");
                    return;
                }
                sb.append("{\n");
                Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
                while (it.hasNext()) {
                    Map.Entry<?, ?> e = it.next();
                    pad(indent + 1, sb);
                    string(String.valueOf(e.getKey()), sb);
                    sb.append(": ");
                    write(e.getValue(), indent + 1, sb);
                    sb.append(it.hasNext() ? ",\n" : "\n");
                }
                pad(indent, sb);
                sb.append('}');
            }
            case List<?> list -> {
                if (list.isEmpty()) {
                    sb.append("[]");
                    return;
                }
                boolean flat = list.stream().noneMatch(v -> v instanceof Map || v instanceof List);
                sb.append(flat ? "[" : "[\n");
                for (int i = 0; i < list.size(); i++) {
                    if (!flat) {
                        pad(indent + 1, sb);
                    }
                    write(list.get(i), indent + 1, sb);
                    if (i < list.size() - 1) {
                        sb.append(flat ? ", " : ",\n");
                    }
                }
                if (!flat) {
                    sb.append('\n');
                    pad(indent, sb);
                }
                sb.append(']');
            }
            default -> string(value.toString(), sb);
        }
    }

    private static void pad(int indent, StringBuilder sb) {
        sb.append("  ".repeat(indent));
    }

    private static void string(String s, StringBuilder sb) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
