package io.qv4j.topology.linux;

import io.qv4j.topology.CpuSet;

import java.nio.file.Path;

/**
 * A cpuset attribute that kernels spell several ways (newest names first; names ending in
 * "list" are cpulists, the others hex masks); after one spelling is found, it is tried first,
 * so a machine costs one read per PU.
 */
final class CpusetAttr {
    private final FsRoot fs;
    private final String[] names;
    private int hit;

    CpusetAttr(FsRoot fs, String... names) {
        this.fs = fs;
        this.names = names;
    }

    CpuSet read(Path dir) {
        for (int k = 0; k < names.length; k++) {
            int n = (hit + k) % names.length;
            Path file = dir.resolve(names[n]);
            CpuSet s = names[n].endsWith("list") ? fs.readList(file) : fs.readMask(file);
            if (s != null) {
                hit = n;
                return s;
            }
        }
        return null;
    }
}
