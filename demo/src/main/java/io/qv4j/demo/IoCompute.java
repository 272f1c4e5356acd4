package io.qv4j.demo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32;

/**
 * An application with two pools that want different placements: an I/O pool of 2 (write a small
 * file, read it back, checksum it, wait 1 ms as if for a peer) and a compute pool (SHA-256 over a
 * 64 KiB buffer). Each worker loops for {@code --seconds}; reports operations per second of each
 * pool and the I/O operation's p99.
 *
 * <pre>
 * java -cp demo/target/qv-workloads.jar io.qv4j.demo.IoCompute [--compute N] [--seconds 2] [--out FILE]
 * </pre>
 */
public final class IoCompute {

    private IoCompute() {
    }

    public static void main(String[] args) throws Exception {
        int compute = Integer.parseInt(Threads.opt(args, "--compute", Integer.toString(Runtime.getRuntime().availableProcessors())));
        double seconds = Double.parseDouble(Threads.opt(args, "--seconds", "2"));
        Threads.Result result = new Threads.Result("io+compute", args);
        Path dir = Files.createTempDirectory("qv-iocompute");

        ExecutorService io = Executors.newFixedThreadPool(2, Threads.named("io"));
        ExecutorService cpu = Executors.newFixedThreadPool(compute, Threads.named("compute"));
        long end = System.nanoTime() + (long) (seconds * 1e9);
        List<Future<long[]>> ioWork = new ArrayList<>();
        List<Future<long[]>> cpuWork = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            Path file = dir.resolve("io-" + w);
            ioWork.add(io.submit(() -> ioLoop(file, end)));
        }
        for (int w = 0; w < compute; w++) cpuWork.add(cpu.submit(() -> computeLoop(end)));
        long ioOps = 0;
        long cpuOps = 0;
        List<Long> lat = new ArrayList<>();
        for (Future<long[]> f : ioWork) {
            long[] r = f.get();
            ioOps += r[0];
            for (int i = 1; i < r.length && i <= r[0]; i++) lat.add(r[i]);
        }
        for (Future<long[]> f : cpuWork) cpuOps += f.get()[0];
        var rows = Threads.rows();
        io.shutdown();
        cpu.shutdown();
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) Files.deleteIfExists(p);
        }
        Files.deleteIfExists(dir);

        long[] l = lat.stream().mapToLong(Long::longValue).sorted().toArray();
        result.metric("io", ioOps / seconds, "ops/s", "higher")
                .metric("io-p99", Threads.percentile(l, l.length, 99) / 1000.0, "us", "lower")
                .metric("compute", cpuOps / seconds, "ops/s", "higher")
                .note("io pool 2, compute pool " + compute);
        result.print(rows, System.out);
    }

    /** Ops count, then each op's latency in ns (first 100k). */
    static long[] ioLoop(Path file, long end) throws Exception {
        Threads.seen();
        byte[] data = new byte[16 * 1024];
        long[] out = new long[100_001];
        long ops = 0;
        CRC32 crc = new CRC32();
        while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            data[(int) (ops % data.length)]++;
            Files.write(file, data);
            byte[] back = Files.readAllBytes(file);
            crc.reset();
            crc.update(back);
            if (!Arrays.equals(back, data)) throw new AssertionError("read back differs");
            Thread.sleep(1);
            ops++;
            if (ops < out.length) out[(int) ops] = System.nanoTime() - t0;
        }
        out[0] = ops;
        return out;
    }

    static long[] computeLoop(long end) throws Exception {
        Threads.seen();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] buf = new byte[64 * 1024];
        long ops = 0;
        while (System.nanoTime() < end) {
            sha.update(buf);
            byte[] d = sha.digest();
            buf[(int) (ops % buf.length)] ^= d[0];
            ops++;
        }
        return new long[] {ops};
    }
}
