package io.qv4j.agent.place;

import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The thread-name parsing on the start-up path is written by hand (no regex classes to load):
 * on random names built from the characters that matter, it agrees with the regular expressions
 * it replaces.
 */
class NameSuffixesTest {

    private static final String ALPHABET = "ab0129-_ #x٣";

    private static String randomName(Random r) {
        StringBuilder b = new StringBuilder();
        int n = r.nextInt(14);
        for (int i = 0; i < n; i++) b.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
        if (r.nextInt(3) == 0) b.append(r.nextBoolean() ? "-thread-" : "-worker-").append(r.nextInt(30));
        return b.toString();
    }

    @Test
    void poolNameAgreesWithTheSuffixExpressions() {
        Pattern worker = Pattern.compile("-(thread|worker)-\\d+$");
        Pattern number = Pattern.compile("[-_ #]?\\d+$");
        Random r = new Random(1);
        for (int i = 0; i < 200_000; i++) {
            String name = randomName(r);
            String n = worker.matcher(name).replaceFirst("");
            if (n.equals(name)) n = number.matcher(name).replaceFirst("");
            assertEquals(n.isEmpty() ? name : n, Eligibility.poolName(name), name);
        }
    }

    @Test
    void dashNumberAgreesWithPrefixDashDigits() {
        Pattern p = Pattern.compile("(.+)-\\d+");
        Random r = new Random(2);
        for (int i = 0; i < 200_000; i++) {
            String name = randomName(r);
            Matcher m = p.matcher(name);
            int dash = ThreadSets.dashNumber(name);
            assertEquals(m.matches() ? m.group(1) : null, dash >= 0 ? name.substring(0, dash) : null, name);
        }
    }

    @Test
    void trailingDigitsAgreesWithNonDigitThenDigits() {
        Pattern p = Pattern.compile("(.*\\D)(\\d+)");
        Random r = new Random(3);
        for (int i = 0; i < 200_000; i++) {
            String name = randomName(r);
            Matcher m = p.matcher(name);
            int d = ThreadSets.trailingDigits(name);
            boolean numbered = d > 0 && d < name.length();
            assertEquals(m.matches(), numbered, name);
            if (numbered) assertEquals(m.group(2), name.substring(d), name);
        }
    }

    @Test
    void nettyNamesAgreeWithGroupDashNumberDashNumber() {
        Pattern p = Pattern.compile("(.+-\\d+)-(\\d+)");
        Random r = new Random(4);
        for (int i = 0; i < 200_000; i++) {
            String name = randomName(r);
            Matcher m = p.matcher(name);
            int dash = ThreadSets.dashNumber(name);
            boolean ours = dash >= 0 && ThreadSets.dashNumber(name.substring(0, dash)) >= 0;
            assertEquals(m.matches(), ours, name);
            if (ours) assertEquals(m.group(1), name.substring(0, dash), name);
        }
    }
}
