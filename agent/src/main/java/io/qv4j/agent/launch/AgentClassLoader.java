package io.qv4j.agent.launch;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.ref.SoftReference;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.CodeSigner;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.zip.ZipFile;

/**
 * Loads the agent's hidden classes and resources, stored in its jar as {@code inst/NAME.classdata}
 * and {@code inst/NAME}, from that one open jar file. Child-first: the agent gets its own JNA even
 * where the application has another on its class path; what the jar does not hide (the API) comes
 * from the parent, the application class loader, so the agent and the application share one
 * {@code io.qv4j.api}.
 *
 * <p>The agent's own classes come from {@code inst/qv4j-classes.bin}, all of them in one stored
 * entry read at the first class load: reading the hundred-odd classes of a start one entry at a
 * time cost a cold JVM about 30 ms. That copy is held softly; when the collector has taken it,
 * classes come from their own entries. The dependencies' classes have no entries: each is read at
 * its offset in the stored {@code inst/qv4j-libs.bin}, whose index is read at the first of them.
 */
final class AgentClassLoader extends ClassLoader {

    static final String PREFIX = "inst/";
    static final String CLASS_SUFFIX = ".classdata";
    static final String OWN_CLASSES = PREFIX + "qv4j-classes.bin";
    static final String LIBRARY_CLASSES = PREFIX + "qv4j-libs.bin";
    /** What the JDK reads through its stack buffer, without a malloc. */
    private static final int READ_CHUNK = 8192;

    static {
        registerAsParallelCapable();
    }

    private final JarFile jar;
    private final String base;
    private final ProtectionDomain domain;
    /** Binary name → {offset, length} in {@link #ownBytes}; null until the first class load. */
    private volatile Map<String, int[]> own;
    private volatile SoftReference<byte[]> ownBytes = new SoftReference<>(null);
    /** Binary name → {offset, length} in {@link #LIBRARY_CLASSES}, offsets from its start; null until first needed. */
    private volatile Map<String, int[]> libs;

    private AgentClassLoader(JarFile jar, URL location, ClassLoader parent) {
        super("qv4j-agent", parent);
        this.jar = jar;
        this.base = "jar:" + location + "!/";
        this.domain = new ProtectionDomain(new CodeSource(location, (CodeSigner[]) null), null, this, null);
    }

    /** The loader of {@code jar}'s hidden classes, or null when it hides none. */
    static AgentClassLoader open(Path jar, ClassLoader parent) throws IOException {
        // The runtime version: a dependency's classes for newer JDKs would live under META-INF/versions.
        JarFile f = new JarFile(jar.toFile(), false, ZipFile.OPEN_READ, Runtime.version());
        if (f.getJarEntry(PREFIX) == null) {
            f.close();
            return null;
        }
        return new AgentClassLoader(f, jar.toUri().toURL(), parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        // Before taking a lock: each lock is an entry in the loader's map, which grew (and was copied)
        // for each of the hundreds of JDK classes the agent names
        Class<?> jdk = name.startsWith("java.") ? boot(name) : null;
        if (jdk != null) {
            if (resolve) resolveClass(jdk);
            return jdk;
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) c = hidden(name);
            if (c == null) c = getParent().loadClass(name);
            if (resolve) resolveClass(c);
            return c;
        }
    }

    /**
     * A {@code java.*} class straight from the boot loader, or null when it is not one of the boot
     * loader's (a few JDK modules, such as java.sql, are the platform loader's): asking the parent
     * first runs the application and platform loaders' Java code for each of the hundreds of JDK
     * classes the agent names, in a cold JVM.
     */
    private static Class<?> boot(String name) {
        try {
            return Class.forName(name, false, null);
        } catch (ClassNotFoundException notBoot) {
            return null;
        }
    }

    /** Reads {@link #OWN_CLASSES} whole, once; an empty index when the jar has none or it cannot be read. */
    private Map<String, int[]> ownIndex() {
        Map<String, int[]> index = own;
        if (index != null) return index;
        synchronized (this) {
            if (own != null) return own;
            index = Map.of();
            JarEntry e = jar.getJarEntry(OWN_CLASSES);
            if (e != null && e.getSize() < Integer.MAX_VALUE) {
                try (InputStream in = jar.getInputStream(e)) {
                    byte[] all = readFully(in, (int) e.getSize());
                    int end = 4 + readInt(all, 0);
                    index = index(all, 4, end, end, all.length);
                    ownBytes = new SoftReference<>(all);
                } catch (IOException | RuntimeException unreadable) {
                    // the classes' own entries serve
                }
            }
            own = index;
            return index;
        }
    }

    /** Reads the index of {@link #LIBRARY_CLASSES} once; an empty one when the jar has none or it cannot be read. */
    private Map<String, int[]> libraryIndex() {
        Map<String, int[]> index = libs;
        if (index != null) return index;
        synchronized (this) {
            if (libs != null) return libs;
            index = Map.of();
            JarEntry e = jar.getJarEntry(LIBRARY_CLASSES);
            if (e != null) {
                try (InputStream in = jar.getInputStream(e)) {
                    byte[] ix = readFully(in, readInt(readFully(in, 4), 0));
                    index = index(ix, 0, ix.length, 4 + ix.length, e.getSize());
                } catch (IOException | RuntimeException unreadable) {
                    // what needs the dependencies fails as it would without them
                }
            }
            libs = index;
            return index;
        }
    }

    /**
     * The index of a stored-classes entry (IsolateJar writes both alike), in {@code b} from
     * {@code from} to {@code to}: binary name → {offset in the entry, length}, where the data
     * starts at {@code dataStart} of an entry of {@code size} bytes.
     *
     * @throws IOException when an entry would reach beyond the data
     */
    private static Map<String, int[]> index(byte[] b, int from, int to, int dataStart, long size) throws IOException {
        Map<String, int[]> index = new HashMap<>();
        for (int i = from; i + 4 <= to; ) {
            int nameLength = readInt(b, i);
            String name = new String(b, i + 4, nameLength, StandardCharsets.UTF_8);
            int offset = readInt(b, i + 4 + nameLength);
            int length = readInt(b, i + 8 + nameLength);
            if (offset < 0 || length < 0 || (long) dataStart + offset + length > size) throw new IOException("a damaged class index");
            index.put(name, new int[] {dataStart + offset, length});
            i += 12 + nameLength;
        }
        return index;
    }

    /** The bytes of a dependency's class, read at its offset; null when the jar holds no such class. */
    private byte[] libraryClass(String name) throws IOException {
        int[] at = libraryIndex().get(name);
        if (at == null) return null;
        try (InputStream in = jar.getInputStream(jar.getJarEntry(LIBRARY_CLASSES))) {
            in.skipNBytes(at[0]);
            return readFully(in, at[1]);
        }
    }

    /**
     * Exactly {@code n} bytes into one array, 8 KiB at a time: readNBytes gathers pieces and copies
     * them, and a larger read has the JDK's native code malloc a buffer of that size; either is
     * memory a cold start must fault in again.
     */
    private static byte[] readFully(InputStream in, int n) throws IOException {
        if (n < 0) throw new IOException("a negative length");
        byte[] b = new byte[n];
        for (int done = 0, r; done < n; done += r) {
            r = in.read(b, done, Math.min(READ_CHUNK, n - done));
            if (r < 0) throw new IOException("ends early");
        }
        return b;
    }

    private static int readInt(byte[] b, int i) {
        return (b[i] & 0xff) << 24 | (b[i + 1] & 0xff) << 16 | (b[i + 2] & 0xff) << 8 | (b[i + 3] & 0xff);
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        Class<?> c = hidden(name);
        if (c == null) throw new ClassNotFoundException(name);
        return c;
    }

    /** {@code name} defined from what the jar hides (the agent's own classes first), or null when it hides no such class. */
    private Class<?> hidden(String name) throws ClassNotFoundException {
        Map<String, int[]> index = ownIndex();
        int[] at = index.get(name);
        byte[] all = at == null ? null : ownBytes.get();
        if (all != null) return define(name, all, at[0], at[1]);
        // java.* is the boot loader's alone: no lookup in the jar for the JDK classes the agent uses
        if (name.startsWith("java.")) return null;
        byte[] bytes = null;
        try {
            // Only an own class has an entry of its own, read when the stored copy is collected or
            // could not be read (an empty index): no lookup in the jar for the parent's classes.
            JarEntry e = at != null || index.isEmpty() ? jar.getJarEntry(PREFIX + name.replace('.', '/') + CLASS_SUFFIX) : null;
            if (e != null) {
                try (InputStream in = jar.getInputStream(e)) {
                    bytes = in.readAllBytes();
                }
            } else if (inLibraries(name)) {
                bytes = libraryClass(name);
            }
        } catch (IOException x) {
            throw new ClassNotFoundException(name, x);
        }
        return bytes == null ? null : define(name, bytes, 0, bytes.length);
    }

    /**
     * Whether a dependency could hold {@code name}: not the JDK's, not qv4j's own (the API is the
     * parent's), so the API classes the agent uses at start do not read the libraries' index.
     */
    private static boolean inLibraries(String name) {
        if (name.startsWith("io.qv4j.")) return name.startsWith("io.qv4j.shaded.");
        return !(name.startsWith("jdk.") || name.startsWith("sun."));
    }

    private Class<?> define(String name, byte[] b, int offset, int length) {
        definePackageOf(name);
        return defineClass(name, b, offset, length, domain);
    }

    private void definePackageOf(String className) {
        int dot = className.lastIndexOf('.');
        if (dot <= 0) return;
        String pkg = className.substring(0, dot);
        if (getDefinedPackage(pkg) != null) return;
        try {
            definePackage(pkg, null, null, null, null, null, null, null);
        } catch (IllegalArgumentException raced) {
            // defined by another thread meanwhile
        }
    }

    /** A hidden entry for a resource name ({@code a/B.class} is stored as {@code inst/a/B.classdata}). */
    private JarEntry entry(String name) {
        String stored = name.endsWith(".class") ? name.substring(0, name.length() - 6) + CLASS_SUFFIX : name;
        return jar.getJarEntry(PREFIX + stored);
    }

    @Override
    protected URL findResource(String name) {
        JarEntry e = entry(name);
        if (e == null) return null;
        try {
            return new URL(base + e.getRealName());
        } catch (MalformedURLException x) {
            throw new UncheckedIOException(x);
        }
    }

    @Override
    protected Enumeration<URL> findResources(String name) {
        URL u = findResource(name);
        return u == null ? Collections.emptyEnumeration() : Collections.enumeration(List.of(u));
    }

    @Override
    public URL getResource(String name) {
        URL u = findResource(name);
        return u != null ? u : getParent().getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        List<URL> all = new ArrayList<>(Collections.list(findResources(name)));
        all.addAll(Collections.list(getParent().getResources(name)));
        return Collections.enumeration(all);
    }

    /** Straight from the open jar: no URL connection per resource (ByteBuddy reads class files this way). */
    @Override
    public InputStream getResourceAsStream(String name) {
        if (name.endsWith(".class")) {
            String binary = name.substring(0, name.length() - 6).replace('/', '.');
            int[] at = ownIndex().get(binary);
            byte[] all = at == null ? null : ownBytes.get();
            if (all != null) return new ByteArrayInputStream(all, at[0], at[1]);
            try {
                byte[] lib = libraryClass(binary);
                if (lib != null) return new ByteArrayInputStream(lib);
            } catch (IOException x) {
                return null;
            }
        }
        JarEntry e = entry(name);
        if (e == null) return getParent().getResourceAsStream(name);
        try {
            return jar.getInputStream(e);
        } catch (IOException x) {
            return null;
        }
    }
}
