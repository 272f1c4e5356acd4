package io.qv4j.agent.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Path;
import java.security.CodeSigner;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.zip.ZipFile;

/**
 * Loads the agent's hidden classes and resources, stored in its jar as {@code inst/NAME.classdata}
 * and {@code inst/NAME}, from that one open jar file. Child-first: the agent gets its own JNA even
 * where the application has another on its class path; what the jar does not hide (the API) comes
 * from the parent, the application class loader, so the agent and the application share one
 * {@code io.qv4j.api}.
 */
final class AgentClassLoader extends ClassLoader {

    static final String PREFIX = "inst/";
    static final String CLASS_SUFFIX = ".classdata";

    static {
        registerAsParallelCapable();
    }

    private final JarFile jar;
    private final String base;
    private final ProtectionDomain domain;

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
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                JarEntry e = jar.getJarEntry(PREFIX + name.replace('.', '/') + CLASS_SUFFIX);
                c = e != null ? define(name, e) : getParent().loadClass(name);
            }
            if (resolve) resolveClass(c);
            return c;
        }
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        JarEntry e = jar.getJarEntry(PREFIX + name.replace('.', '/') + CLASS_SUFFIX);
        if (e == null) throw new ClassNotFoundException(name);
        return define(name, e);
    }

    private Class<?> define(String name, JarEntry e) throws ClassNotFoundException {
        byte[] bytes;
        try (InputStream in = jar.getInputStream(e)) {
            bytes = in.readAllBytes();
        } catch (IOException x) {
            throw new ClassNotFoundException(name, x);
        }
        int dot = name.lastIndexOf('.');
        if (dot > 0) {
            String pkg = name.substring(0, dot);
            if (getDefinedPackage(pkg) == null) {
                try {
                    definePackage(pkg, null, null, null, null, null, null, null);
                } catch (IllegalArgumentException raced) {
                    // defined by another thread meanwhile
                }
            }
        }
        return defineClass(name, bytes, 0, bytes.length, domain);
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
        JarEntry e = entry(name);
        if (e == null) return getParent().getResourceAsStream(name);
        try {
            return jar.getInputStream(e);
        } catch (IOException x) {
            return null;
        }
    }
}
