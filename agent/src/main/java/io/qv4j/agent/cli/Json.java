package io.qv4j.agent.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
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

    /**
     * Parses JSON text: objects become {@link LinkedHashMap}s, arrays {@link ArrayList}s, integral
     * numbers {@link Long}s, others {@link Double}s.
     *
     * @throws IllegalArgumentException with the offset of the first error
     */
    public static Object parse(String text) {
        Parser p = new Parser(text);
        Object v = p.value();
        p.skipBlanks();
        if (p.pos != text.length()) throw p.error("trailing text");
        return v;
    }

    private static final class Parser {
        final String s;
        int pos;

        Parser(String s) {
            this.s = s;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("bad JSON at offset " + pos + ": " + what);
        }

        void skipBlanks() {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) pos++;
        }

        char peek() {
            skipBlanks();
            if (pos >= s.length()) throw error("unexpected end");
            return s.charAt(pos);
        }

        void expect(char c) {
            if (peek() != c) throw error("expected '" + c + "'");
            pos++;
        }

        Object value() {
            char c = peek();
            switch (c) {
                case '{': {
                    pos++;
                    Map<String, Object> m = new LinkedHashMap<>();
                    if (peek() == '}') {
                        pos++;
                        return m;
                    }
                    do {
                        String k = string();
                        expect(':');
                        m.put(k, value());
                    } while (comma('}'));
                    return m;
                }
                case '[': {
                    pos++;
                    List<Object> l = new ArrayList<>();
                    if (peek() == ']') {
                        pos++;
                        return l;
                    }
                    do {
                        l.add(value());
                    } while (comma(']'));
                    return l;
                }
                case '"':
                    return string();
                default:
                    if (s.startsWith("true", pos)) {
                        pos += 4;
                        return Boolean.TRUE;
                    }
                    if (s.startsWith("false", pos)) {
                        pos += 5;
                        return Boolean.FALSE;
                    }
                    if (s.startsWith("null", pos)) {
                        pos += 4;
                        return null;
                    }
                    return number();
            }
        }

        boolean comma(char close) {
            char c = peek();
            pos++;
            if (c == ',') return true;
            if (c == close) return false;
            pos--;
            throw error("expected ',' or '" + close + "'");
        }

        String string() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (true) {
                if (pos >= s.length()) throw error("unterminated string");
                char c = s.charAt(pos++);
                if (c == '"') return sb.toString();
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                if (pos >= s.length()) throw error("unterminated escape");
                char e = s.charAt(pos++);
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 't' -> sb.append('\t');
                    case 'r' -> sb.append('\r');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'u' -> {
                        if (pos + 4 > s.length()) throw error("bad \\u escape");
                        sb.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                        pos += 4;
                    }
                    default -> sb.append(e);
                }
            }
        }

        Object number() {
            int start = pos;
            while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) pos++;
            String n = s.substring(start, pos);
            if (n.isEmpty()) throw error("unexpected character '" + s.charAt(start) + "'");
            try {
                return n.matches("-?\\d+") ? (Object) Long.parseLong(n) : (Object) Double.parseDouble(n);
            } catch (NumberFormatException ex) {
                throw error("bad number '" + n + "'");
            }
        }
    }
}
