package io.qv4j.topology.linux;

import java.nio.file.Path;
import java.util.StringTokenizer;

/**
 * The CPU bandwidth quota of the process's cgroup, in CPUs ({@code quota / period}): cgroup v2
 * {@code cpu.max} ({@code "200000 100000"}, {@code "max 100000"}), v1 {@code cpu.cfs_quota_us}
 * (-1: none) and {@code cpu.cfs_period_us}. The cgroup and each ancestor up to the mount may set
 * one; the smallest applies. Null when there is no quota, or no cpu controller we can see.
 */
public final class CgroupQuota {

    private CgroupQuota() {
    }

    /** This process's quota, read from the live {@code /proc} and cgroup file systems. */
    public static Double live() {
        return read(Path.of("/"));
    }

    /** The quota as a dump under {@code root} records it. */
    public static Double read(Path root) {
        try {
            return read(new FsRoot(root));
        } catch (RuntimeException e) {
            return null;
        }
    }

    static Double read(FsRoot fs) {
        String mounts = fs.read(fs.path("proc/self/mounts"));
        if (mounts == null) mounts = fs.read(fs.path("proc/mounts"));
        String cgroup = fs.read(fs.path("proc/self/cgroup"));
        if (mounts == null || cgroup == null) return null;
        String v1Dir = null, v2Dir = null;
        for (String line : mounts.split("\n")) {
            String[] f = line.split(" ");
            if (f.length < 4) continue;
            if (v1Dir == null && f[2].equals("cgroup") && CgroupCpuset.hasOption(f[3], "cpu")) v1Dir = CgroupCpuset.unescape(f[1]);
            else if (v2Dir == null && f[2].equals("cgroup2")) v2Dir = CgroupCpuset.unescape(f[1]);
        }
        String v1Path = null, v2Path = null;
        for (String line : cgroup.split("\n")) {
            int a = line.indexOf(':'), b = line.indexOf(':', a + 1);
            if (a < 0 || b < 0) continue;
            if (line.startsWith("0::")) v2Path = line.substring(b + 1);
            else if (CgroupCpuset.hasOption(line.substring(a + 1, b), "cpu")) v1Path = line.substring(b + 1);
        }
        if (v1Dir != null && v1Path != null) return walk(fs, v1Dir, v1Path, false);
        if (v2Dir != null && v2Path != null) return walk(fs, v2Dir, v2Path, true);
        return null;
    }

    private static Double walk(FsRoot fs, String mount, String cgroupPath, boolean v2) {
        Path top = fs.path(mount).normalize();
        Path dir = top.resolve(cgroupPath.startsWith("/") ? cgroupPath.substring(1) : cgroupPath).normalize();
        if (!dir.startsWith(top)) dir = top;
        Double min = null;
        for (; dir != null && dir.startsWith(top); dir = dir.getParent()) {
            Double q = v2 ? parseV2(fs.read(dir.resolve("cpu.max")))
                    : parseV1(fs.read(dir.resolve("cpu.cfs_quota_us")), fs.read(dir.resolve("cpu.cfs_period_us")));
            if (q != null && (min == null || q < min)) min = q;
        }
        return min;
    }

    /** {@code "200000 100000"} → 2.0; {@code "max 100000"} or junk → null. */
    static Double parseV2(String cpuMax) {
        if (cpuMax == null) return null;
        StringTokenizer f = new StringTokenizer(cpuMax);
        if (!f.hasMoreTokens()) return null;
        String first = f.nextToken();
        if (first.equals("max")) return null;
        long quota = decimal(first);
        long period = f.hasMoreTokens() ? decimal(f.nextToken()) : 100000;
        return quota > 0 && period > 0 ? (double) quota / period : null;
    }

    /** {@code cpu.cfs_quota_us} -1 → null; else quota / period. */
    static Double parseV1(String quota, String period) {
        if (quota == null) return null;
        long q = decimal(quota.strip());
        long p = period == null ? 100000 : decimal(period.strip());
        return q > 0 && p > 0 ? (double) q / p : null;
    }

    /** A whole decimal number of ASCII digits; {@link Long#MIN_VALUE} (not positive: no quota) when it is not one. */
    private static long decimal(String s) {
        return FsRoot.decimal(s, 0, s.length());
    }
}
