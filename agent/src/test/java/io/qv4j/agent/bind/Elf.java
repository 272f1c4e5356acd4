package io.qv4j.agent.bind;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/** Just enough of a 64-bit little-endian ELF file to tell its machine and its NEEDED entries. */
public final class Elf {

    public static final int X86_64 = 62;
    public static final int AARCH64 = 183;

    private static final int PT_DYNAMIC = 2;
    private static final long DT_NEEDED = 1;

    private Elf() {
    }

    /** The {@code e_machine} of an ELF64 little-endian file; throws if it is not one. */
    public static int machine(byte[] file) {
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(0) != 0x464c457f || file[4] != 2 || file[5] != 1) throw new IllegalArgumentException("not a 64-bit little-endian ELF file");
        return b.getShort(0x12) & 0xffff;
    }

    /** The string-table offsets of the dynamic section's NEEDED entries (empty: needs no shared library). */
    public static List<Long> needed(byte[] file) {
        machine(file);
        ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        long phoff = b.getLong(0x20);
        int phentsize = b.getShort(0x36) & 0xffff;
        int phnum = b.getShort(0x38) & 0xffff;
        List<Long> out = new ArrayList<>();
        boolean dynamic = false;
        for (int i = 0; i < phnum; i++) {
            int ph = (int) (phoff + (long) i * phentsize);
            if (b.getInt(ph) != PT_DYNAMIC) continue;
            dynamic = true;
            long off = b.getLong(ph + 8);
            long size = b.getLong(ph + 0x20);
            for (long d = off; d + 16 <= off + size; d += 16) {
                long tag = b.getLong((int) d);
                if (tag == 0) break;
                if (tag == DT_NEEDED) out.add(b.getLong((int) d + 8));
            }
        }
        if (!dynamic) throw new IllegalArgumentException("no dynamic section: not a shared library");
        return out;
    }
}
