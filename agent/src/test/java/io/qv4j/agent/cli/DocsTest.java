package io.qv4j.agent.cli;

import io.qv4j.agent.config.OptionsParser;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The documentation cannot drift from the code: docs/options.md's table lists exactly the keys the
 * agent accepts, docs/cli.md has a section per command holding its {@code --help} text and naming
 * exactly the options that help names, and every relative link in README.md and docs/*.md reaches
 * a file and, where it names one, a heading.
 */
class DocsTest {

    static final Path ROOT = Path.of(System.getProperty("basedir", "."), "..").toAbsolutePath().normalize();

    /** Options every command takes, named in docs/cli.md's opening part rather than in each help. */
    static final Set<String> GLOBAL_OPTIONS = Set.of("--help", "--debug", "--version");

    /** Other programs' options that docs/cli.md names in passing: the demo's IoCompute, lstopo. */
    static final Set<String> OTHER_PROGRAMS_OPTIONS = Set.of("--seconds", "--cpukinds");

    private static final Pattern TABLE_KEY = Pattern.compile("^\\| `([a-z][a-z-]*)` \\|");
    private static final Pattern CLI_OPTION = Pattern.compile("(?<![\\w-])--[a-z][a-z-]*");
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern CODE_SPAN = Pattern.compile("`[^`]*`");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} (.*)$");

    @Test
    void optionsTableListsExactlyTheKeysTheAgentAccepts() throws IOException {
        Set<String> documented = optionTableKeys(read(ROOT.resolve("docs/options.md")));
        assertEquals(new TreeSet<>(OptionsParser.KEYS), new TreeSet<>(documented),
                "the table under '## Options' in docs/options.md against OptionsParser.KEYS");
    }

    @Test
    void cliReferenceHasEveryCommandWithItsHelpAndOptions() throws IOException {
        String cli = read(ROOT.resolve("docs/cli.md"));
        List<String> problems = new ArrayList<>();
        if (!cli.contains(Main.USAGE)) problems.add("the text of 'help' (Main.USAGE) is not there verbatim");
        Set<String> commands = new TreeSet<>(Main.HELP.keySet());
        commands.remove("help");
        commands.addAll(usageCommands(Main.USAGE));
        for (String command : commands) {
            String section = section(cli, "## `" + command + "`");
            if (section == null) {
                problems.add("no section '## `" + command + "`'");
                continue;
            }
            String help = Main.HELP.get(command);
            if (help == null) {
                problems.add(command + ": in Main.USAGE but has no --help text");
                continue;
            }
            if (!section.contains(help)) problems.add(command + ": the section does not hold its --help text verbatim");
            Set<String> helpOptions = options(help);
            Set<String> docOptions = options(withoutOtherCommands(section, command));
            for (String o : helpOptions) {
                if (!docOptions.contains(o)) problems.add(command + ": " + o + " (in --help) is not in its section");
            }
            for (String o : docOptions) {
                if (!helpOptions.contains(o) && !GLOBAL_OPTIONS.contains(o) && !OTHER_PROGRAMS_OPTIONS.contains(o)) {
                    problems.add(command + ": " + o + " (in docs/cli.md) is not in its --help");
                }
            }
        }
        assertTrue(problems.isEmpty(), "docs/cli.md against Main.HELP: " + problems);
    }

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        for (Path page : pages) {
            for (String target : links(read(page))) {
                String problem = check(page, target, anchors);
                if (problem != null) broken.add(ROOT.relativize(page) + ": " + target + " (" + problem + ")");
            }
        }
        assertTrue(broken.isEmpty(), "broken links: " + broken);
    }

    @Test
    void slugsFollowGitHub() {
        assertEquals("partitioning-work-partition-and-weighted-splits", slug("Partitioning work: `Partition` and weighted splits"));
        assertEquals("several-jvms-on-one-node-mpirun-slurm-kubernetes", slug("Several JVMs on one node: mpirun, Slurm, Kubernetes"));
        assertEquals("availableprocessors-is-never-smaller", slug("`availableProcessors()` is never smaller"));
        assertEquals("jdk-24", slug("JDK 24+"));
        assertEquals("topology---format-json", slug("`topology --format json`"));
        assertFalse(links("see `[not](a-link)` and [a](b.md#c)").contains("a-link"));
    }

    /** The first cell of each row of the table that follows the heading '## Options'. */
    static Set<String> optionTableKeys(String page) {
        String section = section(page, "## Options");
        assertTrue(section != null, "docs/options.md has a section '## Options'");
        Set<String> keys = new LinkedHashSet<>();
        boolean inTable = false;
        for (String line : section.split("\n")) {
            if (line.startsWith("|")) {
                inTable = true;
                Matcher m = TABLE_KEY.matcher(line);
                if (m.find()) keys.add(m.group(1));
            } else if (inTable) {
                break;
            }
        }
        return keys;
    }

    /** The commands USAGE lists under "commands:" (two spaces, then the name), less {@code help}. */
    static Set<String> usageCommands(String usage) {
        Set<String> out = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^  ([a-z]+)\\b").matcher(usage);
        while (m.find()) {
            if (!m.group(1).equals("help")) out.add(m.group(1));
        }
        return out;
    }

    /** The section less the lines that run another command ({@code qv-agent.jar attach ...} in the status section). */
    static String withoutOtherCommands(String section, String command) {
        StringBuilder out = new StringBuilder();
        Matcher m = Pattern.compile("qv-agent\\.jar ([a-z]+)").matcher("");
        for (String line : section.split("\n")) {
            m.reset(line);
            boolean other = false;
            while (m.find()) {
                if (Main.HELP.containsKey(m.group(1)) && !m.group(1).equals(command)) other = true;
            }
            if (!other) out.append(line).append('\n');
        }
        return out.toString();
    }

    static Set<String> options(String text) {
        Set<String> out = new TreeSet<>();
        Matcher m = CLI_OPTION.matcher(text);
        while (m.find()) out.add(m.group());
        return out;
    }

    /** The text from a heading line to the next heading of the same or a higher level; null if absent. */
    static String section(String page, String heading) {
        String[] lines = page.split("\n", -1);
        int level = heading.indexOf(' ');
        StringBuilder out = null;
        boolean fence = false;
        for (String line : lines) {
            if (line.startsWith("```")) fence = !fence;
            if (out == null) {
                if (!fence && line.equals(heading)) out = new StringBuilder();
                continue;
            }
            if (!fence && line.startsWith("#")) {
                int l = line.indexOf(' ');
                if (l > 0 && l <= level && line.substring(0, l).chars().allMatch(c -> c == '#')) break;
            }
            out.append(line).append('\n');
        }
        return out == null ? null : out.toString();
    }

    /** Link targets outside code fences and code spans. */
    static List<String> links(String page) {
        List<String> out = new ArrayList<>();
        boolean fence = false;
        for (String line : page.split("\n")) {
            if (line.startsWith("```")) {
                fence = !fence;
                continue;
            }
            if (fence) continue;
            Matcher m = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
            while (m.find()) out.add(m.group(1));
        }
        return out;
    }

    /** Null when the link resolves, else what is wrong. */
    static String check(Path page, String target, Map<Path, Set<String>> anchors) throws IOException {
        if (target.matches("[a-zA-Z][a-zA-Z+.-]*:.*")) return null;    // http:, https:, mailto:
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path to = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!to.startsWith(ROOT)) return "outside the repository";
        if (!Files.exists(to)) return "no such file";
        if (hash < 0) return null;
        if (!to.toString().endsWith(".md")) return "an anchor into a file that is not markdown";
        Set<String> known = anchors.computeIfAbsent(to, DocsTest::anchorsOf);
        return known.contains(target.substring(hash + 1)) ? null : "no such heading";
    }

    /** GitHub's anchors: each heading's slug, a repeated slug numbered -1, -2, ... */
    static Set<String> anchorsOf(Path page) {
        Set<String> out = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fence = false;
        for (String line : read(page).split("\n")) {
            if (line.startsWith("```")) fence = !fence;
            if (fence) continue;
            Matcher m = HEADING.matcher(line);
            if (!m.matches()) continue;
            String s = slug(m.group(1));
            int n = seen.merge(s, 1, Integer::sum) - 1;
            out.add(n == 0 ? s : s + "-" + n);
        }
        return out;
    }

    /** Lowercase, punctuation but '-' and '_' dropped, each space a '-'. */
    static String slug(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\s_-]", "").replace(' ', '-');
    }

    static String read(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8).replace("\r\n", "\n");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(p.toString(), e);
        }
    }
}
