package io.qv4j.agent.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads what {@link Json#write} writes: the report a running agent publishes (for {@code status} and {@code attach}) and the tests read. */
public final class JsonReader {

    private JsonReader() {
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
