package io.qv4j.agent.config;

import io.qv4j.agent.io.UserFiles;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The properties file of {@code config=FILE}, read once: option keys ({@code split-at=numa}, also
 * {@code qv.split-at}) and rules ({@code rule.NAME.KEY}), with each key's line for messages.
 *
 * @param options the option keys and values (without {@code config} itself)
 * @param rules   the rules, in the order their names first appear
 */
public record ConfigFile(Map<String, String> options, Rules rules) {

    public static final ConfigFile NONE = new ConfigFile(Map.of(), Rules.none());

    /** A config file is a few dozen lines; anything this large is a mistake (or an attack on the heap). */
    static final int MAX_BYTES = 1 << 20;

    public static ConfigFile read(String file) throws OptionException {
        String text;
        try {
            text = new String(UserFiles.read(Path.of(file), MAX_BYTES), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new OptionException("config=" + file + ": cannot read the file (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        }
        return parse(file, text);
    }

    static ConfigFile parse(String file, String text) throws OptionException {
        Properties p = new Properties();
        try (Reader r = new StringReader(text)) {
            p.load(r);
        } catch (IOException | RuntimeException e) {
            throw new OptionException("config=" + file + ": cannot read the file (" + e + ")");
        }
        Map<String, Integer> lines = keyLines(text);
        Map<String, String> options = new LinkedHashMap<>();
        List<String> keys = OptionsParser.KEYS;
        for (String name : p.stringPropertyNames()) {
            if (Rules.isRuleKey(name)) continue;
            String key = name.startsWith("qv.") ? name.substring(3) : name;
            if (!keys.contains(key) || key.equals("config")) {
                throw new OptionException("config=" + file + (lines.containsKey(name) ? ":" + lines.get(name) : "") + ": unknown key '" + name
                        + "' (keys: " + String.join(", ", keys.subList(0, keys.size() - 1)) + ")");
            }
            options.put(key, p.getProperty(name).strip());
        }
        return new ConfigFile(Map.copyOf(options), Rules.parse(file, p, lines));
    }

    /**
     * Each key's line (1-based; the last occurrence, as {@link Properties} keeps the last value),
     * in order of first appearance. Handles comments, blank lines and continuation lines; keys with
     * escapes are taken as written.
     */
    static Map<String, Integer> keyLines(String text) {
        Map<String, Integer> out = new LinkedHashMap<>();
        String[] ls = text.split("\r\n|\r|\n", -1);
        boolean continued = false;
        for (int i = 0; i < ls.length; i++) {
            String line = ls[i];
            boolean wasContinued = continued;
            continued = endsWithOddBackslashes(line);
            if (wasContinued) continue;
            String s = line.stripLeading();
            if (s.isEmpty() || s.charAt(0) == '#' || s.charAt(0) == '!') {
                continued = false;
                continue;
            }
            int end = 0;
            while (end < s.length()) {
                char c = s.charAt(end);
                if (c == '\\') {
                    end += 2;
                    continue;
                }
                if (c == '=' || c == ':' || Character.isWhitespace(c)) break;
                end++;
            }
            String key = s.substring(0, Math.min(end, s.length()));
            out.put(key, i + 1);
        }
        return out;
    }

    private static boolean endsWithOddBackslashes(String line) {
        int n = 0;
        for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) n++;
        return n % 2 == 1;
    }
}
