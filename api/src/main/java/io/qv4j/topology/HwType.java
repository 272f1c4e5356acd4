package io.qv4j.topology;

import java.util.Locale;

/**
 * The kinds of objects in a topology, outermost first. The declaration order is the nesting
 * order used when two objects cover the same PUs (a package and its only L3: the package is the
 * parent). {@link #shortName()} is the name options, the CLI and JSON use.
 */
public enum HwType {
    MACHINE("machine"),
    PACKAGE("package"),
    DIE("die"),
    NUMANODE("numa"),
    L3("l3"),
    L2("l2"),
    L1("l1"),
    CORE("core"),
    PU("pu"),
    GPU("gpu"),
    NIC("nic");

    private final String shortName;

    HwType(String shortName) {
        this.shortName = shortName;
    }

    /** The lowercase name used by options, the CLI and the JSON output ({@code numa} for {@link #NUMANODE}). */
    public String shortName() {
        return shortName;
    }

    /** True for the caches (L1 is the data or unified one), whose objects have a size. */
    public boolean isCache() {
        return this == L1 || this == L2 || this == L3;
    }

    /** True for PCI devices (GPU, NIC), which are not part of the CPU tree. */
    public boolean isDevice() {
        return this == GPU || this == NIC;
    }

    /**
     * Parses a short name ({@code numa}) or an enum name ({@code NUMANODE}), ignoring case.
     *
     * @throws IllegalArgumentException naming the value and the allowed names
     */
    public static HwType parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (HwType t : values()) {
            if (t.shortName.equals(n) || t.name().toLowerCase(Locale.ROOT).equals(n)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown object type '" + name + "' (allowed: " + allowedNames() + ")");
    }

    static String allowedNames() {
        StringBuilder sb = new StringBuilder();
        for (HwType t : values()) {
            if (sb.length() > 0) sb.append(", ");
            sb.append(t.shortName);
        }
        return sb.toString();
    }
}
