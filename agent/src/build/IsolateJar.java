import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.HexFormat;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Build step after shading (run by agent/pom.xml with the JDK's source launcher, not part of the
 * jar): rewrites the shaded jar so that the application sees only the API. Every entry of the
 * agent and its dependencies moves under {@code inst/} (classes as {@code .classdata}, which no
 * class path loader looks for; versioned entries to {@code META-INF/versions/N/inst/}), where
 * {@code io.qv4j.agent.launch.AgentClassLoader} finds them. Kept as they are: the API classes
 * (every {@code io/qv4j/} entry that is neither the agent's own, found in its classes directory,
 * nor shaded), the launcher package, and {@code META-INF} (manifest, licenses, Maven data, the
 * {@code Platform} service). JNA's native libraries stay only for the platforms qv4j supports.
 *
 * <p>Usage: {@code java IsolateJar.java JAR CLASSES_DIR [TIMESTAMP]}. Entries keep their order; with
 * an ISO-8601 TIMESTAMP (Maven's {@code project.build.outputTimestamp}) every entry gets that time,
 * the API's too (they come from the qv-api jar with their build's times), so that every build of
 * the same sources makes the same bytes.
 *
 * <p>Classes are also gathered into two stored (uncompressed) entries of one format: the index's
 * length, the index (per class its binary name's length and UTF-8 bytes, its offset in the data and
 * its length; big-endian ints), then the classes' bytes one after another.
 * <ul>
 * <li>{@code inst/qv4j-classes.bin}: the agent's own hidden classes, which keep their own entries
 *     too. Reading the hundred-odd classes the agent needs at start one entry at a time costs a
 *     cold JVM about 30 ms; this one entry, a few.</li>
 * <li>{@code inst/qv4j-libs.bin}: the dependencies' classes (ByteBuddy's ASM, JNA, OSHI, OpenHFT,
 *     SLF4J), which get no entries of their own; the agent's class loader reads one at its offset.
 *     The JVM reads the whole directory of the jar at every start, and their 850-odd entries were
 *     most of it; a normal start loads none of those classes.</li>
 * </ul>
 *
 * <p>Last comes {@code inst/qv4j-build-id}: the SHA-256 of every hidden entry's name and bytes,
 * which names this build of the agent (the agent's cache of rewritten JDK classes is keyed by it).
 */
public final class IsolateJar {

    private static final Pattern VERSIONED = Pattern.compile("(META-INF/versions/\\d+/)(.+)");
    private static final Pattern JNA_NATIVE = Pattern.compile("com/sun/jna/([^/]+)/[^/]*jnidispatch[^/]*");
    private static final String LAUNCHER = "io/qv4j/agent/launch/";

    public static void main(String[] args) throws IOException, NoSuchAlgorithmException {
        Path jar = Path.of(args[0]);
        Path classes = Path.of(args[1]);
        // Written as the UTC date-time itself: ZipEntry.setTime would convert to the machine's time zone.
        LocalDateTime fixed = args.length > 2 && !args[2].isEmpty()
                ? LocalDateTime.ofInstant(Instant.parse(args[2]), ZoneOffset.UTC) : null;
        Path tmp = jar.resolveSibling(jar.getFileName() + ".tmp");
        int hidden = 0;
        int kept = 0;
        MessageDigest build = MessageDigest.getInstance("SHA-256");
        List<Object[]> own = new ArrayList<>();
        List<Object[]> libs = new ArrayList<>();
        try (JarFile in = new JarFile(jar.toFile(), false);
             OutputStream file = Files.newOutputStream(tmp);
             JarOutputStream out = new JarOutputStream(file)) {
            for (JarEntry e : Collections.list(in.entries())) {
                String name = e.getName();
                Matcher v = VERSIONED.matcher(name);
                String prefix = v.matches() ? v.group(1) : "";
                String rest = v.matches() ? v.group(2) : name;
                Matcher n = JNA_NATIVE.matcher(rest);
                if (n.matches() && !n.group(1).equals("linux-x86-64") && !n.group(1).equals("linux-aarch64")) continue;
                String target;
                if (visible(rest, classes)) {
                    target = name;
                    kept++;
                } else if (e.isDirectory()) {
                    continue; // directories of hidden entries are not needed
                } else {
                    target = prefix + "inst/" + (rest.endsWith(".class") ? rest.substring(0, rest.length() - 6) + ".classdata" : rest);
                    if (hidden++ == 0) {
                        // the one directory entry kept: the launcher looks for it to know the jar isolates
                        JarEntry dir = new JarEntry("inst/");
                        if (fixed != null) dir.setTimeLocal(fixed);
                        else dir.setTime(e.getTime());
                        out.putNextEntry(dir);
                        out.closeEntry();
                    }
                }
                byte[] data;
                try (InputStream din = in.getInputStream(e)) {
                    data = din.readAllBytes();
                }
                boolean hiddenClass = !target.equals(name) && prefix.isEmpty() && rest.endsWith(".class");
                boolean ownClass = hiddenClass && rest.startsWith("io/qv4j/") && !rest.startsWith("io/qv4j/shaded/");
                if (!hiddenClass || ownClass) {
                    JarEntry copy = new JarEntry(target);
                    if (fixed != null) copy.setTimeLocal(fixed);
                    else copy.setTime(e.getTime());
                    out.putNextEntry(copy);
                    out.write(data);
                    out.closeEntry();
                }
                if (!target.equals(name)) {
                    build.update(target.getBytes(StandardCharsets.UTF_8));
                    build.update(data);
                    if (hiddenClass) (ownClass ? own : libs).add(new Object[] {rest.substring(0, rest.length() - 6).replace('/', '.'), data});
                }
            }
            if (!own.isEmpty()) stored(out, "inst/qv4j-classes.bin", indexed(own), fixed);
            if (!libs.isEmpty()) stored(out, "inst/qv4j-libs.bin", indexed(libs), fixed);
            if (hidden > 0) {
                JarEntry id = new JarEntry("inst/qv4j-build-id");
                if (fixed != null) id.setTimeLocal(fixed);
                out.putNextEntry(id);
                out.write((HexFormat.of().formatHex(build.digest()) + "\n").getBytes(StandardCharsets.US_ASCII));
                out.closeEntry();
            }
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING);
        System.out.println("IsolateJar: " + jar + ": " + kept + " entries visible, " + hidden + " hidden under inst/, " + libs.size()
                + " of them in inst/qv4j-libs.bin");
    }

    /** An uncompressed entry, read without inflating (and, for the libraries, at any offset). */
    private static void stored(JarOutputStream out, String name, byte[] all, LocalDateTime fixed) throws IOException {
        JarEntry entry = new JarEntry(name);
        entry.setMethod(ZipEntry.STORED);
        entry.setSize(all.length);
        CRC32 crc = new CRC32();
        crc.update(all);
        entry.setCrc(crc.getValue());
        if (fixed != null) entry.setTimeLocal(fixed);
        out.putNextEntry(entry);
        out.write(all);
        out.closeEntry();
    }

    /** Classes ({binary name, bytes}) behind their index, as the class comment describes. */
    private static byte[] indexed(List<Object[]> classes) throws IOException {
        ByteArrayOutputStream index = new ByteArrayOutputStream();
        DataOutputStream ix = new DataOutputStream(index);
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (Object[] c : classes) {
            byte[] name = ((String) c[0]).getBytes(StandardCharsets.UTF_8);
            byte[] bytes = (byte[]) c[1];
            ix.writeInt(name.length);
            ix.write(name);
            ix.writeInt(data.size());
            ix.writeInt(bytes.length);
            data.write(bytes);
        }
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(all);
        out.writeInt(index.size());
        index.writeTo(out);
        data.writeTo(out);
        out.flush();
        return all.toByteArray();
    }

    private static boolean visible(String name, Path classes) {
        if (name.startsWith("META-INF/")) {
            return !name.startsWith("META-INF/services/") || name.equals("META-INF/services/") || name.equals("META-INF/services/io.qv4j.api.Platform");
        }
        if (name.startsWith(LAUNCHER)) return true;
        if (!name.startsWith("io/qv4j/") || name.startsWith("io/qv4j/shaded/")) return false;
        if (name.endsWith("/")) return true; // a package directory of the API (the agent's own are harmless)
        return !Files.exists(classes.resolve(name));
    }
}
