package io.qv4j.agent.config;

import java.util.regex.Pattern;

/**
 * A glob on names: {@code *} any run of characters (none included), {@code ?} one character,
 * everything else literal; the whole name must match. Characters are Unicode code points, and
 * {@code *} and {@code ?} match any of them, line terminators included.
 *
 * <p>Matching takes at most O(pattern x name) steps whatever the input: rules match thread names
 * under the agent's lock, and a backtracking matcher takes exponential time on a pattern such as
 * {@code a*a*a*a*a*a*a*a*a*b} against a long run of {@code a}s. It can: between two stars, the
 * first place a segment fits is as good as any later one, so only the last star is ever retried.
 */
public final class Glob {

    private final String text;
    private final int[] pattern; // code points

    private Glob(String text) {
        this.text = text;
        this.pattern = text.codePoints().toArray();
    }

    public static Glob of(String glob) {
        return new Glob(glob);
    }

    /** True when the whole {@code name} matches. */
    public boolean matches(CharSequence name) {
        int[] s = name.codePoints().toArray();
        int p = 0, n = 0;
        int star = -1, resume = 0; // the last star seen, and where in the name it would stretch to next
        while (n < s.length) {
            if (p < pattern.length && pattern[p] == '*') {
                star = p++;
                resume = n;
            } else if (p < pattern.length && (pattern[p] == '?' || pattern[p] == s[n])) {
                p++;
                n++;
            } else if (star >= 0) { // the last star takes one more character; earlier stars stay as they are
                p = star + 1;
                n = ++resume;
            } else {
                return false;
            }
        }
        while (p < pattern.length && pattern[p] == '*') p++;
        return p == pattern.length;
    }

    /**
     * An equivalent regular expression that java.util.regex also matches in O(pattern x name):
     * each segment between stars is found at its first place in an atomic group, which is never
     * re-entered, and only the last segment, which must end the name, is searched backwards.
     * For code that holds {@link Pattern}s; use with {@code matcher(name).matches()}.
     */
    public Pattern toPattern() {
        StringBuilder re = new StringBuilder();
        String[] segments = text.split("\\*", -1); // n stars give n + 1 segments, maybe empty
        re.append(segment(segments[0]));
        for (int i = 1; i < segments.length - 1; i++) {
            if (!segments[i].isEmpty()) re.append("(?>.*?").append(segment(segments[i])).append(')');
        }
        if (segments.length > 1) re.append(".*").append(segment(segments[segments.length - 1]));
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }

    private static String segment(String s) {
        StringBuilder re = new StringBuilder();
        int literal = -1;
        for (int i = 0; i <= s.length(); i++) {
            boolean end = i == s.length() || s.charAt(i) == '?';
            if (end && literal >= 0) {
                re.append(Pattern.quote(s.substring(literal, i)));
                literal = -1;
            }
            if (i == s.length()) break;
            if (s.charAt(i) == '?') re.append('.');
            else if (literal < 0) literal = i;
        }
        return re.toString();
    }

    @Override
    public String toString() {
        return text;
    }
}
