package io.qv4j.topology;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU kinds as hwloc 2 builds and ranks them (its {@code cpukinds.c}), so that a machine's kinds
 * equal {@code lstopo --cpukinds}. Sources register sets of PUs, each with some info and perhaps a
 * forced efficiency; {@link #register} splits and merges them into disjoint kinds; {@link #ranked}
 * gives each kind its efficiency:
 * <ol>
 *   <li>when every kind has a forced efficiency and no two are equal, in that order;</li>
 *   <li>else by core type ({@code IntelLowPower} 1, {@code IntelAtom} 2, {@code IntelCore} 3,
 *       other 0, shifted by 20 bits) plus the base frequency where every kind has one, else the
 *       maximum frequency; when no kind has a core type or every kind lacks both frequencies,
 *       or two kinds tie, the kinds are not ranked (efficiency -1, registration order).</li>
 * </ol>
 * Efficiency 0 is the least performant. One kind has efficiency 0. Not thread-safe: a builder's.
 */
final class CpuKinds {

    private static final int UNFORCED = -1;

    private static final class Kind {
        CpuSet cpus;
        final Map<String, String> info;
        int forced;

        Kind(CpuSet cpus, Map<String, String> info, int forced) {
            this.cpus = cpus;
            this.info = new LinkedHashMap<>(info);
            this.forced = forced;
        }
    }

    private final List<Kind> kinds = new ArrayList<>();

    /**
     * Adds {@code set} with {@code info}: a kind that {@code set} covers takes the info (and the
     * forced efficiency, where it has none); a kind {@code set} only partly covers is split, its
     * part in {@code set} becoming a new kind with both infos and {@code set}'s forced efficiency;
     * PUs of no kind yet become a new kind.
     */
    void register(CpuSet set, Map<String, String> info, int forcedEfficiency) {
        CpuSet rest = set;
        int existing = kinds.size();
        for (int i = 0; i < existing && !rest.isEmpty(); i++) {
            Kind k = kinds.get(i);
            CpuSet both = k.cpus.and(rest);
            if (both.isEmpty()) continue;
            if (both.equals(k.cpus)) {
                k.info.putAll(info);
                if (k.forced == UNFORCED) k.forced = forcedEfficiency;
            } else {
                Kind part = new Kind(both, k.info, forcedEfficiency);
                part.info.putAll(info);
                kinds.add(part);
                k.cpus = k.cpus.andNot(both);
            }
            rest = rest.andNot(both);
        }
        if (!rest.isEmpty()) kinds.add(new Kind(rest, info, forcedEfficiency));
    }

    /** The kinds cut to {@code online} (those left without PUs dropped), ranked. */
    List<CpuKind> ranked(CpuSet online) {
        List<Kind> live = new ArrayList<>();
        for (Kind k : kinds) {
            CpuSet cpus = k.cpus.and(online);
            if (!cpus.isEmpty()) live.add(new Kind(cpus, k.info, k.forced));
        }
        List<CpuKind> out = new ArrayList<>();
        if (live.size() == 1) {
            Kind k = live.get(0);
            out.add(new CpuKind(0, k.cpus, k.info, k.forced));
            return out;
        }
        long[] values = byForced(live);
        if (values == null) values = byTypeAndFrequency(live);
        if (values == null) {
            for (Kind k : live) out.add(new CpuKind(-1, k.cpus, k.info, k.forced));
            return out;
        }
        Integer[] order = new Integer[live.size()];
        for (int i = 0; i < order.length; i++) order[i] = i;
        long[] v = values;
        java.util.Arrays.sort(order, new java.util.Comparator<Integer>() {
            @Override
            public int compare(Integer a, Integer b) {
                return Long.compare(v[a], v[b]);
            }
        });
        for (int rank = 0; rank < order.length; rank++) {
            Kind k = live.get(order[rank]);
            out.add(new CpuKind(rank, k.cpus, k.info, k.forced));
        }
        return out;
    }

    /** Each kind's forced efficiency, or null unless every kind has one and they all differ. */
    private static long[] byForced(List<Kind> live) {
        long[] v = new long[live.size()];
        for (int i = 0; i < v.length; i++) {
            if (live.get(i).forced == UNFORCED) return null;
            v[i] = live.get(i).forced;
        }
        return distinct(v) ? v : null;
    }

    /** hwloc's "coretype+frequency" ranking values, or null where it cannot rank. */
    private static long[] byTypeAndFrequency(List<Kind> live) {
        int n = live.size();
        long[] type = new long[n], max = new long[n], base = new long[n];
        boolean haveType = true, haveMax = true, haveBase = true;
        for (int i = 0; i < n; i++) {
            Map<String, String> info = live.get(i).info;
            type[i] = coreType(info.get("CoreType"));
            max[i] = number(info.get("FrequencyMaxMHz"));
            base[i] = number(info.get("FrequencyBaseMHz"));
            haveType &= type[i] != 0;
            haveMax &= max[i] != 0;
            haveBase &= base[i] != 0;
        }
        if (!haveType && !haveMax && !haveBase) return null;
        long[] v = new long[n];
        for (int i = 0; i < n; i++) v[i] = (type[i] << 20) + (haveBase ? base[i] : max[i]);
        return distinct(v) ? v : null;
    }

    private static int coreType(String t) {
        if (t == null) return 0;
        return switch (t) {
            case "IntelLowPower" -> 1;
            case "IntelAtom" -> 2;
            case "IntelCore" -> 3;
            default -> 0;
        };
    }

    /** A decimal number as C's atoi reads it (leading digits; 0 when there are none). */
    private static long number(String s) {
        if (s == null) return 0;
        long v = 0;
        int i = 0;
        while (i < s.length() && s.charAt(i) == ' ') i++;
        for (int digits = 0; i < s.length() && digits < 18 && Character.isDigit(s.charAt(i)); i++, digits++) v = v * 10 + (s.charAt(i) - '0');
        return v;
    }

    private static boolean distinct(long[] v) {
        for (int i = 0; i < v.length; i++) {
            for (int j = i + 1; j < v.length; j++) if (v[i] == v[j]) return false;
        }
        return true;
    }
}
