package io.qv4j.agent.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.Random;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GlobTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "io-*          | io-1          | true",
            "io-*          | io-           | true",
            "io-*          | xio-1         | false",
            "*-worker-?    | pool-worker-7 | true",
            "*-worker-?    | pool-worker-17| false",
            "a.b$c         | a.b$c         | true",
            "a.b$c         | aXb$c         | false",
            "'[x]+'        | '[x]+'        | true",
            "'\\Q*\\E'     | '\\Qanything\\E' | true",
            "''            | ''            | true",
            "''            | a             | false",
            "*             | ''            | true",
            "**?**         | ''            | false",
            "a*b*c         | abXbYc        | true",
            "a*b*c         | abXbYcZ       | false",
            "*ab           | aab           | true",
    })
    void matchesWholeNames(String glob, String name, boolean expected) {
        assertEquals(expected, Glob.of(glob).matches(name), glob + " ~ " + name);
        assertEquals(expected, Glob.of(glob).toPattern().matcher(name).matches(), "as a Pattern: " + glob + " ~ " + name);
        assertEquals(expected, Rule.glob(glob).matcher(name).matches(), "Rule.glob: " + glob + " ~ " + name);
    }

    @Test
    void wildcardsMatchCodePointsAndLineTerminators() {
        String face = new String(Character.toChars(0x1F600));
        for (Glob g : new Glob[] {Glob.of("x?y"), Glob.of("x*y")}) {
            assertTrue(g.matches("x" + face + "y"), g + ": one code point");
            assertTrue(g.toPattern().matcher("x" + face + "y").matches(), g + " as a Pattern: one code point");
            assertTrue(g.matches("x\ny"), g + ": a newline");
            assertTrue(g.toPattern().matcher("x\ny").matches(), g + " as a Pattern: a newline");
        }
        assertFalse(Glob.of("x??y").matches("x" + face + "y"));
    }

    /** Random globs and names over a tiny alphabet (so that they often match), against a plain dynamic program. */
    @Test
    void agreesWithAReferenceMatcherOnRandomGlobsAndNames() {
        Random r = new Random(17);
        String[] globAlphabet = {"a", "b", "*", "?", "."};
        int matched = 0;
        for (int i = 0; i < 6_000; i++) {
            String glob = random(r, globAlphabet, r.nextInt(9));
            String name = random(r, new String[] {"a", "b", "."}, r.nextInt(12));
            boolean expected = reference(glob, name);
            if (expected) matched++;
            assertEquals(expected, Glob.of(glob).matches(name), glob + " ~ " + name);
            assertEquals(expected, Glob.of(glob).toPattern().matcher(name).matches(), "as a Pattern: " + glob + " ~ " + name);
        }
        assertTrue(matched > 400, "the cases include enough matches to mean something: " + matched);
    }

    @Test
    void manyStarsAgainstALongNameThatAlmostMatchesFinishQuickly() {
        String glob = "a*a*a*a*a*a*a*a*a*b";
        String name = "a".repeat(60);
        Pattern asRule = Rule.glob(glob);
        Pattern asGlob = Glob.of(glob).toPattern();
        String longGlob = "*a".repeat(200) + "b";
        String longName = "a".repeat(5_000);
        assertTimeoutPreemptively(Duration.ofSeconds(1), () -> {
            assertFalse(Glob.of(glob).matches(name));
            assertFalse(asGlob.matcher(name).matches());
            assertFalse(asRule.matcher(name).matches());
            assertFalse(Glob.of(longGlob).matches(longName));
            assertFalse(Glob.of(longGlob).toPattern().matcher(longName).matches());
        });
    }

    private static String random(Random r, String[] alphabet, int length) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) sb.append(alphabet[r.nextInt(alphabet.length)]);
        return sb.toString();
    }

    /** match[i][j]: the first i glob characters match the first j name characters. */
    private static boolean reference(String glob, String name) {
        boolean[][] match = new boolean[glob.length() + 1][name.length() + 1];
        match[0][0] = true;
        for (int i = 1; i <= glob.length(); i++) {
            char g = glob.charAt(i - 1);
            for (int j = 0; j <= name.length(); j++) {
                if (g == '*') match[i][j] = match[i - 1][j] || j > 0 && match[i][j - 1];
                else match[i][j] = j > 0 && match[i - 1][j - 1] && (g == '?' || g == name.charAt(j - 1));
            }
        }
        return match[glob.length()][name.length()];
    }
}
