package io.qv4j.agent.report;

import java.util.List;
import java.util.Map;

/**
 * The little JSON the CLI and reports need: maps (insertion order kept), lists, strings, numbers,
 * booleans and null, written with two-space indentation, and read back by tests and scripts.
 * No dependency: the agent jar must not carry a JSON library the application might also load.
 */
public final class Json {

    private Json() {
    }

    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, "");
        return sb.append('\n').toString();
    }

    private static void write(StringBuilder sb, Object v, String indent) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            quote(sb, s);
        } else if (v instanceof Number || v instanceof Boolean) {
            sb.append(v);
        } else if (v instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                sb.append("{}");
                return;
            }
            String inner = indent + "  ";
            sb.append("{\n");
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) sb.append(",\n");
                first = false;
                sb.append(inner);
                quote(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                write(sb, e.getValue(), inner);
            }
            sb.append('\n').append(indent).append('}');
        } else if (v instanceof List<?> l) {
            if (l.isEmpty()) {
                sb.append("[]");
                return;
            }
            boolean flat = l.stream().allMatch(x -> x == null || x instanceof String || x instanceof Number || x instanceof Boolean);
            String inner = indent + "  ";
            sb.append(flat ? "[" : "[\n");
            boolean first = true;
            for (Object x : l) {
                if (!first) sb.append(flat ? ", " : ",\n");
                first = false;
                if (!flat) sb.append(inner);
                write(sb, x, inner);
            }
            sb.append(flat ? "]" : "\n" + indent + "]");
        } else {
            quote(sb, v.toString());
        }
    }

    private static void quote(StringBuilder sb, String s) {
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
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
                }
            }
        }
        sb.append('"');
    }
}
