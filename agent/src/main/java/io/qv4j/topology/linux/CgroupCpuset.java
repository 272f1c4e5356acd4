package io.qv4j.topology.linux;

import io.qv4j.topology.CpuSet;

import java.nio.file.Path;
import java.util.List;

/**
 * The CPUs the process's cgroup cpuset grants, v1 or v2, as {@code proc/self/cgroup} (or the
 * older {@code proc/self/cpuset}) and {@code proc/mounts} describe it. Null when no cpuset
 * controller is mounted or its files are not there (a dump without them, a container that hides
 * them): then the cgroup does not restrict anything we can see.
 */
final class CgroupCpuset {

    /** Where a cpuset hierarchy is mounted and which files in it say what the cgroup may use. */
    private record Mount(String dir, List<String> files) {
    }

    private CgroupCpuset() {
    }

    /** Where the process sits: the cpuset mounts found and its cgroup paths in them (null where unknown). */
    private record Place(Mount v1, Mount v2, String v1Path, String v2Path) {
    }

    static CpuSet read(FsRoot fs) {
        Place p = place(fs);
        if (p == null) return null;
        // A cpuset controller on v1 is not available on v2 (a controller lives in one hierarchy).
        if (p.v1() != null && p.v1Path() != null) return readWalkingUp(fs, p.v1(), p.v1Path());
        if (p.v2() != null && p.v2Path() != null) return readWalkingUp(fs, p.v2(), p.v2Path());
        return null;
    }

    /**
     * The CPUs of the isolated cgroup v2 cpuset partition the process is in (its cgroup or an
     * ancestor whose {@code cpuset.cpus.partition} is {@code isolated}: the kernel does not
     * balance there), with those of every isolated partition where the kernel lists them
     * ({@code cpuset.cpus.isolated} at the top, 6.7 and later); empty where none.
     */
    static CpuSet isolatedPartitions(FsRoot fs) {
        Place p = place(fs);
        if (p == null || p.v2() == null || p.v1() != null) return CpuSet.empty();
        Path top = fs.resolve(fs.path(p.v2().dir()));
        if (top == null) return CpuSet.empty();
        CpuSet isolated = list(fs, top.resolve("cpuset.cpus.isolated"));
        if (p.v2Path() == null) return isolated;
        for (Path dir = inside(top, p.v2Path()); dir != null && dir.startsWith(top); dir = dir.getParent()) {
            if ("isolated".equals(fs.read(dir.resolve("cpuset.cpus.partition")))) return isolated.or(list(fs, dir.resolve("cpuset.cpus.effective")));
        }
        return isolated;
    }

    private static CpuSet list(FsRoot fs, Path file) {
        String s = fs.read(file);
        return s == null || s.isEmpty() ? CpuSet.empty() : FsRoot.parseList(file, s);
    }

    private static Place place(FsRoot fs) {
        String mounts = fs.read(fs.path("proc/mounts"));
        if (mounts == null) mounts = fs.read(fs.path("proc/self/mounts"));
        if (mounts == null) return null;
        Mount v1 = null, v2 = null;
        for (String line : mounts.split("\n")) {
            String[] f = line.split(" ");
            if (f.length < 4) continue;
            String type = f[2];
            // v1: "cpus" first, as hwloc reads it. Without cpuset_v2_mode the kernel keeps the
            // effective set equal to it (the nvidiagpunumanodes dump has an effective_cpus that
            // disagrees, and hwloc's answer follows cpuset.cpus); with that mode, effective first.
            if (v1 == null && (type.equals("cpuset") || type.equals("cgroup") && hasOption(f[3], "cpuset"))) {
                // the old cpuset file system, and v1 mounted with noprefix, drop the "cpuset." prefix
                String prefix = type.equals("cpuset") || hasOption(f[3], "noprefix") ? "" : "cpuset.";
                v1 = new Mount(unescape(f[1]), hasOption(f[3], "cpuset_v2_mode")
                        ? List.of(prefix.concat("effective_cpus"), prefix.concat("cpus"))
                        : List.of(prefix.concat("cpus"), prefix.concat("effective_cpus")));
            } else if (v2 == null && type.equals("cgroup2")) {
                v2 = new Mount(unescape(f[1]), List.of("cpuset.cpus.effective"));
            }
        }
        if (v1 == null && v2 == null) return null;

        String v1Path = null, v2Path = null;
        String cgroup = fs.read(fs.path("proc/self/cgroup"));
        if (cgroup != null) {
            for (String line : cgroup.split("\n")) {
                int a = line.indexOf(':'), b = line.indexOf(':', a + 1);
                if (a < 0 || b < 0) continue;
                String controllers = line.substring(a + 1, b);
                if (line.startsWith("0::")) v2Path = line.substring(b + 1);
                else if (hasOption(controllers, "cpuset")) v1Path = line.substring(b + 1);
            }
        }
        // Older kernels (and some dumps) only say where the process sits in the cpuset hierarchy.
        String cpusetPath = fs.read(fs.path("proc/self/cpuset"));
        return new Place(v1, v2, v1Path != null ? v1Path : cpusetPath, v2Path != null ? v2Path : cpusetPath);
    }

    /** The cgroup's directory under the mount {@code top}; {@code top} itself for a path that would leave it. */
    private static Path inside(Path top, String cgroupPath) {
        Path dir = top.resolve(cgroupPath.startsWith("/") ? cgroupPath.substring(1) : cgroupPath).normalize();
        return dir.startsWith(top) ? dir : top;
    }

    /** The cpuset file of the cgroup, or of its nearest ancestor that has one (v2 levels without the controller lack it). */
    private static CpuSet readWalkingUp(FsRoot fs, Mount mount, String cgroupPath) {
        Path top = fs.resolve(fs.path(mount.dir()));
        if (top == null) return null;
        for (Path dir = inside(top, cgroupPath); dir != null && dir.startsWith(top); dir = dir.getParent()) {
            for (String name : mount.files()) {
                String s = fs.read(dir.resolve(name));
                // an empty cpuset.cpus means "inherit" in v1 children that were never configured
                if (s != null && !s.isEmpty()) return FsRoot.parseList(dir.resolve(name), s);
            }
        }
        return null;
    }

    static boolean hasOption(String commaList, String option) {
        for (String o : commaList.split(",")) {
            if (o.equals(option)) return true;
        }
        return false;
    }

    /** Mount points in /proc/mounts escape blanks and backslashes as octal ({@code \040}). */
    static String unescape(String s) {
        if (s.indexOf('\\') < 0) return s;
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && isOctal(s, i + 1)) {
                sb.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static boolean isOctal(String s, int from) {
        for (int k = from; k < from + 3; k++) {
            if (k >= s.length() || s.charAt(k) < '0' || s.charAt(k) > '7') return false;
        }
        return true;
    }
}
