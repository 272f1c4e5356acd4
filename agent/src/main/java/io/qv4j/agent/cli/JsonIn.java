package io.qv4j.agent.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads the JSON the agent publishes (maps keep their order; integers are Long, other numbers Double). */
final class JsonIn {

    private final String s;
    private int i;

    private JsonIn(String s) {
        this.s = s;
    }

    static Object parse(String text) {
        JsonIn r = new JsonIn(text);
        Object v = r.value();
        r.blank();
        if (r.i != text.length()) throw r.bad("trailing text");
        return v;
    }

    private IllegalArgumentException bad(String what) {
        return new IllegalArgumentException("bad JSON at " + i + ": " + what);
    }

    private void blank() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
    }

    private boolean eat(char c) {
        blank();
        if (i < s.length() && s.charAt(i) == c) {
            i++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!eat(c)) throw bad("expected '" + c + "'");
    }

    private Object value() {
        blank();
        if (i >= s.length()) throw bad("unexpected end");
        char c = s.charAt(i);
        if (c == '{') {
            i++;
            Map<String, Object> m = new LinkedHashMap<>();
            if (eat('}')) return m;
            do {
                blank();
                String k = string();
                expect(':');
                m.put(k, value());
            } while (eat(','));
            expect('}');
            return m;
        }
        if (c == '[') {
            i++;
            List<Object> l = new ArrayList<>();
            if (eat(']')) return l;
            do {
                l.add(value());
            } while (eat(','));
            expect(']');
            return l;
        }
        if (c == '"') return string();
        if (s.startsWith("true", i)) {
            i += 4;
            return Boolean.TRUE;
        }
        if (s.startsWith("false", i)) {
            i += 5;
            return Boolean.FALSE;
        }
        if (s.startsWith("null", i)) {
            i += 4;
            return null;
        }
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
        String n = s.substring(start, i);
        if (n.isEmpty()) throw bad("unexpected '" + c + "'");
        if (n.contains(".") || n.contains("e") || n.contains("E")) return Double.parseDouble(n);
        return Long.parseLong(n);
    }

    private String string() {
        if (i >= s.length() || s.charAt(i) != '"') throw bad("expected a string");
        i++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (i >= s.length()) throw bad("unterminated string");
            char c = s.charAt(i++);
            if (c == '"') return sb.toString();
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = s.charAt(i++);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'u' -> {
                    sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> sb.append(e);
            }
        }
    }
}
